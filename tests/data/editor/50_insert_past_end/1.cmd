command: insert
path: root:t/n.txt
insert_line: 22
kind: out_of_range
