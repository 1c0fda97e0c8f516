command: view
path: root:t/t.py
