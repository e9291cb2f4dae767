# What the CLI suites share (test_sandbox_workloads.sh, test_learn.sh,
# test_sandbox_hints.sh, and the others): counting each case's outcome, and
# the host's mechanisms and tools a suite needs before any case runs.
# Sourced, not run; a suite sets case_name before each case (or calls
# begin and end around it), and ends with its counts.

failed=0 passed=0 skipped=0 case_name=setup

fail() { echo "FAIL $case_name: $*" >&2; failed=$((failed + 1)); }
skip() { echo "# skipped $case_name: $*" >&2; skipped=$((skipped + 1)); }
# A tool the suite needs is missing: a failure where every test must run.
missing() {
  if [[ ${LCSB_SANDBOX_TESTS_REQUIRED:-} == 1 ]]; then fail "$* (scripts/deps.sh installs it)"
  else skip "$*"; fi
}

# Stop the suite unless `LCSB detect --json` holds every PATTERN (a glob of
# its JSON, '"user_namespaces":true'); WHAT says what is missing. Without
# them it is skipped whole, or fails under LCSB_SANDBOX_TESTS_REQUIRED=1.
# The JSON stays in $detected for the suite's own questions.
need_mechanisms() { # LCSB WHAT PATTERN...
  local lcsb=$1 what=$2 pattern
  shift 2
  detected=$("$lcsb" detect --json) || { echo "FAIL: $lcsb detect --json failed" >&2; exit 1; }
  for pattern in "$@"; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    [[ $detected == *$pattern* ]] && continue
    if [[ ${LCSB_SANDBOX_TESTS_REQUIRED:-} == 1 ]]; then
      echo "FAIL: this host has no $what" >&2
      exit 1
    fi
    echo "# skipped: this host has no $what" >&2
    exit 0
  done
}

# The suite's own directory, $work (/tmp/lcsb-NAME.*, gone at exit), with
# lcsb's state and caches in it, and PATH the system's alone.
suite_work() { # NAME
  work=$(mktemp -d "/tmp/lcsb-$1.XXXXXX")
  # shellcheck disable=SC2064 # $work is fixed from here on
  trap "rm -rf '$work'" EXIT
  export PATH=/usr/bin:/bin
  export XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
  mkdir -p "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
}

# A case in suites that count it passed unless it failed: begin NAME ... end.
begin() { case_name=$1 failed_before=$failed; }
end() { ((failed == failed_before)) && passed=$((passed + 1)); }

# End the suite NAME here, its counts said, unless every TOOL is installed;
# a missing one is a failure where every test must run.
need_tools() { # NAME TOOL...
  local name=$1 tool
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null && continue
    missing "$tool is not installed"
    echo "# $name: $passed passed, $failed failed, $skipped skipped" >&2
    exit $((failed != 0))
  done
}
