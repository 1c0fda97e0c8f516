command: str_replace
path: root:t/n.txt
kind: invalid_argument
