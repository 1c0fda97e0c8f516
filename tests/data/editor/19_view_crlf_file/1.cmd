command: view
path: root:t/w.txt
