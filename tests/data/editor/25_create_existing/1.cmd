command: create
path: root:t/a.txt
kind: already_exists
