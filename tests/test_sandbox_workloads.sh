#!/usr/bin/env bash
# Real toolchains on the first run: each workload runs once under lcsb with a
# policy of at most 8 lines, as a new user writes it from the README, and
# must succeed; its twin, the same work under a policy that names only the
# top-level programs (what lcsb took before closures and presets), is
# refused by the kernel, so the first result is the presets' doing.
#
#   a shell script using 15 coreutils          lcsb.tools.shell
#   make + gcc + ar + ranlib, git commit       lcsb.tools.c, lcsb.tools.git (your identity)
#   a venv, pip from a local index, pytest     lcsb.tools.python, built = true, net.domains
#   npm install and npm test                   lcsb.tools.node, net.domains (the registry)
#   cargo build && cargo run                   lcsb.tools.rust (where cargo is installed)
#
# Usage: test_sandbox_workloads.sh LCSB NET_SERVER_PY. A workload whose tool
# is not installed, or whose registry does not answer this host, says it is
# skipped; LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing mechanism fail.
set -uo pipefail
LCSB=$(realpath "$1")
NET_SERVER=$2
work=$(mktemp -d /tmp/lcsb-workloads.XXXXXX)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failed=0 passed=0 skipped=0

fail() { echo "FAIL $case_name: $*" >&2; failed=$((failed + 1)); }
skip() { echo "# skipped $case_name: $*" >&2; skipped=$((skipped + 1)); }

detected=$("$LCSB" detect --json) || { echo "FAIL: $LCSB detect --json failed" >&2; exit 1; }
if [[ $detected != *'"user_namespaces":true'* ]]; then
  if [[ ${LCSB_SANDBOX_TESTS_REQUIRED:-} == 1 ]]; then
    echo "FAIL: this host gives no world of its own (user namespaces)" >&2
    exit 1
  fi
  echo "# skipped: no user namespaces here" >&2
  exit 0
fi

# The user's real HOME, with a git identity the sandbox must see. (rustup's
# toolchains are found from the HOME the suite was started with.)
started_home=$HOME
export HOME=$work/home
mkdir -p "$HOME"
printf '[user]\n\tname = Ada Workload\n\temail = ada@example.org\n' >"$HOME/.gitconfig"
export PATH=/usr/bin:/bin

# A project with POLICY (its body, the lines inside exec_policy { ... }):
# the whole file must stay within 8 lines.
project() { # NAME BODY
  local dir=$work/$1
  mkdir -p "$dir"
  printf 'local lcsb = require "lcsb"\nreturn function(run)\n  return lcsb.exec_policy {\n%s\n  }\nend\n' \
    "$2" >"$dir/policy.lua"
  local lines
  lines=$(grep -c . "$dir/policy.lua")
  ((lines <= 8)) || fail "the policy has $lines lines"
  echo "$dir"
}

# Run ARGV in DIR under its policy.lua, once; out and err to DIR/run.*.
run_in() { # DIR POLICY ARGV...
  local dir=$1 policy=$2
  shift 2
  (cd "$dir" && "$LCSB" --no-trust-check "$policy" -- "$@" >"$dir/run.out" 2>"$dir/run.err")
}

show() { sed 's/^/    /' "$1/run.out" "$1/run.err" | tail -20 >&2; }

# ---- a shell script using 15 coreutils ----
case_name="shell script"
dir=$(project shell '    exec = { lcsb.tools.shell },')
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
printf 'local lcsb = require "lcsb"\nreturn function(run) return lcsb.exec_policy { exec = {} } end\n' \
  >"$dir/bare.lua"
if run_in "$dir" bare.lua sh ./script.sh; then fail "ran without the preset"
elif ! grep -q "Permission denied" "$dir/run.err"; then fail "no denial without it"; show "$dir"
else passed=$((passed + 1)); fi

# ---- make + gcc + ar + ranlib, then git commit as the user ----
case_name="C and git"
dir=$(project c '    exec = { lcsb.tools.c, lcsb.tools.git, "./app" },')
cat >"$dir/hello.c" <<'EOF'
#include <stdio.h>
int hello(void) { return puts("hello from a library"); }
EOF
printf '#include <stdio.h>\nint hello(void);\nint main(void) { return hello() < 0; }\n' >"$dir/main.c"
printf 'app: main.o libhello.a\n\t$(CC) -o $@ main.o -L. -lhello\nlibhello.a: hello.o\n\tar rc $@ $^\n\tranlib $@\n' \
  >"$dir/Makefile"
git -C "$dir" init -q && git -C "$dir" add -A && git -C "$dir" commit -qm init
if run_in "$dir" policy.lua sh -c 'make -s app && ./app && git add -A && git commit -qm built && git log -1 --format=%an'; then
  grep -q "hello from a library" "$dir/run.out" || { fail "the program did not run"; show "$dir"; }
  grep -qx "Ada Workload" "$dir/run.out" || { fail "git did not commit as the user"; show "$dir"; }
  [[ $(git -C "$dir" log -1 --format=%an) == "Ada Workload" ]] || fail "no commit by the user"
else
  fail "refused"; show "$dir"
fi
# The twin: the programs by name alone, with no closure to bring what they
# run: gcc's cc1 is refused.
rm -f "$dir/app" "$dir"/*.o "$dir/libhello.a"
bare() { # EXEC: a policy naming those programs, with lcsb's closures emptied
  printf 'local lcsb = require "lcsb"\nlcsb.tools.closures = {}\nreturn function(run) return lcsb.exec_policy { exec = { %s } } end\n' \
    "$1"
}
bare '"make", "sh", "cc", "ar", "ranlib"' >"$dir/bare.lua"
if run_in "$dir" bare.lua make -s app; then fail "built without the closure"
elif ! grep -q "cc1" "$dir/run.err"; then fail "no word of cc1"; show "$dir"
else passed=$((passed + 1)); fi

# ---- a venv, pip from a local index, pytest ----
case_name="python venv, pip, pytest"
host=$(hostname)
if ! python3 -c 'import venv, pytest' 2>/dev/null; then
  skip "python3-venv or python3-pytest is missing"
elif [[ $(getent ahostsv4 "$host" | awk 'NR==1{print $1}') != 127.* ]]; then
  skip "the host's name $host does not resolve to its loopback"
else
  mkdir -p "$work/srv"
  coproc SERVER { python3 "$NET_SERVER" "$work/srv" "$host"; }
  server_pid=$SERVER_PID
  read -r _ http _ https _ _ <&"${SERVER[0]}"
  dir=$(project python "    exec = { lcsb.tools.python, built = true },
    net = { domains = { \"$host:$http\" }, lan = { \"127.0.0.1\" } },")
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
  # The twin: without built, the venv's own pip cannot run.
  rm -rf "$dir/.venv"
  sed 's/, built = true//' "$dir/policy.lua" >"$dir/bare.lua"
  if run_in "$dir" bare.lua sh -c "$steps"; then fail "ran the venv's pip without built"
  elif ! grep -q "Permission denied" "$dir/run.err"; then fail "no denial without built"; show "$dir"
  else passed=$((passed + 1)); fi
fi

# ---- npm install and npm test ----
case_name="npm install, npm test"
registry=$(npm config get registry 2>/dev/null)
rhost=$(sed -n 's#^https://\([^/:]*\).*#\1#p' <<<"$registry")
if ! command -v npm >/dev/null; then
  skip "npm is missing"
elif [[ -z $rhost ]]; then
  fail "npm config get registry said $registry"
else
  dir=$(project node "    exec = { lcsb.tools.node },
    net = { domains = { \"$rhost\" } },")
  printf '{ "name": "trial", "version": "1.0.0", "scripts": { "test": "node test.js && echo tested" } }\n' \
    >"$dir/package.json"
  printf 'const isNumber = require("is-number");\nif (!isNumber(5)) process.exit(1);\n' >"$dir/test.js"
  opts=(--no-audit --no-fund --no-update-notifier --fetch-timeout=8000 --fetch-retries=1)
  if run_in "$dir" policy.lua sh -c "npm install ${opts[*]} is-number && npm test"; then
    grep -q "tested" "$dir/run.out" || { fail "npm test did not run"; show "$dir"; }
    # The twin: npm by name, with no closure, cannot run its script's shell.
    bare '"node"' >"$dir/bare.lua"
    if run_in "$dir" bare.lua npm test; then fail "npm test ran its script without sh"
    elif ! grep -q "EACCES" "$dir/run.err"; then fail "no denial without sh"; show "$dir"
    else passed=$((passed + 1)); fi
  elif ! curl -sS -m 8 -o /dev/null "$registry" 2>/dev/null; then
    skip "the registry $registry does not answer this host now"
  else
    fail "refused while the registry answers"; show "$dir"
  fi
fi

# ---- cargo build && cargo run ----
case_name="cargo build, cargo run"
cargo=$(PATH=$PATH:${CARGO_HOME:-$started_home/.cargo}/bin command -v cargo)
if [[ -z $cargo ]]; then
  skip "cargo is not installed"
else
  dir=$(project rust '    exec = { lcsb.tools.rust, built = true },')
  mkdir -p "$dir/src"
  printf '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n' >"$dir/Cargo.toml"
  printf 'fn main() { println!("hello from cargo"); }\n' >"$dir/src/main.rs"
  # rustup finds its toolchains from the HOME the suite started with, which
  # this run's is not.
  export RUSTUP_HOME=${RUSTUP_HOME:-$started_home/.rustup}
  cargo_path=$(dirname "$cargo"):$PATH
  if (cd "$dir" && PATH=$cargo_path "$LCSB" --no-trust-check policy.lua -- sh -c 'cargo build -q && cargo run -q' \
      >"$dir/run.out" 2>"$dir/run.err"); then
    grep -q "hello from cargo" "$dir/run.out" || { fail "cargo run printed nothing"; show "$dir"; }
    passed=$((passed + 1))
  else
    fail "refused"; show "$dir"
  fi
  unset RUSTUP_HOME
fi

echo "workloads: $passed passed, $failed failed, $skipped skipped" >&2
((failed == 0))
