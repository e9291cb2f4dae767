-- lcsb.home: the private HOME and TMPDIR a run gets, and what the private
-- HOME holds of the real one (home = { ... }, read-only) and of the
-- project's caches (cache = { ... }, kept between its runs). Composing asks
-- which entries and caches (home_entries, cache_rels); each run makes the
-- directories and places the entries in them (private_dirs, cache_entries,
-- place_in_home). Apart from lcsb/init.lua as one concept, with the most
-- rules about the user's own files of any phase.

local core = require "lcsb.core"
local paths = require "lcsb.paths"
local tiers = require "lcsb.tiers"

local covered = paths.covered
local add_unique, leave_out, passes_through = tiers.add_unique, tiers.leave_out,
  tiers.passes_through

-- Errors carry no position here: exec_policy re-raises them at the script's
-- line that called it.
local function fail(msg) error(msg, 0) end

-- The run's own HOME and TMPDIR, owned by SCOPE, which removes them when it
-- closes. FRESH (the run's own scope): only named here, made when the run
-- starts, by the shim in the command's world (a tmpfs each, nothing on the
-- host) or by the run on the host (policy key private); else made now, as
-- a caller's scope keeps them for what it runs later.
local function private_dirs(scope, fresh)
  local make = fresh and scope.reserve or scope.mkdtemp
  local home, err = make(scope, "home")
  if not home then fail("exec_policy: cannot create the private HOME: " .. err) end
  local tmp
  tmp, err = make(scope, "tmp")
  if not tmp then fail("exec_policy: cannot create the private TMPDIR: " .. err) end
  return home, tmp
end

-- The private HOME starts empty, which hides the user's tool configuration
-- (git's identity, cargo's registries). home = { ".gitconfig" } shows an
-- entry of the real HOME there read-only; cache = { ".npm" } puts a
-- directory of the project's own there, kept between its runs. Each is a
-- symlink in the private HOME to a path the policy grants, which every
-- backend honours as it is (a bind mount would need the shim, and a
-- container's mount table, to learn a new kind of rule), and the caps judge
-- that path by name like any other.

-- The caller's real HOME, normalized.
local function real_home(key)
  local home = os.getenv("HOME")
  if not home or home == "" then fail(("exec_policy: key '%s': HOME is not set"):format(key)) end
  local norm, err = core.normalize(home)
  if not norm then fail(("exec_policy: key '%s': HOME: %s"):format(key, err)) end
  return norm
end

-- ENTRY of KEY as a path relative to the caller's real HOME (HOME, normal):
-- ".gitconfig", "~/.gitconfig" and "HOME/.gitconfig" are all ".gitconfig".
local function home_relative(entry, key, home)
  if type(entry) ~= "string" then
    fail(("exec_policy: key '%s': entries must be strings, not %s"):format(key, type(entry)))
  end
  local function refuse(why)
    fail(("exec_policy: key '%s': %q %s"):format(key, entry, why))
  end
  if entry:find("\0", 1, true) then refuse("holds a NUL byte") end
  local rel = entry
  if rel == "~" or rel:sub(1, 2) == "~/" then
    rel = rel:sub(3)
  elseif rel:sub(1, 1) == "/" then
    local prefix = home == "/" and "/" or home .. "/"
    if rel == home then
      rel = ""
    elseif rel:sub(1, #prefix) ~= prefix then
      refuse(("is outside your HOME (%s): entries are paths in it, such as \".gitconfig\" "
        .. "(read = { ... } takes other paths)"):format(home))
    end
    rel = rel:sub(#prefix + 1)
  end
  local parts = {}
  for part in rel:gmatch("[^/]+") do
    if part == ".." then refuse("holds \"..\": entries are paths in your HOME") end
    if part ~= "." then parts[#parts + 1] = part end
  end
  if #parts == 0 then
    refuse(entry == "" and "names nothing: entries are paths in your HOME, such as \".gitconfig\""
      or "is your whole HOME: name what the command needs in it, such as \".gitconfig\"")
  end
  return table.concat(parts, "/")
end

-- Does SET (relative paths as keys) hold a directory above REL?
local function under(set, rel)
  for at in rel:gmatch("()/") do
    if set[rel:sub(1, at - 1)] then return true end
  end
  return false
end

-- A copy of the policy's list under KEY (nil: an empty one), refused when
-- it is no list.
local function list_copy(list, key)
  list = list or {}
  local n = #list
  for k in pairs(list) do
    if math.type(k) ~= "integer" or k < 1 or k > n then
      fail(("exec_policy: key '%s' must be a list of paths in your HOME"):format(key))
    end
  end
  return { table.unpack(list) }
end

-- LIST's entries of KEY as relative paths, each once, without those within
-- another: it shows them already.
local function home_list(list, key, home)
  local rels, set = {}, {}
  for _, entry in ipairs(list) do
    local rel = home_relative(entry, key, home)
    if not set[rel] then
      set[rel] = true
      rels[#rels + 1] = rel
    end
  end
  local out = {}
  for _, rel in ipairs(rels) do
    if not under(set, rel) then out[#out + 1] = rel end
  end
  return out
end

-- home = { ".gitconfig", ".config/git" }: each entry of the caller's real
-- HOME, by its real path, joins the read tier (where the caps refuse
-- ~/.ssh and the like by name), to be seen read-only at the same place in
-- the private HOME. LIST is the policy's own list (its first OWN entries;
-- all when OWN is nil) and what tool presets add (build's seam). One of the
-- policy's that does not exist is left out, for lcsb check to show; one a
-- preset named is passed over, as a preset's program is. The entries shown
-- come back as { rel, name, path }.
local function home_entries(list, read, result, own, writes, warnings)
  local home = real_home("home")
  local asked = {}
  for i = 1, math.min(own or #list, #list) do asked[home_relative(list[i], "home", home)] = true end
  local out = {}
  for _, rel in ipairs(home_list(list, "home", home)) do
    local abs = (home == "/" and "" or home) .. "/" .. rel
    local real = core.realpath(abs)
    if real and passes_through(abs, writes) and not covered(writes, real) then
      -- Your dotfile is a link through a project: the command chose where
      -- it leads now.
      leave_out(result, "read", abs, "home: leads through where the command writes")
      warnings[#warnings + 1] = ("home: left out ~/%s: it leads through where the command "
        .. "writes, to %s, which the policy does not let the command read"):format(rel, real)
    elseif real then
      add_unique(read, real)
      out[#out + 1] = { rel = rel, name = "~/" .. rel, path = real }
    elseif asked[rel] then
      leave_out(result, "read", abs, "home: does not exist")
    end
  end
  return out
end

-- cache = { ".npm", ".cache/pip" }: each entry a directory the project keeps
-- between its runs (core.cache_dir: in the user's cache directory, never
-- the user's own cache nor another project's), made on demand, joining the
-- write tier, to be seen at that place in the private HOME. It cannot share
-- a place with a home entry: one inside the other would be a real file
-- written to, or a cache read-only. HOMES are the home entries shown; the
-- entries come back as paths relative to HOME.
local function cache_rels(list, homes)
  local home = real_home("cache")
  local rels = home_list(list, "cache", home)
  for _, rel in ipairs(rels) do
    for _, h in ipairs(homes) do
      if h.rel == rel then
        fail(("exec_policy: ~/%s is both in home and in cache: home shows your own read-only, "
          .. "cache keeps one per project; list it in one of them"):format(rel))
      elseif under({ [h.rel] = true }, rel) then
        fail(("exec_policy: key 'cache': ~/%s lies in ~/%s, which home shows read-only from your "
          .. "HOME, so no cache can be made there; list in home the files of ~/%s the command "
          .. "needs instead of all of it"):format(rel, h.rel, h.rel))
      elseif under({ [rel] = true }, h.rel) then
        fail(("exec_policy: key 'home': ~/%s lies in ~/%s, which cache keeps per project; "
          .. "lcsb puts nothing of your HOME into a cache"):format(h.rel, rel))
      end
    end
  end
  return rels
end

-- The caches of RELS, each made for PROJECT when it is not there yet
-- (core.cache_dir, by descriptor), joining the write tier.
local function cache_entries(rels, project, write)
  local out = {}
  for _, rel in ipairs(rels) do
    local dir, err = core.cache_dir(project, rel)
    -- A preset's cache is no key the user wrote: say which the cache is.
    if not dir then
      fail(("exec_policy: the cache ~/%s (key 'cache', or an exec preset's): %s"):format(rel, err))
    end
    add_unique(write, dir)
    out[#out + 1] = { rel = rel, name = "~/" .. rel, path = dir }
  end
  return out
end

-- ENTRIES as the result keeps them: { name = "~/rel", path = real }.
local function entries_shown(entries)
  local out = {}
  for i, e in ipairs(entries) do out[i] = { name = e.name, path = e.path } end
  return out
end

-- Each entry at its place in the private HOME (HOME): the directories above
-- it made there, real ones of the private HOME, so that entries may share
-- one (.cargo holding home's config.toml and cache's registry), then a
-- symlink to the path the policy grants.
local function place_in_home(home, entries)
  for _, e in ipairs(entries) do
    local at = home
    for part in e.rel:gmatch("([^/]+)/") do
      at = at .. "/" .. part
      if not core.kind(at) then
        local ok, err = core.mkdir(at, tonumber("700", 8))
        if not ok then fail("exec_policy: cannot make the private HOME's " .. err) end
      end
    end
    local ok, err = core.symlink(e.path, home .. "/" .. e.rel)
    if not ok then fail("exec_policy: cannot show " .. e.name .. " in the private HOME: " .. err) end
  end
end

-- The policy's private = { ... } for HOME and TMPDIR: HOME shows each of
-- the lists' entries as place_in_home would, a symlink at its place.
local function private_spec(home, tmp, ...)
  local links = {}
  for _, entries in ipairs { ... } do
    for _, e in ipairs(entries) do
      links[#links + 1] = e.rel
      links[#links + 1] = e.path
    end
  end
  return { { path = home, links = links }, { path = tmp } }
end

return {
  private_dirs = private_dirs, private_spec = private_spec, list_copy = list_copy,
  home_entries = home_entries, cache_rels = cache_rels, cache_entries = cache_entries,
  entries_shown = entries_shown, place_in_home = place_in_home,
}
