command: delete
path: root:t/n.txt
tool: str_replace_editor
kind: invalid_argument
