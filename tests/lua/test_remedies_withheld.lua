-- What no hint offers, however the refusal is put: the system's files,
-- another user's or root's home, dot-files, unix sockets and the
-- directories that hold one, a .env, another project's repository or agent
-- files, lcsb's own files; each withheld with why, and none by a path
-- spelled to slip past (a backspace, an ESC sequence, a "..").

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local F = loadfile(here .. "/remedies_fixtures.lua")(T)
local remedies = require "lcsb.remedies"

local D = F.D
local evidence, refusal, recorded = F.evidence, F.refusal, F.recorded
local reported, said, lines = F.reported, F.said, F.lines

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

T.case("the JVM's performance data in /tmp is never offered: the JVM runs without it", function()
  for _, r in ipairs { refusal("write", "write", "/tmp/hsperfdata_root", "java"),
    refusal("read", "read", "/tmp/hsperfdata_dev/4711", "java") } do
    local line = lines(reported { r })
    T.has(line, ": no hint: it is the JVM's performance data", r.target)
    T.hasnt(line, "add ", r.target)
  end
  -- Its twin: another file in /tmp is still offered.
  T.has(lines(reported { refusal("write", "write", "/tmp/build.log", "java") }), "add write",
    "/tmp/build.log")
end)

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
  local OWN = "it is lcsb's own (the program lcsb runs in (lcsb, or the host that embeds it), its "
    .. "shim, recorder, Lua files, caps files or trust store): no hint offers lcsb's own files to "
    .. "the command it confines"
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
      .. "the program lcsb runs in (lcsb, or the host that embeds it), its shim, recorder, Lua "
      .. "files, caps files or trust store): no hint offers lcsb's own files to the command it "
      .. "confines"):format(install, install), "beside them")
  -- Without the run's caps, the same files are no one's.
  T.eq(lines(reported { refusal("exec", "exec", install .. "/bin/lcsb-exec", "sh") }),
    ('refused: exec of %s/bin/lcsb-exec (sh): add exec = { "%s/bin/lcsb-exec" }'):format(install,
      install), "the twin")
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

T.run()
