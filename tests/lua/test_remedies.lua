-- The explain heuristics: the exec hint for a refused execution, nothing for
-- success, and, over a walk of synthetic evidence, every hint names only
-- exec_policy keys and lcsb flags that exist (docs/architecture.md, rule 7).

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local remedies = require "lcsb.remedies"
local core = require "lcsb.core"

-- NAME as the hints resolve it along PATH (the one the evidence below sets).
local function on_path(name)
  for dir in ("/usr/bin:/bin"):gmatch("[^:]+") do
    if core.kind(dir .. "/" .. name) == "file" then return dir .. "/" .. name end
  end
  return name
end

-- The keys exec_policy takes (docs/policy.md) that a user would write.
local POLICY_KEYS = { project = true, read = true, write = true, exec = true, env = true, net = true,
  degrade = true, protect = true, oci = true, sockets = true, limits = true, home = true,
  cache = true }
-- Keys that exist only inside another: net = { connect = {...}, bind = {...} }.
local NESTED = { connect = "net", bind = "net", domains = "net", lan = "net" }

local function evidence(over)
  local ev = {
    argv = { "/usr/bin/make", "-j8" },
    status = 1,
    note = "",
    attestation = { backend = "landlock", fs = "enforced", exec = "allowlist", net = "denied",
      net_covers = "all", net_by = "landlock+seccomp", abi = 7, scoped = true, dropped = {} },
    policy = { read = { "/usr", "/etc" }, write = { "/home/u/proj" }, exec = { "/usr/bin/make" },
      env = { pass = {}, set = { HOME = "/tmp/lcsb-home.x", PATH = "/usr/bin:/bin" }, unset = {} }, net = false,
      cwd = "/home/u/proj" },
  }
  for k, v in pairs(over or {}) do ev[k] = v end
  return ev
end

T.case("status 126 under an exec allowlist: the exec hint", function()
  local hints = remedies.explain(evidence { status = 126 })
  T.ok(#hints >= 1, "a hint")
  local text = table.concat(hints, "\n")
  T.has(text, "exec = {", "names the exec key")
  T.has(text, "allowed already", "says the command itself is not the one refused")
  -- A status is the command's to choose: it never earns the allowlist off.
  T.hasnt(text, 'exec = "any"', "no allowlist off")
  T.hasnt(text, "allowlist off", "no allowlist off")
  T.has(text, "neither the recorder nor the command's stderr says which", "says it cannot tell")
  local open = evidence { status = 126 }
  open.attestation = { backend = "none", fs = "open", exec = "open", net = "open" }
  T.eq(#remedies.explain(open), 0, "no exec hint without an allowlist")
end)

local function hints_for(over)
  return table.concat(remedies.explain(evidence(over)), "\n")
end

T.case("under oci, an engine's own failure is named as the engine's", function()
  local oci = { backend = "oci", fs = "enforced", exec = "open", net = "denied" }
  local text = hints_for { status = 125, attestation = oci,
    stderr = "Error: invalid memory value \"bogus\"\n" }
  T.has(text, "the container engine failed", "whose status")
  T.has(text, "invalid memory value", "the engine's words")
  T.eq(hints_for { status = 125, attestation = oci, stderr = "make: *** Error 1\n" }, "",
    "a command's own 125 without the engine's Error: line")
  T.eq(hints_for { status = 125, stderr = "Error: x\n" }, "", "not under landlock")
end)

T.case("a refused read names the path and the read key", function()
  local text = hints_for { stderr = "cat: /srv/data/a.csv: Permission denied\n" }
  T.has(text, 'read = { "/srv/data/a.csv" }', "read hint")
  -- Python says the same of a read and a write: a file that is there was read.
  local dir = T.tmpdir()
  T.write(dir .. "/x y", "")
  text = hints_for { stderr = "PermissionError: [Errno 13] Permission denied: '" .. dir .. "/x y'\n" }
  T.has(text, 'read = { "' .. dir .. '/x y" }', "a quoted path, blanks and all")
end)

T.case("a hint quoting the stderr tail escapes its control bytes", function()
  -- ESC [2J clears the screen, CR rewinds the line, DEL, a C1 CSI (U+009B).
  local evil = "/srv/\27[2J\rx\127\194\155y"
  local text = hints_for { stderr = "cat: '" .. evil .. "': Permission denied\n" }
  T.has(text, [[read = { "/srv/\x1b[2J\rx\x7f\xc2\x9by" }]], "the path, escaped")
  T.ok(not (text:gsub("\n", "")):find("[%c\127]"), "no control byte left")
  T.hasnt(text, "\194\155", "no C1 control left")
  T.eq(remedies.explain(evidence { stderr = "cat: /srv/caf\195\169: Permission denied\n" })[1]
    :find("caf\195\169", 1, true) ~= nil, true, "printable UTF-8 stays as it is")
  -- What a terminal shows as nothing: two paths that differ by a soft
  -- hyphen or a tag character would show as one.
  T.has(hints_for { stderr = "cat: /srv/z\194\173q: Permission denied\n" },
    [[read = { "/srv/z\u{00ad}q" }]], "a soft hyphen, spelled out")
  T.has(hints_for { stderr = "cat: /srv/y\243\160\128\129q: Permission denied\n" },
    [[read = { "/srv/y\u{e0001}q" }]], "a tag character, spelled out")
end)

T.case("a refused write names the directory and the write key", function()
  local text = hints_for { stderr = "touch: cannot touch '/srv/out/f': Permission denied\n" }
  T.has(text, 'write = { "/srv/out" }', "the directory to create in")
  text = hints_for { stderr = "sh: 1: cannot create /srv/ro/x: Permission denied\n",
    policy = { read = { "/srv/ro" }, write = {}, exec = {}, env = {}, net = false } }
  T.has(text, 'write = { "/srv/ro" }', "readable but not writable: its directory")
  -- The tail is the command's to write: it cannot coax a grant of these.
  for _, line in ipairs { "touch: cannot touch '/etc/cron.d/job': Permission denied",
    "cat: /home/u/.ssh/id_ed25519: Permission denied", "sh: 1: cannot create /root/.bashrc: "
    .. "Permission denied", "cp: cannot create regular file '/usr/lib/python3/x.py': "
    .. "Permission denied", "chmod: changing permissions of '/usr/bin/python3': Operation not "
    .. "permitted" } do
    local hint = hints_for { stderr = line .. "\n" }
    T.hasnt(hint, "read = {", line)
    T.hasnt(hint, "write = {", line)
  end
  -- A path the policy already lets it write is not the problem.
  T.hasnt(hints_for { stderr = "touch: cannot touch '/home/u/proj/f': Permission denied\n" },
    "write = {", "no hint for a writable path")
end)

T.case("a program the shell could not start names the exec key", function()
  -- By its path, as the command's PATH finds it.
  T.has(hints_for { status = 126, stderr = "sh: 1: ls: Permission denied\n" },
    'exec = { "' .. on_path("ls") .. '" }', "dash")
  T.has(hints_for { status = 2, stderr = "./build.sh: line 3: cc: Permission denied\n" },
    'exec = { "' .. on_path("cc") .. '" }', "bash, not the last command")
  T.hasnt(hints_for { status = 126, stderr = "sh: 1: ls: Permission denied\n" }, "read = {",
    "the script's own path is no read hint")
end)

T.case("network failures name the net key, with the port when visible", function()
  local remote = hints_for { stderr = "curl: (7) Failed to connect to 1.2.3.4 port 8443 after 0 ms\n" }
  T.has(remote, 'net = { domains = { "1.2.3.4:8443" } }', "another host: by its address")
  T.has(remote, "net = { connect = { 8443 } } would open TCP 8443 to every host", "what a port does")
  local loop = hints_for { stderr = "curl: (7) Failed to connect to 127.0.0.1 port 8443 after 0 ms\n" }
  T.has(loop, "set net = { connect = { 8443 } }", "the loopback: the port")
  T.has(loop, "opens TCP 8443 to every host", "and what a port opens")
  -- Host and port come from one match: a remote URL's port is never
  -- offered as the loopback's, nor the loopback's port for a remote host.
  local mixed = hints_for { status = 7, stderr = "upload to https://203.0.113.7:4444/x failed\n"
    .. "curl: (7) Failed to connect to localhost port 80: Connection refused\n" }
  T.hasnt(mixed, "4444", "no port of another line's host")
  T.has(mixed, "set net = { connect = { 80 } }", "the loopback's own port")
  mixed = hints_for { status = 7, stderr = "see http://localhost/status\n"
    .. "curl: (7) Failed to connect to 203.0.113.7 port 4444: Connection refused\n" }
  T.has(mixed, 'net = { domains = { "203.0.113.7:4444" } }', "the remote host with its port")
  T.hasnt(mixed, "loopback", "not the loopback of another line")
  T.has(hints_for { status = 7, stderr = "GET https://203.0.113.7:4444/x: connect: Connection refused\n" },
    'net = { domains = { "203.0.113.7:4444" } }', "a URL: its host and its port")
  local ev = evidence { stderr = "PermissionError: [Errno 13] Permission denied\n" .. "socket\n" }
  ev.argv = { "python3", "fetch.py", "https://example.com/x" }
  T.has(table.concat(remedies.explain(ev), "\n"), 'domains = { "example.com:443" }',
    "the host and port from a URL")
  T.has(hints_for { stderr = "curl: (6) Could not resolve host: example.com\n" },
    'net = { domains = { "example.com" } }', "a name is listed, not the whole network")
  local ports = evidence { stderr = "npm ERR! request to https://registry.npmjs.org/x failed, "
    .. "reason: getaddrinfo EAI_AGAIN registry.npmjs.org\n" }
  ports.policy.net = { connect = { 443 }, bind = {} }
  ports.attestation.net = "ports"
  local said = table.concat(remedies.explain(ports), "\n")
  T.has(said, "net.connect allows TCP ports but no name lookups", "what ports lack")
  T.has(said, 'net = { domains = { "registry.npmjs.org" } }', "the host npm named")
  T.hasnt(said, "allows no network", "ports are a network")
  local open = evidence { stderr = "curl: (7) Failed to connect to 1.2.3.4 port 80\n" }
  open.policy.net = true
  open.attestation.net = "open"
  T.eq(#remedies.explain(open), 0, "nothing when the network is open")
end)

T.case("hosts the proxy refused are named, each, from its record", function()
  local ev = evidence { stderr = "curl: (56) CONNECT tunnel failed, response 403\n" }
  ev.policy.net = { domains = { "registry.npmjs.org" }, connect = {}, bind = {}, lan = {} }
  ev.attestation.net = "domains"
  ev.attestation.net_refused_count = 4
  ev.attestation.net_refused = {
    { host = "evil.example.net", port = 443, attempts = 2, why = "not in net.domains" },
    { host = "git.example.com", port = 8443, attempts = 1, why = "not in net.domains" },
    { host = "internal.example.com", port = 443, attempts = 1,
      why = "resolves to 10.0.0.5, a loopback, private or link-local address that net.lan does not name" },
    { host = "x.example.org", port = 80, attempts = 1, why = "denied by !x.example.org" },
  }
  local hints = remedies.explain(ev)
  local said = table.concat(hints, "\n")
  T.has(said, 'the command tried to reach evil.example.net:443; to allow it, add '
    .. 'net = { domains = { "evil.example.net" } }', "the default port goes unsaid")
  T.has(said, 'net = { domains = { "git.example.com:8443" } }', "another port is named")
  T.has(said, 'net = { lan = { "10.0.0.5" } }', "a private address is lan's")
  T.has(said, "which the policy denies (!x.example.org in net.domains)", "a deny entry")
  T.hasnt(said, "net = { connect", "no port guess beside the record")
  T.eq(#hints, 4, "one hint a host")
  -- Evidence, whatever the status: the CLI asks on a run that exited 0
  -- only under --report.
  ev.status = 0
  T.eq(#remedies.explain(ev), 4, "asked on a run that exited 0")

  ev.status = 6
  ev.attestation.net_refused_count = 1
  ev.attestation.net_refused = { { host = "www.debian.org", port = 443, attempts = 1,
    why = "cannot resolve it: Name or service not known" } }
  said = table.concat(remedies.explain(ev), "\n")
  T.has(said, "net.domains allows www.debian.org:443, but lcsb's proxy could not resolve it: "
    .. "Name or service not known", "an allowed host that does not resolve")
  T.hasnt(said, "add net", "no grant for what is granted")
end)

T.case("what the proxy read and refused: rules, secrets, withheld values", function()
  local ev = evidence { stderr = "curl: (22) The requested URL returned error: 403\n" }
  ev.policy.net = { domains = { "reg.example.org methods=GET" }, connect = {}, bind = {}, lan = {} }
  ev.attestation.net = "domains"
  local function said(why)
    ev.attestation.net_refused_count = 1
    ev.attestation.net_refused = { { host = "reg.example.org", port = 443, attempts = 1, why = why } }
    return table.concat(remedies.explain(ev), "\n")
  end
  T.has(said("rule: POST /v2/x: its method is not among the rule's"),
    'refused POST /v2/x to reg.example.org:443: its method is not among the rule\'s; to allow it, '
    .. 'add "POST" to the entry\'s methods (net = { domains = { ["reg.example.org"] = { ... } } })',
    "a method")
  T.has(said("rule: GET /v3/lib/x?y: its path starts with none of the rule's"),
    'add "/v3/lib/" (or a shorter prefix) to the entry\'s paths', "a path")
  T.has(said("rule: GET /v2/..;/a: its path has a \".\" or \"..\" segment, a backslash or an "
    .. "escape a server could read as another path"), "without \".\" or \"..\" segments",
    "a path no rule judges")
  T.has(said("rule: DELETE /v2/x: the method its override header asks for is not among the rule's"),
    "X-HTTP-Method-Override", "an override")
  T.has(said("withheld: the value of GITHUB_TOKEN"),
    "held the value of GITHUB_TOKEN, which lcsb keeps from the command", "a withheld value")
  T.has(said("withheld: the value of GITHUB_TOKEN"), 'env = { pass = { "GITHUB_TOKEN" } } gives it',
    "a variable the command was not given")
  -- A secret of the policy's: env.pass would not give it (the secret wins),
  -- so the hint says the command had it some other way.
  ev.attestation.secrets = { "GITHUB_TOKEN reg.example.org:443" }
  T.has(said("withheld: the value of GITHUB_TOKEN"),
    "a secret of the policy's: the command never gets it from lcsb", "a secret's value")
  T.hasnt(said("withheld: the value of GITHUB_TOKEN"), "env = { pass", "no env.pass for a secret")
  ev.attestation.secrets = nil
  T.has(said("withheld: the value of DB_PASSWORD, in an answer"),
    "an answer from reg.example.org:443 held the value of DB_PASSWORD", "a value echoed")
  T.has(said("withheld: after an earlier request or answer carried a withheld value"),
    "after an earlier one carried a value lcsb withholds", "the lockdown")
  T.has(said("no TLS: a secret's placeholder in a plain HTTP request"),
    "only into requests over TLS", "plain HTTP")
  T.has(said("upstream its certificate is not trusted: self-signed certificate"),
    "could not verify the host: its certificate is not trusted", "upstream")
  T.has(said("upstream its answer is encoded (a Content-Encoding, or a transfer coding besides "
    .. "chunked), from a host a secret goes to"), "encoded its answer", "an encoded answer")
  T.has(said("upstream its answer is a part (206), from a host a secret goes to"),
    "or sent a part of it", "a part")
  T.has(said("the command's TLS handshake failed: tlsv1 alert unknown ca"),
    "must trust the run's certificates", "the command's client")
  for _, hint in ipairs(remedies.explain(ev)) do
    T.hasnt(hint, "to allow it, add net = { domains", "no domain to add for a host allowed")
  end
end)

T.case("under net.domains the loopback is the command's own", function()
  local ev = evidence { stderr = "curl: (7) Failed to connect to localhost port 8765 after 0 ms: "
    .. "Couldn't connect to server\n" }
  ev.policy.net = { domains = { "vm" }, connect = {}, bind = {}, lan = {} }
  ev.attestation.net = "domains"
  local said = table.concat(remedies.explain(ev), "\n")
  T.has(said, "the command's loopback (localhost, 127.0.0.1) is its own", "what localhost is")
  T.hasnt(said, "connect = { 8765 }", "no port that would reach nothing")
  ev.stderr = "WARNING: Retrying after connection broken by 'SSLError(...)': /simple/x/\n"
  T.eq(#remedies.explain(ev), 0, "a TLS error is no network refusal")
end)

T.case("the private HOME: the real file is one home entry away", function()
  local ev = evidence { stderr = "fatal: unable to access '/tmp/lcsb-home.x/.gitconfig': "
    .. "No such file or directory\n" }
  -- Offered only where you have one: this test's HOME (ctest gives it one of
  -- its own) first without, then with.
  local gitconfig = assert(os.getenv("HOME")) .. "/.gitconfig"
  os.remove(gitconfig)
  T.hasnt(table.concat(remedies.explain(ev), "\n"), "home = {", "no hint for a file you lack")
  local f = assert(io.open(gitconfig, "w"))
  f:write("[user]\n\tname = Ada\n")
  f:close()
  local said = table.concat(remedies.explain(ev), "\n")
  -- The caps the run was held to, merged: a user's cap refuses it, so no
  -- hint offers it, though lcsb's own caps would let it.
  ev.caps = { deny = { "~/.gitconfig" }, deny_write = {} }
  local capped = table.concat(remedies.explain(ev), "\n")
  ev.caps = nil
  os.remove(gitconfig)
  T.has(said, 'home = { "~/.gitconfig" }', "hint")
  T.hasnt(capped, "home = {", "no hint toward what a cap refuses")
  T.has(capped, "the caps keep ~/.gitconfig from every policy", "says why")
  -- Shown already, read-only: written to, it says so; nothing to add.
  ev.policy.home = { { name = "~/.gitconfig", path = "/home/u/.gitconfig" } }
  ev.stderr = "sh: 1: cannot create /tmp/lcsb-home.x/.gitconfig: Read-only file system\n"
  local said = table.concat(remedies.explain(ev), "\n")
  T.eq(said, "refused: write of ~/.gitconfig (sh): it is your real ~/.gitconfig, which "
    .. "home = { ... } shows read-only: the command cannot change it", "hint")
  T.hasnt(said, "add home", "no entry to add")
  ev.policy.home = { { name = "~/.config/git", path = "/home/u/.config/git" } }
  ev.stderr = "error: could not lock config file /tmp/lcsb-home.x/.config/git/config: Permission denied\n"
  T.has(table.concat(remedies.explain(ev), "\n"), "your real ~/.config/git", "inside an entry")
  -- A cache is the project's own and writable: no hint about it.
  ev.policy.home = nil
  ev.policy.cache = { { name = "~/.npm", path = "/home/u/.cache/lcsb/projects/p-0/.npm" } }
  ev.stderr = "npm ERR! enoent /tmp/lcsb-home.x/.npm/_cacache/x\n"
  T.hasnt(table.concat(remedies.explain(ev), "\n"), "home = {", "no hint for a cache")
end)

T.case("a settings file of your HOME that looks like it holds a credential is not offered", function()
  local home = assert(os.getenv("HOME"))
  local function offered(rel, content)
    local path = home .. "/" .. rel:sub(3)
    T.sh("mkdir -p " .. T.q(path:match("^(.*)/")))
    local f = assert(io.open(path, "w"))
    f:write(content)
    f:close()
    local ev = evidence { stderr = ("cat: /tmp/lcsb-home.x/%s: No such file or directory\n")
      :format(rel:sub(3)) }
    ev.attestation.world = "own"
    local said = table.concat(remedies.explain(ev), "\n")
    os.remove(path)
    return said
  end
  -- What the red team found in the list of settings files, and the rest of
  -- the ways these files carry a secret.
  for _, c in ipairs {
    { "~/.config/pip/pip.conf", "[global]\nindex-url = https://deploy:s3cr3t@pypi.corp.example/simple\n",
      "a URL with a password or a token before its host" },
    { "~/.cargo/config.toml", '[registry]\ntoken = "cio-SECRET"\n',
      "a setting whose name says it holds a token, a password or a secret" },
    { "~/.gitconfig", '[url "https://x-access-token:ghp_SECRET@github.com/"]\n\tinsteadOf = https://github.com/\n',
      "a URL with a password or a token before its host" },
    { "~/.gitconfig", "[remote]\n\turl = https://ghp_0123456789abcdef@github.com/x/y\n",
      "a URL with a password or a token before its host" },
    { "~/.gitconfig", "[credential]\n\thelper = store\n",
      "a credential helper that stores or prints passwords" },
    { "~/.gitconfig", "[credential]\n\thelper = \"!f() { echo password=hunter2; }; f\"\n",
      "a credential helper that stores or prints passwords" },
    { "~/.gitconfig", "[http]\n\textraHeader = AUTHORIZATION: basic eDp5\n", "an authorization header" },
    { "~/.gitconfig", "[sendemail]\n\tsmtpPass = hunter2\n",
      "a setting whose name says it holds a token, a password or a secret" },
    { "~/.config/git/config", "[x]\n\ty = glpat-0123456789\n", "what looks like an access token" },
  } do
    local said = offered(c[1], c[2])
    T.hasnt(said, "add home", c[1] .. ": " .. c[3])
    T.has(said, ("no hint: your real one holds %s, and showing it (home) shows all of it: a "
      .. "decision to make yourself"):format(c[3]), c[1] .. ": " .. c[3])
    T.hasnt(said, "s3cr3t", "the secret is not quoted")
    T.hasnt(said, "SECRET", "the secret is not quoted")
  end
  -- Plain settings are offered, saying the whole file becomes readable.
  for _, c in ipairs {
    { "~/.gitconfig", "[user]\n\tname = Ada\n\temail = ada@example.com\n[url \"git@github.com:\"]\n"
      .. "\tinsteadOf = https://github.com/\n[core]\n\tsshCommand = ssh -i ~/.ssh/k\n" },
    { "~/.config/pip/pip.conf", "[global]\nindex-url = https://pypi.corp.example/simple\n" },
    { "~/.cargo/config.toml", "[net]\ngit-fetch-with-cli = true\n" },
  } do
    local said = offered(c[1], c[2])
    T.has(said, ('add home = { "%s" } (the whole file becomes readable to the command: lcsb saw '
      .. "no credential in it, but read it before you add it)"):format(c[1]), c[1])
  end
  -- One too large to look through is not offered either.
  T.has(offered("~/.gitconfig", ("# x\n"):rep(70000)),
    "no hint: lcsb cannot read your real one (", "too large")
end)

T.case("97 repeats what the shim could not do", function()
  T.has(hints_for { status = 97, setup_failed = true, stderr = "lcsb-exec: cannot set no_new_privs: EPERM\n" },
    "the shim could not set no_new_privs", "reason")
end)

T.case("hosts and policy scripts add their own heuristics, and replace or remove lcsb's", function()
  local n = #remedies.heuristics
  remedies.add("three", function(ev) if ev.status == 3 then return "three is special" end end)
  T.eq(#remedies.heuristics, n + 1, "added at the end")
  T.has(hints_for { status = 3 }, "three is special", "added heuristic")
  remedies.add("three", function(ev) if ev.status == 3 then return "three, again" end end)
  T.eq(#remedies.heuristics, n + 1, "the same name replaces")
  T.has(hints_for { status = 3 }, "three, again", "replaced heuristic")
  T.ok(remedies.remove("three"), "removed")
  T.eq(hints_for { status = 3 }, "", "gone")
  -- lcsb's own, by name: the exec hint goes away with its heuristic.
  local before = hints_for { status = 126 }
  T.has(before, "exec = {", "the exec hint, before")
  local exec_hint
  for _, h in ipairs(remedies.heuristics) do
    if h.name == "refused_program" then exec_hint = h.explain end
  end
  T.ok(remedies.remove("refused_program"), "lcsb's heuristic removed")
  T.hasnt(hints_for { status = 126 }, "exec = {", "no exec hint without it")
  T.ok(not remedies.remove("refused_program"), "removing twice says so")
  remedies.add("refused_program", exec_hint)
  T.eq(hints_for { status = 126 }, before, "put back")
end)

T.case("nothing to say about success", function()
  T.eq(#remedies.explain(evidence { status = 0 }), 0, "hints for status 0")
  local open = evidence { status = 0 }
  open.attestation = { backend = "none", fs = "open", exec = "open", net = "open" }
  T.eq(#remedies.explain(open), 0, "hints for status 0 unsandboxed")
end)

T.case("no exec hint when nothing restricted execution", function()
  local ev = evidence { status = 126 }
  ev.attestation.exec = "open"
  ev.policy.exec = "any"
  for _, hint in ipairs(remedies.explain(ev)) do T.hasnt(hint, "exec = {", "hint") end
end)

T.case("status 97: the setup hint", function()
  local hints = remedies.explain(evidence { status = 97, setup_failed = true })
  T.ok(#hints >= 1, "a hint")
  T.has(table.concat(hints, "\n"), "lcsb detect")
end)

T.case("a heuristic that raises does not take explain down", function()
  local saved = remedies.heuristics
  remedies.heuristics = {
    { name = "boom", explain = function() error("boom") end },
    { name = "fine", explain = function() return "still here" end },
  }
  local ok, hints = pcall(remedies.explain, evidence())
  remedies.heuristics = saved
  T.ok(ok, "explain survived")
  T.eq(#hints, 1, "hints")
  T.eq(hints[1], "still here", "hint")
end)

-- Every combination of evidence the runner can hand over, and a few stderr
-- tails a future heuristic may read.
local function walk()
  local out = {}
  local statuses = { 0, 1, 2, 97, 124, 125, 126, 127, 128 + 2, 128 + 9, 128 + 15, 255 }
  local attestations = {
    { backend = "landlock", fs = "enforced", exec = "allowlist", net = "denied", net_covers = "all", net_by = "landlock+seccomp", abi = 7, scoped = true, dropped = {} },
    { backend = "landlock", fs = "enforced", exec = "allowlist", net = "open", net_covers = "tcp", net_by = "landlock", abi = 4, scoped = false, dropped = { "net", "scope", "ioctl", "terminal" } },
    { backend = "landlock", fs = "enforced", exec = "open", net = "open", abi = 3, scoped = false },
    { backend = "none", fs = "open", exec = "open", net = "open" },
    { backend = "oci", fs = "enforced", exec = "open", net = "denied", net_covers = "all", net_by = "namespace", scoped = true, dropped = {} },
    { backend = "landlock", fs = "enforced", exec = "allowlist", net = "domains", net_covers = "all", net_by = "namespace", abi = 7, scoped = true, dropped = {},
      domains = { "registry.npmjs.org" }, net_refused_count = 3,
      net_refused = { { host = "evil.example.net", port = 443, attempts = 1, why = "not in net.domains" },
        { host = "db.internal", port = 5432, attempts = 2, why = "resolves to 10.0.0.5, a loopback, private or link-local address that net.lan does not name" },
        { host = "x.example.org", port = 80, attempts = 1, why = "denied by !x.example.org" } } },
    { backend = "landlock", fs = "enforced", exec = "allowlist", net = "ports", net_covers = "all", net_by = "landlock+seccomp", abi = 7, scoped = true, dropped = {},
      world = "own", recorded = true, refused_count = 40, refused = {
        { op = "exec", key = "exec", target = "/usr/bin/as", program = "gcc", errno = 13, error = "EACCES", count = 1 },
        { op = "exec", key = "exec", target = "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", program = "gcc", errno = 13, error = "EACCES", count = 2 },
        { op = "write", key = "write", target = "/srv/out/a.o", program = "as", errno = 30, error = "EROFS", count = 1 },
        { op = "write", key = "write", target = "/srv/out/b.o", program = "as", errno = 30, error = "EROFS", count = 1 },
        { op = "read", key = "read", target = "/srv/data/x.csv", program = "cat", errno = 13, error = "EACCES", count = 1 },
        { op = "read", key = "read", target = "/home/u/.ssh/id_rsa", program = "ssh", errno = 13, error = "EACCES", count = 1 },
        { op = "write", key = "protect", target = "/p/.git/config", program = "git", errno = 16, error = "EBUSY", count = 1 },
        { op = "read", key = "hide", target = "/etc/shadow", program = "cat", errno = 2, error = "ENOENT", count = 1 },
        { op = "connect", key = "sockets", target = "/run/user/1000/bus", program = "dbus-send", errno = 2, error = "ENOENT", count = 1 },
        { op = "connect", key = "net", target = "93.184.216.34:443", program = "curl", errno = 13, error = "EACCES", count = 1 },
        { op = "bind", key = "net", target = "[::1]:8080", program = "node", errno = 13, error = "EACCES", count = 1 },
        { op = "socket", key = "net", target = "inet/dgram", program = "dig", errno = 1, error = "EPERM", count = 1 },
        { op = "write", key = "write", target = "/tmp/lcsb-home.x/.npm/_logs/x.log", program = "npm", errno = 30, error = "EROFS", count = 1, home = true },
        { op = "exec", key = "exec", target = "/tmp/lcsb-home.x/.local/bin/t", program = "sh", errno = 13, error = "EACCES", count = 1, home = true } } },
  }
  local argvs = { { "/usr/bin/make", "-j8" }, { "python3", "-c", "pass" }, { "./build/app" }, {} }
  local notes = { "", "cannot execute ./build/app: Permission denied", "not found" }
  local stderrs = { nil, "Permission denied\n", "connect: Connection refused\n",
    "Read-only file system\n", "No such file or directory\n", "Operation not permitted\n",
    "cat: /srv/secret: Permission denied\n", "touch: cannot touch '/srv/x': Permission denied\n",
    "sh: 1: ls: Permission denied\n", "curl: (6) Could not resolve host: example.com\n",
    "curl: (7) Failed to connect to 1.2.3.4 port 443 after 0 ms\n",
    "lcsb-exec: cannot enforce the Landlock ruleset: Operation not permitted\n",
    "fatal: unable to access '/tmp/lcsb-home.x/.config/git/config': No such file\n",
    "sh: 1: cannot create /p/.git/hooks/pre-commit: Read-only file system\n",
    "make: id: Permission denied\nmake: *** [Makefile:2: all] Error 127\n",
    "npm ERR! A complete log of this run can be found in: /tmp/lcsb-home.x/.npm/_logs/x-debug-0.log\n",
    "Error: crun: executable file `nope` not found in $PATH\n" }
  local policies = {
    { read = {}, write = { "/p" }, exec = { "/usr/bin/make" }, env = {}, net = false, cwd = "/p" },
    { read = {}, write = {}, exec = "any", env = { CI = "1" }, net = true },
    { read = {}, write = {}, exec = {}, env = {}, net = { connect = { 443 }, bind = {} } },
    { read = {}, write = {}, exec = {}, env = {},
      net = { domains = { "registry.npmjs.org" }, lan = {}, connect = {}, bind = {} } },
    { read = { "/usr" }, write = { "/p" }, exec = {}, env = { HOME = "/tmp/lcsb-home.x" },
      net = false, cwd = "/p", protect = { "/p/.git/hooks" } },
  }
  for _, status in ipairs(statuses) do
    for _, att in ipairs(attestations) do
      for _, argv in ipairs(argvs) do
        for _, note in ipairs(notes) do
          for si = 1, #stderrs + 1 do
            for _, pol in ipairs(policies) do
              out[#out + 1] = { argv = argv, status = status, note = note, attestation = att,
                stderr = stderrs[si], policy = pol, setup_failed = status == 97 }
            end
          end
        end
      end
    end
  end
  return out
end

local function help_text()
  local build = T.build or "."
  local text, code = T.sh(T.q(build .. "/lcsb") .. " --help 2>&1")
  T.eq(code, 0, "lcsb --help")
  T.has(text, "usage:", "lcsb --help")
  return text
end

T.case("every hint names only real policy keys and lcsb flags", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local help = help_text()
  local produced = {}
  local keys_seen, flags_seen, hints_seen = 0, 0, 0
  for _, ev in ipairs(walk()) do
    for i, heuristic in ipairs(remedies.heuristics) do
      local ok, hint = pcall(heuristic.explain, ev)
      if not ok then
        error(("heuristic %s raised on status %s: %s"):format(heuristic.name, tostring(ev.status),
          tostring(hint)))
      end
      -- A heuristic gives one hint or a list of them.
      for _, hint in ipairs(type(hint) == "table" and hint or { hint }) do
        T.eq(type(hint), "string", "heuristic " .. i .. "'s hint")
        T.ok(#hint > 0 and not hint:find("\n"), "one non-empty line: " .. hint)
        produced[i] = true
        hints_seen = hints_seen + 1
        -- `key = {` and `key = "..."`, as a policy script writes them.
        for key in hint:gmatch("([%a_][%w_%.]*)%s*=%s*[{\"'%w]") do
          local top = key:match("^[^.]+")
          local nested_in = NESTED[top]
          if nested_in and hint:find(nested_in .. " = {", 1, true) then top = nested_in end
          if not POLICY_KEYS[top] then
            error(("hint names policy key '%s', which exec_policy does not take: %s"):format(key, hint))
          end
          keys_seen = keys_seen + 1
        end
        for flag in hint:gmatch("%-%-[%a][%w%-]*") do
          if not help:find(flag, 1, true) then
            error(("hint names %s, which lcsb --help does not list: %s"):format(flag, hint))
          end
          flags_seen = flags_seen + 1
        end
        for sub in hint:gmatch("`lcsb ([%a%-]+)") do
          if not help:find("lcsb " .. sub, 1, true) then
            error(("hint names `lcsb %s`, which lcsb --help does not list: %s"):format(sub, hint))
          end
        end
      end
    end
  end
  -- The walk reached every heuristic: a new one that this evidence never
  -- triggers must come with evidence that does.
  for i = 1, #remedies.heuristics do
    T.ok(produced[i], ("heuristic %d produced a hint for some evidence"):format(i))
  end
  T.ok(hints_seen > 0 and keys_seen > 0, "the walk checked some keys")
  -- And the checks themselves would catch a wrong name.
  T.ok(not POLICY_KEYS["exec_allow"], "a made-up key is not a key")
  T.ok(not help:find("--allow-exec", 1, true), "a made-up flag is not in --help")
end)

-- In a world of its own, what the policy does not name does not exist: ENOENT
-- on a path the host has is a refusal; on one it lacks, nothing to grant; a
-- unix socket's connect is the sockets key's, not the network's.
T.case("a world of its own: ENOENT named by what the host has", function()
  local function own(stderr)
    local ev = evidence { stderr = stderr }
    ev.attestation.world = "own"
    return table.concat(remedies.explain(ev), "\n")
  end
  local status = T.tmpdir() .. "/status"
  assert(io.open(status, "w")):close()
  T.has(own(("cat: %s: No such file or directory\n"):format(status)),
    ('read = { "%s" }'):format(status), "a file the host has")
  T.eq(own("cat: /nonexistent-lcsb/x: No such file or directory\n"), "",
    "a file the host lacks: no hint")
  -- /var/tmp is a system prefix no write entry may name: the file is.
  T.eq(own("sh: 1: cannot create /var/tmp/lcsb-new-file: Directory nonexistent\n"),
    'refused: write of /var/tmp/lcsb-new-file (sh): add write = { "/var/tmp/lcsb-new-file" } '
    .. "(make what is missing first: a path that does not exist is left out of a policy)",
    "a file being made in a directory the host has")
  local sock = own("ConnectionRefusedError? no: connect: FileNotFoundError: [Errno 2] No such file or directory\n")
  T.has(sock, "name it in sockets yourself only if", "a unix socket: the sockets key, not offered")
  T.hasnt(sock, "sockets = {", "no socket offered, not even by a placeholder")
  T.has(sock, "whatever its server does", "and what a socket grants")
  T.ok(not sock:find("net = {", 1, true), "not the network's")
end)

T.run()
