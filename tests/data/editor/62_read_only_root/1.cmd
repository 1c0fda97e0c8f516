command: str_replace
path: root:ro/ro.txt
kind: permission_denied
