-- The evidence a hint is drawn from, as lcsb reads it: the refusals the
-- recorder kept in the attestation, and what the policy says of the run's
-- world (its working directory, its private HOME, the PATH its programs are
-- found on). Apart from the wording, so that the stderr's reader and the
-- hints read the evidence one way.

local paths = require "lcsb.paths"
local hint_text = require "lcsb.hint_text"

local M = {}

local basename, normal = paths.basename, paths.normal
local list = hint_text.list

-- The C half tells what kind of file a path is; without it, no program is
-- found along PATH.
local has_core, core = pcall(require, "lcsb.core")

-- ---- the run's world: its working directory and private HOME ----

-- PATH as the command meant it: a relative one is the run's working
-- directory's (ev.policy.cwd); nil when that is not known.
local function absolute(ev, path)
  if path:sub(1, 1) == "/" then return normal(path) end
  local cwd = ev.policy and ev.policy.cwd
  if type(cwd) == "string" and cwd:sub(1, 1) == "/" then return normal(cwd .. "/" .. path) end
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

-- ---- what the recorder saw ----

-- A refusal: { op = "exec"|"read"|"write"|"connect"|"bind"|"socket",
-- key = the policy key that accounts for it (lcsb.h's lcsb_refusal), target
-- (an absolute path, "ADDR:PORT", a socket's kind, or for an exec a bare
-- name the stderr named), program (who was refused, or nil), home (the
-- target lies in the private HOME), absent (ENOENT: not there at all), ro
-- (the command was told "Read-only file system"), busy (EBUSY) }.

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

-- Does the evidence name where PROGRAM's connection was for (a connect's
-- address, a name looked up), or the stderr a port or an address? Then a
-- refused socket's kind says nothing more (curl's IPv6 probe, a socket made
-- before its connect).
local function where_named(ev, program)
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

-- Explain starts afresh: a host that changes the attestation between two
-- calls has it read again.
function M.begin()
  recorded_in = setmetatable({}, { __mode = "k" })
end

M.absolute = absolute
M.private_home = private_home
M.shown_in = shown_in
M.program_path = program_path
M.recorded = recorded
M.where_named = where_named
M.named = named

return M
