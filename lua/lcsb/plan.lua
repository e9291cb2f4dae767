-- lcsb.plan: the plan cache as exec_policy uses it. A composition is plain
-- data kept as a plan (core.plan_save) and found again by a key of all it
-- read besides the disk (plan_key): the options, the run, the variables it
-- asked for, and the state of lcsb's own modules, which a policy script may
-- change. Apart from lcsb/init.lua because it is the one part of a run that
-- decides whether composing happens at all.

local core = require "lcsb.core"
local agents = require "lcsb.agents"
local home = require "lcsb.home"
local paths = require "lcsb.paths"
local protect = require "lcsb.protect"
local run_later = require "lcsb.run_later"
local tiers = require "lcsb.tiers"
local tools = require "lcsb.tools"

local P = {}

-- The standard library's own, taken before any policy script runs: the key
-- is made with these, whatever a script puts in the globals' place (where
-- lcsb's code calls them, the key sees what it put there). The globals by
-- the table lcsb's modules were loaded with, not by the name _G, which a
-- script may point elsewhere; the modules loaded by the registry's own
-- table, not by the global package.
local GLOBALS, LOADED = _ENV, package.loaded
local collectgarbage, error, ipairs, pairs, pcall, rawget, type =
  collectgarbage, error, ipairs, pairs, pcall, rawget, type
local getenv, setlocale = os.getenv, os.setlocale
-- And lcsb's own that make the key, find and keep the plan: a script that
-- put another of lcsb's functions in one's place would change how the key
-- is made, not only what it holds (a function of lcsb's in another's place
-- makes no key: core.plan_state says so).
local build_id, cache_root_of, realpath = core.build_id, core.cache_root, core.realpath
local plan_host = core.plan_host
local plan_metatables, plan_stock = core.plan_metatables, core.plan_stock
local plan_unchanged, plan_state, plan_key_bytes = core.plan_unchanged, core.plan_state, core.plan_key
local plan_find, plan_save = core.plan_find, core.plan_save
local compose_begin, compose_end = core.compose_begin, core.compose_end
local reads_mark, reads_since = core.reads_mark, core.reads_since
local own_world, preset_mark = tiers.own_world, tools.preset_mark

-- The variables a composition asked for, while one runs: a plan is used
-- only while each still says the same (compose_cached).
local env_read

-- os.getenv, noted for the plan while a composition runs.
function P.getenv(name)
  local value = getenv(name)
  if env_read then env_read[name] = value or false end
  return value
end

-- Where the command of a run under PLAN may write, whatever the run adds:
-- what the plan's record of the file system holds there is asked again on
-- every run, as the command may have changed it.
local function write_areas(plan, cache_root)
  local areas = table.move(plan.write, 1, #plan.write, 1, {})
  if cache_root then areas[#areas + 1] = cache_root end
  return areas
end

-- What composing reads besides its options: lcsb's own modules (a script
-- may add to a preset, to lcsb.protect_default, to the closures, or
-- replace a function of lcsb's), and the standard library's functions and
-- the globals lcsb found when it was loaded, as they are now. Their state
-- is part of a plan's key (core.plan_state): a script that changes them
-- composes for that state; one that puts a function of its own among them,
-- on every run.
local STOCK_GLOBALS = {}
for name, value in pairs(GLOBALS) do
  if type(value) == "function" then STOCK_GLOBALS[#STOCK_GLOBALS + 1] = name end
end

-- The modules only composing loads (compose in lcsb/init.lua requires
-- them), each stocked as it loads (P.stock_on_demand), with its state then.
-- A run on a kept plan loads none of them, so their state is part of the
-- key only where a script changed one: unchanged, it reads as not loaded.
local ON_DEMAND = { "lcsb.exec_tier", "lcsb.env", "lcsb.oci" }
local on_demand_stock = {}

-- MODULE, loaded as NAME (one of ON_DEMAND): kept as it is, once, before
-- a policy script can change it; which copy of plan_stock's it is. Its
-- state is written out only if a script changed it (state_roots), which a
-- composition, the one run that loads it, rarely asks.
function P.stock_on_demand(name, module)
  if on_demand_stock[name] ~= nil then return end
  on_demand_stock[name] = plan_stock({ [name] = module }) or false
end

-- LCSB (lcsb/init.lua's module) and the rest of lcsb's modules, the
-- standard library and the stock globals, as the key holds them.
local function state_roots(lcsb)
  local globals = {}
  for _, name in ipairs(STOCK_GLOBALS) do globals[name] = rawget(GLOBALS, name) end
  -- The metatables of strings, of files and of the globals too (as they
  -- are: a __metatable field would hide one from getmetatable): a __call
  -- or __index put there makes "rt" or io.stdout a function lcsb may call
  -- while composing (a closure's match), changes every string method it
  -- uses, or answers for a global taken away (ipairs). (lcsb's own
  -- userdata keep theirs out of a script's reach: __metatable.)
  local metas = plan_metatables()
  local roots = { lcsb = lcsb, core = core, tools = tools, paths = paths, run_later = run_later,
    agents = agents, tiers = tiers, home = home, protect = protect, plan = P, string = string,
    table = table, math = math, utf8 = utf8, os = os, io = io, G = globals,
    string_meta = metas.string, file_meta = metas.file, G_meta = metas.G }
  for _, name in ipairs(ON_DEMAND) do
    local module, stock = rawget(LOADED, name), on_demand_stock[name]
    if module ~= nil and not (stock and plan_unchanged({ [name] = module }, stock)) then
      roots[name] = module
    end
  end
  return roots
end
P.state_roots = state_roots

-- The bytes a plan is found by: what compose reads beyond the file system
-- and the variables it asks for (which the plan records), in one canonical
-- form (core.plan_find and core.plan_save add which script asks: its files,
-- by content, counted in C where the script cannot change them); nil when
-- the options or lcsb's modules hold what no bytes can stand for (a
-- function of the script's own, a userdata).
local function plan_key(opts, run, cache_root, lcsb)
  local build = build_id()
  if not build then return nil, "lcsb cannot tell which build it is" end
  -- Who asks, and the mounts it sees: what may be run or read (a group
  -- that lets it read a version file, a remount noexec) is theirs.
  local host, no_host = plan_host()
  if not host then return nil, no_host end
  -- Nearly every script leaves lcsb's modules as this build loads them:
  -- that is told without writing their state out.
  local roots, state, why = state_roots(lcsb), "stock", nil
  if not plan_unchanged(roots) then
    state, why = plan_state(roots)
    if not state then return nil, why end
  end
  local key = {
    lcsb = build, opts = opts, cwd = run.cwd or realpath("."),
    command = run.argv and run.argv[1], state = state,
    own_world = own_world(), cache_root = cache_root or false,
    HOME = getenv("HOME") or false, PATH = getenv("PATH") or false, host = host,
  }
  -- nil for what is no plain data (a function, a table with a metatable of
  -- its own, nesting past 64): composing says what is wrong.
  local bytes
  bytes, why = plan_key_bytes(key, preset_mark)
  if not bytes then return nil, "the options hold " .. why end
  return bytes
end

-- compose, or the plan a run before made of the same options, while
-- nothing it was made from changed (core.plan_find checks); a new one is
-- kept for the runs after. COMPOSE is exec_policy's, LCSB its module.
local function find_or_compose(opts, run, compose, lcsb)
  -- Where caches live: asked once (it is asked of the disk).
  local cache_root = cache_root_of()
  local key, why = plan_key(opts, run, cache_root, lcsb)
  local plan
  if key then plan, why = plan_find(key) end
  for name, value in pairs(plan and plan.env_read or {}) do
    if (getenv(name) or false) ~= value then
      plan, why = nil, ("%s is not what it was"):format(name)
      break
    end
  end
  if plan then
    -- What the composition read (a .python-version), read again: held to
    -- the trust as a composition would hold it (a plan made under
    -- --no-trust-check stands for no trusted run), and protected for the
    -- run like any file the script read.
    for _, path in ipairs(plan.reads or {}) do
      local file = io.open(path)
      if file then file:close() end
    end
    plan.plan = { "kept plan used (composed by an earlier run; what it rests on holds)" }
    return plan
  end
  -- Each question asked once while composing; recorded for a plan, with
  -- the variables and the files it read.
  compose_begin(key ~= nil)
  env_read = {}
  local mark = reads_mark()
  local ok, composed = pcall(compose, opts, run, cache_root)
  if ok then composed.env_read, composed.reads = env_read, reads_since(mark) end
  env_read = nil
  local kept, not_kept = false, why
  if ok and key then kept, not_kept = plan_save(key, composed, write_areas(composed, cache_root)) end
  compose_end()
  if not ok then error(composed, 0) end
  composed.plan = { ("composed (%s); %s"):format(why, kept and "kept for the runs after"
    or "not kept: " .. tostring(not_kept)) }
  return composed
end

-- No collection from the key's making until the plan is kept or found: a
-- finalizer of the script's run in between could change lcsb's modules
-- after the key saw them, and what is composed then would be kept, or a
-- plan found used, under the key of another state. (An emergency
-- collection, if memory runs short, runs no finalizer.) And the C locale,
-- whatever the script set, meanwhile: Lua's character classes, string
-- order and numbers' text follow it, and a locale's name does not tell
-- what it means (LOCPATH, its files regenerated).
function P.compose_cached(opts, run, compose, lcsb)
  local collecting = collectgarbage("isrunning")
  collectgarbage("stop")
  local locale = setlocale()
  setlocale("C")
  local ok, plan = pcall(find_or_compose, opts, run, compose, lcsb)
  if locale then setlocale(locale) end
  if collecting then collectgarbage("restart") end
  if not ok then error(plan, 0) end
  return plan
end

return P
