command: str_replace
path: root:t/t.py
