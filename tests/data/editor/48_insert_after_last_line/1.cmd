command: insert
path: root:t/s.txt
insert_line: 2
