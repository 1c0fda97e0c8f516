command: str_replace
path: root:t/n.txt
