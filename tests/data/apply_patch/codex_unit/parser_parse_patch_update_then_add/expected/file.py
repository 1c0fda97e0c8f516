x
line
