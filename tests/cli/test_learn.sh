#!/usr/bin/env bash
# lcsb learn on real toolchains, as a new user starts: a small project of
# each kind with exec_policy { project = run.cwd } alone, trusted. Its twin
# first: the work under that policy is refused. Then lcsb learn --write,
# lcsb trust, and one run: the work must pass.
#
#   go         go build ./..., go test ./... (static toolchain, test binary in TMPDIR)
#   autotools  autoreconf -i, configure, make, make check (with libtool)
#   cmake      cmake, its build, and ctest
#   java       javac, and junit's runner
#   ruby       rake running minitest
#   python     a venv and its tests run with pytest
#
# And what learning must not propose: a command that reads ~/.ssh/id_rsa,
# writes ~/.bashrc and connects to an unlisted host is told of each, and
# none is in the change; a script with no exec_policy call gets the change
# to make by hand and no diff.
#
# Usage: test_learn.sh LCSB. LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing
# mechanism or tool fail.
set -uo pipefail
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/toy_projects.sh"
LCSB=$(realpath "$1")
work=$(mktemp -d /tmp/lcsb-learn.XXXXXX)
trap 'rm -rf "$work"' EXIT

need_mechanisms "$LCSB" "way to show lcsb every exec (user namespaces, seccomp user notification)" \
  '"user_namespaces":true' '"seccomp_notify":true'

export HOME=$work/home
mkdir -p "$HOME"
export XDG_STATE_HOME=$work/state
export PATH=/usr/bin:/bin

show() { sed 's/^/    /' "$1/run.out" "$1/run.err" | tail -20 >&2; }

# A project NAME with the minimal policy, trusted.
project() { # NAME
  local dir=$work/$1
  mkdir -p "$dir"
  printf 'local lcsb = require "lcsb"\nreturn function(run) return lcsb.exec_policy { project = run.cwd } end\n' \
    >"$dir/policy.lua"
  (cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust"
  echo "$dir"
}

run_in() { # DIR LCSB-ARGS...
  local dir=$1
  shift
  (cd "$dir" && "$LCSB" "$@" >"$dir/run.out" 2>"$dir/run.err")
}

# STEPS refused under the minimal policy (the twin), learned, trusted, and
# then passing in one run, with PASSED in its output. CLEAN undoes what the
# learning run built, so that the run after it builds again.
learn_case() { # DIR STEPS PASSED CLEAN
  local dir=$1 steps=$2 want=$3 clean=$4
  if run_in "$dir" policy.lua -- sh -c "$steps"; then
    fail "the twin ran: the minimal policy let it pass"; show "$dir"; return
  fi
  (cd "$dir" && eval "$clean")
  if ! run_in "$dir" learn --write policy.lua -- sh -c "$steps"; then
    fail "the learning run failed"; show "$dir"; return
  fi
  grep -q '^+++ policy.lua (learned)' "$dir/run.out" || { fail "no diff on stdout"; show "$dir"; }
  # stdout is the change alone, to save or pipe: the command's own output
  # went to stderr.
  if grep -vq -e '^--- ' -e '^+++ ' -e '^@@ ' -e '^[ +-]' -e '^$' "$dir/run.out"; then
    fail "more than the diff on stdout: $(grep -v -e '^--- ' -e '^+++ ' -e '^@@ ' -e '^[ +-]' "$dir/run.out" | head -3)"
  fi
  grep -q -- "$want" "$dir/run.err" || { fail "the command's output is not on stderr ($want)"; show "$dir"; }
  grep -q "learn: wrote policy.lua; read it, then run: lcsb trust policy.lua -- sh$" "$dir/run.err" ||
    { fail "not written, or the trust line names no command"; show "$dir"; }
  (cd "$dir" && eval "$clean")
  # Written, not trusted: lcsb refuses the file until the user trusts it.
  if run_in "$dir" policy.lua -- true; then fail "the learned file ran untrusted"; fi
  (cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust of the learned file"
  if run_in "$dir" policy.lua -- sh -c "$steps"; then
    grep -q -- "$want" "$dir/run.out" || { fail "the work did not pass ($want)"; show "$dir"; return; }
    passed=$((passed + 1))
  else
    fail "refused after learning: $(grep -o 'exec = {[^}]*}' "$dir/policy.lua")"; show "$dir"
  fi
}

# ---- go ----
case_name="go"
if why=$(toy_missing go); then
  missing "$why"
else
  dir=$(project go)
  toy_go "$dir"
  learn_case "$dir" 'go build ./... && go test -count=1 ./...' '^ok' 'rm -f hello'
  grep -q 'lcsb.tools.go' "$dir/policy.lua" || fail "no go preset learned"
fi

# ---- autotools ----
case_name="autotools"
if why=$(toy_missing autotools); then
  missing "$why"
else
  dir=$(project autotools)
  toy_autotools "$dir"
  learn_case "$dir" 'autoreconf -i >/dev/null 2>&1 && ./configure -q && make -s && make -s check' \
    '^PASS: test_hello' 'ls -A | grep -vx -e policy.lua -e configure.ac -e Makefile.am -e hello.c -e test_hello.c -e run.out -e run.err | xargs rm -rf'
fi

# ---- cmake and ctest ----
case_name="cmake"
if why=$(toy_missing cmake); then
  missing "$why"
else
  dir=$(project cmake)
  toy_cmake "$dir"
  learn_case "$dir" 'cmake -S . -B b >/dev/null && cmake --build b >/dev/null && cd b && ctest' \
    '100% tests passed' 'rm -rf b'
fi

# ---- java and junit ----
case_name="java"
if why=$(toy_missing java); then
  missing "$why"
else
  dir=$(project java)
  toy_java "$dir"
  learn_case "$dir" "$TOY_JAVA_STEPS" '^OK (1 test)' 'rm -rf out'
fi

# ---- ruby, rake and minitest ----
case_name="ruby"
if why=$(toy_missing ruby); then
  missing "$why"
else
  dir=$(project ruby)
  toy_ruby "$dir"
  learn_case "$dir" 'rake test' '1 runs, 1 assertions, 0 failures' 'true'
fi

# ---- python, a venv and pytest ----
case_name="python"
if why=$(toy_missing python); then
  missing "$why"
else
  dir=$(project python)
  toy_python "$dir"
  learn_case "$dir" 'python3 -m venv --system-site-packages .venv && PYTHONPATH=. .venv/bin/python -m pytest -q -p no:cacheprovider tests' \
    '1 passed' 'rm -rf .venv'
fi

# ---- what learning must not propose ----
case_name="lures"
dir=$(project lures)
mkdir -p "$HOME/.ssh"
echo "not a key" >"$HOME/.ssh/id_rsa"
echo "# rc" >"$HOME/.bashrc"
lure="cat $HOME/.ssh/id_rsa; echo planted >> $HOME/.bashrc; (exec 3<>/dev/tcp/192.0.2.1/80); true"
if run_in "$dir" learn policy.lua -- bash -c "$lure"; then
  for want in "left out: read of $HOME/.ssh/id_rsa" "left out: write of $HOME/.bashrc" \
    "connect to 192.0.2.1:80"; do
    grep -qF -- "$want" "$dir/run.err" || { fail "not told: $want"; show "$dir"; }
  done
  if grep -E '^\+' "$dir/run.out" | grep -qE '\.ssh|\.bashrc|"any"|192\.0\.2\.1'; then
    fail "the change holds a lure"; show "$dir"
  fi
  grep -q "planted" "$HOME/.bashrc" && fail "the real ~/.bashrc was written while learning"
  passed=$((passed + 1))
else
  fail "the learning run failed"; show "$dir"
fi
# The twin: under --backend none nothing is refused, so nothing is left
# out: what learn named above is the policy's doing.
if run_in "$dir" learn --backend none policy.lua -- bash -c "cat $HOME/.ssh/id_rsa >/dev/null"; then
  grep -q "left out" "$dir/run.err" && { fail "left out under none"; show "$dir"; }
  passed=$((passed + 1))
else
  fail "the unsandboxed learning run failed"; show "$dir"
fi

# What the command chose is not proposed: a file outside its world reached
# through a symlink it made in the project (a data file, and a program no
# PATH finds), and an interpreter a #! line of its own names in a
# dot-directory of HOME or among lcsb's own files.
case_name="the command's choices"
dir=$(project choices)
outside=$work/outside
mkdir -p "$outside" "$HOME/.config"
echo "TOPSECRET" >"$outside/data"
printf '#!/bin/sh\necho tool\n' >"$outside/tool"
printf '#!/bin/sh\necho token\n' >"$HOME/.config/deploy-token"
chmod +x "$outside/tool" "$HOME/.config/deploy-token"
printf '#!%s\n' "$HOME/.config/deploy-token" >"$dir/a"
printf '#!%s\n' "$LCSB" >"$dir/b"
chmod +x "$dir/a" "$dir/b"
choose="ln -sfn $outside d; ./d/data; ./d/tool; ./a; ./b; true"
if run_in "$dir" learn --write policy.lua -- sh -c "$choose"; then
  for path in "$outside/data" "$outside/tool" "$HOME/.config/deploy-token" "$LCSB"; do
    grep -qF -- "$path" "$dir/policy.lua" && { fail "proposed: $path"; show "$dir"; }
    grep -qF -- "left out: exec of $path" "$dir/run.err" || { fail "not named: $path"; show "$dir"; }
  done
  passed=$((passed + 1))
else
  fail "the learning run failed"; show "$dir"
fi

# A name PATH finds through a link to where the command writes is the
# command's to fill: never proposed, by path or by a preset.
case_name="a PATH link into a write path"
dir=$work/pathlink
mkdir -p "$dir" "$work/wdir" "$work/sysbin"
ln -sfn "$work/wdir/zzbar" "$work/sysbin/zzbar"
ln -sfn "$work/wdir/sed" "$work/sysbin/sed"
printf 'local lcsb = require "lcsb"\nreturn function(run) return lcsb.exec_policy { project = run.cwd, write = { "%s" }, read = { "%s" } } end\n' \
  "$work/wdir" "$work/sysbin" >"$dir/policy.lua"
(cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust"
mkdir -p "$dir/bin"
plant="cp /usr/bin/id $work/wdir/zzbar; cp /usr/bin/id $work/wdir/sed; zzbar >/dev/null; sed >/dev/null; true"
if (cd "$dir" && PATH=$dir/bin:$work/sysbin:$PATH "$LCSB" learn --write policy.lua -- /bin/sh -c "$plant" \
  >"$dir/run.out" 2>"$dir/run.err"); then
  grep -o 'exec = {[^}]*}' "$dir/policy.lua" | grep -qE "zzbar|wdir|sysbin" \
    && { fail "proposed a planted program"; show "$dir"; }
  (cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1)
  (cd "$dir" && PATH=$dir/bin:$work/sysbin:$PATH "$LCSB" check policy.lua -- true 2>&1) | grep -q "enforced  $work/wdir/sed" \
    && { fail "a preset brought the planted sed"; show "$dir"; }
  passed=$((passed + 1))
else
  fail "the learning run failed"; show "$dir"
fi

# A link in the project to a system program runs that program: learned as
# it (the shell's id), not as built = true, which would not let it run.
case_name="a link to a program elsewhere"
dir=$(project sysl)
mkdir -p "$dir/v"
if run_in "$dir" learn --write policy.lua -- sh -c 'ln -sf /usr/bin/id v/id; ./v/id >/dev/null'; then
  grep -q "lcsb.tools.shell" "$dir/policy.lua" || { fail "id not learned as the shell's"; show "$dir"; }
  (cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1)
  run_in "$dir" policy.lua -- sh -c './v/id >/dev/null' || { fail "refused after learning"; show "$dir"; }
  passed=$((passed + 1))
else
  fail "the learning run failed"; show "$dir"
fi

# --write keeps the file's owner: root learning in another user's project.
case_name="the owner kept"
if [[ $(id -u) == 0 ]] && id nobody >/dev/null 2>&1; then
  dir=$(project owner)
  chown nobody: "$dir/policy.lua"
  if run_in "$dir" learn --write policy.lua -- sh -c 'sed -n 1p policy.lua'; then
    [[ $(stat -c %U "$dir/policy.lua") == nobody ]] || fail "now owned by $(stat -c %U "$dir/policy.lua")"
    grep -q "lcsb.tools.shell" "$dir/policy.lua" || { fail "not written"; show "$dir"; }
    passed=$((passed + 1))
  else
    fail "the learning run failed"; show "$dir"
  fi
fi

case_name="no exec_policy call"
dir=$work/bare
mkdir -p "$dir"
printf 'local lcsb = require "lcsb"\nlocal build = lcsb.exec_policy\nreturn function(run) return build { project = run.cwd } end\n' \
  >"$dir/policy.lua"
(cd "$dir" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust"
if run_in "$dir" learn --write policy.lua -- sh -c 'sed -n 1p policy.lua'; then
  grep -q "cannot place the change in policy.lua" "$dir/run.err" || { fail "no word on where"; show "$dir"; }
  [[ -s $dir/run.out && $(grep -c '^+++' "$dir/run.out") -gt 0 ]] && fail "a diff it could not place"
  grep -q "build { project" "$dir/policy.lua" || fail "the file was changed"
  passed=$((passed + 1))
else
  fail "the learning run failed"; show "$dir"
fi

echo "# learn: $passed passed, $failed failed, $skipped skipped" >&2
[[ $failed == 0 ]]
