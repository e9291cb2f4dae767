-- Why no hint may offer a path, whatever the stderr tail or the recorder
-- (both the command's to write) claims: the system's own trees, root's and
-- other users' homes, dot-files, what the caps deny, unix sockets and the
-- directories that hold one, a .env, another repository's .git or an
-- agent's files, and lcsb's own files. Apart from the wording: each answer
-- here is a reason, and the hints only say it.

local paths = require "lcsb.paths"
local hint_text = require "lcsb.hint_text"

local M = {}

local dirname, normal = paths.dirname, paths.normal
local matches_any, list = hint_text.matches_any, hint_text.list

-- The C half looks at the disk (a path's kind, a directory's names, real
-- paths, lcsb's own files); without it, what it would say is not known.
local has_core, core = pcall(require, "lcsb.core")

-- The caps: what no policy may grant, for the hints that would suggest a
-- file of the user's HOME. Those the run was held to, merged (the
-- administrator's and the user's with lcsb's), when the evidence brings
-- them (explain sets them); else the ones lcsb ships (data), for a saved
-- attestation.
local has_caps, shipped = pcall(require, "lcsb.caps")
if not has_caps or type(shipped) ~= "table" then shipped = {} end
local caps = shipped

-- ---- paths: the system's, root's, dot-files, other homes ----

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

-- Why a program goes without PATH, which it looks for but needs not, so
-- that no hint offers it: the JVM's performance data in /tmp (what jps and
-- jstat read), which it writes when it can and runs without when not.
local function goes_without(path)
  if path:find("^/tmp/hsperfdata_[^/]+") then
    return "it is the JVM's performance data (what jps and jstat read), which the JVM runs "
      .. "without: nothing to add"
  end
end

-- A directory too wide to grant: a system prefix (rule 3: /, /tmp, /srv,
-- /home, ...), the user's HOME, or one withheld.
local function too_wide(dir)
  return dir == "/" or dir == os.getenv("HOME") or (has_core and core.system_prefix(dir) ~= nil)
    or withheld(dir) ~= nil
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

-- ---- unix sockets, and what a directory holds ----

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

-- ---- lcsb's own files ----

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

local OWN = "the program lcsb runs in (lcsb, or the host that embeds it), its shim, recorder, "
  .. "Lua files, caps files or trust store"

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

-- ---- what a path is or holds at its top ----

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

-- Explain starts afresh: the caps the run was held to (EVIDENCE.caps, else
-- the ones lcsb ships), and the disk looked at again.
function M.begin(evidence)
  caps = type(evidence.caps) == "table" and evidence.caps or shipped
  cap_sets = {}
  peeked = {}
  own_of, own_set = evidence, nil
end

M.PROGRAMS = PROGRAMS
M.withheld = withheld
M.goes_without = goes_without
M.too_wide = too_wide
M.capped = capped
M.socket_why = socket_why
M.held_within = held_within
M.own_why = own_why
M.agent_named = agent_named

return M
