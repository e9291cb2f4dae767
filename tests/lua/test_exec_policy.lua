-- exec_policy, the one policy: the private HOME and TMPDIR, the read
-- baseline, the project, `~`, program resolution, errors that name the key and
-- the caller's line, and the scope that removes what it made without
-- following what the command planted. Run by ctest with stock lua5.4 and the
-- built lcsb/core.so; the last cases drive the built lcsb CLI.

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local lcsb = require "lcsb"
local cjson = require "cjson"

local ME = "test_exec_policy.lua"

local function policy(opts)
  local p = lcsb.exec_policy(opts)
  return p:table(), p
end

local function mode(path) return T.trim(T.sh("stat -c %a " .. T.q(path))) end

local function realpath(path) return T.trim(T.sh("readlink -f " .. T.q(path))) end

-- NAME looked up on PATH the way execvp does (not the shell: `true` is a builtin).
local function on_path(name)
  for dir in (os.getenv("PATH") or "/usr/bin:/bin"):gmatch("[^:]+") do
    local f = dir .. "/" .. name
    if lcsb.kind(f) == "file" then return f end
  end
end

-- The error exec_policy raises for OPTS, and the line that made the call.
local function policy_error(opts)
  local line
  local ok, err = pcall(function()
    line = debug.getinfo(1, "l").currentline + 1
    local p = lcsb.exec_policy(opts)
    return p
  end)
  T.ok(not ok, "exec_policy should have failed")
  err = tostring(err)
  -- Blamed on the line that called exec_policy, wherever inside it the check was.
  T.has(err, ("%s:%d:"):format(ME, line), "error position")
  return err
end

-- PT_INTERP of a 64-bit little-endian ELF file, read here independently of
-- lcsb's resolver; nil when it has none.
local function elf_interp(path)
  local f = assert(io.open(path, "rb"))
  local data = f:read("a")
  f:close()
  if data:sub(1, 4) ~= "\127ELF" or data:byte(5) ~= 2 or data:byte(6) ~= 1 then return nil end
  local phoff = string.unpack("<I8", data, 33)
  local phentsize, phnum = string.unpack("<I2I2", data, 55)
  for i = 0, phnum - 1 do
    local at = phoff + i * phentsize + 1
    local ptype = string.unpack("<I4", data, at)
    if ptype == 3 then
      local offset, _, _, filesz = string.unpack("<I8I8I8I8", data, at + 8)
      return (data:sub(offset + 1, offset + filesz):gsub("%z+$", ""))
    end
  end
end

T.case("private HOME and TMPDIR: fresh, 0700, writable, in the environment", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  local home, tmp = t.env.HOME, t.env.TMPDIR
  T.ok(type(home) == "string" and type(tmp) == "string", "HOME and TMPDIR set")
  T.ok(home ~= tmp, "HOME and TMPDIR differ")
  T.ok(home ~= os.getenv("HOME"), "not the real HOME")
  for _, d in ipairs { home, tmp } do
    T.eq(lcsb.kind(d), "dir", d)
    T.eq(mode(d), "700", "mode of " .. d)
    T.contains(t.write, d, "write")
    T.eq(realpath(d), d, "named without symlinks")
    T.eq(T.trim(T.sh("ls -A " .. T.q(d))), "", d .. " is empty")
  end
  T.ok(home:match("/lcsb%-home%.[^/]+$"), "HOME's name")
  T.ok(tmp:match("/lcsb%-tmp%.[^/]+$"), "TMPDIR's name")
  -- A second policy gets directories of its own.
  local t2 = policy { scope = s }
  T.ok(t2.env.HOME ~= home and t2.env.TMPDIR ~= tmp, "fresh per policy")
end)

T.case("read baseline: what exists, nothing private", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  -- The baseline is trusted, so it is named by its real paths: on a
  -- merged-/usr system /bin becomes /usr/bin (a symlink in a rule would be
  -- refused), which /usr already covers; what does not exist is left out.
  local function covered(list, path)
    for _, have in ipairs(list) do
      if path == have or path:sub(1, #have + 1) == have .. "/" then return true end
    end
  end
  for _, list in ipairs { { lcsb.baseline_read, t.read, "read" }, { lcsb.baseline_write, t.write, "write" } } do
    local baseline, got, what = list[1], list[2], list[3]
    for _, path in ipairs(baseline) do
      local real = lcsb.realpath(path)
      if real then T.ok(covered(got, real), ("%s: %s (%s) is covered"):format(what, path, real)) end
      if real ~= path then T.lacks(got, path, what) end
    end
    for _, path in ipairs(got) do T.eq(lcsb.realpath(path), path, what .. " entry is real") end
  end
  if lcsb.kind("/bin") and lcsb.realpath("/bin") == "/usr/bin" then
    T.lacks(t.read, "/bin", "read (merged /usr)")
    T.lacks(t.read, "/lib", "read (merged /usr)")
  end
  T.contains(t.read, "/usr", "read")
  T.lacks(lcsb.baseline_read, "/etc", "baseline_read")
  T.lacks(t.read, "/etc", "read")
end)

-- /etc is granted entry by entry, minus lcsb.etc_secrets: Landlock cannot take
-- /etc/shadow back from a grant of /etc. Checks only what exists on this host.
T.case("read baseline: /etc without its secrets", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  local function covered(path)
    for _, have in ipairs(t.read) do
      if path == have or path:sub(1, #have + 1) == have .. "/" then return have end
    end
  end
  for _, ok in ipairs { "/etc/passwd", "/etc/hosts", "/etc/hostname", "/etc/group" } do
    local real = lcsb.realpath(ok)
    if real then T.ok(covered(real), ok .. " is readable") end
  end
  local secrets = { "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
    "/etc/sudoers", "/etc/sudoers.d", "/etc/security/opasswd", "/etc/ssl/private",
    "/etc/krb5.keytab" }
  for _, key in ipairs(lcsb.listdir("/etc/ssh") or {}) do
    if key:match("^ssh_host_.*_key$") then secrets[#secrets + 1] = "/etc/ssh/" .. key end
  end
  for _, secret in ipairs(secrets) do
    T.eq(covered(secret), nil, secret .. " is not readable")
    local real = lcsb.realpath(secret)
    if real then T.eq(covered(real), nil, secret .. " (" .. real .. ") is not readable") end
  end
  -- No rule is /etc/shadow's ancestor: not /, not /etc.
  for _, have in ipairs(t.read) do
    T.ok(("/etc/shadow"):sub(1, #have + 1) ~= have .. "/" and have ~= "/", "rule " .. have)
  end
  -- Where /etc/ssh or /etc/ssl exists, its harmless entries are still granted.
  if lcsb.kind("/etc/ssh/ssh_config") then T.contains(t.read, "/etc/ssh/ssh_config", "read") end
  if lcsb.kind("/etc/ssl/certs") then T.ok(covered("/etc/ssl/certs"), "/etc/ssl/certs") end
  T.lacks(t.read, "/etc/ssh", "read")
  T.lacks(t.read, "/etc/ssl", "read")
  T.lacks(t.read, "/etc/security", "read")
  for _, path in ipairs(t.read) do T.eq(lcsb.realpath(path), path, "read entry is real") end
end)

-- The same walk over a tree built here, so every kind of secret is present
-- whatever this host's /etc holds: named ones, a glob, a directory, and
-- symlinks that would grant each under another name.
T.case("etc_read: a built /etc, every secret left out, the rest granted by real path", function()
  local etc = realpath(T.tmpdir())
  T.sh("cd " .. T.q(etc) .. " && mkdir -p ssh ssl/private ssl/certs sudoers.d apt security"
    .. " && touch passwd shadow shadow- gshadow sudoers krb5.keytab security/opasswd"
    .. " security/limits.conf ssh/ssh_config ssh/ssh_host_ed25519_key"
    .. " ssh/ssh_host_ed25519_key.pub ssl/private/k.pem ssl/openssl.cnf sudoers.d/x apt/sources.list"
    .. " && ln -s shadow shadow-link && ln -s ssh ssh-link && ln -s ssh/ssh_host_ed25519_key key-link"
    .. " && ln -s ssl/private private-link && ln -s passwd passwd-link && ln -s missing dangling"
    .. " && ln -s / root-link")
  local got = {}
  for _, path in ipairs(lcsb.etc_read(etc)) do got[path:sub(#etc + 2)] = true end
  local want = { "passwd", "apt", "ssh/ssh_config", "ssh/ssh_host_ed25519_key.pub", "ssl/certs",
    "ssl/openssl.cnf", "security/limits.conf" }
  for _, rel in ipairs(want) do T.ok(got[rel], rel .. " is granted") end
  local n = 0
  for rel in pairs(got) do
    n = n + 1
    T.ok(rel ~= "" and not rel:find("shadow") and not rel:find("key$") and not rel:find("private")
      and not rel:find("sudoers") and rel ~= "ssh" and rel ~= "ssl" and rel ~= "security"
      and rel ~= "krb5.keytab" and rel ~= "security/opasswd", "granted: " .. rel)
  end
  -- passwd-link resolves to passwd, granted once; the rest of the links are out.
  T.eq(n, #want, "as many grants as wanted")
end)

-- The placeholder .git that runs in one project share: made or found empty,
-- held, and removed by the last run to let go.
T.case("lcsb.hold: shared, removed by the last to let go, never when not empty", function()
  local dir = T.tmpdir()
  local path = dir .. "/.git"
  local first = assert(lcsb.hold(path))
  T.eq(lcsb.kind(path), "dir", "made")
  local second = assert(lcsb.hold(path))
  T.ok(first:release(), "the first lets go")
  T.eq(lcsb.kind(path), "dir", "still held by the second")
  T.ok(second:release(), "the second lets go")
  T.eq(lcsb.kind(path), nil, "removed by the last")
  T.ok(second:release(), "letting go twice is harmless")
  os.execute("mkdir " .. T.q(path))
  local adopted = assert(lcsb.hold(path))
  T.ok(adopted:release(), "an empty one found is held too")
  T.eq(lcsb.kind(path), nil, "and removed")
  os.execute("mkdir " .. T.q(path) .. " && touch " .. T.q(path .. "/HEAD"))
  local none, err = lcsb.hold(path)
  T.eq(none, nil, "a repository is not held")
  T.has(err, "Directory not empty", "message")
  -- Filled while held: it stays, and releasing says why.
  os.execute("rm " .. T.q(path .. "/HEAD"))
  local held = assert(lcsb.hold(path))
  T.write(path .. "/HEAD", "x")
  local ok, why = held:release()
  T.eq(ok, nil, "not removed")
  T.has(why, "Directory not empty", "release message")
  T.eq(lcsb.kind(path .. "/HEAD"), "file", "what was made there stays")
  -- Another process sitting on it: refused after about a second, not waited for.
  os.execute("rmdir " .. T.q(path .. "/HEAD") .. " 2>/dev/null; rm -f " .. T.q(path .. "/HEAD"))
  os.execute("flock -x " .. T.q(path) .. " sleep 3 >/dev/null 2>&1 &")
  os.execute("sleep 0.3")
  local blocked, stuck = lcsb.hold(path)
  T.eq(blocked, nil, "not held while another process keeps it locked")
  T.has(stuck, "locked for over a second", "message")
  -- Where this user may not make it, hold says so (root may make it anywhere).
  local locked = T.tmpdir()
  os.execute("chmod 555 " .. T.q(locked))
  local hold, why_not, unwritable = lcsb.hold(locked .. "/.git")
  if T.trim(T.sh("id -u")) ~= "0" then
    T.eq(hold, nil, "no hold in an unwritable directory")
    T.has(why_not, "Permission denied", "message")
    T.eq(unwritable, true, "unwritable")
  else
    T.ok(hold and hold:release(), "root makes and removes it")
  end
  os.execute("chmod 755 " .. T.q(locked))
end)

T.case("lcsb.listdir: sorted names without . and ..", function()
  local dir = T.tmpdir()
  for _, name in ipairs { "b", "a", ".hidden", "c d" } do T.write(dir .. "/" .. name, "x") end
  local names, kinds = lcsb.listdir(dir)
  T.eq(table.concat(names, "|"), ".hidden|a|b|c d", "listdir")
  T.eq(#kinds, #names, "a kind per name")
  os.execute("mkdir " .. T.q(dir .. "/sub") .. " && ln -s a " .. T.q(dir .. "/link"))
  names, kinds = lcsb.listdir(dir)
  local kind = {}
  for i, name in ipairs(names) do kind[name] = kinds[i] end
  -- The file system may not say (then "unknown"); this one does.
  T.eq(kind.a, "file", "a file")
  T.eq(kind.sub, "dir", "a directory")
  T.eq(kind.link, "link", "a symlink")
  local none, err = lcsb.listdir(dir .. "/missing")
  T.eq(none, nil, "listdir of a missing directory")
  T.has(err, "No such file or directory", "message")
  none, err = lcsb.listdir(dir .. "/a")
  T.eq(none, nil, "listdir of a file")
  T.has(err, "Not a directory", "message")
end)

T.case("read baseline: private trees stay out", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  -- Never all of /dev/pts, nor /dev/ptmx (a new terminal pair): at most the
  -- terminals lcsb's own stdin, stdout and stderr are on.
  T.lacks(lcsb.baseline_write, "/dev/pts", "baseline_write")
  T.lacks(lcsb.baseline_write, "/dev/ptmx", "baseline_write")
  T.lacks(t.write, "/dev/pts", "write")
  T.lacks(t.write, "/dev/ptmx", "write")
  for _, private in ipairs { "/", "/home", "/root", "/tmp", "/var/tmp", "/srv", "/mnt", "/var",
    os.getenv("HOME") } do
    T.lacks(t.read, private, "read")
    T.lacks(t.write, private, "write")
  end
  T.eq(t.net, false, "network denied by default")
  T.ok(type(t.exec) == "table", "an exec allowlist by default")
end)

-- The terminals on fds 0-2, each once; exec_policy adds them to write.
T.case("lcsb.ttys(): only lcsb's own terminals are writable", function()
  local ttys = lcsb.ttys()
  T.eq(type(ttys), "table", "lcsb.ttys()")
  for _, tty in ipairs(ttys) do
    T.ok(type(tty) == "string" and tty:sub(1, 5) == "/dev/", "a device path: " .. tostring(tty))
    T.eq(T.count(ttys, tty), 1, "listed once: " .. tty)
  end
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  for _, tty in ipairs(ttys) do T.contains(t.write, lcsb.realpath(tty), "write") end
  for _, path in ipairs(t.write) do
    if path:sub(1, 9) == "/dev/pts/" then T.contains(ttys, path, "a /dev/pts entry in write") end
  end

  -- In a child with no terminal on 0-2: none, and no /dev/pts entry at all.
  local probe = [[
    local lcsb = require "lcsb"
    local s <close> = lcsb.scope()
    local t = lcsb.exec_policy({ scope = s }):table()
    io.stderr:write(#lcsb.ttys(), "\n")
    for _, p in ipairs(t.write) do
      if p:find("^/dev/pts") or p == "/dev/ptmx" then io.stderr:write(p, "\n") end
    end
  ]]
  local dir = T.tmpdir()
  T.write(dir .. "/probe.lua", probe)
  local lua = T.q(arg[-1] or "lua5.4")
  local out, code = T.sh(("%s %s </dev/null 2>&1 | cat"):format(lua, T.q(dir .. "/probe.lua")))
  T.eq(code, 0, "probe without a terminal")
  T.eq(out, "0\n", "no terminal, no /dev/pts entry")

  -- Under script(1), on a fresh pty: that one terminal, and only it.
  if T.sh("command -v script >/dev/null && echo y") ~= "y\n" then
    return print("     (script(1) missing: the terminal case was not checked)")
  end
  local inner = ("%s %s"):format(lua, T.q(dir .. "/probe.lua"))
  out, code = T.sh(("script -qec %s /dev/null </dev/null 2>&1"):format(T.q(inner)))
  if code ~= 0 or not out:find("^1\r?\n") then
    return print("     (script(1) gave no terminal here: " .. T.trim(out) .. ")")
  end
  local lines = {}
  for line in out:gmatch("[^\r\n]+") do lines[#lines + 1] = line end
  T.eq(#lines, 2, "one tty count and one entry: " .. out)
  T.ok(lines[2]:match("^/dev/pts/%d+$"), "the pty script(1) made: " .. lines[2])
end)

-- A project that is the whole real HOME is refused unless named on purpose.
T.case("a defaulted project that is HOME is refused; project = \"~\" is not", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local home = T.tmpdir()
  local function check(body, where)
    T.write(home .. "/p.lua", 'local lcsb = require "lcsb"\nreturn lcsb.exec_policy { ' .. body .. ' }\n')
    return T.sh(("cd %s && HOME=%s %s check --backend none %s 2>&1"):format(
      T.q(where or home), T.q(home), T.q(T.build .. "/lcsb"), T.q(home .. "/p.lua")))
  end
  local out, code = check("")
  T.eq(code, 125, "run from HOME: exit status")
  T.has(out, "lcsb: ", "message prefix")
  T.has(out, "whole HOME (" .. home .. ")", "names HOME")
  T.has(out, "p.lua:2:", "names the script line")
  -- Through a symlink to HOME: the same directory, the same refusal.
  local other = T.tmpdir()
  T.sh(("ln -s %s %s"):format(T.q(home), T.q(other .. "/h")))
  out, code = check("", other .. "/h")
  T.eq(code, 125, "run from a link to HOME: exit status")
  T.has(out, home, "names HOME")
  -- Said on purpose: accepted, with HOME as the project.
  out, code = check('project = "~"')
  T.eq(code, 0, 'project = "~": ' .. out)
  out, code = check("project = " .. ("%q"):format(home))
  T.eq(code, 0, "project = HOME spelled out: " .. out)
  -- A directory beneath HOME is a project like any other.
  T.sh("mkdir " .. T.q(home .. "/proj"))
  out, code = check("", home .. "/proj")
  T.eq(code, 0, "run from a directory in HOME: " .. out)
end)

T.case("project: the current directory by default, or the one given", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  local cwd = lcsb.realpath(".")
  T.eq(t.cwd, cwd, "cwd")
  T.contains(t.write, cwd, "write")
  T.lacks(t.exec, cwd, "exec")
  local dir = T.tmpdir()
  t = policy { scope = s, project = dir .. "//" }
  T.eq(t.cwd, dir, "cwd, normalized")
  T.contains(t.write, dir, "write")
  T.lacks(t.write, cwd, "write")
  T.has(policy_error { scope = s, project = dir .. "/missing" }, "is not a directory")
  T.has(policy_error { scope = s, project = "relative/dir" }, "not an absolute path")
  T.has(policy_error { scope = s, project = dir .. "/../x" }, '".."')
end)

T.case("~ is the caller's real HOME; missing entries are dropped", function()
  local s <close> = lcsb.scope()
  if not os.getenv("HOME") or os.getenv("HOME") == "" then
    T.has(policy_error { scope = s, read = { "~" } }, "HOME is not set")
    return print("     (HOME is not set: only that refusal was checked)")
  end
  local real_home = lcsb.normalize(os.getenv("HOME"))
  local dir = T.tmpdir()
  T.write(dir .. "/file", "x")
  local t = policy {
    scope = s,
    read = { "~", "~/.lcsb-test-no-such-file", "/nonexistent/lcsb/x", dir .. "/file", dir .. "/nope" },
    write = { "/nonexistent/lcsb/w", dir .. "/" },
  }
  if lcsb.kind(real_home) then T.contains(t.read, real_home, "read") end
  T.lacks(t.read, real_home .. "/.lcsb-test-no-such-file", "read")
  T.lacks(t.read, "/nonexistent/lcsb/x", "read")
  T.lacks(t.read, dir .. "/nope", "read")
  T.contains(t.read, dir .. "/file", "read")
  T.lacks(t.write, "/nonexistent/lcsb/w", "write")
  T.contains(t.write, dir, "write")
  -- Only "~" and "~/": "~user" is a relative path.
  T.has(policy_error { scope = s, read = { "~root/x" } }, "~root/x: not an absolute path")
  T.has(policy_error { scope = s, write = { "rel" } }, "key 'write'")
end)

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
  T.eq(lcsb.normalize("/etc\0/x"), nil, "normalize")
  T.eq(lcsb.which("sh\0x"), nil, "which")
end)

T.case("unknown key: named, at the caller's line", function()
  local s <close> = lcsb.scope()
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, err = pcall(function() local p = lcsb.exec_policy { scope = s, bogus = 1 }; return p end)
  T.ok(not ok, "refused")
  T.has(err, "unknown key 'bogus'")
  T.has(err, ("%s:%d:"):format(ME, line), "position")
  T.has(err, "project, protect, read, scope, write", "the keys it knows")
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
  T.has(policy_error { scope = s, exec = { {} } }, "key 'exec': entries must be strings, not table")
  T.has(policy_error { scope = s, env = { CI = 1 } }, "key 'env.CI': expected a string")
  T.has(policy_error { scope = s, env = { CI = true } }, "env.CI")
  T.has(policy_error { scope = s, env = { [1] = "x" } }, "names must be strings")
  T.has(policy_error { scope = s, env = { ["A=B"] = "x" } }, "A=B")
  T.has(policy_error { scope = s, exec = "all" }, "\"any\"")
  T.has(policy_error { scope = s, net = { connect = { "https" } } }, "net.connect")
  T.has(policy_error { scope = s, net = { connect = { 0 } } }, "port 0")
  T.has(policy_error { scope = s, net = { udp = { 53 } } }, "unknown key 'udp'")
  T.has(policy_error "not a table", "expected a table of options")
  -- Without a scope (plain Lua, no lcsb run) there is nowhere to make HOME.
  T.has(policy_error {}, "no scope owns the private HOME")
end)

T.case("env overlay and network", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s, env = { CI = "1", AWS_SECRET_ACCESS_KEY = false, EMPTY = "" } }
  T.eq(t.env.CI, "1", "CI")
  T.eq(t.env.AWS_SECRET_ACCESS_KEY, false, "unset")
  T.eq(t.env.EMPTY, "", "empty value")
  T.ok(t.env.HOME and t.env.TMPDIR, "HOME and TMPDIR still set")
  -- The overlay is applied after HOME and TMPDIR.
  t = policy { scope = s, env = { HOME = "/somewhere" } }
  T.eq(t.env.HOME, "/somewhere", "HOME overridden")
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
  T.eq(table.concat(t.degrade, ","), "scope,terminal", "the parts, once each, in lcsb's order")
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

T.case("closing the scope removes the private directories", function()
  local s = lcsb.scope()
  local t = policy { scope = s }
  local home, tmp = t.env.HOME, t.env.TMPDIR
  T.write(home .. "/.bashrc", "x")
  T.sh("mkdir -p " .. T.q(home .. "/a/b/c") .. " && touch " .. T.q(home .. "/a/b/c/d"))
  T.sh("chmod 0 " .. T.q(home .. "/a/b"))
  T.write(tmp .. "/x", "y")
  T.ok(s:close(), "close")
  T.eq(lcsb.kind(home), nil, "HOME removed")
  T.eq(lcsb.kind(tmp), nil, "TMPDIR removed")
  T.ok(s:close(), "closing twice is harmless")
  T.ok(select(2, pcall(s.mkdtemp, s, "x")) ~= nil, "a closed scope makes nothing")
  -- A to-be-closed scope closes at the end of its block.
  do
    local s2 <close> = lcsb.scope()
    home = policy({ scope = s2 }).env.HOME
  end
  T.eq(lcsb.kind(home), nil, "HOME removed at the end of the block")
end)

T.case("a symlink planted in HOME does not lead removal outside", function()
  local outside = T.tmpdir()
  T.write(outside .. "/precious", "keep me")
  T.sh("mkdir " .. T.q(outside .. "/dir") .. " && echo keep > " .. T.q(outside .. "/dir/inner"))
  local s = lcsb.scope()
  local t = policy { scope = s }
  local home, tmp = t.env.HOME, t.env.TMPDIR
  for _, d in ipairs { home, tmp } do
    T.sh(("ln -s %s %s/link && ln -s %s %s/flink && mkdir %s/sub && ln -s %s %s/sub/up && ln %s %s/hard")
      :format(T.q(outside), T.q(d), T.q(outside .. "/precious"), T.q(d), T.q(d),
        T.q(outside .. "/dir"), T.q(d), T.q(outside .. "/precious"), T.q(d)))
    T.eq(lcsb.kind(d .. "/link/precious"), "file", "planted link works")
  end
  local closed, why = s:close()
  T.eq(lcsb.kind(outside), "dir", "outside directory kept")
  T.eq(lcsb.kind(outside .. "/dir"), "dir", "outside subdirectory kept")
  local f = assert(io.open(outside .. "/precious"))
  T.eq(f:read("a"), "keep me", "outside file untouched")
  f:close()
  T.eq(lcsb.kind(outside .. "/dir/inner"), "file", "file beneath the outside directory kept")
  T.ok(closed, "close: " .. tostring(why))
  T.eq(lcsb.kind(home), nil, "HOME removed")
  T.eq(lcsb.kind(tmp), nil, "TMPDIR removed")
end)

T.case("a scope removes a mode-000 directory, through a descriptor, never a link", function()
  -- An outside directory, mode 0755, that a symlink in the scope points at:
  -- opening up an unreadable entry by name (chmod follows links) would have
  -- made it 0700. As root, mode 000 blocks nothing; the unprivileged pass
  -- runs this as an ordinary user, where it does.
  local outside = T.tmpdir()
  T.sh("chmod 0755 " .. T.q(outside))
  T.write(outside .. "/keep", "keep me")
  T.sh("mkdir " .. T.q(outside .. "/sub") .. " && echo inner > " .. T.q(outside .. "/sub/inner"))
  T.sh("chmod 0755 " .. T.q(outside .. "/sub"))
  local s = lcsb.scope()
  local dir = assert(s:mkdtemp("t"))
  T.sh(("mkdir -p %s/locked/deeper && echo x > %s/locked/deeper/f && echo y > %s/locked/g")
    :format(T.q(dir), T.q(dir), T.q(dir)))
  -- Read-only too, as a Go module cache leaves its trees.
  T.sh(("mkdir -p %s/ro/sub && echo z > %s/ro/sub/h && chmod 0555 %s/ro/sub %s/ro")
    :format(T.q(dir), T.q(dir), T.q(dir), T.q(dir)))
  T.sh(("chmod 000 %s/locked/deeper %s/locked"):format(T.q(dir), T.q(dir)))
  for _, name in ipairs { "link", "locked-link" } do
    T.sh(("ln -s %s %s/%s"):format(T.q(outside), T.q(dir), name))
  end
  T.sh(("ln -s %s %s/sublink"):format(T.q(outside .. "/sub"), T.q(dir)))
  T.sh("chmod 0500 " .. T.q(dir)) -- the scope's own directory, too
  local closed, why = s:close()
  T.ok(closed, "close: " .. tostring(why))
  T.eq(lcsb.kind(dir), nil, "the scope's directory is gone")
  T.eq(mode(outside), "755", "outside directory's mode")
  T.eq(mode(outside .. "/sub"), "755", "outside subdirectory's mode")
  local f = assert(io.open(outside .. "/keep"))
  T.eq(f:read("a"), "keep me", "outside file intact")
  f:close()
  T.eq(T.trim(T.sh("cat " .. T.q(outside .. "/sub/inner"))), "inner", "outside subdirectory's file intact")
end)

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
  local p, world = lcsb.exec_policy { scope = s, oci = { rootfs = root, args = { "--memory=1g" } } }
  T.eq(world.rootfs, root, "the world comes back second")
  T.eq(world.args[1], "--memory=1g", "engine arguments")
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
  -- A name alone is no world.
  local none, err = lcsb.wrap(p, { "make" }, "oci")
  T.eq(none, nil, "oci by name")
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
  local cmd = ("cd %s && %s %s %s 2>&1"):format(T.q(dir), env or "", T.q(T.build .. "/lcsb"), args)
  return T.sh(cmd)
end

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
  local out, code = T.sh(("cd %s && %s wrap policy.lua -- true"):format(T.q(dir), T.q(T.build .. "/lcsb")))
  T.eq(code, 0, "exit status")
  local argv = cjson.decode(out)
  T.eq(argv[1], realpath(T.build .. "/lcsb-exec"), "the shim first")
  T.eq(argv[1], detect.shim, "the shim detect reports")
  local header = cjson.decode(argv[2])
  T.eq(header["lcsb-exec"], 2, "wire version")
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
