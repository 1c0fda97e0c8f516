command: create
path: root:t/sub/new.txt
