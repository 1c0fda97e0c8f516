command: create
path: root:t/sub
kind: already_exists
