command: view
path: root:t/new.txt
