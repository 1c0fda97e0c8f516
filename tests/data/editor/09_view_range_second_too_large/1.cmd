command: view
path: root:t/n.txt
view_range: 2 30
kind: out_of_range
