-- Paths as text, for lcsb's Lua files: the one test of whether a path lies
-- beneath a set of others (the C core has its own, lcsb__path_within), and a
-- path's directory, last component and lexical normal form.

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
  -- Each directory above PATH, found by plain finds: a composition asks
  -- this of every file it grants, and gmatch tries a pattern at each byte.
  local at = path:find("/", 2, true)
  while at do
    if set[path:sub(1, at - 1)] then return true end
    at = path:find("/", at + 1, true)
  end
  return false
end

-- A name with "*" as a Lua pattern for a whole path or name: the star
-- matches within one component, everything else is itself.
function M.glob_pattern(name)
  return "^" .. name:gsub("[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0"):gsub("%*", "[^/]*") .. "$"
end

-- The directory PATH lies in ("/" for one at the top), as text.
function M.dirname(path)
  return path:match("^(.+)/[^/]*$") or "/"
end

-- PATH's last component, trailing slashes aside. Patterns here are
-- anchored or start at a rare byte: the hints read the command's stderr,
-- and an unanchored "([^/]*)$" over a long line is quadratic.
function M.basename(path)
  path = path:gsub("/+$", "")
  return path:match("^.*/(.*)$") or path
end

-- PATH with "//", "." and ".." taken out, as text (links aside).
function M.normal(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return "/" .. table.concat(parts, "/")
end

return M
