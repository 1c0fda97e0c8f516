command: view
path: root:t
