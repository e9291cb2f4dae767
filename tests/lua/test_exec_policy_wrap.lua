-- lcsb.wrap and lcsb.attest from Lua, the Seatbelt and OCI worlds, and the
-- built lcsb CLI around a policy: check, wrap's JSON, and errors that name the
-- script's line. Run by ctest with stock lua5.4 and the built lcsb/core.so;
-- the last cases drive the built lcsb CLI.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)
local lcsb = require "lcsb"
local core = require "lcsb.core"
local cjson = require "cjson"

local policy, realpath, on_path, policy_error = H.policy, H.realpath, H.on_path, H.policy_error

T.case("lcsb.wrap and lcsb.attest take their optional arguments as optional", function()
  local cap = lcsb.detect()
  local s <close> = lcsb.scope()
  local _, p = policy { scope = s, exec = { "sh" } }
  local cmd = { "sh", "-c", "true" }
  -- Two arguments: auto. Without a mechanism, auto refuses rather than
  -- running unsandboxed; either way no argument error.
  local argv, err = lcsb.wrap(p, cmd)
  local landlock = cap.landlock_abi > 0 and cap.shim_found
  if not landlock then
    T.eq(argv, nil, "auto without a mechanism")
    T.ok(type(err) == "string" and err ~= "", "a message")
  else
    T.ok(argv, "wrap(policy, argv): " .. tostring(err))
    T.eq(argv[1], cap.shim, "the shim first")
    T.ok(T.member(argv, "--"), "-- in the argv")
    T.eq(argv[#argv], "true", "the command last")
    -- attest with one argument: that argv's backend.
    local a = assert(lcsb.attest(argv))
    T.eq(a.backend, "landlock", "attest(argv)")
    T.eq(a.fs, "enforced", "fs")
    T.eq(a.exec, "allowlist", "exec")
    -- With a prefix: the launcher rides in front of the shim, and the
    -- attestation composed with it still finds the shim behind it.
    local prefix = { "/usr/bin/env", "LCSB_T=1" }
    local with = assert(lcsb.wrap(p, cmd, "landlock", prefix))
    T.eq(with[1], "/usr/bin/env", "the launcher first")
    T.eq(with[3], cap.shim, "then the shim")
    a = assert(lcsb.attest(with, prefix))
    T.eq(a.backend, "landlock", "attest(argv, prefix)")
    T.eq(a.exec, "allowlist", "attest(argv, prefix): exec")
    -- Without the prefix it was composed with, the argv does not start with
    -- the shim: nothing is attested as enforced.
    a = assert(lcsb.attest(with))
    T.eq(a.backend, "none", "attest without the prefix")
  end
  -- none, with and without a prefix.
  argv = assert(lcsb.wrap(p, cmd, "none"))
  T.eq(lcsb.attest(argv).backend, "none", "none")
  argv = assert(lcsb.wrap(p, cmd, "none", { "/usr/bin/env" }))
  T.eq(argv[1], "/usr/bin/env", "none with a prefix")
  T.eq(lcsb.attest(argv, { "/usr/bin/env" }).backend, "none", "none with a prefix")
  T.eq(lcsb.attest(argv, nil).backend, "none", "an explicit nil prefix")
end)

T.case("the module is its documented names, and lcsb.core keeps exec_policy's own", function()
  local documented = { "exec_policy", "after_run", "policy", "scope", "detect", "wrap", "attest",
    "which", "kind", "realpath", "mkdir", "ttys", "etc_read", "etc_hidden", "etc_secrets", "baseline_read",
    "baseline_write", "protect_default", "exit", "version", "escape", "trusted", "run_later",
    "tools", "set_shim", "execute" }
  local want = {}
  for _, name in ipairs(documented) do
    want[name] = true
    T.ok(lcsb[name] ~= nil, "lcsb." .. name)
  end
  for name in pairs(lcsb) do T.ok(want[name], "lcsb." .. name .. " is not documented") end
  for _, name in ipairs { "hold", "listdir", "normalize", "run", "run_scope", "changed", "fs_now",
    "read_regular" } do
    T.eq(lcsb[name], nil, "lcsb." .. name .. " stays in lcsb.core")
    T.eq(type(core[name]), "function", "lcsb.core." .. name)
  end
  T.eq(lcsb.exit.setup, 97, "setup")
  T.eq(lcsb.exit.usage, 125, "usage")
  T.eq(lcsb.exit.noexec, 126, "noexec")
  T.eq(lcsb.exit.notfound, 127, "notfound")
  -- detect is the Capability's own fields, mount_namespaces included.
  local d = lcsb.detect()
  for _, key in ipairs { "landlock_abi", "landlock_abi_kernel", "seccomp", "user_namespaces",
    "mount_namespaces", "sandbox_exec", "shim", "shim_found", "shim_searched", "oci_engine" } do
    T.ok(d[key] ~= nil, "detect()." .. key)
  end
end)

T.case("lcsb.set_shim names the shim detect and wrap use, for a Lua that finds none", function()
  local shim = realpath(T.build .. "/lcsb-exec")
  T.eq(lcsb.set_shim(shim), true, "set_shim")
  local cap = lcsb.detect()
  T.eq(cap.shim, shim, "detect().shim")
  T.eq(cap.shim_found, true, "detect().shim_found")
  T.eq(cap.shim_searched, shim .. " (given)", "detect().shim_searched")
  if cap.landlock_abi > 0 then
    local s <close> = lcsb.scope()
    local _, p = policy { scope = s, exec = { "sh" } }
    T.eq(assert(lcsb.wrap(p, { "true" }, "landlock"))[1], shim, "wrap's shim")
  end
  -- A file that is not there is an answer, and changes nothing.
  local ok, err = lcsb.set_shim("/nonexistent/lcsb-exec")
  T.eq(ok, nil, "a missing shim")
  T.has(err, "/nonexistent/lcsb-exec: no executable file", "its message")
  T.eq(lcsb.detect().shim, shim, "the shim set before")
  -- A relative path is a mistake.
  T.raises(function() lcsb.set_shim("lcsb-exec") end, "a relative path")
  -- nil looks again: LCSB_SHIM, the install, the path built in.
  T.eq(lcsb.set_shim(nil), true, "set_shim(nil)")
  T.hasnt(lcsb.detect().shim_searched, "(given)", "looked again")
end)

T.case("the env overlay comes in the order of its names, whatever Lua's hash order", function()
  local env = {}
  for i = 1, 40 do env[("V%02d"):format(41 - i)] = tostring(i) end
  env.A_UNSET = false
  local p = lcsb.policy { env = env, exec = "any" }
  local argv = assert(lcsb.wrap(p, { "true" }, "none"))
  T.eq(argv[1], "/usr/bin/env", "the env hop")
  T.eq(argv[2], "-u", "unset first")
  T.eq(argv[3], "A_UNSET", "the unset name")
  T.eq(argv[4], "--", "then the sets")
  for i = 1, 40 do T.eq(argv[4 + i], ("V%02d=%d"):format(i, 41 - i), "set " .. i) end
end)

T.case("lcsb.wrap reads a result as data, and takes no nil for a backend", function()
  local s <close> = lcsb.scope()
  local p = lcsb.exec_policy { scope = s, exec = { "sh" } }
  -- A policy offered through a metamethod is not exec_policy's result.
  local fake = setmetatable({}, { __index = function() return p.policy end })
  local ok, err = pcall(lcsb.wrap, fake, { "true" })
  T.ok(not ok, "a table without a policy of its own")
  T.has(err, "expected a policy, or exec_policy's result", "message")
  -- The old second return value, gone: nil is an error, not a quiet "auto".
  local _, world = lcsb.exec_policy { scope = s, oci = { rootfs = T.tmpdir() } }
  T.eq(world, nil, "no second value")
  ok, err = pcall(lcsb.wrap, p, { "true" }, world)
  T.ok(not ok, "nil backend")
  T.has(err, "result.oci", "where the world is now")
  T.ok(lcsb.wrap(p, { "true" }, "none", { "nice", "--" }), "a prefix, the backend named")
end)

T.case("a hold let go of by the collector releases it as release() would", function()
  local dir = T.tmpdir()
  local path = dir .. "/.git"
  do
    local hold = assert(core.hold(path))
    T.ok(lcsb.kind(path) == "dir", "made")
    hold = nil -- luacheck: ignore
  end
  collectgarbage()
  collectgarbage()
  T.eq(lcsb.kind(path), nil, "removed once nothing holds it")
end)

T.case("lcsb.wrap with \"seatbelt\" prints sandbox-exec's argv on any host", function()
  local s <close> = lcsb.scope()
  local _, p = policy { scope = s, exec = { "sh" } }
  local argv = assert(lcsb.wrap(p, { "sh", "-c", "true" }, "seatbelt"))
  T.eq(argv[1], "/usr/bin/sandbox-exec", "sandbox-exec first, by absolute path")
  T.eq(argv[2], "-p", "then the profile")
  T.has(argv[3], "(deny default)", "the profile")
  T.ok(T.member(argv, "--"), "-- before the command")
  T.eq(argv[#argv], "true", "the command last")
  local a = assert(lcsb.attest(argv))
  T.eq(a.backend, "seatbelt", "attest")
  T.eq(a.fs, "enforced", "fs")
  T.eq(a.exec, "allowlist", "exec")
  T.eq(a.net, "denied", "net")
  T.eq(a.metadata, "readonly", "metadata")
end)

T.case("argv tables are read raw: metatables are ignored", function()
  local s <close> = lcsb.scope()
  local _, p = policy { scope = s }
  -- A proxy that would hand out entries through __index and __len is empty.
  local proxy = setmetatable({}, {
    __len = function() return 2 end,
    __index = function(_, i) return ({ "sh", "-c" })[i] end,
  })
  local argv, err = lcsb.wrap(p, proxy, "none")
  T.eq(argv, nil, "wrap of a proxy")
  T.has(err, "no command", "message")
  -- A real table with a metatable is read for what it holds.
  local real = setmetatable({ "true" }, { __index = function() error("read through __index") end,
    __len = function() return 5 end })
  argv = assert(lcsb.wrap(p, real, "none"))
  T.eq(argv[#argv], "true", "the command")
  T.eq(lcsb.attest(real).backend, "none", "attest of a table with a metatable")
  T.has(T.raises(function() return lcsb.attest({ "a", 5 }) end), "entry 2 is not a string")
end)

T.case("oci: the container's world is checked, returned, and wraps to an engine's argv", function()
  local s <close> = lcsb.scope()
  local root = T.tmpdir()
  local p = lcsb.exec_policy { scope = s, oci = { rootfs = root, args = { "--memory=1g" } } }
  local world = p.oci
  T.eq(world.rootfs, root, "the world comes back in the result")
  T.eq(world.args[1], "--memory=1g", "engine arguments")
  T.eq(select("#", lcsb.exec_policy { scope = s }), 1, "one result, nothing second")
  -- "oci" with a result takes the result's own world.
  local own = assert(lcsb.wrap(p, { "make" }, "oci"))
  T.ok(T.member(own, "--rootfs") and T.member(own, root), "the result's world: " .. own[1])
  local argv = assert(lcsb.wrap(p, { "make" }, { rootfs = root, engine = "/usr/bin/podman",
    args = world.args }, { "uv", "run", "--" }))
  T.eq(argv[1], "/usr/bin/podman", "the engine first")
  T.eq(argv[2], "run", "run")
  local at
  for i, w in ipairs(argv) do if w == root then at = i end end
  T.ok(at, "the rootfs in the argv")
  T.eq(argv[at - 1], "--rootfs", "named as the root")
  T.eq(argv[at + 1], "/usr/bin/env", "the env overlay right after the world")
  local uv
  for i = at + 1, #argv do uv = uv or (argv[i] == "uv" and i) end
  T.ok(uv and argv[uv - 1]:find("=", 1, true), "the launcher inside, after the overlay")
  T.eq(argv[#argv], "make", "the command last")
  local att = assert(lcsb.attest(argv, { "uv", "run", "--" }))
  T.eq(att.backend, "oci", "attested backend")
  T.eq(att.exec, "open", "no exec allowlist in a container")
  T.eq(att.net, "denied", "network")
  -- A name alone is no world: a result that names none, or a bare policy.
  local plain = lcsb.exec_policy { scope = s }
  local none, err = lcsb.wrap(plain, { "make" }, "oci")
  T.eq(none, nil, "oci by name")
  T.has(err, "needs a world", "message")
  none, err = lcsb.wrap(p.policy, { "make" }, "oci")
  T.eq(none, nil, "oci by name, for a bare policy")
  T.has(err, "needs a world", "message")
  none, err = lcsb.wrap(p, { "make" }, { image = "debian:12", args = { "--privileged" } })
  T.eq(none, nil, "an argument lcsb cannot vouch for")
  T.has(err, "--privileged", "message")
end)

T.case("oci: exec_policy names what is wrong with a world", function()
  local s <close> = lcsb.scope()
  local root = T.tmpdir()
  T.has(policy_error { scope = s, oci = {} }, "exactly one of image = NAME and rootfs = DIR", "neither")
  T.has(policy_error { scope = s, oci = { image = "x", rootfs = root } }, "exactly one", "both")
  T.has(policy_error { scope = s, oci = { rootfs = root .. "/missing" } }, "is not a directory",
    "missing rootfs")
  T.has(policy_error { scope = s, oci = { rootfs = "rel" } }, "key 'oci.rootfs'", "relative rootfs")
  T.has(policy_error { scope = s, oci = { image = "x", volume = "/" } }, "unknown key 'oci.volume'",
    "unknown key")
  T.has(policy_error { scope = s, oci = { image = 5 } }, "key 'oci.image' must be a string", "type")
  T.has(policy_error { scope = s, oci = { image = "x", args = { 5 } } }, "key 'oci.args'", "args")
end)

-- ---- through the built lcsb ----

local function lcsb_cli(dir, args, env)
  -- The suite's policies are its own: no trust record needed.
  local sub, rest = args:match("^(%a+) (.*)$")
  if sub == "check" or sub == "wrap" then
    args = sub .. " --no-trust-check " .. rest
  else
    args = "--no-trust-check " .. args
  end
  local cmd = ("cd %s && %s %s %s 2>&1"):format(T.q(dir), env or "", T.q(T.build .. "/lcsb"), args)
  return T.sh(cmd)
end

-- Run as root, a file in /etc only root may read that the secrets' list
-- does not name is readable by the command: check warns of it, and hide
-- takes it away (its twin, the read refused by the kernel). The file is
-- made in a copy of /etc that each lcsb below sees at /etc (a mount
-- namespace of its own): a file made in the host's /etc would change its
-- time under every other test's composition, whose plan is then not kept.
T.case("lcsb check, as root: /etc's root-only files the command reads, named", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local id = T.sh("id -u"):gsub("%s", "")
  if id ~= "0" then return print("     (skipped: not root: files only root may read stay so)") end
  local dir = T.tmpdir()
  local etc = realpath("/etc")
  local copy = dir .. "/etc"
  assert(copy:match("^[%w/._-]+$"), "a copy's path the shell takes unquoted: " .. copy)
  T.sh("cp -a /etc " .. copy)
  local in_copy = ("unshare -m sh -c 'mount --bind %s /etc && exec \"$@\"' _ "):format(copy)
  local name = ("lcsb-check-%d"):format(math.random(1e9))
  local secret = etc .. "/" .. name
  T.write(copy .. "/" .. name, "a root-only secret\n")
  T.sh("chmod 600 " .. T.q(copy .. "/" .. name))
  do
    local policy = 'return require("lcsb").exec_policy { exec = { "cat" }%s }\n'
    T.write(dir .. "/p.lua", policy:format(""))
    local out = lcsb_cli(dir, "check p.lua", in_copy)
    T.ok(out:find("\n  warning   %d+ in " .. etc:gsub("%p", "%%%0")
      .. " that others may not read, the command reads as you may: [^\n]*" .. name:gsub("%p", "%%%0")) ~= nil,
      "check names it: " .. out)
    out = lcsb_cli(dir, "p.lua -- cat " .. T.q(secret), in_copy)
    T.has(out, "a root-only secret", "the command reads it")
    T.write(dir .. "/p.lua", policy:format((', hide = { %q }'):format(secret)))
    out = lcsb_cli(dir, "check p.lua", in_copy)
    local warning = out:match("\n  warning   [^\n]*") or ""
    T.hasnt(warning, name, "hidden, check does not warn of it")
    T.has(out, "hidden in it: ", "it is hidden")
    out = lcsb_cli(dir, "p.lua -- cat " .. T.q(secret), in_copy)
    T.hasnt(out, "a root-only secret", "hidden, the command cannot read it: " .. out)
    -- Without a world of its own (user namespaces turned off below a user
    -- namespace of this test's), /etc is granted entry by entry, and a
    -- symlink there grants what it leads to: named with its target, and
    -- read by the command.
    T.sh("rm -f " .. T.q(copy .. "/" .. name) .. " && mkdir -m 700 " .. T.q(dir .. "/vault")
      .. " && echo a vault > " .. T.q(dir .. "/vault/token") .. " && chmod 600 " .. T.q(dir .. "/vault/token")
      .. " && ln -s " .. T.q(dir .. "/vault") .. " " .. T.q(copy .. "/" .. name))
    T.write(dir .. "/p.lua", 'return require("lcsb").exec_policy { exec = { "cat" }, '
      .. 'degrade = { "world", "metadata" } }\n')
    local without = ("unshare -U -r -m sh -c 'mount --bind %s /etc && "
      .. "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"' _ "):format(copy)
    out = lcsb_cli(dir, "check p.lua", without)
    T.has(out, "one by one", "entry by entry: " .. out)
    T.ok(out:find("\n  warning   [^\n]*" .. name:gsub("%p", "%%%0") .. " %-> " .. realpath(dir):gsub("%p", "%%%0")
      .. "/vault[^\n]*%(no world of its own here, where hide could take them away%)") ~= nil,
      "the symlink named with its target, and no hide advised: " .. out)
    out = lcsb_cli(dir, "p.lua -- cat " .. T.q(secret .. "/token"), without)
    T.has(out, "a vault", "the command reads it: " .. out)
  end
  T.ok(not io.open(secret), "the host's /etc was left alone")
end)

T.case("lcsb check marks every rule enforced or dropped, and why", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local dir = T.tmpdir()
  T.write(dir .. "/p.lua", 'return require("lcsb").exec_policy { read = { "' .. dir
    .. '/missing", "/usr/share" }, exec = { "sh" }, degrade = { "scope" } }\n')
  local out, code = lcsb_cli(dir, "check p.lua")
  T.eq(code, 0, "a valid policy: " .. out)
  T.has(out, "  enforced  /usr/share", "an enforced rule")
  T.has(out, "  dropped   " .. dir .. "/missing (does not exist)", "a requested path left out")
  T.hasnt(out, "dropped: scope", "nothing dropped where the kernel has it all")
  out, code = lcsb_cli(dir, "check p.lua", "LCSB_LANDLOCK_ABI_MAX=5")
  T.eq(code, 0, "degrade lets it through: " .. out)
  T.has(out, "dropped: scope (this host cannot enforce it", "the part dropped, and why")
  T.has(out, "not enforced here: scope", "the summary says so too")
  out = lcsb_cli(dir, "check --backend none p.lua")
  T.has(out, "  requested /usr/share", "under none, only requested")
end)

T.case("lcsb check: /etc in one line, the overlay, the network's lists, each in its section", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local dir = T.tmpdir()
  assert(lcsb.mkdir(dir .. "/keep"))
  T.write(dir .. "/p.lua", 'return require("lcsb").exec_policy { exec = { "sh" }, protect = { "'
    .. dir .. '/keep" }, env = { set = { GREETING = "hi\\27there" }, unset = { "EDITOR" } }, '
    .. 'net = { domains = { "registry.npmjs.org", "!evil.example.com" }, lan = { "10.0.0.0/8" }, '
    .. 'connect = { 5432, 22 }, bind = { 3000 } }, degrade = { "net", "metadata", "world" } }\n')
  local out, code = lcsb_cli(dir, "check p.lua")
  T.eq(code, 0, "a valid policy: " .. out)
  -- /etc is one line, however exec_policy granted it here.
  local etc = realpath("/etc")
  local read = out:match("\nread:\n(.-\n)%a") or ""
  T.hasnt(read, "  enforced  " .. etc .. "/", "no line per /etc entry")
  local host = lcsb.detect()
  if host.landlock_abi > 0 and host.user_namespaces then
    local hidden = {}
    for _, path in ipairs(lcsb.etc_hidden()) do
      if path:sub(1, #etc + 1) == etc .. "/" then hidden[#hidden + 1] = path:sub(#etc + 2) end
    end
    table.sort(hidden)
    T.has(read, ("  enforced  %s (whole%s)\n"):format(etc, #hidden > 0
      and ("; %d hidden in it: %s"):format(#hidden, table.concat(hidden, ", ")) or ""),
      "/etc whole, and the secrets hidden in it")
  else
    local entries = 0
    for _, path in ipairs(lcsb.etc_read()) do
      if path:sub(1, #etc + 1) == etc .. "/" then entries = entries + 1 end
    end
    T.has(read, ("  enforced  %s (%d entries, one by one"):format(etc, entries),
      "/etc entry by entry, counted")
  end
  -- The overlay: the private HOME (a write path too), the policy's own, escaped.
  local home = out:match("\n  set       HOME=([^\n]*)\n")
  T.ok(home and home:match("^/"), "the private HOME in the overlay: " .. out)
  T.has(out, "\n  enforced  " .. home .. "\n", "HOME is in the write tier")
  T.has(out, "\n  set       TMPDIR=/", "TMPDIR")
  T.has(out, "\n  set       GREETING=hi\\x1bthere\n", "a value of the policy's, escaped")
  T.has(out, "\n  unset     EDITOR\n", "a name it unsets")
  -- The proxy's variables, as the command sees them.
  if out:find("a network of its own", 1, true) then
    T.has(out, "\n  set       HTTPS_PROXY=http://127.0.0.1:3128 (lcsb's proxy)\n", "the proxy's")
    T.has(out, "\n  set       JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 "
      .. "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128 ", "Java's")
  else
    T.has(out, "\n  set       HTTPS_PROXY=http://127.0.0.1:PORT (lcsb's proxy)\n", "a port to pick")
    T.has(out, "\n  set       JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=PORT "
      .. "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=PORT ", "Java's port to pick")
  end
  -- The network's lists and the protected paths, each under its key.
  T.has(out, "\ndomains:\n  allowed   registry.npmjs.org\n  denied    evil.example.com\n", "domains")
  T.has(out, "\nlan:\n  allowed   10.0.0.0/8 (a listed name may lead there)\n", "lan")
  T.ok(out:find("\nconnect:\n  allowed   22[^\n]*\n  allowed   5432", 1) ~= nil, "connect, ascending")
  T.ok(out:find("\nbind:\n  allowed   3000", 1) ~= nil, "bind")
  T.ok(out:find("\nprotect:\n[^:]*  %a+ +" .. dir:gsub("%p", "%%%0") .. "/keep\n", 1) ~= nil,
    "the protected path")
  -- Under none nothing serves net.domains: no proxy is named.
  out = lcsb_cli(dir, "check --backend none p.lua")
  T.hasnt(out, "lcsb's proxy", "no proxy under none")
  T.has(out, "\n  set       GREETING=", "the overlay still")
  -- Sections a policy does not have are left out, not "(none)".
  T.write(dir .. "/bare.lua", 'return require("lcsb").policy { read = { "/usr" } }\n')
  out = lcsb_cli(dir, "check --backend none bare.lua")
  for _, key in ipairs { "protect", "hide", "domains", "lan", "connect", "bind" } do
    T.hasnt(out, "\n" .. key .. ":", "no " .. key .. " section")
  end
  T.has(out, "\nwrite:\n  (none)\n", "write says (none)")
end)

T.case("a policy script's Lua: loadfile's nil, load's text, debug's traceback, C modules the system's", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local dir = T.tmpdir()
  T.write(dir .. "/p.lua", 'local f, err, more = loadfile("missing.lua")\n'
    .. 'assert(f == nil, "loadfile gave " .. tostring(f))\n'
    .. 'assert(type(err) == "string" and err:find("missing.lua", 1, true), tostring(err))\n'
    .. 'assert(more == nil, "and more: " .. tostring(more))\n'
    .. 'assert(require("debug") == debug, "one debug table")\n'
    .. 'for name in pairs(debug) do assert(name == "traceback", "debug." .. name) end\n'
    .. 'local ok, msg = xpcall(error, debug.traceback, "x")\n'
    .. 'assert(not ok and msg:find("stack traceback", 1, true), msg)\n'
    .. 'assert(load(string.dump(function() end)) == nil, "a precompiled chunk loaded")\n'
    .. 'assert(load("return 1")() == 1 and load("return x", "c", "t", { x = 2 })() == 2)\n'
    .. 'assert(select(2, load("return 1", "c", "b")):find("text chunks only"))\n'
    -- C modules from the system's directories only, whatever table the
    -- global package names when require asks.
    .. 'local real = package\n'
    .. 'real.cpath = "/nowhere-of-lcsbs/?.so"\n'
    .. 'package = setmetatable({}, { __index = real, __newindex = function() end })\n'
    .. 'local found, why = pcall(require, "x-debug")\n'
    .. 'package = real\n'
    .. 'assert(not found and not why:find("nowhere-of-lcsbs", 1, true), why)\n'
    -- Nor a metatable on the package table itself answering for cpath.
    .. 'local saved = rawget(real, "cpath")\n'
    .. 'rawset(real, "cpath", nil)\n'
    .. 'setmetatable(real, { __newindex = function() end, __index = function(_, k)\n'
    .. '  if k == "cpath" then return "/nowhere-of-lcsbs/?.so" end end })\n'
    .. 'found, why = pcall(require, "x-debug2")\n'
    .. 'setmetatable(real, nil)\n'
    .. 'rawset(real, "cpath", saved)\n'
    .. 'assert(not found and not why:find("nowhere-of-lcsbs", 1, true), why)\n'
    .. 'return require("lcsb").exec_policy { exec = { "sh" } }\n')
  local out, code = lcsb_cli(dir, "check p.lua")
  T.eq(code, 0, "the script's asserts: " .. out)
end)

T.case("lcsb check: a variable the caller passes and the overlay replaces says so", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local dir = T.tmpdir()
  -- A variable the caller passes and the overlay replaces says so where it
  -- is passed: the policy's value, or lcsb's proxy's (Java's options
  -- included: the caller's are replaced, not added to).
  T.write(dir .. "/pass.lua", 'return require("lcsb").exec_policy { exec = { "sh" }, env = { '
    .. 'pass = { "JAVA_TOOL_OPTIONS", "HTTPS_PROXY", "GREETING", "KEPT" }, set = { GREETING = "hi" } }, '
    .. 'net = { domains = { "registry.npmjs.org" } }, degrade = { "net", "metadata", "world" } }\n')
  local callers = "JAVA_TOOL_OPTIONS=-Dmine=1 HTTPS_PROXY=http://mine:1 GREETING=yo KEPT=1"
  local out = lcsb_cli(dir, "check pass.lua", callers)
  T.has(out, "\n  passed    JAVA_TOOL_OPTIONS (not the caller's value: lcsb's proxy sets it, "
    .. "below)\n", "Java's options replaced")
  T.has(out, "\n  passed    HTTPS_PROXY (not the caller's value: lcsb's proxy sets it, below)\n",
    "the proxy's variable replaced")
  T.has(out, "\n  passed    GREETING (not the caller's value: the policy sets it, below)\n",
    "the policy's value replaces it")
  T.has(out, "\n  passed    KEPT\n", "one nothing replaces")
  -- Under none nothing serves net.domains: no proxy is named.
  out = lcsb_cli(dir, "check --backend none pass.lua", callers)
  T.has(out, "\n  passed    JAVA_TOOL_OPTIONS\n", "the caller's Java options, under none")
  T.has(out, "\n  passed    GREETING (not the caller's value: the policy sets it, below)\n",
    "the policy's value still replaces it")
end)

-- lcsb check names each default of protect and what became of it: the
-- agents' configuration read-only where it exists, a directory held empty
-- where it does not (and gone again after check), a file not there, one let
-- go. A protect entry that lets no default go stops lcsb with 125, naming it.
T.case("lcsb check: protect's defaults, each with what became of it; a bad \"!\" is 125", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local dir = T.tmpdir()
  assert(lcsb.mkdir(dir .. "/.claude"))
  T.write(dir .. "/.claude/settings.json", "{}\n")
  T.write(dir .. "/p.lua", 'return require("lcsb").exec_policy { protect = { "!.cursor" } }\n')
  local out, code = lcsb_cli(dir, "check p.lua")
  T.eq(code, 0, "a valid policy: " .. out)
  local section = out:match("\nprotected by default %(protect = { \"!NAME\" } lets one go%):\n(.-\n)%a")
  T.ok(section, "the section: " .. out)
  T.has(section, "  read-only  .claude: Claude Code runs the hooks", ".claude, there")
  T.has(section, "  not there  .codex: Codex starts the MCP servers", ".codex, not there")
  T.has(section, "  not there  .mcp.json: Claude Code and GitHub Copilot", ".mcp.json, a file")
  T.has(section, '  let go     .cursor: Cursor starts the MCP servers its mcp.json names, runs the '
    .. "commands its hooks.json names at the agent's every step, and follows its rules and "
    .. 'commands (protect = { "!.cursor" })', ".cursor, let go")
  T.has(section, "  held empty .git: git takes it", "no repository: .git held")
  T.has(out, "\nprotect:\n", "the tier")
  T.hasnt(out, dir .. "/.codex\n", "one not there is not in the tier")
  T.hasnt(out, dir .. "/.cursor\n", "the one let go is not")
  -- What check held is gone again; what was there stays.
  T.eq(lcsb.kind(dir .. "/.codex"), nil, "no .codex made")
  T.eq(lcsb.kind(dir .. "/.git"), nil, ".git removed after check")
  T.eq(lcsb.kind(dir .. "/.claude/settings.json"), "file", ".claude stays")
  T.write(dir .. "/p.lua", 'return require("lcsb").exec_policy { protect = { "!.claud" } }\n')
  out, code = lcsb_cli(dir, "check p.lua")
  T.eq(code, 125, "a typo: " .. out)
  T.has(out, "key 'protect': entry 1 (\"!.claud\") lets no default go", "named")
  out, code = lcsb_cli(dir, "p.lua -- true")
  T.eq(code, 125, "a run too: " .. out)
  T.eq(lcsb.kind(dir .. "/.codex"), nil, "nothing held for a policy refused")
end)

T.case("lcsb --backend oci needs a world; check says exec is not held there", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local dir = T.tmpdir()
  T.write(dir .. "/plain.lua", 'return require("lcsb").exec_policy { exec = { "sh" } }\n')
  local out, code = lcsb_cli(dir, "--backend oci plain.lua -- true")
  T.eq(code, 125, "refused before anything runs: " .. out)
  T.has(out, "oci = { rootfs = DIR }", "what to add")
  local root = T.tmpdir()
  T.write(dir .. "/world.lua", 'return require("lcsb").exec_policy { exec = { "sh" }, oci = { rootfs = "'
    .. root .. '", engine = "/nonexistent/podman" } }\n')
  out, code = lcsb_cli(dir, "--backend oci world.lua -- true")
  T.eq(code, 125, "no engine: refused, not run unsandboxed: " .. out)
  T.has(out, "/nonexistent/podman was not found", "names the engine")
  out, code = lcsb_cli(dir, "wrap --backend oci world.lua -- true")
  T.eq(code, 0, "an argv composes anywhere: " .. out)
  T.eq(cjson.decode(out)[1], "/nonexistent/podman", "the engine first")
  T.write(dir .. "/world.lua", 'return require("lcsb").exec_policy { exec = { "sh" }, oci = { rootfs = "'
    .. root .. '", engine = "/bin/sh" } }\n')
  out, code = lcsb_cli(dir, "check --backend oci world.lua")
  T.eq(code, 125, "an engine that is neither podman nor docker: " .. out)
  T.has(out, "neither podman nor docker", "message")
  if not lcsb.kind("/usr/bin/podman") then return print("     (no podman: check not run)") end
  T.write(dir .. "/world.lua", 'return require("lcsb").exec_policy { exec = { "sh" }, oci = { rootfs = "'
    .. root .. '", engine = "/usr/bin/podman" } }\n')
  out, code = lcsb_cli(dir, "check --backend oci world.lua")
  T.eq(code, 0, "check: " .. out)
  T.has(out, "enforced: fs: enforced, exec: open, net: denied", "the summary")
  T.has(out, "  enforced  " .. dir, "the project, held")
  T.has(out, "  requested " .. realpath(on_path("sh")), "the exec rules only requested")
  T.has(out, "oci holds no exec allowlist", "and why")
end)

T.case("a script's error names its file and line, even from a tail call", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local dir = T.tmpdir()
  T.write(dir .. "/tail.lua", 'local lcsb = require "lcsb"\n-- line 2\nreturn lcsb.exec_policy { bogus = 1 }\n')
  local out, code = lcsb_cli(dir, "check tail.lua")
  T.eq(code, 125, "exit status")
  T.has(out, "tail.lua:3:", "position")
  T.has(out, "unknown key 'bogus'", "message")
  T.write(dir .. "/fn.lua", 'local lcsb = require "lcsb"\nreturn function(run)\n  return lcsb.exec_policy {\n    read = 5,\n  }\nend\n')
  out, code = lcsb_cli(dir, "check fn.lua")
  T.eq(code, 125, "exit status")
  T.has(out, "fn.lua:", "position")
  T.has(out, "key 'read' must be a table", "message")
end)

T.case("lcsb wrap prints the argv as JSON (read with lua-cjson)", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local detect = cjson.decode((T.sh(T.q(T.build .. "/lcsb") .. " detect --json")))
  local dir = T.tmpdir()
  T.write(dir .. "/policy.lua", 'local lcsb = require "lcsb"\nreturn lcsb.exec_policy { exec = { "sh" } }\n')
  if detect.landlock_abi == 0 or not detect.shim_found then
    local _, code = lcsb_cli(dir, "wrap policy.lua -- true")
    T.eq(code, 125, "no mechanism: refused, not run unsandboxed")
    return print("     (no Landlock here: only the refusal was checked)")
  end
  local out, code = T.sh(("cd %s && %s wrap --no-trust-check policy.lua -- true"):format(T.q(dir),
    T.q(T.build .. "/lcsb")))
  T.eq(code, 0, "exit status")
  local argv = cjson.decode(out)
  T.eq(argv[1], realpath(T.build .. "/lcsb-exec"), "the shim first")
  T.eq(argv[1], detect.shim, "the shim detect reports")
  local header = cjson.decode(argv[2])
  T.eq(header["lcsb-exec"], 5, "wire version")
  T.eq(header.abi, math.min(detect.landlock_abi, 7), "abi")
  local sep = 3 + header.parts
  T.eq(argv[sep], "--", "-- after the parts")
  T.eq(argv[#argv], "true", "the command last")
  T.eq(argv[sep + 1], "/usr/bin/env", "the env hop")
  local home
  for i = sep + 1, #argv do home = home or argv[i]:match("^HOME=(.*)$") end
  T.ok(home, "HOME= in the overlay")
  -- Every part decodes; the private HOME is in a write rule, the command's
  -- own resolved file in an execute rule.
  local writable, executable = {}, {}
  for i = 1, header.parts do
    local part = cjson.decode(argv[2 + i])
    T.eq(part.part, i, "part index")
    for _, rule in ipairs(part.rules) do
      local access = table.concat(rule.access, ",")
      for _, path in ipairs(rule.paths) do
        if access:find("write_file", 1, true) then writable[#writable + 1] = path end
        if access:find("execute", 1, true) then executable[#executable + 1] = path end
      end
    end
  end
  T.contains(writable, home, "write rules")
  T.contains(writable, dir, "write rules (the project)")
  T.contains(executable, realpath(on_path("true")), "execute rules")
  T.contains(executable, realpath(on_path("sh")), "execute rules")
  T.lacks(executable, dir, "execute rules")
  -- wrap runs nothing, and the run's scope is gone when lcsb exits.
  T.eq(lcsb.kind(home), nil, "private HOME removed after lcsb wrap")
end)

T.run()
