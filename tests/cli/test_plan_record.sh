#!/usr/bin/env bash
# Plans (issue 28): what a plan's record holds beyond the files and
# directories its composition looked up, each proven by a case that keeps
# a plan, changes that one thing, and shows the next run composes again
# and enforces the new answer: a file read through symlinks (each link on
# the way), a file the composition could not read (its own times), who
# asks (their groups) and the mounts they see (a remount), and a file the
# kernel makes up (no plan kept at all).
#
# Usage: test_plan_record.sh LCSB. LCSB_SANDBOX_TESTS_REQUIRED=1 makes a
# missing mechanism a failure.
# The remount below stays the suite's own: a plan's key holds the mounts
# its caller sees, and the suites running beside this one keep plans too.
if [[ $(id -u) == 0 && -z ${LCSB_PLAN_RECORD_OWN_MOUNTS:-} ]]; then
  LCSB_PLAN_RECORD_OWN_MOUNTS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/plans_lib.sh" "$@"

# A pyenv at $tools/pyenv (R) with VERSIONS..., each version's python3
# printing "python V", and the policy of every case: python3. At run time
# the shim runs the version named by the command's first argument, which
# the composition never reads: the kernel then says which version the
# policy lets run. Its ROOT/version (no .python-version in the project) is
# each case's own.
fake_pyenv() { # VERSIONS...
  R=$tools/pyenv
  mkdir -p "$R/shims" "$R/libexec"
  for v in "$@"; do
    mkdir -p "$R/versions/$v/bin"
    script "$R/versions/$v/bin/python3" /bin/sh python "$v"
  done
  printf '#!/bin/sh\nexec "%s/libexec/pyenv" exec python3 "$@"\n' "$R" >"$R/shims/python3"
  printf '#!/bin/sh\nshift 2; v=$1; shift; exec "%s/versions/$v/bin/python3" "$@"\n' "$R" \
    >"$R/libexec/pyenv"
  chmod 755 "$R/shims/python3" "$R/libexec/pyenv"
  printf 'return require("lcsb").exec_policy { exec = { "python3" } }\n' >"$proj/policy.lua"
}

# ---- what the composition read through symlinks ----
begin "a file the composition read through symlinks: each link on the way"
fresh links
# ROOT/version is a link to a link, in a directory of its own, to the file
# that names a version.
fake_pyenv A B
mkdir -p "$tools/hop" "$tools/files"
echo A >"$tools/files/vA"
echo B >"$tools/files/vB"
ln -s "$tools/files/vA" "$tools/hop/v"
ln -s "$tools/hop/v" "$R/version"
export PATH=$R/shims:/usr/bin:/bin
kept_then_used python3
runs() { # VERSION: the kernel lets the command run that version's program
  (cd "$proj" && "$LCSB" --no-trust-check policy.lua -- python3 "$1" >"$work/out" 2>&1) &&
    [[ $(cat "$work/out") == "python $1" ]]
}
runs A || fail "version A not allowed at first"
! runs B || fail "version B allowed at first"
# The link halfway re-pointed; nothing else the composition read changed.
ln -s "$tools/files/vB" "$tools/hop/v.new" && mv -T "$tools/hop/v.new" "$tools/hop/v"
settle
expect_plan "composed (" python3
runs B || fail "version B not allowed once the link names it"
! runs A || fail "version A still allowed once the link names B"
export PATH=/usr/bin:/bin
end

# ---- a file the composition could not read (another user's run) ----
# Root reads past a file's mode: the refusal is seen only as another user.
begin "a file the composition could not read, then could: its own times"
if other_user; then
  fresh unreadable
  chmod 755 "$work" "$work/unreadable"
  fake_pyenv B
  mkdir -p "$work/unreadable/state" "$work/unreadable/home"
  # pyenv global B, with root's umask 077: the user cannot read it.
  (umask 077 && echo B >"$R/version")
  chown -R "$user:" "$proj" "$work/unreadable/state" "$work/unreadable/home"
  lcsb_for_user=$(user_lcsb)
  as_user() { # ARGV...: lcsb as the user, in the project
    (cd "$proj" && setpriv --reuid "$user" --regid "$user" --clear-groups -- env -i \
      HOME="$work/unreadable/home" XDG_STATE_HOME="$work/unreadable/state" \
      PATH="$R/shims:/usr/bin:/bin" "$lcsb_for_user" "$@" 2>&1)
  }
  user_plan() { as_user check --no-trust-check policy.lua -- python3 | sed -n '/^plan:/{n;s/^  //;p}'; }
  settle
  [[ $(user_plan) == "composed (no plan kept yet); kept for the runs after"* ]] ||
    fail "not kept: $(user_plan)"
  [[ $(user_plan) == "kept plan used"* ]] || fail "not used: $(user_plan)"
  [[ $(as_user --no-trust-check policy.lua -- python3 B) != "python B" ]] ||
    fail "version B ran while the user could not read ROOT/version"
  # Made readable: no name in its directory changed, only its mode.
  chmod 644 "$R/version"
  settle
  [[ $(user_plan) == "composed ("*"version changed"* ]] || fail "kept plan: $(user_plan)"
  [[ $(as_user --no-trust-check policy.lua -- python3 B) == "python B" ]] ||
    fail "version B refused once the user can read ROOT/version"
fi
end

# ---- who asks, and the mounts it sees ----
begin "the groups of who asks: another plan"
if other_user; then
  fresh groups
  chmod 755 "$work" "$work/groups"
  # tool, first on PATH, runs only for the group 4242; the next tool for all.
  mkdir -p "$tools/gbin" "$tools/obin" "$work/groups/state" "$work/groups/home"
  script "$tools/gbin/tool" /bin/sh group tool
  script "$tools/obin/tool" /bin/sh other tool
  chown root:4242 "$tools/gbin/tool" && chmod 754 "$tools/gbin/tool"
  printf 'return require("lcsb").exec_policy { exec = { "tool" } }\n' >"$proj/policy.lua"
  chown -R "$user:" "$proj" "$work/groups/state" "$work/groups/home"
  lcsb_for_user=$(user_lcsb)
  as_member() { # GROUPS ARGV...: lcsb as the user, with GROUPS ("" none), in the project
    local groups=(--clear-groups)
    [[ -n $1 ]] && groups=(--groups "$1")
    shift
    (cd "$proj" && setpriv --reuid "$user" --regid "$user" "${groups[@]}" -- env -i \
      HOME="$work/groups/home" \
      XDG_STATE_HOME="$work/groups/state" PATH="$tools/gbin:$tools/obin:/usr/bin:/bin" \
      "$lcsb_for_user" "$@" 2>&1)
  }
  member_plan() {
    as_member "$1" check --no-trust-check policy.lua -- tool | sed -n '/^plan:/{n;s/^  //;p}'
  }
  settle
  [[ $(member_plan "") == "composed (no plan kept yet); kept for the runs after"* ]] ||
    fail "not kept: $(member_plan "")"
  [[ $(as_member "" --no-trust-check policy.lua -- tool) == "other tool" ]] ||
    fail "no group: not the other tool"
  # The same user in the group: another key, and the group's tool runs.
  [[ $(member_plan 4242) == "composed (no plan kept yet)"* ]] || fail "group: $(member_plan 4242)"
  [[ $(as_member 4242 --no-trust-check policy.lua -- tool) == "group tool" ]] ||
    fail "group: $(as_member 4242 --no-trust-check policy.lua -- tool)"
  [[ $(member_plan "") == "kept plan used"* ]] || fail "no group again: $(member_plan "")"
fi
end

begin "a remount: another plan"
if as_root; then
  fresh mounts
  mkdir -p "$tools/mnt" "$tools/obin"
  mount -t tmpfs -o noexec tmpfs "$tools/mnt" || fail "cannot mount a tmpfs"
  mkdir -p "$tools/mnt/bin"
  script "$tools/mnt/bin/tool" /bin/sh mounted tool
  script "$tools/obin/tool" /bin/sh other tool
  printf 'return require("lcsb").exec_policy { exec = { "tool" } }\n' >"$proj/policy.lua"
  export PATH=$tools/mnt/bin:$tools/obin:/usr/bin:/bin
  kept_then_used tool
  run tool
  [[ $status == 0 && $out == "other tool" ]] || fail "noexec: $status $out $err"
  mount -o remount,exec "$tools/mnt"
  settle
  expect_plan "composed (no plan kept yet)" tool
  run tool
  [[ $status == 0 && $out == "mounted tool" ]] || fail "exec: $status $out $err"
  umount "$tools/mnt"
  export PATH=/usr/bin:/bin
fi
end

begin "a file the kernel makes up, read by the composition: no plan"
fresh proc
fake_pyenv Linux
# Its times say nothing of what it holds.
ln -s /proc/sys/kernel/ostype "$R/version"
export PATH=$R/shims:/usr/bin:/bin
settle
expect_plan "composed (no plan kept yet); not kept: the composition asked of /proc/sys/kernel/ostype" \
  python3
run python3 Linux
[[ $status == 0 && $out == "python Linux" ]] || fail "the version /proc names: $status $out $err"
export PATH=/usr/bin:/bin
end

echo "# test_plan_record: $passed passed, $failed failed, $skipped skipped" >&2
((failed == 0))
