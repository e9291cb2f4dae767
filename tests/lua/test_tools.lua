-- lcsb.tools: presets, exec closures and built programs, as exec_policy
-- resolves them. Version managers are laid out in temporary trees (their
-- files as the real ones are, scripts and all); gcc and git are this host's.
-- Run by ctest with stock lua5.4 and the built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)
local lcsb = require "lcsb"
local tools = lcsb.tools

local policy, realpath, policy_error, on_path = H.policy, H.realpath, H.policy_error, H.on_path

-- A file at PATH with TEXT, executable unless PLAIN.
local function put(path, text, plain)
  T.sh("mkdir -p " .. T.q(path:match("^(.*)/[^/]*$")))
  local f = assert(io.open(path, "w"))
  f:write(text or "#!/bin/sh\n")
  f:close()
  if not plain then T.sh("chmod +x " .. T.q(path)) end
end

local function tmpdir(s, label) return realpath(assert(s:mkdtemp(label))) end

-- The closure named TOOL applied to the program at FILE (listed as NAME),
-- with CTX's project and variables: what it needs.
local function need_of(tool, file, name, ctx)
  local prog = { name = name or file, file = file }
  for _, c in ipairs(tools.closures_of(prog)) do
    if c.entry.tool == tool then
      if not c.entry.resolve then return c.entry end
      return c.entry.resolve(c.matched, prog, {
        project = ctx.project, getenv = function(n) return (ctx.env or {})[n] end,
      })
    end
  end
  return nil
end

local function has_line(lines, text)
  for _, line in ipairs(lines or {}) do
    if line:find(text, 1, true) then return true end
  end
  return false
end

T.case("gcc brings its internal programs, assembler and linker, as files", function()
  local s <close> = lcsb.scope()
  local r = policy { scope = s, exec = { "gcc" } }
  local cc1 = T.trim(T.sh("gcc -print-prog-name=cc1"))
  T.contains(r.exec, realpath(cc1), "cc1")
  T.contains(r.exec, realpath(T.trim(T.sh("gcc -print-prog-name=collect2"))), "collect2")
  T.contains(r.exec, realpath(T.trim(T.sh("command -v as"))), "as")
  T.contains(r.exec, realpath(T.trim(T.sh("command -v ld"))), "ld")
  T.lacks(r.exec, realpath(cc1):match("^(.*)/[^/]*$"), "never its directory")
  T.ok(has_line(r.tools, "closure gcc (for gcc): cc1"), "check names the closure")
  -- Any spelling of the compiler is gcc.
  T.eq(tools.family("/usr/bin/x86_64-linux-gnu-gcc-12"), "gcc", "a triple and a version")
  T.eq(tools.family("cc"), "cc", "cc")
  T.eq(tools.family("/usr/bin/gcc-12.2"), "gcc", "a dotted version")
  T.eq(tools.family("/usr/bin/x86_64-linux-gnu-ld.bfd"), "ld.bfd", "a triple, no version")
  T.eq(tools.family("/usr/lib/git-core/git-http-fetch"), "git-http-fetch", "a name with dashes")
  T.eq(tools.family("/opt/x-linux-gnu-/bin/cc-1x"), "cc-1x", "a triple in a directory is no triple")
end)

-- The split every file of a composition's is asked of, as the patterns it
-- stands for ("^(.+)/[^/]*$" and what follows the last slash) say it.
T.case("core.split: a path at its last slash, as text", function()
  local core = require "lcsb.core"
  local function split(path) return table.pack(core.split(path)) end
  for _, case in ipairs {
    { "/usr/bin/cat", "/usr/bin", "cat" }, { "/cat", nil, "cat" }, { "cat", nil, "cat" },
    { "/usr/", "/usr", "" }, { "", nil, "" }, { "a/b", "a", "b" }, { "//x", "/", "x" },
    { "/", nil, "" }, { "a\0b/c", "a\0b", "c" },
  } do
    local got = split(case[1])
    T.eq(got.n, 2, "two values for " .. case[1])
    T.eq(got[1], case[2], "the directory of " .. case[1])
    T.eq(got[2], case[3], "the name of " .. case[1])
    if case[1]:find("\0", 1, true) == nil then
      T.eq(got[1], case[1]:match("^(.+)/[^/]*$"), "as the pattern says, for " .. case[1])
    end
  end
end)

T.case("git brings its exec-path helpers; the preset brings its config", function()
  local s <close> = lcsb.scope()
  local exec_path = T.trim(T.sh("git --exec-path"))
  local r = policy { scope = s, exec = { "git" } }
  T.contains(r.exec, realpath(exec_path .. "/git-remote-https"), "remote-https")
  T.contains(r.exec, realpath(T.trim(T.sh("command -v sh"))), "sh for hooks")
  T.lacks(r.exec, exec_path, "never the directory")
  T.eq(#r.home_wanted, 0, "plain git brings no config of the user's")
  local p = policy { scope = s, exec = { lcsb.tools.git } }
  T.contains(p.home_wanted, ".gitconfig", "the preset does")
  T.lacks(p.home_wanted, ".config/git", "not the directory that may hold credentials")
end)

T.case("make's closure is sh, which runs its recipes", function()
  local s <close> = lcsb.scope()
  local r = policy { scope = s, exec = {} }
  T.lacks(r.exec, realpath("/bin/sh"), "no command, no sh")
  -- As data: make's closure names sh.
  local need = need_of("make", realpath(T.trim(T.sh("command -v make"))), "make", {})
  T.contains(need.exec, "sh", "make's closure")
end)

T.case("presets: programs, nesting, absent ones passed over and named", function()
  local s <close> = lcsb.scope()
  local r = policy { scope = s, exec = { lcsb.tools.shell, "make" } }
  for _, name in ipairs { "sed", "sort", "cut", "tr", "mktemp", "xargs", "echo", "find", "diff" } do
    T.contains(r.exec, realpath(on_path(name)), name)
  end
  for _, name in ipairs { "curl", "wget", "ssh", "nc", "sudo", "su", "chroot", "setpriv", "unshare" } do
    local path = on_path(name)
    if path then T.lacks(r.exec, realpath(path), name .. " is no shell tool") end
    T.ok(not T.member(lcsb.tools.shell, name), name .. " not in the preset")
  end
  local mine = tools.preset("mine", { lcsb.tools.shell, "no-such-program-x", home = { ".x" } })
  local p = policy { scope = s, exec = { mine } }
  T.contains(p.exec, realpath(on_path("sed")), "nested preset")
  T.ok(has_line(p.tools, "preset mine:"), "named")
  T.ok(has_line(p.tools, "not installed here: no-such-program-x"), "the absent one named")
  T.contains(p.home_wanted, ".x", "its home entry")
  T.has(T.raises(function() return tools.preset("x") end), "lcsb.tools.preset(NAME")
end)

T.case("exec's entries: wrong types, unknown keys, built", function()
  local s <close> = lcsb.scope()
  T.has(policy_error { scope = s, exec = { 42 } }, "entries must be program names, paths or")
  T.has(policy_error { scope = s, exec = { bogus = true } }, "unknown key 'bogus'")
  T.has(policy_error { scope = s, exec = { built = "yes" } }, "key 'exec.built' must be true or false")
  local project = tmpdir(s, "proj")
  local r = policy { scope = s, project = project, exec = { built = true } }
  T.contains(r.exec, project, "the project may run")
  T.contains(r.built, project, "and it says so")
  T.ok(has_line(r.tools, "built = true: every file in " .. project
    .. " and in the run's private TMPDIR may run"), "check says so")
  -- The run's private TMPDIR, where go test builds what it runs next.
  local tmp = r.env.set.TMPDIR
  T.ok(tmp and tmp ~= project, "a private TMPDIR")
  T.contains(r.exec, tmp, "the private TMPDIR may run")
  T.contains(r.built, tmp, "and it says so")
  local plain = policy { scope = s, project = project, exec = {} }
  T.lacks(plain.exec, project, "not without built")
  T.lacks(plain.exec, plain.env.set.TMPDIR, "nor the TMPDIR")
  T.eq(#plain.built, 0, "nothing built")
end)

T.case("a program not built yet: its directory inside the project, a warning; outside, 125", function()
  local s <close> = lcsb.scope()
  local project = tmpdir(s, "proj")
  T.sh("mkdir -p " .. T.q(project .. "/target/debug"))
  local r = policy { scope = s, project = project, exec = { "target/debug/hello", "./app" } }
  T.contains(r.exec, project .. "/target/debug", "the nearest directory that exists")
  T.contains(r.exec, project, "./app's")
  T.ok(has_line(r.warnings, project .. "/target/debug/hello does not exist yet"), "warned")
  local nested = policy { scope = s, project = project, exec = { "out/bin/tool" } }
  T.contains(nested.exec, project, "above what is not there yet, still in the project")
  T.ok(has_line(nested.warnings, "its own directory, " .. project .. "/out/bin, does not exist either"),
    "the widening said")
  T.ok(not has_line(r.warnings, "does not exist either"), "not where its own directory is there")
  T.has(policy_error { scope = s, project = project, exec = { "/opt/no-such/app" } },
    "a program not built yet may be named only inside the project")
  -- Once built, it is the file itself.
  put(project .. "/app", "#!/bin/sh\necho hi\n")
  local built = policy { scope = s, project = project, exec = { "./app" } }
  T.contains(built.exec, project .. "/app", "the file")
  T.lacks(built.exec, project, "not the project")
  T.eq(#built.warnings, 0, "no warning")
end)

T.case("pyenv: the shim, its scripts, and the version it selects", function()
  local s <close> = lcsb.scope()
  local root, project = tmpdir(s, "pyenv"), tmpdir(s, "proj")
  put(root .. "/shims/python3", '#!/bin/sh\nexec "' .. root .. '/libexec/pyenv" exec python3 "$@"\n')
  put(root .. "/libexec/pyenv")
  put(root .. "/libexec/pyenv-exec")
  put(root .. "/plugins/pyenv-virtualenv/bin/pyenv-virtualenv")
  put(root .. "/versions/3.11.7/bin/python3")
  put(root .. "/versions/3.12.1/bin/python3")
  put(root .. "/version", "3.11.7\n", true)
  local shim = root .. "/shims/python3"
  local need = need_of("pyenv", shim, "python3", { project = project })
  T.contains(need.exec, root .. "/versions/3.11.7/bin/python3", "the global version")
  T.lacks(need.exec, root .. "/versions/3.12.1/bin/python3", "not another")
  T.contains(need.exec, root .. "/libexec/pyenv-exec", "its scripts")
  T.contains(need.exec, root .. "/plugins/pyenv-virtualenv/bin/pyenv-virtualenv", "plugins")
  T.contains(need.exec, "bash", "bash")
  T.contains(need.read, root, "its root, readable")
  put(project .. "/.python-version", "3.12.1\n", true)
  need = need_of("pyenv", shim, "python3", { project = project .. "/sub/dir" })
  T.contains(need.exec, root .. "/versions/3.12.1/bin/python3", "the project's, from below it")
  need = need_of("pyenv", shim, "python3", { project = project, env = { PYENV_VERSION = "3.11.7" } })
  T.contains(need.exec, root .. "/versions/3.11.7/bin/python3", "the variable first")
  -- The project's version file is the command's to write: a path in it
  -- leads nowhere (here, to a program the project built).
  put(project .. "/evil/bin/python3")
  put(project .. "/.python-version", "../../../../../../.." .. project .. "/evil\n", true)
  need = need_of("pyenv", shim, "python3", { project = project })
  T.lacks(need.exec, root .. "/versions/../../../../../../.." .. project .. "/evil/bin/python3", "no way out")
  for _, f in ipairs(need.exec) do
    T.ok(type(f) ~= "string" or not f:find("evil", 1, true), "nothing of the project's: " .. tostring(f))
  end
  put(project .. "/.python-version", "3.12.1\n", true)
  -- Through exec_policy: every file resolved, the root readable.
  local r = policy { scope = s, project = project, exec = { shim } }
  T.contains(r.exec, root .. "/versions/3.12.1/bin/python3", "resolved")
  T.contains(r.read, root, "read")
  T.ok(has_line(r.tools, "closure pyenv (for "), "named")
  -- A shims directory of something else is no pyenv.
  local other = tmpdir(s, "other")
  put(other .. "/shims/python3")
  T.eq(need_of("pyenv", other .. "/shims/python3", "python3", { project = project }), nil, "no libexec/pyenv")
end)

T.case("asdf and a node prefix of the user's", function()
  local s <close> = lcsb.scope()
  local root, project = tmpdir(s, "asdf"), tmpdir(s, "proj")
  put(root .. "/bin/asdf")
  put(root .. "/shims/node")
  put(root .. "/installs/nodejs/20.1.0/bin/node")
  local need = need_of("asdf", root .. "/shims/node", "node", { project = project })
  T.contains(need.exec, root .. "/installs/nodejs/20.1.0/bin/node", "the installed node")
  T.contains(need.exec, root .. "/bin/asdf", "asdf")
  T.contains(need.read, root, "readable")
  local nvm = tmpdir(s, "nvm")
  local prefix = nvm .. "/versions/node/v20.1.0"
  put(prefix .. "/bin/node")
  need = need_of("node prefix", prefix .. "/bin/node", "node", { project = project })
  T.contains(need.read, prefix, "the prefix, for its libraries")
  T.eq(need_of("node prefix", "/usr/bin/node", "node", {}), nil, "not the system's")
end)

T.case("rustup: the proxies, the selected toolchain, RUSTUP_HOME named", function()
  local s <close> = lcsb.scope()
  local home, project = tmpdir(s, "home"), tmpdir(s, "proj")
  local bin, rustup = home .. "/.cargo/bin", home .. "/.rustup"
  put(bin .. "/rustup")
  put(bin .. "/cargo")
  put(bin .. "/rustc")
  put(rustup .. "/settings.toml", 'default_toolchain = "stable-x86_64-unknown-linux-gnu"\n', true)
  for _, tc in ipairs { "stable-x86_64-unknown-linux-gnu", "nightly-x86_64-unknown-linux-gnu" } do
    put(rustup .. "/toolchains/" .. tc .. "/bin/cargo")
    put(rustup .. "/toolchains/" .. tc .. "/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld")
  end
  local stable = rustup .. "/toolchains/stable-x86_64-unknown-linux-gnu"
  local nightly = rustup .. "/toolchains/nightly-x86_64-unknown-linux-gnu"
  local need = need_of("rustup", bin .. "/cargo", "cargo", { project = project, env = { HOME = home } })
  T.contains(need.exec, stable .. "/bin/cargo", "the default toolchain")
  T.contains(need.exec, stable .. "/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld", "its linker")
  T.lacks(need.exec, nightly .. "/bin/cargo", "not another")
  T.contains(need.exec, bin .. "/rustc", "the other proxies")
  T.contains(need.exec, "cc", "cc links")
  T.eq(need.env.RUSTUP_HOME, rustup, "named")
  T.eq(need.env.RUSTUP_TOOLCHAIN, "stable-x86_64-unknown-linux-gnu", "the toolchain")
  put(project .. "/rust-toolchain.toml", '[toolchain]\nchannel = "nightly"\n', true)
  need = need_of("rustup", bin .. "/cargo", "cargo", { project = project, env = { HOME = home } })
  T.contains(need.exec, nightly .. "/bin/cargo", "the project's channel")
  need = need_of("rustup", bin .. "/cargo", "cargo",
    { project = project, env = { HOME = home, RUSTUP_TOOLCHAIN = "stable" } })
  T.contains(need.exec, stable .. "/bin/cargo", "the variable first")
  T.eq(need_of("rustup", home .. "/cargo-alone", "cargo", {}), nil, "no rustup beside it")
end)

T.case("a closure's variable yields to the policy's env", function()
  local s <close> = lcsb.scope()
  local saved = tools.closures
  tools.closures = { { tool = "t", names = { "true" }, env = { A_VAR = "closure", B_VAR = "closure" } } }
  local ok, r = pcall(policy, { scope = s, exec = { "true" }, env = { A_VAR = "policy" } })
  local ok2, u = pcall(policy, { scope = s, exec = { "true" }, env = { unset = { "B_VAR" } } })
  tools.closures = saved
  T.ok(ok and ok2, "built")
  T.eq(r.env.set.A_VAR, "policy", "the policy's value")
  T.eq(r.env.set.B_VAR, "closure", "the closure's")
  T.eq(u.env.set.B_VAR, nil, "unset wins")
end)

-- passes_through as exec_policy asked it in Lua before it moved to C: the
-- reference the C walk is held to, step by step.
local function passes_through_reference(path, set)
  local core = require "lcsb.core"
  local parts = {}
  for part in path:gmatch("[^/]+") do parts[#parts + 1] = part end
  local at, i, hops = "", 1, 0
  while i <= #parts do
    local part = parts[i]
    i = i + 1
    if part == ".." then
      at = at:match("^(.*)/[^/]*$") or ""
    elseif part ~= "." then
      local here = at .. "/" .. part
      if set["/"] or set[here] then return true end
      local target = core.lstat(here) == "link" and core.readlink(here)
      if target then
        hops = hops + 1
        if hops > 40 then return true end
        local rest = {}
        for p in target:gmatch("[^/]+") do rest[#rest + 1] = p end
        table.move(parts, i, #parts, #rest + 1, rest)
        parts, i = rest, 1
        if target:sub(1, 1) == "/" then at = "" end
      else
        at = here
      end
    end
  end
  return false
end

T.case("passes_through walks as the reference does, links, dots and loops", function()
  local core = require "lcsb.core"
  local s <close> = lcsb.scope()
  local d = tmpdir(s, "through")
  for _, dir in ipairs { "w", "r/sub", "r/deep/er" } do T.sh("mkdir -p " .. T.q(d .. "/" .. dir)) end
  put(d .. "/r/file")
  put(d .. "/w/file")
  for target, link in pairs {
    ["../w"] = "r/to_w", [d .. "/w/file"] = "r/abs_w", ["sub/../file"] = "r/dotted",
    ["loop_b"] = "r/loop_a", ["loop_a"] = "r/loop_b", ["nowhere"] = "r/dangling",
    ["../../r/deep/er"] = "w/back", ["deep"] = "r/deep_link", ["/"] = "r/root",
    ["./file"] = "r/same", [d .. "/r/chain2"] = "r/chain1", ["to_w/file"] = "r/chain2",
  } do
    T.sh(("ln -s %s %s"):format(T.q(target), T.q(d .. "/" .. link)))
  end
  local sets = { {}, { [d .. "/w"] = true }, { ["/"] = true }, { [d .. "/r/sub"] = true },
    { [d .. "/r/deep/er"] = true }, { [d .. "/w"] = false } }
  local ways = { "", "/", "r/file", "r/to_w/file", "r/abs_w", "r/dotted", "r/loop_a", "r/dangling",
    "r/dangling/x", "w/back", "w/back/..", "r/deep_link/er", "r/root" .. d .. "/w", "r/same",
    "r/chain1", "./r/../r/file", "r/sub/../../w/file", "r/../../..", "r//sub///x", "r/sub/.",
    "missing/../r/file" }
  -- Asked of the host, then through a composition's facts, as exec_policy
  -- asks it.
  local n = 0
  for _, composing in ipairs { false, true } do
    if composing then core.compose_begin(false) end
    for _, way in ipairs(ways) do
      for k, set in ipairs(sets) do
        local path = way:sub(1, 1) == "/" and way or (way == "" and "" or d .. "/" .. way)
        T.eq(core.passes_through(path, set), passes_through_reference(path, set),
          ("%s through set %d%s"):format(path, k, composing and ", composing" or ""))
        n = n + 1
      end
    end
    if composing then core.compose_end() end
  end
  -- And some that must answer yes, so the comparison above is not two
  -- walks that never find anything.
  T.ok(core.passes_through(d .. "/r/to_w/file", { [d .. "/w"] = true }), "a link into w")
  T.ok(core.passes_through(d .. "/r/chain1", { [d .. "/w"] = true }), "two links into w")
  T.ok(core.passes_through(d .. "/r/loop_a", {}), "a loop of links trusts nothing")
  T.ok(not core.passes_through(d .. "/r/file", { [d .. "/w"] = true }), "r's own file")
  T.ok(core.passes_through(d .. "/" .. ("x/"):rep(5000), {}), "a way longer than the kernel's")
  -- A link whose target, with what is left after it, is longer than that.
  T.sh(("ln -s %s %s"):format(T.q(("y/"):rep(2000)), T.q(d .. "/r/long")))
  local beyond = d .. "/r/long/" .. ("z/"):rep(2200)
  T.ok(not passes_through_reference(beyond, {}), "the reference walks it")
  T.ok(core.passes_through(beyond, {}), "a way that grows past its bound through a link")
  T.ok(n > 200, "cases compared")
end)

T.run()
