command: create
path: root:t/new.txt
