command: view
path: root:t/n.txt
view_range: 5 3
kind: out_of_range
