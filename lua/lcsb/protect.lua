-- lcsb.protect: what a run holds read-only inside its write tier, and the
-- .git held as what it is: protect's defaults (lcsb.protect_default, given
-- by lcsb/init.lua) and the policy's own list, checked, then each path
-- kept read-only, let go, or named for after the run. Apart from
-- lcsb/init.lua as the one phase that holds things for the run (the
-- placeholders after_run lets go of), and runs on every run, plan or not.

local agents = require "lcsb.agents"
local core = require "lcsb.core"
local paths = require "lcsb.paths"
local tiers = require "lcsb.tiers"

local covered = paths.covered
local add_unique, absolute, leave_out = tiers.add_unique, tiers.absolute, tiers.leave_out

-- Errors carry no position here: exec_policy re-raises them at the script's
-- line that called it.
local function fail(msg) error(msg, 0) end

-- protect's defaults, which lcsb.protect_default is (init.lua says what each
-- is for): the repository's, then the coding agents' configuration.
local defaults = {
  { path = ".git",
    why = "git takes it for the project's repository: pinned where it is for the run, read-only "
      .. "where it is a worktree's or a submodule's .git file, and in a project that is no "
      .. "repository held empty, so that the command cannot make one" },
  { path = ".git/hooks", why = "git runs the hooks in it at your next commit, checkout or push" },
  { path = ".git/config",
    why = "git runs the programs it names (core.fsmonitor at every git status, core.hooksPath, "
      .. "aliases)" },
}
for _, entry in ipairs(agents.config) do defaults[#defaults + 1] = entry end

-- An empty directory held read-only for the run at PATH, which is not there
-- or is empty (most likely the placeholder of a run killed before it could
-- remove it), so that the command cannot make it: an empty .git is no
-- repository, an agent's empty .claude no configuration. Runs in the same
-- project share it; the last to finish removes it, and only while it is
-- empty (rmdir says so, in one step): what another process put there meanwhile
-- makes it real, and it stays. WHAT names it for the error. True when held,
-- false where this user may not make it (neither may the command).
local function hold_empty(path, what, out, result)
  local hold, err, unwritable = core.hold(path)
  if not hold and not unwritable then
    fail(("exec_policy: cannot hold %s, the empty directory that keeps the command from "
      .. "making %s there: %s"):format(path, what, err))
  elseif hold then
    table.insert(result.placeholders, { path = path, hold = hold, what = what })
    -- Kept after the hold is let go of: the hints tell a refusal there
    -- (git clean removing it: "Device or resource busy") by it.
    result.held[path] = true
    add_unique(out, path)
  end
  return hold ~= nil
end

-- The project's .git, held as what it is: a repository's (its hooks and
-- config protected below, the hooks directory made when HOOKS is kept and
-- there is none), a worktree's .git file (held read-only), or, in a project
-- that is none, an empty placeholder that keeps the command from making one.
-- Paths to protect go to OUT; what is held for the run, and what to look for
-- afterwards, to RESULT. What became of it, for lcsb check.
local function hold_git(project, write, out, run, result, hooks)
  local git = project .. "/.git"
  -- An empty .git is none (tiers.git_at): taken for a repository, it would
  -- be left writable, and a `git init` there would write a config no one
  -- holds.
  local what = tiers.git_at(project)
  if what == "repository" then
    -- A repository without a hooks directory (cloned with an empty
    -- template) gets the empty one git init makes, so that it can be held;
    -- not through a .git the command made a symlink to elsewhere (the
    -- policy is refused then, as it names a path through a symlink).
    if hooks and core.realpath(git) == git and not core.kind(git .. "/hooks") then
      core.mkdir(git .. "/hooks")
    end
    -- .git itself, granted on its own, becomes a mount point of its own in
    -- the shim: it cannot be renamed away and replaced by a copy whose
    -- hooks are not held.
    add_unique(write, git)
    -- .git/commondir would send git to another directory's hooks and
    -- config; it cannot be held before it exists (an empty one breaks
    -- git), so lcsb looks for it afterwards.
    if run and not core.kind(git .. "/commondir") then
      table.insert(result.watch, git .. "/commondir")
    end
    return "pinned"
  elseif what == "file" then
    -- A worktree's or a submodule's .git is a file naming the directory
    -- git uses: rewritten, it would send the user's next git to hooks and
    -- a config the command wrote. It is held read-only.
    local real = core.realpath(git)
    if real and covered(write, real) then
      add_unique(out, real)
      return "read-only"
    end
    return "outside"
  elseif what == "none" and run and core.system_prefix(project) then
    -- A system directory (/, /usr) as the project: the policy is refused
    -- before anything runs (no write tier may hold one), and nothing is
    -- made in it meanwhile.
    return "not held (a system directory)"
  elseif what == "none" and run then
    -- Not a repository: the command must not make one, hooks of its own
    -- included, for the user to trust later; git passes over the empty one.
    return hold_empty(git, "a repository", out, result) and "held empty" or "unwritable"
  end
  return "not there"
end

-- protect = { ..., "!NAME" }, the I-th entry: the default at NAME is let go,
-- with those below it ("!.git": all three of git's), each marked in GONE
-- with the entry. One that lets no default go, or is no name, is an error
-- naming it: a typo must not leave on a default its author believes off,
-- nor a path pass for a name (the shim never sees it either way). DEFAULTS
-- is lcsb.protect_default.
local function let_go(entry, i, gone, defaults)
  local name = entry:sub(2)
  local shown = ("exec_policy: key 'protect': entry %d (%q)"):format(i, entry)
  local names = {}
  for _, d in ipairs(defaults) do names[#names + 1] = d.path end
  table.sort(names)
  if name == "" then
    fail(("%s names no default; \"!NAME\" lets one go by its name in lcsb.protect_default: %s")
      :format(shown, table.concat(names, ", ")))
  end
  if name:find("^[/~]") or ("/" .. name .. "/"):find("/%.?%.?/") then
    fail(("%s is not a default's name: name it from the project's root, as "
      .. "lcsb.protect_default does (\"!.claude\", \"!.git/hooks\")"):format(shown))
  end
  local any = false
  for _, d in ipairs(defaults) do
    if d.path == name or d.path:sub(1, #name + 1) == name .. "/" then
      gone[d.path] = entry
      any = true
    end
  end
  if not any then
    fail(("%s lets no default go; the defaults are: %s"):format(shown, table.concat(names, ", ")))
  end
end

-- A policy script may add to the defaults, as to lcsb.run_later.list.
local function check_defaults(defaults)
  for i, d in ipairs(defaults) do
    if type(d) ~= "table" or type(d.path) ~= "string" or type(d.why) ~= "string"
      or d.path:find("^/") or ("/" .. d.path .. "/"):find("/%.?%.?/") then
      fail(("exec_policy: lcsb.protect_default: entry %d: expected a table with a path from the "
        .. "project's root (no .. nor trailing slash) and a why"):format(i))
    end
  end
end

-- What the policy's list (LISTED) says, all checked before anything is
-- held: the defaults its "!" entries let go (GONE, by path) and its own
-- paths (OWN), each existing.
local function listed_entries(listed, defaults)
  local gone, own = {}, {}
  for key in pairs(type(listed) == "table" and listed or {}) do
    if math.type(key) ~= "integer" or key < 1 or key > #listed then
      fail(("exec_policy: key 'protect' must be a list of paths, or false, not a table with "
        .. "the key %s"):format(tostring(key)))
    end
  end
  for i, entry in ipairs(listed or {}) do
    if type(entry) == "string" and entry:sub(1, 1) == "!" then
      let_go(entry, i, gone, defaults)
    else
      own[#own + 1] = absolute(entry, "protect")
    end
  end
  -- A mount needs something to sit on: what does not exist cannot be kept
  -- from being created, so say so rather than protect nothing.
  for _, path in ipairs(own) do
    if not core.kind(path) then
      fail(("exec_policy: key 'protect': %s does not exist, and lcsb can only keep an existing "
        .. "path read-only; create it first"):format(path))
    end
  end
  return gone, own
end

-- Each of DEFAULTS in PROJECT let go (GONE), held (.git), kept read-only
-- (its real path to OUT) or named for after the run: a line each for lcsb
-- check, and the paths to keep read-only once they exist.
local function defaults_held(defaults, gone, project, write, out, run, result)
  local kept = {}
  for _, d in ipairs(defaults) do
    if not gone[d.path] then kept[d.path] = true end
  end
  local lines, later = {}, {}
  local function note(state, d, extra)
    lines[#lines + 1] = ("%-10s %s: %s%s"):format(state, d.path, d.why, extra or "")
  end
  -- Most defaults are not there: one listing of the project says which
  -- might be, instead of a question each.
  local at_root = {}
  for _, name in ipairs(core.listdir(project) or {}) do at_root[name] = true end
  for _, d in ipairs(defaults) do
    local path = project .. "/" .. d.path
    local maybe = at_root[d.path:match("^[^/]+")]
    if gone[d.path] then
      note("let go", d, (" (protect = { %q })"):format(gone[d.path]))
    elseif d.path == ".git" then
      note(hold_git(project, write, out, run, result, kept[".git/hooks"]), d)
    elseif maybe and core.kind(path) then
      -- By where it leads: a symlink in the project is replaced as easily
      -- as a file (the report after the run names that), and what it leads
      -- to is kept only where the command could write it.
      local real = core.realpath(path)
      if real and covered(write, real) then
        add_unique(out, real)
        note("read-only", d)
      else
        note("outside", d, " (not writable anyway)")
      end
    else
      -- Not there (or a symlink to nothing): named after the run if the
      -- command makes it; kept read-only by the runs after. Held empty for
      -- the run, a directory would cost every run a lock and would be a
      -- broken configuration to an agent that starts meanwhile.
      later[#later + 1] = path
      note("not there", d)
    end
  end
  return lines, later
end

-- The protected paths: the defaults (the repository's, the agents'
-- configuration) unless protect = false or a "!" entry lets one go, then
-- the policy's own list. Everything the list says is checked before
-- anything is held. What became of each default goes to RESULT.defaults,
-- a line each, for lcsb check; the paths they keep read-only once they
-- exist, to RESULT.protect_later, for the report after the run. DEFAULTS
-- is lcsb.protect_default.
local in_force
local function protected(opts, project, write, run, result, defaults)
  in_force = defaults
  local listed = opts.protect
  if listed == true then
    fail("exec_policy: key 'protect' must be a list of paths, or false")
  end
  check_defaults(defaults)
  local gone, own = listed_entries(listed, defaults)
  local out = {}
  local lines, later = defaults_held(listed ~= false and defaults or {}, gone, project, write,
    out, run, result)
  if listed == false then lines[1] = "(none: protect = false turns every default off)" end
  result.defaults, result.protect_later = lines, later
  for _, path in ipairs(own) do
    if core.kind(path) and covered(write, path) then
      add_unique(out, core.realpath(path) or path)
    elseif core.kind(path) then
      leave_out(result, "protect", path, "not writable anyway")
    end
  end
  return out
end

-- The defaults the last run held by (a policy script may have replaced
-- lcsb.protect_default), else lcsb's: what a hint names to let one go.
local function defaults_in_force() return in_force or defaults end

return { protected = protected, defaults = defaults, defaults_in_force = defaults_in_force }
