command: view
path: root:t/n.txt
view_range: 1 2 3
kind: invalid_argument
