command: str_replace
path: root:t/w.txt
