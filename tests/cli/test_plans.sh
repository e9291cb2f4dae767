#!/usr/bin/env bash
# Plans (issue 28): a policy composed once is kept, and used by later runs
# only while nothing it rests on changed. Each case composes and keeps a
# plan, proves the next run uses it, changes one thing the composition
# rested on, and proves that the run after composes again and enforces the
# new answer (the kernel allows what the new composition allows, and refuses
# what it no longer does). Then the plan file itself: tampered with, or
# another user's, it is refused and composed again; untouched, it is used.
#
# Usage: test_plans.sh LCSB. LCSB_SANDBOX_TESTS_REQUIRED=1 makes a missing
# mechanism a failure.
source "$(dirname "$0")/plans_lib.sh" "$@"

# ---- a new program earlier on PATH ----
begin "a new program earlier on PATH"
fresh path
mkdir -p "$tools/first" "$tools/second"
script "$tools/second/tool" /bin/sh second
printf 'return require("lcsb").exec_policy { exec = { "tool" } }\n' >"$proj/policy.lua"
export PATH=$tools/first:$tools/second:/usr/bin:/bin
kept_then_used tool
run tool
[[ $status == 0 && $out == second ]] || fail "the first composition: $status $out $err"
script "$tools/first/tool" /bin/sh first
expect_plan "composed (" tool
run tool
[[ $status == 0 && $out == first ]] || fail "the new program did not run: $status $out $err"
# The one that was allowed before is not now: the plan was made again.
run /bin/sh -c "$tools/second/tool"
[[ $status == 126 || $status == 127 ]] || fail "the old program still runs: $status $out"
export PATH=/usr/bin:/bin
end

# ---- a program in a closure replaced (rename over it) ----
begin "a program in a closure replaced"
fresh closure
# make's closure brings the sh found on PATH; the sh here is a script.
script "$tools/sh" /bin/dash "the first sh"
cp /usr/bin/make "$tools/make"
printf 'return require("lcsb").exec_policy { exec = { "make" } }\n' >"$proj/policy.lua"
export PATH=$tools:/usr/bin:/bin
kept_then_used make
script "$tools/sh" /bin/bash "the second sh"
expect_plan "composed (" make
run "$tools/sh"
[[ $status == 0 && $out == "the second sh" ]] || fail "the replaced program: $status $out $err"
export PATH=/usr/bin:/bin
end

# ---- a glob tried through a file ----
# exec's glob DIR/*/bin/* lists DIR, and asks a file of it (a toolchain's
# "components", beside its directories) for bin: not there (ENOTDIR). That
# answer is kept as the entry's own, not as its directory's times (a file
# has none that tell): the plan is used, and composed again when the file
# has become a directory.
begin "a glob tried through a file: kept, and composed again when it is a directory"
fresh globbed
mkdir -p "$tools/x/bin"
script "$tools/x/bin/prog" /bin/dash "x's prog"
echo data >"$tools/components"
printf 'return require("lcsb").exec_policy { exec = { "%s/*/bin/*" } }\n' "$tools" >"$proj/policy.lua"
kept_then_used "$tools/x/bin/prog"
rm "$tools/components"
mkdir -p "$tools/components/bin"
script "$tools/components/bin/prog" /bin/dash "the new prog"
expect_plan "composed (" "$tools/components/bin/prog"
run "$tools/components/bin/prog"
[[ $status == 0 && $out == "the new prog" ]] || fail "the program the glob finds now: $status $out $err"
end

# ---- an interpreter's #! changed ----
begin "an interpreter's #! changed"
fresh shebang
script "$tools/tool" /bin/dash dashed
printf 'return require("lcsb").exec_policy { exec = { "%s" } }\n' "$tools/tool" >"$proj/policy.lua"
kept_then_used "$tools/tool"
run /bin/sh -c "/bin/bash -c true"
[[ $status == 126 ]] || fail "bash ran before it was anyone's interpreter: $status"
script "$tools/tool" /bin/bash bashed
expect_plan "composed (" "$tools/tool"
run "$tools/tool"
[[ $status == 0 && $out == bashed ]] || fail "the new interpreter was not allowed: $status $out $err"
# In the project, rewritten in place (no rename): its own times tell.
printf '#!/bin/dash\necho in place\n' >"$proj/tool" && chmod 755 "$proj/tool"
printf 'return require("lcsb").exec_policy { exec = { "./tool" } }\n' >"$proj/policy.lua"
kept_then_used ./tool
printf '#!/bin/bash\necho in place\n' >"$proj/tool"
expect_plan "composed (" ./tool
run ./tool
[[ $status == 0 && $out == "in place" ]] || fail "rewritten in place: $status $out $err"
end

# ---- a symlink in the project re-pointed ----
begin "a symlink in the project re-pointed"
fresh link
script "$proj/a" /bin/sh a
script "$proj/b" /bin/sh b
ln -s a "$proj/tool"
printf 'return require("lcsb").exec_policy { exec = { "./tool" } }\n' >"$proj/policy.lua"
kept_then_used ./tool
ln -sfn b "$proj/tool"
expect_plan "composed (" ./tool
run ./tool
[[ $status == 0 && $out == b ]] || fail "the re-pointed link: $status $out $err"
run /bin/sh -c ./a
[[ $status == 126 ]] || fail "what the link no longer leads to still runs: $status $out"
end

# ---- a file the script read changed, and the policy edited ----
begin "a file the script read changed; the policy edited"
fresh read
script "$tools/one" /bin/sh one
script "$tools/two" /bin/sh two
echo "$tools/one" >"$proj/tools.txt"
cat >"$proj/policy.lua" <<'EOF'
local exec = {}
for line in io.lines("tools.txt") do exec[#exec + 1] = line end
return require("lcsb").exec_policy { exec = exec }
EOF
kept_then_used true
echo "$tools/two" >"$proj/tools.txt"
expect_plan "composed (" true
run "$tools/two"
[[ $status == 0 && $out == two ]] || fail "the file's new program: $status $out $err"
run /bin/sh -c "$tools/one"
[[ $status == 126 || $status == 127 ]] || fail "the file's old program still runs: $status"
# Trusted, an edit is refused before anything runs, plan or not. lcsb
# trust keeps no plan: it never asks which files the script read, which
# a plan's key names.
plans_before=$(find "$XDG_STATE_HOME/lcsb/plans" -maxdepth 1 -type f | wc -l)
(cd "$proj" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust"
plans_after=$(find "$XDG_STATE_HOME/lcsb/plans" -maxdepth 1 -type f | wc -l)
[[ $plans_after == "$plans_before" ]] || fail "lcsb trust kept a plan: $plans_before, then $plans_after"
(cd "$proj" && "$LCSB" policy.lua -- true >/dev/null 2>&1) || fail "the trusted policy did not run"
echo "-- edited" >>"$proj/policy.lua"
(cd "$proj" && "$LCSB" policy.lua -- true >/dev/null 2>"$work/err")
[[ $? == 125 ]] && grep -q "changed since you trusted it" "$work/err" || fail "the edit was not refused"
echo "$tools/one" >"$proj/tools.txt"
(cd "$proj" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust again"
echo "$tools/two" >"$proj/tools.txt"
(cd "$proj" && "$LCSB" policy.lua -- true >/dev/null 2>"$work/err")
[[ $? == 125 ]] && grep -q "tools.txt, which changed" "$work/err" || fail "the data's change was not refused"
end

# ---- a variable the composition read changed ----
begin "a variable the composition read changed"
fresh env
# socket entries name a variable: the composition reads it.
mkdir -p "$work/env/socks"
python3 -c 'import socket,sys; [socket.socket(socket.AF_UNIX).bind(p) for p in sys.argv[1:]]' \
  "$work/env/socks/one" "$work/env/socks/two"
printf 'return require("lcsb").exec_policy { exec = { "%s" }, sockets = { "$LCSB_TEST_SOCK" } }\n' \
  /usr/bin/python3 >"$proj/policy.lua"
export LCSB_TEST_SOCK=$work/env/socks/one
kept_then_used true
connect='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])'
export LCSB_TEST_SOCK=$work/env/socks/two
expect_plan "composed (LCSB_TEST_SOCK is not what it was)" true
run /usr/bin/python3 -c "$connect" "$work/env/socks/two"
# Nothing listens: connecting fails with "Connection refused", not with
# "No such file", which is what a socket outside the world gives.
grep -q "Connection refused" <<<"$err" || fail "the new socket is not in the world: $err"
unset LCSB_TEST_SOCK
end

# ---- the caps files changed ----
begin "the caps files changed"
fresh caps
mkdir -p "$proj/data"
echo secret >"$proj/data/key"
printf 'return require("lcsb").exec_policy { exec = { "cat" } }\n' >"$proj/policy.lua"
export XDG_CONFIG_HOME=$work/caps/config
kept_then_used cat
run cat data/key
[[ $status == 0 ]] || fail "cat before the cap: $status $err"
mkdir -p "$XDG_CONFIG_HOME/lcsb"
printf 'return { deny = { "%s" } }\n' "$proj/data" >"$XDG_CONFIG_HOME/lcsb/user.lua"
run cat data/key
[[ $status == 125 ]] && grep -q "user.lua" <<<"$err" || fail "the new cap was not held: $status $err"
unset XDG_CONFIG_HOME
end

# ---- HOME changed: what comes and goes there does not compose again;
# what a plan looked for there and did not find, coming, is seen ----
begin "HOME changed: a kept plan holds; what it looked for there, coming, composes again"
fresh home
saved_home=$HOME
export HOME=$work/home/home
mkdir -p "$HOME"
# git's preset looks for ~/.gitconfig (its identity, shown read-only in the
# private HOME); the caps look for ~/.aws and the rest of their list.
printf 'local lcsb = require "lcsb"\nreturn lcsb.exec_policy { exec = { lcsb.tools.git, "cat", "ls" }, read = { os.getenv("HOME") } }\n' \
  >"$proj/policy.lua"
kept_then_used ls
# A shell's history, an editor's file: HOME's times change, and nothing the
# composition or the caps looked for came.
settle
echo history >"$HOME/.bash_history"
expect_plan "kept plan used" ls
run ls -A "$HOME"
[[ $status == 0 && $out == .bash_history ]] || fail "HOME's own file, under a kept plan: $status $out $err"
# What the composition looked for and did not find: now there, composed again.
printf '[user]\n\tname = Ada\n' >"$HOME/.gitconfig"
expect_plan "composed (" ls
(cd "$proj" && "$LCSB" check --no-trust-check policy.lua -- ls 2>&1) | grep -q "read-only ~/.gitconfig" ||
  fail "the new ~/.gitconfig is not in the composition"
# A capped path the caps looked for and did not find: now there, and held.
mkdir -p "$HOME/.aws"
echo secret >"$HOME/.aws/credentials"
run cat "$HOME/.aws/credentials"
[[ $status == 125 ]] && grep -q "holds what no project policy may have: $HOME/.aws" <<<"$err" ||
  fail "the new ~/.aws was not held: $status $out $err"
rm -rf "$HOME/.aws"
# Its twin: gone again, the run passes.
run cat "$HOME/.bash_history"
[[ $status == 0 && $out == history ]] || fail "without ~/.aws: $status $out $err"
# Below a directory of HOME that is there (a changed HOME's missing capped
# paths are answered from its listing where their first component is not
# there, and asked one by one below one that is): ~/.config came with
# nothing capped in it, then ~/.config/gh's token.
mkdir "$HOME/.config"
run cat "$HOME/.bash_history"
[[ $status == 0 && $out == history ]] || fail "with an empty ~/.config: $status $out $err"
mkdir "$HOME/.config/gh"
echo token >"$HOME/.config/gh/hosts.yml"
run cat "$HOME/.config/gh/hosts.yml"
[[ $status == 125 ]] && grep -q "holds what no project policy may have: $HOME/.config/gh" <<<"$err" ||
  fail "the new ~/.config/gh was not held: $status $out $err"
rm -rf "$HOME/.config"
export HOME=$saved_home
end

# ---- lcsb upgraded ----
begin "lcsb upgraded"
fresh upgrade
# A copy beside the built one, where it finds the same shim and Lua files;
# installed again below, it is another file.
copy=$(dirname "$LCSB")/lcsb.plans-test.$$
cp "$LCSB" "$copy"
printf 'return require("lcsb").exec_policy { exec = { "cat" } }\n' >"$proj/policy.lua"
saved=$LCSB
LCSB=$copy
kept_then_used cat
cp "$saved" "$copy.new" && mv "$copy.new" "$copy"
expect_plan "composed (no plan kept yet)" cat
LCSB=$saved
rm -f "$copy"
end

# ---- what the composition read: read again whenever its plan is used ----
begin "what the composition read: on a kept plan, protected and held to the trust"
fresh reads
# A pyenv of its own: the shim's closure reads the project's .python-version.
R=$tools/pyenv
mkdir -p "$R/shims" "$R/libexec" "$R/versions/3.11/bin" "$R/versions/3.8/bin"
# 3.11's python3 rewrites the file when asked to: the same command, the same plan.
printf '#!/bin/sh\n[ "$1" = rewrite ] && { echo 3.8 > .python-version || exit 3; }\necho python 3.11\n' \
  >"$R/versions/3.11/bin/python3"
chmod 755 "$R/versions/3.11/bin/python3"
script "$R/versions/3.8/bin/python3" /bin/sh python 3.8
printf '#!/bin/sh\nexec "%s/libexec/pyenv" exec python3 "$@"\n' "$R" >"$R/shims/python3"
printf '#!/bin/sh\nshift 2; v=$(cat .python-version); exec "%s/versions/$v/bin/python3" "$@"\n' \
  "$R" >"$R/libexec/pyenv"
chmod 755 "$R/shims/python3" "$R/libexec/pyenv"
echo 3.11 >"$proj/.python-version"
printf 'return require("lcsb").exec_policy { exec = { "python3" } }\n' >"$proj/policy.lua"
export PATH=$R/shims:/usr/bin:/bin
(cd "$proj" && "$LCSB" trust policy.lua >/dev/null 2>&1) || fail "lcsb trust"
settle
trusted() { # ARGV...: a run the trust holds
  (cd "$proj" && "$LCSB" policy.lua -- "$@" >"$work/out" 2>"$work/err")
  status=$?
  out=$(cat "$work/out") err=$(cat "$work/err")
}
trusted python3
[[ $status == 0 && $out == "python 3.11" ]] || fail "the first run: $status $out $err"
settle
[[ $(cd "$proj" && "$LCSB" check policy.lua -- python3 2>&1) == *"kept plan used"* ]] ||
  fail "no plan used"
# On the kept plan, as on a fresh composition, the command cannot change
# what the next composition reads.
trusted python3 rewrite
[[ $status == 3 && $err == *"Read-only file system"* ]] || fail "rewritten on a plan: $status $err"
[[ $(cat "$proj/.python-version") == 3.11 ]] || fail "the file changed"
# Changed outside, a run that checks no trust composes from it and keeps
# that plan; a trusted run on it is refused all the same, as a fresh
# composition would be.
echo 3.8 >"$proj/.python-version"
settle
run python3
[[ $status == 0 && $out == "python 3.8" ]] || fail "--no-trust-check: $status $out $err"
settle
[[ $(cd "$proj" && "$LCSB" check --no-trust-check policy.lua -- python3 2>&1) == \
  *"kept plan used"* ]] || fail "the unchecked run's plan was not kept"
trusted python3
[[ $status == 125 && $err == *"changed since you trusted it"* ]] ||
  fail "a trusted run on the unchecked plan: $status $out $err"
export PATH=/usr/bin:/bin
end

# ---- lcsb's own tables, as the script left them ----
begin "the script changes lcsb's own tables or functions"
fresh state
cat >"$proj/policy.lua" <<'EOF'
local lcsb = require "lcsb"
-- A function of lcsb's replaced, when asked: /etc's secrets shown.
if os.getenv("SHOW") == "1" then lcsb.etc_hidden = function() return {} end end
-- One of lcsb's own in another's place: no function of the script's.
if os.getenv("SWAP") == "1" then lcsb.etc_hidden = lcsb.ttys end
-- A module only composing loads (lcsb.env), loaded by the script as it is,
-- or changed.
if os.getenv("LOAD") == "1" then require "lcsb.env" end
if os.getenv("MARK") == "1" then require("lcsb.env").marked = true end
-- The name _G pointed at a copy of the globals, and a global replaced:
-- lcsb's code calls the replacement.
if os.getenv("REBIND") == "1" then
  local copy, stock_ipairs = {}, ipairs
  for k, v in pairs(_G) do copy[k] = v end
  _G = copy
  ipairs = function(t) return stock_ipairs(t) end
end
-- A module only composing loads, changed, and the global package pointed
-- at one that shows no module loaded.
if os.getenv("PACKAGE") == "1" then
  local tier = require "lcsb.exec_tier"
  local stock = tier.exec_tier
  tier.exec_tier = function(...) return stock(...) end
  package = setmetatable({ loaded = {} }, { __index = package })
end
-- The C locale, which Lua's character classes follow: composing runs in
-- "C" whatever the script set.
if os.getenv("LOCALE") then assert(os.setlocale(os.getenv("LOCALE"))) end
-- Another of lcsb's functions where the key is made, or the variables are
-- noted: lcsb's own code would call it.
if os.getenv("MOVED") == "roots" then require("lcsb.plan").state_roots = require("lcsb.paths").set end
if os.getenv("MOVED") == "core" then require("lcsb.core").plan_unchanged = type end
if os.getenv("MOVED") == "getenv" then require("lcsb.plan").getenv = os.getenv end
-- A finalizer that adds to lcsb's own tables wherever a collection runs
-- it: with a collection forced often, it runs while lcsb works, unless
-- lcsb holds collection from the key's making to the plan's keeping.
if os.getenv("FINALIZER") == "1" then
  local function arm()
    setmetatable({}, { __gc = function()
      local at = debug.traceback()
      if at:find("compose_cached", 1, true) then
        table.insert(lcsb.baseline_write, os.getenv("OUTSIDE"))
      else
        arm()
      end
    end })
  end
  arm()
  collectgarbage("incremental", 1, 1000, 0)
end
return lcsb.exec_policy { exec = { "cat", "sh" } }
EOF
kept_then_used cat
SHOW=1 expect_plan "composed (a function of the script's own in lcsb's tables); not kept" cat
SWAP=1 expect_plan "composed (a function of lcsb's where lcsb's modules did not have it); not kept" cat
expect_plan "kept plan used" cat
LOAD=1 expect_plan "kept plan used" cat
MARK=1 expect_plan "composed (no plan kept yet)" cat
MARK=1 expect_plan "kept plan used" cat
expect_plan "kept plan used" cat
REBIND=1 expect_plan "composed (a function of the script's own in lcsb's tables); not kept" cat
PACKAGE=1 expect_plan "composed (a function of the script's own in lcsb's tables); not kept" cat
LOCALE=C.UTF-8 expect_plan "kept plan used" cat
for moved in roots core getenv; do
  MOVED=$moved expect_plan \
    "composed (a function of lcsb's where lcsb's modules did not have it); not kept" cat
done
expect_plan "kept plan used" cat
# No finalizer runs between the key's making and the plan's keeping: a
# composition under the finalizer keeps the plan lcsb's tables as they are
# make, and a later run may not write outside it (in the project it may).
outside=$work/state-outside
mkdir -p "$outside"
rm -rf "$XDG_STATE_HOME/lcsb/plans"
settle
FINALIZER=1 OUTSIDE=$outside expect_plan "composed (no plan kept yet); kept for the runs after" sh
expect_plan "kept plan used" sh
run sh -c "echo x >'$outside/x'"
[[ $status != 0 && ! -e $outside/x ]] || fail "a finalizer's change is enforced: $status $err"
run sh -c "echo x >'$proj/x'"
[[ $status == 0 && -e $proj/x ]] || fail "the project not writable: $status $err"
rm -f "$proj/x"
if [[ $(id -u) == 0 ]]; then
  SHOW=1 run cat /etc/shadow
  [[ $status == 0 ]] || fail "SHOW=1: /etc/shadow not shown: $status $err"
  run cat /etc/shadow
  [[ $status != 0 ]] || fail "after a SHOW=1 run, /etc/shadow is still shown"
fi
end

# ---- what a module only composing loads would keep of another's ----
# lcsb.exec_tier loads when the script composes, after it ran: a function
# the script put in lcsb.tiers' place then, and took back, must not be the
# one composing calls (the key holds the tables as they are). And a string
# or a file made callable (their metatables) is a function of the script's
# own, as any other: composed every run, never kept.
begin "a module only composing loads keeps nothing of another's; callable strings and files"
fresh captured
cat >"$proj/policy.lua" <<'EOF'
local lcsb = require "lcsb"
local core, tiers = require "lcsb.core", require "lcsb.tiers"
local cat, dash = core.realpath("/usr/bin/cat"), core.realpath("/usr/bin/dash")
local orig = tiers.add_unique
local function with_dash(into, p)
  orig(into, p)
  if p == cat then orig(into, dash) end
end
if os.getenv("SWAP") then
  tiers.add_unique = with_dash
  require "lcsb.exec_tier"
  -- Taken back, unless asked to keep it in place (the twin).
  if os.getenv("SWAP") == "back" then tiers.add_unique = orig end
end
-- The run's context answering cwd one way for the key, another for the
-- composition: what the script holds is a copy, not lcsb's.
if os.getenv("RUNMETA") then
  local run = require("lcsb.core").run()
  local real, asked = run.cwd, 0
  run.cwd = nil
  setmetatable(run, { __index = function(_, k)
    if k ~= "cwd" then return nil end
    asked = asked + 1
    return asked >= 2 and os.getenv("RUNMETA") or real
  end })
end
-- A finalizer of the script's that would swap lcsb.tiers' add_unique
-- while composing runs (the env hop is added last): no collection runs
-- then, so none runs it there.
if os.getenv("FINAL") then
  local env = core.realpath("/usr/bin/env")
  local mt = {}
  mt.__gc = function()
    if package.loaded["lcsb.exec_tier"] then
      tiers.add_unique = function(into, p)
        orig(into, p)
        if p == env then orig(into, dash) end
      end
    else
      setmetatable({}, mt)
    end
  end
  setmetatable({}, mt)
  collectgarbage("incremental", 10, 400)
end
-- A global answered by a metatable on _G: the script's own code.
-- (LOCK: and hidden from getmetatable by a __metatable field.)
if os.getenv("GMETA") then
  setmetatable(_G, { __index = function(_, k) return nil end, __metatable = os.getenv("LOCK") })
end
local callable = os.getenv("CALLABLE")
if callable then
  local meta = callable == "file" and getmetatable(io.stdout) or getmetatable("")
  meta.__call = function(_, prog, _, ctx)
    if ctx == nil then return prog.file == cat or nil end
    return { exec = { dash } }
  end
  local it = callable == "file" and io.stdout or "rt"
  table.insert(lcsb.tools.closures, { tool = "rt", match = it, resolve = it })
  meta.__metatable = os.getenv("LOCK")
end
return lcsb.exec_policy { exec = { "cat" } }
EOF
# The command runs dash through env (the command itself is always let
# run, and a plan is kept for its command).
probe=(env dash -c 'echo dash ran')
# The swapping run composes first, and keeps what it composed.
settle
SWAP=back expect_plan "composed (no plan kept yet); kept for the runs after" "${probe[@]}"
expect_plan "kept plan used" "${probe[@]}"
run "${probe[@]}"
[[ $status == 126 ]] || fail "dash ran after a script kept a swapped function in exec_tier: $status $out"
SWAP=keep expect_plan "composed (a function of the script's own in lcsb's tables); not kept" "${probe[@]}"
(cd "$proj" && SWAP=keep "$LCSB" --no-trust-check policy.lua -- "${probe[@]}" >"$work/out" 2>&1)
[[ $? == 0 && $(cat "$work/out") == "dash ran" ]] || fail "the swap in place: dash refused: $(cat "$work/out")"
GMETA=1 expect_plan "composed (a function of the script's own in lcsb's tables); not kept" "${probe[@]}"
GMETA=1 LOCK=locked expect_plan "composed (a function of the script's own in lcsb's tables); not kept" "${probe[@]}"
"$LCSB" cache clear --plans >/dev/null || fail "cache clear --plans failed"
settle
FINAL=1 expect_plan "composed (no plan kept yet); kept for the runs after" "${probe[@]}"
expect_plan "kept plan used" "${probe[@]}"
run "${probe[@]}"
[[ $status == 126 ]] || fail "dash ran after a finalizer's run: $status $out"
mkdir -p "$work/captured/other"
(cd "$proj" && RUNMETA=$work/captured/other "$LCSB" --no-trust-check policy.lua -- \
  sh -c "echo pwned > $work/captured/other/x" >"$work/out" 2>&1)
[[ $? != 0 && ! -e $work/captured/other/x ]] || fail "a run's context answered twice: the write went elsewhere: $(cat "$work/out")"
# Its twin: unsandboxed, the same write is made.
(cd "$proj" && "$LCSB" --no-trust-check --backend none policy.lua -- \
  sh -c "echo pwned > $work/captured/other/x" >"$work/out" 2>&1)
[[ $? == 0 && -e $work/captured/other/x ]] || fail "the write open: $(cat "$work/out")"
rm -f "$work/captured/other/x"
for kind in file string; do
  CALLABLE=$kind LOCK=locked expect_plan "composed (a function of the script's own in lcsb's tables); not kept" "${probe[@]}"
  CALLABLE=$kind expect_plan "composed (a function of the script's own in lcsb's tables); not kept" "${probe[@]}"
  (cd "$proj" && CALLABLE=$kind "$LCSB" --no-trust-check policy.lua -- "${probe[@]}" >"$work/out" 2>&1)
  [[ $? == 0 && $(cat "$work/out") == "dash ran" ]] || fail "a callable $kind: its closure not applied: $(cat "$work/out")"
  expect_plan "kept plan used" "${probe[@]}"
  run "${probe[@]}"
  [[ $status == 126 ]] || fail "dash ran after a callable $kind's run: $status $out"
done
end

# ---- a plan is its script's alone ----
# A script is trusted code and can reach into lcsb while it composes (a hook
# in package.preload for a module only composing loads) in ways no state of
# lcsb's modules shows. What it composes that way is kept for it alone:
# another script with the same options in the same project composes its own.
begin "a plan is its script's alone: one alike but for a hook is not used"
fresh alone
cat >"$proj/policy.lua" <<'EOF'
local lcsb = require "lcsb"
return lcsb.exec_policy { exec = { lcsb.tools.shell } }
EOF
cat >"$proj/hooked.lua" <<'EOF'
local lcsb = require "lcsb"
local load = package.preload["lcsb.exec_tier"]
package.preload["lcsb.exec_tier"] = function(...)
  table.insert(lcsb.tools.shell, "perl")
  return load(...)
end
return lcsb.exec_policy { exec = { lcsb.tools.shell } }
EOF
settle
perl_runs='perl -e "print qq(perl ran\n)"'
hooked=$(cd "$proj" && "$LCSB" check --no-trust-check hooked.lua -- sh 2>&1 | sed -n '/^plan:/{n;s/^  //;p}')
[[ $hooked == "composed (no plan kept yet); kept for the runs after" ]] || fail "hooked: $hooked"
(cd "$proj" && "$LCSB" --no-trust-check hooked.lua -- sh -c "$perl_runs" >"$work/out" 2>&1)
[[ $? == 0 && $(cat "$work/out") == "perl ran" ]] || fail "the hook did not add perl: $(cat "$work/out")"
expect_plan "composed (no plan kept yet)" sh
run sh -c "$perl_runs"
[[ $status == 126 ]] || fail "the plain script ran perl (the hooked script's plan?): $status $out $err"
end

# ---- lcsb cache list|clear --plans, and the store's bound ----
begin "lcsb cache --plans lists, clears and bounds the store"
fresh store
printf 'return require("lcsb").exec_policy { exec = { "cat" } }\n' >"$proj/policy.lua"
kept_then_used cat
plans=$XDG_STATE_HOME/lcsb/plans
listed=$("$LCSB" cache list --plans) || fail "cache list --plans failed"
kept=$(find "$plans" -maxdepth 1 -type f | wc -l)
[[ $listed == "plans kept in $plans: $kept, "* ]] || fail "list: \"$listed\" (kept: $kept)"
# 300 plans planted, older than any real one: the next plan saved brings
# the store back to 256, the planted ones going first.
for i in $(seq 1 300); do
  f=$plans/$(printf '%064x' "$i")
  echo planted >"$f"
  touch -d '2001-01-01' "$f"
done
cleared=$("$LCSB" cache clear --plans) || fail "cache clear --plans failed"
[[ $cleared == "removed $((kept + 300)) plans: "* ]] || fail "clear: \"$cleared\""
expect_plan "composed (no plan kept yet); kept for the runs after" cat
for i in $(seq 1 300); do
  f=$plans/$(printf '%064x' "$i")
  echo planted >"$f"
  touch -d '2001-01-01' "$f"
done
printf 'return require("lcsb").exec_policy { exec = { "cat", "true" } }\n' >"$proj/policy.lua" && settle
expect_plan "composed" cat
left=$(find "$plans" -maxdepth 1 -type f | wc -l)
((left == 256)) || fail "after a save past the bound: $left plans, want 256"
expect_plan "kept plan used" cat
# A store's files not named like a plan are not lcsb's to count or remove.
echo mine >"$plans/notes.txt"
"$LCSB" cache clear --plans >/dev/null || fail "cache clear --plans failed"
[[ -f $plans/notes.txt ]] || fail "clear removed a file not a plan"
[[ $("$LCSB" cache list --plans) == "plans kept in $plans: 0, "* ]] || fail "not emptied"
end

# ---- where the store is: XDG_STATE_HOME read as the caps read it ----
begin "XDG_STATE_HOME with .. after a symlink: the store is where the caps hold it"
fresh dotdot
mkdir -p "$proj/sub" "$work/dotdot/home"
ln -s "$proj/sub" "$work/dotdot/home/link"
printf 'return require("lcsb").exec_policy { exec = { "cat" } }\n' >"$proj/policy.lua"
settle
# Read by the kernel, home/link/.. is the project: the command's to write.
state_before=$XDG_STATE_HOME
export XDG_STATE_HOME=$work/dotdot/home/link/..
expect_plan "composed (no plan kept yet); kept for the runs after" cat
listed=$("$LCSB" cache list --plans)
[[ $listed == "plans kept in $work/dotdot/home/lcsb/plans: "* ]] || fail "the store: \"$listed\""
[[ ! -e $proj/lcsb ]] || fail "a store in the project: $(ls -R "$proj/lcsb" | head -5)"
[[ -d $work/dotdot/home/lcsb/plans ]] || fail "no store in home"
export XDG_STATE_HOME=$state_before
end

# ---- the plan file tampered with, or another user's ----
begin "a plan tampered with, or another user's"
fresh tamper
printf 'return require("lcsb").exec_policy { exec = { "cat" } }\n' >"$proj/policy.lua"
kept_then_used cat
plans=$XDG_STATE_HOME/lcsb/plans
# The one this policy was kept in (its data names cat's file).
file=$(ls -t $(grep -l "$(readlink -f /usr/bin/cat)" "$plans"/*) | head -n 1)
file=${file##*/}
# The twin: untouched, it is used (above, and again).
expect_plan "kept plan used" cat
# A byte of its data changed: its digest differs.
python3 - "$plans/$file" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.rfind(b"\nsum ") - 2
b[i] ^= 0x01
open(p, "wb").write(b)
EOF
expect_plan "composed (the plan $plans/$file is damaged" cat
expect_plan "kept plan used" cat
if other_user; then
  chown "$user" "$plans/$file"
  expect_plan "composed (the plan $plans/$file is not yours: refused)" cat
  # A store others may write is refused as a whole, and no plan is kept there.
  chmod 0777 "$plans"
  expect_plan "composed (the plan store $plans is writable by others" cat
  chmod 0700 "$plans"
fi
end

echo "# test_plans: $passed passed, $failed failed, $skipped skipped" >&2
((failed == 0))
