command: str_replace
path: root:t/sub
kind: is_directory
