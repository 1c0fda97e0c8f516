command: insert
path: root:t/n.txt
insert_line: 21
