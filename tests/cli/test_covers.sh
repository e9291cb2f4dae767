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
suite_work covers

need_mechanisms "$LCSB" "Landlock world of its own" '"landlock_abi":[1-9]' \
  '"mount_namespaces":true'
need_tools covers strace python3
# The heredocs below read their terminals with pty_drive.py, beside this,
# leaving no bytecode in the source tree.
PYTHONPATH=$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH PYTHONDONTWRITEBYTECODE=1

proj=$work/proj
mkdir -p "$proj/.git"
# ASAN_OPTIONS passed on reaches the shim too: a sanitizer build's shim,
# traced, must not end in LeakSanitizer's refusal to run under ptrace.
cat >"$proj/policy.lua" <<'EOF'
local lcsb = require "lcsb"
return function(run)
  return lcsb.exec_policy { project = run.cwd, exec = { "sh" }, limits = { time = 120 },
    env = { pass = { "ASAN_OPTIONS" } } }
end
EOF
append='echo "[core] fsmonitor = planted" >> .git/config'
# The same without a time limit: its worlds are made ahead (the guess).
sed 's/, limits = { time = 120 }//; s/exec = { "sh" }/exec = { "sh", "rm", "mkdir" }/' \
  "$proj/policy.lua" >"$proj/ahead.lua"
policy_file=policy.lua

# The host's rewrite of its config, as git does it: a new file renamed
# over the old one.
replace_config() {
  printf '[user]\n\tname = host\n' >"$proj/.git/config.lock"
  mv "$proj/.git/config.lock" "$proj/.git/config"
}

# The host's .git moved aside and a copy made in its place (the copy a
# plain directory of the project's), or (symlink) a symlink to it.
move_git() {
  mv "$proj/.git" "$proj/.git.old"
  if [[ $1 == copy ]]; then cp -a "$proj/.git.old" "$proj/.git"; else ln -s .git.old "$proj/.git"; fi
}

# ACTION run on the host once a shim of this run is held in a call the
# trace shows begun (strace writes a call's start as it enters it) and
# matching PATTERN; $work/acted says whether it came to that.
act_when_held() { # PATTERN ACTION...
  local last pattern=$1
  shift
  for _ in $(seq 1 3000); do
    last=$(tail -n 1 "$work/trace" 2>/dev/null)
    if [[ $last =~ $pattern && $last != *") = "* ]]; then
      "$@"
      echo yes >"$work/acted"
      return
    fi
    sleep 0.01
  done
  echo no >"$work/acted"
}

# The append run with the shim's NAME calls delayed by DELAY microseconds,
# ACTION done on the host while one matching PATTERN is held (strace -y
# shows the paths of the call's descriptors).
run_held() { # NAME DELAY PATTERN ACTION...
  local name=$1 delay=$2
  shift 2
  rm -rf "$proj/.git" "$proj/.git.old" "$work/acted" "$work/trace"
  mkdir "$proj/.git"
  printf '[core]\n' >"$proj/.git/config"
  act_when_held "$@" &
  local actor=$!
  (cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -y -o "$work/trace" -e "trace=$name" -e "inject=$name:delay_enter=$delay" \
    "$LCSB" --no-trust-check "$policy_file" -- sh -c "$append" >"$work/out" 2>"$work/err")
  status=$?
  wait "$actor"
}

# The append refused, the command run, and the host's config as the host
# left it; the replacement came while the shim was held.
expect_refused() {
  [[ $(cat "$work/acted") == yes ]] || { fail "the shim was never held there"; return; }
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
run_held umount2 1000000 'umount2\(' replace_config
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
  run_held move_mount 100000 "move_mount\\(.*$proj/\\.git/config>" replace_config
  expect_refused
  end
fi

# What holds .git in place (a mount of its own, which the command cannot
# rename) moved by the host before the covers are looked at again: the
# world cannot bind the new one (the host's root is gone), so nothing runs,
# rather than a .git the command could move aside and make anew.
for how in copy symlink; do
  begin "a .git the host moves aside while the world is made ($how in its place): nothing runs"
  run_held umount2 1000000 'umount2\(' move_git "$how"
  [[ $(cat "$work/acted") == yes ]] || fail "the shim was never held there"
  ((status == 97)) || fail "the command ran ($status): $(cat "$work/err")"
  grep -qs planted "$proj/.git/config" "$proj/.git.old/config" && fail "planted in .git/config"
  grep -Eq "keep .*/\.git in place|passes through a symlink" "$work/err" ||
    fail "the message does not say why: $(cat "$work/err")"
  end
done

# The same swap once a world made ahead is made (its init held as it
# restricts itself, before it waits): the mount table it read as it was
# made shows .git's mount moved, so it is not used; the world made at the
# call in its place refuses the symlink.
begin "a .git the host swaps for a symlink while a world made ahead waits: nothing planted"
policy_file=ahead.lua append='rm .git && mkdir .git && echo "[core] fsmonitor = planted" > .git/config'
(cd "$proj" && "$LCSB" --no-trust-check ahead.lua -- sh -c true >/dev/null 2>&1)
run_held landlock_restrict_self 1000000 'landlock_restrict_self\(' move_git symlink
[[ $(cat "$work/acted") == yes ]] || fail "the shim was never held there"
grep -qs planted "$proj/.git/config" "$proj/.git.old/config" &&
  fail "planted in .git/config ($status): $(cat "$work/err")"
((status != 0)) || fail "the command ran: $(cat "$work/err")"
end

# A signal meant to stop the command that comes while lcsb hands it to a
# world made ahead which then goes unused (.git unsearchable: the init,
# its capabilities dropped, cannot look at the covers beneath): the world
# made at the call in its place is not started without it.
begin "a signal that comes while a world made ahead goes unused: the command does not run"
rm -rf "$proj/.git" "$proj/.git.old" "$proj/ran"
mkdir "$proj/.git"
printf '[core]\n' >"$proj/.git/config"
(cd "$proj" && "$LCSB" --no-trust-check ahead.lua -- sh -c true >/dev/null 2>&1)
chmod 0 "$proj/.git"
rm -f "$work/trace"
(cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  exec strace -f -o "$work/trace" -e trace=sendmsg -e inject=sendmsg:delay_enter=1000000:when=1 \
  "$LCSB" --no-trust-check ahead.lua -- sh -c 'echo ran > ran' >"$work/out" 2>"$work/err") &
tracer=$!
sent=no
for _ in $(seq 1 1000); do
  last=$(tail -n 1 "$work/trace" 2>/dev/null)
  if [[ $last =~ ^([0-9]+)\ +sendmsg\( && $last != *") = "* ]]; then
    kill -INT "${BASH_REMATCH[1]}" && sent=yes
    break
  fi
  sleep 0.01
done
wait "$tracer"
status=$?
chmod 755 "$proj/.git"
[[ $sent == yes ]] || fail "lcsb was never held handing the command over"
[[ -e $proj/ran ]] && fail "the command ran after the signal ($status): $(cat "$work/err")"
((status == 130)) || fail "lcsb ended $status, not 130: $(cat "$work/err")"
end

# A terminal's ^C reaches its whole foreground group, so lcsb relays none
# (the command has it already). One that comes before the command exists
# reached no command: lcsb must not start it after. Each run is held in a
# terminal of its own, which then sends ^C: lcsb before its look for a held
# signal (enter) or after it (exit), so that the ^C comes before the
# handover or as it is made; the shim outside as it forks the init (shim:
# the init does not exist yet); or the init as it is about to start the
# command (init: its signalfd, before its own look). The twin, sent none,
# runs. A world made ahead, and one made at the call (a time limit).
tty_run() { # POLICY INTERRUPT enter|exit|shim|init: lcsb's status on stdout
  rm -f "$work/trace"
  (cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    python3 - "$work/trace" "$LCSB" "$1" "$2" "$3" <<'PY'
import os, pty, re, sys, time
from pty_drive import read_until
trace, lcsb, policy, interrupt, when = sys.argv[1:6]
# (The shim forks by fork, or, built against glibc for the sanitizers, clone.)
call, delay = {"init": ("signalfd4", "enter"), "shim": ("fork,clone", "enter")}.get(
    when, ("rt_sigpending", when))
pid, fd = pty.fork()
if pid == 0:
    os.execvp("strace", ["strace", "-f", "-I", "never", "-o", trace, "-e", f"trace={call}",
                         "-e", f"inject={call}:delay_{delay}=1000000:when=1",
                         lcsb, "--no-trust-check", policy, "--", "sh", "-c", "echo ran > ran"])
def held_now():
    # Held before the look: its call begun, not ended (other processes'
    # lines may come after it); after it: strace says it delays.
    try:
        text = open(trace).read()
    except OSError:
        return False
    name = "(?:" + call.replace(",", "|") + ")"
    if delay == "exit":
        return re.search(name + r"\(", text) is not None and "(DELAYED)" in text
    return (re.search(name + r"\(", text) is not None and
            re.search(name + " resumed", text) is None and
            re.search(name + r"\(.*\) += ", text) is None)
held = False
for _ in range(1000):
    if held_now():
        held = True
        break
    time.sleep(0.01)
if held and interrupt == "yes":
    os.write(fd, b"\x03")
read_until(fd)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status) if held else "never held")
PY
  )
}
for policy in ahead.lua policy.lua; do
  rm -rf "$proj/.git" "$proj/.git.old" "$proj/ran"
  mkdir "$proj/.git"
  (cd "$proj" && "$LCSB" --no-trust-check "$policy" -- sh -c true >/dev/null 2>&1)
  for when in enter exit shim init; do
    begin "a terminal's ^C before the command starts ($policy, $when): the command does not run"
    rm -f "$proj/ran"
    status=$(tty_run "$policy" yes "$when")
    [[ -e $proj/ran ]] && fail "the command ran after ^C ($status)"
    [[ $status == 130 ]] || fail "lcsb ended $status, not 130"
    end
  done
  begin "its twin ($policy): sent no ^C, the command runs"
  status=$(tty_run "$policy" no enter)
  [[ -e $proj/ran && $status == 0 ]] || fail "the command did not run ($status)"
  end
done

# A ^C after the command started is the command's alone: it reaches it
# once, from the terminal, even when lcsb, held as it hands over (or after
# it spawned the shim, at the call), holds a copy too: it passes that on
# marked, and the init passes no marked one to a command that runs. The command traps it and goes on, in a loop of the
# shell's own until the test lets it end (past lcsb's hold).
for policy in trap.lua policy.lua; do
begin "a terminal's ^C after the command started reaches it once ($policy)"
sed 's/exec = { "sh", "rm", "mkdir" }/exec = { "sh", "sleep" }/' "$proj/ahead.lua" >"$proj/trap.lua"
(cd "$proj" && "$LCSB" --no-trust-check "$policy" -- sh -c true >/dev/null 2>&1)
rm -f "$work/trace" "$proj/stop"
out=$(cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  python3 - "$work/trace" "$LCSB" "$policy" <<'PY'
import os, pty, sys, time
from pty_drive import read_until
trace, lcsb, policy = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execvp("strace", ["strace", "-f", "-I", "never", "-o", trace, "-e", "trace=rt_sigpending",
                         "-e", "inject=rt_sigpending:delay_enter=2000000:when=2",
                         lcsb, "--no-trust-check", policy, "--", "sh", "-c",
                         'trap "echo got" INT; echo start; '
                         'while [ ! -e stop ]; do :; done; echo after'])
out = read_until(fd, b"start")
if b"start" in out:
    time.sleep(0.2)
    os.write(fd, b"\x03")
    time.sleep(3)
    open("stop", "w").close()
out = read_until(fd, None, out)
_, status = os.waitpid(pid, 0)
print(out.decode(errors="replace").replace("\r", ""))
print("status", os.waitstatus_to_exitcode(status))
PY
)
[[ $(grep -o got <<<"$out" | wc -l) == 1 ]] || fail "the trap did not run once: $out"
grep -q after <<<"$out" || fail "the command did not go on: $out"
grep -q '^status 0$' <<<"$out" || fail "the run did not end 0: $out"
end
done

# A terminal's hangup reaches only its session's leader, which lcsb may be
# (the command of a tmux pane, of ssh -t): lcsb passes it on. The run, in a
# terminal of its own, prints "start" once what must hear the hangup traps
# it; then the terminal goes. Ended within 5 s, or let go through ./stop.
hang_up() { # POLICY ARGV...
  rm -f "$proj/hup" "$proj/stop"
  (cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    python3 - "$LCSB" "$@" <<'PY'
import os, pty, sys, time
from pty_drive import read_until
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "--no-trust-check", sys.argv[2], "--"] + sys.argv[3:])
read_until(fd, b"start")
os.close(fd)
for _ in range(500):
    if os.waitpid(pid, os.WNOHANG)[0]:
        break
    time.sleep(0.01)
else:
    open("stop", "w").close()
    os.waitpid(pid, 0)
PY
  )
  rm -f "$proj/stop"
}
traps='trap "echo hup > hup; exit 3" HUP; echo start; while [ ! -e stop ]; do :; done'

begin "a hangup of the terminal whose session lcsb leads reaches the command"
(cd "$proj" && "$LCSB" --no-trust-check trap.lua -- sh -c true >/dev/null 2>&1)
hang_up trap.lua sh -c "$traps"
[[ -e $proj/hup ]] || fail "the command did not hear the hangup"
end

# The same while the policy script runs a command of its own: lcsb stops
# the script and passes the hangup on to that command, rather than killing
# it two seconds later.
begin "a hangup of the terminal whose session lcsb leads reaches the policy script's command"
printf 'os.execute([[%s]])\nreturn require("lcsb").exec_policy { exec = { "sh" } }\n' "$traps" \
  >"$proj/hangs.lua"
hang_up hangs.lua true
[[ -e $proj/hup ]] || fail "the script's command did not hear the hangup"
end

echo "# covers: $passed passed, $failed failed, $skipped skipped" >&2
[[ $failed == 0 ]]
