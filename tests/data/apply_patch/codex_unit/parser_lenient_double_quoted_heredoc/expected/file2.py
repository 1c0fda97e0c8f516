import foo
bar
