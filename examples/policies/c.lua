-- A C project: `lcsb c.lua -- make` (or `sh -c 'make && make check'`).
-- The c preset: make, gcc and clang with what they run themselves (cc1, as,
-- ld), ar, ranlib, pkg-config, cmake with ctest and cpack, ninja, and the
-- shell preset for the recipes. built = true lets what the build writes in
-- the project run (its tests); name them one by one instead ("./test_foo")
-- to allow less.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.c, built = true },
  net = false,
}
