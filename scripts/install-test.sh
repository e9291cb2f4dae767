#!/usr/bin/env bash
# Install lcsb into a fresh prefix, move the prefix away (mv) and use it from
# where it went, alone, as a packager and a host program would: nothing may
# lean on the paths the build was configured with, which are gone.
# pkg-config and find_package(lcsb) build examples/embed.c, which finds the
# shim of the install it sits in (lcsb_detect(NULL)) and runs two commands
# sandboxed: one writes in its project, one is refused a secret outside; a
# shim it cannot find is an error naming every place looked at; a program
# with the static library finds the shim from PREFIX/bin, or by LCSB_SHIM.
# Stock lua5.4 requires the module and runs examples/host.lua; the CLI runs
# from the prefix; the man pages are there; the libraries export nothing but
# lcsb_ (and the module luaopen_) symbols; the example policies build a C, a
# Python and a Node project. Then the same build is installed in ~/.local of
# a temporary HOME and used as README's "Install" says. Called by test.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/lcsb-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
configured=$work/configured # the prefix the build knows, moved away below
prefix=$work/moved/prefix
build=$root/build-install
fail() { echo "install-test: $*" >&2; exit 1; }

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$configured" \
  -DLCSB_TESTS=OFF -DLCSB_BENCH=OFF -DLCSB_WERROR=ON >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
cmake --install "$build" >/dev/null
mkdir -p "$(dirname "$prefix")"
mv "$configured" "$prefix"
[[ ! -e $configured ]] || fail "$configured is still there"

for f in bin/lcsb libexec/lcsb/lcsb-exec libexec/lcsb/liblcsb-record.so include/lcsb.h lib/liblcsb.so lib/liblcsb.a \
  lib/pkgconfig/lcsb.pc lib/cmake/lcsb/lcsbConfig.cmake lib/lua/5.4/lcsb/core.so \
  share/lua/5.4/lcsb/init.lua share/lua/5.4/lcsb/caps.lua share/man/man1/lcsb.1 share/man/man5/lcsb-policy.5 \
  include/lcsb/errors.h include/lcsb/text.h include/lcsb/policy.h include/lcsb/capability.h \
  include/lcsb/backend.h include/lcsb/compose.h include/lcsb/attestation.h include/lcsb/run.h \
  include/lcsb/hold.h include/lcsb/cache.h include/lcsb/script.h; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
# What finds the prefix names no path of its own.
if grep -rlF "$configured" "$prefix/lib/pkgconfig" "$prefix/lib/cmake"; then
  fail "the package files above name the configured prefix"
fi
man -M "$prefix/share/man" lcsb 2>/dev/null | grep -q "kernel-enforced sandbox" || fail "man lcsb"
man -M "$prefix/share/man" 5 lcsb-policy 2>/dev/null | grep -q "degrade" || fail "man lcsb-policy"

echo "== exported symbols"
leaked=$(nm -D --defined-only "$prefix/lib/liblcsb.so" | awk '{print $3}' | grep -v '^lcsb_' || true)
[[ -z $leaked ]] || fail "liblcsb.so exports more than lcsb_*: $leaked"
leaked=$(nm -D --defined-only "$prefix/lib/lua/5.4/lcsb/core.so" | awk '{print $3}' |
  grep -v '^luaopen_' || true)
[[ -z $leaked ]] || fail "core.so exports more than luaopen_*: $leaked"
# The recorder exports the libc functions it wraps, and nothing of its own.
wrapped='open|exec|posix_spawn|close|dup|creat|fopen|freopen|opendir|mkdir|unlink|rmdir|rename'
wrapped+='|link|symlink|truncate|chmod|fchmodat|chown|lchown|fchownat|utime|mknod|mkfifo|stat|lstat'
wrapped+='|fstatat|access|faccessat|connect|bind|socket|fexecve|getaddrinfo'
leaked=$(nm -D --defined-only "$prefix/libexec/lcsb/liblcsb-record.so" | awk '{print $3}' |
  grep -Ev "^(__)?($wrapped)" || true)
[[ -z $leaked ]] || fail "liblcsb-record.so exports more than what it wraps: $leaked"

# A project directory to write in, and a secret outside it.
mkdir -p "$work/project" "$work/outside"
echo secret >"$work/outside/secret"
probe="read -r line < '$work/outside/secret' && echo \"read: \$line\""
# The twin: unsandboxed, the probe reads the secret.
/bin/sh -c "$probe" | grep -q "read: secret" || fail "the probe proves nothing"

check_embed() { # BINARY: one command writes in the project, one is refused the secret
  local status=0
  rm -f "$work/project/out"
  "$1" "$work/project" -- /bin/sh -c 'echo written > out' 2>"$work/embed.err" ||
    fail "$1 could not write in its project: $(cat "$work/embed.err")"
  [[ $(cat "$work/project/out") == written ]] || fail "$1 wrote nothing"
  "$1" "$work/project" -- /bin/sh -c "$probe" >"$work/embed.out" 2>"$work/embed.err" || status=$?
  [[ $status -ne 0 ]] || fail "$1 read the secret: $(cat "$work/embed.out")"
  # Outside the policy the secret is not in the command's world at all (or,
  # with the world dropped, Landlock refuses it); the trailer says by what.
  grep -Eq "No such file|Permission denied" "$work/embed.err" ||
    fail "$1: no denial: $(cat "$work/embed.err")"
  grep -q "under landlock" "$work/embed.err" ||
    fail "$1: not under landlock: $(cat "$work/embed.err")"
}

check_refused() { # BINARY NEEDLE...: exits 125 naming each NEEDLE, and runs nothing
  local bin=$1 status=0
  shift
  rm -f "$work/project/out"
  "$bin" "$work/project" -- /bin/sh -c 'echo written > out' 2>"$work/embed.err" || status=$?
  [[ $status -eq 125 && ! -e $work/project/out ]] ||
    fail "$bin: status $status with no shim: $(cat "$work/embed.err")"
  for needle in "$@"; do
    grep -qF -- "$needle" "$work/embed.err" ||
      fail "$bin: \"$needle\" is not in: $(cat "$work/embed.err")"
  done
}

shim=$prefix/libexec/lcsb/lcsb-exec
built_in="$configured/libexec/lcsb/lcsb-exec (the install path built in)"

echo "== pkg-config builds examples/embed.c against the moved prefix"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config's words are meant to split
cc -Wall -Werror "$root/examples/embed.c" $(pkg-config --cflags --libs lcsb) \
  -Wl,-rpath,"$prefix/lib" -o "$work/embed"
check_embed "$work/embed"
# Lua is the library's own business: no lua5.4.pc is needed to link the
# shared library, and a static link is told to add Lua by its name.
(
  export PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig PKG_CONFIG_PATH=
  # shellcheck disable=SC2046
  cc -Wall -Werror "$root/examples/embed.c" $(pkg-config --cflags --libs lcsb) \
    -Wl,-rpath,"$prefix/lib" -o "$work/embed-no-lua-pc"
  libs=$(pkg-config --static --libs-only-l --libs-only-other lcsb)
  # shellcheck disable=SC2046,SC2086
  cc -Wall -Werror "$root/examples/embed.c" $(pkg-config --cflags lcsb) "$prefix/lib/liblcsb.a" \
    ${libs//-llcsb/} -o "$work/embed-pc-static"
)
check_embed "$work/embed-no-lua-pc"
# No shim where the install puts it: every place looked at is named, and
# nothing runs. A wrong LCSB_SHIM is never covered by the install's shim.
mv "$prefix/libexec" "$prefix/libexec.away"
check_refused "$work/embed" "looked at: $shim (the install of $prefix/lib/liblcsb.so" "$built_in"
mv "$prefix/libexec.away" "$prefix/libexec"
(
  export LCSB_SHIM=$work/nonexistent/lcsb-exec
  check_refused "$work/embed" "looked at: $LCSB_SHIM (LCSB_SHIM); LCSB_SHIM=PATH names it"
)
(
  export LCSB_SHIM=$shim
  check_embed "$work/embed"
)

echo "== find_package(lcsb) builds it too, shared and static"
mkdir -p "$work/cmake"
cat >"$work/cmake/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.21)
project(embed C)
find_package(lcsb REQUIRED)
add_executable(embed $root/examples/embed.c)
target_link_libraries(embed PRIVATE lcsb::lcsb)
add_executable(embed_static $root/examples/embed.c)
target_link_libraries(embed_static PRIVATE lcsb::lcsb_static)
EOF
cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake/build" >/dev/null
check_embed "$work/cmake/build/embed"
# A program with the static library finds the shim from PREFIX/bin, when it
# is installed there; elsewhere it has LCSB_SHIM and the path built in.
check_refused "$work/cmake/build/embed_static" "looked at: $built_in"
(
  export LCSB_SHIM=$shim
  check_embed "$work/cmake/build/embed_static"
)
cp "$work/cmake/build/embed_static" "$prefix/bin/embed-static"
check_embed "$prefix/bin/embed-static"
rm "$prefix/bin/embed-static"

echo "== stock lua5.4 requires lcsb from the moved prefix"
export LUA_PATH="$prefix/share/lua/5.4/?.lua;$prefix/share/lua/5.4/?/init.lua;;"
export LUA_CPATH="$prefix/lib/lua/5.4/?.so;;"
SHIM=$shim lua5.4 -e 'local l = require "lcsb"
  for _, f in ipairs { "exec_policy", "policy", "detect", "wrap", "attest", "scope", "set_shim" } do
    assert(type(l[f]) == "function", f .. " is missing")
  end
  local d = l.detect()
  assert(d.landlock_abi > 0, "no Landlock seen from Lua")
  assert(d.shim_found and d.shim == os.getenv("SHIM"), "core.so: no shim at " .. d.shim_searched)'
host_lua() { # examples/host.lua: one command writes in the project, one is refused the secret
  local status=0
  rm -f "$work/project/out"
  (cd "$work" && lua5.4 "$root/examples/host.lua" "$work/project" /bin/sh -c 'echo written > out') \
    >/dev/null 2>"$work/host.err" || fail "host.lua could not write: $(cat "$work/host.err")"
  [[ $(cat "$work/project/out") == written ]] || fail "host.lua wrote nothing"
  (cd "$work" && lua5.4 "$root/examples/host.lua" "$work/project" /bin/sh -c "$probe") \
    >"$work/host.out" 2>"$work/host.err" || status=$?
  [[ $status -ne 0 ]] || fail "host.lua read the secret: $(cat "$work/host.out")"
  grep -q "^host.lua: fs enforced" "$work/host.err" || fail "host.lua: $(cat "$work/host.err")"
}
host_lua
# A module that finds no shim is told where one is.
mv "$prefix/libexec" "$prefix/libexec.away"
SHIM=$prefix/libexec.away/lcsb/lcsb-exec lua5.4 -e 'local l = require "lcsb"
  assert(not l.detect().shim_found, "a shim that is not there")
  assert(l.set_shim(os.getenv("SHIM")))
  assert(l.detect().shim_found, "the shim set_shim named")'
mv "$prefix/libexec.away" "$prefix/libexec"

echo "== the CLI from the moved prefix"
"$prefix/bin/lcsb" detect --json | grep -qF "\"shim\":\"$shim\"" || fail "lcsb detect: no shim"
cat >"$work/project/p.lua" <<'EOF'
return require("lcsb").exec_policy { exec = { "sh" } }
EOF
# Approvals go in a trust store of this test's own, and the examples' caches
# (npm's) in a cache of its own: nothing of this test outlives it.
export XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
(cd "$work/project" && "$prefix/bin/lcsb" p.lua -- /bin/sh -c 'echo cli > cli-out') 2>/dev/null &&
  fail "an untrusted policy ran"
[[ ! -e $work/project/cli-out ]] || fail "an untrusted policy's command ran"
(cd "$work/project" && "$prefix/bin/lcsb" trust p.lua >/dev/null 2>&1) || fail "lcsb trust"
(cd "$work/project" && "$prefix/bin/lcsb" p.lua -- /bin/sh -c 'echo cli > cli-out') ||
  fail "lcsb from the prefix"
[[ $(cat "$work/project/cli-out") == cli ]] || fail "the CLI did not write"
# The recorder beside the installed shim: a refusal reaches the attestation.
(cd "$work/project" && "$prefix/bin/lcsb" --attest a.json p.lua -- /bin/sh -c 'echo x > /etc/x') \
  2>/dev/null && fail "the command wrote /etc/x"
grep -q '"recorded":true' "$work/project/a.json" || fail "no recorder in the install"
echo "== the example policies, from the prefix's CLI"
# The system's programs, not a version manager's shims (pyenv's python3 is a
# script that runs pyenv from HOME, which no policy here grants).
export PATH=/usr/local/bin:/usr/bin:/bin
for example in c container python node; do
  "$prefix/bin/lcsb" trust "$root/examples/policies/$example.lua" >/dev/null 2>&1 ||
    fail "lcsb trust $example.lua"
done
mkdir -p "$work/c" "$work/py" "$work/node"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$work/c/hello.c"
printf 'hello: hello.c\n\tcc -o hello hello.c\n' >"$work/c/Makefile"
(cd "$work/c" && "$prefix/bin/lcsb" "$root/examples/policies/c.lua" -- make >/dev/null) ||
  fail "c.lua"
[[ -x $work/c/hello ]] || fail "c.lua built nothing"
if command -v podman >/dev/null; then
  rm -f "$work/c/hello"
  (cd "$work/c" && CONTAINERS_CONF=${CONTAINERS_CONF:-$root/scripts/containers.conf} \
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
printf '{"name":"t","version":"1.0.0","scripts":{"test":"node -e \\"console.log(6 * 7)\\""}}\n' \
  >"$work/node/package.json"
(cd "$work/node" && "$prefix/bin/lcsb" "$root/examples/policies/node.lua" -- npm test) |
  grep -qx 42 || fail "node.lua"

echo "== the same build in ~/.local, as README's Install says"
(
  export HOME=$work/home
  unset XDG_STATE_HOME XDG_CONFIG_HOME
  mkdir -p "$HOME"
  cmake --install "$build" --prefix ~/.local >/dev/null
  export PKG_CONFIG_PATH=~/.local/lib/pkgconfig
  # shellcheck disable=SC2046 # pkg-config's words are meant to split
  cc -Wall -Werror "$root/examples/embed.c" $(pkg-config --cflags --libs lcsb) \
    -Wl,-rpath,"$HOME/.local/lib" -o "$work/embed-home"
  check_embed "$work/embed-home"
  cmake -S "$work/cmake" -B "$work/cmake/build-home" -DCMAKE_PREFIX_PATH="$HOME/.local" >/dev/null
  grep -qx "lcsb_DIR:PATH=$HOME/.local/lib/cmake/lcsb" "$work/cmake/build-home/CMakeCache.txt" ||
    fail "find_package(lcsb) did not take ~/.local's"
  cmake --build "$work/cmake/build-home" >/dev/null
  check_embed "$work/cmake/build-home/embed"
  export LUA_PATH="$HOME/.local/share/lua/5.4/?.lua;$HOME/.local/share/lua/5.4/?/init.lua;;"
  export LUA_CPATH="$HOME/.local/lib/lua/5.4/?.so;;"
  host_lua
  rm -f "$work/project/cli-out"
  (cd "$work/project" && ~/.local/bin/lcsb trust p.lua >/dev/null 2>&1) || fail "lcsb trust"
  (cd "$work/project" && ~/.local/bin/lcsb p.lua -- /bin/sh -c 'echo cli > cli-out') ||
    fail "lcsb from ~/.local"
  [[ $(cat "$work/project/cli-out") == cli ]] || fail "the CLI in ~/.local did not write"
)
echo "install test passed"
