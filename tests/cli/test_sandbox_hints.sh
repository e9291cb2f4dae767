#!/usr/bin/env bash
# Every refusal named, on the real kernel: each case runs a real tool under
# lcsb so that the kernel refuses something, and checks that a hint names
# the key that would allow it (write, read, exec, net, protect) and the
# path, program or host; then it runs the same command under
# `--backend none`, where it must succeed, so the refusal is the sandbox's.
#
# Usage: test_sandbox_hints.sh LCSB. A tool that is not installed is a
# skip; LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing mechanism a failure.
set -uo pipefail
source "$(dirname "$0")/harness.sh"
LCSB=$(realpath "$1")
work=$(mktemp -d /tmp/lcsb-hints.XXXXXX)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
export PATH=/usr/bin:/bin

need_mechanisms "$LCSB" "Landlock, or no world of its own (user namespaces)" \
  '"landlock_abi":[1-9]' '"user_namespaces":true'

# Outside every tier: what the cases are refused. Inside: the project.
outside=$work/outside
proj=$work/proj
mkdir -p "$outside/inc" "$proj"
echo "a secret" >"$outside/data.txt"
echo '#define ANSWER 42' >"$outside/inc/answer.h"
printf '#include <stdio.h>\nint main(void) { return puts("hi") < 0; }\n' >"$proj/hello.c"
printf '#include "answer.h"\nint answer(void) { return ANSWER; }\n' >"$proj/answer.c"
git -C "$proj" init -q

# The policy, from the lines inside exec_policy { ... }.
policy() { # BODY
  printf 'local lcsb = require "lcsb"\n%s\nreturn lcsb.exec_policy {\n  %s\n}\n' "${prelude:-}" "$1" \
    >"$proj/policy.lua"
}

# Run ARGV in the project under its policy, then under --backend none.
# LCSB_FLAGS go first (--attest, --report). Sets $status, $err.
refused() { # ARGV...
  rm -f "$work/run.err"
  (cd "$proj" && "$LCSB" --no-trust-check ${LCSB_FLAGS:-} policy.lua -- "$@" >"$work/run.out" 2>"$work/run.err")
  status=$?
  err=$(cat "$work/run.err")
}
allowed() { # ARGV...: must succeed unsandboxed, with the same policy
  (cd "$proj" && "$LCSB" --no-trust-check --backend none policy.lua -- "$@" >"$work/none.out" 2>"$work/none.err") ||
    { fail "it fails under --backend none too: $(tail -3 "$work/none.err")"; return 1; }
}
show() { sed 's/^/    /' "$work/run.err" | tail -20 >&2; }

# Is there a hint line naming KEY = { ... } and every TARGET given?
hinted() { # KEY TARGET...
  local key=$1 line
  shift
  while IFS= read -r line; do
    [[ $line == *"hint:"* && $line == *"$key"* ]] || continue
    local all=1 target
    for target in "$@"; do [[ $line == *"$target"* ]] || all=0; done
    ((all)) && return 0
  done <<<"$err"
  return 1
}

# One case: the policy BODY, the KEY and TARGETS its hint must name, ARGV.
check() { # NAME BODY KEY TARGETS(|-separated) ARGV...
  case_name=$1
  local body=$2 key=$3 targets=$4
  shift 4
  policy "$body"
  refused "$@"
  local list
  IFS='|' read -r -a list <<<"$targets"
  if ((status == 0)); then fail "it was not refused"; show
  elif ! hinted "$key" "${list[@]}"; then fail "no hint names $key and $targets"; show
  elif allowed "$@"; then
    passed=$((passed + 1))
    [[ -n ${LCSB_HINTS_SHOW:-} ]] && { echo "== $case_name"; grep "hint:" <<<"$err"; } >&2
  fi
}

have() { command -v "$1" >/dev/null; }

# ---- sh, bash and coreutils; absolute and relative paths ----
check "sh: a redirect writes outside" 'exec = { "sh" }' 'write = {' "$outside" \
  sh -c "echo x > $outside/new.txt"
check "bash: a redirect reads outside" 'exec = { "bash" }' 'read = {' "$outside/data.txt" \
  bash -c "read -r line < $outside/data.txt"
check "coreutils: a relative write" 'exec = { "cp" }' 'write = {' "$outside" \
  cp hello.c ../outside/copy.c
check "coreutils: a relative read" 'exec = { "cat" }' 'read = {' "$outside/data.txt" \
  cat ../outside/data.txt
check "sh: an unlisted program" 'exec = { "sh" }' 'exec = {' "/usr/bin/id" \
  sh -c 'id -u'

# ---- python: open, subprocess ----
if have python3; then
  check "python: open" 'exec = { "python3" }' 'read = {' "$outside/data.txt" \
    python3 -c "open('$outside/data.txt').read()"
  check "python: subprocess" 'exec = { "python3" }' 'exec = {' "/usr/bin/id" \
    python3 -c "import subprocess; subprocess.run(['/usr/bin/id', '-u'], check=True)"
else case_name=python; skip "python3 is not installed"; fi

# ---- node: fs, child_process, http ----
if have node; then
  check "node: fs" 'exec = { "node" }' 'write = {' "$outside" \
    node -e "require('fs').writeFileSync('$outside/n.txt', 'x')"
  check "node: child_process" 'exec = { "node" }' 'exec = {' "/usr/bin/id" \
    node -e "require('child_process').execFileSync('/usr/bin/id', ['-u'])"
else case_name=node; skip "node is not installed"; fi

# ---- the network: a local server, by host and port ----
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/www" && echo hello >"$work/www/index.html"
python3 -m http.server --bind 127.0.0.1 --directory "$work/www" "$port" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
if have curl; then
  check "curl: a port" 'exec = { "curl" }' 'net = {' "$port" \
    curl -sS -o /dev/null "http://127.0.0.1:$port/"
fi
if have node; then
  check "node: http" 'exec = { "node" }' 'net = {' "$port" \
    node -e "require('http').get('http://127.0.0.1:$port/', r => r.resume()).on('error', e => { console.error(e.message); process.exit(1) })"
fi
# A name: what the proxy would reach (net.domains), named by its host.
if have curl && curl -s -m 5 -o /dev/null https://registry.npmjs.org/; then
  check "curl: a host by name" 'exec = { "curl" }' 'domains' "registry.npmjs.org" \
    curl -sS -o /dev/null https://registry.npmjs.org/
else case_name="curl: a host by name"; skip "registry.npmjs.org does not answer this host"; fi

# ---- make, gcc and ld ----
if have make && have gcc; then
  printf 'all:\n\tid -u\n' >"$proj/Makefile"
  check "make: a recipe's program" 'exec = { "make" }' 'exec = {' "/usr/bin/id" make -s
  rm -f "$proj/Makefile"
  check "gcc: an include outside" 'exec = { lcsb.tools.c }' 'read = {' "$outside/inc" \
    gcc -I"$outside/inc" -c answer.c -o answer.o
  check "ld: an output outside" 'exec = { lcsb.tools.c }' 'write = {' "$outside" \
    gcc -o "$outside/hello" hello.c
  prelude='lcsb.tools.closures = {}'
  check "gcc: its own programs" 'exec = { "gcc" }' 'exec = {' "cc1" gcc -c hello.c -o hello.o
  prelude=

  # A program the policy names by its path that the run builds anew: the
  # grant holds the file that was there when the run started, so the hint
  # must not say to name it again, but what lets a rebuilt program run.
  case_name="make: a named program the run rebuilds"
  printf 'hello: hello.c\n\tgcc -o hello hello.c\ntest: hello\n\t./hello\n' >"$proj/Makefile"
  (cd "$proj" && make -s hello)
  policy 'exec = { lcsb.tools.c, "./hello" }'
  refused make -s test
  if ((status != 0)); then fail "built before the run, it was refused: $status"; show
  else
    touch -d '+2 seconds' "$proj/hello.c"
    refused make -s test
    if ((status == 0)); then fail "rebuilt, it was not refused"
    elif ! hinted 'exec = { built = true }' "$proj/hello" "a new one"; then
      fail "no hint says it was made anew"; show
    elif hinted 'add exec = {' "$proj/hello"; then fail "a hint says to name it again"; show
    elif allowed make -s test; then
      # Its twin: built = true lets the rebuilt program run.
      policy 'exec = { lcsb.tools.c, built = true }'
      touch -d '+4 seconds' "$proj/hello.c"
      refused make -s test
      if ((status != 0)); then fail "with built = true, it exited $status"; show
      else passed=$((passed + 1)); fi
    fi
  fi
  rm -f "$proj/Makefile" "$proj/hello"
else case_name="make, gcc"; skip "make or gcc is not installed"; fi

# ---- git: what protect keeps ----
if have git; then
  check "git: .git/config is protected" 'exec = { lcsb.tools.git }' 'protect' "$proj/.git/config" \
    git config user.name "Ada Hint"
  printf '#!/bin/sh\nexit 0\n' >"$proj/hook"
  check "a hook planted: .git/hooks is protected" 'exec = { "cp" }' 'protect' "$proj/.git/hooks" \
    cp hook .git/hooks/pre-commit
  rm -f "$proj/.git/hooks/pre-commit" "$proj/hook"
fi

# ---- what no hint may offer: the refusal is named, the hint withheld ----
# Is there a hint line naming every TARGET that offers KEY? (A withheld
# hint names its target and says "no hint:".)
offered() { # KEY TARGET...
  local key=$1 line
  shift
  while IFS= read -r line; do
    [[ $line == *"hint:"* && $line == *"$key"* && $line != *"no hint:"* ]] || continue
    local all=1 target
    for target in "$@"; do [[ $line == *"$target"* ]] || all=0; done
    ((all)) && return 0
  done <<<"$err"
  return 1
}
# One case: the policy BODY; the hint must name TARGET with WHY and never
# offer it under read, write or exec; ARGV must succeed unsandboxed.
withheld() { # NAME BODY TARGET WHY ARGV...
  case_name=$1
  local body=$2 target=$3 why=$4 key
  shift 4
  policy "$body"
  refused "$@"
  if ((status == 0)); then fail "it was not refused"; show; return; fi
  for key in 'read = {' 'write = {' 'exec = {' 'sockets = {'; do
    if offered "$key" "$target"; then fail "offered as $key"; show; return; fi
  done
  if ! hinted "no hint:" "$target" "$why"; then fail "no withheld hint names $target ($why)"; show
  elif allowed "$@"; then
    passed=$((passed + 1))
    [[ -n ${LCSB_HINTS_SHOW:-} ]] && { echo "== $case_name"; grep "hint:" <<<"$err"; } >&2
  fi
}

# A unix socket: a read entry would put it in the command's world, where
# connect() reaches its server (a tmux server runs what it is sent).
mkdir -p "$outside/tmux-dir"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$outside/tmux-dir/default"
withheld "a unix socket looked at is no read hint" 'exec = { "stat" }' "$outside/tmux-dir/default" \
  "it is a unix socket" stat "$outside/tmux-dir/default"
withheld "a directory holding a unix socket is no read hint" 'exec = { "ls" }' "$outside/tmux-dir" \
  "it holds a unix socket (default)" ls "$outside/tmux-dir"

# Another project's agent configuration, or its .env: a write entry for
# the directory would let the command plant what an agent acts on, or
# read and rewrite its secrets.
mkdir -p "$outside/agentproj/.claude" "$outside/envproj"
echo 'TOKEN=x' >"$outside/envproj/.env"
withheld "a directory holding an agent's configuration is no write hint" 'exec = { "cp" }' \
  "$outside/agentproj/copy.c" "it holds an agent's configuration (.claude)" \
  cp hello.c "$outside/agentproj/copy.c"
withheld "a directory holding a .env is no write hint" 'exec = { "cp" }' \
  "$outside/envproj/copy.c" "it holds .env" cp hello.c "$outside/envproj/copy.c"

# lcsb's own files: the command it confines has no business with them.
own_caps=$(dirname "$LCSB")/lua/lcsb/caps.lua
if [[ -r $own_caps ]]; then
  withheld "lcsb's own Lua files are no read hint" 'exec = { "cat" }' "$own_caps" \
    "it is lcsb's own" cat "$own_caps"
else case_name="lcsb's own files"; skip "no lua/lcsb/caps.lua beside $LCSB (an install?)"; fi

# ---- several refusals in one run: all of them listed ----
case_name="several refusals"
policy 'exec = { "sh" }'
several="id -u; whoami; uname; echo > $outside/a.txt; echo > $outside/b.txt"
refused sh -c "$several"
missing=
for program in /usr/bin/id /usr/bin/whoami /usr/bin/uname; do
  hinted 'exec = {' "$program" || missing+=" $program"
done
hinted 'write = {' "$outside" || missing+=" $outside"
if ((status == 0)); then fail "it was not refused"; show
elif [[ -n $missing ]]; then fail "not named:$missing"; show
elif allowed sh -c "$several"; then passed=$((passed + 1)); fi

# ---- the private HOME cannot be made: the hint says why and what to change ----
case_name="a policy that reads TMPDIR's directory whole"
tmp_base=$(realpath "${TMPDIR:-/tmp}")
policy "project = \"$proj\", read = { \"$tmp_base\" }, exec = { \"sh\" }"
refused sh -c true
if ((status != 97)); then fail "exited $status, not 97"; show
elif ! hinted 'private HOME and TMPDIR are made in' "$tmp_base/" 'TMPDIR set to'; then
  fail "no hint names the private directories' place"; show
elif [[ $err == *'add write = {'* ]]; then fail "a hint offers the private HOME's random path"; show
elif allowed sh -c true; then passed=$((passed + 1)); fi

# ---- a run that exits 0: quiet, but in the attestation, --report, explain ----
case_name="a refusal in a run that exits 0"
policy 'exec = { "sh", "cat" }'
LCSB_FLAGS="--attest $work/a.json" refused sh -c "cat $outside/data.txt 2>/dev/null; true"
if ((status != 0)); then fail "exited $status"; show
elif [[ $err == *"hint:"* ]]; then fail "hints on stderr after a run that exited 0"; show
elif ! grep -q "\"target\":\"$outside/data.txt\"" "$work/a.json"; then fail "not in the attestation's refused"
else
  err=$("$LCSB" explain "$work/a.json")
  if ! hinted 'read = {' "$outside/data.txt"; then fail "lcsb explain names nothing"; show
  else
    LCSB_FLAGS=--report refused sh -c "cat $outside/data.txt 2>/dev/null; true"
    if ! hinted 'read = {' "$outside/data.txt"; then fail "--report names nothing"; show
    elif allowed cat "$outside/data.txt"; then passed=$((passed + 1)); fi
  fi
fi

# ---- a static program: no recorder, and the stderr tail still names it ----
if [[ -x /bin/busybox ]] && ! ldd /bin/busybox >/dev/null 2>&1; then
  check "a static program (stderr)" 'exec = { "/bin/busybox" }' 'read = {' "$outside/data.txt" \
    /bin/busybox cat "$outside/data.txt"
fi

# ---- a static program's exec: the recorder cannot see it, the init does ----
# spawns runs ARGV with posix_spawn (a vfork: the process that waits is the
# command's, never the init that answers) and exits with its status, or
# with the errno the exec got (13: EACCES, what Landlock answers; a watch
# that broke exec would give ENOSYS, 38). It says nothing on stderr: the
# hint must come from what the init saw.
case_name="a static program's refused exec"
if ! have gcc; then skip "gcc is not installed"; else
cat >"$proj/spawns.c" <<'EOF'
#include <spawn.h>
#include <sys/wait.h>
extern char **environ;
int main(int argc, char **argv) {
    pid_t pid;
    int ws, err = argc < 2 ? 2 : posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ);
    if (err) return err;
    if (waitpid(pid, &ws, 0) != pid) return 125;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 126;
}
EOF
if ! gcc -static -O2 -o "$proj/spawns" "$proj/spawns.c" 2>"$work/gcc.err"; then
  skip "gcc -static cannot link here: $(tail -1 "$work/gcc.err")"
elif ldd "$proj/spawns" >/dev/null 2>&1; then skip "gcc -static made a dynamic program"
elif [[ $detected != *'"seccomp_notify":true'* ]]; then
  skip "no seccomp user notification here: the init sees no exec"
else
  policy 'exec = { "./spawns" }'
  LCSB_FLAGS="--attest $work/s.json" refused ./spawns /usr/bin/id -u
  if ((status != 13)); then fail "exited $status, not 13 (EACCES from the kernel)"; show
  elif ! hinted 'exec = {' /usr/bin/id; then fail "no hint names /usr/bin/id"; show
  elif ! grep -q '"execs_seen":true' "$work/s.json"; then fail "the attestation says no exec was seen"
  elif ! grep -q '"op":"exec","key":"exec","target":"/usr/bin/id"' "$work/s.json"; then
    fail "the attestation's refused does not list /usr/bin/id"
  elif ! err=$("$LCSB" explain "$work/s.json") || ! hinted 'exec = {' /usr/bin/id; then
    fail "lcsb explain of the attestation names nothing: $err"
  elif allowed ./spawns /usr/bin/id -u; then
    # Its twin: with the program allowed, the same exec runs.
    policy 'exec = { "./spawns", "/usr/bin/id" }'
    refused ./spawns /usr/bin/id -u
    if ((status != 0)); then fail "allowed, it exited $status"; show
    else passed=$((passed + 1)); fi
  fi

  # Seen but not refused: a run that exits 0 lists no exec the init saw.
  case_name="an exec seen in a run that exits 0"
  policy 'exec = { "./spawns", "sh" }'
  LCSB_FLAGS="--attest $work/s0.json" refused sh -c './spawns /usr/bin/id -u; true'
  if ((status != 0)); then fail "exited $status"; show
  elif ! grep -q '"execs_seen":true' "$work/s0.json"; then fail "the attestation says no exec was seen"
  elif grep -q '"target":"/usr/bin/id"' "$work/s0.json"; then fail "an exec only seen is listed as refused"
  else passed=$((passed + 1)); fi

  # Go's toolchain and everything it builds are static: os/exec of a
  # program the policy does not list, found along PATH.
  case_name="go: os/exec"
  if ! have go; then skip "go is not installed"; else
    mkdir -p "$work/gorun"
    printf '%s\n' 'package main' 'import ("os"; "os/exec")' \
      'func main() { if exec.Command(os.Args[1], os.Args[2:]...).Run() != nil { os.Exit(3) } }' \
      >"$work/gorun/main.go"
    if ! (cd "$work/gorun" && GO111MODULE=off go build -o "$proj/gorun" . 2>"$work/go.err"); then
      skip "go build failed: $(tail -1 "$work/go.err")"
    else
      check "go: os/exec" 'exec = { "./gorun" }' 'exec = {' /usr/bin/id ./gorun id -u
    fi
  fi
fi
fi

# ---- 126 from the shell, about its child: not "sh could not be executed" ----
case_name="a shell's 126 is its child's"
policy 'exec = { "sh" }'
refused sh -c 'id -u'
if ((status != 126)); then fail "exited $status, not 126"; show
elif [[ $err == *"could not be executed"* ]]; then fail "the trailer blames sh"; show
elif ! hinted 'exec = {' /usr/bin/id; then fail "the child is not named"; show
elif allowed sh -c 'id -u'; then passed=$((passed + 1)); fi

# ---- another user's HOME (setpriv, sudo keep it): the caps file's refusal says so ----
begin "another user's HOME"
if [[ $(id -u) != 0 ]]; then
  skip "not root: no other user to run as"
elif ! user=$(bash "$(dirname "$0")/../support/test_user.sh"); then
  fail "no unprivileged user to run as"
else
  shared=$(mktemp -d /tmp/lcsb-hints-shared.XXXXXX)
  chmod 755 "$shared"
  mkdir -m 700 "$shared/roots" "$shared/theirs"
  mkdir -m 755 "$shared/proj"
  chown "$user" "$shared/theirs"
  printf 'return require("lcsb").exec_policy { exec = { "true" } }\n' >"$shared/proj/p.lua"
  # lcsb laid out as installed where the user can run it: the build may
  # lie in a directory of root's alone (a fresh machine's /root).
  built=$(dirname "$LCSB")
  mkdir -p "$shared/bin" "$shared/share/lua/5.4/lcsb"
  cp "$LCSB" "$built/lcsb-exec" "$built/liblcsb-record.so" "$shared/bin/"
  cp "$built/lua/lcsb/caps.lua" "$shared/share/lua/5.4/lcsb/"
  chmod -R a+rX "$shared/bin" "$shared/share"
  as() { (cd "$shared/proj" && setpriv --reuid "$user" --regid "$user" --clear-groups -- \
    env HOME="$1" XDG_STATE_HOME="$shared/theirs/state" "$shared/bin/lcsb" --no-trust-check p.lua -- true 2>&1); }
  out=$(as "$shared/roots")
  status=$?
  want="caps file $shared/roots/.config/lcsb/user.lua: cannot read it: Permission denied (HOME, $shared/roots, is another user's"
  [[ $status == 125 && $out == *"$want"* ]] || fail "HOME not named: $status $out"
  # Its twin: a HOME of the user's own, and the run goes on.
  out=$(as "$shared/theirs")
  status=$?
  [[ $status == 0 ]] || fail "the user's own HOME: $status $out"
  rm -rf "$shared"
  end
fi

# ---- root and a project of another user's (a CI runner's checkout) ----
# lcsb drops root's capabilities, and with them its way past a file's mode:
# the refusal names the owner and what to do. The twin: --backend none,
# where root writes it.
begin "root and a file of another user's"
if [[ $(id -u) != 0 ]]; then
  skip "not root"
elif ! user=$(bash "$(dirname "$0")/../support/test_user.sh"); then
  fail "no unprivileged user to own the files"
else
  theirs=$(mktemp -d /tmp/lcsb-hints-theirs.XXXXXX)
  chmod 755 "$theirs"
  echo old >"$theirs/out.txt"
  mkdir "$theirs/sub"
  printf 'return require("lcsb").exec_policy { exec = { "sh" } }\n' >"$theirs/p.lua"
  chown -R "$user" "$theirs"
  chmod 644 "$theirs/out.txt"
  err=$(cd "$theirs" && "$LCSB" --no-trust-check p.lua -- sh -c 'echo x > out.txt' 2>&1)
  status=$?
  want="refused: write of $theirs/out.txt (sh): Permission denied: it belongs to $user (uid $(id -u "$user"))"
  if ((status == 0)); then fail "it was not refused"
  elif [[ $err != *"$want"* || $err != *"run lcsb as $user, or make root the owner (chown -R root $theirs)"* ]]; then
    fail "the owner is not named: $err"
  else
    err=$(cd "$theirs" && "$LCSB" --no-trust-check p.lua -- sh -c 'echo x > sub/new.txt' 2>&1)
    [[ $err == *"write of $theirs/sub/new.txt (sh): Permission denied: its directory belongs to $user"* ]] ||
      fail "a file made in their directory: $err"
    (cd "$theirs" && "$LCSB" --no-trust-check --backend none p.lua -- sh -c 'echo x > out.txt') ||
      fail "root cannot write it unsandboxed either"
  fi
  rm -rf "$theirs"
  end
fi

# ---- lcsb's lines start a line of their own ----
case_name="the trailer on a fresh line"
policy 'exec = { "sh" }'
refused sh -c "printf 'no newline' >&2; exit 3"
if [[ $err != *$'no newline\nlcsb: sh exited 3'* ]]; then fail "the trailer shares the command's line"; show
else passed=$((passed + 1)); fi

# ---- a command that keeps the recorder's pipe full: lcsb still relays
# its stderr as it comes, and ends when it ends ----
case_name="a flood of records"
if ! have gcc; then skip "gcc is not installed"; else
policy 'exec = { "./flood" }'
cat >"$proj/flood.c" <<'EOF'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int fd;
static char chunk[65536];
static void *flood(void *unused) { /* the pipe kept full, faster than lcsb reads it */
    for (unsigned long n = 0;;) {
        size_t len = 0;
        while (len < sizeof chunk - 64)
            len += (size_t)snprintf(chunk + len, 64, "read\t13\t1\tflood\t/srv/flood/%lu\n", n++);
        if (write(fd, chunk, len) < 0) return unused;
    }
}
int main(void) {
    pthread_t t;
    fd = atoi(getenv("LCSB_RECORD_FD"));
    fcntl(fd, F_SETFL, 0); /* wait for room */
    pthread_create(&t, NULL, flood, NULL);
    usleep(300000);
    fputs("tick\n", stderr);
    sleep(2);
    return 0;
}
EOF
gcc -O2 -pthread -o "$proj/flood" "$proj/flood.c"
started=$(date +%s%N)
(cd "$proj" && timeout 20 "$LCSB" --no-trust-check policy.lua -- ./flood 2>&1 >/dev/null) |
  while IFS= read -r l; do
    [[ $l == tick ]] && echo $((($(date +%s%N) - started) / 1000000)) >"$work/tick_ms"
  done
status=${PIPESTATUS[0]}
tick_ms=$(cat "$work/tick_ms" 2>/dev/null || echo never)
if [[ $tick_ms == never ]] || ((tick_ms > 1800)); then fail "stderr's tick came after $tick_ms ms"
elif ((status != 0)); then fail "exited $status (124: lcsb did not end)"
else passed=$((passed + 1)); fi
fi

echo "$passed passed, $failed failed, $skipped skipped" >&2
((failed == 0))
