-- The key a plan is found by (lcsb.core.plan_key, src/lua_data.c): equal
-- data gives equal bytes whatever order it was built in, and any
-- difference compose could see gives different bytes. What is no plain
-- data has no key: a plan never stands for what compose would read
-- differently than the key shows. Run by ctest with stock lua5.4 and the
-- built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local core = require "lcsb.core"
local tools = require "lcsb.tools"

local function key(v) return (core.plan_key(v, tools.preset_mark)) end

T.case("equal data, built in any order, is the same key", function()
  local a, b = {}, {}
  for i = 1, 50 do a["k" .. i] = i end
  for i = 50, 1, -1 do b["k" .. i] = i end
  a.list, b.list = { "x", "y", { z = true } }, { "x", "y", { z = true } }
  T.eq(key(a), key(b), "the same pairs")
  -- A table whose length is a border but that is no list (key 3 missing,
  -- key 0 there: as many pairs as its length says).
  local holey = { [0] = 3, "/usr", "/etc", [4] = 2.5, [5] = true, [6] = false }
  local same = { [6] = false, [5] = true, [4] = 2.5, [2] = "/etc", [1] = "/usr", [0] = 3 }
  T.ok(key(holey), "a table with a hole has a key")
  T.eq(key(holey), key(same), "whatever its length says")
  -- A table met twice is the same data twice, not a circle.
  local shared = { "/usr" }
  T.ok(key({ read = shared, exec = shared }), "a table met twice")
end)

T.case("each difference compose could see is a different key", function()
  local base = { exec = { "cat", "true" }, project = "/p", n = 1 }
  local k = key(base)
  local differ = {
    { exec = { "true", "cat" }, project = "/p", n = 1 }, -- order of a list
    { exec = { "cat", "true" }, project = "/p", n = "1" }, -- "1" is no 1
    { exec = { "cat", "true" }, project = "/p", n = 1.0 }, -- 1.0 is a float
    { exec = { "cat", "true" }, project = "/p", n = true },
    { exec = { "cat", "true" }, project = "/p" },
    { exec = { "cat", "true" }, project = "/p", n = 1, [1] = "/p" },
    { exec = { "cat", "true", "" }, project = "/p", n = 1 },
    { exec = { "cat", "true" }, project = "/p\0", n = 1 },
  }
  for i, v in ipairs(differ) do
    T.ok(key(v) ~= k, "variant " .. i .. " differs")
  end
  -- A preset and a list of the same programs compose differently.
  local preset = tools.shell
  local plain = table.move(preset, 1, #preset, 1, {})
  for name, value in pairs(preset) do plain[name] = value end
  T.ok(key({ exec = { preset } }) ~= key({ exec = { plain } }), "a preset is marked")
end)

T.case("what is no plain data has no key, and says why", function()
  local function refused(v, why)
    local k, err = core.plan_key(v, tools.preset_mark)
    T.eq(k, nil, why)
    T.has(err, why)
  end
  -- __index answers for keys pairs never shows: compose would read them.
  refused({ opts = setmetatable({}, { __index = { exec = "any" } }) }, "metatable")
  refused({ f = print }, "no plain data")
  refused({ [true] = 1 }, "key that is no string or number")
  local circle = {}
  circle.self = circle
  refused(circle, "nested deeper")
  -- Without a mark, a preset is a table with a metatable like any other.
  T.eq((core.plan_key({ tools.shell })), nil, "no mark given")
end)

T.run()
