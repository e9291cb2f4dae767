# What the plan suites share (test_plans.sh, test_plan_record.sh): a store
# of their own, a project for each case, and how a case asks how its
# policy came about. Sourced, not run; the suite's first argument is LCSB.
# `lcsb check` says how the policy came about ("plan:" then "kept plan
# used", or "composed (WHY); kept for the runs after").
set -uo pipefail
LCSB=$(realpath "$1")
work=$(mktemp -d /tmp/lcsb-plans.XXXXXX)
trap 'umount "$work/mounts/tools/mnt" 2>/dev/null; chmod -R u+rwX "$work" 2>/dev/null; rm -rf "$work"' EXIT
failed=0 passed=0 skipped=0
export PATH=/usr/bin:/bin
# Plans and trust in a store of the suite's own.
export XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
mkdir -p "$XDG_STATE_HOME" "$XDG_CACHE_HOME"

fail() { echo "FAIL $case_name: $*" >&2; case_failed=1; }
begin() { case_name=$1 case_failed=0 case_skipped=0; }
end() {
  if ((case_failed)); then
    failed=$((failed + 1))
  elif ((case_skipped)); then
    skipped=$((skipped + 1))
  else
    passed=$((passed + 1))
  fi
}

# Whether the case can run here, as root (a mount, another user); when it
# cannot, it says so and counts as skipped, never as passed.
as_root() {
  [[ $(id -u) == 0 ]] && return 0
  echo "# skipped: $case_name: needs root" >&2
  case_skipped=1
  return 1
}

# The unprivileged user a case runs lcsb as, into $user (made when
# missing), as root; as root, having none is a failure.
other_user() {
  as_root || return 1
  user=$(bash "$(dirname "$0")/../support/test_user.sh") && return 0
  fail "no unprivileged user to run lcsb as"
  return 1
}

detected=$("$LCSB" detect --json) || { echo "FAIL: $LCSB detect --json failed" >&2; exit 1; }
if [[ $detected != *'"landlock_abi":'[1-9]* ]]; then
  if [[ ${LCSB_SANDBOX_TESTS_REQUIRED:-} == 1 ]]; then
    echo "FAIL: no Landlock here" >&2
    exit 1
  fi
  echo "# skipped: no Landlock here" >&2
  exit 0
fi

# A project of its own for each case, and a directory of tools outside it.
fresh() { # NAME
  proj=$work/$1/proj tools=$work/$1/tools
  mkdir -p "$proj" "$tools"
}

# What was just made, old enough that no time stamp lies within a second
# of a composition: a plan is kept only then.
settle() { sleep 1.1; }

# How `lcsb check` says the policy came about, for ARGV in the project.
plan_of() { # ARGV...
  (cd "$proj" && "$LCSB" check --no-trust-check policy.lua -- "$@" 2>&1) |
    sed -n '/^plan:/{n;s/^  //;p}'
}

# ARGV run once under the policy; $status, $out and $err.
run() { # ARGV...
  (cd "$proj" && "$LCSB" --no-trust-check policy.lua -- "$@" >"$work/out" 2>"$work/err")
  status=$?
  out=$(cat "$work/out") err=$(cat "$work/err")
}

expect_plan() { # WANT ARGV...: the plan line starts with WANT
  local want=$1 have
  shift
  have=$(plan_of "$@")
  [[ $have == "$want"* ]] || fail "plan: want \"$want...\", have \"$have\""
}

# Kept, then used: the state every case starts its change from.
kept_then_used() { # ARGV...
  settle
  expect_plan "composed (no plan kept yet); kept for the runs after" "$@"
  expect_plan "kept plan used" "$@"
}

script() { # PATH INTERPRETER WORDS...: an executable script printing WORDS
  local path=$1 interp=$2
  shift 2
  printf '#!%s\necho %s\n' "$interp" "$*" >"$path.new" && chmod 755 "$path.new" && mv "$path.new" "$path"
}

# lcsb laid out as installed where another user can run it (the build may
# lie in a directory of root's alone: a fresh machine's /root); its path.
user_lcsb() {
  local built
  built=$(dirname "$LCSB")
  if [[ ! -x $work/installed/bin/lcsb ]]; then
    mkdir -p "$work/installed/bin" "$work/installed/share/lua/5.4/lcsb"
    cp "$LCSB" "$built/lcsb-exec" "$built/liblcsb-record.so" "$work/installed/bin/"
    cp "$built/lua/lcsb/caps.lua" "$work/installed/share/lua/5.4/lcsb/"
    chmod -R a+rX "$work/installed"
  fi
  echo "$work/installed/bin/lcsb"
}
