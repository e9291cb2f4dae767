#!/usr/bin/env bash
# Guesses (issue 28): `lcsb POLICY -- CMD` starts, before its policy script
# runs, the shim the last run under the same script, directory and command
# had (lcsb_runner_start), and hands it the command only if the policy it
# composes gives that shim the very same argv. Each case proves what is
# enforced is what the run composed, whatever the guess: a guess from an
# earlier policy is let go of and the new policy holds (the kernel refuses
# what it no longer allows); a guess file others may write is not even
# started; a name a guess carries for the private HOME is taken only where
# nothing is. Whether the guess was used is read from lcsb's own system
# calls (strace, without -f): a used guess is the one shim spawned, before
# the policy script is opened; a guess let go of is a second spawn.
#
# Usage: test_guess.sh LCSB. LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing
# mechanism a failure.
set -uo pipefail
LCSB=$(realpath "$1")
# shellcheck source=tests/cli/harness.sh
source "$(dirname "$0")/harness.sh"
suite_work guess

need_mechanisms "$LCSB" "Landlock world of its own" '"landlock_abi":[1-9]' \
  '"mount_namespaces":true'
need_tools guess strace
# A case's outcome: passed unless it failed.

proj=$work/proj secret=$work/secret
mkdir -p "$proj" "$secret"
echo "not for the command" >"$secret/file"
chmod 755 "$work" "$secret"

# The policy: sh and cat, and (WIDE) the secret's directory to read.
policy() { # narrow|wide
  local read=''
  [[ $1 == wide ]] && read="read = { \"$secret\" },"
  cat >"$proj/policy.lua" <<EOF
local lcsb = require "lcsb"
return function(run) return lcsb.exec_policy { project = run.cwd, $read exec = { "sh", "cat", "mkdir", "sleep" } } end
EOF
}

# ARGV run under the policy, lcsb's own calls traced (BACKEND: another
# backend's name): $status, $out, and
# $spawns (the shims spawned), $early (whether the first came before the
# policy script was opened).
run() { # ARGV...
  # LeakSanitizer cannot run under ptrace: a sanitizer build's leaks are
  # the sanitizer suites' to find, not this one's.
  (cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -o "$work/trace" -e trace=clone3,openat \
    "$LCSB" --no-trust-check ${backend:+--backend "$backend"} policy.lua -- "$@" \
    >"$work/out" 2>"$work/err")
  status=$? out=$(cat "$work/out")
  spawns=$(grep -c '^clone3(.*CLONE_VFORK' "$work/trace")
  local first_spawn policy_open
  first_spawn=$(grep -n '^clone3(.*CLONE_VFORK' "$work/trace" | head -1 | cut -d: -f1)
  policy_open=$(grep -n 'policy\.lua' "$work/trace" | head -1 | cut -d: -f1)
  early=0
  [[ -n $first_spawn && -n $policy_open ]] && ((first_spawn < policy_open)) && early=1
}

# The guess files in the plan store (a plan starts with its magic line).
guesses() {
  for f in "$XDG_STATE_HOME"/lcsb/plans/*; do
    [[ -f $f ]] && ! head -c 9 "$f" | grep -q '^lcsb-plan' && echo "$f"
  done
}

begin "a guess is kept, and the next run takes it"
policy narrow
run cat /dev/null
((status == 0)) || fail "the first run failed ($status): $(cat "$work/err")"
[[ -n $(guesses) ]] || fail "no guess was kept"
run cat /dev/null
((status == 0 && spawns == 1 && early == 1)) ||
  fail "the second run did not take the guess (status $status, $spawns spawns, early $early)"
end

begin "a guess from a wider policy is let go of, and the narrower one holds"
policy wide
run cat "$secret/file"
run cat "$secret/file"
[[ $status == 0 && $out == "not for the command" && $early == 1 ]] ||
  fail "the wide policy's run (the twin) did not read the file: $status, $out"
policy narrow
run cat "$secret/file"
((status != 0)) || fail "the narrow policy's run read the file through the wide guess"
[[ $out == "" ]] || fail "the file reached the command: $out"
((spawns == 2)) || fail "the wide guess was not let go of ($spawns spawns)"
end

begin "a guess others may write is not started; untouched, it is"
policy narrow
run cat /dev/null
run cat /dev/null
((early == 1)) || fail "the untouched guess was not taken"
guess=$(guesses | head -1)
chmod 666 "$guess"
run cat /dev/null
((status == 0)) || fail "the run failed ($status)"
((early == 0 && spawns == 1)) || fail "a guess others may write was started (early $early)"
end

begin "the empty .git a project holds is covered in a world started from a guess"
# The policy script makes it, after the guessed world was started: held
# from before (and checked again by the shim), no repository can be made.
policy narrow
run mkdir -p made
run mkdir -p made
run mkdir -p .git/hooks
((status != 0)) || fail "the command made .git/hooks in a world started from a guess"
((early == 1)) || fail "the guess was not taken (early $early, $spawns spawns)"
[[ ! -e $proj/.git ]] || fail ".git is left in the project: $(ls -A "$proj/.git")"
backend=none run mkdir -p .git/hooks
[[ $status == 0 && -d $proj/.git/hooks ]] || fail "the twin (unsandboxed) could not make .git/hooks"
rm -rf "$proj/.git" "$proj/made"
end

begin "a private HOME's name is taken again only where nothing is"
run sh -c 'echo "$HOME"'
run sh -c 'echo "$HOME"'
home=$out
[[ $home == */lcsb-home.* ]] || fail "no private HOME: $home"
run sh -c 'echo "$HOME"'
[[ $out == "$home" ]] || fail "the guess's name was not taken again: $out, not $home"
mkdir "$home"
run sh -c 'echo "$HOME"; echo made > "$HOME/f" && cat "$HOME/f"'
rmdir "$home"
((status == 0)) || fail "the run failed ($status): $(cat "$work/err")"
[[ $(head -1 <<<"$out") != "$home" ]] || fail "the name was taken though a directory is there"
end

begin "a run while another holds the guess takes neither it nor its names"
policy narrow
run sh -c 'echo "$HOME"'
run sh -c 'echo "$HOME"'
home=$out
# The holder runs until the run beside it is over (a file in the project
# says so), however slow the machine.
rm -f "$proj/release"
(cd "$proj" && "$LCSB" --no-trust-check policy.lua -- sh -c \
  'echo "$HOME"; i=0; until [ -e release ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i + 1)); done' \
  >"$work/held" 2>"$work/held.err") &
holder=$!
for _ in $(seq 400); do [[ -s $work/held ]] && break; sleep 0.05; done
[[ -s $work/held ]] || fail "the holding run did not start: $(cat "$work/held.err")"
run sh -c 'echo "$HOME"'
touch "$proj/release"
wait "$holder"
rm -f "$proj/release"
[[ $(head -1 "$work/held") == "$home" ]] || fail "the holding run did not take the guess: $(cat "$work/held" "$work/held.err")"
((status == 0)) || fail "the run beside it failed ($status): $(cat "$work/err")"
[[ $out != "$home" ]] || fail "the run beside it took the private HOME the other run holds: $out"
((early == 0)) || fail "the run beside it started the guess the other run holds"
end

begin "a guess replaced between a run's open and its lock is not taken"
policy narrow
run sh -c 'echo "$HOME"'
run sh -c 'echo "$HOME"'
# The guess that names the HOME it gave.
home=$out guess=$(guesses | xargs grep -l -F -- "$out")
# The run's lock comes late (strace delays it) and meanwhile the guess is
# replaced, as a run ending rewrites it: the file it opened is no longer
# the guess, and another run may hold the one that is.
(cd "$proj" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  strace -o "$work/late.trace" -e trace=openat,flock \
  -e inject=flock:delay_enter=5000000 \
  "$LCSB" --no-trust-check policy.lua -- sh -c 'echo "$HOME"' >"$work/late" 2>"$work/late.err") &
late=$!
opened=0
for _ in $(seq 400); do
  grep -q "${guess##*/}" "$work/late.trace" 2>/dev/null && opened=1 && break
  sleep 0.05
done
((opened)) || fail "the run did not open the guess within 20 s"
cp "$guess" "$guess.new" && mv "$guess.new" "$guess"
wait "$late"
grep -q 'flock(' "$work/late.trace" || fail "the run took no lock: $(cat "$work/late.err")"
[[ -s $work/late ]] || fail "the run failed: $(cat "$work/late.err")"
[[ $(cat "$work/late") != "$home" ]] || fail "the run took the names of a guess replaced under it"
end

begin "a FIFO where a guess is to be written holds no run"
policy narrow
run sh -c 'echo "$HOME"'
guess=$(guesses | xargs grep -l -F -- "$out")
rm -f "$guess"
# lcsb writes it through .NAME.PID first: the shell's pid, which exec keeps.
(cd "$proj" && timeout 20 sh -c 'mkfifo "$1/.${2##*/}.$$" && exec "$3" --no-trust-check policy.lua -- sh -c "echo ran"' \
  sh "${guess%/*}" "$guess" "$LCSB" >"$work/out" 2>"$work/err")
status=$?
((status == 0)) || fail "the run did not end as it should ($status): $(cat "$work/err")"
[[ $(cat "$work/out") == ran ]] || fail "the command did not run: $(cat "$work/out")"
[[ -f $guess ]] || fail "no guess was kept"
end

# A policy that names no directory for the command (lcsb.policy, not
# exec_policy): its worlds made ahead start where lcsb was started, as one
# made at the call does, run after run (each once failed: chdir("")).
begin "a policy with no working directory of its own, run after run"
mkdir -p "$work/nocwd"
cat >"$work/nocwd/p.lua" <<'LUA'
local lcsb = require "lcsb"
return function(run)
  return lcsb.policy { read = { "/usr", run.cwd }, exec = lcsb.which("/usr/bin/true") }
end
LUA
for run in 1 2 3; do
  out=$(cd "$work/nocwd" && "$LCSB" --no-trust-check p.lua -- /usr/bin/true 2>&1) ||
    fail "run $run: $out"
done
end

echo "# guess: $passed passed, $failed failed, $skipped skipped" >&2
[[ $failed == 0 ]]
