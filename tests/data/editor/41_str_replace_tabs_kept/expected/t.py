def f():
	if x:
	        return 11
	return 2
