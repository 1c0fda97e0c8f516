command: view
path: root:t/n.txt
view_range: 21 21
