#!/usr/bin/env bash
# Real toolchains on the first run, under the example policies
# (examples/policies/*.lua) as a new user copies them: each is copied into a
# small project of its kind as policy.lua, trusted, and run once, and the
# work must succeed; its twin, the same work under a policy without the
# preset (or with the programs by name alone, as lcsb took them before
# closures and presets), is refused by the kernel, so the first result is
# the example's doing.
#
#   shell.lua    a shell script using 15 coreutils
#   c.lua        make + gcc + ar + ranlib: a static library, linked and run
#   git.lua      git commit as the user (their identity from ~/.gitconfig)
#   python.lua   a venv made and its tests run with pytest
#   node.lua     npm install from the registry, npm test
#   rust.lua     cargo build && cargo run
#   c.lua again  cmake, its build, and ctest
#   go.lua       go build, go test (its test binary runs from TMPDIR), go run
#   java.lua     javac, and junit's runner
#   ruby.lua     rake running minitest
#   autotools.lua  autoreconf -i, configure, make, make check (with libtool)
#   agent.lua    edit, test with pytest, commit: shell + git + python
# and one of a policy's own: a venv's pip installing from a local index
# through net.domains.
#
# Usage: test_sandbox_workloads.sh LCSB NET_SERVER_PY EXAMPLES_DIR. A
# workload whose registry does not answer this host says it is skipped;
# LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing mechanism or tool fail.
set -uo pipefail
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/toy_projects.sh"
LCSB=$(realpath "$1")
NET_SERVER=$2
EXAMPLES=$(realpath "$3")
work=$(mktemp -d /tmp/lcsb-workloads.XXXXXX)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

need_mechanisms "$LCSB" "world of its own to give (user namespaces)" '"user_namespaces":true'

# The user's real HOME, with a git identity the sandbox must see. (rustup's
# toolchains are found from the HOME the suite was started with.)
started_home=$HOME
export HOME=$work/home
mkdir -p "$HOME"
printf '[user]\n\tname = Ada Workload\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
# The approvals of lcsb trust, in a store of the suite's own.
export XDG_STATE_HOME=$work/state
export PATH=/usr/bin:/bin

# A project of its own with the example NAME.lua as its policy.lua, copied
# as it is and trusted as a user trusts it.
example() { # NAME
  local dir=$work/$1
  mkdir -p "$dir"
  cp "$EXAMPLES/$1.lua" "$dir/policy.lua"
  (cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust $1.lua"
  echo "$dir"
}

# A project with a policy of its own (the lines inside exec_policy { ... }),
# trusted.
project() { # NAME BODY
  local dir=$work/$1
  mkdir -p "$dir"
  printf 'local lcsb = require "lcsb"\nreturn function(run)\n  return lcsb.exec_policy {\n%s\n  }\nend\n' \
    "$2" >"$dir/policy.lua"
  (cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust $1's policy"
  echo "$dir"
}

# A policy naming EXEC (Lua list items) with lcsb's closures emptied: the
# programs by name alone, written into DIR/bare.lua.
bare() { # DIR EXEC
  printf 'local lcsb = require "lcsb"\nlcsb.tools.closures = {}\nreturn function(run) return lcsb.exec_policy { exec = { %s } } end\n' \
    "$2" >"$1/bare.lua"
}

# Run ARGV in DIR under POLICY, once; out and err to DIR/run.*. The twins
# (bare.lua) are the test's own, not trusted: --no-trust-check.
run_in() { # DIR POLICY ARGV...
  local dir=$1 policy=$2 check=()
  shift 2
  [[ $policy == policy.lua ]] || check=(--no-trust-check)
  (cd "$dir" && "$LCSB" "${check[@]}" "$policy" -- "$@" >"$dir/run.out" 2>"$dir/run.err")
}

show() { sed 's/^/    /' "$1/run.out" "$1/run.err" | tail -20 >&2; }

# The twin's run: refused, with WORD (a denial's) in its stderr.
expect_refused() { # WORD DIR POLICY ARGV...
  local word=$1 dir=$2
  shift
  if run_in "$@"; then fail "the twin ran: $*"
  elif ! grep -q -- "$word" "$dir/run.err"; then fail "the twin lacks \"$word\""; show "$dir"
  else passed=$((passed + 1)); fi
}

# ---- shell.lua: a shell script using 15 coreutils ----
case_name="shell.lua"
dir=$(example shell)
cat >"$dir/script.sh" <<'EOF'
#!/bin/sh
set -e
t=$(mktemp -d)
printf 'b 2\na 1\nc 3\na 1\n' > "$t/in"
sort "$t/in" | uniq | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//' > "$t/out"; echo >> "$t/out"
head -n 1 "$t/in" | awk '{ print $1 }' >> "$t/out"
wc -l < "$t/in" | xargs echo lines: >> "$t/out"
basename "$t/in" >> "$t/out"; dirname /a/b >> "$t/out"; seq 2 | tail -n 1 >> "$t/out"
grep -c a "$t/in" >> "$t/out"; cp "$t/out" result; rm -rf "$t"; cat result
EOF
chmod +x "$dir/script.sh"
if run_in "$dir" policy.lua sh ./script.sh; then
  want=$'1 2 3\nb\nlines: 4\nin\n/a\n2\n2'
  [[ $(cat "$dir/run.out") == "$want" ]] || { fail "wrong output"; show "$dir"; }
else
  fail "refused"; show "$dir"
fi
# The twin: the shell alone, without the preset, cannot run sort.
rm -f "$dir/result"
bare "$dir" ''
expect_refused "Permission denied" "$dir" bare.lua sh ./script.sh

# ---- c.lua: make + gcc + ar + ranlib, a static library linked, run ----
case_name="c.lua"
dir=$(example c)
cat >"$dir/hello.c" <<'EOF'
#include <stdio.h>
int hello(void) { return puts("hello from a library"); }
EOF
printf '#include <stdio.h>\nint hello(void);\nint main(void) { return hello() < 0; }\n' >"$dir/main.c"
printf 'app: main.o libhello.a\n\t$(CC) -o $@ main.o -L. -lhello\nlibhello.a: hello.o\n\tar rc $@ $^\n\tranlib $@\ncheck: app\n\t./app\n' \
  >"$dir/Makefile"
if run_in "$dir" policy.lua make -s check; then
  grep -q "hello from a library" "$dir/run.out" || { fail "the program did not run"; show "$dir"; }
else
  fail "refused"; show "$dir"
fi
# The twin: the programs by name alone, with no closure to bring what they
# run: gcc's cc1 is refused.
rm -f "$dir/app" "$dir"/*.o "$dir/libhello.a"
bare "$dir" '"make", "sh", "cc", "ar", "ranlib"'
expect_refused "cc1" "$dir" bare.lua make -s app

# ---- git.lua: git commit as the user ----
case_name="git.lua"
dir=$(example git)
echo one >"$dir/notes.txt"
git -C "$dir" init -q && git -C "$dir" add -A && git -C "$dir" commit -qm init
if run_in "$dir" policy.lua sh -c 'echo two >> notes.txt && git add -A && git commit -qm edited && git log -1 --format=%an'; then
  grep -qx "Ada Workload" "$dir/run.out" || { fail "git did not commit as the user"; show "$dir"; }
  [[ $(git -C "$dir" log -1 --format=%an) == "Ada Workload" ]] || fail "no commit by the user"
else
  fail "refused"; show "$dir"
fi
# The twin: git by name, without the preset, has no identity to commit with.
bare "$dir" 'lcsb.tools.shell, "git"'
expect_refused "Please tell me who you are" "$dir" bare.lua sh -c 'echo three >> notes.txt && git commit -qam again'

# ---- python.lua: a venv, its tests run by pytest ----
case_name="python.lua"
if why=$(toy_missing python); then
  missing "$why"
else
  dir=$(example python)
  toy_python "$dir"
  steps="python3 -m venv --system-site-packages .venv && .venv/bin/pip list >/dev/null"
  steps+=" && PYTHONPATH=. .venv/bin/python -m pytest -q -p no:cacheprovider tests"
  if run_in "$dir" policy.lua sh -c "$steps"; then
    grep -q "1 passed" "$dir/run.out" || { fail "pytest did not pass"; show "$dir"; }
  else
    fail "refused"; show "$dir"
  fi
  # The twin: without built, the venv's own pip cannot run.
  rm -rf "$dir/.venv"
  sed 's/, built = true//' "$dir/policy.lua" >"$dir/bare.lua"
  expect_refused "Permission denied" "$dir" bare.lua sh -c "$steps"
fi

# ---- a venv's pip from a local index, through net.domains ----
case_name="python venv, pip from an index"
host=$(hostname)
addr=$(getent ahostsv4 "$host" | awk 'NR==1{print $1}')
if ! python3 -c 'import venv, pytest, pip' 2>/dev/null; then
  missing "python3-venv, python3-pip or python3-pytest is missing"
elif [[ $addr != 127.* ]]; then
  skip "the host's name $host does not resolve to its loopback"
else
  mkdir -p "$work/srv"
  coproc SERVER { python3 "$NET_SERVER" "$work/srv" "$host" "$addr"; }
  server_pid=$SERVER_PID
  read -r _ http _ https _ _ <&"${SERVER[0]}"
  dir=$(project pip "    exec = { lcsb.tools.python, built = true },
    net = { domains = { \"$host:$http\" }, lan = { \"$addr\" } },")
  mkdir -p "$dir/tests"
  printf 'import lcsbdemo\n\ndef test_demo():\n    assert lcsbdemo\n' >"$dir/tests/test_demo.py"
  steps="python3 -m venv --system-site-packages .venv && .venv/bin/pip install -q --no-cache-dir"
  steps+=" --disable-pip-version-check --index-url http://$host:$http/simple/"
  steps+=" --trusted-host $host lcsbdemo"
  steps+=" && .venv/bin/python -m pytest -q -p no:cacheprovider tests"
  if run_in "$dir" policy.lua sh -c "$steps"; then
    grep -q "1 passed" "$dir/run.out" || { fail "pytest did not pass"; show "$dir"; }
    # check names the preset, whose cache (pip's) once hid every tools line.
    (cd "$dir" && "$LCSB" check --no-trust-check policy.lua -- python3) >"$dir/check.out" 2>&1
    grep -q "^  preset python: " "$dir/check.out" || { fail "check does not name the preset"; cat "$dir/check.out" >&2; }
    grep -q "^  cache .*\.cache/pip" "$dir/check.out" || fail "check does not name pip's cache"
  else
    fail "refused"; show "$dir"
  fi
  # The twin: without the index among its domains, pip cannot reach it.
  rm -rf "$dir/.venv"
  sed 's/net = .*/net = false,/' "$dir/policy.lua" >"$dir/bare.lua"
  expect_refused "lcsbdemo" "$dir" bare.lua sh -c "$steps"
fi

# ---- node.lua: npm install and npm test ----
case_name="node.lua"
registry=https://registry.npmjs.org/
if ! command -v npm >/dev/null; then
  missing "npm is missing"
else
  dir=$(example node)
  # npm test runs a tool from node_modules/.bin, as most projects' do: a
  # package of the project's own with a bin, which npm links there.
  mkdir -p "$dir/tool"
  printf '{ "name": "trial-tool", "version": "1.0.0", "bin": { "trial-tool": "cli.js" } }\n' \
    >"$dir/tool/package.json"
  # (npm links the package or copies it, by version: what it requires is
  # found from either place.)
  printf '#!/usr/bin/env node\nif (!require("is-number")(5)) process.exit(1);\n' >"$dir/tool/cli.js"
  printf '{ "name": "trial", "version": "1.0.0", "scripts": { "test": "trial-tool && echo tested" } }\n' \
    >"$dir/package.json"
  opts=(--no-audit --no-fund --no-update-notifier --fetch-timeout=8000 --fetch-retries=1
        "--registry=$registry")
  if run_in "$dir" policy.lua sh -c "npm install ${opts[*]} is-number ./tool && npm test"; then
    grep -q "tested" "$dir/run.out" || { fail "npm test did not run"; show "$dir"; }
    # The twins: npm by name, with no closure, cannot run its script's
    # shell; the preset without built = true, the tool npm linked.
    bare "$dir" '"node"'
    expect_refused "EACCES" "$dir" bare.lua npm test
    sed 's/, built = true//' "$dir/policy.lua" >"$dir/unbuilt.lua"
    expect_refused "exec of $dir/node_modules/.bin/trial-tool" "$dir" unbuilt.lua npm test
  elif ! curl -sS -m 8 -o /dev/null "$registry" 2>/dev/null; then
    skip "the registry $registry does not answer this host now"
  else
    fail "refused while the registry answers"; show "$dir"
  fi
fi

# ---- rust.lua: cargo build && cargo run ----
case_name="rust.lua"
cargo=$(PATH=$PATH:${CARGO_HOME:-$started_home/.cargo}/bin command -v cargo)
if [[ -z $cargo ]]; then
  missing "cargo is not installed"
else
  # rustup finds its toolchains from the HOME the suite started with, which
  # this run's is not; the policy is trusted as it is run, with them.
  export RUSTUP_HOME=${RUSTUP_HOME:-$started_home/.rustup}
  saved_path=$PATH
  PATH=$(dirname "$cargo"):$PATH
  dir=$(example rust)
  mkdir -p "$dir/src"
  printf '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n' >"$dir/Cargo.toml"
  printf 'fn main() { println!("hello from cargo"); }\n' >"$dir/src/main.rs"
  if run_in "$dir" policy.lua sh -c 'cargo build -q --offline && cargo run -q --offline'; then
    grep -q "hello from cargo" "$dir/run.out" || { fail "cargo run printed nothing"; show "$dir"; }
  else
    fail "refused"; show "$dir"
  fi
  # The twin: without built, what cargo built cannot run.
  sed 's/, built = true//' "$dir/policy.lua" >"$dir/bare.lua"
  expect_refused "Permission denied" "$dir" bare.lua sh -c 'cargo run -q --offline'
  PATH=$saved_path
  unset RUSTUP_HOME
fi

# ---- c.lua with CMake: configure, build, and ctest ----
case_name="c.lua, cmake and ctest"
dir=$work/c-cmake
mkdir -p "$dir" && cp "$EXAMPLES/c.lua" "$dir/policy.lua"
(cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust c.lua"
toy_cmake "$dir"
steps='cmake -S . -B b >/dev/null && cmake --build b >/dev/null && cd b && ctest'
if run_in "$dir" policy.lua sh -c "$steps"; then
  grep -q "100% tests passed" "$dir/run.out" || { fail "ctest did not pass"; show "$dir"; }
else
  fail "refused"; show "$dir"
fi
# The twin: cmake, make and the compiler without the preset: the build
# runs, ctest is refused.
rm -rf "$dir/b"
printf 'local lcsb = require "lcsb"\nreturn function(run) return lcsb.exec_policy { exec = { lcsb.tools.shell, "cmake", "make", "cc", "gcc", built = true } } end\n' \
  >"$dir/bare.lua"
expect_refused "ctest: Permission denied" "$dir" bare.lua sh -c "$steps"

# ---- go.lua: go build, go test (whose test binary runs from TMPDIR), go run ----
case_name="go.lua"
if why=$(toy_missing go); then
  missing "$why"
else
  dir=$(example go)
  mkdir -p "$dir/cmd/hi"
  printf 'module example.org/hello\n\ngo 1.19\n' >"$dir/go.mod"
  printf 'package hello\n\nimport "strings"\n\nfunc Shout(s string) string { return strings.ToUpper(s) + "!" }\n' \
    >"$dir/hello.go"
  printf 'package hello\n\nimport "testing"\n\nfunc TestShout(t *testing.T) {\n\tif Shout("hi") != "HI!" {\n\t\tt.Fatal("wrong")\n\t}\n}\n' \
    >"$dir/hello_test.go"
  printf 'package main\n\nimport (\n\t"fmt"\n\n\t"example.org/hello"\n)\n\nfunc main() { fmt.Println(hello.Shout("hi")) }\n' \
    >"$dir/cmd/hi/main.go"
  if run_in "$dir" policy.lua sh -c 'go build ./... && go test ./... && go run ./cmd/hi'; then
    grep -q "^ok.*example.org/hello" "$dir/run.out" || { fail "go test did not pass"; show "$dir"; }
    grep -qx "HI!" "$dir/run.out" || { fail "go run printed nothing"; show "$dir"; }
  else
    fail "refused"; show "$dir"
  fi
  # The twin: without built, the test binary go test builds in the run's
  # TMPDIR cannot run (go says so on stdout).
  sed 's/, built = true//' "$dir/policy.lua" >"$dir/bare.lua"
  if run_in "$dir" bare.lua sh -c 'go test -count=1 ./...'; then fail "the twin ran"
  elif ! grep -q "hello.test: permission denied" "$dir/run.out"; then fail "the twin lacks the refused test binary"; show "$dir"
  else passed=$((passed + 1)); fi
  # go by name alone: its compiler is refused, and though go is static (no
  # recorder in it), the hint names the program from go's own words.
  bare "$dir" '"go", lcsb.tools.shell'
  expect_refused "hint: refused: exec of /.*/pkg/tool/.*/compile" "$dir" bare.lua \
    go build -a -buildvcs=false ./...
fi

# ---- java.lua: javac, and junit's runner ----
case_name="java.lua"
if why=$(toy_missing java); then
  missing "$why"
else
  dir=$(example java)
  toy_java "$dir"
  steps=$TOY_JAVA_STEPS
  if run_in "$dir" policy.lua sh -c "$steps"; then
    grep -q "^OK (1 test)" "$dir/run.out" || { fail "junit did not pass"; show "$dir"; }
  else
    fail "refused"; show "$dir"
  fi
  # The twin: the shell alone, without the preset, cannot run javac.
  rm -rf "$dir/out"
  bare "$dir" 'lcsb.tools.shell'
  expect_refused "javac: Permission denied" "$dir" bare.lua sh -c "$steps"
fi

# ---- ruby.lua: rake running minitest ----
case_name="ruby.lua"
if why=$(toy_missing ruby); then
  missing "$why"
else
  dir=$(example ruby)
  toy_ruby "$dir"
  if run_in "$dir" policy.lua rake test; then
    grep -q "1 runs, 1 assertions, 0 failures" "$dir/run.out" || { fail "minitest did not pass"; show "$dir"; }
  else
    fail "refused"; show "$dir"
  fi
  # The twin: ruby by name alone runs rake (its #! line's), but not the
  # shell rake runs its test task with.
  bare "$dir" '"ruby"'
  expect_refused "refused: exec of /usr/bin/sh" "$dir" bare.lua rake test
fi

# ---- autotools.lua: autoreconf -i, configure, make, make check (libtool) ----
case_name="autotools.lua"
if why=$(toy_missing autotools); then
  missing "$why"
else
  dir=$(example autotools)
  toy_autotools "$dir"
  if run_in "$dir" policy.lua sh -c 'autoreconf -i && ./configure -q && make -s && make -s check'; then
    grep -q "^PASS: test_hello" "$dir/run.out" || { fail "make check did not pass"; show "$dir"; }
  else
    fail "refused"; show "$dir"
  fi
  # The twin: autoreconf by name with the c preset, without the autotools
  # preset or closures: it cannot run aclocal.
  rm -rf "$dir/configure" "$dir/aclocal.m4" "$dir/autom4te.cache" "$dir/Makefile.in"
  bare "$dir" 'lcsb.tools.c, "autoreconf"'
  expect_refused 'exec "aclocal": Permission denied' "$dir" bare.lua autoreconf -i
fi

# ---- agent.lua: edit, test, commit ----
case_name="agent.lua"
if ! python3 -c 'import pytest' 2>/dev/null; then
  missing "python3-pytest is missing"
else
  dir=$(example agent)
  toy_python "$dir" -
  printf '__pycache__/\n.pytest_cache/\nrun.*\n' >"$dir/.gitignore"
  git -C "$dir" init -q && git -C "$dir" add -A && git -C "$dir" commit -qm init
  steps="sed -i 's/a - b/a + b/' calc.py && PYTHONPATH=. python3 -m pytest -q -p no:cacheprovider tests"
  steps+=" && git commit -qam 'fix add' && git log -1 --format='%an: %s'"
  if run_in "$dir" policy.lua sh -c "$steps"; then
    grep -q "1 passed" "$dir/run.out" || { fail "pytest did not pass"; show "$dir"; }
    grep -qx "Ada Workload: fix add" "$dir/run.out" || { fail "no commit as the user"; show "$dir"; }
  else
    fail "refused"; show "$dir"
  fi
  # The twin: without the python preset, the tests cannot run.
  git -C "$dir" reset -q --hard HEAD~1
  bare "$dir" 'lcsb.tools.shell, "git"'
  expect_refused "Permission denied" "$dir" bare.lua sh -c "$steps"
fi

echo "workloads: $passed passed, $failed failed, $skipped skipped" >&2
((failed == 0))
