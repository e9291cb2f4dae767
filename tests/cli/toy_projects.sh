# The small projects of each kind the CLI suites build and test real
# toolchains on (test_sandbox_workloads.sh, test_learn.sh), one function
# each, writing into DIR. Sourced, not run.

toy_go() { # DIR
  printf 'module example.com/hello\n\ngo 1.19\n' >"$1/go.mod"
  printf 'package main\n\nimport "fmt"\n\nfunc Hello() string { return "hi" }\n\nfunc main() { fmt.Println(Hello()) }\n' \
    >"$1/main.go"
  printf 'package main\n\nimport "testing"\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != "hi" {\n\t\tt.Fatal("no")\n\t}\n}\n' \
    >"$1/main_test.go"
}

# A libtool library and its test, with a config header.
toy_autotools() { # DIR
  printf 'AC_INIT([hello], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nLT_INIT\nAC_CONFIG_HEADERS([config.h])\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n' \
    >"$1/configure.ac"
  printf 'lib_LTLIBRARIES = libhello.la\nlibhello_la_SOURCES = hello.c\ncheck_PROGRAMS = test_hello\ntest_hello_SOURCES = test_hello.c\ntest_hello_LDADD = libhello.la\nTESTS = test_hello\n' \
    >"$1/Makefile.am"
  printf '#include "config.h"\nint hello(void) { return 42; }\n' >"$1/hello.c"
  printf 'int hello(void);\nint main(void) { return hello() == 42 ? 0 : 1; }\n' >"$1/test_hello.c"
}

toy_cmake() { # DIR
  printf 'cmake_minimum_required(VERSION 3.13)\nproject(hello C)\nenable_testing()\nadd_executable(t t.c)\nadd_test(NAME t COMMAND t)\n' \
    >"$1/CMakeLists.txt"
  printf 'int main(void) { return 0; }\n' >"$1/t.c"
}

toy_java() { # DIR
  mkdir -p "$1/src" "$1/test"
  printf 'public class Calc {\n  public static int add(int a, int b) { return a + b; }\n}\n' >"$1/src/Calc.java"
  printf 'import org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class CalcTest {\n  @Test public void adds() { assertEquals(5, Calc.add(2, 3)); }\n}\n' \
    >"$1/test/CalcTest.java"
}

toy_ruby() { # DIR
  mkdir -p "$1/lib" "$1/test"
  printf 'module Calc\n  def self.add(a, b) = a + b\nend\n' >"$1/lib/calc.rb"
  printf 'require "minitest/autorun"\nrequire "calc"\n\nclass CalcTest < Minitest::Test\n  def test_add\n    assert_equal 5, Calc.add(2, 3)\n  end\nend\n' \
    >"$1/test/test_calc.rb"
  printf 'require "rake/testtask"\nRake::TestTask.new(:test) { |t| t.libs << "lib"; t.test_files = FileList["test/test_*.rb"] }\ntask default: :test\n' \
    >"$1/Rakefile"
}
