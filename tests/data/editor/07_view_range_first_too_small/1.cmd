command: view
path: root:t/n.txt
view_range: 0 5
kind: out_of_range
