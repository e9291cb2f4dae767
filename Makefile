libh.a: hello.o
	ar rcs $@ $^
	ranlib $@
app: hello.o
	cc -o $@ $^
