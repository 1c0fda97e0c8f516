command: view
path: root:t/nope.txt
kind: not_found
