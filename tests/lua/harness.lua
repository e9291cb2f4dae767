-- A tiny test runner for lcsb's Lua tests: named cases, plain assertions,
-- a summary, exit status 1 on any failure. Loaded with dofile by each test.

local T = { cases = {} }

function T.case(name, fn) T.cases[#T.cases + 1] = { name = name, fn = fn } end

local function fail(msg, level) error(msg, (level or 1) + 1) end

function T.eq(got, want, what)
  if got ~= want then
    fail(("%s: expected %s, got %s"):format(what or "value", tostring(want), tostring(got)), 2)
  end
end

function T.ok(v, what)
  if not v then fail((what or "assertion") .. " failed", 2) end
  return v
end

-- Plain-text substring test.
function T.has(s, sub, what)
  if type(s) ~= "string" or not s:find(sub, 1, true) then
    fail(("%s: expected %q in %q"):format(what or "text", sub, tostring(s)), 2)
  end
end

function T.hasnt(s, sub, what)
  if type(s) == "string" and s:find(sub, 1, true) then
    fail(("%s: did not expect %q in %q"):format(what or "text", sub, s), 2)
  end
end

function T.member(list, x) for _, v in ipairs(list) do if v == x then return true end end end

function T.count(list, x)
  local n = 0
  for _, v in ipairs(list) do if v == x then n = n + 1 end end
  return n
end

function T.contains(list, x, what)
  if type(list) ~= "table" or not T.member(list, x) then
    fail(("%s: %s missing from {%s}"):format(what or "list", tostring(x),
      type(list) == "table" and table.concat(list, ", ") or tostring(list)), 2)
  end
end

function T.lacks(list, x, what)
  if type(list) == "table" and T.member(list, x) then
    fail(("%s: %s should not be in {%s}"):format(what or "list", tostring(x),
      table.concat(list, ", ")), 2)
  end
end

-- FN must raise; the message, as a string.
function T.raises(fn, what)
  local ok, err = pcall(fn)
  if ok then fail((what or "call") .. ": expected an error", 2) end
  return tostring(err)
end

function T.q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- Run a shell command; its stdout and exit status.
function T.sh(cmd)
  local f = assert(io.popen(cmd, "r"))
  local out = f:read("a")
  local _, how, code = f:close()
  if how == "signal" then code = 128 + code end
  return out, code
end

function T.trim(s) return (s:gsub("%s+$", "")) end

-- A fresh directory for one test, removed at exit.
local made = {}
function T.tmpdir()
  local d = T.trim(T.sh("mktemp -d /tmp/lcsb-luatest.XXXXXX"))
  T.ok(d:match("^/tmp/lcsb%-luatest%."), "mktemp -d")
  made[#made + 1] = d
  return d
end

function T.write(path, text, mode)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  if mode then T.sh("chmod " .. mode .. " " .. T.q(path)) end
end

function T.run()
  local failed = 0
  for _, c in ipairs(T.cases) do
    local ok, err = xpcall(c.fn, debug.traceback)
    if ok then
      print("ok   " .. c.name)
    else
      failed = failed + 1
      print("FAIL " .. c.name .. "\n     " .. tostring(err):gsub("\n", "\n     "))
    end
  end
  for _, d in ipairs(made) do T.sh("chmod -R u+rwx " .. T.q(d) .. " 2>/dev/null; rm -rf " .. T.q(d)) end
  print(("%d of %d passed"):format(#T.cases - failed, #T.cases))
  os.exit(failed == 0 and 0 or 1, true)
end

-- Where the built lcsb lives (ctest sets LCSB_BUILD_DIR).
T.build = os.getenv("LCSB_BUILD_DIR")

return T
