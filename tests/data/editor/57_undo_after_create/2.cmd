command: undo_edit
path: root:t/c.txt
tool: str_replace_editor
