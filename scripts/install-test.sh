#!/usr/bin/env bash
# Install lcsb into a fresh prefix and use it from there alone, as a packager
# and a host program would: pkg-config and find_package(lcsb) build
# examples/embed.c, which writes in its directory and is refused a secret
# outside; stock lua5.4 requires the module and runs examples/host.lua; the
# CLI runs from the prefix; the man pages are there; the libraries export
# nothing but lcsb_ (and the module luaopen_) symbols; the example policies
# build a C, a Python and a Node project. Called by test.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/lcsb-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
build=$root/build-install
fail() { echo "install-test: $*" >&2; exit 1; }

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DLCSB_TESTS=OFF -DLCSB_BENCH=OFF -DLCSB_WERROR=ON >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
cmake --install "$build" >/dev/null

for f in bin/lcsb libexec/lcsb/lcsb-exec include/lcsb.h lib/liblcsb.so lib/liblcsb.a \
  lib/pkgconfig/lcsb.pc lib/cmake/lcsb/lcsbConfig.cmake lib/lua/5.4/lcsb/core.so \
  share/lua/5.4/lcsb/init.lua share/lua/5.4/lcsb/caps.lua share/man/man1/lcsb.1 share/man/man5/lcsb-policy.5; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
man -M "$prefix/share/man" lcsb 2>/dev/null | grep -q "kernel-enforced sandbox" || fail "man lcsb"
man -M "$prefix/share/man" 5 lcsb-policy 2>/dev/null | grep -q "degrade" || fail "man lcsb-policy"

echo "== exported symbols"
leaked=$(nm -D --defined-only "$prefix/lib/liblcsb.so" | awk '{print $3}' | grep -v '^lcsb_' || true)
[[ -z $leaked ]] || fail "liblcsb.so exports more than lcsb_*: $leaked"
leaked=$(nm -D --defined-only "$prefix/lib/lua/5.4/lcsb/core.so" | awk '{print $3}' |
  grep -v '^luaopen_' || true)
[[ -z $leaked ]] || fail "core.so exports more than luaopen_*: $leaked"

# A project directory to write in, and a secret outside it.
mkdir -p "$work/project" "$work/outside"
echo secret >"$work/outside/secret"
probe="echo written > out && read -r line < '$work/outside/secret' && echo \"read: \$line\""

check_embed() { # BINARY: writes in the project, is refused the secret
  local status=0
  rm -f "$work/project/out"
  "$1" "$work/project" -- /bin/sh -c "$probe" >"$work/embed.out" 2>"$work/embed.err" || status=$?
  [[ -s $work/project/out ]] || fail "$1 did not write in its directory: $(cat "$work/embed.err")"
  [[ $status -ne 0 ]] || fail "$1 read the secret: $(cat "$work/embed.out")"
  # Outside the policy the secret is not in the command's world at all (or,
  # with the world dropped, Landlock refuses it).
  grep -Eq "No such file|Permission denied" "$work/embed.err" ||
    fail "$1: no denial: $(cat "$work/embed.err")"
}

echo "== pkg-config builds examples/embed.c"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config's words are meant to split
cc -Wall -Werror "$root/examples/embed.c" $(pkg-config --cflags --libs lcsb) \
  -Wl,-rpath,"$prefix/lib" -o "$work/embed"
check_embed "$work/embed"
# The twin: unsandboxed, the same probe reads the secret.
(cd "$work/project" && /bin/sh -c "$probe" | grep -q "read: secret") || fail "the probe proves nothing"

echo "== find_package(lcsb) builds it too"
mkdir -p "$work/cmake"
cat >"$work/cmake/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.21)
project(embed C)
find_package(lcsb REQUIRED)
add_executable(embed $root/examples/embed.c)
target_link_libraries(embed PRIVATE lcsb::lcsb)
EOF
cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake/build" >/dev/null
check_embed "$work/cmake/build/embed"

echo "== stock lua5.4 requires lcsb"
export LUA_PATH="$prefix/share/lua/5.4/?.lua;$prefix/share/lua/5.4/?/init.lua;;"
export LUA_CPATH="$prefix/lib/lua/5.4/?.so;;"
lua5.4 -e 'local l = require "lcsb"
  for _, f in ipairs { "exec_policy", "policy", "detect", "wrap", "attest", "scope" } do
    assert(type(l[f]) == "function", f .. " is missing")
  end
  assert(l.detect().landlock_abi > 0, "no Landlock seen from Lua")'
rm -f "$work/project/out"
status=0
(cd "$work" && lua5.4 "$root/examples/host.lua" "$work/project" /bin/sh -c "$probe") \
  >/dev/null 2>"$work/host.err" || status=$?
[[ -s $work/project/out && $status -ne 0 ]] || fail "host.lua: status $status: $(cat "$work/host.err")"

echo "== the CLI from the prefix"
cat >"$work/project/p.lua" <<'EOF'
return require("lcsb").exec_policy { exec = { "sh" } }
EOF
# Approvals go in a trust store of this test's own.
export XDG_STATE_HOME=$work/state
(cd "$work/project" && "$prefix/bin/lcsb" p.lua -- /bin/sh -c 'echo cli > cli-out') 2>/dev/null &&
  fail "an untrusted policy ran"
[[ ! -e $work/project/cli-out ]] || fail "an untrusted policy's command ran"
(cd "$work/project" && "$prefix/bin/lcsb" trust p.lua >/dev/null 2>&1) || fail "lcsb trust"
(cd "$work/project" && "$prefix/bin/lcsb" p.lua -- /bin/sh -c 'echo cli > cli-out') ||
  fail "lcsb from the prefix"
[[ $(cat "$work/project/cli-out") == cli ]] || fail "the CLI did not write"
echo "== the example policies, from the prefix's CLI"
# The system's programs, not a version manager's shims (pyenv's python3 is a
# script that runs pyenv from HOME, which no policy here grants).
export PATH=/usr/local/bin:/usr/bin:/bin
for example in make container python node; do
  "$prefix/bin/lcsb" trust "$root/examples/policies/$example.lua" >/dev/null 2>&1 ||
    fail "lcsb trust $example.lua"
done
mkdir -p "$work/c" "$work/py" "$work/node"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$work/c/hello.c"
printf 'hello: hello.c\n\tcc -o hello hello.c\n' >"$work/c/Makefile"
(cd "$work/c" && "$prefix/bin/lcsb" "$root/examples/policies/make.lua" -- make >/dev/null) ||
  fail "make.lua"
[[ -x $work/c/hello ]] || fail "make.lua built nothing"
if command -v podman >/dev/null; then
  rm -f "$work/c/hello"
  (cd "$work/c" && CONTAINERS_CONF=${CONTAINERS_CONF:-$root/scripts/containers.conf} \
    XDG_CACHE_HOME=$work/cache \
    "$prefix/bin/lcsb" --backend oci "$root/examples/policies/container.lua" -- make >/dev/null) ||
    fail "container.lua"
  [[ $("$work/c/hello") == hi ]] || fail "container.lua built nothing"
elif [[ ${LCSB_SANDBOX_TESTS_REQUIRED:-} == 1 ]]; then
  fail "no podman for container.lua, and LCSB_SANDBOX_TESTS_REQUIRED=1"
else
  echo "   (container.lua skipped: no podman)"
fi
[[ $(cd "$work/py" && "$prefix/bin/lcsb" "$root/examples/policies/python.lua" -- \
  python3 -c 'print(6 * 7)') == 42 ]] || fail "python.lua"
# npm comes with some builds of nodejs and is a package of its own in Debian's.
command -v npm >/dev/null || { source "$root/scripts/deps.sh"; lcsb_install_deps npm; }
printf '{"name":"t","version":"1.0.0","scripts":{"test":"node -e \\"console.log(6 * 7)\\""}}\n' \
  >"$work/node/package.json"
(cd "$work/node" && "$prefix/bin/lcsb" "$root/examples/policies/node.lua" -- npm test) |
  grep -qx 42 || fail "node.lua"
echo "install test passed"
