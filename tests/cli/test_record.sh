#!/usr/bin/env bash
# The recorder (shim/record.c, liblcsb-record.so) preloaded into real
# programs whose calls the kernel refuses for real: a file of mode 000, a
# directory of mode 555, a file that is not executable, a privileged port,
# a read-only mount, a world's tmpfs. Each case asserts the exact records
# (OP, ERRNO, PROGRAM, TARGET; the PID is only checked to be a number),
# what is not recorded, and that the programs get what they would have got
# without the recorder. Then lcsb itself, which finds the library beside
# its shim, records a refusal into the attestation.
#
# Usage: test_record.sh BUILD_DIR RECORD_PROBE. Run as root, the programs
# run as the user lcsbtest (made by tests/support/test_user.sh when missing), since
# root passes over a file's mode; the cases that need root or a mount
# namespace say they are skipped without them.
set -uo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/lcsb-record.XXXXXX)
trap 'chmod -R u+rwX "$work" 2>/dev/null; rm -rf "$work"' EXIT
export PATH=/usr/bin:/bin
failed=0 passed=0 skipped=0 case_failed=0 case_name=

fail() { echo "FAIL $case_name: $*" >&2; case_failed=1; }
skip() { echo "# skipped $case_name: $*" >&2; skipped=$((skipped + 1)); }
begin() { case_name=$1 case_failed=0; }
end() {
  if ((case_failed)); then failed=$((failed + 1)); else passed=$((passed + 1)); fi
}

# The user the programs run as, who must not pass over a file's mode.
if [[ $(id -u) == 0 ]]; then
  user=$(bash "$(dirname "$0")/../support/test_user.sh") || { echo "FAIL: no unprivileged user to run as" >&2; exit 1; }
  as_user() { setpriv --reuid "$user" --regid "$user" --clear-groups -- "$@"; }
  root=1
else
  as_user() { "$@"; }
  root=0
fi

# The library and the probe as the built files, copied where that user can
# read them (a build tree under a private HOME would not be).
w=$work/w
mkdir -p "$w"
chmod 755 "$work" "$w"
cp "$build/liblcsb-record.so" "$work/liblcsb-record.so"
cp "$2" "$work/record_probe"
lib=$work/liblcsb-record.so
probe=$work/record_probe
log=$work/log

# The fixtures: what the user may not read, write, list or run.
(
  cd "$w" || exit 1
  echo secret >secret && chmod 000 secret
  mkdir -p ro/sub at closed bin && echo file >ro/file && chmod 555 ro && chmod 000 closed
  echo secret >at/secret && chmod 000 at/secret
  ln -s /etc/passwd rootfile # chmod and chown follow it to a file of root's
  printf '#!/bin/sh\necho ran\n' >noexec && chmod 644 noexec && cp noexec bin/noexec
  printf '#!%s/noexec\n' "$w" >viaint && chmod 755 viaint # its interpreter cannot run
  mkdir fake && cp viaint fake/as # an assembler gcc finds executable, and cannot run
  printf 'all:\n\t./viaint\n' >Makefile
  printf 'int main(void) { return 0; }\n' >hello.c
  printf 'secret\n' >"we	ird
na%me x" && chmod 000 "we	ird
na%me x"
  cp /usr/bin/cat "c at%"
)
if [[ $root == 1 ]]; then chown "$user" "$w/hello.c" "$w/Makefile"; fi

# ARGV (VAR=VALUE words first, as env(1) takes them) as the user, in $w,
# with the recorder preloaded and its records appended to $log on fd 9,
# opened O_APPEND.
rec() {
  : >"$log"
  chmod 666 "$log"
  as_user env LOG="$log" LIB="$lib" W="$w" bash -c \
    'exec 9>>"$LOG" && cd "$W" && LD_PRELOAD=$LIB LCSB_RECORD_FD=9 exec env "$@"' _ "$@"
}

# The records without their PID, after checking that every line has five
# fields and a PID.
fields() {
  if awk -F'\t' 'NF != 5 || $3 !~ /^[0-9]+$/ { bad = 1 } END { exit !bad }' "$log"; then
    fail "a malformed record: $(cat -A "$log")"
  fi
  cut -f1,2,4,5 "$log"
}

expect() { # LINE...: each is among the records
  local have
  have=$(fields)
  for line in "$@"; do
    grep -Fxq -- "$line" <<<"$have" || fail "no record \"$line\" in: $(cat -A "$log")"
  done
}

expect_only() { # LINE...: the records are these, in any order
  local have want
  have=$(fields | sort)
  want=$(printf '%s\n' "$@" | sort)
  [[ $have == "$want" ]] || fail "records differ: want $(cat -A <<<"$want") have $(cat -A "$log")"
}

expect_none() {
  [[ ! -s $log ]] || fail "records where none belong: $(cat -A "$log")"
}

T=$'\t'

begin "read, write and exec refused, relative paths joined to the working directory"
rec cat secret 2>/dev/null
expect_only "read${T}13${T}cat${T}$w/secret"
rec sh -c 'echo hi > ro/x' 2>/dev/null
expect_only "write${T}13${T}sh${T}$w/ro/x"
rec sh -c ./noexec 2>/dev/null
expect_only "exec${T}13${T}sh${T}$w/noexec"
rec bash -c 'echo hi > ro/bash' 2>/dev/null
expect_only "write${T}13${T}bash${T}$w/ro/bash"
# A search along PATH: the candidate that could not run.
rec PATH="$w/bin:/usr/bin" noexec 2>/dev/null
expect_only "exec${T}13${T}env${T}$w/bin/noexec"
end

begin "every wrapped call: the same return and errno as without the recorder, and its record"
as_user "$probe" calls "$w" >"$work/without" 2>&1
rec "$probe" calls "$w" >"$work/with" 2>&1
if ! diff "$work/without" "$work/with" >&2; then fail "the recorder changed what the calls returned"; fi
# What each call is recorded as: its op and target; "-" when it only asks.
declare -A kind=([open]="read secret" [open-create]="write ro/new" [openat]="read at/secret"
  [creat]="write ro/creat" [fopen]="read secret" [fopen-w]="write ro/fopen" [opendir]="read closed"
  [mkdir]="write ro/mkdir" [mkdirat]="write ro/mkdirat" [unlink]="write ro/file"
  [unlinkat]="write ro/sub" [rmdir]="write ro/sub" [rename]="write ro/file write renamed"
  [renameat]="write ro/file write renamed" [link]="write ro/link" [symlink]="write ro/symlink"
  [truncate]="write secret" [chmod]="write rootfile" [fchmodat]="write rootfile"
  [chown]="write rootfile" [utimes]="write rootfile" [mkfifo]="write ro/fifo"
  [mknod]="write ro/node" [stat]="-" [access]="-" [access-x]="-" [execve]="exec secret"
  [execv-relative]="exec secret")
want=()
while read -r call ret err; do
  [[ -n ${kind[$call]+x} ]] || { fail "the probe made a call this test does not know: $call"; continue; }
  [[ ($ret == -1 || $ret == null) && ($err == 1 || $err == 13 || $err == 30) ]] || {
    [[ ${kind[$call]} == - ]] || fail "$call did not fail as a refusal: $ret $err"
    continue
  }
  set -- ${kind[$call]}
  while (($# >= 2)); do
    want+=("$1${T}$err${T}record_probe${T}$w/$2")
    shift 2
  done
done <"$work/without"
# One record for the same op, errno and target in one process.
mapfile -t want < <(printf '%s\n' "${want[@]}" | sort -u)
expect_only "${want[@]}"
[[ ${#want[@]} -ge 15 ]] || fail "only ${#want[@]} distinct refusals: the fixtures did not refuse"
end

begin "*at calls resolve their descriptor"
rec "$probe" execveat "$w/bin" noexec >/dev/null
expect_only "exec${T}13${T}record_probe${T}$w/bin/noexec"
end

begin "PROGRAM and TARGET escape tabs, newlines, spaces and %"
rec "./c at%" "we	ird
na%me x" 2>/dev/null
expect_only "read${T}13${T}c%20at%25${T}$w/we%09ird%0Ana%25me%20x"
end

begin "in a world of its own: a path missing where a tmpfs is, never one missing under /usr"
unshare_m=(unshare -m)
[[ $root == 1 ]] || unshare_m=(unshare -rm)
mkdir -p "$w/tmpfs"
absent() { # VALUE of LCSB_RECORD_ABSENT, ARGV run in a mount namespace with a tmpfs at $w/tmpfs
  local value=$1
  shift
  : >"$log"
  "${unshare_m[@]}" env LOG="$log" LIB="$lib" W="$w" ABSENT="$value" bash -c \
    'mount -t tmpfs none "$W/tmpfs" && mkdir "$W/tmpfs/d" && echo f >"$W/tmpfs/d/file" &&
     exec 9>>"$LOG" && LD_PRELOAD=$LIB LCSB_RECORD_FD=9 LCSB_RECORD_ABSENT=$ABSENT exec "$@"' \
    _ "$@" 2>/dev/null
}
if ! "${unshare_m[@]}" true 2>/dev/null; then
  skip "no mount namespace here"
else
  missing=("$w/tmpfs/d/missing" "$w/tmpfs/gone/deeper/x" "$w/tmpfs/d/file/x"
    /usr/include/lcsb-no-such-header.h /usr/lib/lcsb-no-such-dir/x)
  absent 1 cat "${missing[@]}"
  want=("read${T}2${T}cat${T}$w/tmpfs/d/missing" "read${T}2${T}cat${T}$w/tmpfs/gone/deeper/x"
    "read${T}20${T}cat${T}$w/tmpfs/d/file/x")
  if [[ $(stat -f -c %T /usr) == tmpfs ]]; then
    echo "# /usr is a tmpfs here: its missing paths are recorded too" >&2
    expect "${want[@]}"
  else
    expect_only "${want[@]}"
  fi
  # What only asks (ls's statx) is recorded there too; its EACCES never is.
  absent 1 ls "$w/tmpfs/nothing"
  expect_only "read${T}2${T}ls${T}$w/tmpfs/nothing"
  # Outside a world of its own a missing path is the command's business.
  absent 0 cat "${missing[@]}"
  expect_none
fi
end

begin "no usable LCSB_RECORD_FD: no record, and the program runs as it would"
for variant in "unset" "9x" "2" "8" "read-only" "truncating" "blocking pipe"; do
  : >"$log"
  chmod 666 "$log"
  status=0
  case $variant in
  unset) as_user env LOG="$log" LIB="$lib" W="$w" bash -c \
    'exec 9>>"$LOG" && cd "$W" && LD_PRELOAD=$LIB exec cat secret' 2>/dev/null || status=$? ;;
  read-only) as_user env LOG="$log" LIB="$lib" W="$w" bash -c \
    'exec 9<"$LOG" && cd "$W" && LD_PRELOAD=$LIB LCSB_RECORD_FD=9 exec cat secret' 2>/dev/null ||
    status=$? ;;
  truncating) as_user env LOG="$log" LIB="$lib" W="$w" bash -c \
    'exec 9>"$LOG" && cd "$W" && LD_PRELOAD=$LIB LCSB_RECORD_FD=9 exec cat secret' 2>/dev/null ||
    status=$? ;;
  "blocking pipe") as_user env LOG="$log" LIB="$lib" W="$w" bash -c \
    'cd "$W" && LD_PRELOAD=$LIB LCSB_RECORD_FD=9 cat secret 9> >(cat >>"$LOG")' 2>/dev/null ||
    status=$?
    sleep 0.2 ;;
  2) as_user env LOG="$log" LIB="$lib" W="$w" bash -c \
    'exec 2>>"$LOG" && cd "$W" && LD_PRELOAD=$LIB LCSB_RECORD_FD=2 exec cat secret' || status=$? ;;
  *) as_user env LOG="$log" LIB="$lib" W="$w" N="$variant" bash -c \
    'exec 9>>"$LOG" && cd "$W" && LD_PRELOAD=$LIB LCSB_RECORD_FD=$N exec cat secret' 2>/dev/null ||
    status=$? ;;
  esac
  [[ $status == 1 ]] || fail "$variant: cat exited $status"
  if grep -q "${T}cat${T}" "$log"; then fail "$variant: recorded: $(cat -A "$log")"; fi
done
end

begin "a full pipe loses records and never makes the program wait"
as_user python3 - "$lib" "$probe" "$w/closed" <<'EOF' || fail "see above"
import os, subprocess, sys, time
lib, probe, closed = sys.argv[1:]
r, w = os.pipe2(os.O_NONBLOCK)
try:
    while True:
        os.write(w, b"x" * 4096)
except BlockingIOError:
    pass
env = dict(os.environ, LD_PRELOAD=lib, LCSB_RECORD_FD=str(w))
start = time.monotonic()
run = subprocess.run([probe, "flood", "3000", closed], env=env, pass_fds=[w],
                     capture_output=True, text=True, timeout=60)
took = time.monotonic() - start
if run.returncode != 0 or run.stdout != "refused 3000\n" or took > 10:
    sys.exit(f"flood: status {run.returncode}, {run.stdout!r}, {took:.1f} s")
# Drained, the pipe takes records again.
while True:
    try:
        os.read(r, 1 << 20)
    except BlockingIOError:
        break
run = subprocess.run([probe, "flood", "3", closed], env=env, pass_fds=[w], capture_output=True)
lines = os.read(r, 1 << 20).decode().splitlines()
if len(lines) != 3 or not all(l.startswith("read\t13\t") for l in lines):
    sys.exit(f"after draining: {lines!r}")
EOF
end

begin "closing every descriptor, or taking the recorder's number, keeps it recording"
for how in closefrom close_range close; do
  rec "$probe" "$how" "$w/secret" >"$work/out"
  expect_only "read${T}13${T}record_probe${T}$w/secret"
done
grep -qx "close of the recorder's 0" "$work/out" || fail "close: $(cat "$work/out")"
rec python3 -c 'import os, subprocess
os.closerange(3, 65536)
try: open("secret")
except PermissionError: pass
subprocess.run(["cat", "at/secret"], stderr=subprocess.DEVNULL)'
expect_only "read${T}13${T}python3${T}$w/secret" "read${T}13${T}cat${T}$w/at/secret"
# dup2 onto its number moves it, and the program it runs is told where to.
rec "$probe" dup2 "$w/secret" cat "$w/at/secret" >"$work/out" 2>/dev/null
grep -qx "moved yes" "$work/out" || fail "dup2: $(cat "$work/out")"
expect_only "read${T}13${T}record_probe${T}$w/secret" "read${T}13${T}cat${T}$w/at/secret"
# A program that names a descriptor of its own is left to it.
: >"$work/own"
chmod 666 "$work/own"
rec sh -c "exec 8>>'$work/own'; LCSB_RECORD_FD=8 cat secret" 2>/dev/null
expect_none
grep -q "^read${T}13${T}[0-9]*${T}cat${T}$w/secret\$" "$work/own" ||
  fail "the program's own LCSB_RECORD_FD was not taken: $(cat -A "$work/own")"
# A vfork child's failed exec is recorded, and its parent goes on recording.
rec "$probe" vfork "$w/noexec" >"$work/out"
grep -qx "vfork child 13" "$work/out" || fail "vfork: $(cat "$work/out")"
expect_only "exec${T}13${T}record_probe${T}$w/noexec"
end

begin "python subprocess"
rec PATH="$w/bin:/usr/bin" python3 -c 'import subprocess
for argv in (["./noexec"], ["noexec"]):
    try: subprocess.run(argv)
    except PermissionError: pass'
expect_only "exec${T}13${T}python3${T}$w/noexec" "exec${T}13${T}python3${T}$w/bin/noexec"
end

begin "node child_process.spawnSync"
if ! command -v node >/dev/null; then
  skip "no node"
else
  rec PATH="$w/bin:/usr/bin" node -e 'const cp = require("child_process");
    for (const f of ["./noexec", "noexec"]) {
      const r = cp.spawnSync(f, { env: process.env });
      if (!r.error || r.error.code !== "EACCES") process.exit(3);
    }' || fail "node: spawnSync did not fail with EACCES"
  expect_only "exec${T}13${T}node${T}$w/noexec" "exec${T}13${T}node${T}$w/bin/noexec"
fi
end

begin "make, xargs, gcc and git"
rec make >/dev/null 2>&1
expect_only "exec${T}13${T}make${T}$w/viaint"
rec sh -c 'echo x | xargs ./noexec' 2>/dev/null
expect_only "exec${T}13${T}xargs${T}$w/noexec"
if command -v gcc >/dev/null; then
  rec gcc -c hello.c -o ro/hello.o 2>/dev/null
  expect_only "write${T}13${T}as${T}$w/ro/hello.o"
  # The driver's own vfork and execv.
  rec gcc -B"$w/fake/" -c hello.c -o hello.o 2>/dev/null
  expect_only "exec${T}13${T}gcc${T}$w/fake/as"
fi
if command -v git >/dev/null; then
  rec git init -q ro/repo 2>/dev/null
  expect_only "write${T}13${T}git${T}$w/ro/repo"
fi
end

begin "sockets"
rec python3 -c 'import socket
def tried(f, *a):
    try: f(*a)
    except PermissionError: pass
tried(socket.socket(socket.AF_INET, socket.SOCK_DGRAM).connect, ("255.255.255.255", 9))
tried(socket.socket, socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
tried(socket.socket(socket.AF_UNIX).bind, "ro/sock")'
expect_only "connect${T}13${T}python3${T}255.255.255.255:9" "socket${T}1${T}python3${T}inet/raw" \
  "bind${T}13${T}python3${T}$w/ro/sock"
if (($(cat /proc/sys/net/ipv4/ip_unprivileged_port_start) > 81)); then
  rec python3 -c 'import socket
try: socket.socket().bind(("127.0.0.1", 80))
except PermissionError: pass
try: socket.socket(socket.AF_INET6).bind(("::1", 81))
except PermissionError: pass
except OSError: print("no IPv6")' >"$work/out"
  if grep -q "no IPv6" "$work/out"; then
    expect_only "bind${T}13${T}python3${T}127.0.0.1:80"
  else
    expect_only "bind${T}13${T}python3${T}127.0.0.1:80" "bind${T}13${T}python3${T}[::1]:81"
  fi
fi
if [[ $root == 1 ]]; then
  python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$w/sock"
  rec python3 -c 'import socket
try: socket.socket(socket.AF_UNIX).connect("sock")
except PermissionError: pass'
  expect_only "connect${T}13${T}python3${T}$w/sock"
fi
end

begin "a lookup that fails is a connect to the name; one that works, nothing"
unshare_n=(unshare -n)
[[ $root == 1 ]] || unshare_n=(unshare -rn)
if ! "${unshare_n[@]}" true 2>/dev/null; then
  skip "no network namespace here"
else
  : >"$log"
  "${unshare_n[@]}" env LOG="$log" LIB="$lib" bash -c \
    'exec 9>>"$LOG" && LD_PRELOAD=$LIB LCSB_RECORD_FD=9 exec python3 -c "
import socket
socket.getaddrinfo(\"127.0.0.1\", 80)
for name, port in ((\"lcsb-record.invalid\", \"https\"), (\"other.invalid\", None)):
    try: socket.getaddrinfo(name, port)
    except socket.gaierror: pass"'
  have=$(cut -f1,4,5 "$log" | sort)
  want=$(printf 'connect\tpython3\tlcsb-record.invalid:443\nconnect\tpython3\tother.invalid:0\n')
  [[ $have == "$want" ]] || fail "records differ: want $(cat -A <<<"$want") have $(cat -A "$log")"
fi
end

begin "EROFS on a read-only mount"
if ! "${unshare_m[@]}" true 2>/dev/null; then
  skip "no mount namespace here"
else
  mkdir -p "$w/mnt"
  : >"$log"
  "${unshare_m[@]}" env LOG="$log" LIB="$lib" W="$w" bash -c \
    'mount --bind -o ro "$W/bin" "$W/mnt" && exec 9>>"$LOG" && cd "$W/mnt" &&
     LD_PRELOAD=$LIB LCSB_RECORD_FD=9 exec touch new' 2>/dev/null
  expect_only "write${T}30${T}touch${T}$w/mnt/new"
fi
end

begin "the library exports the functions it wraps and nothing else"
wrapped="__open64_2 __open_2 __openat64_2 __openat_2 access bind chmod chown close close_range
closefrom connect creat creat64 dup2 dup3 execl execle execlp execv execve execveat execvp execvpe
faccessat fchmodat fchownat fexecve fopen fopen64 freopen freopen64 fstatat fstatat64 getaddrinfo lchown link
linkat lstat lstat64 mkdir mkdirat mkfifo mkfifoat mknod mknodat open open64 openat openat64
opendir posix_spawn posix_spawn_file_actions_addclose posix_spawn_file_actions_adddup2
posix_spawn_file_actions_addopen posix_spawnp rename renameat renameat2 rmdir socket stat stat64
statx symlink symlinkat truncate truncate64 unlink unlinkat utime utimensat utimes"
wrapped=$(tr ' ' '\n' <<<"$wrapped" | grep . | LC_ALL=C sort | tr '\n' ' ')
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | LC_ALL=C sort | tr '\n' ' ')
[[ $exported == "$wrapped" ]] || fail "exports differ: $exported"
ldd "$lib" | grep -v -e linux-vdso -e 'libc\.so' -e ld-linux | grep . &&
  fail "links more than libc"
end

begin "lcsb records a refusal into the attestation, and --report says something"
detected=$("$build/lcsb" detect --json 2>/dev/null)
if [[ $detected != *'"landlock_abi":'[1-9]* ]]; then
  skip "no Landlock here"
else
  project=$work/project
  mkdir -p "$project"
  printf 'local lcsb = require "lcsb"; return lcsb.exec_policy { exec = { "/bin/sh", "/usr/bin/cat" } }\n' \
    >"$project/policy.lua"
  # A path that exists on the host, outside the policy: /etc/hostname is
  # read, /srv (or /opt) is where a file is written.
  outside=/srv
  [[ -d $outside ]] || outside=/opt
  (cd "$project" && "$build/lcsb" --no-trust-check --attest a.json policy.lua -- \
    /bin/sh -c "cat /etc/hostname >/dev/null; echo hi > $outside/lcsb-record-test") 2>"$work/err"
  grep -q '"recorded":true' "$project/a.json" || fail "not recorded: $(cat "$project/a.json")"
  grep -q "\"refused\":\[{\"op\":\"write\",\"key\":\"write\",\"target\":\"$outside/lcsb-record-test\"" \
    "$project/a.json" || fail "no refusal of $outside: $(cat "$project/a.json")"
  # What --report prints is worded elsewhere (lua/lcsb/remedies.lua): here
  # only that it prints something beside the trailer. ls is outside the
  # policy's exec.
  (cd "$project" && "$build/lcsb" --no-trust-check --report policy.lua -- \
    /bin/sh -c "ls / >/dev/null; echo hi > $outside/lcsb-record-test") 2>"$work/err"
  grep '^lcsb: ' "$work/err" | grep -vq ' exited ' ||
    fail "--report printed nothing: $(cat "$work/err")"
  # A program built with AddressSanitizer starts although the recorder is
  # loaded before its runtime (the shim sets verify_asan_link_order=0).
  if gcc -fsanitize=address -o "$work/asan" "$w/hello.c" 2>/dev/null; then
    printf 'return require("lcsb").exec_policy { exec = { "%s" } }\n' "$work/asan" \
      >"$project/asan.lua"
    (cd "$project" && "$build/lcsb" --no-trust-check asan.lua -- "$work/asan") 2>"$work/err" ||
      fail "an AddressSanitizer program did not start: $(cat "$work/err")"
  fi
  [[ ! -e $outside/lcsb-record-test ]] || fail "the command wrote $outside"
fi
end

echo "# test_record: $passed passed, $failed failed, $skipped skipped" >&2
((failed == 0))
