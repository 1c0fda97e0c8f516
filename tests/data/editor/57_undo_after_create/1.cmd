command: create
path: root:t/c.txt
tool: str_replace_editor
