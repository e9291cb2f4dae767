-- lcsb.exec_tier: the exec tier, grown from the programs a policy wants:
-- each resolved to its files and interpreters, presets opened, closures
-- applied (lua/lcsb/tools.lua), and what the command could have planted
-- where it writes left out. Apart from lcsb/init.lua as the largest phase,
-- and loaded only when composing: a run on a kept plan needs none of it.

local core = require "lcsb.core"
local paths = require "lcsb.paths"
local plan = require "lcsb.plan"
local tiers = require "lcsb.tiers"
local tools = require "lcsb.tools"

-- No function of another module's is kept in a local here: this module
-- loads after the policy script has run, and what it kept would be what
-- the script had put in that module's place then, and taken back since,
-- which no plan's key sees (lcsb.plan keys the modules' tables). Each is
-- looked up in its module when called.

-- Errors carry no position here: exec_policy re-raises them at the script's
-- line that called it.
local function fail(msg) error(msg, 0) end

-- The exec tier grows from a queue of wanted programs: each is resolved to
-- its files (and interpreters), and the closures that apply to it add what
-- it runs and reads on its own (lua/lcsb/tools.lua), which is wanted in
-- turn. ACC collects it all: exec files, extra read paths, home and cache
-- entries, variables, and notes for lcsb check.
local function new_acc(project, read, write, built)
  return {
    exec = {}, read = {}, home = {}, cache = {}, env = {}, notes = {}, warnings = {},
    built = {}, project = project, seen = {}, closures = {}, passes = {}, in_tier = {},
    policy_read = read, policy_write = write, built_ok = built, project_set = { [project] = true },
  }
end

-- paths.covered(SET, PATH) for SET one of the policy's own tiers, which stay as
-- they are while composing: what a directory answers is kept, as a
-- preset's files share a few.
local function in_tier(acc, set, path)
  if set["/"] or set[path] then return true end
  local dir = core.split(path)
  if not dir then return false end
  local memo = acc.in_tier[set]
  if not memo then
    memo = {}
    acc.in_tier[set] = memo
  end
  local known = memo[dir]
  if known == nil then
    known = paths.covered(set, dir)
    memo[dir] = known
  end
  return known
end

-- Whether resolving PATH passes through where the command writes
-- (passes_through), asked once a path a composition: a preset's hundred
-- programs share a few directories, and each is asked of twice. A
-- directory that is its own real path, nothing on its way written, leaves
-- only PATH's last step to ask.
local function writes_on_way(path, acc)
  local known = acc.passes[path]
  if known ~= nil then return known end
  local dir, leaf = core.split(path)
  if dir and #dir > 1 and dir:byte(1) == 47 and leaf ~= "" and leaf ~= "." and leaf ~= ".."
    and not writes_on_way(dir, acc)
    and core.realpath(dir) == dir then
    local set = acc.policy_write
    known = set["/"] or set[path] or false
    if not known and core.lstat(path) == "link" then known = tiers.passes_through(path, set) end
  else
    known = tiers.passes_through(path, acc.policy_write)
  end
  acc.passes[path] = known
  return known
end

-- PATH's directories as lcsb's lookup takes them (absolute ones only), as
-- written: a symlink on the way is what passes_through looks for.
local function path_dirs()
  local dirs = {}
  for dir in (os.getenv("PATH") or ""):gmatch("[^:]+") do
    if dir:sub(1, 1) == "/" then dirs[#dirs + 1] = dir end
  end
  return dirs
end

-- NAME on PATH, passing over the directories where the command writes: a
-- preset's or a closure's program is the one installed, never one the
-- command put on PATH ahead of it (a symlink in an activated .venv/bin
-- named git, leading to ssh). Its path, or nil when there is none.
local function installed_on_path(name, acc)
  -- Asked once a composition: which PATH directories the command does not
  -- write, and what each holds (a set of names). With none it writes, the
  -- plain lookup is the one installed, at no cost.
  if not acc.path_clean then
    acc.path_clean, acc.path_planted = {}, false
    for _, dir in ipairs(acc.path_dirs) do
      if tiers.passes_through(dir, acc.policy_write) then
        acc.path_planted = true
      else
        acc.path_clean[#acc.path_clean + 1] = { dir = dir }
      end
    end
  end
  if not acc.path_planted then return name end
  for _, clean in ipairs(acc.path_clean) do
    if not clean.names then
      clean.names = {}
      for _, entry in ipairs(core.listdir(clean.dir) or {}) do clean.names[entry] = true end
    end
  end
  for _, clean in ipairs(acc.path_clean) do
    local path = clean.dir .. "/" .. name
    if clean.names[name] and core.which(path) then return path end
  end
  return nil
end

-- PATH's entries where the command writes, by the real file each leads to:
-- a `#!/usr/bin/env NAME` is looked up there too, and what it finds is
-- the command's choice.
local function planted_on_path(acc)
  local by_real = {}
  for _, dir in ipairs(acc.path_dirs) do
    if tiers.passes_through(dir, acc.policy_write) then
      for _, name in ipairs(core.listdir(dir) or {}) do
        local real = core.realpath(dir .. "/" .. name)
        if real and not by_real[real] then by_real[real] = dir .. "/" .. name end
      end
    end
  end
  return by_real
end

-- Whether the command could have made what resolving a program reached:
-- FILES (the program's real file, then its interpreters), found at LOCATED
-- (the path as named or found on PATH). What the command writes, it may
-- plant: a file there runs only when it was named by path (NAMED) or the
-- policy says built = true, and a symlink there must not lead to a file the
-- policy does not let the command read (an exec grant reads too). Returns
-- why it may not run, or nil.
local function writable(acc, path) return in_tier(acc, acc.policy_write, path) end

local function readable(acc, path)
  return (in_tier(acc, acc.policy_read, path) or paths.covered(acc.read, path)
      or writable(acc, path))
    and not (acc.policy_hide and in_tier(acc, acc.policy_hide, path))
end

-- built = true is the project's files, not a write path's or a cache's.
local function built(acc, path) return acc.built_ok and paths.covered(acc.project_set, path) end

local function planted(files, located, named, acc)
  -- Once the chain passed where the command writes, what comes after it
  -- (an interpreter, its interpreter) is the command's choice too.
  local chosen_by = located and writes_on_way(located, acc) and located
  for i, f in ipairs(files) do
    -- An interpreter `env NAME` finds on a PATH entry the command writes.
    chosen_by = chosen_by or (i > 1 and acc.on_path_planted[f])
    if writable(acc, f) then
      if not built(acc, f) and not (i == 1 and named) then
        return ("%s lies where the command writes, so it may be one the command made; "
          .. "name it by its path, or let the project's files run with built = true"):format(f)
      end
      chosen_by = chosen_by or f
    elseif chosen_by and not readable(acc, f) then
      return ("%s, where the command writes, leads to %s, which the policy does not let the "
        .. "command read; name %s itself if it should run"):format(chosen_by, f, f)
    end
  end
  return nil
end

local function basenames(files, from)
  local names = {}
  for i = from, #files do names[#names + 1] = select(2, core.split(files[i])) end
  return names
end

-- Short lists for a person: the first few names and a count of the rest.
local function some(names)
  if #names <= 8 then return table.concat(names, ", ") end
  return table.concat(names, ", ", 1, 8) .. (", and %d more"):format(#names - 8)
end

local want_program

-- What the closures that apply to PROG ({ name, file }), found at
-- LOCATED, need. None apply to a program where the command writes: its
-- closure would be chosen by what the command left beside it (a rustup, a
-- libexec/pyenv), and what it grants would follow.
local function apply_closures(prog, located, acc)
  if writable(acc, prog.file)
    or (located and writes_on_way(located, acc)) then
    return
  end
  acc.closures_index = acc.closures_index or tools.closures_index()
  for _, c in ipairs(tools.closures_of(prog, acc.closures_index)) do
    local key = c.entry.tool .. "\0" .. tostring(c.matched)
    if not acc.closures[key] then
      acc.closures[key] = true
      local need = c.entry.resolve and c.entry.resolve(c.matched, prog, {
        project = acc.project, getenv = plan.getenv,
      }) or c.entry
      local before = #acc.exec
      for _, entry in ipairs(need.exec or {}) do want_program(entry, acc, true, true) end
      for _, path in ipairs(need.read or {}) do
        local real = core.realpath(path)
        if real then tiers.add_unique(acc.read, real) end
      end
      for _, rel in ipairs(need.home or {}) do tiers.add_unique(acc.home, rel) end
      for _, rel in ipairs(need.cache or {}) do tiers.add_unique(acc.cache, rel) end
      for name, value in pairs(need.env or {}) do acc.env[name] = value end
      local added = basenames(acc.exec, before + 1)
      acc.notes[#acc.notes + 1] = ("closure %s (for %s): %s"):format(c.entry.tool,
        prog.name:match("[^/]*$"), #added > 0 and some(added) or "nothing more")
    end
  end
end

-- The nearest directory at or above PATH that exists, when PATH lies in
-- PROJECT: what a program not built yet is allowed by.
local function built_dir(path, project)
  if not paths.covered({ [project] = true }, path) then return nil end
  local dir = path
  repeat
    dir = dir:match("^(.*)/[^/]*$")
  until core.kind(dir) == "dir" or #dir <= #project
  return dir
end

-- What becomes of PATH, which the lookup did not find (ERR): a program not
-- built yet in the project allows what is built where it will be; an
-- OPTIONAL one is passed over (false); any other is an error.
local function not_found(path, err, optional, acc)
  local dir = not optional and path:sub(1, 1) == "/" and not core.kind(path)
    and built_dir(path, acc.project)
  if dir then
    tiers.add_unique(acc.exec, dir)
    tiers.add_unique(acc.built, dir)
    local own = path:match("^(.*)/[^/]*$")
    acc.warnings[#acc.warnings + 1] = ("exec: %s does not exist yet; allowing what is built "
      .. "in %s, as it lies in the project (anything the command writes there, it can run)%s")
      :format(path, dir, own ~= dir and ("; its own directory, %s, does not exist either, so "
        .. "this is wider: make it before the run to allow only it"):format(own) or "")
    return true
  end
  if optional then return false end
  if path:sub(1, 1) == "/" and not core.kind(path) then
    err = ("%s does not exist (a program not built yet may be named only inside the project, "
      .. "%s)"):format(path, acc.project)
  end
  fail(("exec_policy: key 'exec': %s"):format(err))
end

-- ENTRY: a program's name, a path (relative ones are the project's), a
-- glob of files, or a preset. OPTIONAL ones (a preset's, a closure's) that
-- are not installed are passed over; a listed one is an error, unless it
-- is yet to be built in the project. A path a CLOSURE found is no path the
-- user named: where the command writes, it counts as planted.
function want_program(entry, acc, optional, closure)
  if tools.is_preset(entry) then
    if acc.seen[entry] then return end
    acc.seen[entry] = true
    local before, missing = #acc.exec, {}
    for _, program in ipairs(entry) do
      if not want_program(program, acc, true) and type(program) == "string" then
        missing[#missing + 1] = program
      end
    end
    for _, rel in ipairs(entry.home) do tiers.add_unique(acc.home, rel) end
    for _, rel in ipairs(entry.cache) do tiers.add_unique(acc.cache, rel) end
    acc.notes[#acc.notes + 1] = ("preset %s: %d files%s"):format(entry.name, #acc.exec - before,
      #missing > 0 and (" (not installed here: %s)"):format(some(missing)) or "")
    return true
  end
  if type(entry) ~= "string" then
    fail(("exec_policy: key 'exec': entries must be program names, paths or lcsb.tools "
      .. "presets, not %s"):format(type(entry)))
  end
  local path = entry
  if entry:find("/", 1, true) then
    if entry:sub(1, 1) ~= "/" and entry:sub(1, 1) ~= "~" then path = acc.project .. "/" .. entry end
    path = tiers.absolute(path, "exec")
    if path:find("*", 1, true) then
      local found = false
      for _, f in ipairs(tools.glob(path)) do found = want_program(f, acc, true, closure) or found end
      return found
    end
    if core.kind(path) == "dir" then
      -- A closure names files; a directory in its place is none it meant.
      if closure then return false end
      tiers.add_unique(acc.exec, path) -- validation refuses system prefixes and symlinks
      return true
    end
  else
    path = tiers.expand(entry, "exec")
    if optional and not path:find("/", 1, true) then
      path = installed_on_path(path, acc)
      if not path then return false end
    end
  end
  if acc.seen[path] then return acc.seen[path] == true end
  -- The second value: where the lookup found it (the path as named, or the
  -- first PATH entry's, its last part not resolved: a symlink there is what
  -- writes_on_way looks at), or why it found nothing.
  local files, found = core.which_at(path)
  if not files then return not_found(path, found, optional, acc) end
  -- Named is what the entry says: a name installed_on_path found is a name.
  local named = entry:find("/", 1, true) ~= nil
  local located = found
  local why = planted(files, located, named and not closure, acc)
  if why then
    acc.seen[path] = false
    -- Left out, not refused: the policy is the user's and sound; what the
    -- command did to the project is not, and the user hears of it first.
    acc.warnings[#acc.warnings + 1] = "exec: left out: " .. why
    return false
  end
  acc.seen[path] = true
  for _, f in ipairs(files) do tiers.add_unique(acc.exec, f) end
  apply_closures({ name = entry, file = files[1] }, located, acc)
  return true
end

-- "any", or the resolved files that may run: the command, every exec entry,
-- their interpreters and closures, and the env program that carries the
-- overlay. `built = true` lets what the project holds run too.
local function exec_tier(opts, run, acc)
  if opts.exec == "any" then return "any" end
  if type(opts.exec) == "string" then
    fail('exec_policy: key \'exec\' must be a list of programs or "any"')
  end
  local given = opts.exec or {}
  for key, value in pairs(given) do
    if key == "built" then
      if type(value) ~= "boolean" then fail("exec_policy: key 'exec.built' must be true or false") end
    elseif math.type(key) ~= "integer" or key < 1 or key > #given then
      fail(("exec_policy: key 'exec': unknown key '%s' (a list of programs, and built = true)")
        :format(tostring(key)))
    end
  end
  for _, entry in ipairs(given) do want_program(entry, acc, false) end
  -- The command itself, after the entries: what their closures read (a
  -- pyenv's versions) may be where a venv's python leads. A command that
  -- cannot be found is left for the run to report as 127, not refused here.
  local command = run.argv and run.argv[1]
  if command then
    local name = command
    if command:find("/", 1, true) and command:sub(1, 1) ~= "/" then
      name = (run.cwd or acc.project) .. "/" .. command
      name = core.normalize(name) or name
    end
    local files, at = core.which_at(name)
    local named = name:find("/", 1, true) ~= nil
    local located = files and at
    local why = files and planted(files, located, named, acc)
    if why then
      -- Not granted: the run refuses it, and the user hears why first.
      acc.warnings[#acc.warnings + 1] = ("the command %s is not allowed to run: %s"):format(
        command, why)
    elseif files then
      for _, f in ipairs(files) do tiers.add_unique(acc.exec, f) end
      acc.seen[name] = true
      apply_closures({ name = command, file = files[1] }, located, acc)
    end
  end
  if given.built then
    tiers.add_unique(acc.exec, acc.project)
    tiers.add_unique(acc.built, acc.project)
    acc.notes[#acc.notes + 1] = ("built = true: every file in %s and in the run's private TMPDIR "
      .. "may run (anything the command writes there, it can run)"):format(acc.project)
  end
  -- The seam's env hop runs first.
  want_program("/usr/bin/env", acc, false)
  return acc.exec
end

local M = {
  new_acc = new_acc, path_dirs = path_dirs, planted_on_path = planted_on_path,
  exec_tier = exec_tier,
}

-- Named now, before a policy script can change it: a plan's key holds its
-- state when a script did (lcsb.plan).
plan.stock_on_demand("lcsb.exec_tier", M)

return M
