-- exec_policy's world: the private HOME and TMPDIR, the read baseline (/etc
-- without its secrets), the placeholder .git it holds, the terminals it
-- grants, the project and `~`. Run by ctest with stock lua5.4 and the built
-- lcsb/core.so; the project cases drive the built lcsb CLI.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)
local lcsb = require "lcsb"
local core = require "lcsb.core"

local policy, mode, realpath, policy_error = H.policy, H.mode, H.realpath, H.policy_error

T.case("private HOME and TMPDIR: fresh, 0700, writable, in the environment", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  local home, tmp = t.env.set.HOME, t.env.set.TMPDIR
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
  T.ok(t2.env.set.HOME ~= home and t2.env.set.TMPDIR ~= tmp, "fresh per policy")
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
end)

-- Where the command gets a world of its own, /etc is read whole and every
-- secret that exists is hidden in it, by its real path.
local host = lcsb.detect()
local own_world = host.landlock_abi > 0 and host.user_namespaces
local SECRETS = { "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
  "/etc/sudoers", "/etc/sudoers.d", "/etc/security/opasswd", "/etc/ssl/private",
  "/etc/krb5.keytab" }
for _, key in ipairs(core.listdir("/etc/ssh") or {}) do
  if key:match("^ssh_host_.*_key$") then SECRETS[#SECRETS + 1] = "/etc/ssh/" .. key end
end

T.case("read baseline: /etc whole and its secrets hidden, where the world holds them", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s }
  if not own_world then
    -- Entry by entry instead (the next case): nothing to hide.
    T.lacks(t.read, "/etc", "read")
    T.eq(#t.hide, 0, "hide")
    return
  end
  T.contains(t.read, "/etc", "read")
  for _, secret in ipairs(SECRETS) do
    local real = lcsb.realpath(secret)
    if real then T.contains(t.hide, real, "hide") end
  end
  T.eq(#t.hide, #lcsb.etc_hidden(), "hide is etc_hidden's")
end)

-- Elsewhere /etc is granted entry by entry, minus lcsb.etc_secrets: Landlock
-- cannot take /etc/shadow back from a grant of /etc. Checks only what exists
-- on this host, through etc_read, which exec_policy uses there.
T.case("read baseline: /etc without its secrets", function()
  local t = { read = lcsb.etc_read() }
  local function covered(path)
    for _, have in ipairs(t.read) do
      if path == have or path:sub(1, #have + 1) == have .. "/" then return have end
    end
  end
  for _, ok in ipairs { "/etc/passwd", "/etc/hosts", "/etc/hostname", "/etc/group" } do
    local real = lcsb.realpath(ok)
    if real then T.ok(covered(real), ok .. " is readable") end
  end
  for _, secret in ipairs(SECRETS) do
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

-- Services' keys and passwords, which a command run as root could read:
-- each left out of a built /etc and hidden, what lies beside them granted.
T.case("etc_read, etc_hidden: services' keys and passwords", function()
  local etc = realpath(T.tmpdir())
  local secret = { "wireguard/wg0.conf", "NetworkManager/system-connections/home.nmconnection",
    "letsencrypt/live/x/privkey.pem", "openvpn/client.key", "ipsec.secrets",
    "kubernetes/admin.conf", "rancher/k3s/k3s.yaml", "pki/tls/private/k.key",
    "wpa_supplicant/wpa_supplicant.conf", "ceph/ceph.client.admin.keyring", "mysql/debian.cnf",
    "sssd/sssd.conf", "postfix/sasl_passwd", "credstore/token" }
  local beside = { "NetworkManager/NetworkManager.conf", "pki/tls/certs/ca.pem",
    "wpa_supplicant/functions.sh", "ceph/ceph.conf", "mysql/my.cnf", "postfix/main.cf" }
  local all = {}
  for _, list in ipairs({ secret, beside }) do
    for _, rel in ipairs(list) do all[#all + 1] = T.q(rel) end
  end
  T.sh("cd " .. T.q(etc) .. " && for f in " .. table.concat(all, " ")
    .. "; do mkdir -p \"$(dirname \"$f\")\" && touch \"$f\"; done")
  local got = {}
  for _, path in ipairs(lcsb.etc_read(etc)) do got[path:sub(#etc + 2)] = true end
  -- A directory with no secret in it is granted whole.
  local function granted(rel)
    for path in pairs(got) do
      if rel == path or rel:sub(1, #path + 1) == path .. "/" then return true end
    end
    return false
  end
  for _, rel in ipairs(beside) do T.ok(granted(rel), rel .. " is granted") end
  for path in pairs(got) do
    for _, rel in ipairs(secret) do
      T.ok(rel ~= path and rel:sub(1, #path + 1) ~= path .. "/", path .. " grants the secret " .. rel)
    end
  end
  local hidden = {}
  for _, path in ipairs(lcsb.etc_hidden(etc)) do hidden[#hidden + 1] = path:sub(#etc + 2) end
  for _, rel in ipairs(secret) do
    local held = false
    for _, h in ipairs(hidden) do held = held or rel == h or rel:sub(1, #h + 1) == h .. "/" end
    T.ok(held, rel .. " is hidden")
  end
  for _, rel in ipairs(beside) do
    for _, h in ipairs(hidden) do T.ok(rel ~= h and rel:sub(1, #h + 1) ~= h .. "/", h .. " hides " .. rel) end
  end
end)

-- The placeholder .git that runs in one project share: made or found empty,
-- held, and removed by the last run to let go.
T.case("core.hold: shared, removed by the last to let go, never when not empty", function()
  local dir = T.tmpdir()
  local path = dir .. "/.git"
  local first = assert(core.hold(path))
  T.eq(lcsb.kind(path), "dir", "made")
  local second = assert(core.hold(path))
  T.ok(first:release(), "the first lets go")
  T.eq(lcsb.kind(path), "dir", "still held by the second")
  T.ok(second:release(), "the second lets go")
  T.eq(lcsb.kind(path), nil, "removed by the last")
  T.ok(second:release(), "letting go twice is harmless")
  os.execute("mkdir " .. T.q(path))
  local adopted = assert(core.hold(path))
  T.ok(adopted:release(), "an empty one found is held too")
  T.eq(lcsb.kind(path), nil, "and removed")
  os.execute("mkdir " .. T.q(path) .. " && touch " .. T.q(path .. "/HEAD"))
  local none, err = core.hold(path)
  T.eq(none, nil, "a repository is not held")
  T.has(err, "Directory not empty", "message")
  -- Filled while held: it stays, and releasing says why.
  os.execute("rm " .. T.q(path .. "/HEAD"))
  local held = assert(core.hold(path))
  T.write(path .. "/HEAD", "x")
  local ok, why = held:release()
  T.eq(ok, nil, "not removed")
  T.has(why, "Directory not empty", "release message")
  T.eq(lcsb.kind(path .. "/HEAD"), "file", "what was made there stays")
  -- Another process sitting on it: refused after about a second, not waited for.
  os.execute("rmdir " .. T.q(path .. "/HEAD") .. " 2>/dev/null; rm -f " .. T.q(path .. "/HEAD"))
  os.execute("flock -x " .. T.q(path) .. " sleep 3 >/dev/null 2>&1 &")
  os.execute("sleep 0.3")
  local blocked, stuck = core.hold(path)
  T.eq(blocked, nil, "not held while another process keeps it locked")
  T.has(stuck, "locked for over a second", "message")
  -- Where this user may not make it, hold says so (root may make it anywhere).
  local locked = T.tmpdir()
  os.execute("chmod 555 " .. T.q(locked))
  local hold, why_not, unwritable = core.hold(locked .. "/.git")
  if T.trim(T.sh("id -u")) ~= "0" then
    T.eq(hold, nil, "no hold in an unwritable directory")
    T.has(why_not, "Permission denied", "message")
    T.eq(unwritable, true, "unwritable")
  else
    T.ok(hold and hold:release(), "root makes and removes it")
  end
  os.execute("chmod 755 " .. T.q(locked))
end)

T.case("core.listdir: sorted names without . and ..", function()
  local dir = T.tmpdir()
  for _, name in ipairs { "b", "a", ".hidden", "c d" } do T.write(dir .. "/" .. name, "x") end
  local names, kinds = core.listdir(dir)
  T.eq(table.concat(names, "|"), ".hidden|a|b|c d", "listdir")
  T.eq(#kinds, #names, "a kind per name")
  os.execute("mkdir " .. T.q(dir .. "/sub") .. " && ln -s a " .. T.q(dir .. "/link"))
  names, kinds = core.listdir(dir)
  local kind = {}
  for i, name in ipairs(names) do kind[name] = kinds[i] end
  -- The file system may not say (then "unknown"); this one does.
  T.eq(kind.a, "file", "a file")
  T.eq(kind.sub, "dir", "a directory")
  T.eq(kind.link, "link", "a symlink")
  local none, err = core.listdir(dir .. "/missing")
  T.eq(none, nil, "listdir of a missing directory")
  T.has(err, "No such file or directory", "message")
  none, err = core.listdir(dir .. "/a")
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
    local t = lcsb.exec_policy({ scope = s })
    io.stderr:write(#require("lcsb.core").ttys(), "\n")
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

-- A project that is the whole real HOME is refused; named on purpose, the
-- caps refuse it: HOME holds (or could be made to hold) what lcsb's caps
-- keep from every project, its own configuration included.
T.case("a defaulted project that is HOME is refused; project = \"~\" by the caps", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local home = T.tmpdir()
  local function check(body, where)
    T.write(home .. "/p.lua", 'local lcsb = require "lcsb"\nreturn lcsb.exec_policy { ' .. body .. ' }\n')
    return T.sh(("cd %s && HOME=%s %s check --no-trust-check --backend none %s 2>&1"):format(
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
  -- Said on purpose: the caps refuse it, naming what HOME could be made to hold.
  out, code = check('project = "~"')
  T.eq(code, 125, 'project = "~": ' .. out)
  T.has(out, "the policy's write path " .. home .. " holds what no project policy may have",
    "names the cap")
  T.has(out, home .. "/.config/lcsb", "names lcsb's own configuration")
  out, code = check("project = " .. ("%q"):format(home))
  T.eq(code, 125, "project = HOME spelled out: " .. out)
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
  local real_home = core.normalize(os.getenv("HOME"))
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

T.run()
