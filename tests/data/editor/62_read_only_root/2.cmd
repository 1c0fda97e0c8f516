command: view
path: root:ro/ro.txt
