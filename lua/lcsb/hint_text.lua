-- The text a hint is made of: the command's bytes made safe to show on a
-- terminal, paths written as the Lua a policy script takes, and the two
-- small helpers every part of the hints reads text and lists with. Apart
-- from the hints themselves, so that each of their modules says things the
-- same way.

local M = {}

-- The C half escapes text for a terminal; without it, escape_c0 below.
local has_core, core = pcall(require, "lcsb.core")

-- Without the C half: CR and LF spelled out, the other C0 controls and DEL
-- as \xHH (the C half also takes C1 controls and bytes that are not UTF-8).
local function escape_c0(text)
  return (text:gsub("[%c\127]", function(c)
    if c == "\t" then return c end
    return c == "\n" and "\\n" or c == "\r" and "\\r" or ("\\x%02x"):format(c:byte())
  end))
end
local escape = has_core and core.escape or escape_c0

-- TEXT as a hint shows it: one line, no control byte. Targets, programs and
-- stderr lines are the command's bytes: a LF in a path must not start a
-- line of its own words, an ESC must not reach the terminal. Escaping is
-- idempotent, so explain's own pass over each line changes nothing more.
local function shown(text)
  return escape(tostring(text))
end

-- PATH as a Lua string a policy script takes as it is: quote and backslash
-- escaped, control bytes as \xHH (which Lua reads back as the same byte).
local function lua_string(path)
  return shown('"' .. path:gsub('[\\"]', "\\%0") .. '"')
end

local function lua_list(list)
  local parts = {}
  for i, path in ipairs(list) do parts[i] = lua_string(path) end
  return "{ " .. table.concat(parts, ", ") .. " }"
end

-- Does TEXT match one of PATTERNS?
local function matches_any(text, patterns)
  for _, pattern in ipairs(patterns) do
    if text:find(pattern) then return true end
  end
  return false
end

-- VALUE when it is a list, else an empty one: the evidence is a host's to
-- fill, and may leave out or misspell what it holds.
local function list(value)
  return type(value) == "table" and value or {}
end

-- The notes given that apply (the others false or nil), as one parenthesis.
local function notes(...)
  local said = {}
  for i = 1, select("#", ...) do
    local note = select(i, ...)
    if note then said[#said + 1] = note end
  end
  return #said > 0 and (" (" .. table.concat(said, "; ") .. ")") or ""
end

M.escape = escape
M.shown = shown
M.lua_string = lua_string
M.lua_list = lua_list
M.matches_any = matches_any
M.list = list
M.notes = notes

return M
