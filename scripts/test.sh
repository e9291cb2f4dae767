#!/usr/bin/env bash
# Install what is missing, build lcsb (warnings are errors), and run every test:
# the ctest suites as root, the benchmark once in quick mode, the suites as an
# unprivileged user, then again under AddressSanitizer and
# UndefinedBehaviorSanitizer, valgrind, each libFuzzer target briefly, an install
# into a fresh prefix (scripts/install-test.sh), and the
# demo; last, that the run left the working tree as it found it.
# LCSB_SANDBOX_TESTS_REQUIRED=1 turns a missing mechanism into a failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
started=$SECONDS
# Each part's heading, with the time so far.
section() { echo "== $* [$((SECONDS - started)) s]"; }
# What git saw before the run: the run must leave it so (tests write under
# build folders and temporary directories only).
tree_before=
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  tree_before=$(git -C "$root" status --porcelain)
fi
source "$root/scripts/deps.sh"
lcsb_install_deps "${LCSB_PACKAGES[@]}" "${LCSB_TEST_PACKAGES[@]}"
jobs=$(nproc)

build() { # DIR [CMAKE ARGS...]
  local dir=$1; shift
  # Explicitly on: scripts/demo.sh may have configured the same tree without.
  cmake -S "$root" -B "$dir" -DLCSB_WERROR=ON -DLCSB_TESTS=ON -DLCSB_BENCH=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
}

section "build and test (release)"
build "$root/build"
(cd "$root/build" && ctest --output-on-failure --no-tests=error -j "$jobs")

section "benchmarks, quick mode (they must run; they assert nothing about time)"
CONTAINERS_CONF=${CONTAINERS_CONF:-$root/scripts/containers.conf} "$root/build/bench/bench" --quick
# The recorder's cost on a build: 20 files, two rounds, nothing asserted.
"$root/build/bench/bench-project" --quick

if [[ $(id -u) -eq 0 ]]; then
  section "enforcement and shim suites as an unprivileged user"
  "$root/tests/support/test_user.sh" >/dev/null
  # A copy the user can read, away from root's home.
  unpriv=$(mktemp -d /tmp/lcsb-unpriv.XXXXXX)
  build "$unpriv"
  cp -r "$root/tests/lua" "$unpriv/lua-tests"
  chmod -R go+rX "$unpriv"
  # The test_sandbox_policy parts too: removing a mode-000 directory needs the
  # chmod that root never does.
  for t in test_sandbox_enforce_{fs,net,domains,intercept,java,cli,scope,faults,world,oci,isolation,limits,memory,stop,trust,trust_accept,caps,later,home,runner} test_sandbox_caps \
           test_sandbox_shim_{refusals,runs,sockets,terminal} test_sandbox_policy_{data,validate} \
           test_sandbox_detect; do
    [[ -x "$unpriv/tests/$t" ]] || continue
    (cd /tmp && setpriv --reuid lcsbtest --regid lcsbtest --clear-groups --reset-env \
      env PATH=/usr/local/bin:/usr/bin:/bin \
      LCSB_SANDBOX_TESTS_REQUIRED="${LCSB_SANDBOX_TESTS_REQUIRED:-}" "$unpriv/tests/$t")
  done
  # The Lua exec_policy cases, for the same reason (the scope's removal), and
  # the walk for files that run later (unreadable directories), from a
  # directory that is no system prefix: the project is the cwd.
  for t in exec_policy_{baseline,keys,scope,wrap,home} run_later; do
    (cd "$unpriv/tests" && setpriv --reuid lcsbtest --regid lcsbtest --clear-groups --reset-env \
      env PATH=/usr/local/bin:/usr/bin:/bin LCSB_BUILD_DIR="$unpriv" \
      LUA_PATH="$unpriv/lua/?.lua;$unpriv/lua/?/init.lua;;" LUA_CPATH="$unpriv/lua/?.so;;" \
      lua5.4 "$unpriv/lua-tests/test_$t.lua")
  done
  rm -rf "$unpriv"
fi

section "sanitizers (address, undefined)"
build "$root/build-asan" -DLCSB_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug
(cd "$root/build-asan" && ctest --output-on-failure --no-tests=error -j "$jobs")

section "valgrind: the pure suites, and a whole run under --backend none"
# valgrind does not know the Landlock syscalls (it answers ENOSYS), so what
# runs under it is what needs no Landlock; the sanitizer build covers the rest.
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
# Its own "--PID--" chatter (a warning per openat2 it does not know) is
# dropped; its "==PID==" error reports stay.
vg_quiet() { "${vg[@]}" "$@" 2> >(grep -v '^--[0-9]*-- ' >&2); }
vg_quiet "$root/build/tests/test_sandbox_policy_data" >/dev/null
vg_quiet "$root/build/tests/test_sandbox_policy_validate" >/dev/null
vg_quiet "$root/build/tests/test_sandbox_detect" >/dev/null
vg_quiet "$root/build/tests/test_cli_args" >/dev/null
vg_quiet "$root/build/tests/test_sandbox_oci" >/dev/null
vg_quiet "$root/build/tests/test_sandbox_seatbelt_golden" >/dev/null
vg_quiet "$root/build/tests/test_sandbox_seatbelt_property" >/dev/null
vg_quiet "$root/build/tests/test_sandbox_netname" >/dev/null
vg_quiet "$root/build/tests/test_sandbox_proxy_request" >/dev/null
# The proxy's threads, one per connection: its 512-connection case passes
# valgrind's default of 500 threads.
vg_quiet --max-threads=1500 "$root/build/tests/test_sandbox_proxy" >/dev/null
vg_project=$(mktemp -d /tmp/lcsb-vg.XXXXXX)
cp "$root/examples/demo/policy.lua" "$vg_project/"
# Trusting the policy, under valgrind too, in a store of the run's own
# (outside the project: no policy may write a trust store).
vg_state=$(mktemp -d /tmp/lcsb-vg-state.XXXXXX)
export XDG_STATE_HOME=$vg_state
(cd "$vg_project" && "${vg[@]}" "$root/build/lcsb" trust policy.lua 2>/dev/null)
(cd "$vg_project" && "${vg[@]}" "$root/build/lcsb" --backend none policy.lua -- \
  sh -c 'echo built > out.txt' 2>/dev/null && test -s out.txt)
(cd "$vg_project" && vg_quiet "$root/build/lcsb" detect >/dev/null)
(cd "$vg_project" && "${vg[@]}" "$root/build/lcsb" wrap --backend seatbelt policy.lua -- \
  true >/dev/null 2>/dev/null)
rm -rf "$vg_project" "$vg_state"
unset XDG_STATE_HOME

section "fuzzing, briefly (scripts/fuzz.sh runs each target for minutes)"
"$root/scripts/fuzz.sh" "${LCSB_FUZZ_SECONDS:-15}"

section "install into a prefix and use it from there (pkg-config, CMake, Lua, man)"
"$root/scripts/install-test.sh"

section "demo"
"$root/examples/demo/run.sh" "$root/build/lcsb"

if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  section "the working tree as the run found it"
  tree_after=$(git -C "$root" status --porcelain)
  if [[ $tree_after != "$tree_before" ]]; then
    echo "the tests changed the working tree (git status --porcelain):" >&2
    diff <(echo "$tree_before") <(echo "$tree_after") >&2 || true
    exit 1
  fi
fi
elapsed=$((SECONDS - started))
echo "all tests passed in $((elapsed / 60)) min $((elapsed % 60)) s"
