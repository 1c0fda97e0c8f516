def f():
	# comment
	if x:
		return 1
	return 2
