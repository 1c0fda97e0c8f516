command: str_replace
path: root:t/u.txt
