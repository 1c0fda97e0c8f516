command: str_replace
path: root:t/n.txt
kind: edit_ambiguous
