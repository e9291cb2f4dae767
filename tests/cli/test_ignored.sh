#!/usr/bin/env bash
# Signals lcsb's caller ignores. An exec keeps an ignored signal ignored:
# `nohup CMD` runs CMD deaf to SIGHUP, and a non-interactive shell's
# background job (`CMD &`) deaf to SIGINT and SIGQUIT. `nohup lcsb POLICY --
# CMD` must give CMD the same: lcsb does not relay what it was started
# ignoring, the shim's processes do not take it as a stop, and the command
# starts with it ignored, as it would bare. Each case runs a world made
# ahead (the guess), a world made at the call (a time limit) and the none
# backend, and has its twin: the same signal not ignored stops the run.
#
# Usage: test_ignored.sh LCSB. LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing
# mechanism a failure.
set -uo pipefail
LCSB=$(realpath "$1")
# shellcheck source=tests/cli/harness.sh
source "$(dirname "$0")/harness.sh"
suite_work ignored

need_mechanisms "$LCSB" "Landlock world of its own" '"landlock_abi":[1-9]' \
  '"mount_namespaces":true'
need_tools ignored strace

proj=$work/proj
mkdir -p "$proj"
cat >"$proj/timed.lua" <<'EOF'
local lcsb = require "lcsb"
return function(run)
  return lcsb.exec_policy { project = run.cwd, exec = { "sh", "sleep" }, limits = { time = 120 },
    env = { pass = { "ASAN_OPTIONS" } } }
end
EOF
sed 's/, limits = { time = 120 }//' "$proj/timed.lua" >"$proj/ahead.lua"
# A warm guess for ahead.lua, so that its runs below are made ahead.
for _ in 1 2; do (cd "$proj" && "$LCSB" --no-trust-check ahead.lua -- sh -c true); done

# The command's ignored signals (1 to 31; glibc's posix_spawn leaves its own
# 32 and 33 ignored in what it spawns), then a SIGHUP, SIGINT and SIGPIPE
# of its own: it says each it lived through.
# shellcheck disable=SC2016 # the command's shell expands it
probe='while read -r k v; do [ "$k" = SigIgn: ] && echo "ignored $v"; done </proc/self/status
kill -HUP $$; echo lived-HUP; kill -INT $$; echo lived-INT; kill -PIPE $$; echo lived-PIPE'
low_bits() { printf '%08x' $((0x$1 & 0x7fffffff)); }
# Its ignored signals (1 to 31) into ./ran, then exit 3.
# shellcheck disable=SC2016 # the command's shell expands it
probe_pipe='while read -r k v; do case $k in SigIgn:) printf "%08x" $((0x$v & 0x7fffffff)) >ran;; esac; done </proc/self/status; exit 3'


# `sh -c probe` started by a shell that ignores IGNORE (a trap list, may be
# empty), run as RUN says: bare, or under lcsb with POLICY and BACKEND.
ignoring() { # IGNORE bare | POLICY BACKEND
  local ignore=$1
  shift
  if [[ $1 == bare ]]; then
    (cd "$proj" && bash -c "${ignore:+trap '' $ignore;} exec sh -c \"\$0\"" "$probe" 2>&1)
  else
    (cd "$proj" && bash -c "${ignore:+trap '' $ignore;} exec \"\$@\"" _ "$LCSB" --no-trust-check \
      --backend "$2" "$1" -- sh -c "$probe" 2>&1)
  fi
  echo "status $?"
}

runs=("ahead.lua auto" "timed.lua auto" "ahead.lua none")
for run in "${runs[@]}"; do
  # shellcheck disable=SC2086 # POLICY BACKEND, two words
  set -- $run
  begin "signals the caller ignores stay ignored in the command ($1, $2), as bare"
  bare=$(ignoring "HUP INT PIPE" bare)
  out=$(ignoring "HUP INT PIPE" "$1" "$2")
  for said in lived-HUP lived-INT lived-PIPE "status 0"; do
    grep -qx "$said" <<<"$out" || fail "no '$said': $out"
  done
  want=$(low_bits "$(sed -n 's/^ignored //p' <<<"$bare")")
  got=$(low_bits "$(sed -n 's/^ignored //p' <<<"$out" | head -1)")
  [[ $want == "$got" && $want != 00000000 ]] ||
    fail "ignored $got under lcsb, $want bare: $out"
  end

  begin "its twin ($1, $2): a caller that ignores none, the command's own SIGHUP ends it"
  out=$(ignoring "" "$1" "$2")
  grep -qx "status 129" <<<"$out" || fail "not ended by its SIGHUP: $out"
  grep -q lived-HUP <<<"$out" && fail "the command lived through its SIGHUP: $out"
  end

  # lcsb's own pipe for the command's stderr makes it ignore SIGPIPE: that
  # must not reach the command.
  begin "lcsb's own SIGPIPE ignored is not the command's ($1, $2)"
  out=$(ignoring "" "$1" "$2")
  mask=$(sed -n 's/^ignored //p' <<<"$out" | head -1)
  [[ -n $mask ]] || fail "no mask: $out"
  (((0x${mask:-0} >> 12) & 1)) && fail "SIGPIPE ignored in the command: $out"
  end
done

# SIGCHLD the caller ignores: the kernel would reap what lcsb and the shim
# wait for, and the run would never end. It ends with the command's status,
# the command starting with SIGCHLD at its default (as POSIX allows).
for run in "${runs[@]}"; do
  # shellcheck disable=SC2086
  set -- $run
  begin "a caller that ignores SIGCHLD: the run ends, with the command's status ($1, $2)"
  out=$(cd "$proj" && timeout -k 5 30 bash -c "trap '' CHLD; exec \"\$@\"" _ "$LCSB" --no-trust-check \
    --backend "$2" "$1" -- sh -c 'echo ran; exit 3' 2>&1)
  status=$?
  [[ $status == 3 ]] || fail "ended $status, not 3: $out"
  grep -qx ran <<<"$out" || fail "the command did not run: $out"
  end
done

# And the policy script's own commands, which lcsb waits for the same way.
begin "a caller that ignores SIGCHLD: the policy script's commands are waited for"
cat >"$proj/execs.lua" <<'LUA'
assert(os.execute("exit 0"), "os.execute lost its command's status")
local p = assert(io.popen("echo popen"))
assert(p:read("l") == "popen" and p:close(), "io.popen lost its command's status")
return require("lcsb").exec_policy { exec = { "sh" } }
LUA
out=$(cd "$proj" && timeout -k 5 30 bash -c "trap '' CHLD; exec \"\$@\"" _ "$LCSB" --no-trust-check \
  execs.lua -- sh -c 'echo ran; exit 3' 2>&1)
status=$?
[[ $status == 3 ]] || fail "ended $status, not 3: $out"
end

# The same for a host that runs the shim itself, from lcsb wrap's argv.
begin "a host that ignores SIGCHLD runs lcsb wrap's argv: it ends, with the command's status"
if ! command -v python3 >/dev/null; then
  missing "python3 is not installed"
else
  (cd "$proj" && "$LCSB" wrap --no-trust-check timed.lua -- sh -c 'echo ran; exit 3') >"$work/argv"
  out=$(cd "$proj" && timeout -k 5 30 python3 -c '
import json, os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
argv = json.load(open(sys.argv[1]))
os.execv(argv[0], argv)' "$work/argv" 2>&1)
  status=$?
  [[ $status == 3 ]] || fail "ended $status, not 3: $out"
  grep -qx ran <<<"$out" || fail "the command did not run: $out"
fi
end

# A caller's stderr whose reader is gone: lcsb's own lines there (the
# trailer; under none, its warning before the command) must not kill it
# with SIGPIPE, and the command, which gets SIGPIPE at its default, runs.
for run in "${runs[@]}"; do
  # shellcheck disable=SC2086
  set -- $run
  begin "stderr a pipe no one reads: the run ends with the command's status ($1, $2)"
  rm -f "$proj/ran"
  (cd "$proj" && timeout -k 5 30 python3 -c '
import os, signal, sys
# Python ignores both for itself.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
r, w = os.pipe()
os.close(r)
os.dup2(w, 2)
os.execv(sys.argv[1], sys.argv[1:])' "$LCSB" --no-trust-check --backend "$2" "$1" -- \
    sh -c "$probe_pipe")
  status=$?
  [[ $status == 3 && -e $proj/ran ]] || fail "ended $status$([[ -e $proj/ran ]] || echo ', the command not run')"
  [[ $(cat "$proj/ran" 2>/dev/null) == "$(low_bits 0)" ]] ||
    fail "the command's ignored signals: $(cat "$proj/ran" 2>/dev/null)"
  end
done

# Signals sent while the command runs, to lcsb alone and to its whole
# process group (a terminal's ^C, a shell killing its background job):
# the run lives through those the caller ignores.
during() { # IGNORE POLICY BACKEND SIGNAL lcsb|group [SECONDS]: the command's output, then status
  rm -f "$proj/started"
  (cd "$proj" && exec setsid bash -c "${1:+trap '' $1;} exec \"\$@\"" _ "$LCSB" --no-trust-check \
    --backend "$3" "$2" -- sh -c "echo > started; sleep ${6:-1}; echo finished" >"$work/out" 2>&1) &
  local pid=$! i
  for ((i = 0; i < 500; i++)); do [[ -e $proj/started ]] && break; sleep 0.01; done
  if [[ $5 == lcsb ]]; then kill "-$4" "$pid"; else kill "-$4" -- "-$pid"; fi
  wait "$pid"
  local status=$?
  cat "$work/out"
  echo "status $status"
}
for run in "${runs[@]}"; do
  # shellcheck disable=SC2086
  set -- $run
  for to in lcsb group; do
    for sig in HUP INT; do
      begin "a $sig to $to that the caller ignores while the command runs ($1, $2)"
      out=$(during "$sig" "$1" "$2" "$sig" "$to")
      if ! grep -qx finished <<<"$out" || ! grep -qx "status 0" <<<"$out"; then
        fail "the command did not finish: $out"
      fi
      end
      begin "its twin: not ignored, the $sig to $to ends the run ($1, $2)"
      out=$(during "" "$1" "$2" "$sig" "$to")
      want=$((128 + $(kill -l "$sig")))
      grep -qx "status $want" <<<"$out" || fail "not $want: $out"
      grep -qx finished <<<"$out" && fail "the command finished: $out"
      end
    done
  done
done

# A stop sent to lcsb, or to the shim outside, starts a grace period of 10
# seconds, after which every process of the command is killed: not for one
# the caller ignores, which reaches neither.
begin "a HUP to the group that the caller ignores starts no grace period"
out=$(during HUP ahead.lua auto HUP group 11)
if ! grep -qx finished <<<"$out" || ! grep -qx "status 0" <<<"$out"; then
  fail "the command did not finish: $out"
fi
end

# lcsb holds the signals it relays from before its command starts; one it
# ignores, held so by the kernel (a blocked signal is queued whatever its
# disposition), must not be taken for a stop that keeps the command from
# running; nor may the init's, which holds them too until its command
# starts. lcsb is held (strace) at its look, where it gets a SIGINT; or the
# init as it is about to look (its signalfd), when the whole group gets one.
held_then() { # IGNORE POLICY lcsb|init: the command ran or not, then lcsb's status
  local call=rt_sigpending
  [[ $3 == init ]] && call=signalfd4
  rm -f "$proj/ran" "$work/trace"
  (cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    exec setsid bash -c "${1:+trap '' $1;} exec \"\$@\"" _ strace -f -I never -o "$work/trace" \
    -e trace=$call -e inject=$call:delay_enter=1000000:when=1 \
    "$LCSB" --no-trust-check "$2" -- sh -c 'echo ran > ran' >/dev/null 2>&1) &
  local pid=$! i held=
  for ((i = 0; i < 1000; i++)); do
    held=$(sed -n "s/^\([0-9]*\) *$call(.*/\1/p" "$work/trace" 2>/dev/null | head -1)
    [[ -n $held ]] && break
    sleep 0.01
  done
  if [[ -n $held && $3 == lcsb ]]; then kill -INT "$held"; fi
  if [[ -n $held && $3 == init ]]; then kill -INT -- "-$pid"; fi
  wait "$pid"
  local status=$?
  [[ -e $proj/ran ]] && echo ran || echo "did not run"
  echo "status $status${held:+ held}"
}
for policy in ahead.lua timed.lua; do
  for where in lcsb init; do
    begin "a SIGINT the caller ignores, held by the $where before the command starts, stops nothing ($policy)"
    out=$(held_then INT "$policy" "$where")
    [[ $out == $'ran\nstatus 0 held' ]] || fail "$out"
    end
    begin "its twin: not ignored, held by the $where, it stops the run before the command ($policy)"
    out=$(held_then "" "$policy" "$where")
    [[ $out == $'did not run\nstatus 130 held' ]] || fail "$out"
    end
  done
done

# A stop that reaches the shim while it makes the world, before its init is
# forked, is held there and passed on to the init, which then starts no
# command and says so: lcsb's trailer tells that the command did not run.
# The shim is held (strace) at its namespaces when lcsb, which relays it,
# gets a SIGTERM. (Its twin is the case above: one sent once the command
# runs reaches it.)
# In a world of the host's (no user namespaces: a user namespace of the
# test's own where none may be made, and a policy that lets the world go),
# the shim becomes the command; it is held as it restricts itself.
cat >"$proj/open.lua" <<'EOF'
local lcsb = require "lcsb"
return function(run)
  return lcsb.exec_policy { project = run.cwd, exec = { "sh" }, degrade = { "metadata", "world" },
    env = { pass = { "ASAN_OPTIONS" } } }
end
EOF
held_at() { # POLICY CALL PATTERN [no-userns]: SIGTERM to lcsb while the shim is held at CALL
  rm -f "$proj/ran" "$work/trace"
  local -a inside=()
  # shellcheck disable=SC2016 # the inner shell expands it
  [[ ${4:-} == no-userns ]] && inside=(unshare -U -r sh -c \
    'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' _)
  (cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    exec "${inside[@]}" strace -f -I never -o "$work/trace" -e trace="execve,$2" \
    -e inject="$2":delay_enter=1000000 \
    "$LCSB" --no-trust-check "$1" -- sh -c 'echo ran > ran' >/dev/null 2>"$work/err") &
  local runner=$! lcsb_pid= shim_pid= i
  for ((i = 0; i < 1000; i++)); do
    lcsb_pid=$(sed -n 's/^\([0-9]*\) *execve(.*/\1/p' "$work/trace" 2>/dev/null | head -1)
    shim_pid=$(sed -n "s/^\([0-9]*\) *$2($3.*/\1/p" "$work/trace" 2>/dev/null | head -1)
    [[ -n $lcsb_pid && -n $shim_pid ]] && break
    sleep 0.01
  done
  [[ -n $shim_pid ]] && kill -TERM "$lcsb_pid"
  wait "$runner"
  local status=$?
  if [[ -z $shim_pid ]]; then
    echo "the shim was never seen at $2: $(cat "$work/trace")"
    return
  fi
  echo "$([[ -e $proj/ran ]] && echo ran || echo "did not run") status $status"
  grep -q "exited 143 (signal SIGTERM; it did not run)" "$work/err" && echo "said so"
}
begin "a SIGTERM while the shim makes the world stops the run before the command, and says so"
out=$(held_at timed.lua unshare '.*CLONE_NEWPID')
[[ $out == $'did not run status 143\nsaid so' ]] || fail "$out: $(cat "$work/err")"
end
begin "the same in a world of the host's, as the shim restricts itself"
out=$(held_at open.lua landlock_restrict_self '' no-userns)
[[ $out == $'did not run status 143\nsaid so' ]] || fail "$out: $(cat "$work/err")"
end

echo "# ignored: $passed passed, $failed failed, $skipped skipped" >&2
[[ $failed == 0 ]]
