-- The hints, word for word: from what the recorder saw (the attestation's
-- refused list), grouped and named, on any exit; and from the stderr tail,
-- for what it did not see, over a corpus of real tools' refusals (issue 20:
-- every refusal named). Paths the tests need to exist are made in a fresh
-- directory; programs are found along /usr/bin:/bin, as the evidence's PATH
-- says, so the expected lines are computed the same way.

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local remedies = require "lcsb.remedies"
local core = require "lcsb.core"
local tools = require "lcsb.tools"

local D = T.tmpdir()
T.sh("mkdir -p " .. T.q(D .. "/out") .. " " .. T.q(D .. "/proj") .. " " .. T.q(D .. "/work/out"))
T.write(D .. "/out/existing", "")

-- NAME as the hints find it: along the evidence's PATH, else where gcc and
-- git keep their own programs; the bare name when nowhere.
local function which(name)
  for dir in ("/usr/bin:/bin"):gmatch("[^:]+") do
    if core.kind(dir .. "/" .. name) == "file" then return dir .. "/" .. name end
  end
  for _, beside in ipairs { "/usr/lib/gcc/*/*/", "/usr/libexec/gcc/*/*/", "/usr/lib/git-core/",
    "/usr/libexec/git-core/" } do
    local found = tools.glob(beside .. name)
    if found[1] then return found[1] end
  end
  return name
end

local RO = ' ("Read-only file system" here means outside the policy\'s write tier, not a read-only disk)'
local PROTECTED = "it is protected (protect): read-only whatever the policy grants, so nothing "
  .. "planted there (a git hook, an agent's configuration) runs outside the sandbox later"
local LIFT = "; protect = false turns all protection off"
-- A default of protect is let go by its name.
local function lift(name)
  return ('; protect = { "!%s" } lets that default go, protect = false all protection'):format(name)
end

local function attestation(over)
  local att = { backend = "landlock", fs = "enforced", exec = "allowlist", net = "denied",
    net_covers = "all", net_by = "landlock+seccomp", abi = 7, scoped = true, dropped = {},
    world = "own" }
  for k, v in pairs(over or {}) do att[k] = v end
  return att
end

local function evidence(over)
  local ev = {
    argv = { "make" }, status = 1, note = "", attestation = attestation(),
    policy = { read = { "/usr", "/etc" }, write = { D .. "/proj" }, exec = {},
      protect = { D .. "/proj/.git/hooks", D .. "/proj/.git/config" },
      env = { pass = {}, set = { HOME = "/tmp/lcsb-home.x", PATH = "/usr/bin:/bin" }, unset = {} },
      net = false, cwd = D .. "/proj" },
  }
  for k, v in pairs(over or {}) do ev[k] = v end
  return ev
end

-- A recorded refusal, as the attestation has it.
local function refusal(op, key, target, program, over)
  local r = { op = op, key = key, target = target, program = program, errno = 13,
    error = "EACCES", count = 1 }
  for k, v in pairs(over or {}) do r[k] = v end
  return r
end

local function recorded(list, over)
  return attestation { recorded = true, refused = list, refused_count = #list }, over
end

-- The hints for a run that exited 0 and was asked (--report).
local function reported(list, policy)
  local ev = evidence { status = 0, report = true, attestation = recorded(list) }
  if policy then ev.policy = policy end
  return remedies.explain(ev)
end

-- The hints for STDERR, one line, from a run that failed.
local function said(stderr, over)
  local ev = evidence(over)
  ev.stderr = stderr .. "\n"
  return remedies.explain(ev)
end

local function lines(list) return table.concat(list, "\n") end

T.case("exec refusals: one line, full paths to add, program names in the parenthesis", function()
  local hints = reported {
    refusal("exec", "exec", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "gcc"),
    refusal("exec", "exec", "/usr/bin/as", "gcc"),
    refusal("exec", "exec", "/usr/lib/gcc/x86_64-linux-gnu/12/collect2", "gcc"),
  }
  T.eq(lines(hints), 'refused: exec of 3 programs (cc1, as, collect2): add exec = { '
    .. '"/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/usr/bin/as", '
    .. '"/usr/lib/gcc/x86_64-linux-gnu/12/collect2" }', "three programs")
  T.eq(lines(reported { refusal("exec", "exec", "/usr/bin/id", "make") }),
    'refused: exec of /usr/bin/id (make): add exec = { "/usr/bin/id" }', "one program")
  -- A program the project built may be named; one in a dot-directory of
  -- yours is not suggested.
  T.eq(lines(reported { refusal("exec", "exec", D .. "/proj/.venv/bin/pytest", "python3") }),
    ('refused: exec of %s/proj/.venv/bin/pytest (python3): add exec = { "%s/proj/.venv/bin/pytest" }')
      :format(D, D), "the project's own")
  T.eq(lines(reported { refusal("exec", "exec", "/home/u/.local/bin/tool", "sh") }),
    "refused: exec of /home/u/.local/bin/tool (sh): no hint: granting a dot-file or "
      .. "dot-directory (where keys, credentials and start-up files live) is a decision to make "
      .. "yourself", "a dot-directory outside the project")
end)

T.case("writes and reads grouped by directory; one file names itself or its directory", function()
  local hints = reported {
    refusal("write", "write", D .. "/out/a.o", "as", { errno = 30, error = "EROFS" }),
    refusal("write", "write", D .. "/out/b.o", "as", { errno = 30, error = "EROFS" }),
    refusal("read", "read", "/srv/data/x.csv", "cat"),
    refusal("read", "read", "/srv/data/y.csv", "cat"),
    refusal("write", "write", D .. "/out/existing", "touch"),
  }
  T.eq(lines(hints), ('refused: write under %s/out (3 files): add write = { "%s/out" }%s\n')
    :format(D, D, RO)
    .. 'refused: read under /srv/data (2 files): add read = { "/srv/data" }',
    "grouped by directory")
  T.eq(lines(reported { refusal("write", "write", D .. "/out/existing", "touch") }),
    ('refused: write of %s/out/existing (touch): add write = { "%s/out/existing" }'):format(D, D),
    "a file that is there: the file")
  T.eq(lines(reported { refusal("write", "write", D .. "/out/new", "touch") }),
    ('refused: write of %s/out/new (touch): add write = { "%s/out" }'):format(D, D),
    "a file being made: its directory")
  T.eq(lines(reported { refusal("read", "read", "/srv/data/x.csv", "cat") }),
    'refused: read of /srv/data/x.csv (cat): add read = { "/srv/data/x.csv" }', "one read")
  -- A directory no write entry may name (a system prefix): the files.
  T.eq(lines(reported { refusal("write", "write", "/tmp/lcsb-none-a", "x"),
    refusal("write", "write", "/tmp/lcsb-none-b", "x") }),
    'refused: write of 2 files in /tmp: add write = { "/tmp/lcsb-none-a", "/tmp/lcsb-none-b" } '
    .. "(make what is missing first: a path that does not exist is left out of a policy)",
    "too wide to grant")
end)

T.case("protected, hidden, sockets: named by the key that governs them, never a grant", function()
  T.eq(lines(reported { refusal("write", "protect", D .. "/proj/.git/hooks/pre-commit", "sh",
    { errno = 30, error = "EROFS" }) }),
    ("refused: write of %s/proj/.git/hooks/pre-commit (sh): %s%s"):format(D, PROTECTED,
      lift(".git/hooks")), "protect")
  T.eq(lines(reported { refusal("write", "protect", D .. "/proj/.git/config", "git",
    { errno = 16, error = "EBUSY" }) }),
    ('refused: write of %s/proj/.git/config (git): %s ("Device or resource busy": a read-only '
      .. "mount holds it); give git its settings with git -c, or with GIT_AUTHOR_NAME and the "
      .. "like in env, which write nothing, or run git config outside lcsb%s")
      :format(D, PROTECTED, lift(".git/config")), "protect, EBUSY")
  -- An agent's configuration: the default named, its directory's.
  T.eq(lines(reported { refusal("write", "protect", D .. "/proj/.claude/settings.json", "sh",
    { errno = 30, error = "EROFS" }) }),
    ("refused: write of %s/proj/.claude/settings.json (sh): %s%s"):format(D, PROTECTED,
      lift(".claude")), "an agent's configuration")
  -- A placeholder lcsb holds for the run (it was not there): said so, for
  -- the command met lcsb's directory, not one of the user's.
  local held = evidence().policy
  held.held = { [D .. "/proj/.codex"] = true }
  held.protect[#held.protect + 1] = D .. "/proj/.codex"
  T.eq(lines(reported({ refusal("write", "protect", D .. "/proj/.codex", "git",
    { errno = 16, error = "EBUSY" }) }, held)),
    ("refused: write of %s/proj/.codex (git): lcsb holds %s/proj/.codex empty and read-only for "
      .. "the run, as it was not there, so that the command cannot make an agent's configuration "
      .. "there, which the agent would act on outside any sandbox (\"Device or resource busy\": it "
      .. "is a mount point for the run)%s"):format(D, D, lift(".codex")), "a placeholder, busy")
  T.has(lines(reported({ refusal("write", "protect", D .. "/proj/.codex/config.toml", "sh",
    { errno = 30, error = "EROFS" }) }, held)), "lcsb holds " .. D .. "/proj/.codex empty",
    "a file in it")
  -- A path of the policy's own list is no default: only all of it goes.
  T.eq(lines(reported { refusal("write", "protect", D .. "/proj/keep/x", "sh",
    { errno = 30, error = "EROFS" }) }),
    ("refused: write of %s/proj/keep/x (sh): %s%s"):format(D, PROTECTED, LIFT), "the policy's own")
  T.eq(lines(reported { refusal("read", "hide", "/etc/shadow", "cat", { errno = 2, error = "ENOENT" }) }),
    "refused: read of /etc/shadow (cat): it is hidden by the policy (hide, or one of /etc's "
    .. "secrets): it does not exist for the command", "hide")
  -- No socket is ever offered: one forged recorder line would otherwise
  -- hand the command the user's tmux server, which runs anything.
  for _, sock in ipairs { "/run/mysqld/mysqld.sock", "/tmp/tmux-1000/default",
    "/run/user/1000/tmux-1000/default", "/run/screen/S-u/123.pts-0.host", "/tmp/emacs1000/server",
    "/run/user/1000/kitty-123", "/run/user/1000/vscode-ipc-1a2b.sock",
    "/home/u/.local/share/jupyter/runtime/kernel-1.json.sock", "/run/cri-dockerd.sock" } do
    T.eq(lines(reported { refusal("connect", "sockets", sock, "x") }),
      ("refused: connect to %s (x): no hint: a unix socket outside the sandbox grants the "
        .. "command whatever its server does (a terminal multiplexer's or an editor's runs any "
        .. "command sent to it); name it in sockets yourself only if you would let the command "
        .. "do all of that"):format(sock), sock)
  end
  for _, bus in ipairs { "/run/user/1000/bus", "/run/dbus/system_bus_socket",
    "/run/user/1000/gnupg/S.gpg-agent", "/run/user/1000/keyring/ssh", "/run/systemd/private",
    "/tmp/ssh-XXXX/agent.123" } do
    T.eq(lines(reported { refusal("connect", "sockets", bus, "x") }),
      ("refused: connect to %s (x): no hint: it reaches a service that runs programs or uses keys "
        .. "as its owner, outside the sandbox: a decision to make yourself"):format(bus), bus)
  end
  T.eq(lines(reported { refusal("connect", "sockets", "/var/run/docker.sock", "docker") }),
    "refused: connect to /var/run/docker.sock (docker): no hint: it reaches a container "
    .. "engine, which runs anything as its owner: a decision to make yourself", "an engine")
  T.eq(lines(reported { refusal("connect", "sockets", "/home/u/.gnupg/S.gpg-agent", "gpg") }),
    "refused: connect to /home/u/.gnupg/S.gpg-agent (gpg): no hint: it reaches a service that "
    .. "runs programs or uses keys as its owner, outside the sandbox: a decision to make yourself",
    "an agent's socket")
end)

T.case("the network by host and port, in the policy's own net syntax", function()
  T.eq(lines(reported {
    refusal("connect", "net", "93.184.216.34:443", "curl"),
    refusal("connect", "net", "[::1]:80", "curl"),
    refusal("bind", "net", "0.0.0.0:8080", "node"),
    refusal("socket", "net", "inet/dgram", "dig", { errno = 1, error = "EPERM" }),
  }), "refused: connect to 93.184.216.34:443 (curl): to reach that host, add net = { domains = "
    .. "{ \"93.184.216.34:443\" } } (through lcsb's proxy; its name, where you know it, is "
    .. "better); net = { connect = { 443 } } would open TCP 443 to every host\n"
    .. "refused: connect to [::1]:80 (curl): add net = { connect = { 80 } } (which opens TCP 80 "
    .. "to every host, not this host's loopback alone)\n"
    .. "refused: bind to 0.0.0.0:8080 (node): add net = { bind = { 8080 } }\n"
    .. "refused: a socket of kind inet/dgram (dig): the policy allows no network; net = true "
    .. 'allows all of it, net = { domains = { "HOST" } } names hosts to reach through lcsb\'s proxy',
    "denied")
  local ev = evidence { status = 7, attestation = recorded {
    refusal("connect", "net", "93.184.216.34:443", "curl"),
    refusal("socket", "net", "inet/dgram", "dig") } }
  ev.attestation.net = "domains"
  T.eq(lines(remedies.explain(ev)), "refused: connect to 93.184.216.34:443 (curl): under "
    .. "net.domains the command reaches hosts by name, through lcsb's proxy: add the host's "
    .. "name to net = { domains = { ... } }\n"
    .. "refused: a socket of kind inet/dgram (dig): the policy allows no network; net = true "
    .. 'allows all of it, net = { domains = { "HOST" } } names hosts to reach through lcsb\'s proxy',
    "domains")
  ev.attestation.net = "ports"
  ev.attestation.refused = { refusal("socket", "net", "inet/dgram", "dig") }
  ev.attestation.refused_count = 1
  T.eq(lines(remedies.explain(ev)), "refused: a socket of kind inet/dgram (dig): net = { "
    .. "connect = { PORT } } allows TCP alone; net = true allows every kind of socket", "ports")
  -- The stderr's guess at a port is not repeated beside the record.
  ev.attestation.refused = { refusal("connect", "net", "10.0.0.1:8443", "curl") }
  ev.stderr = "curl: (7) Failed to connect to 10.0.0.1 port 8443 after 0 ms\n"
  T.eq(lines(remedies.explain(ev)),
    "refused: connect to 10.0.0.1:8443 (curl): to reach that host, add net = { domains = { "
    .. "\"10.0.0.1:8443\" }, lan = { \"10.0.0.1\" } } (through lcsb's proxy; its name, where "
    .. "you know it, is better); net = { connect = { 8443 } } would open TCP 8443 to every host",
    "no repeat, and a private address through net.lan")
  -- A remote address never gets a bare port, which opens it to every host;
  -- the loopback's does.
  for _, target in ipairs { "140.82.112.3:443", "[2606:4700::1111]:443", "192.168.1.9:22" } do
    T.hasnt(lines(reported { refusal("connect", "net", target, "git") }), "add net = { connect",
      target)
  end
  T.has(lines(reported { refusal("connect", "net", "127.0.0.1:5432", "psql") }),
    "add net = { connect = { 5432 } }", "the loopback")
  -- The loopback's port is every host's: the hint says so, as it does for
  -- another host's.
  T.eq(lines(reported { refusal("connect", "net", "127.0.0.1:4444", "python3") }),
    "refused: connect to 127.0.0.1:4444 (python3): add net = { connect = { 4444 } } (which "
    .. "opens TCP 4444 to every host, not this host's loopback alone)", "the loopback's warning")
  -- A name spelled as inet_aton reads an address is an address: no domain.
  for _, spelled in ipairs { "0x7f000001:443", "127.0.0.0x1:443", "0177.0.0.1:443",
    "2130706433:443", "127.1:443" } do
    T.eq(lines(reported { refusal("connect", "net", spelled, "curl") }),
      ("refused: connect to %s (curl): add net = { connect = { 443 } } (which opens TCP 443 to "
        .. "every host, not this host's loopback alone)"):format(spelled), spelled)
  end
  T.has(lines(reported { refusal("connect", "net", "0x8c527003:443", "curl") }),
    'domains = { "140.82.112.3:443" }', "a remote address, in its plain form")
end)

T.case("a name looked up and refused: net.domains names it; a socket beside it says nothing more", function()
  T.eq(lines(reported {
    refusal("socket", "net", "inet6/dgram", "curl"),
    refusal("connect", "net", "registry.npmjs.org:443", "curl", { errno = 11, error = "EAGAIN" }),
    refusal("connect", "net", "example.org:0", "node", { errno = 11, error = "EAGAIN" }),
  }), "refused: connect to registry.npmjs.org:443 (curl): to reach a host by name, add net = { "
    .. 'domains = { "registry.npmjs.org" } } (through lcsb\'s proxy)\n'
    .. "refused: connect to example.org (node): to reach a host by name, add net = { domains = "
    .. '{ "example.org" } } (through lcsb\'s proxy)', "denied")
  local ev = evidence { status = 1, attestation = recorded {
    refusal("connect", "net", "registry.npmjs.org:443", "node", { errno = 11, error = "EAGAIN" }) } }
  ev.attestation.net = "domains"
  ev.policy.net = { domains = { "registry.npmjs.org" } }
  T.eq(lines(remedies.explain(ev)), "not through the proxy: connect to registry.npmjs.org:443 "
    .. "(node): registry.npmjs.org is in net.domains, but the program looked it up itself "
    .. "instead of going through lcsb's proxy, which HTTPS_PROXY, HTTP_PROXY and ALL_PROXY name: "
    .. "tell the tool to use them (Node's built-in fetch does not: NODE_USE_ENV_PROXY=1 on Node "
    .. "24, or undici's EnvHttpProxyAgent)", "listed already")
end)

T.case("a directory refused a read may be one about to be written in; git -c spares .git/config", function()
  T.eq(lines(reported { refusal("read", "read", D, "cp", { errno = 2, error = "ENOENT" }) }),
    ('refused: read of %s (cp): add read = { "%s" } (or write = { "%s" }, if the command '
      .. "writes in it)"):format(D, D, D), "a directory")
  T.has(lines(reported { refusal("write", "protect", D .. "/proj/.git/config", "git",
    { errno = 16, error = "EBUSY" }) }), "with git -c", ".git/config")
end)

T.case("programs of one preset: the preset named beside them", function()
  T.eq(lines(reported { refusal("exec", "exec", "/usr/bin/sort", "sh"),
    refusal("exec", "exec", "/usr/bin/uniq", "sh") }),
    'refused: exec of 2 programs (sort, uniq): add exec = { "/usr/bin/sort", "/usr/bin/uniq" }, '
      .. "or exec = { lcsb.tools.shell } for them and the rest of that preset at once", "shell")
  T.eq(lines(reported { refusal("exec", "exec", "/usr/bin/sort", "sh"),
    refusal("exec", "exec", "/usr/local/bin/mytool", "sh") }),
    'refused: exec of 2 programs (sort, mytool): add exec = { "/usr/bin/sort", '
      .. '"/usr/local/bin/mytool" }', "not all in one")
end)

T.case("what an attack round found: no lure toward a way out, and no hang", function()
  local home = os.getenv("HOME") or "/root"
  -- Writes where code runs later, or another user's or repository's files.
  local repo = D .. "/other-repo"
  os.execute(("mkdir -p '%s/.git'"):format(repo))
  for _, target in ipairs { "/var/spool/cron/crontabs/root", "/usr/local/bin/ls",
    "/usr/local/lib/python3.11/dist-packages/x.py", "/var/lib/dpkg/status", "/run/x",
    "/opt/tool/bin/x", "/home/lcsb-someone-else/proj/x", repo .. "/x" } do
    T.has(lines(reported { refusal("write", "write", target, "sh") }), ": no hint: ", target)
  end
  -- A program in /opt or /usr/local may still be named for exec.
  T.has(lines(reported { refusal("exec", "exec", "/usr/local/bin/tool", "sh") }),
    'add exec = { "/usr/local/bin/tool" }', "exec in /usr/local")
  -- A name no host has: no domain offered.
  for _, name in ipairs { "*.com:443", "a,b.com:443", "x y:80" } do
    T.hasnt(lines(reported { refusal("connect", "net", name, "curl") }), "domains =", name)
  end
  -- Many programs: a line a terminal can show.
  local many = {}
  for i = 1, 40 do many[i] = refusal("exec", "exec", "/usr/bin/p" .. i, "sh") end
  local line = lines(reported(many))
  T.ok(#line < 600, "one line of " .. #line .. " bytes")
  T.has(line, "exec of 40 programs", "the count")
  T.has(line, "(and 32 more: the attestation lists them)", "the rest")
  -- A target of backspaces is judged in linear time.
  local started = os.clock()
  lines(reported { refusal("read", "read", "/srv/" .. ("a"):rep(100000) .. ("\b"):rep(100000), "x") })
  T.ok(os.clock() - started < 2, "took " .. (os.clock() - started) .. " s")
  -- The real HOME's dot-files: only settings are offered; a missing one is no refusal.
  local function home_hint(rel)
    local ev = evidence { status = 1, attestation = recorded {
      refusal("read", "read", "/tmp/lcsb-home.x/" .. rel, "sh",
        { errno = 2, error = "ENOENT", home = true }) } }
    return lines(remedies.explain(ev))
  end
  local f = io.open(home .. "/.lcsb-test-history", "w")
  if f then
    f:close()
    T.has(home_hint(".lcsb-test-history"), "no hint: your real one may hold keys or tokens",
      "a dot-file of yours")
    os.remove(home .. "/.lcsb-test-history")
  end
  T.eq(home_hint(".lcsb-test-nothing-here"), "", "not in your HOME either: nothing")
end)

-- A unix socket, left behind as a file (its server gone: the file is what
-- an entry grants).
local function make_socket(path)
  local _, code = T.sh("python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "
    .. T.q(path))
  T.eq(code, 0, "a unix socket at " .. path)
end

local SOCKET = "it is a unix socket, which a read or write entry would let the command connect "
  .. "to, as sockets does: a unix socket outside the sandbox grants the command whatever its "
  .. "server does (a terminal multiplexer's or an editor's runs any command sent to it); name it "
  .. "in sockets yourself only if you would let the command do all of that"
local function holds_socket(name)
  return ("it holds a unix socket (%s), which an entry for the directory would let the command "
    .. "connect to: a unix socket grants the command whatever its server does (a terminal "
    .. "multiplexer's or an editor's runs any command sent to it), a decision to make yourself")
    :format(name)
end

T.case("a unix socket, or a directory that holds one, is never offered to read, write or exec", function()
  -- A read entry puts the socket in the command's world, and Landlock does
  -- not judge connect(): following `add read = { SOCKET }` let a command
  -- drive the user's tmux server, which runs what it is sent.
  local socks = D .. "/tmux-1001"
  T.sh("mkdir -p " .. T.q(socks))
  local sock = socks .. "/f3"
  make_socket(sock)
  T.write(socks .. "/notes", "")
  local want = ("refused: read of %s (cat): no hint: %s"):format(sock, SOCKET)
  -- What the command printed, what the recorder says of a read (an older
  -- lcsb's key, or a line the command forged), and as lcsb keeps it now.
  T.eq(lines(said("cat: " .. sock .. ": Permission denied")), want, "the stderr")
  T.eq(lines(reported { refusal("read", "read", sock, "cat") }), want, "a recorded read")
  T.eq(lines(reported { refusal("read", "sockets", sock, "cat") }), want, "the sockets key")
  T.eq(lines(reported { refusal("write", "write", sock, "cat") }),
    ("refused: write of %s (cat): no hint: %s"):format(sock, SOCKET), "a write")
  T.eq(lines(reported { refusal("exec", "exec", sock, "sh") }),
    ("refused: exec of %s (sh): no hint: %s"):format(sock, SOCKET), "an exec")
  -- Its directory: read, made in, read beside it; written, no write
  -- alternative.
  T.eq(lines(reported { refusal("read", "read", socks, "ls") }),
    ("refused: read of %s (ls): no hint: %s"):format(socks, holds_socket("f3")), "its directory")
  T.eq(lines(reported { refusal("write", "write", socks .. "/new", "sh") }),
    ("refused: write of %s/new (sh): no hint: %s"):format(socks, holds_socket("f3")),
    "a file made in it: the directory would be the entry")
  T.eq(lines(said("cat: " .. socks .. ": Permission denied")),
    ("refused: read of %s (cat): no hint: %s"):format(socks, holds_socket("f3")), "the stderr")
  -- Files beside it are named each, never the directory that holds it.
  T.eq(lines(reported { refusal("read", "read", socks .. "/notes", "cat"),
    refusal("read", "read", socks .. "/gone", "cat") }),
    ('refused: read of 2 files in %s: add read = { "%s/notes", "%s/gone" }'):format(socks, socks,
      socks), "files beside it")
  T.eq(lines(reported { refusal("write", "write", socks .. "/notes", "cat") }),
    ('refused: write of %s/notes (cat): add write = { "%s/notes" }'):format(socks, socks),
    "a file beside it that is there: the file")
  -- A directory that holds no socket still gets its write alternative.
  T.has(lines(reported { refusal("read", "read", D .. "/out", "cp") }),
    ('(or write = { "%s/out" }, if the command writes in it)'):format(D), "no socket, both")
end)

T.case("how far a hint looks for a unix socket: one level, and a bounded number of names", function()
  -- One level: a socket two levels down is not looked for (it is in no
  -- directory a hint offers).
  local deep = D .. "/deep"
  T.sh("mkdir -p " .. T.q(deep .. "/sub"))
  make_socket(deep .. "/sub/s")
  T.eq(lines(reported { refusal("read", "read", deep, "ls") }),
    ('refused: read of %s (ls): add read = { "%s" } (or write = { "%s" }, if the command writes '
      .. "in it)"):format(deep, deep, deep), "two levels down")
  -- Past the bound, lcsb cannot tell: withheld, and said why.
  local wide = D .. "/wide"
  T.sh("mkdir -p " .. T.q(wide) .. " && cd " .. T.q(wide) .. " && seq 1 4097 | xargs touch")
  T.eq(lines(reported { refusal("read", "read", wide, "ls") }),
    ("refused: read of %s (ls): no hint: lcsb cannot look into it (%s: more than 4096 entries) to "
      .. "tell whether it reaches a unix socket: a decision to make yourself"):format(wide, wide),
    "too many names")
end)

T.case("a directory holding another project's agent files or a .env is never offered", function()
  -- An agent acts on its configuration outside any sandbox: a write entry
  -- for the directory that holds it hands the command the planting, as a
  -- .git's hooks would.
  local other = D .. "/other"
  T.sh("mkdir -p " .. T.q(other .. "/.claude"))
  T.write(other .. "/a", "")
  T.write(other .. "/b", "")
  T.write(other .. "/.mcp.json", "{}")
  local CLAUDE = "it holds an agent's configuration (.claude), which the agent acts on outside "
    .. "any sandbox at its next start: a decision to make yourself (with protect for it)"
  -- Files there: named each, never the directory.
  T.eq(lines(reported { refusal("write", "write", other .. "/a", "cp"),
    refusal("write", "write", other .. "/b", "cp") }),
    ('refused: write of 2 files in %s: add write = { "%s/a", "%s/b" }'):format(other, other, other),
    "files that are there")
  T.eq(lines(reported { refusal("write", "write", other .. "/new", "cp") }),
    ("refused: write of %s/new (cp): no hint: %s"):format(other, CLAUDE), "a file made there")
  T.eq(lines(said("touch: cannot touch '" .. other .. "/new': Permission denied")),
    ("refused: write of %s/new (touch): no hint: %s"):format(other, CLAUDE), "from the stderr")
  -- Read, it is offered, without the write beside it.
  T.eq(lines(reported { refusal("read", "read", other, "ls") }),
    ('refused: read of %s (ls): add read = { "%s" }'):format(other, other), "read, not write")
  -- Each name of agents.lua, nested ones only where the file is there.
  local function made_in(dir)
    T.eq(lines(reported { refusal("write", "write", dir .. "/new", "cp") }):match("no hint: (.*)$"),
      nil, dir)
  end
  local nested = D .. "/nested"
  T.sh("mkdir -p " .. T.q(nested .. "/.vscode"))
  made_in(nested) -- .vscode alone is no agent's
  T.write(nested .. "/.vscode/settings.json", "{}")
  T.has(lines(reported { refusal("write", "write", nested .. "/new", "cp") }),
    "it holds an agent's configuration (.vscode/settings.json)", "a nested one")
  local told = D .. "/told"
  T.sh("mkdir -p " .. T.q(told))
  T.write(told .. "/AGENTS.md", "")
  T.has(lines(reported { refusal("write", "write", told .. "/new", "cp") }),
    "no hint: it holds an agent's instructions (AGENTS.md), which the agent follows at its next "
    .. "start", "instructions")
  -- The file itself, where a dot does not withhold it already.
  T.eq(lines(reported { refusal("write", "write", D .. "/out/opencode.json", "sh") }),
    ("refused: write of %s/out/opencode.json (sh): no hint: it is an agent's file "
      .. "(opencode.json), which the agent acts on outside any sandbox at its next start: a "
      .. "decision to make yourself (with protect for it)"):format(D), "opencode.json")
  -- A .env: where a project keeps its secrets; neither read nor written.
  local env = D .. "/envproj"
  T.sh("mkdir -p " .. T.q(env))
  T.write(env .. "/.env.local", "TOKEN=x\n")
  T.write(env .. "/data.csv", "")
  local ENV = ("it holds .env.local, where a project keeps its secrets and which tools load into "
    .. "their environment: a decision to make yourself")
  T.eq(lines(reported { refusal("read", "read", env, "ls") }),
    ("refused: read of %s (ls): no hint: %s"):format(env, ENV), "read")
  T.eq(lines(reported { refusal("write", "write", env .. "/new", "cp") }),
    ("refused: write of %s/new (cp): no hint: %s"):format(env, ENV), "write")
  T.eq(lines(reported { refusal("read", "read", env .. "/data.csv", "cat"),
    refusal("read", "read", env .. "/more.csv", "cat") }),
    ('refused: read of 2 files in %s: add read = { "%s/data.csv", "%s/more.csv" }'):format(env,
      env, env), "files beside it: each")
end)

T.case("lcsb's own files are never offered: its program, shim, recorder, Lua files, caps", function()
  local OWN = "it is lcsb's own (lcsb's program, shim, recorder, Lua files, caps files or trust "
    .. "store): no hint offers lcsb's own files to the command it confines"
  -- As a stock Lua host loaded them: lcsb's Lua files, and the C half.
  local caps_lua = assert(package.searchpath("lcsb.caps", package.path), "lcsb.caps on the path")
  T.eq(lines(reported { refusal("write", "write", caps_lua, "sh", { errno = 30, error = "EROFS" }) }),
    ("refused: write of %s (sh): no hint: %s"):format(caps_lua, OWN), "lcsb's caps.lua")
  T.eq(lines(reported { refusal("read", "read", caps_lua, "cat") }),
    ("refused: read of %s (cat): no hint: %s"):format(caps_lua, OWN), "read too")
  -- As a run's caps name them: the program, the shim and the recorder
  -- beside it, the administrator's directory.
  local install = D .. "/lcsb-install"
  T.sh("mkdir -p " .. T.q(install .. "/bin") .. " " .. T.q(install .. "/etc"))
  for _, name in ipairs { "lcsb", "lcsb-exec", "liblcsb-record.so" } do
    T.write(install .. "/bin/" .. name, "")
  end
  local function with_caps(list)
    local ev = evidence { status = 1, attestation = recorded(list) }
    ev.caps = { deny = {}, deny_write = {}, own = { install .. "/bin/lcsb",
      install .. "/bin/lcsb-exec", install .. "/bin/liblcsb-record.so", install .. "/etc" } }
    return lines(remedies.explain(ev))
  end
  T.eq(with_caps { refusal("exec", "exec", install .. "/bin/lcsb-exec", "sh") },
    ("refused: exec of %s/bin/lcsb-exec (sh): no hint: %s"):format(install, OWN), "the shim")
  T.eq(with_caps { refusal("write", "write", install .. "/etc/caps.lua", "sh") },
    ("refused: write of %s/etc/caps.lua (sh): no hint: %s"):format(install, OWN),
    "in a directory of lcsb's")
  -- A file made beside them: the directory would be the entry.
  T.eq(with_caps { refusal("write", "write", install .. "/bin/new", "sh") },
    ("refused: write of %s/bin/new (sh): no hint: it holds lcsb's own files (%s/bin/lcsb: "
      .. "lcsb's program, shim, recorder, Lua files, caps files or trust store): no hint offers "
      .. "lcsb's own files to the command it confines"):format(install, install), "beside them")
  -- Without the run's caps, the same files are no one's.
  T.eq(lines(reported { refusal("exec", "exec", install .. "/bin/lcsb-exec", "sh") }),
    ('refused: exec of %s/bin/lcsb-exec (sh): add exec = { "%s/bin/lcsb-exec" }'):format(install,
      install), "the twin")
end)

T.case("what a program probes in /proc and /sys and copes without is left to the attestation", function()
  T.eq(lines(reported {
    refusal("read", "read", "/sys/fs/cgroup/memory/memory.limit_in_bytes", "node",
      { errno = 2, error = "ENOENT" }),
    refusal("read", "read", "/proc/sys/vm/overcommit_memory", "node", { errno = 2, error = "ENOENT" }),
    refusal("write", "write", D .. "/out/x", "node"),
  }), ('refused: write of %s/out/x (node): add write = { "%s/out" }'):format(D, D), "probes")
  -- Refused outright (not absent), it is said, withheld as the system's own.
  T.ok(lines(reported { refusal("read", "read", "/sys/kernel/x", "cat") }):find("^refused: read of /sys/kernel/x"),
    "refused outright")
end)

T.case("the private HOME: said to be thrown away, with the key that keeps or shows a file", function()
  local home = { op = "write", key = "write", errno = 30, error = "EROFS", count = 1, home = true }
  local function at(target, program, over)
    local r = {}
    for k, v in pairs(home) do r[k] = v end
    for k, v in pairs(over or {}) do r[k] = v end
    r.target, r.program = target, program
    return r
  end
  T.eq(lines(reported { at("/tmp/lcsb-home.x/.npm/_logs/x.log", "npm") }),
    "refused: write of ~/.npm/_logs/x.log (npm): it lies in the run's private HOME, a fresh "
    .. 'directory removed after the run, not your HOME; cache = { "~/.npm" } keeps ~/.npm '
    .. "between runs", "cache keeps it")
  local policy = evidence().policy
  policy.home = { { name = "~/.gitconfig", path = "/home/u/.gitconfig" } }
  T.eq(lines(reported({ at("/tmp/lcsb-home.x/.gitconfig", "git") }, policy)),
    "refused: write of ~/.gitconfig (git): it is your real ~/.gitconfig, which home = { ... } "
    .. "shows read-only: the command cannot change it", "home shows it")
  T.eq(lines(reported { at("/tmp/lcsb-home.x/.local/bin/t", "sh", { op = "exec", key = "exec" }) }),
    "refused: exec of ~/.local/bin/t (sh): it lies in the run's private HOME, a fresh "
    .. "directory removed after the run, not your HOME: nothing there can be named in exec", "exec")
  -- A saved attestation has no policy: the HOME is known by its name, the
  -- home entries by the attestation's own list.
  local att = recorded { at("/tmp/lcsb-home.AbC123/.gitconfig", "git") }
  att.home = { { name = "~/.gitconfig", path = "/home/u/.gitconfig" } }
  T.eq(lines(remedies.explain { saved = true, attestation = att, argv = {}, policy = {} }),
    "refused: write of ~/.gitconfig (git): it is your real ~/.gitconfig, which home = { ... } "
    .. "shows read-only: the command cannot change it", "saved")
  -- What the caps keep from every policy is not suggested for a cache.
  T.eq(lines(reported { at("/tmp/lcsb-home.x/.ssh/known_hosts", "ssh") }),
    "refused: write of ~/.ssh/known_hosts (ssh): it lies in the run's private HOME, a fresh "
    .. "directory removed after the run, not your HOME", "no cache of ~/.ssh")
end)

T.case("sensitive paths: the hint is withheld, and says so and why", function()
  T.eq(lines(reported { refusal("read", "read", "/home/u/.ssh/id_rsa", "ssh") }),
    "refused: read of /home/u/.ssh/id_rsa (ssh): no hint: granting a dot-file or "
    .. "dot-directory (where keys, credentials and start-up files live) is a decision to make "
    .. "yourself", "a key")
  T.eq(lines(reported { refusal("read", "read", "/home/u/.aws/credentials", "aws"),
    refusal("read", "read", "/home/u/.aws/config", "aws") }),
    "refused: read of 2 files under /home/u/.aws: no hint: granting a dot-file or "
    .. "dot-directory (where keys, credentials and start-up files live) is a decision to make "
    .. "yourself", "grouped")
  T.eq(lines(reported { refusal("write", "write", "/etc/cron.d/job", "touch") }),
    "refused: write of /etc/cron.d/job (touch): no hint: granting the system's own files is a "
    .. "decision to make yourself", "the system's")
  T.eq(lines(reported { refusal("read", "read", "/root/.profile", "sh") }),
    "refused: read of /root/.profile (sh): no hint: granting root's home is a decision to "
    .. "make yourself", "root's dot-file")
  T.eq(lines(reported { refusal("read", "read", "/root/notes", "cat") }),
    "refused: read of /root/notes (cat): no hint: granting root's home is a decision to make "
    .. "yourself", "root's home")
  -- A backspace, an ESC sequence, a "..": the path as a terminal or the
  -- kernel would read it is judged too.
  for _, target in ipairs { "/home/u/\b.ssh/id_rsa", "/home/u/\27[0m.ssh/id_rsa",
    "/home/u/x\b.ssh/id_rsa", "/srv/../home/u/.ssh/id_rsa", "/home/u/\194\155.ssh/k" } do
    local text = lines(reported { refusal("read", "read", target, "cat") })
    T.has(text, "no hint: granting a dot-file or dot-directory", target)
    T.hasnt(text, "add read", target)
  end
end)

T.case("more refusals than lines, and more than the attestation keeps, are counted", function()
  local list = {}
  for i = 1, 14 do list[i] = refusal("read", "read", ("/srv/d%02d/f"):format(i), "cat") end
  local att = recorded(list)
  att.refused_count = 40
  local hints = remedies.explain(evidence { status = 0, report = true, attestation = att })
  T.eq(#hints, 11, "ten lines and the count")
  T.eq(hints[9], 'refused: read of /srv/d09/f (cat): add read = { "/srv/d09/f" }', "the ninth")
  T.eq(hints[10], "5 more lines of refusals: the attestation (--attest FILE) lists each", "cut")
  T.eq(hints[11], "26 more refusals were counted and not kept (40 in all; the attestation keeps "
    .. "the first 14): allow those above and run again to see the rest", "not kept")
  -- A saved one: its numbers come back from JSON as floats, its status may be missing.
  att.refused_count = 40.0
  hints = remedies.explain { saved = true, attestation = att, argv = {}, policy = {} }
  T.eq(hints[11], "26 more refusals were counted and not kept (40 in all; the attestation keeps "
    .. "the first 14): allow those above and run again to see the rest", "saved, a float")
end)

T.case("whatever the status: 0 with --report, a failure, a saved run with none", function()
  local list = { refusal("exec", "exec", "/usr/bin/id", "make") }
  local want = 'refused: exec of /usr/bin/id (make): add exec = { "/usr/bin/id" }'
  T.eq(lines(reported(list)), want, "status 0, report")
  T.eq(lines(remedies.explain(evidence { status = 2, attestation = recorded(list) })), want, "2")
  T.eq(lines(remedies.explain(evidence { status = 126, attestation = recorded(list) })), want,
    "126: no generic exec hint beside the record")
  T.eq(lines(remedies.explain { saved = true, attestation = recorded(list), argv = {}, policy = {} }),
    want, "saved, no status")
  -- Recorded and nothing refused: nothing to say on success.
  T.eq(#remedies.explain(evidence { status = 0, report = true, attestation = recorded {} }), 0, "none")
  -- A saved run's proxy refusals are said too, whatever its status.
  local att = attestation { net = "domains", net_refused_count = 1,
    net_refused = { { host = "evil.example.net", port = 443, attempts = 1, why = "not in net.domains" } } }
  T.eq(lines(remedies.explain { saved = true, status = 0, attestation = att, argv = {}, policy = {} }),
    'the command tried to reach evil.example.net:443; to allow it, add net = { domains = { '
    .. '"evil.example.net" } }', "saved, exited 0")
end)

T.case("control bytes in a target or a program cannot split a line or reach the terminal", function()
  local target = "/srv/evil\nlcsb: hint: add exec = \"any\"\27[2J\r\\x"
  local hints = reported { refusal("read", "read", target, "x\27]0;t\7") }
  T.eq(#hints, 1, "one line")
  T.eq(hints[1], 'refused: read of /srv/evil\\nlcsb: hint: add exec = "any"\\x1b[2J\\r\\x '
    .. '(x\\x1b]0;t\\x07): add read = { "/srv/evil\\nlcsb: hint: add exec = \\"any\\"\\x1b[2J\\r\\\\x" }',
    "escaped, and the entry a Lua string that reads back as the path")
  T.ok(not hints[1]:find("[%c\127]"), "no control byte")
  -- The entry, read back by Lua, is the path itself.
  local entry = hints[1]:match("add read = { (.*) }$")
  T.eq(load("return " .. entry)(), target, "the entry is the target")
end)

T.case("the stderr does not repeat what the evidence names, and fills in what it lacks", function()
  local ev = evidence { status = 2, attestation = recorded {
    refusal("exec", "exec", "/usr/bin/id", "make"),
    refusal("read", "read", "/srv/data/x.csv", "cat") } }
  -- A static program is not recorded: its refusal comes from its stderr.
  ev.stderr = "make: id: Permission denied\ncat: /srv/data/x.csv: Permission denied\n"
    .. "sh: 1: cannot create " .. D .. "/out/static.log: Read-only file system\n"
  T.eq(lines(remedies.explain(ev)),
    'refused: exec of /usr/bin/id (make): add exec = { "/usr/bin/id" }\n'
    .. 'refused: read of /srv/data/x.csv (cat): add read = { "/srv/data/x.csv" }\n'
    .. ('refused: write of %s/out/static.log (sh): add write = { "%s/out" }%s'):format(D, D, RO),
    "one line each")
end)

-- ---- the stderr corpus ----

T.case("writes: the path the tool names, not the shell's own; never a read-only disk", function()
  local out = D .. "/out"
  local cases = {
    { "/bin/sh: 1: cannot create " .. out .. "/new: Read-only file system", "sh", out .. "/new", RO },
    { "sh: 1: cannot create " .. out .. "/new: Directory nonexistent", "sh", out .. "/new", "" },
    { "bash: " .. out .. "/new: Read-only file system", "bash", out .. "/new", RO },
    { "/usr/bin/ld: cannot open output file " .. out .. "/a.out: Read-only file system", "ld",
      out .. "/a.out", RO },
    { "touch: cannot touch '" .. out .. "/t': Permission denied", "touch", out .. "/t", "" },
    { "cp: cannot create regular file '" .. out .. "/c': Permission denied", "cp", out .. "/c", "" },
    { "mkdir: cannot create directory \226\128\152" .. out .. "/m\226\128\153: Read-only file system",
      "mkdir", out .. "/m", RO },
    { "OSError: [Errno 30] Read-only file system: '" .. out .. "/o'", nil, out .. "/o", RO },
    { "PermissionError: [Errno 13] Permission denied: '" .. out .. "/p'", nil, out .. "/p", "" },
    { "Error: EACCES: permission denied, open '" .. out .. "/n'", nil, out .. "/n", "" },
    { "Error: EROFS: read-only file system, open '" .. out .. "/n'", nil, out .. "/n", RO },
    { "Error: EACCES: permission denied, mkdir '" .. out .. "/existing'", nil, out .. "/existing", "" },
  }
  for _, c in ipairs(cases) do
    local line, program, target, note = c[1], c[2], c[3], c[4]
    local entry = target == out .. "/existing" and target or out
    T.eq(lines(said(line)), ('refused: write of %s%s: add write = { "%s" }%s'):format(target,
      program and (" (" .. program .. ")") or "", entry, note), line)
  end
  -- A file that is there, named by Python or Node: read.
  T.eq(lines(said("PermissionError: [Errno 13] Permission denied: '" .. out .. "/existing'")),
    ('refused: read of %s/existing: add read = { "%s/existing" }'):format(out, out), "python read")
end)

T.case("relative paths are the run's working directory's, never cut to a tail", function()
  local work = evidence().policy
  work.cwd = D .. "/work"
  T.eq(lines(said("touch: cannot touch 'out/x': Read-only file system", { policy = work })),
    ('refused: write of %s/work/out/x (touch): add write = { "%s/work/out" }%s'):format(D, D, RO),
    "a relative write")
  T.eq(lines(said("sh: 1: cannot create .git/hooks/pre-commit: Read-only file system")),
    ("refused: write of %s/proj/.git/hooks/pre-commit (sh): %s%s"):format(D, PROTECTED,
      lift(".git/hooks")), "a hook: protected")
  T.eq(lines(said("sh: 1: ./app: Permission denied")),
    ('refused: exec of %s/proj/app (sh): add exec = { "%s/proj/app" }'):format(D, D), "./app")
  T.eq(lines(said("error: could not lock config file .git/config: Device or resource busy")),
    ('refused: write of %s/proj/.git/config: %s ("Device or resource busy": a read-only mount '
      .. "holds it); give git its settings with git -c, or with GIT_AUTHOR_NAME and the like in "
      .. "env, which write nothing, or run git config outside lcsb%s"):format(D, PROTECTED,
      lift(".git/config")), "EBUSY on a protected config")
  -- Without a working directory, a relative path is no grant.
  local none = evidence().policy
  none.cwd = nil
  T.eq(lines(said("touch: cannot touch 'out/x': Read-only file system", { policy = none })), "",
    "no cwd, no guess")
end)

T.case("exec refusals below the top: make, xargs, env, node, python, gcc, collect2, git", function()
  local function exec(path, program)
    return ('refused: exec of %s%s: add exec = { "%s" }'):format(path,
      program and (" (" .. program .. ")") or "", path)
  end
  local id = which("id")
  T.eq(lines(said("make: id: Permission denied\nmake: *** [Makefile:2: all] Error 127")),
    exec(id, "make"), "make")
  T.eq(lines(said("xargs: echo: Permission denied")), exec(which("echo"), "xargs"), "xargs")
  T.eq(lines(said("env: \226\128\152id\226\128\153: Permission denied")), exec(id, "env"), "env")
  T.eq(lines(said("timeout: failed to run command \226\128\152id\226\128\153: Permission denied")),
    exec(id, "timeout"), "timeout")
  T.eq(lines(said("node:child_process:1\nError: spawnSync /usr/bin/id EACCES")),
    exec("/usr/bin/id"), "spawnSync")
  T.eq(lines(said("Error: spawn /usr/bin/id EACCES")), exec("/usr/bin/id"), "spawn")
  T.eq(lines(said("Traceback (most recent call last):\n  File \"x.py\", line 2, in <module>\n"
    .. "  File \"/usr/lib/python3.11/subprocess.py\", line 1901, in _execute_child\n"
    .. "PermissionError: [Errno 13] Permission denied: '/usr/bin/id'")),
    exec("/usr/bin/id"), "python's subprocess")
  local cc1 = which("cc1")
  T.eq(lines(said("gcc: fatal error: cannot execute 'cc1': execvp: Permission denied")),
    cc1:find("/") and exec(cc1, "gcc")
      or "refused: exec of cc1 (gcc): it is not on PATH here; name it in exec = { ... } by its path",
    "gcc's own")
  local ld = which("ld")
  T.eq(lines(said("collect2: fatal error: cannot find 'ld'")),
    ld:find("/") and exec(ld, "collect2")
      or "refused: exec of ld (collect2): it is not on PATH here; name it in exec = { ... } by its path",
    "collect2")
  T.eq(lines(said("fatal: cannot exec 'git-lcsb-none': Permission denied")),
    "refused: exec of git-lcsb-none: it is not on PATH here; name it in exec = { ... } by its path",
    "git, a helper that is nowhere")
  T.eq(lines(said("error: cannot run .git/hooks/pre-commit: Permission denied")),
    exec(D .. "/proj/.git/hooks/pre-commit"), "git's hook")
  T.eq(lines(said("make: *** [Makefile:2: all] Error 127")),
    "a make recipe could not run a program (make's Error 127: not found, or refused "
    .. 'execution); if it was refused, name it in exec = { "PROGRAM" }', "make alone")
  -- Several programs: one line for all.
  T.eq(lines(said("make: id: Permission denied\nxargs: echo: Permission denied")),
    ('refused: exec of 2 programs (id, echo): add exec = { "%s", "%s" }, or exec = { '
      .. "lcsb.tools.shell } for them and the rest of that preset at once"):format(id, which("echo")),
    "grouped")
end)

T.case("npm's log in the private HOME is no grant: it went with the HOME", function()
  local text = lines(said("npm ERR! A complete log of this run can be found in: "
    .. "/tmp/lcsb-home.x/.npm/_logs/2024-01-01T00_00_00_000Z-debug-0.log"))
  T.eq(text, "~/.npm/_logs/2024-01-01T00_00_00_000Z-debug-0.log, which the command named, lies "
    .. "in the run's private HOME, a fresh directory removed after the run, not your HOME; "
    .. 'cache = { "~/.npm" } keeps ~/.npm between runs', "the log")
  local kept = evidence().policy
  kept.cache = { { name = "~/.npm", path = D .. "/cache/.npm" } }
  T.eq(lines(said("npm ERR! A complete log of this run can be found in: "
    .. "/tmp/lcsb-home.x/.npm/_logs/x-debug-0.log", { policy = kept })), "", "kept already")
end)

T.case("several refusals: each named, ten lines at most", function()
  local stderr = {}
  for i = 1, 12 do stderr[i] = ("cat: /srv/lcsb-none-%02d/f: Permission denied"):format(i) end
  local hints = said(table.concat(stderr, "\n"))
  T.eq(#hints, 10, "ten lines")
  T.eq(hints[1], 'refused: read of /srv/lcsb-none-01/f (cat): add read = { "/srv/lcsb-none-01/f" }',
    "the first")
  T.eq(hints[10], "3 more refused paths the command's stderr names", "the rest counted")
  -- The same refusal twice is one line.
  T.eq(#said("cat: /srv/x: Permission denied\ncat: /srv/x: Permission denied"), 1, "distinct")
end)

T.case("a line the command printed cannot coax a grant of a sensitive path", function()
  local only_usr = evidence().policy
  only_usr.read = { "/usr" }
  for _, c in ipairs {
    { "cat: /etc/shadow: Permission denied", "read", "/etc/shadow", "cat", "the system's own files" },
    { "cat: /home/u/.ssh/id_rsa: Permission denied", "read", "/home/u/.ssh/id_rsa", "cat",
      "a dot-file or dot-directory (where keys, credentials and start-up files live)" },
    { "cat: /home/u/\b.ssh/id_rsa: Permission denied", "read", "/home/u/\\x08.ssh/id_rsa", "cat",
      "a dot-file or dot-directory (where keys, credentials and start-up files live)" },
    { "sh: 1: cannot create /root/.bashrc: Permission denied", "write", "/root/.bashrc", "sh",
      "root's home" },
  } do
    T.eq(lines(said(c[1], { policy = only_usr })),
      ("refused: %s of %s (%s): no hint: granting %s is a decision to make yourself"):format(c[2],
        c[3], c[4], c[5]), c[1])
  end
end)

T.case("a long line the command wrote costs lcsb no more than a short one", function()
  -- What it wrote before a refusal without a newline, and lines built to
  -- make a pattern backtrack: read in linear time, the refusal still named.
  local t = os.clock()
  T.eq(lines(said(string.rep("x", 65000) .. "cat: /srv/lcsb-none/a: Permission denied")),
    'refused: read of /srv/lcsb-none/a: add read = { "/srv/lcsb-none/a" }', "the last bytes")
  for _, text in ipairs { string.rep("a:", 32000) .. " Permission denied",
    string.rep("EA: ", 16000) .. "permission denied", string.rep("/a", 32000) .. ": Permission denied",
    string.rep(string.rep("cannot move 'a' to ", 50) .. "Permission denied\n", 60) } do
    said(text)
  end
  T.ok(os.clock() - t < 2, "in well under two seconds")
end)

T.run()
