command: str_replace
path: root:t/r.txt
kind: edit_ambiguous
