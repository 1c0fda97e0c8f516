command: str_replace
path: root:t/nope.txt
kind: not_found
