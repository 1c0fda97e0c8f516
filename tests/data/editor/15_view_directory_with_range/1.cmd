command: view
path: root:t/sub
view_range: 1 2
kind: invalid_argument
