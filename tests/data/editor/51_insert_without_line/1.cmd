command: insert
path: root:t/n.txt
kind: invalid_argument
