-- exec_policy's keys: errors that name the key and the caller's line, the env
-- overlay, the network, degrade, protect, and program resolution. Run by
-- ctest with stock lua5.4 and the built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)
local lcsb = require "lcsb"
local core = require "lcsb.core"

local ME = "test_exec_policy_keys.lua"

local policy, realpath, on_path, policy_error, elf_interp =
  H.policy, H.realpath, H.on_path, H.policy_error, H.elf_interp

T.case("a NUL byte is refused, not cut short to a parent", function()
  local s <close> = lcsb.scope()
  -- C would see "/tmp" and grant all of it.
  T.has(policy_error { scope = s, write = { "/tmp\0/proj/build" } }, "key 'write'")
  T.has(policy_error { scope = s, write = { "/tmp\0/proj/build" } }, "NUL")
  T.has(policy_error { scope = s, read = { "/etc\0/x" } }, "NUL")
  T.has(policy_error { scope = s, project = "/tmp\0/x" }, "NUL")
  T.has(policy_error { scope = s, exec = { "sh\0x" } }, "NUL")
  T.has(policy_error { scope = s, exec = { "/usr/bin/env\0x" } }, "NUL")
  T.has(policy_error { scope = s, env = { ["PATH\0X"] = "/tmp" } }, "NUL")
  -- The building block too: a cwd or env name cut short would be another one.
  T.has(T.raises(function() return lcsb.policy { cwd = "/tmp\0/etc" } end), "NUL")
  T.has(T.raises(function() return lcsb.policy { env = { ["PATH\0X"] = "/tmp" } } end), "NUL")
  T.eq(core.normalize("/etc\0/x"), nil, "normalize")
  T.eq(lcsb.which("sh\0x"), nil, "which")
end)

T.case("unknown key: named, at the caller's line", function()
  local s <close> = lcsb.scope()
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, err = pcall(function() local p = lcsb.exec_policy { scope = s, bogus = 1 }; return p end)
  T.ok(not ok, "refused")
  T.has(err, "unknown key 'bogus'")
  T.has(err, ("%s:%d:"):format(ME, line), "position")
  T.has(err, "project, protect, read, scope, secrets, sockets, write", "the keys it knows")
  T.has(policy_error { scope = s, [1] = "x" }, "unknown key '1'")
  T.has(policy_error { scope = s, Read = {} }, "unknown key 'Read'")
end)

T.case("wrong types are named", function()
  local s <close> = lcsb.scope()
  T.has(policy_error { scope = s, read = "/etc" }, "key 'read' must be a table, not a string")
  T.has(policy_error { scope = s, write = true }, "key 'write' must be a table, not a boolean")
  T.has(policy_error { scope = s, project = 5 }, "key 'project' must be a string, not a number")
  T.has(policy_error { scope = s, net = 1 }, "key 'net' must be a boolean or table, not a number")
  T.has(policy_error { scope = s, exec = 5 }, "key 'exec' must be a table or string, not a number")
  T.has(policy_error { scope = s, env = "CI=1" }, "key 'env' must be a table, not a string")
  T.has(policy_error { scope = s, read = { 5 } }, "key 'read': entries must be strings, not number")
  T.has(policy_error { scope = s, exec = { {} } }, "key 'exec': entries must be program names, paths or lcsb.tools presets, not table")
  T.has(policy_error { scope = s, env = { CI = 1 } }, "key 'env.CI': expected a string")
  T.has(policy_error { scope = s, env = { CI = true } }, "env.CI")
  T.has(policy_error { scope = s, env = { [1] = "x" } }, "names must be strings")
  T.has(policy_error { scope = s, env = { ["A=B"] = "x" } }, "A=B")
  -- The structured form: each key named, mixing refused.
  T.has(policy_error { scope = s, env = { pass = { "CI" }, CI = "1" } },
    "'CI' next to pass, set or unset")
  T.has(policy_error { scope = s, env = { pass = "CI" } }, "key 'env.pass' must be a list")
  T.has(policy_error { scope = s, env = { pass = { CI = true } } }, "key 'env.pass' must be a list")
  T.has(policy_error { scope = s, env = { pass = { 5 } } }, "key 'env.pass': entries must be strings")
  T.has(policy_error { scope = s, env = { pass = { "A=B" } } }, "A=B")
  T.has(policy_error { scope = s, env = { pass = { "" } } }, "env.pass")
  T.has(policy_error { scope = s, env = { set = "CI=1" } }, "key 'env.set' must be a table")
  T.has(policy_error { scope = s, env = { set = { CI = false } } }, "key 'env.set.CI'")
  T.has(policy_error { scope = s, env = { set = { CI = 1 } } }, "key 'env.set.CI': expected a string")
  T.has(policy_error { scope = s, env = { unset = "X" } }, "key 'env.unset' must be a list")
  T.has(policy_error { scope = s, env = { set = { X = "1" }, unset = { "X" } } },
    "X is both in set and in unset")
  -- The building block says the same.
  for _, env in ipairs { { pass = { "CI" }, CI = "1" }, { pass = "CI" }, { pass = { 5 } },
    { pass = { "A=B" } }, { set = { CI = false } }, { unset = { X = 1 } },
    { set = { X = "1" }, unset = { "X" } }, { pass = { "A\0B" } } } do
    T.has(T.raises(function() return lcsb.policy { env = env } end), "env")
  end
  T.has(policy_error { scope = s, exec = "all" }, "\"any\"")
  T.has(policy_error { scope = s, net = { connect = { "https" } } }, "net.connect")
  T.has(policy_error { scope = s, net = { connect = { 0 } } }, "port 0")
  T.has(policy_error { scope = s, net = { udp = { 53 } } }, "unknown key 'udp'")
  T.has(policy_error "not a table", "expected a table of options")
  -- Without a scope (plain Lua, no lcsb run) there is nowhere to make HOME.
  T.has(policy_error {}, "no scope owns the private HOME")
end)

T.case("limits as people write them", function()
  local function limits(l) return lcsb.policy { limits = l }:table().limits end
  T.eq(limits { memory = "2G" }.memory, 2 << 30, "2G")
  T.eq(limits { memory = "512M", tmp = "64KiB" }.memory, 512 << 20, "512M")
  T.eq(limits { tmp = "64KiB" }.tmp, 64 << 10, "64KiB")
  T.eq(limits { memory = "1gb" }.memory, 1 << 30, "1gb")
  T.eq(limits { memory = "4096" }.memory, 4096, "digits alone")
  T.eq(limits { time = "30s" }.time, 30, "30s")
  T.eq(limits { time = "10m" }.time, 600, "10m: minutes for time")
  T.eq(limits { time = "2h" }.time, 7200, "2h")
  T.eq(limits { pids = "512", files = 64 }.pids, 512, "a count as a string")
  for _, bad in ipairs { { memory = "2X" }, { memory = "G" }, { memory = "-1G" }, { memory = "1.5G" },
    { memory = "2 G" }, { time = "30G" }, { time = "1d" }, { pids = "1k" }, { memory = "0M" },
    { memory = "99999999999999999999" }, { memory = "16777216T" }, { tmp = "30s" } } do
    local name, value = next(bad)
    T.has(T.raises(function() return limits(bad) end), ("%s = \"%s\" is not"):format(name, value),
      name .. " " .. value)
  end
  T.has(T.raises(function() return limits { memory = 1.5 } end), "memory must be a positive whole "
    .. "number (bytes, or with K, M, G or T", "a fraction")
end)

T.case("a net.domains entry for the loopback is warned of: clients go there without the proxy",
  function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s, net = { domains = { "localhost:8082", "build.example.org:80",
    "[::1]:9000", ["127.0.0.1:8444"] = { methods = { "GET" } } } } }
  local warned = table.concat(t.warnings, "\n")
  for _, entry in ipairs { "localhost:8082", "[::1]:9000", "127.0.0.1:8444" } do
    T.has(warned, "net.domains: " .. entry .. " is the loopback", entry)
  end
  T.has(warned, 'name it by the machine\'s name and add net = { lan = { "127.0.0.0/8" } }', "how")
  T.hasnt(warned, "build.example.org", "a host by name: no warning")
  T.eq(#policy { scope = s, net = { domains = { "build.example.org" } } }.warnings, 0, "none")
end)

T.case("a net.domains entry's unknown key is named", function()
  local s <close> = lcsb.scope()
  local err = policy_error { scope = s, net = { domains = { ["vm.example:8443"] = {
    method = { "GET" } } } } }
  T.has(err, "policy key 'net.domains[\"vm.example:8443\"]': unknown key 'method' (expected {", "named")
  err = policy_error { scope = s, net = { domains = { ["vm.example:8443"] = { once = "yes" } } } }
  T.has(err, "net.domains[\"vm.example:8443\"].once': expected {", "a known key, a wrong value")
end)

T.case("env overlay and network", function()
  local s <close> = lcsb.scope()
  -- The simple form: the overlay alone, given back in the structured one.
  local t = policy { scope = s, env = { CI = "1", AWS_SECRET_ACCESS_KEY = false, EMPTY = "" } }
  T.eq(t.env.set.CI, "1", "CI")
  T.contains(t.env.unset, "AWS_SECRET_ACCESS_KEY", "unset")
  T.eq(t.env.set.EMPTY, "", "empty value")
  T.eq(#t.env.pass, 0, "nothing passed")
  T.ok(t.env.set.HOME and t.env.set.TMPDIR, "HOME and TMPDIR still set")
  -- The overlay is applied after HOME and TMPDIR.
  t = policy { scope = s, env = { HOME = "/somewhere" } }
  T.eq(t.env.set.HOME, "/somewhere", "HOME overridden")
  t = policy { scope = s, env = { HOME = false } }
  T.eq(t.env.set.HOME, nil, "HOME unset")
  T.contains(t.env.unset, "HOME", "HOME unset")
  -- The structured form, and the C core's policy:table() giving it back.
  t = policy { scope = s, env = { pass = { "CI", "NPM_CONFIG_*" }, set = { CI = "1" },
    unset = { "X" } } }
  T.eq(t.env.pass[1], "CI", "pass")
  T.eq(t.env.pass[2], "NPM_CONFIG_*", "pass pattern")
  T.eq(t.env.set.CI, "1", "set")
  T.ok(t.env.set.HOME, "HOME still set")
  T.contains(t.env.unset, "X", "unset")
  local back = t.policy:table().env
  T.eq(back.pass[2], "NPM_CONFIG_*", "table() pass")
  T.eq(back.set.CI, "1", "table() set")
  T.eq(back.unset[1], "X", "table() unset")
  -- A variable called pass is set under set.
  t = policy { scope = s, env = { set = { pass = "word" } } }
  T.eq(t.env.set.pass, "word", "a variable named pass")
  T.eq(policy { scope = s, net = true }.net, true, "open")
  T.eq(policy { scope = s, net = false }.net, false, "denied")
  local ports = policy { scope = s, net = { connect = { 443, 80 }, bind = { 8080 } } }.net
  T.eq(ports.connect[1], 443, "connect")
  T.eq(ports.connect[2], 80, "connect")
  T.eq(ports.bind[1], 8080, "bind")
end)

T.case("degrade: none by default; names the parts, refuses others", function()
  local s <close> = lcsb.scope()
  T.eq(#policy { scope = s }.degrade, 0, "nothing degrades unless asked")
  local t = policy { scope = s, degrade = { "terminal", "scope", "scope" } }
  T.eq(table.concat(t.degrade, ","), "terminal,scope,scope", "the result: as the script said it")
  T.eq(table.concat(t.policy:table().degrade, ","), "scope,terminal",
    "the policy: the parts, once each, in lcsb's order")
  local err = policy_error { scope = s, degrade = { "scope", "fs" } }
  T.has(err, "entry 2 is \"fs\", not a part", "unknown part named")
  T.has(err, "net, scope, truncate, ioctl, terminal", "the parts listed")
  err = policy_error { scope = s, degrade = { 7 } }
  T.has(err, "entry 1 is a number", "wrong type named")
  err = policy_error { scope = s, degrade = "scope" }
  T.has(err, "key 'degrade' must be a table", "a list, not a string")
end)

T.case("protect: a repository's hooks and config by default, more on request", function()
  local s <close> = lcsb.scope()
  local dir = T.tmpdir()
  T.eq(#policy { scope = s, project = dir }.protect, 0, "no repository, nothing to protect")
  T.sh("mkdir -p " .. T.q(dir .. "/.git/hooks") .. " " .. T.q(dir .. "/keep") .. " && touch "
    .. T.q(dir .. "/.git/config"))
  local t = policy { scope = s, project = dir }
  table.sort(t.protect)
  T.eq(table.concat(t.protect, " "), dir .. "/.git/config " .. dir .. "/.git/hooks", "the default")
  t = policy { scope = s, project = dir, protect = { dir .. "/keep" } }
  T.eq(#t.protect, 3, "added to the default")
  t = policy { scope = s, project = dir, protect = false }
  T.eq(#t.protect, 0, "protect = false turns the default off")
  T.has(policy_error { scope = s, project = dir, protect = true }, "must be a list", "true")
  T.has(policy_error { scope = s, project = dir, protect = { "rel" } }, "not an absolute path",
    "relative")
  T.has(policy_error { scope = s, project = dir, protect = { dir .. "/later" } },
    "does not exist", "a path that is not there cannot be kept from being created")
end)

-- The coding agents' configuration (lua/lcsb/agents.lua) is protected by
-- default where it exists, as the repository's hooks and config are; a "!"
-- entry lets one default go by its name, and nothing else: an entry that
-- lets none go, or is no name, is an error naming it.
T.case("protect: the agents' configuration by default; \"!NAME\" lets one go", function()
  local s <close> = lcsb.scope()
  local dir = T.tmpdir()
  T.sh("mkdir -p " .. T.q(dir .. "/.git/hooks") .. " " .. T.q(dir .. "/.claude") .. " "
    .. T.q(dir .. "/.cursor") .. " " .. T.q(dir .. "/.vscode") .. " && touch "
    .. T.q(dir .. "/.git/config") .. " " .. T.q(dir .. "/.claude/settings.json") .. " "
    .. T.q(dir .. "/.mcp.json") .. " " .. T.q(dir .. "/.vscode/mcp.json") .. " "
    .. T.q(dir .. "/.vscode/tasks.json"))
  local function protected(t)
    local list = table.move(t.protect, 1, #t.protect, 1, {})
    for i, path in ipairs(list) do list[i] = path:sub(#dir + 2) end
    table.sort(list)
    return table.concat(list, " ")
  end
  local t = policy { scope = s, project = dir }
  T.eq(protected(t), ".claude .cursor .git/config .git/hooks .mcp.json .vscode/mcp.json",
    "the defaults that exist (the rest of .vscode is not an agent's)")
  T.eq(protected(policy { scope = s, project = dir, protect = { "!.claude", "!.mcp.json" } }),
    ".cursor .git/config .git/hooks .vscode/mcp.json", "two let go by name")
  T.eq(protected(policy { scope = s, project = dir, protect = { "!.git" } }),
    ".claude .cursor .mcp.json .vscode/mcp.json", "\"!.git\": the three of git's")
  T.eq(protected(policy { scope = s, project = dir, protect = { "!.vscode", dir .. "/.git" } }),
    ".claude .cursor .git .git/config .git/hooks .mcp.json",
    "a directory's name lets those below it go; a path of the policy's own adds to them")
  T.eq(#policy { scope = s, project = dir, protect = false }.protect, 0, "false: none of them")
  -- What became of each, for lcsb check (no run here: nothing is held).
  local lines = table.concat(policy { scope = s, project = dir,
    protect = { "!.cursor" } }.defaults, "\n")
  T.has(lines, "read-only  .claude: Claude Code runs the hooks", ".claude, with why")
  T.has(lines, 'let go     .cursor: Cursor starts', ".cursor let go")
  T.has(lines, '(protect = { "!.cursor" })', "by which entry")
  T.has(lines, "not there  .codex: Codex", "not there, and not held outside a run")
  T.has(lines, "not there  .aider.conf.yml: aider runs", "a file not there")
  T.eq(policy { scope = s, project = dir, protect = false }.defaults[1],
    "(none: protect = false turns every default off)", "false")
  -- Every default is named by its path and says why.
  for _, d in ipairs(lcsb.protect_default) do
    T.ok(type(d.path) == "string" and not d.path:find("^/") and type(d.why) == "string",
      "a default: " .. tostring(d.path))
  end
  -- Errors name the key, the entry and what is wrong with it.
  local function refused(entry, want, what)
    local err = policy_error { scope = s, project = dir, protect = { dir .. "/.git", entry } }
    T.has(err, ("key 'protect': entry 2 (%q)"):format(entry), what)
    T.has(err, want, what)
  end
  refused("!.claud", "lets no default go; the defaults are: .aider.conf.yml, .claude,", "a typo")
  refused("!", "names no default", "nothing after the !")
  refused("!/p/.claude", "not a default's name", "a path")
  refused("!~/.claude", "not a default's name", "a HOME path")
  refused("!.claude/", "not a default's name", "a trailing slash")
  refused("!./.claude", "not a default's name", "a dot")
  refused("!.git/../.claude", "not a default's name", "a dot-dot")
  refused("!src", "lets no default go", "a name that is no default")
  T.has(policy_error { scope = s, project = dir, protect = { claude = false } },
    "key 'protect' must be a list of paths, or false, not a table with the key claude", "a map")
  T.has(policy_error { scope = s, project = dir, protect = { 7 } }, "entries must be strings",
    "a number")
  -- A default a policy script adds is data too, held to the same form.
  table.insert(lcsb.protect_default, { path = "../elsewhere", why = "x" })
  local err = policy_error { scope = s, project = dir }
  table.remove(lcsb.protect_default)
  T.has(err, ("lcsb.protect_default: entry %d: expected a table with a path from the project's "
    .. "root"):format(#lcsb.protect_default + 1), "a default out of the project")
  table.insert(lcsb.protect_default, { path = "keep", why = "a test keeps it" })
  T.sh("mkdir -p " .. T.q(dir .. "/keep"))
  local added = protected(policy { scope = s, project = dir })
  table.remove(lcsb.protect_default)
  T.has(added, " keep", "a default a policy script added")
end)

-- A .git the command made a symlink to a repository elsewhere: nothing is
-- made through it (no hooks directory outside the project).
T.case("protect: a .git symlink is not followed to make hooks", function()
  local s <close> = lcsb.scope()
  local dir, elsewhere = T.tmpdir(), T.tmpdir()
  T.sh("touch " .. T.q(elsewhere .. "/config") .. " && ln -s " .. T.q(elsewhere) .. " "
    .. T.q(dir .. "/.git"))
  pcall(policy, { scope = s, project = dir })
  T.eq(lcsb.kind(elsewhere .. "/hooks"), nil, "no hooks made outside the project")
end)

T.case('exec = "any" turns the allowlist off', function()
  local s <close> = lcsb.scope()
  local t, p = policy { scope = s, exec = "any" }
  T.eq(t.exec, "any", "exec")
  local cap = lcsb.detect()
  if cap.landlock_abi > 0 and cap.shim_found then
    local argv = assert(lcsb.wrap(p, { "true" }, "landlock"))
    local a = lcsb.attest(argv)
    T.eq(a.backend, "landlock", "backend")
    T.eq(a.exec, "open", "attested exec")
    argv = assert(lcsb.wrap(policy { scope = s }, { "true" }, "landlock"))
    T.eq(lcsb.attest(argv).exec, "allowlist", "attested exec with the allowlist")
  end
end)

T.case("exec names resolve to real files, interpreters included", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s, exec = { "sh" } }
  local sh = realpath(on_path("sh"))
  T.eq(t.exec[1], sh, "sh resolved through its symlinks first")
  local interp = elf_interp(sh)
  if interp then T.contains(t.exec, realpath(interp), "exec (sh's ELF interpreter)") end
  T.contains(t.exec, "/usr/bin/env", "exec")
  for _, f in ipairs(t.exec) do
    T.eq(lcsb.kind(f), "file", f)
    T.eq(realpath(f), f, "resolved: " .. f)
    T.eq(T.count(t.exec, f), 1, "listed once: " .. f)
  end

  -- A script: itself, its #! interpreter and that one's ELF interpreter; for
  -- `#!/usr/bin/env NAME`, env and NAME too.
  local dir = T.tmpdir()
  T.write(dir .. "/tool", "#!/bin/sh\necho hi\n", "755")
  T.write(dir .. "/envtool", "#!/usr/bin/env sh\necho hi\n", "755")
  t = policy { scope = s, exec = { dir .. "/tool", dir .. "/envtool" } }
  T.contains(t.exec, dir .. "/tool", "exec")
  T.contains(t.exec, dir .. "/envtool", "exec")
  T.contains(t.exec, realpath("/bin/sh"), "exec")
  T.contains(t.exec, "/usr/bin/env", "exec")
  -- A directory is taken as it is; validation judges it.
  t = policy { scope = s, exec = { dir } }
  T.contains(t.exec, dir, "exec")
  -- A name that cannot be found is an error naming it.
  T.has(policy_error { scope = s, exec = { "lcsb-no-such-program" } }, "lcsb-no-such-program")
  T.has(policy_error { scope = s, exec = { dir .. "/missing" } }, dir .. "/missing")
end)

T.case("/usr/bin/env is always in the allowlist", function()
  local s <close> = lcsb.scope()
  for _, opts in ipairs { { scope = s }, { scope = s, exec = {} }, { scope = s, exec = { "env" } },
    { scope = s, exec = { "sh", "/usr/bin/env" } } } do
    local t = policy(opts)
    T.eq(T.count(t.exec, "/usr/bin/env"), 1, "/usr/bin/env")
    local interp = elf_interp("/usr/bin/env")
    if interp then T.contains(t.exec, realpath(interp), "env's interpreter") end
  end
end)

T.case("private: directories the run makes, their links checked and given back", function()
  local spec = { { path = "/tmp/lcsb-home.x", links = { ".gitconfig", "/home/u/.gitconfig",
    ".cache/pip", "/c/pip" } }, { path = "/tmp/lcsb-tmp.x" } }
  local t = lcsb.policy { write = { "/tmp/lcsb-home.x", "/tmp/lcsb-tmp.x" }, private = spec }:table()
  T.eq(#t.private, 2, "both")
  T.eq(t.private[1].path, "/tmp/lcsb-home.x", "HOME's path")
  T.eq(table.concat(t.private[1].links, " "), ".gitconfig /home/u/.gitconfig .cache/pip /c/pip",
    "HOME's links, in order")
  T.eq(#t.private[2].links, 0, "TMPDIR holds nothing")
  -- The table is one lcsb.policy takes again, and gives back the same.
  local again = lcsb.policy(t):table()
  T.eq(table.concat(again.private[1].links, " "), table.concat(t.private[1].links, " "), "again")
  local function refused(entry)
    return T.raises(function() return lcsb.policy { private = { entry } } end)
  end
  T.has(refused { path = "tmp/x" }, "private")
  T.has(refused { path = "/" }, "private")
  for _, rel in ipairs { "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/", "" } do
    T.has(refused { path = "/tmp/x", links = { rel, "/t" } }, "no relative path inside it")
  end
  T.has(refused { path = "/tmp/x", links = { "a", "t" } }, "private link")
  T.has(refused { path = "/tmp/x", links = { "a", "/t/../u" } }, "private link")
  T.has(refused { path = "/tmp/x", links = { "a" } }, "without its target")
  T.has(refused { path = "/tmp/x", links = { "a", "/t\0/u" } }, "NUL")
end)

T.run()
