command: insert
path: root:t/n.txt
tool: str_replace_editor
insert_line: 1
