#!/usr/bin/env bash
# The README's two commands on a machine that has never seen lcsb: a clean
# Debian 12 root made from Debian's packages (mmdebstrap, minbase: no
# compiler, no git, no users but root), the committed HEAD cloned into it,
# then `./scripts/demo.sh` and `./scripts/test.sh` run there as root, as a
# newcomer would. The exit status is theirs.
#
# A fresh clone on a used machine is not this: the users, packages and caches
# earlier runs left behind make a broken install step pass. Here nothing is
# left from an earlier run but the root's tarball and the .deb files apt
# downloaded, kept in the cache (downloads only: every package is installed
# again, from nothing, on every run).
#
# The machine is a mount, PID, UTS and IPC namespace of its own around that
# root (pivot_root, so the kernel lets it make user namespaces, which it
# refuses to a chroot), with its own /proc, /run and /tmp, the host's /sys
# (the cgroups podman uses) and /dev, the host's kernel (Landlock is the
# kernel's), and the host's network (apt and npm must reach their mirrors:
# its resolver, and the certificate authorities the host added).
# Inside it the suites make their own user, mount and network namespaces and
# run podman, as on a real machine.
#
# Usage: scripts/fresh-machine.sh [--refresh] [--keep] [--run COMMAND]
#   --refresh  make the root's tarball again (it is made once, then reused)
#   --keep     leave the machine's directory for a look afterwards
#   --run      run COMMAND (bash, in /root/lcsb) there instead, to look into
#              a failure
# LCSB_FRESH_CACHE names the cache (default ~/.cache/lcsb/fresh-machine);
# LCSB_SANDBOX_TESTS_REQUIRED and LCSB_FUZZ_SECONDS pass into the machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
refresh=0 keep=0 run=
while (($#)); do
  case $1 in
    --refresh) refresh=1 ;;
    --keep) keep=1 ;;
    --run) run=${2:?--run needs a command}; shift ;;
    *) echo "usage: scripts/fresh-machine.sh [--refresh] [--keep] [--run COMMAND]" >&2; exit 2 ;;
  esac
  shift
done
say() { echo "fresh-machine: $*" >&2; }
[[ $(id -u) -eq 0 ]] || { say "run it as root: it makes a root file system and mounts it"; exit 2; }

source "$root/scripts/deps.sh"
lcsb_install_deps mmdebstrap git util-linux

cache=${LCSB_FRESH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lcsb/fresh-machine}
base=$cache/debian12-minbase.tar
archives=$cache/apt-archives
mkdir -p "$cache" "$archives/partial"

started=$SECONDS
if [[ $refresh == 1 || ! -s $base ]]; then
  say "making a clean Debian 12 root (mmdebstrap, minbase) into $base"
  mirror=http://deb.debian.org/debian
  mmdebstrap --quiet --variant=minbase --format=tar bookworm "$base.new" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  mv "$base.new" "$base"
else
  say "the clean root from the cache: $base (--refresh makes it again)"
fi

# On disk, not on a tmpfs or an overlay: podman keeps its overlay storage in
# the machine's /var/lib/containers, which an overlay under it would refuse.
machine=$(mktemp -d /var/tmp/lcsb-fresh-machine.XXXXXX)
cleanup() {
  if [[ $keep == 1 ]]; then say "the machine is left in $machine"; else rm -rf "$machine"; fi
}
trap cleanup EXIT
tar -xf "$base" -C "$machine"

head=$(git -C "$root" rev-parse HEAD)
if [[ -n $(git -C "$root" status --porcelain) ]]; then
  say "the working tree has changes that are not committed: they are not part of this proof"
fi
git clone -q --no-hardlinks "$root" "$machine/root/lcsb"
git -C "$machine/root/lcsb" checkout -q --detach "$head"
say "cloned $head into the machine's /root/lcsb"

# What a Debian installer writes and mmdebstrap leaves to the host: the
# machine's name, resolving to its loopback, and where names are asked.
echo fresh-machine >"$machine/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tfresh-machine\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
  >"$machine/etc/hosts"
cp -L /etc/resolv.conf "$machine/etc/resolv.conf"
# A network that inspects TLS on its way out (this project's CI machines'
# does) is reached only with its certificate authority: the host's own
# additions, which ca-certificates takes in when the machine installs it.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$machine/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$machine/usr/local/share/ca-certificates/"
fi

# The commands, as root's login shell on that machine runs them.
if [[ -n $run ]]; then
  printf 'set -euo pipefail\ncd /root/lcsb\n%s\n' "$run" >"$machine/root/newcomer.sh"
else
  printf '%s\n' 'set -euo pipefail' 'cd /root/lcsb' 'echo "== ./scripts/demo.sh"' \
    './scripts/demo.sh' 'echo "== ./scripts/test.sh"' './scripts/test.sh' >"$machine/root/newcomer.sh"
fi

# Inside new namespaces: mount the machine's file systems, pivot into it, and
# run the commands with a login's environment (the caller's is not theirs).
pass=()
for name in LCSB_SANDBOX_TESTS_REQUIRED LCSB_FUZZ_SECONDS; do
  [[ -n ${!name:-} ]] && pass+=("$name=${!name}")
done
say "running the README's commands in it (${pass[*]:-no variables passed})"
set +e
unshare --mount --pid --fork --uts --ipc --propagation private \
  env MACHINE="$machine" ARCHIVES="$archives" bash -euo pipefail -c '
    hostname fresh-machine
    mount --bind "$MACHINE" "$MACHINE"
    mount -t proc proc "$MACHINE/proc"
    mount --rbind /sys "$MACHINE/sys"
    mount --rbind /dev "$MACHINE/dev"
    mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$MACHINE/run"
    mount --bind "$ARCHIVES" "$MACHINE/var/cache/apt/archives"
    cd "$MACHINE"
    mkdir .old-root
    pivot_root . .old-root
    cd /
    umount -l /.old-root
    rmdir /.old-root
    exec env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@" \
      bash -l /root/newcomer.sh
  ' _ "${pass[@]}"
status=$?
set -e
elapsed=$((SECONDS - started))
if [[ -n $run ]]; then
  say "--run exited $status"
elif [[ $status -eq 0 ]]; then
  say "passed: the README's commands on a fresh Debian 12 root, in $((elapsed / 60)) min $((elapsed % 60)) s"
else
  say "FAILED (exit $status) after $((elapsed / 60)) min $((elapsed % 60)) s"
fi
exit "$status"
