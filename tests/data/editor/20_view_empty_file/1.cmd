command: view
path: root:t/e.txt
