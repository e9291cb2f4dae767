# The small projects of each kind the CLI suites build and test real
# toolchains on (test_sandbox_workloads.sh, test_learn.sh), one function
# each, writing into DIR, and whether each toolchain is here. Sourced, not run.

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

# A module and its pytest test; OP is the sum's operator ("+", or "-" for a
# bug to fix).
toy_python() { # DIR [OP]
  mkdir -p "$1/tests"
  printf 'def add(a, b):\n    return a %s b\n' "${2:-+}" >"$1/calc.py"
  printf 'from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n' >"$1/tests/test_calc.py"
}

# junit's classpath, and the steps that build toy_java's project and run it.
JUNIT_CP=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
TOY_JAVA_STEPS="javac -d out -cp $JUNIT_CP src/*.java test/*.java && java -cp out:$JUNIT_CP org.junit.runner.JUnitCore CalcTest"

# Why the toolchain KIND (go, autotools, cmake, java, ruby, python) cannot
# run here, naming its Debian packages, with status 0; nothing and status 1
# when it can.
toy_missing() { # KIND
  case $1 in
    go) command -v go >/dev/null || { echo "go is not installed (golang-go)"; return 0; } ;;
    autotools)
      command -v autoreconf >/dev/null && command -v libtoolize >/dev/null ||
        { echo "autoreconf or libtoolize is not installed (autoconf, automake, libtool)"; return 0; } ;;
    cmake) command -v cmake >/dev/null || { echo "cmake is not installed"; return 0; } ;;
    java)
      command -v javac >/dev/null && [[ -f /usr/share/java/junit4.jar ]] ||
        { echo "javac or junit4 is not installed (default-jdk-headless, junit4)"; return 0; } ;;
    ruby)
      command -v rake >/dev/null && ruby -e 'require "minitest"' 2>/dev/null ||
        { echo "rake or minitest is not installed (ruby, rake, ruby-minitest)"; return 0; } ;;
    python)
      python3 -c 'import venv, pytest' 2>/dev/null ||
        { echo "python3-venv or python3-pytest is missing"; return 0; } ;;
    *) echo "toy_missing: no toolchain $1"; return 0 ;;
  esac
  return 1
}
