command: insert
path: root:t/n.txt
insert_line: 1
kind: invalid_argument
