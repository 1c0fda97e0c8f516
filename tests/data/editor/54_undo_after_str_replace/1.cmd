command: str_replace
path: root:t/n.txt
tool: str_replace_editor
