#!/usr/bin/env bash
# Install what is missing, build lcsb (warnings are errors), and run every test:
# the ctest suites as root and as an unprivileged user, then again under
# AddressSanitizer and UndefinedBehaviorSanitizer, the shim under valgrind, and
# the demo. LCSB_SANDBOX_TESTS_REQUIRED=1 turns a missing mechanism into a failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
lcsb_install_deps "${LCSB_PACKAGES[@]}" "${LCSB_TEST_PACKAGES[@]}"
jobs=$(nproc)

build() { # DIR [CMAKE ARGS...]
  local dir=$1; shift
  cmake -S "$root" -B "$dir" -DLCSB_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
}

echo "== build and test (release)"
build "$root/build"
(cd "$root/build" && ctest --output-on-failure -j "$jobs")

if [[ $(id -u) -eq 0 ]]; then
  echo "== enforcement and shim suites as an unprivileged user"
  id lcsbtest >/dev/null 2>&1 || useradd --create-home --shell /usr/sbin/nologin lcsbtest
  # A copy the user can read, away from root's home.
  unpriv=$(mktemp -d /tmp/lcsb-unpriv.XXXXXX)
  build "$unpriv"
  chmod -R go+rX "$unpriv"
  for t in test_sandbox_enforcement test_sandbox_shim; do
    [[ -x "$unpriv/tests/$t" ]] || continue
    (cd /tmp && setpriv --reuid lcsbtest --regid lcsbtest --clear-groups --reset-env \
      env PATH=/usr/local/bin:/usr/bin:/bin \
      LCSB_SANDBOX_TESTS_REQUIRED="${LCSB_SANDBOX_TESTS_REQUIRED:-}" "$unpriv/tests/$t")
  done
  rm -rf "$unpriv"
fi

echo "== sanitizers (address, undefined)"
build "$root/build-asan" -DLCSB_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug
(cd "$root/build-asan" && ctest --output-on-failure -j "$jobs")

echo "== valgrind: the CLI and the shim on the demo"
valgrind_log=$(mktemp)
LCSB_VALGRIND="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --log-file=$valgrind_log" \
  "$root/examples/demo/run.sh" "$root/build/lcsb" >/dev/null 2>&1 || {
  cat "$valgrind_log"; echo "valgrind found errors" >&2; exit 1; }
rm -f "$valgrind_log"

echo "== demo"
"$root/examples/demo/run.sh" "$root/build/lcsb"
echo "all tests passed"
