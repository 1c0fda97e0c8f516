command: insert
path: root:t/t.py
insert_line: 1
