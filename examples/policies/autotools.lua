-- A GNU build from its sources in git:
-- `lcsb autotools.lua -- sh -c 'autoreconf -i && ./configure && make && make check'`.
-- The autotools preset regenerates configure and Makefile.in (autoreconf
-- runs autoconf, autoheader, aclocal, automake and libtoolize, and they run
-- m4 and perl); the c preset runs configure's checks, make and the
-- compilers. built = true lets what the build makes run: configure's test
-- programs, libtool's wrappers and `make check`'s tests.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.autotools, lcsb.tools.c, built = true },
  net = false,
}
