-- lcsb.env: the command's environment as a policy's env key says it,
-- checked and put in the one form lcsb.policy takes. Apart from
-- lcsb/init.lua as a key with rules of its own, and loaded only when
-- composing: a kept plan holds the result.

local plan = require "lcsb.plan"

-- Errors carry no position here: exec_policy re-raises them at the script's
-- line that called it.
local function fail(msg) error(msg, 0) end

-- The command's environment, in the structured form lcsb.policy takes:
-- the caller's variables named in pass (the C core adds the base set), the
-- private HOME and TMPDIR and the policy's own values in set, and unset.
-- `env` is either that form (a table with a key pass, set or unset, and no
-- other) or the simple one, `{ NAME = "value", OTHER = false }`.
local ENV_KEYS = { pass = true, set = true, unset = true }

local function names_list(list, key)
  if type(list) ~= "table" then
    fail(("exec_policy: key '%s' must be a list of names, not a %s"):format(key, type(list)))
  end
  local n = #list
  for k, name in pairs(list) do
    if math.type(k) ~= "integer" or k < 1 or k > n then
      fail(("exec_policy: key '%s' must be a list of names"):format(key))
    end
    if type(name) ~= "string" then
      fail(("exec_policy: key '%s': entries must be strings, not %s"):format(key, type(name)))
    end
  end
  return list
end

local function env_spec(opts, home, tmp)
  local given = opts.env or {}
  local structured, plain = false, nil
  for name in pairs(given) do
    if type(name) ~= "string" then fail("exec_policy: key 'env': names must be strings") end
    if ENV_KEYS[name] then structured = true else plain = plain or name end
  end
  local set, unset, pass = { HOME = home, TMPDIR = tmp }, {}, {}
  local function put(name, value, key)
    if value == false then
      set[name] = nil
      unset[#unset + 1] = name
    elseif type(value) == "string" then
      set[name] = value
    else
      fail(("exec_policy: key '%s.%s': expected a string%s"):format(key, name,
        key == "env" and ", or false to unset it" or ""))
    end
  end
  if not structured then
    for name, value in pairs(given) do put(name, value, "env") end
  else
    if plain then
      fail(("exec_policy: key 'env': '%s' next to pass, set or unset: the structured form takes "
        .. "only those three keys (put %s under set = { ... } or unset = { ... })")
        :format(plain, plain))
    end
    if given.set ~= nil and type(given.set) ~= "table" then
      fail(("exec_policy: key 'env.set' must be a table of NAME = value, not a %s")
        :format(type(given.set)))
    end
    for name, value in pairs(given.set or {}) do
      if type(name) ~= "string" then fail("exec_policy: key 'env.set': names must be strings") end
      if value == false then fail(("exec_policy: key 'env.set.%s': expected a string (unset "
        .. "takes names to unset)"):format(name)) end
      put(name, value, "env.set")
    end
    for _, name in ipairs(names_list(given.unset or {}, "env.unset")) do
      if given.set and given.set[name] ~= nil then
        fail(("exec_policy: key 'env': %s is both in set and in unset"):format(name))
      end
      put(name, false)
    end
    for _, name in ipairs(names_list(given.pass or {}, "env.pass")) do pass[#pass + 1] = name end
  end
  table.sort(unset)
  return { pass = pass, set = set, unset = unset }
end

local M = { env_spec = env_spec }

-- Named now, before a policy script can change it: a plan's key holds its
-- state when a script did (lcsb.plan).
plan.stock_on_demand("lcsb.env", M)

return M
