command: view
path: root:t/u.txt
