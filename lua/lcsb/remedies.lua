-- Best-guess remedies for a sandboxed run: an ordered list of small
-- heuristics from the evidence to hint lines. The evidence: argv, status,
-- note (why lcsb itself ended the run), setup_failed (the mechanism reported
-- that nothing ran), stderr (the last 64 KiB the command
-- wrote there, when captured), policy (exec_policy's result: read, write,
-- exec, env, net, cwd and protect, as lcsb.policy takes them) and
-- attestation, whose refused list is what the sandbox refused each process
-- of the command, recorded as it happened. `lcsb explain FILE` gives a saved
-- attestation alone (saved = true, no stderr, no policy), and status may
-- then be nil; --report and lcsb.execute ask on a run that exited 0 too.
-- Finding nothing is a fine answer; the trailer fires anyway. Hints name
-- only policy keys and flags that exist (a test walks them). Each heuristic
-- has a name; host programs and policy scripts add their own, or replace or
-- remove one by name, with
-- M.add("name", function(evidence) return "hint" or nil end) and M.remove.
--
-- This file is the registry and the heuristics in their order; what they
-- read and say lives beside it: the evidence (evidence.lua) and the
-- stderr tail read into refusals (stderr.lua); refusals grouped
-- (refusal_groups.lua) and worded (refusal_lines.lua, net_refusals.lua);
-- why a path is never offered (withheld.lua, settings_files.lua); the text
-- a hint is made of (hint_text.lua).

local evidence = require "lcsb.evidence"
local groups = require "lcsb.refusal_groups"
local hint_text = require "lcsb.hint_text"
local net_refusals = require "lcsb.net_refusals"
local stderr = require "lcsb.stderr"
local withheld = require "lcsb.withheld"

local M = {}

local escape, shown, lua_list = hint_text.escape, hint_text.shown, hint_text.lua_list
local matches_any, list = hint_text.matches_any, hint_text.list
local recorded, named = evidence.recorded, evidence.named
local private_home, shown_in = evidence.private_home, evidence.shown_in
local from_stderr, REFUSED, ABSENT = stderr.from_stderr, stderr.REFUSED, stderr.ABSENT
local describe = groups.describe
local capped = withheld.capped
local address, unbracket = net_refusals.address, net_refusals.unbracket
local is_loopback, is_private = net_refusals.is_loopback, net_refusals.is_private
local every_host = net_refusals.every_host

-- The C half names the exit statuses; without it, lcsb's own.
local has_core, core = pcall(require, "lcsb.core")
local EXIT = has_core and core.exit or { setup = 97, usage = 125, noexec = 126, notfound = 127 }

-- At most SHOWN lines of LINES, and one saying how many more.
local SHOWN = 10
local function capped_lines(lines, more)
  if #lines <= SHOWN then return lines end
  local out = table.move(lines, 1, SHOWN - 1, 1, {})
  out[SHOWN] = more:format(#lines - (SHOWN - 1))
  return out
end

-- ---- the heuristics, in order ----

-- In order: { name = NAME, explain = function(evidence) ... end }.
M.heuristics = {}

-- Add heuristic FN under NAME, or put it in the place of the one of that name.
-- M.add(fn) adds it under a name of its own ("heuristic N").
function M.add(name, fn)
  if type(name) == "function" and fn == nil then
    name, fn = ("heuristic %d"):format(#M.heuristics + 1), name
  end
  assert(type(name) == "string" and type(fn) == "function", "remedies.add([name,] function)")
  for _, h in ipairs(M.heuristics) do
    if h.name == name then
      h.explain = fn
      return
    end
  end
  M.heuristics[#M.heuristics + 1] = { name = name, explain = fn }
end

-- Remove the heuristic NAME; true when there was one.
function M.remove(name)
  for i, h in ipairs(M.heuristics) do
    if h.name == name then
      table.remove(M.heuristics, i)
      return true
    end
  end
  return false
end

-- What the sandbox refused, as the recorder saw it in every process of the
-- command: evidence, not a guess, whatever the run's status. Every
-- distinct refusal is named, grouped; what the attestation counted but
-- did not keep is said in a number.
-- Its lines depend on the attestation and the policy alone: worded once for
-- each pair in an explain.
local worded = setmetatable({}, { __mode = "k" })
M.add("refused", function(ev)
  local att = ev.attestation or {}
  local policy = ev.policy or {}
  local memo = worded[att] and worded[att][policy]
  if memo and memo.refused == att.refused then
    return table.move(memo.lines, 1, #memo.lines, 1, {})
  end
  local refusals = recorded(ev)
  -- A saved attestation's numbers come back from JSON as floats.
  local total = math.tointeger(tonumber(att.refused_count)) or #list(att.refused)
  local lines = capped_lines(describe(ev, refusals), "%d more lines of refusals: the attestation "
    .. "(--attest FILE) lists each")
  if total > #list(att.refused) then
    lines[#lines + 1] = ("%d more refusals were counted and not kept (%d in all; the attestation "
      .. "keeps the first %d): allow those above and run again to see the rest"):format(
        total - #list(att.refused), total, #list(att.refused))
  end
  worded[att] = worded[att] or setmetatable({}, { __mode = "k" })
  worded[att][policy] = { refused = att.refused, lines = lines }
  return table.move(lines, 1, #lines, 1, {})
end)

-- What the command's stderr says the kernel refused and the recorder did
-- not see (a static program; a run without it): reads, writes and
-- protected paths, each distinct one.
M.add("refused_path", function(ev)
  local att = ev.attestation or {}
  if ev.status == 0 or att.fs ~= "enforced" then return end
  local picked = {}
  for _, r in ipairs(from_stderr(ev)) do
    if r.op ~= "exec" and not r.home then picked[#picked + 1] = r end
  end
  return capped_lines(describe(ev, picked), "%d more refused paths the command's stderr names")
end)

-- The private HOME: the command looked for a file of the real one, wrote
-- to one the policy shows read-only (home = { ... }), or named a file that
-- goes with it (npm's log).
M.add("private_home", function(ev)
  if ev.status == 0 then return end
  local picked, seen = {}, {}
  for _, r in ipairs(from_stderr(ev)) do
    if r.home then
      picked[#picked + 1] = r
      seen[r.target] = true
    end
  end
  local lines = describe(ev, picked)
  -- A log the command kept there is gone with it.
  for line in (type(ev.stderr) == "string" and ev.stderr or ""):gmatch("[^\n]+") do
    if line:find("[Ll]og") and not matches_any(line, REFUSED) and not matches_any(line, ABSENT) then
      for path in line:gmatch("/[^%s:'\"]+") do
        local rel = not seen[path] and private_home(ev, path)
        local cache = (ev.policy or {}).cache or (ev.attestation or {}).cache
        if rel and rel ~= "~" and not shown_in(cache, rel) then
          seen[path] = true
          local top = rel:match("^(~/[^/]+)")
          local keep = (top and not capped(top, { "deny", "deny_write" }))
            and ("; cache = %s keeps %s between runs"):format(lua_list { top }, shown(top)) or ""
          lines[#lines + 1] = ("%s, which the command named, lies in the run's private HOME, "
            .. "a fresh directory removed after the run, not your HOME%s"):format(shown(rel), keep)
        end
      end
    end
  end
  return capped_lines(lines, "%d more paths in the private HOME the command's stderr names")
end)

-- A program refused execution under the allowlist, as the stderr names it
-- (a shell, make, xargs, gcc, git, Node's spawn, Python's subprocess),
-- resolved along PATH; else (make's Error 127, or 126) what to look for.
-- Never "exec = \"any\"": turning the allowlist off is no remedy for one
-- program, and a status is the command's to choose.
M.add("refused_program", function(ev)
  local att = ev.attestation or {}
  if ev.status == 0 or att.exec ~= "allowlist" then return end
  local found = from_stderr(ev)
  local picked = {}
  for _, r in ipairs(found) do
    if r.op == "exec" and not r.home then picked[#picked + 1] = r end
  end
  if #picked > 0 then
    return capped_lines(describe(ev, picked), "%d more programs the command's stderr names")
  end
  local known = named(ev)
  if next(known.programs) then return end
  if found.make127 then
    return 'a make recipe could not run a program (make\'s Error 127: not found, or refused '
      .. 'execution); if it was refused, name it in exec = { "PROGRAM" }'
  end
  if ev.status ~= EXIT.noexec then return end
  return "status 126: a program could not be executed, and neither the recorder nor the "
    .. "command's stderr says which (the command and its interpreters are allowed already); "
    .. 'if a program was refused execution, name it in exec = { "PROGRAM" }'
end)

-- What lcsb's proxy refused (net.domains): evidence, not a guess, one hint
-- per host and port, whatever the status: the CLI asks on a run that
-- exited 0 only under --report (lcsb explain, lcsb.execute always).
local SHOWN_REFUSALS = 8

local function refused_entry(r)
  local host = r.host:find(":", 1, true) and ("[" .. r.host .. "]") or r.host
  if r.port == 443 or r.port == 80 then return host end
  return ("%s:%d"):format(host, r.port)
end

-- A request a rule in net.domains refused (RULE: the proxy's why after
-- "rule: "), to TARGET, whose entry is ENTRY: what to add to the rule.
function M.rule_hint(target, entry, rule)
  local request, why = rule:match("^(%S+ %S+): (.*)$")
  local method, path = (request or ""):match("^(%S+) (%S+)$")
  local key = ("net = { domains = { [%s] = { ... } } }"):format(lua_list({ entry }):match("^{ (.*) }$"))
  if why and why:find("override", 1, true) then
    return ("lcsb's proxy refused %s to %s: %s (X-HTTP-Method-Override and its kin name a method "
      .. "the server may take instead); add that method to the entry's methods (%s), or drop "
      .. "the header"):format(request, target, why, key)
  elseif why and why:find("method", 1, true) then
    return ("lcsb's proxy refused %s to %s: %s; to allow it, add \"%s\" to the entry's methods "
      .. "(%s)"):format(request, target, why, method, key)
  elseif why and why:find("starts with none", 1, true) then
    local dir = path:gsub("%?.*$", ""):match("^(.*/)") or "/"
    return ("lcsb's proxy refused %s to %s: %s; to allow it, add \"%s\" (or a shorter prefix) "
      .. "to the entry's paths (%s)"):format(request, target, why, dir, key)
  elseif why then
    return ("lcsb's proxy refused %s to %s: %s; a paths rule judges a path only as the server "
      .. "would read it, so ask for it without \".\" or \"..\" segments and escapes"):format(
      request, target, why)
  end
  return ("lcsb's proxy refused a request to %s: %s (a rule in net.domains reads the "
    .. "requests to it)"):format(target, rule)
end

-- A refusal of what the proxy read (a rule, a secret, a withheld value, its
-- TLS on either side) worded, TARGET being its host:port and ENTRY the
-- entry a hint names, SECRETS the policy's secrets by name; nil for any
-- other refusal.
function M.read_hint(target, entry, why, secrets)
  local rule = why:match("^rule: (.*)")
  local withheld = why:match("^withheld: the value of ([%w_]+)$")
  local echoed = why:match("^withheld: the value of ([%w_]+), in an answer$")
  local locked = why:find("^withheld: after ")
  local encoded = why:find("^upstream its answer is encoded")
    or why:find("^upstream its answer is a part")
  local upstream = why:match("^upstream (.*)")
  if echoed then
    return ("an answer from %s held the value of %s, which lcsb keeps from the command, "
      .. "though the request did not carry it as such (a guess, or another spelling of it, that "
      .. "the server decoded and echoed): it was overwritten, and the proxy sent on no more "
      .. "requests it reads in this run"):format(target, echoed)
  elseif locked then
    return ("lcsb's proxy refused requests to %s after an earlier one carried a "
      .. "value lcsb withholds: a run that sends one sends no more through a rule or a secret"
      ):format(target)
  elseif encoded then
    return ("%s encoded its answer (a Content-Encoding, or a transfer coding besides chunked), "
      .. "or sent a part of it, though lcsb's proxy asked for it whole and plain, as a secret goes "
      .. "to that host: the proxy cannot look into it for the secret's value, so it refused the "
      .. "answer"):format(target)
  elseif why:find("^no TLS: ") then
    return ("lcsb's proxy refused a plain HTTP request to %s that carried a "
      .. "secret's placeholder: lcsb puts a secret's value only into requests over TLS "
      .. "(https://) to the secret's hosts, whose certificate it verifies"):format(target)
  elseif withheld and secrets and secrets[withheld] then
    return ("lcsb's proxy refused a request to %s that held the value of %s, a secret of the "
      .. "policy's: the command never gets it from lcsb (it holds the placeholder, $%s, which "
      .. "the proxy swaps for the value on the way to the secret's hosts), so it had the value "
      .. "some other way, from a file or another program; send the placeholder instead"):format(
      target, withheld, withheld)
  elseif withheld then
    return ("lcsb's proxy refused a request to %s that held the value of %s, which "
      .. "lcsb keeps from the command: a variable the command was not given stays with lcsb "
      .. "(env = { pass = { \"%s\" } } gives it; to have it go to a host only, make it a "
      .. "secret)"):format(target, withheld, withheld)
  elseif rule then
    return M.rule_hint(target, entry, rule)
  elseif upstream then
    return ("lcsb's proxy reads the requests to %s (for a rule or a secret), and "
      .. "could not verify the host: %s; it trusts the system's certificates (SSL_CERT_FILE "
      .. "in lcsb's environment names others)"):format(target, upstream)
  elseif why:find("TLS", 1, true) then
    return ("lcsb's proxy reads the requests to %s (for a rule or a secret), and "
      .. "the command's TLS client refused it (%s): the client must trust the run's "
      .. "certificates, which SSL_CERT_FILE, CURL_CA_BUNDLE, GIT_SSL_CAINFO, REQUESTS_CA_BUNDLE, "
      .. "PIP_CERT and NODE_EXTRA_CA_CERTS name, and Java's truststore, which JAVA_TOOL_OPTIONS "
      .. "names; a client with a list of its own, or one that pins the host's key, cannot go "
      .. "through a rule"):format(target, why)
  end
end

M.add("net_refused", function(ev)
  local refused = ev.attestation and ev.attestation.net_refused
  if not refused or #refused == 0 then return end
  local hints, secrets = {}, {}
  for _, listed in ipairs(ev.attestation.secrets or {}) do
    secrets[listed:match("^%S+")] = true
  end
  for i, r in ipairs(refused) do
    if i > SHOWN_REFUSALS then break end
    local target = ("%s:%d"):format(r.host:find(":", 1, true) and ("[" .. r.host .. "]") or r.host,
      r.port)
    local entry = refused_entry(r)
    local denied = r.why:match("^denied by (!.*)")
    local address = r.why:match("^resolves to (%S+),")
    local unreached = r.why:match("^cannot resolve it: (.*)") or r.why:match("^cannot connect: (.*)")
    local grant, ended = r.why:match('^the grant "(.-)" (.*)$')
    local read = M.read_hint(target, entry, r.why, secrets)
    if read then
      hints[#hints + 1] = read
    elseif grant then
      -- The grant's own entry without its end ("*.example.org", not the
      -- host it was asked for), and what else would do.
      local lasting = grant:gsub(" once.*$", ""):gsub(" until=.*$", "")
      hints[#hints + 1] = ("the command tried to reach %s, but the grant \"%s\" in net.domains "
        .. "%s; to allow more, list \"%s\" without its end%s"):format(target, grant, ended,
        lasting, ended:find("^was used") and " (a run of its own gets one more)"
          or ", or give a later until")
    elseif unreached then
      hints[#hints + 1] = ("net.domains allows %s, but lcsb's proxy could not %s it: %s"):format(
        target, r.why:find("^cannot resolve") and "resolve" or "connect to", unreached)
    elseif denied then
      hints[#hints + 1] = ("the command tried to reach %s, which the policy denies (%s in "
        .. "net.domains)"):format(target, denied)
    elseif address then
      hints[#hints + 1] = ("the command tried to reach %s, which %s; if that is meant, add "
        .. "net = { lan = { \"%s\" } }"):format(target, r.why, address)
    else
      hints[#hints + 1] = ("the command tried to reach %s; to allow it, add "
        .. "net = { domains = { \"%s\" } }"):format(target, entry)
    end
  end
  local total = ev.attestation.net_refused_count or #refused
  if total > #hints then
    hints[#hints + 1] = ("%d more refusals of hosts, or hosts not reached (%d in all); the "
      .. "attestation (--attest FILE) names the first %d"):format(total - #hints, total, #refused)
  end
  -- Each is the command's text: one line, escaped.
  for i, hint in ipairs(hints) do hints[i] = shown(hint) end
  return hints
end)

-- The network, under net = false, a port list or domains.
local NETWORK = { "[Tt]emporary failure in name resolution", "[Cc]ould not resolve",
  "[Nn]ame or service not known", "getaddrinfo", "[Nn]etwork is unreachable",
  "[Cc]onnection refused", "[Ff]ailed to connect", "connect", "socket", "ENETUNREACH",
  "EAI_AGAIN", "ECONNREFUSED", "[Nn]ame resolution" }

-- The host and TCP port TEXT (the stderr tail, then the command line)
-- points at, both from one match: curl's "Failed to connect to HOST port
-- N", a URL's scheme://HOST:PORT, a URL's scheme://HOST (its scheme's
-- port), else a bare "port N" (no host). A host of one line with the port
-- of another would name a connection nobody tried: a remote port offered
-- as the loopback's.
local function target_in(text)
  local host, port = text:match("[Ff]ailed to connect to ([%w%.%-:%[%]]+) port (%d+)")
  if not host then host, port = text:match("https?://([%w%.%-]+):(%d+)") end
  if not host then host, port = text:match("https?://(%[[%x:]+%]):(%d+)") end
  if host then return host, tonumber(port) end
  local scheme
  scheme, host = text:match("(https?)://([%w%.%-]+)")
  if not host then scheme, host = text:match("(https?)://(%[[%x:]+%])") end
  if host then return host, scheme == "https" and 443 or 80 end
  port = text:match("[Pp]ort (%d+)")
  if port then return nil, tonumber(port) end
end

M.add("network", function(ev)
  local net = ev.policy and ev.policy.net
  local att = ev.attestation or {}
  if ev.status == 0 or net == true or att.net == "open" or named(ev).net then return end
  local stderr = type(ev.stderr) == "string" and ev.stderr or ""
  if not matches_any(stderr, NETWORK) then return end
  -- In a world of its own a unix socket outside the policy does not exist:
  -- connecting to it fails with ENOENT, which no network setting changes.
  if att.world == "own" and matches_any(stderr, ABSENT) then
    return "a connection failed on a path that does not exist for the command: a unix "
      .. "socket outside the policy is not in its world, and no hint names one: a unix socket "
      .. "grants the command whatever its server does (a terminal multiplexer's or an editor's "
      .. "runs any command sent to it); name it in sockets yourself only if you would let the "
      .. "command do all of that"
  end
  local resolving = stderr:find("resolv") or stderr:find("[Nn]ame or service")
    or stderr:find("getaddrinfo") or stderr:find("EAI_AGAIN")
  local domains = att.net == "domains"
  if domains and #list(att.net_refused) > 0 then return end
  local loopback = stderr:find("localhost", 1, true) or stderr:find("127.0.0.1", 1, true)
  if domains and not resolving and not loopback then return end
  if domains and not resolving then
    return "under net.domains the command's loopback (localhost, 127.0.0.1) is its own: a "
      .. "server on this host is reached through lcsb's proxy by another of its names, "
      .. "listed with its port, and net.lan for its address: net = { domains = { \"HOST:PORT\" }, "
      .. "lan = { \"127.0.0.1\" } }; net.connect is for servers the command starts itself"
  end
  if resolving and domains then
    return "name resolution failed: under net.domains the command has no DNS; it reaches "
      .. "hosts through lcsb's proxy, which HTTPS_PROXY, HTTP_PROXY and ALL_PROXY name: "
      .. "a tool that ignores them must be told of the proxy (an older Node's fetch: "
      .. "undici's EnvHttpProxyAgent)"
  end
  if resolving then
    local host = stderr:match("https?://([%w%.%-_]+)") or stderr:match("EAI_AGAIN ([%w%.%-_]+)")
      or stderr:match("[Rr]esolve host:? ([%w%.%-_]+)")
    local listed = host and host:find("%a") and ("\"%s\""):format(host) or "\"HOST\""
    return ("name resolution failed: %s, and DNS needs UDP; to reach a host by name, list "
      .. "it: net = { domains = { %s } } (through lcsb's proxy)"):format(
        type(net) == "table" and "net.connect allows TCP ports but no name lookups"
          or "the policy allows no network", listed)
  end
  local seen = stderr .. "\n" .. table.concat(list(ev.argv), " ")
  local host, port = target_in(seen)
  if port then
    for _, allowed in ipairs(list(type(net) == "table" and net.connect)) do
      if allowed == port then return end
    end
    host = address(host) or host
    if is_loopback(host) then
      return ("a connection to this host's loopback was refused by the policy; to allow TCP to "
        .. "port %d, set net = { connect = { %d } } (%s)"):format(port, port, every_host(port))
    end
    -- Another host, or one not named: a port alone opens it to every host.
    local lan = is_private(host) and (", lan = %s"):format(lua_list { unbracket(host) }) or ""
    return ("a connection was refused by the policy; to reach %s, add net = { domains = { "
      .. "\"%s:%d\" }%s } (through lcsb's proxy); net = { connect = { %d } } would open TCP %d "
      .. "to every host"):format(host and shown(host) or "the host", host or "HOST", port, lan,
        port, port)
  end
  return "a network operation failed and the policy restricts the network; "
    .. "net = { domains = { \"HOST\" } } names hosts to reach through lcsb's proxy, "
    .. "net = true all of the network"
end)

-- 97, as the mechanism reported it (the command can exit 97 too): the shim
-- said what failed; repeat it with where to look.
M.add("setup_failed", function(ev)
  if ev.status ~= EXIT.setup or not ev.setup_failed then return end
  local reason = (ev.stderr or ""):match("lcsb%-exec: cannot ([^\n]+)")
  -- The private HOME and TMPDIR go beside the caller's TMPDIR (else /tmp);
  -- a policy that reads that directory whole binds it read-only there.
  local private = reason and reason:match("^make (.-/)lcsb%-[%a]+%.[%w]+ in the command's root: "
    .. "Read%-only file system")
  if private then
    return ("the sandbox could not be set up: the run's private HOME and TMPDIR are made in %s, "
      .. "which the policy reads whole, so it is read-only in the command's world; read only "
      .. "what the command needs there, or run lcsb with TMPDIR set to a directory the policy "
      .. "reads nothing of"):format(private)
  end
  return ("the sandbox could not be set up%s; `lcsb detect` shows what this host can enforce")
    :format(reason and (" (the shim could not " .. reason .. ")") or " (the message above says why)")
end)

-- A container engine reports its own failures with the statuses a command
-- could exit with (125 the engine, 126 cannot run, 127 not found) and an
-- "Error: " line: say whose the status probably is.
M.add("container_engine", function(ev)
  local att = ev.attestation or {}
  if att.backend ~= "oci" or math.type(ev.status) ~= "integer" or ev.status < EXIT.usage
    or ev.status > EXIT.notfound then
    return
  end
  local said = (ev.stderr or ""):match("\nError: ([^\n]+)") or (ev.stderr or ""):match("^Error: ([^\n]+)")
  if not said then return end
  return ("the container engine failed (\"%s\"): status %d is probably the engine's, not the "
    .. "command's; check its oci = {...} world and the engine's own configuration"):format(said, ev.status)
end)

-- What every module of the hints remembers within one explain, forgotten:
-- the caps the run was held to, what the disk and the evidence said.
local function begin(ev)
  withheld.begin(ev)
  stderr.begin()
  evidence.begin()
  worded = setmetatable({}, { __mode = "k" })
end

-- The hints, each line of each escaped for a terminal: a hint may quote
-- the command's stderr or a path it named, control bytes and all.
function M.explain(evidence)
  begin(evidence)
  local hints = {}
  for _, heuristic in ipairs(M.heuristics) do
    local ok, hint = pcall(heuristic.explain, evidence)
    -- One hint, or a list of them; a number is said as such.
    for _, line in ipairs(ok and (type(hint) == "table" and hint or { hint }) or {}) do
      if type(line) == "number" then line = tostring(line) end
      if type(line) == "string" then hints[#hints + 1] = (line:gsub("[^\n]+", escape)) end
    end
  end
  return hints
end

return M
