command: create
path: root:t/../outside/new.txt
kind: invalid_path
