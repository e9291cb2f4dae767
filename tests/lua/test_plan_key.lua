-- The key a plan is found by (lcsb.core.plan_key, src/lua_data.c): equal
-- data gives equal bytes whatever order it was built in, and any
-- difference compose could see gives different bytes. What is no plain
-- data has no key: a plan never stands for what compose would read
-- differently than the key shows. Run by ctest with stock lua5.4 and the
-- built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local core = require "lcsb.core"
local lcsb = require "lcsb"
local plans = require "lcsb.plan"
local tools = require "lcsb.tools"

local function key(v) return (core.plan_key(v, tools.preset_mark)) end

T.case("equal data, built in any order, is the same key", function()
  local a, b = {}, {}
  for i = 1, 50 do a["k" .. i] = i end
  for i = 50, 1, -1 do b["k" .. i] = i end
  a.list, b.list = { "x", "y", { z = true } }, { "x", "y", { z = true } }
  T.eq(key(a), key(b), "the same pairs")
  -- A table whose length is a border but that is no list (key 3 missing,
  -- key 0 there): its pairs, and what # says of it, which ipairs and the
  -- check of a list's keys see (exec = { "true", nil, "cat" } is refused
  -- for its key 3, the same pairs made t[1], t[3] are not).
  local holey = { [0] = 3, "/usr", "/etc", [4] = 2.5, [5] = true, [6] = false }
  local same = { [6] = false, [5] = true, [4] = 2.5, [2] = "/etc", [1] = "/usr", [0] = 3 }
  T.ok(key(holey), "a table with a hole has a key")
  T.eq(key(holey) == key(same), #holey == #same, "the same pairs: one key where # agrees")
  local made = {}
  made[1], made[3] = "/usr/bin/true", "/usr/bin/cat"
  local given = { "/usr/bin/true", nil, "/usr/bin/cat" }
  T.eq(key({ exec = made }) == key({ exec = given }), #made == #given, "# told apart")
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
  -- A weak table loses pairs to an emergency collection, mid-walk: even as
  -- the mark, it is no data.
  local weak_meta = { __mode = "v" }
  refused({ setmetatable({ "x" }, weak_meta) }, "weak table")
  T.eq((core.plan_key({ setmetatable({ "x" }, weak_meta) }, weak_meta)), nil, "weak, as the mark")
  -- Without a mark, a preset is a table with a metatable like any other.
  T.eq((core.plan_key({ tools.shell })), nil, "no mark given")
end)

-- lcsb's modules as a script left them (core.plan_unchanged, src/lua_stock.c):
-- a key says "stock" for them only while they are what the build loads.
local function unchanged() return core.plan_unchanged(plans.state_roots(lcsb)) end

-- Every table the roots reach, once each.
local function tables_of(roots)
  local seen, list = {}, {}
  local function walk(t)
    if seen[t] then return end
    seen[t] = true
    list[#list + 1] = t
    for _, v in pairs(t) do if type(v) == "table" then walk(v) end end
  end
  walk(roots)
  return list
end

T.case("lcsb's modules as loaded are unchanged, and written out alike in any environment", function()
  T.ok(unchanged(), "as loaded")
  T.ok(unchanged(), "asked twice")
  -- "stock" stands for this state in a key: it must be the build's alone,
  -- never the environment's or the directory's a module read as it loaded.
  local probe = [[
    local core, lcsb, plans = require "lcsb.core", require "lcsb", require "lcsb.plan"
    local state = assert(core.plan_state(plans.state_roots(lcsb)))
    io.write(#state, " ", (state:gsub("[^%w]", ""):sub(1, 4096)))
  ]]
  local lua = arg[-1]
  -- What runs lua itself (a sanitizer's runtime, preloaded) goes along.
  local runtime = ""
  for _, name in ipairs { "LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS" } do
    if os.getenv(name) then runtime = runtime .. ("%s=%q "):format(name, os.getenv(name)) end
  end
  local function state_in(env, dir)
    local cmd = ("cd %s && env -i %sLUA_PATH=%q LUA_CPATH=%q %s %q -e %q"):format(dir, runtime,
      package.path, package.cpath, env, lua, probe)
    local p = assert(io.popen(cmd))
    local out = p:read("a")
    p:close()
    return out
  end
  local here_state = state_in("HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8", "/")
  T.ok(#here_state > 1000, "a state written out")
  T.eq(state_in("HOME=/nonexistent PATH=/nowhere XDG_STATE_HOME=/x LANG=C", "/tmp"), here_state,
    "another environment and directory")
end)

T.case("each change a script can make to lcsb's modules is seen", function()
  local shell = tools.shell
  local function seen(what, change, undo)
    change()
    T.ok(not unchanged(), what .. ": seen")
    undo()
    T.ok(unchanged(), what .. ": undone, unchanged again")
  end
  seen("a program added to a preset", function() shell[#shell + 1] = "/usr/bin/zz" end,
    function() shell[#shell] = nil end)
  local last = shell[#shell]
  seen("a program taken out", function() shell[#shell] = nil end,
    function() shell[#shell + 1] = last end)
  local first = shell[1]
  seen("a program replaced", function() shell[1] = first .. "x" end,
    function() shell[1] = first end)
  local exec_policy = lcsb.exec_policy
  seen("a function replaced", function() lcsb.exec_policy = function() end end,
    function() lcsb.exec_policy = exec_policy end)
  local stock_pairs = pairs
  seen("a global replaced", function() _G.pairs = function() end end,
    function() _G.pairs = stock_pairs end)
  local format = string.format
  seen("the standard library changed", function() string.format = print end,
    function() string.format = format end)
  local meta = getmetatable(shell)
  seen("a metatable taken away", function() setmetatable(shell, nil) end,
    function() setmetatable(shell, meta) end)
  seen("a metatable given", function() setmetatable(lcsb.run_later, {}) end,
    function() setmetatable(lcsb.run_later, nil) end)
  -- An integer where a float was (or back) is other data, though equal.
  local number_at
  for _, t in ipairs(tables_of(plans.state_roots(lcsb))) do
    for k, v in pairs(t) do
      if math.type(v) == "integer" then number_at = { t, k, v } break end
    end
    if number_at then break end
  end
  T.ok(number_at, "an integer somewhere in lcsb's modules")
  local t, k, v = table.unpack(number_at)
  seen("an integer made a float", function() t[k] = v + 0.0 end, function() t[k] = v end)
  -- A table where the copy had another with the same pairs: the same data
  -- now, but one table where there were two (a change to one is a change to
  -- both), which the state writes differently.
  local twins
  local all = tables_of(plans.state_roots(lcsb))
  for i = 1, #all do
    for j = i + 1, #all do
      if next(all[i]) == nil and next(all[j]) == nil and not getmetatable(all[i])
        and not getmetatable(all[j]) then twins = { all[i], all[j] } break end
    end
    if twins then break end
  end
  T.ok(twins, "two empty tables among lcsb's modules")
  local holder, key
  for _, t in ipairs(all) do
    for k, v in pairs(t) do if v == twins[2] then holder, key = t, k end end
  end
  seen("one table where there were two alike", function() holder[key] = twins[1] end,
    function() holder[key] = twins[2] end)
  -- And two tables where there was one: lcsb.run_later is also a root of its
  -- own; a copy of it, pair for pair, in one of the two places.
  local run_later = lcsb.run_later
  local alike = setmetatable({}, getmetatable(run_later))
  for k, v in pairs(run_later) do alike[k] = v end
  seen("two tables alike where there was one", function() lcsb.run_later = alike end,
    function() lcsb.run_later = run_later end)
end)

T.case("a key is made, and a plan composed, in the C locale, whatever the script set", function()
  -- Lua's character classes, string order and numbers' text follow the
  -- locale, and a locale's name does not say what it means.
  local before = os.setlocale()
  T.ok(os.setlocale("C.UTF-8"), "the script's locale set")
  local seen
  local ok, err = pcall(plans.compose_cached, {}, {}, function()
    seen = os.setlocale()
    error("composed no further", 0)
  end, lcsb)
  local after = os.setlocale()
  os.setlocale(before)
  T.eq(ok, false, "the composition's error")
  T.eq(err, "composed no further", "passed on as it was")
  T.eq(seen, "C", "the locale while composing")
  T.eq(after, "C.UTF-8", "the script's locale given back")
end)

T.case("a function of lcsb's moved makes no key, under any key", function()
  local function why() return select(2, core.plan_state(plans.state_roots(lcsb))) end
  local moved = "a function of lcsb's where lcsb's modules did not have it"
  T.ok(core.plan_state(plans.state_roots(lcsb)), "as loaded, a state")
  local getenv = plans.getenv
  plans.getenv = os.getenv
  T.eq(why(), moved, "another's in its place")
  plans.getenv = getenv
  -- Keys whose text could read as another place's: a NUL, a dot, a number.
  for _, k in ipairs { "getenv\0x", "getenv.x", 1 } do
    plans[k] = getenv
    T.eq(why(), moved, "a copy under " .. ("%q"):format(k))
    plans[k] = nil
  end
  T.ok(core.plan_state(plans.state_roots(lcsb)), "put back, a state again")
end)

T.case("tables with no pairs are kept and compared like any", function()
  local which = core.plan_stock({})
  T.ok(core.plan_unchanged({}, which), "an empty root")
  T.ok(not core.plan_unchanged({ x = 1 }, which), "a pair added to it")
  local shared = {}
  which = core.plan_stock({ a = shared, b = { shared, {} } })
  T.ok(core.plan_unchanged({ a = shared, b = { shared, {} } }, which), "as kept")
  T.ok(not core.plan_unchanged({ a = {}, b = { {}, {} } }, which), "two tables where there was one")
end)

T.case("no finalizer of the script's runs while lcsb walks its tables", function()
  -- A collection that lcsb's own walk starts would run the script's
  -- finalizers in it, and one could change the tables being walked (pairs
  -- counted, then more of them: memory past what was counted for).
  local inside = 0
  local function trap()
    -- A C function of lcsb.core's on the stack: "in function 'lcsb.core.plan_state'".
    if debug.traceback():find("core%.plan_") then inside = inside + 1 end
    setmetatable({}, { __gc = trap })
  end
  setmetatable({}, { __gc = trap })
  local big = {}
  for i = 1, 20000 do big[string.rep("k", 200) .. i] = i end
  collectgarbage("incremental", 100, 100, 13)
  lcsb.big = big
  for _ = 1, 3 do
    T.ok(not core.plan_unchanged(plans.state_roots(lcsb)), "a table added is a change")
    T.ok(core.plan_state(plans.state_roots(lcsb)), "the state written out")
    T.ok(core.plan_key({ big = big }, tools.preset_mark), "a key")
  end
  lcsb.big = nil
  collectgarbage("incremental", 200, 100, 13)
  collectgarbage()
  T.eq(inside, 0, "finalizers run inside lcsb's walks")
  T.ok(unchanged(), "lcsb's modules as loaded again")
end)

T.run()
