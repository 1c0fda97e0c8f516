A
