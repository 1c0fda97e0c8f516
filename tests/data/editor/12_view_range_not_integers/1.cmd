command: view
path: root:t/n.txt
view_range: invalid
kind: invalid_argument
