#!/usr/bin/env bash
# The lcsb demo: a build step under a policy writes in its project and is
# refused a secret outside it; lcsb's trailer says what was enforced.
# Usage: examples/demo/run.sh [PATH/TO/lcsb]   (LCSB_VALGRIND: a prefix for lcsb)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lcsb=${1:-$here/../../build/lcsb}

project=$(mktemp -d /tmp/lcsb-demo-project.XXXXXX)
secrets=$(mktemp -d /tmp/lcsb-demo-secrets.XXXXXX)
# The demo's approvals go in a trust store of its own, not yours.
export XDG_STATE_HOME=$(mktemp -d /tmp/lcsb-demo-state.XXXXXX)
trap 'rm -rf "$project" "$secrets" "$XDG_STATE_HOME"' EXIT
echo "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" > "$secrets/credentials"
cp "$here/policy.lua" "$here/build.sh" "$project/"
cd "$project"

# A policy runs as you, and the command it confines could rewrite it: lcsb
# runs only a policy you approved, as it was when you did.
echo "\$ lcsb policy.lua -- sh build.sh $secrets/credentials"
${LCSB_VALGRIND:-} "$lcsb" policy.lua -- sh build.sh "$secrets/credentials" 2>&1
status=$?
echo "(exit status $status)"
if [[ $status -ne 125 || -e build-output.txt ]]; then
  echo "demo failed: a policy no one trusted ran" >&2
  exit 1
fi
echo
echo "\$ lcsb trust policy.lua"
${LCSB_VALGRIND:-} "$lcsb" trust policy.lua 2>&1 || { echo "demo failed: lcsb trust" >&2; exit 1; }
echo
echo "\$ lcsb policy.lua -- sh build.sh $secrets/credentials"
${LCSB_VALGRIND:-} "$lcsb" policy.lua -- sh build.sh "$secrets/credentials" 2>&1
status=$?
echo "(exit status $status)"
echo
if [[ -s build-output.txt ]]; then
  echo "the project was writable: build-output.txt holds: $(cat build-output.txt)"
else
  echo "demo failed: build-output.txt was not written" >&2
  exit 1
fi
if [[ $status -eq 0 ]]; then
  echo "demo failed: the secret outside the project was readable" >&2
  exit 1
fi
echo "the secret outside the project was refused by the kernel; without a sandbox:"
echo "\$ lcsb --backend none policy.lua -- cat $secrets/credentials"
${LCSB_VALGRIND:-} "$lcsb" --backend none policy.lua -- cat "$secrets/credentials" 2>&1 >/dev/null
echo "(exit status $?: readable when nothing is enforced)"
