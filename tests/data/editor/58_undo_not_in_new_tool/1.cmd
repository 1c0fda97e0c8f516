command: undo_edit
path: root:t/n.txt
kind: invalid_argument
