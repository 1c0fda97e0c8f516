command: view
path: root:t/big.txt
