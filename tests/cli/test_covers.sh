#!/usr/bin/env bash
# Covers (protect, hide) the host takes away while the shim makes the
# world. A protected file the host replaces by a rename over it (as git
# writes its config) takes its cover with it: the kernel detaches a mount
# whose point goes. The shim must then cover the new file, not fail and not
# leave it bare. Each case holds the shim (strace delays one of its system
# calls) at the moment that matters, replaces .git/config from the host, and
# then proves the command's append is refused; its twin under the none
# backend appends. The world is made at the call (a time limit: no world is
# made ahead, whose own check at the handover would hide what this tests).
#
# Usage: test_covers.sh LCSB. LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing
# mechanism a failure.
set -uo pipefail
LCSB=$(realpath "$1")
# shellcheck source=tests/cli/harness.sh
source "$(dirname "$0")/harness.sh"
work=$(mktemp -d /tmp/lcsb-covers.XXXXXX)
trap 'rm -rf "$work"' EXIT
export PATH=/usr/bin:/bin
export XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
mkdir -p "$XDG_STATE_HOME" "$XDG_CACHE_HOME"

need_mechanisms "$LCSB" "Landlock world of its own" '"landlock_abi":[1-9]' \
  '"mount_namespaces":true'
for tool in strace; do
  command -v "$tool" >/dev/null && continue
  missing "$tool is not installed"
  echo "# covers: $passed passed, $failed failed, $skipped skipped" >&2
  [[ $failed == 0 ]]
  exit
done
begin() { case_name=$1 failed_before=$failed; }
end() { ((failed == failed_before)) && passed=$((passed + 1)); }

proj=$work/proj
mkdir -p "$proj/.git"
cat >"$proj/policy.lua" <<'EOF'
local lcsb = require "lcsb"
return function(run)
  return lcsb.exec_policy { project = run.cwd, exec = { "sh" }, limits = { time = 120 } }
end
EOF
append='echo "[core] fsmonitor = planted" >> .git/config'

# Replace .git/config from the host once a shim of this run is held in a
# call the trace shows begun (strace writes a call's start as it enters it)
# and matching PATTERN; $work/replaced says whether it came to that.
replace_when_held() { # PATTERN
  local last
  for _ in $(seq 1 3000); do
    last=$(tail -n 1 "$work/trace" 2>/dev/null)
    if [[ $last =~ $1 && $last != *") = "* ]]; then
      printf '[user]\n\tname = host\n' >"$proj/.git/config.lock"
      mv "$proj/.git/config.lock" "$proj/.git/config"
      echo yes >"$work/replaced"
      return
    fi
    sleep 0.01
  done
  echo no >"$work/replaced"
}

# The append run with the shim's NAME calls delayed by DELAY microseconds,
# the config replaced while one matching PATTERN is held (strace -y shows
# the paths of the call's descriptors).
run_held() { # NAME DELAY PATTERN
  printf '[core]\n' >"$proj/.git/config"
  rm -f "$work/replaced" "$work/trace"
  replace_when_held "$3" &
  local replacer=$!
  (cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -y -o "$work/trace" -e "trace=$1" -e "inject=$1:delay_enter=$2" \
    "$LCSB" --no-trust-check policy.lua -- sh -c "$append" >"$work/out" 2>"$work/err")
  status=$?
  wait "$replacer"
}

# The append refused, the command run, and the host's config as the host
# left it; the replacement came while the shim was held.
expect_refused() {
  [[ $(cat "$work/replaced") == yes ]] || { fail "the shim was never held there"; return; }
  ((status != 97)) || fail "the world was not made: $(cat "$work/err")"
  ((status != 0)) || fail "the command appended to the replaced config"
  grep -q planted "$proj/.git/config" && fail "planted in .git/config: $(cat "$proj/.git/config")"
  grep -q 'Read-only file system' "$work/err" ||
    fail "not refused as read-only: $(cat "$work/err")"
}

begin "the twin: under the none backend the append reaches the config"
printf '[core]\n' >"$proj/.git/config"
(cd "$proj" && "$LCSB" --no-trust-check --backend none policy.lua -- sh -c "$append" \
  >"$work/out" 2>"$work/err")
status=$?
((status == 0)) || fail "the append failed ($status): $(cat "$work/err")"
grep -q planted "$proj/.git/config" || fail "nothing was appended"
end

# After every cover is put, before the command starts: the shim looks at
# its covers again (last of its mounts, after it lets go of the host's
# root) and covers the new file.
begin "a protected file replaced after it was covered stays protected"
run_held umount2 1000000 'umount2\('
expect_refused
end

# Between the look at the path and the mount on it: the mount finds its
# point gone (ENOENT), and the shim covers the path afresh.
begin "a protected file replaced as its cover is mounted stays protected"
if ((EUID != 0)); then
  # The shim is in a user namespace of its own: strace reads its memory
  # and its descriptors' paths only as root.
  skip "strace shows which path a shim's mount is for only to root"
else
  run_held move_mount 100000 "move_mount\\(.*$proj/\\.git/config>"
  expect_refused
  end
fi

echo "# covers: $passed passed, $failed failed, $skipped skipped" >&2
[[ $failed == 0 ]]
