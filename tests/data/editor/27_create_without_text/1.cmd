command: create
path: root:t/new.txt
kind: invalid_argument
