#!/usr/bin/env bash
# The unprivileged user the suites run programs as, made when missing:
# prints its name (lcsbtest). Root passes over a file's mode, so a refusal
# the kernel makes on modes is seen only as another user. A suite calls this
# before it needs the user, and depends on no earlier run having made it.
# Exits 1, naming why, where the user cannot be made (not root, no useradd).
set -euo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
user=lcsbtest
if ! id "$user" >/dev/null 2>&1; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "test_user.sh: the user $user does not exist, and only root can make it" >&2
    exit 1
  fi
  # Two suites may ask at once (ctest -j): the loser finds the user made.
  useradd --create-home --user-group --shell /usr/sbin/nologin "$user" 2>/dev/null ||
    id "$user" >/dev/null 2>&1 || {
    echo "test_user.sh: cannot make the user $user (useradd failed)" >&2
    exit 1
  }
fi
echo "$user"
