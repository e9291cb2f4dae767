-- Refusals grouped: each put in its kind (a program, a read or a write, one
-- no hint may offer and why, a protected, hidden or private-HOME path, the
-- network) and its place, every group worded by the function for its kind.
-- Apart from the wording (refusal_lines.lua, net_refusals.lua): which kind
-- a refusal is decides what may be offered at all.

local lines = require "lcsb.refusal_lines"
local net_refusals = require "lcsb.net_refusals"
local paths = require "lcsb.paths"
local withholding = require "lcsb.withheld"

local M = {}

local dirname = paths.dirname
local write_entry = lines.write_entry
local withheld, own_why = withholding.withheld, withholding.own_why
local held_within, socket_why = withholding.held_within, withholding.socket_why
local agent_named = withholding.agent_named

-- Is PATH one of ENTRIES or beneath one?
local function covered(entries, path)
  return paths.covered(paths.set(entries), path)
end

-- The group R falls in, and for a withheld one why.
local function classify(ev, r)
  if r.home then return "home" end
  if r.key == "protect" or r.key == "hide" or r.key == "net" or r.key == "owner" then
    return r.key
  end
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
    local why = own_why(r.target) or withholding.goes_without(r.target) or withheld(r.target)
      or held_within(r.target, r.key, r.op)
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

-- The lines of each kind of group, by the kind classify gives it.
local LINES = {
  exec = lines.exec,
  read = lines.files,
  write = lines.files,
  withheld = lines.withheld,
  protect = lines.protect,
  hide = lines.hide,
  net = net_refusals.lines,
  home = lines.home,
  owner = lines.owner,
}

-- The lines for GROUP (refusals of one kind, in one place).
local function render(ev, group)
  return (LINES[group.kind] or lines.other)(ev, group)
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
    elseif kind == "owner" then
      key = kind .. "\0" .. r.op
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

M.describe = describe
-- Which kind R is, and for a withheld one why: what lcsb learn may add.
M.classify = classify

return M
