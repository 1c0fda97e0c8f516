command: view
path: root:t/l.txt
kind: invalid_utf8
