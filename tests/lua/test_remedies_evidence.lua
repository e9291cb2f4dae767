-- The hints, word for word, from what the recorder saw (the attestation's
-- refused list): grouped and named, on any exit, counted past what a line
-- holds, escaped for a terminal, and not repeated from the stderr tail.
-- Paths the tests need to exist are made in a fresh directory; programs are
-- found along /usr/bin:/bin, as the evidence's PATH says, so the expected
-- lines are computed the same way (remedies_fixtures.lua).

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local F = loadfile(here .. "/remedies_fixtures.lua")(T)
local remedies = require "lcsb.remedies"

local D, RO, PROTECTED, LIFT, lift = F.D, F.RO, F.PROTECTED, F.LIFT, F.lift
local attestation, evidence = F.attestation, F.evidence
local refusal, recorded = F.refusal, F.recorded
local reported, said, lines = F.reported, F.said, F.lines

local BUILT = ", or exec = { built = true } for everything the project builds (anything the "
  .. "command writes there, it can run)"

-- A program the policy names by its path, refused anyway: what the file
-- at that path is now says why, and what would let it run.
T.case("exec refusals of a program the policy allows: made anew, not executable, replaced", function()
  local proj = D .. "/proj"
  T.sh("mkdir -p " .. T.q(proj .. "/bin") .. " " .. T.q(proj .. "/out2") .. " " .. T.q(D .. "/elsewhere")
    .. " && printf '#!/bin/sh\\n' > " .. T.q(proj .. "/out2/app") .. " && chmod 755 " .. T.q(proj .. "/out2/app")
    .. " && ln -sf ../out2/app " .. T.q(proj .. "/bin/app")
    .. " && printf 'x' > " .. T.q(proj .. "/plain") .. " && chmod 644 " .. T.q(proj .. "/plain")
    .. " && printf '#!/bin/sh\\n' > " .. T.q(D .. "/elsewhere/tool") .. " && chmod 755 " .. T.q(D .. "/elsewhere/tool"))
  local function policy(exec)
    local p = evidence().policy
    p.exec = exec
    return p
  end
  local NEW = "the policy allows it by its path, but the file there is a new one (a build or an "
    .. "install wrote it during the run) and the grant holds the one there when the run started, "
    .. "so naming it again changes nothing; exec = { built = true } lets what the project builds "
    .. "run (anything the command writes there, it can run)"
  -- Named through a symlink, granted as the file it leads to.
  T.eq(lines(reported({ refusal("exec", "exec", proj .. "/bin/app", "sh") },
    policy { proj .. "/out2/app" })),
    ("refused: exec of %s/bin/app (sh): %s"):format(proj, NEW), "through a symlink")
  T.eq(lines(reported({ refusal("exec", "exec", proj .. "/plain", "sh") }, policy { proj .. "/plain" })),
    ("refused: exec of %s/plain (sh): the policy allows it, but the file is not executable (its "
      .. "mode: chmod +x it, or have what makes it do so)"):format(proj), "not executable")
  T.eq(lines(reported({ refusal("exec", "exec", D .. "/elsewhere/tool", "sh") },
    policy { D .. "/elsewhere/tool" })),
    ("refused: exec of %s/elsewhere/tool (sh): the policy allows it by its path, but the file "
      .. "there is a new one, put there during the run by something outside the sandbox (the "
      .. "command cannot write there), and the grant holds the one there when the run started; "
      .. "the next run allows the new file"):format(D), "where the command does not write")
  -- With built = true the project's files may run, rebuilt or not: no such hint.
  local with_built = lines(reported({ refusal("exec", "exec", proj .. "/out2/app", "sh") },
    policy { proj, proj .. "/out2/app" }))
  T.hasnt(with_built, "a new one", "built = true: not said to be made anew")
end)

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
  -- A program the project built may be named (by its path from the
  -- project, as exec takes it: the line holds in any checkout), or built =
  -- true let every one of them run; one in a dot-directory of yours is not
  -- suggested.
  T.eq(lines(reported { refusal("exec", "exec", D .. "/proj/.venv/bin/pytest", "python3") }),
    ('refused: exec of %s/proj/.venv/bin/pytest (python3): add exec = { "./.venv/bin/pytest" }')
      :format(D) .. BUILT, "the project's own")
  -- What a toolchain builds in the run's TMPDIR (go test's binary) lies at
  -- a new path each run: built = true, never its path; not where built =
  -- true is there already, nor for a hook git runs.
  local policy = evidence().policy
  policy.env.set.TMPDIR = "/tmp/lcsb-tmp.x"
  local TMP = ": the run's private TMPDIR, where %s, is a directory made anew for each run, so no "
    .. "path in it holds for the next; exec = { built = true } lets what the command builds "
    .. "there, and in the project, run (anything the command writes there, it can run)"
  T.eq(lines(reported({ refusal("exec", "exec", "/tmp/lcsb-tmp.x/go-build1/b001/p.test", "go") },
    policy)), "refused: exec of /tmp/lcsb-tmp.x/go-build1/b001/p.test (go)" .. TMP:format("it lies"),
    "the TMPDIR's")
  local tests, mixed = {}, nil
  for i = 1, 10 do
    tests[i] = refusal("exec", "exec", ("/tmp/lcsb-tmp.x/go-build1/b%03d/p%d.test"):format(i, i), "go")
  end
  T.eq(lines(reported(tests, policy)), "refused: exec of 10 programs (p1.test, p2.test, p3.test, "
    .. "p4.test, p5.test, p6.test, p7.test, p8.test, and 2 more)" .. TMP:format("they lie"),
    "ten of them, the first eight named")
  mixed = lines(reported({ tests[1], refusal("exec", "exec", D .. "/proj/bin/app", "make") }, policy))
  T.has(mixed, "refused: exec of /tmp/lcsb-tmp.x/go-build1/b001/p1.test (go)" .. TMP:format("it lies"),
    "mixed: the TMPDIR's line")
  T.has(mixed, ('add exec = { "./bin/app" }'):format(D), "mixed: the project's by its path")
  T.hasnt(mixed, "lcsb-tmp.x/go-build1/b001/p1.test\" }", "mixed: no TMPDIR path to add")
  -- A saved attestation, without the policy's env: known by its name.
  T.has(lines(reported({ refusal("exec", "exec", "/tmp/lcsb-tmp.AbC123/go-build9/b001/q.test", "go") })),
    "the run's private TMPDIR, where it lies", "by the name lcsb gives it")
  policy.exec = { D .. "/proj", "/tmp/lcsb-tmp.x" }
  local already = lines(reported({ refusal("exec", "exec", D .. "/proj/app", "sh") }, policy))
  T.has(already, "add exec = ", "built already: the program")
  T.hasnt(already, "built = true", "built already: no built")
  local hook = lines(reported { refusal("exec", "exec", D .. "/proj/.git/hooks/pre-push", "git") })
  T.has(hook, "add exec = ", "a hook: the program")
  T.hasnt(hook, "built = true", "a hook: no built")
  -- A preset the policy has already is no remedy: what was refused is not
  -- what it found here (a venv's python, made from another python).
  local with_python = evidence().policy
  with_python.tools = { "preset python: 57 files" }
  local venv = lines(reported({ refusal("exec", "exec", D .. "/proj/.venv/bin/python", "sh") },
    with_python))
  T.has(venv, 'add exec = { "./.venv/bin/python" }', "the link, by its path")
  T.hasnt(venv, "lcsb.tools.python", "not the preset it has")
  T.has(lines(reported { refusal("exec", "exec", D .. "/proj/.venv/bin/python", "sh") }),
    "lcsb.tools.python", "its twin: a policy without it is offered it")
  -- One program of a family is enough to name the family (autoreconf's
  -- aclocal: the autotools, not eight runs), but not the shell's.
  T.has(lines(reported { refusal("exec", "exec", "/usr/bin/aclocal", "autoreconf") }),
    "or exec = { lcsb.tools.autotools } for it and the rest of that preset at once", "one")
  T.hasnt(lines(reported { refusal("exec", "exec", "/usr/bin/id", "make") }), "lcsb.tools",
    "a shell tool alone")
  -- A family of a new preset is named by it.
  T.has(lines(reported { refusal("exec", "exec", "/usr/bin/autoconf", "autoreconf"),
    refusal("exec", "exec", "/usr/bin/aclocal", "autoreconf") }),
    "exec = { lcsb.tools.autotools }", "autotools")
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
  -- A fixed name in the shared /tmp, where the run gives the command a
  -- TMPDIR of its own: that is said too. The twin: a write in the project.
  local ev = evidence { attestation = recorded { refusal("write", "write", "/tmp/body", "curl") } }
  ev.policy.env = { set = { TMPDIR = "/tmp/lcsb-tmp.AbCdEf" } }
  local own = "the command has a temporary directory of its own, $TMPDIR, which it may write"
  T.has(lines(remedies.explain(ev)), own, "a write in the shared /tmp")
  ev = evidence { attestation = recorded { refusal("write", "write", D .. "/out/new", "touch") } }
  ev.policy.env = { set = { TMPDIR = "/tmp/lcsb-tmp.AbCdEf" } }
  T.hasnt(lines(remedies.explain(ev)), own, "a write elsewhere")
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
  -- An agent's configuration: the default named, its directory's, where
  -- the run held it.
  local held = F.evidence().policy
  held.protect[#held.protect + 1] = D .. "/proj/.claude"
  local settings = refusal("write", "protect", D .. "/proj/.claude/settings.json", "sh",
    { errno = 30, error = "EROFS" })
  T.eq(lines(reported({ settings }, held)),
    ("refused: write of %s/proj/.claude/settings.json (sh): %s%s"):format(D, PROTECTED,
      lift(".claude")), "an agent's configuration")
  -- Let go ("!.claude"), with an entry of the policy's own inside it: the
  -- hint offers no "!.claude", which would change nothing.
  local own = F.evidence().policy
  own.protect = { D .. "/proj/.claude/settings.json" }
  local said_own = lines(reported({ settings }, own))
  T.has(said_own, "it is protected (protect)", "still named as protected")
  T.hasnt(said_own, '"!.claude"', "no default to let go")
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
    .. "refused: a socket of kind inet/dgram (dig): the policy allows no network (a command "
    .. "that needs none may make a socket anyway, as a JVM does as it starts, and go on without "
    .. 'it); net = true allows all of it, net = { domains = { "HOST" } } names hosts to reach '
    .. "through lcsb's proxy",
    "denied")
  local ev = evidence { status = 7, attestation = recorded {
    refusal("connect", "net", "93.184.216.34:443", "curl"),
    refusal("socket", "net", "inet/dgram", "dig") } }
  ev.attestation.net = "domains"
  T.eq(lines(remedies.explain(ev)), "refused: connect to 93.184.216.34:443 (curl): under "
    .. "net.domains the command reaches hosts by name, through lcsb's proxy: add the host's "
    .. "name to net = { domains = { ... } }; if it is there already, the program went around "
    .. "the proxy, which HTTPS_PROXY and its kin name, and for Java JAVA_TOOL_OPTIONS (which "
    .. "_JAVA_OPTIONS, JDK_JAVA_OPTIONS and java's own -D options override)\n"
    .. "refused: a socket of kind inet/dgram (dig): the policy allows no network (a command "
    .. "that needs none may make a socket anyway, as a JVM does as it starts, and go on without "
    .. 'it); net = true allows all of it, net = { domains = { "HOST" } } names hosts to reach '
    .. "through lcsb's proxy",
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
  local use_proxy = "HTTPS_PROXY, HTTP_PROXY and ALL_PROXY name it: tell the tool to use them "
    .. "(Node's built-in fetch reads them only where Node knows NODE_USE_ENV_PROXY=1, which lcsb "
    .. "sets, in its newer releases; otherwise undici's EnvHttpProxyAgent)"
  T.eq(lines(remedies.explain(ev)), "not through the proxy: connect to registry.npmjs.org:443 "
    .. "(node): registry.npmjs.org is in net.domains, but the program looked it up itself "
    .. "instead of going through lcsb's proxy; " .. use_proxy, "listed already")
  -- Not listed, under net.domains: the program was told of the proxy and
  -- looked the name up itself, so both are said at once.
  ev = evidence { status = 1, attestation = recorded {
    refusal("connect", "net", "example.com:443", "node", { errno = 11, error = "EAGAIN" }) } }
  ev.attestation.net = "domains"
  ev.policy.net = { domains = { "registry.npmjs.org" } }
  T.eq(lines(remedies.explain(ev)), "refused: connect to example.com:443 (node): to reach a host "
    .. 'by name, add net = { domains = { "example.com" } }, and have the program go through '
    .. "lcsb's proxy, as it looked the name up itself; " .. use_proxy, "not listed")
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
  -- Not there (ENOENT), and not in your real HOME either: a program looked
  -- for along a PATH through the private HOME (cargo's rustc asks
  -- $CARGO_HOME/bin for cc), said nowhere; one your HOME has is named by
  -- its real path.
  local absent = { op = "exec", key = "exec", errno = 2, error = "ENOENT" }
  T.eq(lines(reported { at("/tmp/lcsb-home.x/.cargo/bin/lcsb-test-nothing-here", "rustc", absent) }),
    "", "a probe: nothing")
  local real_home = os.getenv("HOME")
  local name = ("lcsb-test-tool-%d"):format(math.random(1e9))
  local f = real_home and io.open(real_home .. "/" .. name, "w")
  if f then
    f:close()
    T.eq(lines(reported { at("/tmp/lcsb-home.x/" .. name, "sh", absent) }),
      ("refused: exec of ~/%s (sh): the command's HOME is a fresh private directory, so your "
        .. '~/%s is not there; to let it run, name it in exec = { "~/%s" }, and have the command '
        .. "run it by that path (%s/%s), not through its HOME"):format(name, name, name, real_home, name),
      "yours: by its real path")
    os.remove(real_home .. "/" .. name)
  end
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

T.run()
