command: view
path: root:t/n.txt
max_characters: 30
