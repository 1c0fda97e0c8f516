command: view
path: root:t/../outside/secret.txt
kind: invalid_path
