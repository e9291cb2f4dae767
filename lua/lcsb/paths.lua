-- Paths as text, for lcsb's Lua files: the one test of whether a path lies
-- beneath a set of others (the C core has its own, lcsb__path_within).

local M = {}

-- A set of LIST's paths (a list already marked as one is its own set).
function M.set(list)
  local set = {}
  for _, path in ipairs(type(list) == "table" and list or {}) do set[path] = true end
  return set
end

-- Is PATH, or a directory above it, in SET (paths as keys)?
function M.covered(set, path)
  if set["/"] or set[path] then return true end
  for at in path:gmatch("()/") do
    if at > 1 and set[path:sub(1, at - 1)] then return true end
  end
  return false
end

-- A name with "*" as a Lua pattern for a whole path or name: the star
-- matches within one component, everything else is itself.
function M.glob_pattern(name)
  return "^" .. name:gsub("[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0"):gsub("%*", "[^/]*") .. "$"
end

return M
