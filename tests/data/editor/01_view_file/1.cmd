command: view
path: root:t/a.txt
