-- Best-guess remedies for a failed sandboxed run: an ordered list of small
-- heuristics from the evidence to hint lines. The evidence: argv, status,
-- note (why lcsb itself ended the run), setup_failed (the mechanism reported
-- that nothing ran), stderr (the last 64 KiB the command
-- wrote there, when captured), policy (exec_policy's result: read, write,
-- exec, env, net, cwd and protect, as lcsb.policy takes them) and
-- attestation. Finding nothing is a fine answer; the
-- trailer fires anyway. Hints name only policy keys and flags that exist (a
-- test walks them). Each heuristic has a name; host programs and policy
-- scripts add their own, or replace or remove one by name, with
-- M.add("name", function(evidence) return "hint" or nil end) and M.remove.

local paths = require "lcsb.paths"

local M = {}

-- The C half tells whether a path exists, names the exit statuses and
-- escapes text for a terminal; without it, guess that a path does not exist.
local has_core, core = pcall(require, "lcsb.core")
local function exists(path)
  return has_core and core.kind(path) ~= nil
end
local EXIT = has_core and core.exit or { setup = 97, usage = 125, noexec = 126, notfound = 127 }
local escape = has_core and core.escape or function(text) return text end

-- ---- reading the evidence ----

-- Does TEXT match one of PATTERNS?
local function matches_any(text, patterns)
  for _, pattern in ipairs(patterns) do
    if text:find(pattern) then return true end
  end
  return false
end

-- The absolute path a refusal line names: quoted ('x', "x", `x', ‘x’) or bare
-- up to a colon or a blank, the way coreutils, shells, Python, Go and Node
-- print them.
local function path_in(line)
  for _, pattern in ipairs { "'(/[^']*)'", '"(/[^"]*)"', "`(/[^']*)'", "\226\128\152(/.-)\226\128\153",
    "(/[^%s:'\"]+)" } do
    local path = line:match(pattern)
    if path and path ~= "/" then return (path:gsub("/+$", "")) end
  end
end

-- Lines of the stderr tail that report a refusal by the kernel.
local REFUSED = { "[Pp]ermission denied", "[Oo]peration not permitted", "[Rr]ead%-only file system",
  "EACCES", "EPERM", "EROFS" }

-- In a world of its own, a path outside the policy does not exist for the
-- command: "No such file or directory" about a path the host has (or whose
-- directory it has, for a file being created) is a refusal too.
local ABSENT = { "[Nn]o such file or directory", "[Dd]irectory nonexistent", "ENOENT" }
local CREATING = { "[Cc]annot create", "[Cc]annot touch", "[Dd]irectory nonexistent",
  "[Cc]annot open .* for writing", "O_CREAT" }

local function refusal_lines(stderr, own_world)
  local lines = {}
  for line in (stderr or ""):gmatch("[^\n]+") do
    if matches_any(line, REFUSED) then
      lines[#lines + 1] = line
    elseif own_world and matches_any(line, ABSENT) then
      -- A path read must exist on the host; a file being made, its directory.
      local path = path_in(line)
      local dir = path and (path:match("^(.*)/[^/]*$") or "/")
      if path and (exists(path) or (matches_any(line, CREATING) and exists(dir))) then
        lines[#lines + 1] = line
      end
    end
  end
  return lines
end

-- A program a shell could not start: dash's "sh: 1: NAME: Permission denied",
-- bash's "SCRIPT: line 3: NAME: ..." and "bash: NAME: ...".
local function refused_program(line)
  return line:match("^[^:]+: %d+: ([^:%s]+): [Pp]ermission denied")
    or line:match("^[^:]+: line %d+: ([^:%s]+): [Pp]ermission denied")
    or line:match("^[%w_%./-]*sh: ([^:%s]+): [Pp]ermission denied")
end

-- Was the refused operation one that writes?
local WRITING = { "cannot create", "cannot touch", "cannot remove", "cannot make", "mkdir",
  "[Rr]ead%-only", "cannot open .* for writing", "[Ww]rite", "unlink", "rename", "cannot move",
  "cannot copy", "O_WRONLY", "O_CREAT", "open '.-', 'w'", "mode 'w'" }

local function writes(line)
  return matches_any(line, WRITING)
end

local function list(value)
  return type(value) == "table" and value or {}
end

-- Is PATH one of ENTRIES or beneath one?
local function covered(entries, path)
  return paths.covered(paths.set(list(entries)), path)
end

-- Paths no hint may suggest granting, whatever the stderr tail (which the
-- command writes) claims: the system's own trees, root's home, and the
-- dot-directories where keys, credentials and shell start-up files live.
local SENSITIVE = { "^/usr/", "^/usr$", "^/etc/", "^/etc$", "^/bin", "^/sbin", "^/lib", "^/boot",
  "^/root", "^/proc", "^/sys", "^/dev", "/%.[^/]+" }

local function sensitive(path)
  return not path:find("^/usr/local/") and matches_any(path, SENSITIVE)
end

local function dirname(path)
  return path:match("^(.+)/[^/]*$") or "/"
end

-- The private HOME the run had, and PATH written as ~/... when it lies in it.
-- The policy's env is in the structured form exec_policy gives (set = {...});
-- a host's own evidence may give the simple one.
local function in_private_home(ev, path)
  local env = ev.policy and ev.policy.env
  local home = type(env) == "table" and (type(env.set) == "table" and env.set.HOME or env.HOME)
  if type(home) == "string" and path:sub(1, #home + 1) == home .. "/" then
    return "~" .. path:sub(#home + 1)
  end
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

-- A path the kernel refused: outside every tier -> read (or write, for a
-- write); readable but not writable -> write. A path in the private HOME
-- means the command looked for a file of the real HOME.
M.add("refused_path", function(ev)
  if ev.status == 0 or ev.attestation.fs ~= "enforced" then return end
  for _, line in ipairs(refusal_lines(ev.stderr, ev.attestation.world == "own")) do
    local path = not refused_program(line) and path_in(line)
    local policy = ev.policy or {}
    if path and not in_private_home(ev, path) then
      local readable = covered(policy.read, path) or covered(policy.write, path)
      if covered(policy.protect, path) then
        return ("%s is protected: it stays read-only inside the writable project (a hook "
          .. "planted there would run outside the sandbox)"):format(path)
      elseif sensitive(path) then
        return nil -- the tail is the command's to write: never coax a grant of these
      elseif writes(line) and not covered(policy.write, path) then
        -- A file that is not there yet needs its directory.
        local where = exists(path) and path or dirname(path)
        return ('%s was refused for writing; to allow it, add write = { "%s" } to the policy')
          :format(path, where)
      elseif not readable then
        return ('%s is outside the policy; to let the command read it, add read = { "%s" }')
          :format(path, path)
      end
    end
  end
end)

-- The entry of LIST (exec_policy's result.home or .cache: { name = "~/x" })
-- that REL ("~/x/y") is, or lies in.
local function shown_in(list, rel)
  for _, e in ipairs(type(list) == "table" and list or {}) do
    local name = type(e) == "table" and e.name
    if type(name) == "string" and (rel == name or rel:sub(1, #name + 1) == name .. "/") then
      return name
    end
  end
end

-- The private HOME: the command looked for a file of the real one, or
-- wrote to one the policy shows read-only (home = { ... }).
M.add("private_home", function(ev)
  if ev.status == 0 then return end
  local policy = ev.policy or {}
  for line in (ev.stderr or ""):gmatch("[^\n]+") do
    for path in line:gmatch("/[^%s:'\"]+") do
      local rel = in_private_home(ev, path)
      local shown = rel and shown_in(policy.home, rel)
      if shown then
        return ("%s is your real %s, which home = { ... } shows read-only: the command cannot "
          .. "change it"):format(rel, shown)
      elseif rel and rel ~= "~" and not shown_in(policy.cache, rel) then
        return ("the command's HOME is a fresh private directory, so %s is not there; to show "
          .. 'the command your real one, read-only, add home = { "%s" }'):format(rel, rel)
      end
    end
  end
end)

-- A program refused execution under the allowlist: name the one the shell
-- reports, else (126) say what to look for.
M.add("refused_program", function(ev)
  if ev.status == 0 or ev.attestation.exec ~= "allowlist" then return end
  for _, line in ipairs(refusal_lines(ev.stderr, ev.attestation.world == "own")) do
    local name = refused_program(line)
    if name then
      return ('%s was refused execution; to allow it, add exec = { "%s" } to the policy')
        :format(name, name)
    end
  end
  if ev.status ~= EXIT.noexec then return end
  return 'if a program was refused execution, name it in exec = { "PROGRAM" } (the command '
    .. 'and its interpreters are allowed already), or set exec = "any" to turn the '
    .. 'allowlist off'
end)

-- What lcsb's proxy refused (net.domains): evidence, not a guess, so it
-- comes first, one hint per host and port. A run that exits 0 keeps them in
-- the attestation alone.
local SHOWN_REFUSALS = 8

local function refused_entry(r)
  local host = r.host:find(":", 1, true) and ("[" .. r.host .. "]") or r.host
  if r.port == 443 or r.port == 80 then return host end
  return ("%s:%d"):format(host, r.port)
end

M.add("net_refused", function(ev)
  local refused = ev.attestation and ev.attestation.net_refused
  if ev.status == 0 or not refused or #refused == 0 then return end
  local hints = {}
  for i, r in ipairs(refused) do
    if i > SHOWN_REFUSALS then break end
    local target = ("%s:%d"):format(r.host:find(":", 1, true) and ("[" .. r.host .. "]") or r.host,
      r.port)
    local entry = refused_entry(r)
    local denied = r.why:match("^denied by (!.*)")
    local address = r.why:match("^resolves to (%S+),")
    local unreached = r.why:match("^cannot resolve it: (.*)") or r.why:match("^cannot connect: (.*)")
    if unreached then
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
    hints[#hints + 1] = ("%d more hosts were refused or not reached (%d in all); the "
      .. "attestation (--attest FILE) names the first %d"):format(total - #hints, total, #refused)
  end
  return hints
end)

-- The network, under net = false, a port list or domains.
local NETWORK = { "[Tt]emporary failure in name resolution", "[Cc]ould not resolve",
  "[Nn]ame or service not known", "getaddrinfo", "[Nn]etwork is unreachable",
  "[Cc]onnection refused", "[Ff]ailed to connect", "connect", "socket", "ENETUNREACH",
  "EAI_AGAIN", "ECONNREFUSED", "[Nn]ame resolution" }

-- The TCP port TEXT (the stderr tail, then the command line) points at.
local function port_in(text)
  local port = text:match("https?://[^/%s:]+:(%d+)") or text:match("[Pp]ort (%d+)")
  if port then return tonumber(port) end
  if text:find("https://", 1, true) then return 443 end
  if text:find("http://", 1, true) then return 80 end
end

M.add("network", function(ev)
  local net = ev.policy and ev.policy.net
  if ev.status == 0 or net == true or ev.attestation.net == "open" then return end
  local stderr = ev.stderr or ""
  if not matches_any(stderr, NETWORK) then return end
  -- In a world of its own a unix socket outside the policy does not exist:
  -- connecting to it fails with ENOENT, which no network setting changes.
  if ev.attestation.world == "own" and matches_any(stderr, ABSENT) then
    return "a connection failed on a path that does not exist for the command: a unix "
      .. "socket outside the policy is not in its world; to reach one, add sockets = { \"PATH\" } "
      .. "(or \"$VARIABLE\" naming it, as \"$SSH_AUTH_SOCK\")"
  end
  local resolving = stderr:find("resolv") or stderr:find("[Nn]ame or service")
    or stderr:find("getaddrinfo") or stderr:find("EAI_AGAIN")
  local domains = ev.attestation.net == "domains"
  if domains and #list(ev.attestation.net_refused) > 0 then return end
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
  local port = port_in(stderr .. "\n" .. table.concat(list(ev.argv), " "))
  if port then
    for _, allowed in ipairs(list(type(net) == "table" and net.connect)) do
      if allowed == port then return end
    end
    return ("a connection was refused by the policy; to allow TCP to port %d, set "
      .. "net = { connect = { %d } } (or net = true for all of the network)"):format(port, port)
  end
  return "a network operation failed and the policy restricts the network; "
    .. "net = { connect = { PORT } } allows TCP to a port, net = true all of it"
end)

-- 97, as the mechanism reported it (the command can exit 97 too): the shim
-- said what failed; repeat it with where to look.
M.add("setup_failed", function(ev)
  if ev.status ~= EXIT.setup or not ev.setup_failed then return end
  local reason = (ev.stderr or ""):match("lcsb%-exec: cannot ([^\n]+)")
  return ("the sandbox could not be set up%s; `lcsb detect` shows what this host can enforce")
    :format(reason and (" (the shim could not " .. reason .. ")") or " (the message above says why)")
end)

-- A container engine reports its own failures with the statuses a command
-- could exit with (125 the engine, 126 cannot run, 127 not found) and an
-- "Error: " line: say whose the status probably is.
M.add("container_engine", function(ev)
  if ev.attestation.backend ~= "oci" or ev.status < EXIT.usage or ev.status > EXIT.notfound then
    return
  end
  local said = (ev.stderr or ""):match("\nError: ([^\n]+)") or (ev.stderr or ""):match("^Error: ([^\n]+)")
  if not said then return end
  return ("the container engine failed (\"%s\"): status %d is probably the engine's, not the "
    .. "command's; check its oci = {...} world and the engine's own configuration"):format(said, ev.status)
end)

-- The hints, each line of each escaped for a terminal: a hint may quote
-- the command's stderr or a path it named, control bytes and all.
function M.explain(evidence)
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
