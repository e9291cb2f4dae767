#!/bin/sh
# CMake hands a compiler or linker launcher the whole command line, compiler
# first; lcsb-exec is built by musl-gcc instead (CMakeLists.txt says why).
shift
exec musl-gcc "$@"
