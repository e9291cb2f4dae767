-- lcsb.tiers: the paths of a policy's tiers (read, write, exec, hide,
-- protect) as exec_policy gathers them: each entry as written made absolute
-- ("~" the caller's HOME), a tier's list kept unique and in order, what is
-- left out and why, and whether resolving a path passes through where the
-- command writes. Apart from lcsb/init.lua because every phase, the home,
-- exec and protect ones in their own files too, asks these questions; they
-- would sit as well beside lcsb.paths (covered, set), which is another's.

local core = require "lcsb.core"
local paths = require "lcsb.paths"

local covered = paths.covered

-- Errors carry no position here: exec_policy re-raises them at the script's
-- line that called it.
local function fail(msg) error(msg, 0) end

-- A list that keeps its order and its entries unique: the list part holds
-- the paths (all core.policy reads), the hash part marks them, so the list
-- is its own set for `covered`.
local function add_unique(into, path)
  if into[path] then return end
  into[path] = true
  into[#into + 1] = path
end

-- "~" and "~/x" are the caller's real HOME.
local function expand(path, key)
  if type(path) ~= "string" then
    fail(("exec_policy: key '%s': entries must be strings, not %s"):format(key, type(path)))
  end
  if path == "~" or path:sub(1, 2) == "~/" then
    local home = os.getenv("HOME")
    if not home or home == "" then fail(("exec_policy: %s: HOME is not set"):format(path)) end
    return home .. path:sub(2)
  end
  return path
end

local function absolute(path, key)
  path = expand(path, key)
  local norm, err = core.normalize(path)
  if not norm then fail(("exec_policy: key '%s': %s"):format(key, err)) end
  return norm
end

-- Note in RESULT what the policy asked for and left out, for `lcsb check`.
local function leave_out(result, tier, path, why)
  table.insert(result.left_out, { tier = tier, path = path, why = why })
end

-- Paths that do not exist grant nothing; leave them out rather than let the
-- shim refuse the whole run. A path reached through a symlink is kept as
-- written, for validation to refuse by name.
local function existing(list, key, into, result)
  for _, path in ipairs(list or {}) do
    local abs = absolute(path, key)
    if core.kind(abs) then
      add_unique(into, abs)
    else
      leave_out(result, key, abs, "does not exist")
    end
  end
end

-- The system baseline is trusted, so its symlinks (/bin -> usr/bin on a
-- merged-/usr system) are resolved rather than refused.
local function resolved(list, into)
  for _, path in ipairs(list) do
    local real = core.realpath(path)
    if real and not covered(into, real) then add_unique(into, real) end
  end
end

-- Whether resolving PATH passes through SET (paths as keys): a directory on
-- the way, or a symlink read on the way, lies in it. Where the command
-- writes, it may have swapped any of them for a link to elsewhere, so what
-- such a path leads to is the command's choice. In C (lcsb.core): a
-- composition asks it of hundreds of paths, each step a question.
local passes_through = core.passes_through

-- Does the command get a world of its own here, in which hidden paths hold?
local function own_world() return core.world_capable() end

-- What DIR/.git is to git: "repository" (a directory holding something),
-- "file" (a worktree's or a submodule's, naming its directory), "none"
-- (nothing, or an empty directory, which git passes over: most likely the
-- placeholder of a run killed before it could remove it), or another kind
-- (a symlink). Where it is "none", lcsb holds an empty one for the run.
local function git_at(dir)
  local git = dir .. "/.git"
  local kind = core.kind(git)
  if kind == "dir" then return (core.listdir(git) or { "?" })[1] and "repository" or "none" end
  return kind or "none"
end

return {
  add_unique = add_unique, expand = expand, absolute = absolute, leave_out = leave_out,
  existing = existing, resolved = resolved, passes_through = passes_through,
  own_world = own_world, git_at = git_at,
}
