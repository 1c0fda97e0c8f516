command: view
path: root:t/n.txt
view_range: 22 25
kind: out_of_range
