command: undo_edit
path: root:t/n.txt
tool: str_replace_editor
kind: edit_failed
