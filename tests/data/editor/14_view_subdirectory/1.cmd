command: view
path: root:t/sub
