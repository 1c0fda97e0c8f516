abc
def
