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

local paths = require "lcsb.paths"

local M = {}

-- The C half tells whether a path exists, names the exit statuses and
-- escapes text for a terminal; without it, guess that a path does not exist.
local has_core, core = pcall(require, "lcsb.core")
local function exists(path)
  return has_core and core.kind(path) ~= nil
end
local EXIT = has_core and core.exit or { setup = 97, usage = 125, noexec = 126, notfound = 127 }

-- Without the C half: CR and LF spelled out, the other C0 controls and DEL
-- as \xHH (the C half also takes C1 controls and bytes that are not UTF-8).
local function escape_c0(text)
  return (text:gsub("[%c\127]", function(c)
    if c == "\t" then return c end
    return c == "\n" and "\\n" or c == "\r" and "\\r" or ("\\x%02x"):format(c:byte())
  end))
end
local escape = has_core and core.escape or escape_c0

-- The caps: what no policy may grant, for the hints that would suggest a
-- file of the user's HOME. Those the run was held to, merged (the
-- administrator's and the user's with lcsb's), when the evidence brings
-- them (explain sets them); else the ones lcsb ships (data), for a saved
-- attestation.
local has_caps, shipped = pcall(require, "lcsb.caps")
if not has_caps or type(shipped) ~= "table" then shipped = {} end
local caps = shipped

-- ---- text: what the command chose, shown ----

-- TEXT as a hint shows it: one line, no control byte. Targets, programs and
-- stderr lines are the command's bytes: a LF in a path must not start a
-- line of its own words, an ESC must not reach the terminal. Escaping is
-- idempotent, so explain's own pass over each line changes nothing more.
local function shown(text)
  return escape(tostring(text))
end

-- PATH as a Lua string a policy script takes as it is: quote and backslash
-- escaped, control bytes as \xHH (which Lua reads back as the same byte).
local function lua_string(path)
  return shown('"' .. path:gsub('[\\"]', "\\%0") .. '"')
end

local function lua_list(list)
  local parts = {}
  for i, path in ipairs(list) do parts[i] = lua_string(path) end
  return "{ " .. table.concat(parts, ", ") .. " }"
end

-- Does TEXT match one of PATTERNS?
local function matches_any(text, patterns)
  for _, pattern in ipairs(patterns) do
    if text:find(pattern) then return true end
  end
  return false
end

local function list(value)
  return type(value) == "table" and value or {}
end

-- ---- paths ----

local function dirname(path)
  return path:match("^(.+)/[^/]*$") or "/"
end

-- Patterns here are anchored or start at a rare byte: the stderr is the
-- command's, and an unanchored "([^/]*)$" over a long line is quadratic.
local function basename(path)
  path = path:gsub("/+$", "")
  return path:match("^.*/(.*)$") or path
end

-- PATH with "//", "." and ".." taken out, as text (links aside).
local function normal(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return "/" .. table.concat(parts, "/")
end

-- PATH as the command meant it: a relative one is the run's working
-- directory's (ev.policy.cwd); nil when that is not known.
local function absolute(ev, path)
  if path:sub(1, 1) == "/" then return normal(path) end
  local cwd = ev.policy and ev.policy.cwd
  if type(cwd) == "string" and cwd:sub(1, 1) == "/" then return normal(cwd .. "/" .. path) end
end

-- Is PATH one of ENTRIES or beneath one?
local function covered(entries, path)
  return paths.covered(paths.set(list(entries)), path)
end

-- Paths no hint may suggest granting, whatever the stderr tail or the
-- recorder (both the command's to write) claims: the system's own trees,
-- root's home, and the dot-directories where keys, credentials and shell
-- start-up files live.
local SYSTEM = { "^/usr/", "^/usr$", "^/etc/", "^/etc$", "^/bin", "^/sbin", "^/lib", "^/boot",
  "^/proc", "^/sys", "^/dev", "^/run", "^/var/", "^/var$", "^/opt/", "^/opt$", "^/srv$", "^/home$" }
-- What SYSTEM holds that is anyone's to write in.
local SCRATCH = { "^/var/tmp/" }
-- Where programs live: running one of them is what exec grants.
local PROGRAMS = { "^/usr/", "^/bin/", "^/sbin/", "^/lib", "^/opt/" }

-- PATH, and PATH as a terminal or a file system would read it: control
-- bytes dropped, a backspace taking back the byte before it, "." and ".."
-- resolved. A "\b" or an ESC sequence must not carry a dot-directory past
-- the filter.
local function readings(path)
  if not path:find("[%c\127\194]") then
    return (path:find("/%.") or path:find("//")) and { path, normal(path) } or { path }
  end
  -- A terminal takes a whole escape sequence, not only its ESC; the
  -- kernel none of it. Either reading counts.
  local shown_as = path:gsub("\27%[[0-?]*[ -/]*[@-~]", ""):gsub("\194\155[0-?]*[ -/]*[@-~]", "")
    :gsub("\27%][^\7\27]*\7", ""):gsub("\27%][^\7\27]*\27\\", ""):gsub("\27.", "")
  local out = {}
  for _, text in ipairs { path, shown_as } do
    local bare = text:gsub("\194[\128-\159]", ""):gsub("[%c\127]", "")
    -- One pass, as a terminal takes them: each backspace takes back the
    -- byte before it (a loop of gsubs would be quadratic in a long run).
    local kept = {}
    for c in text:gmatch(".") do
      if c == "\b" then kept[#kept] = nil else kept[#kept + 1] = c end
    end
    local erased = table.concat(kept)
    erased = erased:gsub("\194[\128-\159]", ""):gsub("[%c\127]", "")
    for _, p in ipairs { text, bare, erased } do
      out[#out + 1] = p
      if p:sub(1, 1) == "/" then out[#out + 1] = normal(p) end
    end
  end
  return out
end

-- Why no hint may suggest granting PATH, or nil. For an exec grant the
-- program trees are fine, and so is the project's own dot-directory
-- (.venv/bin); WRITABLE says PATH lies where the command writes.
-- Is PATH in a home of /home that is not the caller's?
local function other_home(path)
  local home = os.getenv("HOME") or ""
  local top = path:match("^(/home/[^/]+)")
  return top ~= nil and top ~= home and home:sub(1, #top + 1) ~= top .. "/"
end

local function withheld(path, exec, writable)
  for _, p in ipairs(readings(path)) do
    if p:find("^/root") then
      return "granting root's home is a decision to make yourself"
    elseif p:find("/%.[^/]") and not (exec and writable) then
      return "granting a dot-file or dot-directory (where keys, credentials and start-up files "
        .. "live) is a decision to make yourself"
    elseif matches_any(p, SYSTEM) and not matches_any(p, SCRATCH)
      and not (exec and matches_any(p, PROGRAMS)) then
      return "granting the system's own files is a decision to make yourself"
    end
  end
  for _, p in ipairs(readings(path)) do
    if other_home(p) then return "granting another user's home is a decision to make yourself" end
  end
end

-- A directory too wide to grant: a system prefix (rule 3: /, /tmp, /srv,
-- /home, ...), the user's HOME, or one withheld.
local function too_wide(dir)
  return dir == "/" or dir == os.getenv("HOME") or (has_core and core.system_prefix(dir) ~= nil)
    or withheld(dir) ~= nil
end

-- The private HOME the run had: the policy's env says it (the structured
-- form exec_policy gives, or a host's simple one); without it, a path named
-- the way lcsb names it (lcsb-home.XXXXXX) when FLAGGED or no env is known.
local function private_home(ev, path, flagged)
  local env = ev.policy and ev.policy.env
  local home = type(env) == "table" and (type(env.set) == "table" and env.set.HOME or env.HOME)
  if type(home) == "string" and home:sub(1, 1) == "/" then
    if path:sub(1, #home + 1) == home .. "/" then return "~" .. path:sub(#home + 1) end
    if not flagged then return end
  end
  local rest = path:match("^/.-/lcsb%-home[%.%-][^/]+(/.+)$")
  if rest then return "~" .. rest end
end

-- The entry of LIST (exec_policy's result.home or .cache, or the
-- attestation's: { name = "~/x" }) that REL ("~/x/y") is, or lies in.
local function shown_in(entries, rel)
  for _, e in ipairs(list(entries)) do
    local name = type(e) == "table" and e.name
    if type(name) == "string" and (rel == name or rel:sub(1, #name + 1) == name .. "/") then
      return name
    end
  end
end

-- Does a cap deny REL ("~/x") to every policy? LISTS: caps' keys to read.
local cap_sets = {}
local function capped(rel, lists)
  for _, key in ipairs(lists) do
    cap_sets[key] = cap_sets[key] or paths.set(list(caps[key]))
    for _, r in ipairs(readings(rel)) do
      if paths.covered(cap_sets[key], r) then return r end
    end
  end
end

-- ---- programs ----

-- Where a program that is not on PATH lives: gcc's own (cc1, collect2)
-- and git's helpers (git-foo) are where their closures find them.
local BESIDE = { "/usr/lib/gcc/*/*/", "/usr/libexec/gcc/*/*/", "/usr/lib/git-core/",
  "/usr/libexec/git-core/" }

-- The files NAME (a bare program name) would run, as the command's PATH
-- finds it (the policy's, else the one it inherits: lcsb's), else where
-- gcc and git keep their own; nil when none is found (or no C half).
local function program_path(ev, name)
  if not has_core or not name:find("^[%w_][%w_%.%+%-]*$") then return end
  local env = ev.policy and ev.policy.env
  local path = type(env) == "table" and (type(env.set) == "table" and env.set.PATH or env.PATH)
  for dir in (type(path) == "string" and path or os.getenv("PATH") or ""):gmatch("[^:]+") do
    local file = dir:gsub("/+$", "") .. "/" .. name
    if dir:sub(1, 1) == "/" and core.kind(file) == "file" then return { file } end
  end
  local ok, tools = pcall(require, "lcsb.tools")
  if not ok then return end
  local found = {}
  for _, beside in ipairs(BESIDE) do
    for _, file in ipairs(tools.glob(beside .. name)) do found[#found + 1] = file end
  end
  if #found > 0 then return found end
end

-- ---- what was refused, worded ----

-- A refusal: { op = "exec"|"read"|"write"|"connect"|"bind"|"socket",
-- key = the policy key that accounts for it (lcsb.h's lcsb_refusal), target
-- (an absolute path, "ADDR:PORT", a socket's kind, or for an exec a bare
-- name the stderr named), program (who was refused, or nil), home (the
-- target lies in the private HOME), absent (ENOENT: not there at all), ro
-- (the command was told "Read-only file system"), busy (EBUSY) }.

local VERB = { exec = "exec of", read = "read of", write = "write of", connect = "connect to",
  bind = "bind to" }

-- Does the evidence name where PROGRAM's connection was for (a connect's
-- address, a name looked up), or the stderr a port or an address? Then a
-- refused socket's kind says nothing more (curl's IPv6 probe, a socket made
-- before its connect). Defined with the evidence, below.
local where_named

-- "read of /x (cat)", the target as ev shows it.
local function refusal_text(ev, r)
  local target = r.home and private_home(ev, r.target, true) or r.target
  local text = r.op == "socket" and ("a socket of kind " .. shown(target))
    or ((VERB[r.op] or (shown(r.op) .. " of")) .. " " .. shown(target))
  return r.program and ("%s (%s)"):format(text, shown(r.program)) or text
end

-- The default of protect (lcsb.protect_default) that keeps TARGET
-- read-only, by its name from the project's root (the deepest: .git/hooks
-- rather than .git), for the hint that lets that one go; nil when TARGET
-- lies in none, or the evidence names no project (a saved attestation).
local function default_holding(ev, target)
  local project = type(ev.policy) == "table" and ev.policy.cwd
  if type(project) ~= "string" or target:sub(1, #project + 1) ~= project .. "/" then return nil end
  local rel = target:sub(#project + 2)
  local ok, lcsb = pcall(require, "lcsb")
  local best
  for _, d in ipairs(ok and type(lcsb) == "table" and lcsb.protect_default or {}) do
    local name = type(d) == "table" and d.path
    if type(name) == "string" and (rel == name or rel:sub(1, #name + 1) == name .. "/")
      and (not best or #name > #best) then
      best = name
    end
  end
  return best
end

-- The protected or hidden path of the policy lying below the directory
-- TARGET, or the hidden path TARGET is, if any: { path, hidden, itself }.
local function held_below(ev, target)
  local policy = type(ev.policy) == "table" and ev.policy or {}
  for _, tier in ipairs({ "protect", "hide" }) do
    for _, path in ipairs(type(policy[tier]) == "table" and policy[tier] or {}) do
      if type(path) == "string" and (path:sub(1, #target + 1) == target .. "/"
        or (tier == "hide" and path == target)) then
        return { path = path, hidden = tier == "hide", itself = path == target }
      end
    end
  end
  return nil
end

local RO_NOTE = '"Read-only file system" here means outside the policy\'s write tier, not a '
  .. "read-only disk"
local CREATE_FIRST = "make what is missing first: a path that does not exist is left out of a "
  .. "policy"

-- The notes given that apply (the others false or nil), as one parenthesis.
local function notes(...)
  local said = {}
  for i = 1, select("#", ...) do
    local note = select(i, ...)
    if note then said[#said + 1] = note end
  end
  return #said > 0 and (" (" .. table.concat(said, "; ") .. ")") or ""
end

-- What lets the command write PATH: the file when it is there, else its
-- directory (a policy leaves out what does not exist), unless that is too
-- wide to grant; true as the second value when the file must be made first.
local function write_entry(path)
  if exists(path) then return path end
  local dir = dirname(path)
  if too_wide(dir) then return path, true end
  return dir
end

-- The smallest of lcsb's presets (lcsb.tools) that holds every program of
-- TARGETS by name, when there are two or more of them: a script refused
-- sort, then uniq, then wc, takes one run with the preset, not three.
local PRESETS = { "shell", "git", "c", "python", "node", "rust" }
local function preset_for(targets)
  local ok, tools = pcall(require, "lcsb.tools")
  if not ok or #targets < 2 then return end
  local function holds(preset, name, seen)
    seen = seen or {}
    if seen[preset] then return false end
    seen[preset] = true
    for _, entry in ipairs(preset) do
      if entry == name or (type(entry) == "table" and holds(entry, name, seen)) then return true end
    end
    return false
  end
  for _, name in ipairs(PRESETS) do
    local preset, all = tools[name], true
    for _, target in ipairs(targets) do
      all = all and type(preset) == "table" and holds(preset, basename(target))
    end
    if all then return name end
  end
end

-- An address without its IPv6 brackets.
local function unbracket(host) return (host or ""):match("^%[(.*)%]$") or host end

-- HOST as an address in its plain form ("127.0.0.1", "[::1]") when it is
-- one: IPv4 as inet_aton reads it (1 to 4 parts, each decimal, 0x hex or 0
-- octal: 127.1, 0x7f000001, 0177.0.0.1, 2130706433), or IPv6 in brackets;
-- nil for a name. A name spelled as an address is an address: no hint
-- offers it to net.domains, where it would lead to one.
local function address(host)
  if type(host) ~= "string" then return nil end
  if host:find("^%[[%x:.]+%]$") then return host:lower() end
  local parts = {}
  for part in (host .. "."):gmatch("([^.]*)%.") do
    local n = part:find("^0[xX]%x+$") and tonumber(part:sub(3), 16)
      or part:find("^[1-9]%d*$") and tonumber(part)
      or part:find("^0[0-7]*$") and tonumber(part, 8)
    if not n or #parts == 4 then return nil end
    parts[#parts + 1] = n
  end
  -- The last part fills what the others leave: a.b.c.d, a.b.cd, a.bcd, abcd.
  local last, bytes = parts[#parts], {}
  for i = 1, #parts - 1 do
    if parts[i] > 255 then return nil end
    bytes[i] = parts[i]
  end
  local room = 5 - #parts
  if #parts == 0 or last >= 256 ^ room then return nil end
  for i = room, 1, -1 do
    bytes[#parts - 1 + i] = last % 256
    last = last // 256
  end
  return table.concat(bytes, ".")
end

-- Is HOST (an address or name, as a refusal gives it) this host's loopback?
local function is_loopback(host)
  host = unbracket(host)
  return host == "localhost" or host == "::1" or (host or ""):find("^127%.%d+%.%d+%.%d+$") ~= nil
end

-- Is HOST an address of a private, link-local or unique-local network,
-- which lcsb's proxy reaches only where net.lan names it?
local function is_private(host)
  host = (unbracket(host) or ""):lower()
  local a, b = host:match("^(%d+)%.(%d+)%.%d+%.%d+$")
  a, b = tonumber(a), tonumber(b)
  if a then
    return a == 10 or (a == 172 and b >= 16 and b <= 31) or (a == 192 and b == 168)
      or (a == 169 and b == 254) or (a == 100 and b >= 64 and b <= 127)
  end
  return host:find("^f[cd]%x%x:") ~= nil or host:find("^fe[89ab]%x:") ~= nil
end

-- What a port in net.connect opens: the policy names ports, not hosts, so
-- the loopback's port is every host's.
local function every_host(port)
  return ("which opens TCP %d to every host, not this host's loopback alone"):format(port)
end

-- Services that run programs, or use keys, as their owner: a socket that
-- reaches one is a way out of the sandbox.
local SERVICES = { "/bus$", "dbus", "/systemd/", "libvirt", "ssh", "gpg", "gnupg", "keyring", "agent" }

-- A container engine's socket runs anything as its owner.
local ENGINES = { "docker%.sock$", "podman%.sock$", "containerd%.sock$", "crio%.sock$" }

-- Why no hint names the unix socket TARGET, met by OP. Never offered: a
-- socket grants whatever its server does, and no list of the servers that
-- run commands (tmux, screen, an editor's, kitty's, Jupyter's, an
-- engine's) is ever complete; a recorder line or a line of stderr is also
-- the command's own say. What is known of the server is said. Met by a
-- read or a write, the socket is said to be one: read = { ... } would put
-- it in the command's world as sockets does, and connect() on a path is
-- not Landlock's to judge.
local function socket_why(target, op)
  local what = (op == "connect" or op == "bind") and ""
    or "it is a unix socket, which a read or write entry would let the command connect to, as "
      .. "sockets does: "
  if matches_any(target, ENGINES) then
    return what .. "it reaches a container engine, which runs anything as its owner: a "
      .. "decision to make yourself"
  end
  if matches_any(target, SERVICES) then
    return what .. "it reaches a service that runs programs or uses keys as its owner, "
      .. "outside the sandbox: a decision to make yourself"
  end
  return what .. "a unix socket outside the sandbox grants the command whatever its "
    .. "server does (a terminal multiplexer's or an editor's runs any command sent to it); "
    .. "name it in sockets yourself only if you would let the command do all of that"
end

-- How much of a directory a hint looks at before it offers it: the names
-- directly in it, this many at most. Its size is the command's to choose
-- (it may have made it); past that, the hint is withheld.
local PEEK_MAX = 4096

-- What core.peek says of PATH (kind, names, kinds; false when nothing is
-- there; nil and why when lcsb cannot tell), asked once per explain.
local peeked = {}
local function peek(path)
  local memo = peeked[path]
  if not memo then
    memo = has_core and core.peek and table.pack(core.peek(path, PEEK_MAX))
      or table.pack(nil, "lcsb's C half is not loaded")
    peeked[path] = memo
  end
  return table.unpack(memo, 1, memo.n)
end

-- The coding agents' files (lua/lcsb/agents.lua): configuration, which an
-- agent acts on outside any sandbox at its next start, and instructions,
-- which it follows.
local has_agents, agents = pcall(require, "lcsb.agents")
if not has_agents or type(agents) ~= "table" then agents = {} end

-- The agent's file of ENTRY (agents.lua's) that DIR holds at its top, by
-- its name from DIR, or nil; HAS: the names directly in DIR.
local function agent_file(dir, has, entry)
  local name = type(entry) == "table" and (entry.path or entry.name)
  if type(name) ~= "string" or not has[name:match("^[^/]+")] then return nil end
  if not name:find("/", 1, true) then return name end
  if has_core and core.lstat(dir .. "/" .. name) then return name end
end

-- What DIR holds at its top (HAS: its names) that a write entry for it
-- would hand the command to plant, and why: another repository's .git, an
-- agent's configuration or instructions.
local function planted_in(dir, has)
  if has[".git"] then
    return "it holds a git repository, whose hooks would be the command's to plant: a "
      .. "decision to make yourself (with protect for its .git)"
  end
  for _, entry in ipairs(type(agents.config) == "table" and agents.config or {}) do
    local name = agent_file(dir, has, entry)
    if name then
      return ("it holds an agent's configuration (%s), which the agent acts on outside any "
        .. "sandbox at its next start: a decision to make yourself (with protect for it)")
        :format(name)
    end
  end
  for _, entry in ipairs(type(agents.instructions) == "table" and agents.instructions or {}) do
    local name = agent_file(dir, has, entry)
    if name then
      return ("it holds an agent's instructions (%s), which the agent follows at its next "
        .. "start: a decision to make yourself (with protect for it)"):format(name)
    end
  end
end

-- The agent's file PATH is, by its name from its project, or nil: a write
-- of another project's opencode.json or CLAUDE.md plants what its agent
-- acts on. (Dot-files are withheld as such.)
local function agent_named(path)
  for _, list in ipairs { agents.config, agents.instructions } do
    for _, entry in ipairs(type(list) == "table" and list or {}) do
      local name = type(entry) == "table" and (entry.path or entry.name)
      if type(name) == "string" and path:sub(-#name - 1) == "/" .. name then return name end
    end
  end
end

-- A .env file DIR holds at its top (NAMES: its names), by name, or nil:
-- where a project keeps its secrets, and what tools load as their
-- environment.
local function env_file(names)
  local found
  for _, name in ipairs(names) do
    if (name == ".env" or name:find("^%.env%.")) and (not found or name < found) then
      found = name
    end
  end
  return found
end

-- lcsb's own files and directories (its program, shim, recorder, Lua
-- files, caps files, trust store), worked out once per explain: those the
-- caps the run was held to name (ev.caps.own), those lcsb's C half finds
-- as lcsb finds them, and the Lua files a stock Lua loaded lcsb from.
local own_of, own_set
local function own()
  if own_set then return own_set end
  own_set = {}
  local function add(path)
    if type(path) ~= "string" or path:sub(1, 1) ~= "/" then return end
    own_set[normal(path)] = true
    local real = has_core and core.realpath(path)
    if real then own_set[real] = true end
  end
  local ev = own_of or {}
  for _, path in ipairs(list(type(ev.caps) == "table" and ev.caps.own)) do add(path) end
  local ok, files = pcall(function() return has_core and core.own_files and core.own_files() end)
  for _, path in ipairs(ok and list(files) or {}) do add(path) end
  for _, name in ipairs { "lcsb.remedies", "lcsb.caps", "lcsb.init" } do
    local file = package.searchpath(name, package.path)
    if file then add(dirname(file)) end
  end
  local core_file = package.searchpath("lcsb.core", package.cpath)
  if core_file then add(core_file) end
  return own_set
end

local OWN = "lcsb's program, shim, recorder, Lua files, caps files or trust store"

-- Why no hint may offer PATH, one of lcsb's own files or in one of its
-- directories (or, HOLDS, a directory that holds one), or nil. The
-- command lcsb confines has no business with them: one it may write runs
-- the next command unsandboxed, or loosens what lcsb holds it to.
local function own_why(path, holds)
  local set = own()
  local real = has_core and core.realpath(path)
  for _, p in ipairs { normal(path), real or nil } do
    if paths.covered(set, p) then
      return ("it is lcsb's own (%s): no hint offers lcsb's own files to the command it "
        .. "confines"):format(OWN)
    end
  end
  if not holds then return nil end
  local names = {}
  for p in pairs(set) do
    for _, at in ipairs { normal(path), real or nil } do
      if p:sub(1, #at + 1) == at .. "/" or (at == "/" and p ~= "/") then names[#names + 1] = p end
    end
  end
  table.sort(names)
  if names[1] then
    return ("it holds lcsb's own files (%s: %s): no hint offers lcsb's own files to the command "
      .. "it confines"):format(names[1], OWN)
  end
end

-- Why no hint may offer PATH for KEY ("read", "write" or "exec"; OP: the
-- call that was refused), for what it is or holds at its top, or nil: a
-- unix socket, or a directory that holds one (an entry for the directory
-- puts the socket in the command's world); to read or write, a directory
-- holding a .env file; to write, one holding another repository's .git or
-- an agent's files. One level down, PEEK_MAX names at most; what lcsb
-- cannot look at is withheld, as what it may hold.
local function held_within(path, key, op)
  local kind, names, kinds = peek(path)
  if kind == false then return nil end
  if kind == nil then
    return ("lcsb cannot look into it (%s) to tell whether it reaches a unix socket: a decision "
      .. "to make yourself"):format(names)
  end
  if kind == "socket" then return socket_why(path, op) end
  if kind ~= "dir" then return nil end
  for i, name in ipairs(names) do
    if kinds[i] == "socket" then
      return ("it holds a unix socket (%s), which an entry for the directory would let the "
        .. "command connect to: a unix socket grants the command whatever its server does (a "
        .. "terminal multiplexer's or an editor's runs any command sent to it), a decision to "
        .. "make yourself"):format(name)
    end
  end
  local mine = key ~= "read" and own_why(path, true)
  if mine then return mine end
  local env = key ~= "exec" and env_file(names)
  if env then
    return ("it holds %s, where a project keeps its secrets and which tools load into their "
      .. "environment: a decision to make yourself"):format(env)
  end
  if key == "write" then
    local has = {}
    for _, name in ipairs(names) do has[name] = true end
    return planted_in(path, has)
  end
  return nil
end

-- The group R falls in, and for a withheld one why.
local function classify(ev, r)
  if r.home then return "home" end
  if r.key == "protect" or r.key == "hide" or r.key == "net" then return r.key end
  local policy = ev.policy or {}
  if r.key == "sockets" then return "withheld", socket_why(r.target, r.op) end
  if r.key == "exec" then
    if r.target:sub(1, 1) ~= "/" then return "exec" end
    -- lcsb's own first: wherever lcsb is installed (root's home, say),
    -- that is what the hint says of them.
    local why = own_why(r.target) or withheld(r.target, true, covered(policy.write, r.target))
      or held_within(r.target, "exec", r.op)
    if why then return "withheld", why end
    return "exec"
  end
  if r.key == "read" or r.key == "write" then
    local why = own_why(r.target) or withheld(r.target) or held_within(r.target, r.key, r.op)
    if why then return "withheld", why end
    local agent = r.key == "write" and agent_named(r.target)
    if agent then
      return "withheld", ("it is an agent's file (%s), which the agent acts on outside any "
        .. "sandbox at its next start: a decision to make yourself (with protect for it)")
        :format(agent)
    end
    -- What the hint offers for a file being made is its directory.
    local entry = r.key == "write" and write_entry(r.target)
    why = entry and entry ~= r.target and held_within(entry, "write", r.op)
    if why then return "withheld", why end
    return r.key
  end
  return "other"
end

-- Files of a HOME that hold settings: the only ones a hint offers to show
-- (home = {...}), and only when nothing in them looks like a credential
-- (settings_why). Any other may hold a token.
local SETTINGS = { "~/.gitconfig", "~/.config/git/config", "~/.config/git/ignore",
  "~/.gitignore_global", "~/.cargo/config.toml", "~/.config/pip/pip.conf", "~/.editorconfig",
  "~/.inputrc", "~/.vimrc", "~/.config/nvim/init.lua", "~/.config/nvim/init.vim" }
local function settings_file(rel)
  for _, name in ipairs(SETTINGS) do
    if rel == name then return true end
  end
  return false
end

-- How much of a settings file lcsb reads to look for a credential in it;
-- a larger one is not offered.
local SETTINGS_MAX = 256 * 1024

-- Words in a setting's name that say it holds a secret: a registry's
-- token (cargo, npm's _authToken), a password (sendemail's smtpPass), a
-- client secret, an API key.
local SECRET_NAMES = { "token", "pass", "secret", "_auth", "auth_", "authorization", "apikey",
  "api_key", "api-key", "credential", "private" }
-- Access tokens by their published prefixes (GitHub, GitLab, Slack, AWS,
-- npm, PyPI), wherever they stand.
local TOKENS = { "gh[pousr]_%w%w%w%w%w%w%w%w", "github_pat_", "glpat%-", "xox[abposr]%-",
  "AKIA[%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d]",
  "npm_%w%w%w%w%w%w%w%w", "pypi%-Ag" }

-- What in TEXT (a settings file's) looks like a credential, said without
-- quoting it; nil when nothing does. Settings files hold them as a rule
-- more often than the name says: pip's index-url with user:password@,
-- cargo's registry token, git's insteadOf URL with a token, a credential
-- helper that stores passwords. Each look is bounded (the file is the
-- user's, but a line may be long): "://" found plainly, its scheme and
-- user part read from a few bytes around it.
local function credential_in(text)
  for line in text:gmatch("[^\n]+") do
    local at = 1
    while true do
      local colon = line:find("://", at, true)
      if not colon then break end
      local scheme = line:sub(math.max(1, colon - 32), colon - 1):match("(%a[%w+%.%-]*)$") or ""
      local user = line:sub(colon + 3, colon + 515):match("^([^%s/@\"'<>]*)@")
      if user and (user:find(":", 1, true) or scheme:lower():find("^https?$")) then
        return "a URL with a password or a token before its host"
      end
      at = colon + 3
    end
    local lower = line:lower()
    local sign = lower:find("[=:]")
    local name = sign and lower:sub(1, sign - 1)
    local value = sign and lower:sub(sign + 1):match("^%s*(.*)")
    if name and name:find("helper", 1, true)
      and (value:find("store", 1, true) or value:find("^[\"']?!")) then
      return "a credential helper that stores or prints passwords"
    end
    for _, word in ipairs(name and SECRET_NAMES or {}) do
      if name:find(word, 1, true) then
        return "a setting whose name says it holds a token, a password or a secret"
      end
    end
    if lower:find("authorization:", 1, true) or lower:find("bearer ", 1, true) then
      return "an authorization header"
    end
    if matches_any(line, TOKENS) then return "what looks like an access token" end
  end
end

-- Why your real settings file REL ("~/x") may not be offered to home, or
-- nil: what in it looks like a credential, or that lcsb could not read it
-- to tell. Showing a file shows all of it.
local function settings_why(rel)
  local real = (os.getenv("HOME") or "") .. rel:sub(2)
  local text, err
  if has_core then
    text, err = core.read_regular(core.realpath(real) or real, SETTINGS_MAX)
  else
    err = "lcsb's C half is not loaded"
  end
  if not text then
    return ("lcsb cannot read your real one (%s) to tell whether it holds a credential, and "
      .. "showing it (home) shows all of it: a decision to make yourself"):format(err)
  end
  local found = credential_in(text)
  if found then
    return ("your real one holds %s, and showing it (home) shows all of it: a decision to make "
      .. "yourself"):format(found)
  end
end

-- The lines for GROUP (refusals of one kind, in one place).
local function render(ev, group)
  local rs, kind = group.items, group.kind
  local r = rs[1]
  local policy = ev.policy or {}
  local ro = false
  for _, x in ipairs(rs) do ro = ro or x.ro end
  if kind == "exec" then
    local targets, names, bare = {}, {}, {}
    for _, x in ipairs(rs) do
      if x.target:sub(1, 1) ~= "/" then
        bare[#bare + 1] = x
      elseif not targets[x.target] then
        targets[x.target] = true
        targets[#targets + 1] = x.target
        names[#names + 1] = shown(basename(x.target))
      end
    end
    local out = {}
    if #targets == 1 then
      local one = { op = "exec", target = targets[1], program = r.program }
      out[1] = ("refused: %s: add exec = %s"):format(refusal_text(ev, one), lua_list(targets))
    elseif #targets > 1 then
      -- A line a terminal can show: the first few, and how many more.
      local SHOWN_PROGRAMS, more, total = 8, "", #targets
      if total > SHOWN_PROGRAMS then
        more = (" (and %d more: the attestation lists them)"):format(#targets - SHOWN_PROGRAMS)
        targets = table.move(targets, 1, SHOWN_PROGRAMS, 1, {})
        names = table.move(names, 1, SHOWN_PROGRAMS, 1, {})
        names[#names + 1] = "..."
      end
      out[1] = ("refused: exec of %d programs (%s): add exec = %s%s"):format(total,
        table.concat(names, ", "), lua_list(targets), more)
    end
    local preset = preset_for(targets)
    if preset then
      out[#out] = out[#out] .. (", or exec = { lcsb.tools.%s } for them and the rest of that "
        .. "preset at once"):format(preset)
    end
    for _, x in ipairs(bare) do
      if x.target:find("/") then -- relative: exec takes it as the project's
        out[#out + 1] = ("refused: %s: add exec = %s"):format(refusal_text(ev, x),
          lua_list { x.target })
      else
        out[#out + 1] = ("refused: %s: it is not on PATH here; name it in exec = { ... } by its "
          .. "path"):format(refusal_text(ev, x))
      end
    end
    return out
  elseif kind == "read" or kind == "write" then
    local dir = dirname(r.target)
    if #rs == 1 then
      local entry, first = r.target, false
      if kind == "write" then entry, first = write_entry(r.target) end
      -- A directory looked at is often one about to be written in (cp
      -- FILE DIR/ checks DIR first): read alone would fail next time.
      local into = kind == "read" and has_core and core.kind(r.target) == "dir"
        and not held_within(r.target, "write")
        and (" (or write = %s, if the command writes in it)"):format(lua_list { entry }) or ""
      return { ("refused: %s: add %s = %s%s%s"):format(refusal_text(ev, r), kind,
        lua_list { entry }, into, notes(first and CREATE_FIRST, ro and RO_NOTE)) }
    elseif not too_wide(dir) and not held_within(dir, kind) then
      return { ("refused: %s under %s (%d files): add %s = %s%s"):format(kind, shown(dir), #rs,
        kind, lua_list { dir }, notes(ro and RO_NOTE)) }
    end
    local entries, first = {}, false
    for _, x in ipairs(rs) do
      local entry, make = x.target, false
      if kind == "write" then entry, make = write_entry(x.target) end
      entries[#entries + 1] = entry
      first = first or make
    end
    return { ("refused: %s of %d files in %s: add %s = %s%s"):format(kind, #rs, shown(dir),
      kind, lua_list(entries), notes(first and CREATE_FIRST, ro and RO_NOTE)) }
  elseif kind == "withheld" then
    if #rs == 1 then
      return { ("refused: %s: no hint: %s"):format(refusal_text(ev, r), group.why) }
    end
    return { ("refused: %s %d files under %s: no hint: %s"):format(VERB[r.op] or shown(r.op), #rs,
      shown(dirname(r.target)), group.why) }
  elseif kind == "protect" then
    -- git's settings for one run need no write to .git/config.
    local git = r.target:find("/%.git/config$")
      and "; give git its settings with git -c, or with GIT_AUTHOR_NAME and the like in env, "
        .. "which write nothing, or run git config outside lcsb" or ""
    local name = default_holding(ev, r.target)
    local lift = name and ('protect = { %s } lets that default go, protect = false all '
      .. "protection"):format(lua_string("!" .. name)) or "protect = false turns all protection off"
    -- A placeholder lcsb made for the run (an agent's directory, the .git
    -- of a project that is none): the command met what lcsb put there, not
    -- a file of the user's (git clean -d trying to remove it, say).
    local held = type(ev.policy) == "table" and type(ev.policy.held) == "table"
      and ev.policy.held or {}
    local placeholder
    for path in pairs(held) do
      if type(path) == "string" and (r.target == path or r.target:sub(1, #path + 1) == path .. "/")
      then
        placeholder = path
      end
    end
    -- A directory above a protected or hidden path: held in place (a
    -- mount of its own), so that it cannot be moved away and made again
    -- around a path nobody holds. Letting protection go is no remedy for
    -- a move; moving what is in it is.
    local pinned = r.busy and not placeholder and held_below(ev, r.target)
    if pinned and pinned.itself then
      return { ("refused: %s: it is hidden by the policy (hide): an empty read-only mount stands "
        .. "in its place for the run (\"Device or resource busy\"), so that the command can "
        .. "neither read it nor move it away"):format(refusal_text(ev, r)) }
    elseif pinned then
      return { ("refused: %s: it holds %s, which the policy %s, and a directory above a "
        .. "protected or hidden path stays where it is for the run (\"Device or resource busy\": "
        .. "it is a mount point), so that it cannot be moved away and made again around a path "
        .. "nobody holds; move or remove what is in it instead"):format(refusal_text(ev, r),
        shown(pinned.path), pinned.hidden and "hides" or "protects") }
    end
    if placeholder then
      local what = placeholder:find("/%.git$") and "a repository with hooks of its own there"
        or "an agent's configuration there, which the agent would act on outside any sandbox"
      return { ("refused: %s: lcsb holds %s empty and read-only for the run, as it was not "
        .. "there, so that the command cannot make %s%s; %s"):format(refusal_text(ev, r),
        shown(placeholder), what,
        r.busy and ' ("Device or resource busy": it is a mount point for the run)' or "", lift) }
    end
    return { ("refused: %s: it is protected (protect): read-only whatever the policy grants, "
      .. "so nothing planted there (a git hook, an agent's configuration) runs outside the "
      .. "sandbox later%s%s; %s"):format(refusal_text(ev, r),
        r.busy and ' ("Device or resource busy": a read-only mount holds it)' or "", git, lift) }
  elseif kind == "hide" then
    return { ("refused: %s: it is hidden by the policy (hide, or one of /etc's secrets): it does "
      .. "not exist for the command"):format(refusal_text(ev, r)) }
  elseif kind == "net" then
    local att = ev.attestation or {}
    local port = tonumber(r.target:match(":(%d+)$"))
    local text = refusal_text(ev, r)
    if r.op == "socket" then
      if r.target:find("^inet") and where_named(ev, r.program) then return {} end
      if att.net == "ports" then
        return { ("refused: %s: net = { connect = { PORT } } allows TCP alone; net = true "
          .. "allows every kind of socket"):format(text) }
      end
      return { ("refused: %s: the policy allows no network; net = true allows all of it, "
        .. "net = { domains = { \"HOST\" } } names hosts to reach through lcsb's proxy")
        :format(text) }
    end
    -- A name the command looked up (the recorder's getaddrinfo): port 0 when
    -- it did not say one.
    local host = r.target:match("^(.-):%d+$")
    -- Only a host name's own bytes: a "*.com" or a list the command made
    -- up is no domain to offer.
    local name = host and host:find("%a") and host:find("^[%w][%w%.%-]*$")
      and not address(host) and host
    if name and port == 0 then text = text:gsub(":0 %(", " (", 1):gsub(":0$", "") end
    local net = type(policy.net) == "table" and policy.net or {}
    if name and r.op == "connect" and list(net.domains)[1] ~= nil then
      for _, listed in ipairs(list(net.domains)) do
        if listed == name or listed == name .. ":" .. tostring(port) then
          return { ("not through the proxy: %s: %s is in net.domains, but the program looked "
            .. "it up itself instead of going through lcsb's proxy, which HTTPS_PROXY, HTTP_PROXY "
            .. "and ALL_PROXY name: tell the tool to use them (Node's built-in fetch does not: "
            .. "NODE_USE_ENV_PROXY=1 on Node 24, or undici's EnvHttpProxyAgent)"):format(text,
              shown(name)) }
        end
      end
    end
    if name and r.op == "connect" then
      return { ("refused: %s: to reach a host by name, add net = { domains = %s } (through "
        .. "lcsb's proxy)"):format(text, lua_list { name }) }
    elseif att.net == "domains" and r.op == "connect" then
      return { ("refused: %s: under net.domains the command reaches hosts by name, through "
        .. "lcsb's proxy: add the host's name to net = { domains = { ... } }"):format(text) }
    elseif port and port > 0 and r.op == "connect" and address(host)
      and not is_loopback(address(host)) then
      -- Another host: a port alone would open that port to every host.
      local plain = address(host)
      local lan = is_private(plain) and (", lan = %s"):format(lua_list { unbracket(plain) }) or ""
      return { ("refused: %s: to reach that host, add net = { domains = %s%s } (through lcsb's "
        .. "proxy; its name, where you know it, is better); net = { connect = { %d } } would "
        .. "open TCP %d to every host"):format(text, lua_list { plain .. ":" .. port }, lan, port,
          port) }
    elseif port and port > 0 and r.op == "bind" then
      return { ("refused: %s: add net = { bind = { %d } }"):format(text, port) }
    elseif port and port > 0 and is_loopback(address(host)) then
      return { ("refused: %s: add net = { connect = { %d } } (%s)"):format(text, port,
        every_host(port)) }
    end
    return { ("refused: %s: the policy's net key governs it"):format(text) }
  elseif kind == "home" then
    local rel = private_home(ev, r.target, true) or r.target
    local home_list = policy.home or (ev.attestation or {}).home
    local cache_list = policy.cache or (ev.attestation or {}).cache
    local entry = shown_in(home_list, rel)
    local text = refusal_text(ev, r)
    if entry then
      return { ("refused: %s: it is your real %s, which home = { ... } shows read-only: the "
        .. "command cannot change it"):format(text, shown(entry)) }
    elseif shown_in(cache_list, rel) then
      return {} -- a cache is the project's own and writable: nothing of lcsb's
    elseif r.op == "exec" then
      return { ("refused: %s: it lies in the run's private HOME, a fresh directory removed "
        .. "after the run, not your HOME: nothing there can be named in exec"):format(text) }
    elseif r.absent then
      local cap = capped(rel, { "deny" })
      if cap then
        return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
          .. "there; no hint: the caps keep %s from every policy"):format(text, shown(cap)) }
      end
      -- Your real one: a probe for what you do not have is no refusal.
      local real = (os.getenv("HOME") or "") .. rel:sub(2)
      if rel:sub(1, 2) ~= "~/" or not exists(real) then return {} end
      if not settings_file(rel) then
        return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
          .. "there; no hint: your real one may hold keys or tokens, and showing it (home) is a "
          .. "decision to make yourself"):format(text) }
      end
      local why = settings_why(rel)
      if why then
        return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
          .. "there; no hint: %s"):format(text, why) }
      end
      return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
        .. "there; to show the command your real one, read-only, add home = %s (the whole file "
        .. "becomes readable to the command: lcsb saw no credential in it, but read it before "
        .. "you add it)"):format(text, lua_list { rel }) }
    end
    local top = rel:match("^(~/[^/]+)") or rel
    local keep = capped(top, { "deny", "deny_write" }) and ""
      or ("; cache = %s keeps %s between runs"):format(lua_list { top }, shown(top))
    return { ("refused: %s: it lies in the run's private HOME, a fresh directory removed after "
      .. "the run, not your HOME%s"):format(text, keep) }
  end
  return { ("refused: %s"):format(refusal_text(ev, r)) }
end

-- The lines for REFUSALS, grouped (every exec in one line, reads and writes
-- by directory, withheld ones by directory and why), in the order their
-- first refusal came.
local function describe(ev, refusals)
  local groups, by = {}, {}
  for _, r in ipairs(refusals) do
    -- The world shows a little of /proc and /sys on purpose, and programs
    -- probe the rest and cope (node reads the cgroup's memory limit): a
    -- read of what is not there is left to the attestation.
    local probe = r.op == "read" and r.absent and (r.target:find("^/sys/") or r.target:find("^/proc/"))
    local kind, why = classify(ev, r)
    local key
    if kind == "exec" then
      key = "exec"
    elseif kind == "read" or kind == "write" then
      key = kind .. "\0" .. dirname(r.target)
    elseif kind == "withheld" then
      key = table.concat({ kind, r.op, dirname(r.target), why }, "\0")
    else
      key = table.concat({ kind, r.op, r.target }, "\0")
    end
    local group = by[key]
    if not group and not probe then
      group = { kind = kind, why = why, items = {} }
      by[key] = group
      groups[#groups + 1] = group
    end
    if group then group.items[#group.items + 1] = r end
  end
  local lines = {}
  for _, group in ipairs(groups) do
    for _, line in ipairs(render(ev, group)) do lines[#lines + 1] = line end
  end
  return lines
end

-- At most SHOWN lines of LINES, and one saying how many more.
local SHOWN = 10
local function capped_lines(lines, more)
  if #lines <= SHOWN then return lines end
  local out = table.move(lines, 1, SHOWN - 1, 1, {})
  out[SHOWN] = more:format(#lines - (SHOWN - 1))
  return out
end

-- ---- the evidence: what the recorder saw ----

-- The attestation's refusals, each as a table of strings, what a host or
-- a saved file holds that is not one passed over.
local recorded_in = setmetatable({}, { __mode = "k" })
local function recorded(ev)
  local att = type(ev.attestation) == "table" and ev.attestation or {}
  local memo = recorded_in[att]
  if memo and memo.refused == att.refused then return memo.out end
  local out = {}
  recorded_in[att] = { refused = att.refused, out = out }
  for _, r in ipairs(list(att.refused)) do
    if type(r) == "table" and type(r.op) == "string" and type(r.key) == "string"
      and type(r.target) == "string" and r.target ~= "" then
      out[#out + 1] = { op = r.op, key = r.key, target = r.target,
        program = type(r.program) == "string" and r.program ~= "" and r.program or nil,
        home = r.home == true, ro = r.errno == 30 or r.error == "EROFS",
        busy = r.errno == 16 or r.error == "EBUSY",
        absent = r.errno == 2 or r.error == "ENOENT" }
    end
  end
  return out
end

where_named = function(ev, program)
  for _, r in ipairs(recorded(ev)) do
    if r.key == "net" and r.op ~= "socket" and r.program == program then return true end
  end
  local stderr = type(ev.stderr) == "string" and ev.stderr or ""
  return stderr:find("[Pp]ort %d+") ~= nil or stderr:find("https?://") ~= nil
    or stderr:find("%d+%.%d+%.%d+%.%d+:%d+") ~= nil
end

-- What the evidence names already, for the stderr heuristics to pass over:
-- paths (as the recorder normalized them), programs by name, and whether it
-- names the network.
local function named(ev)
  local out = { paths = {}, programs = {}, net = false }
  for _, r in ipairs(recorded(ev)) do
    if r.target:sub(1, 1) == "/" then out.paths[r.target] = true end
    if r.op == "exec" then out.programs[basename(r.target)] = true end
    -- A socket's kind names no host: the stderr may.
    if r.key == "sockets" or (r.key == "net" and r.op ~= "socket") then out.net = true end
  end
  return out
end

-- ---- the stderr tail: what the command's programs said ----

-- Lines of the tail that report a refusal by the kernel.
local REFUSED = { "[Pp]ermission denied", "[Oo]peration not permitted", "[Rr]ead%-only file system",
  "[Dd]evice or resource busy", "EACCES", "EPERM", "EROFS", "EBUSY" }
-- What a tool prints after the path it names.
local MESSAGES = { "[Pp]ermission denied", "[Oo]peration not permitted",
  "[Rr]ead%-only file system", "[Dd]evice or resource busy" }

-- In a world of its own, a path outside the policy does not exist for the
-- command: "No such file or directory" about a path the host has (or whose
-- directory it has, for a file being created) is a refusal too.
local ABSENT = { "[Nn]o such file or directory", "[Dd]irectory nonexistent", "ENOENT" }
local CREATING = { "[Cc]annot create", "[Cc]annot touch", "[Dd]irectory nonexistent",
  "[Cc]annot open .* for writing", "O_CREAT" }

-- Words of a line (its path taken out) that say the refused call wrote.
local WRITING = { "cannot create", "cannot touch", "cannot remove", "cannot make", "mkdir",
  "[Rr]ead%-only", "cannot open .* for writing", "[Ww]rite", "unlink", "rename", "cannot move",
  "cannot copy", "O_WRONLY", "O_CREAT", "changing permissions", "changing ownership" }

-- A Python traceback's source lines that write.
local PY_WRITING = { "open%(.-,%s*[\"'][wax]", "mode%s*=%s*[\"'][wax]", "%.write_", "makedirs",
  "mkdir", "shutil%.", "os%.rename", "os%.replace", "os%.remove", "unlink", "symlink",
  "os%.chmod", "copyfile" }

-- Phrases before the path a tool could not write, and those before a
-- program it could not run; each a Lua pattern, the longest first.
local WRITE_PHRASES = { "cannot create regular file", "cannot create directory",
  "cannot create symbolic link", "cannot create special file", "cannot create fifo",
  "failed to create symbolic link", "failed to create hard link", "cannot create", "cannot touch",
  "cannot open output file", "cannot remove", "cannot overwrite", "cannot move .- to",
  "cannot rename", "could not lock config file", "could not commit config file",
  "could not write config file", "[Uu]nable to create", "couldn't open temporary file",
  "couldn't edit", "changing permissions of", "changing ownership of" }
local EXEC_PHRASES = { "cannot execute", "cannot exec", "cannot run", "failed to run command" }

-- Programs that run the program their operand names: "make: id: Permission
-- denied" is id refused execution, not a file refused reading.
local SHELLS = { sh = true, bash = true, dash = true, zsh = true, ksh = true, ash = true,
  mksh = true, busybox = true }
local LAUNCHERS = { make = true, gmake = true, xargs = true, env = true, nice = true, nohup = true,
  timeout = true, stdbuf = true, setsid = true, flock = true, taskset = true, chrt = true,
  ionice = true }

-- The leading word of a line that names the program saying it: "cat: ...",
-- "/usr/bin/ld: ...", "make[1]: ...", as that program's name.
local NOT_PROGRAMS = { error = true, fatal = true, warning = true, hint = true, note = true }
local function reporter(line)
  local first = line:match("^([^%s:]+):")
  if not first then return end
  local name = basename((first:gsub("%[%d+%]$", "")))
  if name == "" or name:find("Error$") or NOT_PROGRAMS[name:lower()]
    or not name:find("^[%w_][%w_%.%+%-]*$") then
    return
  end
  return name
end

local function leading_quoted(text)
  return text:match("^'([^']*)'") or text:match('^"([^"]*)"') or text:match("^`([^']*)'")
    or text:match("^\226\128\152(.-)\226\128\153")
end

local function unquote(text)
  text = text:match("^%s*(.-)%s*$")
  return text:match("^'(.*)'$") or text:match('^"(.*)"$') or text:match("^`(.*)'$")
    or text:match("^\226\128\152(.*)\226\128\153$") or text
end

-- The operand after PHRASE on LINE: quoted, or up to the message.
local function operand(line, phrase)
  local rest = line:match(phrase .. "%s+(.*)$")
  if not rest then return end
  local quoted = leading_quoted(rest)
  if quoted then return quoted end
  return rest:match("^(.-): [^:]*$") or rest:match("^(%S+)")
end

-- The operand before the message ("cat: out/x: Permission denied"): a
-- path only when it holds a slash, the last word of a phrase only then too.
local function before_message(line, messages)
  for _, message in ipairs(messages) do
    local head = line:match("^(.*): " .. message)
    if head then
      local quoted = head:match("'([^']+)'$") or head:match('"([^"]+)"$')
        or head:match("\226\128\152(.-)\226\128\153$")
      if quoted then return quoted end
      local last = (head:match("^.*:(.*)$") or head):match("^%s*(.-)%s*$")
      if not last:find("%s") and last:find("/") then return last end
      local word = last:match("^.*%s(%S+)$")
      if word and word:find("/") then return unquote(word) end
    end
  end
end

-- The Python traceback LINES[I] ends, as one text (at most 60 lines back).
local function traceback(lines, i)
  local from = math.max(1, i - 60)
  for k = i, from, -1 do
    if lines[k]:find("^Traceback") then
      from = k
      break
    end
  end
  return table.concat(lines, "\n", from, i)
end

-- The refusal LINES[I] reports, as { op, name (the path or program as the
-- line gives it), program, ro, busy, absent }, or nil.
local function read_line(lines, i)
  local line = lines[i]
  local program = reporter(line)
  local r = { program = program, ro = line:find("[Rr]ead%-only file system") ~= nil
    or line:find("EROFS") ~= nil, busy = line:find("[Dd]evice or resource busy") ~= nil
    or line:find("EBUSY") ~= nil }
  -- Node's child_process; collect2 looking for the linker it may not run.
  local spawned, code = line:match("spawn%a* (%S+) (E%u+)")
  if spawned and (code == "EACCES" or code == "EPERM") then
    r.op, r.name = "exec", spawned
    return r
  end
  local linker = line:match("^collect2: fatal error: cannot find '([^']+)'")
  if linker then
    r.op, r.name = "exec", linker
    return r
  end
  local refused = matches_any(line, REFUSED)
  r.absent = not refused and matches_any(line, ABSENT)
  if not refused and not r.absent then return end
  local messages = MESSAGES
  if r.absent then messages = ABSENT end
  -- Every phrase holds one of these words: most lines hold none.
  local phrased = line:find("annot") or line:find("ould") or line:find("nable")
    or line:find("failed") or line:find("changing")
  for _, phrase in ipairs(phrased and EXEC_PHRASES or {}) do
    local name = operand(line, phrase)
    if name and refused then
      r.op, r.name = "exec", name
      return r
    end
  end
  -- mv's "cannot move 'A' to 'B': Device or resource busy": A is what is
  -- held in place (a mount point), not where it was going.
  local moved = r.busy and (line:match("cannot move '([^']+)' to")
    or line:match('cannot move "([^"]+)" to') or line:match("cannot move \226\128\152(.-)\226\128\153 to"))
  if moved then
    r.op, r.name = "write", moved
    return r
  end
  for _, phrase in ipairs(phrased and WRITE_PHRASES or {}) do
    local name = operand(line, phrase)
    if name then
      r.op, r.name = "write", name
      return r
    end
  end
  -- make, xargs, env: the operand is the program they could not run.
  local launched = program and LAUNCHERS[program]
    and line:match("^[^:]+: (.-): [Pp]ermission denied")
  if launched then
    r.op, r.name = "exec", unquote(launched)
    return r
  end
  -- dash: "sh: 1: NAME: Permission denied" is NAME refused execution (a
  -- redirect says "cannot create"); bash: "SCRIPT: line 3: NAME: ..." and
  -- "bash: NAME: ...", a redirect too when NAME is a path.
  local dash = line:match("^[^:]+: %d+: (%S-): [Pp]ermission denied")
  if dash then
    r.op, r.name = "exec", dash
    return r
  end
  local bash = line:match("^[^:]+: line %d+: (%S-): ")
    or (SHELLS[program] and line:match("^[^:]+: (%S-): "))
  if bash then
    r.name = bash
    if r.ro or r.busy then
      r.op = "write"
    elseif line:find("[Pp]ermission denied") then
      r.op = bash:find("/") and "exec?" or "exec"
    end
    return r
  end
  -- Python: "PermissionError: [Errno 13] Permission denied: '/x'", from
  -- subprocess an exec; Node: "EACCES: permission denied, open '/x'".
  local py = line:match("%[Errno %d+%] [^:]+: '(.-)'") or line:match('%[Errno %d+%] [^:]+: "(.-)"')
  if py then
    local context = traceback(lines, i)
    r.name, r.unsure = py, true
    if context:find("subprocess%.py") or context:find("_execute_child") then
      r.op = "exec"
    elseif matches_any(context, PY_WRITING) then
      r.op = "write"
    end
    return r
  end
  local call, node = line:match("E%u+: [^,]+, (%l+) '(.-)'")
  if node then
    r.name, r.unsure = node, true
    if call ~= "open" and call ~= "access" and call ~= "stat" and call ~= "lstat"
      and call ~= "scandir" and call ~= "opendir" and call ~= "readlink" then
      r.op = "write"
    end
    return r
  end
  r.name = before_message(line, messages)
  if r.name then return r end
  -- Last: an absolute path past the program's own name.
  local rest = line:gsub("^[^%s:]+: ", "", 1)
  r.name = rest:match("'(/[^']*)'") or rest:match('"(/[^"]*)"') or rest:match("(/[^%s:'\"]+)")
  if r.name and r.name ~= "/" then return r end
end

local LINE_MAX = 1024

-- What from_stderr found for an evidence table, for the three heuristics
-- that read it; explain starts afresh, so a host that changes the evidence
-- between two calls is read again.
local found_in = setmetatable({}, { __mode = "k" })

-- Every distinct refusal the stderr tail reports that the evidence does not
-- name, judged against the policy: a list in the form of the recorder's,
-- plus make's Error 127 (no name) as MAKE127. Only for a run that failed.
local function from_stderr(ev)
  local memo = found_in[ev]
  if memo and memo.stderr == ev.stderr and memo.status == ev.status and memo.policy == ev.policy
    and memo.attestation == ev.attestation then
    return memo.out
  end
  local out = { make127 = false }
  found_in[ev] = { stderr = ev.stderr, status = ev.status, policy = ev.policy,
    attestation = ev.attestation, out = out }
  if ev.status == 0 or type(ev.stderr) ~= "string" then return out end
  local att = ev.attestation or {}
  local policy = ev.policy or {}
  local own_world = att.world == "own"
  local known = named(ev)
  local seen = {}
  -- A tool's refusal is a short line, or ends a long one (what the
  -- command wrote before it without a newline): its last LINE_MAX bytes.
  local lines, cut = {}, {}
  for line in ev.stderr:gmatch("[^\n]+") do
    lines[#lines + 1] = #line > LINE_MAX and line:sub(-LINE_MAX) or line
    cut[#lines] = #line > LINE_MAX
  end
  for i, line in ipairs(lines) do
    if line:find("^g?make[%[%d%]]*: %*%*%* .*Error 127") then out.make127 = true end
    local r = read_line(lines, i)
    if r and cut[i] then r.program = nil end -- its first word is not the tool's
    local name = r and r.name
    if name and name ~= "" and name ~= "/" then
      local path = (name:find("/") or r.op ~= "exec") and absolute(ev, name)
      local op = r.op
      if op == "exec?" then
        -- bash says the same of a program it could not run and a redirect
        -- it could not open: where the command may write, or among the
        -- programs, it was the run.
        op = path and (covered(policy.write, path) or matches_any(path, PROGRAMS)) and "exec"
          or "write"
      end
      local rel = path and private_home(ev, path)
      local rec
      local recs = {}
      if op == "exec" then
        -- A bare name is the file the command's PATH finds (or gcc's, git's own).
        local files = path and { path } or program_path(ev, name) or { name }
        if not (known.programs[basename(name)] or (path and known.paths[path])) then
          for _, file in ipairs(files) do
            recs[#recs + 1] = { op = "exec", key = "exec", target = file }
          end
        end
      elseif path and not known.paths[path] then
        local held = r.ro or r.busy
        if rel then
          rec = { op = op or "read", key = op or "read", target = path, home = true }
        elseif r.absent and not own_world then
          rec = nil
        else
          if not op then
            local text = line:gsub((name:gsub("%p", "%%%0")), "", 1)
            if held or matches_any(text, WRITING) then
              op = "write"
            elseif r.absent then
              op = matches_any(line, CREATING) and "write" or "read"
            elseif r.unsure and has_core and not exists(path) and exists(dirname(path)) then
              -- Python's and Node's open() say the same of a read and a
              -- write: refused where no file is, one was to be made.
              op = "write"
            else
              op = "read"
            end
          end
          -- What is absent in a world of its own is refused only when the
          -- host has it (or, being made, its directory).
          if r.absent and not (exists(path) or (op == "write" and exists(dirname(path)))) then
            op = nil
          end
          if op == "write" then
            -- Held read-only inside the write tier: protected, unless a
            -- symlink on the way leads out of the tier.
            local real = held and covered(policy.write, path) and not covered(policy.protect, path)
              and has_core and core.realpath(dirname(path))
            if real and not covered(policy.write, real) then
              rec = { op = "write", key = "write", target = real .. "/" .. basename(path) }
            elseif covered(policy.protect, path) or (held and covered(policy.write, path)) then
              rec = { op = "write", key = "protect", target = path }
            elseif not covered(policy.write, path) then
              rec = { op = "write", key = "write", target = path }
            end
          elseif op == "read" and not covered(policy.read, path)
            and not covered(policy.write, path) then
            rec = { op = "read", key = "read", target = path }
          end
        end
      end
      recs[#recs + 1] = rec
      for _, each in ipairs(recs) do
        each.program, each.ro, each.busy, each.absent = r.program, r.ro, r.busy, r.absent
        local id = each.op .. "\0" .. each.target
        if not seen[id] then
          seen[id] = true
          out[#out + 1] = each
        end
      end
    end
  end
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

M.add("net_refused", function(ev)
  local refused = ev.attestation and ev.attestation.net_refused
  if not refused or #refused == 0 then return end
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

-- The hints, each line of each escaped for a terminal: a hint may quote
-- the command's stderr or a path it named, control bytes and all.
function M.explain(evidence)
  caps = type(evidence.caps) == "table" and evidence.caps or shipped
  cap_sets = {}
  found_in = setmetatable({}, { __mode = "k" })
  peeked = {}
  own_of, own_set = evidence, nil
  recorded_in = setmetatable({}, { __mode = "k" })
  worded = setmetatable({}, { __mode = "k" })
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
