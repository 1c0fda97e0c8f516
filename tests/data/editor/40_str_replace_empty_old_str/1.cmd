command: str_replace
path: root:t/s.txt
kind: edit_ambiguous
