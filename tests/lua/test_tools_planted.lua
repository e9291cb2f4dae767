-- What the command may have planted in the project does not enter the exec
-- allowlist by the back door: a file found on a PATH directory the command
-- writes, an interpreter a project script names, a symlink that leads out
-- to a file the policy does not let it read. Each is left out with a
-- warning; built = true lets the project's own files run, and a symlink to a
-- readable system program (a venv's python) stays allowed. The file reruns
-- itself with PATH starting at such a directory.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")

if not os.getenv("LCSB_TEST_PLANTED") then
  local dir = assert(io.popen("mktemp -d /tmp/lcsb-planted.XXXXXX")):read("l")
  -- PATH reaches the project's .venv/bin through a symlink first (its text
  -- is no path of the project's), after a relative entry lcsb passes over.
  os.execute(("ln -s proj/.venv/bin %s/plink"):format(T.q(dir)))
  -- Then a directory the command does not write, whose entries may lead
  -- to where it does.
  local _, _, code = os.execute(("PATH=bin:%s/plink:%s/proj/.venv/bin:%s/sysbin:/usr/bin:/bin "
    .. "XDG_CACHE_HOME=%s/cache LCSB_TEST_PLANTED=%s %s %s")
    :format(T.q(dir), T.q(dir), T.q(dir), T.q(dir), T.q(dir), T.q(arg[-1]), T.q(arg[0])))
  os.execute("rm -rf " .. T.q(dir))
  os.exit(code or 1)
end

local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)
local lcsb = require "lcsb"
local policy, realpath = H.policy, H.realpath

local root = os.getenv("LCSB_TEST_PLANTED")
-- The CLI the last cases run; its absence is a failure, not a skip.
local lcsb_cli = (os.getenv("LCSB_BUILD_DIR") or "") .. "/lcsb"
if lcsb.kind(lcsb_cli) ~= "file" then error("LCSB_BUILD_DIR/lcsb is missing") end
local project, outside = root .. "/proj", root .. "/outside"

local function put(path, text, mode)
  T.sh("mkdir -p " .. T.q(path:match("^(.*)/[^/]*$")))
  local f = assert(io.open(path, "w"))
  f:write(text or "#!/bin/sh\n")
  f:close()
  T.sh(("chmod %s %s"):format(mode or "755", T.q(path)))
end

local function link(target, path)
  T.sh("mkdir -p " .. T.q(path:match("^(.*)/[^/]*$")))
  T.sh(("ln -sfn %s %s"):format(T.q(target), T.q(path)))
end

local function warned(r, text)
  for _, line in ipairs(r.warnings or {}) do
    if line:find(text, 1, true) then return true end
  end
  return false
end

-- A secret outside every tier, executable so that resolution would take it.
put(outside .. "/secret", "TOP SECRET\n", "755")
put(project .. "/.venv/bin/python3", "#!/bin/sh\necho planted\n")
put(project .. "/.venv/bin/cat", "#!/bin/sh\necho planted\n")
link(outside .. "/secret", project .. "/.venv/bin/tool")
link(realpath("/usr/bin/env"), project .. "/.venv/bin/envlink")

T.case("a name found on a PATH directory the command writes is left out, with why", function()
  local s <close> = lcsb.scope()
  local r = policy { scope = s, project = project, exec = { "python3" } }
  T.lacks(r.exec, project .. "/.venv/bin/python3", "not the planted file")
  T.ok(warned(r, project .. "/.venv/bin/python3 lies where the command writes"), "warned")
  -- A preset's program is the one installed: the lookup passes over a PATH
  -- directory the command writes, without a word.
  local p = policy { scope = s, project = project, exec = { lcsb.tools.shell } }
  T.lacks(p.exec, project .. "/.venv/bin/cat", "nor through a preset")
  T.contains(p.exec, realpath("/usr/bin/cat"), "the installed cat")
  local b = policy { scope = s, project = project, exec = { "python3", built = true } }
  T.contains(b.exec, project .. "/.venv/bin/python3", "built = true runs it")
end)

T.case("a symlink the command writes may lead only to what the policy reads", function()
  local s <close> = lcsb.scope()
  local r = policy { scope = s, project = project, exec = { "tool" } }
  T.lacks(r.exec, outside .. "/secret", "not the secret (an exec grant reads)")
  T.ok(warned(r, "leads to " .. outside .. "/secret"), "warned")
  local b = policy { scope = s, project = project, exec = { "tool", built = true } }
  T.lacks(b.exec, outside .. "/secret", "built = true does not change that")
  local v = policy { scope = s, project = project, exec = { "envlink" } }
  T.contains(v.exec, realpath("/usr/bin/env"), "a venv's python: a system program, readable")
  T.eq(#v.warnings, 0, "and no warning")
end)

T.case("a preset's or a closure's name is never one the command put on PATH", function()
  local s <close> = lcsb.scope()
  -- A readable system program no preset here holds, planted under names
  -- presets and closures look up (git is the go closure's too; m4
  -- autoreconf's).
  local other = realpath("/usr/bin/python3")
  link(other, project .. "/.venv/bin/git")
  link(other, project .. "/.venv/bin/m4")
  local r = policy { scope = s, project = project,
    exec = { lcsb.tools.git, lcsb.tools.autotools } }
  T.contains(r.exec, realpath("/usr/bin/git"), "the installed git")
  T.lacks(r.exec, other, "not what the planted links lead to")
  -- Named by the policy itself, a name is looked up as before (a venv's
  -- python is the legitimate case): what it leads to is readable, so runs.
  local named = policy { scope = s, project = project, exec = { "git" } }
  T.contains(named.exec, other, "a name the policy gives: PATH's first")
  os.remove(project .. "/.venv/bin/git")
  os.remove(project .. "/.venv/bin/m4")
end)

T.case("a preset's name found through a link into a write path is the command's", function()
  local s <close> = lcsb.scope()
  -- A directory on PATH the command does not write holds sed, a link to a
  -- write path's file: the command writes what runs as the preset's sed.
  local wpath = root .. "/wpath"
  put(wpath .. "/sed", "#!/bin/sh\necho planted\n")
  link(wpath .. "/sed", root .. "/sysbin/sed")
  local r = policy { scope = s, project = project, write = { wpath }, exec = { lcsb.tools.shell } }
  T.lacks(r.exec, wpath .. "/sed", "the planted sed")
  T.ok(warned(r, wpath .. "/sed"), "left out, with why")
  -- Its twin: where the command writes nothing, the link's file runs.
  local twin = policy { scope = s, project = project, exec = { lcsb.tools.shell } }
  T.contains(twin.exec, wpath .. "/sed", "the link's file, outside the write tier")
  os.remove(root .. "/sysbin/sed")
end)

T.case("a path named in exec: the file itself runs; a symlink out of reach does not", function()
  local s <close> = lcsb.scope()
  put(project .. "/app", "#!/bin/sh\necho app\n")
  link(outside .. "/secret", project .. "/app2")
  local r = policy { scope = s, project = project, exec = { "./app", "./app2" } }
  T.contains(r.exec, project .. "/app", "the project's own program, named")
  T.lacks(r.exec, outside .. "/secret", "not what the symlink leads to")
  T.ok(warned(r, "leads to " .. outside .. "/secret"), "warned")
  T.sh("mkdir -p " .. T.q(project .. "/bin"))
  put(project .. "/bin/ok", "#!/bin/sh\n")
  link(outside .. "/secret", project .. "/bin/bad")
  local g = policy { scope = s, project = project, exec = { "./bin/*" } }
  T.contains(g.exec, project .. "/bin/ok", "a glob's own files")
  T.lacks(g.exec, outside .. "/secret", "not its symlink out")
end)

T.case("an interpreter a project script names is the project's: built = true only", function()
  local s <close> = lcsb.scope()
  put(project .. "/interp", "#!/bin/sh\n")
  put(project .. "/run.sh", "#!" .. project .. "/interp\n")
  local r = policy { scope = s, project = project, exec = { "./run.sh" } }
  T.lacks(r.exec, project .. "/interp", "not the planted interpreter")
  T.ok(warned(r, project .. "/interp lies where the command writes"), "warned")
  local b = policy { scope = s, project = project, exec = { "./run.sh", built = true } }
  T.contains(b.exec, project .. "/interp", "with built = true")
end)

T.case("every project's caches are where the command writes", function()
  local s <close> = lcsb.scope()
  local evil = root .. "/cache/lcsb/projects/other-0123456789abcdef/.npm/evil"
  put(evil, "#!/bin/sh\necho evil\n")
  link(evil, project .. "/.venv/bin/fromcache")
  put(project .. "/viacache.sh", "#!" .. evil .. "\n")
  local r = policy { scope = s, project = project, exec = { "fromcache", "./viacache.sh" } }
  T.lacks(r.exec, evil, "not a file a run left in a cache")
  T.ok(warned(r, evil .. " lies where the command writes"), "warned")
end)

T.case("env NAME in a program outside is looked up where the command writes too", function()
  local s <close> = lcsb.scope()
  put(outside .. "/bin/tool", "#!/usr/bin/env zzz-interp\n")
  link(outside .. "/secret", project .. "/.venv/bin/zzz-interp")
  local r = policy { scope = s, project = project, exec = { outside .. "/bin/tool" } }
  T.lacks(r.exec, outside .. "/secret", "not the secret env would find")
  T.ok(warned(r, "leads to " .. outside .. "/secret"), "warned")
end)

T.case("a glob's star passes over dot files, as a shell's does", function()
  local s <close> = lcsb.scope()
  put(project .. "/gl/.hidden", "#!/bin/sh\n")
  put(project .. "/gl/shown", "#!/bin/sh\n")
  local r = policy { scope = s, project = project, exec = { "./gl/*" } }
  T.contains(r.exec, project .. "/gl/shown", "shown")
  T.lacks(r.exec, project .. "/gl/.hidden", "not the dot file")
  local d = policy { scope = s, project = project, exec = { "./gl/.*" } }
  T.contains(d.exec, project .. "/gl/.hidden", "when the pattern starts with a dot")
end)

T.case("a closure's files found where the command writes are planted, even by path", function()
  local s <close> = lcsb.scope()
  put(project .. "/fake/shims/python3", "#!/bin/sh\n")
  put(project .. "/fake/libexec/pyenv", "#!/bin/sh\n")
  put(project .. "/fake/libexec/pyenv-evil", "#!/bin/sh\n")
  T.sh("mkdir -p " .. T.q(project .. "/fake/bin/asdf"))
  local r = policy { scope = s, project = project, exec = { "./fake/shims/python3" } }
  T.contains(r.exec, project .. "/fake/shims/python3", "the program named")
  T.lacks(r.exec, project .. "/fake/libexec/pyenv-evil", "not what its closure found there")
  for _, line in ipairs(r.tools) do T.hasnt(line, "closure pyenv", "no closure for it") end
  -- A rustup left beside a project's cargo wrapper would grant the user's
  -- toolchains and name them to the command.
  put(project .. "/rb/cargo", "#!/bin/sh\n")
  put(project .. "/rb/rustup", "#!/bin/sh\n")
  local c = policy { scope = s, project = project, exec = { "./rb/cargo" } }
  T.contains(c.exec, project .. "/rb/cargo", "the wrapper named")
  T.eq(c.env.set.RUSTUP_HOME, nil, "no RUSTUP_HOME")
  for _, line in ipairs(c.tools) do T.hasnt(line, "closure rustup", "no closure for it") end
end)

T.case("a directory on a named path swapped for a link leads nowhere out of the policy", function()
  local s <close> = lcsb.scope()
  T.sh(("rm -rf %s && ln -s %s %s"):format(T.q(project .. "/scripts"), T.q(outside),
    T.q(project .. "/scripts")))
  local r = policy { scope = s, project = project, exec = { "./scripts/*", "./scripts/secret" } }
  T.lacks(r.exec, outside .. "/secret", "not the secret behind the linked directory")
  T.ok(warned(r, "leads to " .. outside .. "/secret"), "warned")
end)

T.case("a home entry that leads through the project is left out when it leads out", function()
  local home = root .. "/home"
  T.sh("mkdir -p " .. T.q(home))
  put(project .. "/dotfiles/gitconfig", "[user]\n\tname = Me\n", "644")
  link(project .. "/dotfiles/gitconfig", home .. "/.gitconfig")
  local script = ([[
    local lcsb = require "lcsb"
    local s <close> = lcsb.scope()
    local r = lcsb.exec_policy { scope = s, project = %q, home = { ".gitconfig" } }
    local n = 0
    for _, line in ipairs(r.warnings) do if line:find("home: left out", 1, true) then n = n + 1 end end
    io.write(#r.home, " ", n)
  ]]):format(project)
  local function run()
    return T.sh(("HOME=%s %s -e %s"):format(T.q(home), T.q(arg[-1]), T.q(script)))
  end
  T.eq(run(), "1 0", "a dotfile in the project: shown")
  link(outside .. "/secret", project .. "/dotfiles/gitconfig")
  T.eq(run(), "0 1", "swapped for a link out: left out, warned")
end)

T.case("after env NAME found where the command writes, every later interpreter is its choice", function()
  local s <close> = lcsb.scope()
  local sys = root .. "/sys"
  put(sys .. "/main", "#!/usr/bin/env zzz-helper\n")
  -- A secret of its own: no entry of the project's PATH leads to it.
  put(outside .. "/secret2", "TOP SECRET\n", "755")
  put(sys .. "/other", "#!" .. outside .. "/secret2\n")
  link(sys .. "/other", project .. "/.venv/bin/zzz-helper")
  local r = policy { scope = s, project = project, read = { sys }, exec = { sys .. "/main" } }
  T.lacks(r.exec, outside .. "/secret2", "not the interpreter of what env found")
  T.ok(warned(r, "leads to " .. outside .. "/secret2"), "warned")
end)

T.case("built = true is the project's files, not a write path's", function()
  local s <close> = lcsb.scope()
  put(root .. "/out/evil", "#!/bin/sh\n")
  put(project .. "/run2.sh", "#!" .. root .. "/out/evil\n")
  local r = policy { scope = s, project = project, write = { root .. "/out" },
    exec = { "./run2.sh", built = true } }
  T.lacks(r.exec, root .. "/out/evil", "not a file of the write path")
  T.ok(warned(r, root .. "/out/evil lies where the command writes"), "warned")
end)

T.case("a hidden path is not readable, so no link may lead there", function()
  local s <close> = lcsb.scope()
  put(root .. "/tree/hidden", "#!/bin/sh\n")
  link(root .. "/tree/hidden", project .. "/hl")
  local r = policy { scope = s, project = project, read = { root .. "/tree" },
    hide = { root .. "/tree/hidden" }, exec = { "./hl" } }
  T.lacks(r.exec, root .. "/tree/hidden", "not the hidden file")
end)

T.case("the CLI: a command that is a planted symlink is not granted, and reads nothing", function()
  put(project .. "/p.lua", 'local lcsb = require "lcsb"\n'
    .. 'return function(run) return lcsb.exec_policy { exec = { "./app2" } } end\n', "644")
  local function run(backend)
    return T.sh(("cd %s && %s --no-trust-check --backend %s p.lua -- /bin/cat ./app2 2>&1; echo rc=$?")
      :format(T.q(project), T.q(lcsb_cli), backend))
  end
  local sandboxed = run("landlock")
  T.hasnt(sandboxed, "TOP SECRET", "the secret stays unread")
  T.has(sandboxed, "leads to " .. outside .. "/secret", "the warning says why")
  T.has(run("none"), "TOP SECRET", "unsandboxed, the same command reads it")
end)

T.case("a warning is one line, whatever the command put in a path it names", function()
  put(project .. "/p2.lua", 'local lcsb = require "lcsb"\n'
    .. 'return function(run) return lcsb.exec_policy { exec = { "/bin/mkdir", "/bin/touch" } } end\n',
    "644")
  local out = T.sh(("cd %s && %s --no-trust-check p2.lua -- /bin/sh -c %s 2>&1")
    :format(T.q(project), T.q(lcsb_cli), T.q("mkdir -p 'z\nlcsb: fine' && touch 'z\nlcsb: fine/.envrc'")))
  T.has(out, "z\\nlcsb: fine/.envrc", "the newline shown escaped")
  for line in out:gmatch("[^\n]+") do
    T.ok(not line:find("^lcsb: warning: lcsb: fine"), "no line of the command's: " .. line)
  end
end)

T.run()
