-- lcsb.learn: what a learning run says to add to a policy script (lcsb
-- learn). The command ran under the script's policy with every program
-- allowed, and what the policy itself would refuse was recorded: each
-- program run outside its exec tier (the shim's init sees every exec,
-- static programs' too) and each read, write or connection refused. Apart
-- from the hints, which word one failed run's refusals: learning turns all
-- of a run's programs into one change of the script, presets first, and
-- says what it leaves out and why.

local core = require "lcsb.core"
local exec_tier = require "lcsb.exec_tier"
local paths = require "lcsb.paths"
local refusal_groups = require "lcsb.refusal_groups"
local tiers = require "lcsb.tiers"
local tools = require "lcsb.tools"

local M = {}

local covered, set = paths.covered, paths.set


local function list(value) return type(value) == "table" and value or {} end

-- ---- what each preset reaches ----

-- The files preset NAME lets run here, as a set: composed the way
-- exec_policy composes exec = { lcsb.tools.NAME } for the run's project
-- (its programs, their interpreters and closures). Empty where it cannot.
local function reach(ev, memo, name)
  if memo[name] == nil then
    local policy = ev.policy
    local acc = exec_tier.new_acc(policy.cwd, set(list(policy.read)), set(list(policy.write)),
      false)
    acc.policy_hide = set(list(policy.hide))
    acc.path_dirs = exec_tier.path_dirs()
    acc.on_path_planted = exec_tier.planted_on_path(acc)
    local ok, files = pcall(exec_tier.exec_tier, { exec = { tools[name] } }, {}, acc)
    memo[name] = ok and type(files) == "table" and files or {}
  end
  return memo[name]
end

local function reaches(files, target)
  return files[target] == true or files[core.realpath(target) or target] == true
end

-- The preset that lets TARGET run with the least besides (shell before c
-- for sed), or nil.
local function smallest_preset(ev, memo, target)
  local best, best_n
  for _, name in ipairs(tools.preset_names or {}) do
    local files = reach(ev, memo, name)
    if reaches(files, target) and (not best_n or #files < best_n) then best, best_n = name, #files end
  end
  return best
end

-- ---- the programs the run used ----

-- Does PATH lie where built = true lets programs run: the project (not its
-- .git, whose hooks no build made) or the run's private TMPDIR?
local function built_here(ev, path)
  local policy = ev.policy
  local env = list(policy.env)
  local tmp = type(env.set) == "table" and env.set.TMPDIR or nil
  for _, dir in ipairs { policy.cwd, tmp } do
    if type(dir) == "string" and path:sub(1, #dir + 1) == dir .. "/" then
      return not path:find("/.git/", 1, true)
    end
  end
  return false
end

-- Why TARGET, a program the run used outside the project, may not be
-- proposed at all, or nil. Every one is asked, an interpreter a #! line
-- named as much as a program the init saw: the command chose both.
local function not_proposed(ev, target, writes)
  local kind, why = refusal_groups.classify(ev, { op = "exec", key = "exec", target = target })
  if kind == "withheld" then return why end
  -- Where the command writes (a write path, a cache, the private HOME) it
  -- may have made the program to be proposed: the path itself, what it
  -- leads to, or a link on the way there.
  if covered(writes, target) or covered(writes, core.realpath(target) or target)
    or tiers.passes_through(target, writes) then
    return "it lies where the command writes, so it may be one the command made; name it "
      .. "yourself if it should run"
  end
end

-- Why TARGET, which no preset holds, may not be proposed by its path, or
-- nil: only what PATH finds by that name is; a path the command reached
-- through a symlink of its own, or a file no one runs, is its choice.
local function not_by_path(target)
  local found = core.which(paths.basename(target))
  local real = core.realpath(target) or target
  if not found or found[1] ~= real then
    return "PATH does not find it by its name, so it is a path the command chose; name it "
      .. "yourself if it should run"
  end
end

-- The change: presets (name -> the programs it was chosen for), built (the
-- project's programs), programs (paths no preset holds), in the order
-- first met; and left_out ({ target, why }) and other (refusals the hints
-- word) for the report.
local function gather(ev)
  local change = { presets = {}, preset_order = {}, built = {}, programs = {}, left_out = {},
    other = {}, absent = {} }
  local memo, seen = {}, {}
  local exec_now, writes = set(list(ev.policy.exec)), set(list(ev.policy.write))
  local reads = set(list(ev.policy.read))
  local function program(target)
    -- The kernel judges the file a link leads to: a link in the project
    -- under built = true is not let run by that alone.
    local real = core.realpath(target)
    if seen[target] or covered(exec_now, real or target) then return end
    seen[target] = true
    -- A link in the project to a program elsewhere runs that program, which
    -- built = true does not let run: it is learned as what it leads to.
    if built_here(ev, target) and real and not built_here(ev, real) then return program(real) end
    if built_here(ev, target) then
      change.built[#change.built + 1] = target
      -- What the kernel runs it with (a configure's #!/bin/sh) must run too.
      local files = core.which(target) or {}
      for i = 2, #files do program(files[i]) end
      return
    end
    local why = not_proposed(ev, target, writes)
    local preset = not why and smallest_preset(ev, memo, target)
    why = why or (not preset and not_by_path(target))
    if preset then
      if not change.presets[preset] then
        change.presets[preset] = {}
        change.preset_order[#change.preset_order + 1] = preset
      end
      table.insert(change.presets[preset], target)
    elseif why then
      change.left_out[#change.left_out + 1] = { r = { op = "exec", target = target }, why = why }
    else
      change.programs[#change.programs + 1] = target
      change.absent[target] = not covered(reads, target) or nil
    end
  end
  for _, r in ipairs(list(ev.attestation and ev.attestation.refused)) do
    local kind, why = refusal_groups.classify(ev, r)
    if kind == "exec" and r.target:sub(1, 1) == "/" then
      program(r.target)
    elseif kind == "withheld" and r.op == "read"
      and (r.target:find("^/proc/") or r.target:find("^/sys/")) then
      -- The world shows a little of /proc and /sys on purpose; programs
      -- probe the rest (node, a cgroup's memory limit) and cope.
      change.probes = (change.probes or 0) + 1
    elseif kind == "withheld" then
      change.left_out[#change.left_out + 1] = { r = r, why = why }
    else
      change.other[#change.other + 1] = r
    end
  end
  -- A preset whose every program another chosen one lets run too goes:
  -- shell, once autotools is in.
  for _, name in ipairs(change.preset_order) do
    for _, other in ipairs(change.preset_order) do
      if other ~= name and change.presets[other] and change.presets[name] then
        local all = true
        for _, target in ipairs(change.presets[name]) do
          all = all and reaches(reach(ev, memo, other), target)
        end
        if all then
          table.move(change.presets[name], 1, #change.presets[name], #change.presets[other] + 1,
            change.presets[other])
          change.presets[name] = nil
        end
      end
    end
  end
  return change
end

-- ---- the script's text ----

-- The end of the long bracket of level EQ ("==") opened before AT in
-- SOURCE, or the end of SOURCE.
local function long_end(source, eq, at)
  local _, stop = source:find("]" .. eq .. "]", at, true)
  return stop or #source
end

-- SOURCE with its comments and strings blanked (newlines kept, every
-- offset the same), as Lua's lexer reads them: where a pattern matches
-- this, it matches code, never a comment or a string that looks like it.
local function code_only(source)
  local out, i = {}, 1
  while i <= #source do
    local at = source:find("[%-%[\"']", i) or #source + 1
    out[#out + 1] = source:sub(i, at - 1)
    if at > #source then break end
    local c, stop = source:sub(at, at), nil
    if source:sub(at, at + 1) == "--" then
      local eq = source:match("^%[(=*)%[", at + 2)
      stop = eq and long_end(source, eq, at + 4 + #eq) or (source:find("\n", at, true) or #source + 1) - 1
    elseif c == "[" and source:match("^%[=*%[", at) then
      local eq = source:match("^%[(=*)%[", at)
      stop = long_end(source, eq, at + 2 + #eq)
    elseif c == '"' or c == "'" then
      stop = at + 1
      while stop <= #source and source:sub(stop, stop) ~= c and source:sub(stop, stop) ~= "\n" do
        if source:sub(stop, stop) ~= "\\" then
          stop = stop + 1
        elseif source:sub(stop + 1, stop + 1) == "z" then -- \z: the blanks after it go too
          stop = select(2, source:find("^%s*", stop + 2)) + 1
        else -- an escape, \ and a newline (\r\n: one) among them
          stop = stop + (source:sub(stop + 1, stop + 2) == "\r\n" and 3 or 2)
        end
      end
    end
    if stop then
      out[#out + 1] = source:sub(at, stop):gsub("[^\n]", " ")
      i = stop + 1
    else
      out[#out + 1] = c
      i = at + 1
    end
  end
  return table.concat(out)
end

-- PATH as a Lua string of printable ASCII: a byte outside it (a control,
-- a bidi override, any non-ASCII) as \ddd, so that the diff and the file
-- show it as it is.
local function quoted(path)
  return '"' .. path:gsub('[%c"\\\128-\255]', function(b) return ("\\%03d"):format(b:byte()) end) .. '"'
end

-- How SOURCE names lcsb's module (`local lcsb = require "lcsb"`): that
-- name, or an expression that needs none.
local function module_name(source, code)
  for at, name in source:gmatch("()local%s+([%a_][%w_]*)%s*=%s*require%s*%(?%s*[\"']lcsb[\"']") do
    if code:sub(at, at + 4) == "local" then return name end
  end
  return 'require("lcsb")'
end

-- The entries CHANGE adds to exec, as Lua source, and the same for a person.
local function entries(change, source)
  local code = code_only(source)
  local lcsb, out = module_name(source, code), {}
  for _, name in ipairs(change.preset_order) do
    if change.presets[name] and not code:find("tools%." .. name .. "%f[^%w_]") then
      out[#out + 1] = ("%s.tools.%s"):format(lcsb, name)
    end
  end
  for _, path in ipairs(change.programs) do out[#out + 1] = quoted(path) end
  if #change.built > 0 and not code:find("built%s*=%s*true") then out[#out + 1] = "built = true" end
  return out
end

-- CODE (code_only's) from AT, the { of a table constructor: where its }
-- is, and the constructor with every nested { } emptied (braces kept,
-- offsets the same), so that what it holds at its own level shows.
local function constructor(code, at)
  local depth, flat = 0, {}
  for i = at, #code do
    local c = code:sub(i, i)
    if c == "{" then depth = depth + 1 elseif c == "}" then depth = depth - 1 end
    flat[#flat + 1] = (depth > 1 and c ~= "{" and c ~= "}" and c ~= "\n") and " " or c
    if depth == 0 then return i, table.concat(flat) end
  end
end

-- The text edited() checks: ADD placed in SOURCE's one exec_policy { }
-- call, in its own exec = { } key or as a new one, or nil and why.
local function placed(source, add)
  local code, text = code_only(source), table.concat(add, ", ")
  -- The module's function (lcsb.exec_policy), never a local of that name.
  local open, brace = code:find("[%w_]%s*%.%s*exec_policy%s*%(?%s*{")
  if not brace or code:find("exec_policy%s*%(?%s*{", brace + 1) then
    return nil, "it has no single exec_policy { ... } call lcsb can add to"
  end
  local close, flat = constructor(code, brace)
  if not close then return nil, "its exec_policy { ... } call does not end" end
  if source:sub(brace, close):find("%[%s*[\"']exec[\"']%s*%]") then
    return nil, 'its exec key is written ["exec"], which lcsb does not edit'
  end
  open = nil
  for at in flat:gmatch("[{,;%s]()exec%s*=") do
    if open then return nil, "its exec_policy call names exec twice" end
    open = brace - 1 + at
  end
  if not open then
    return source:sub(1, brace) .. " exec = { " .. text .. " }," .. source:sub(brace + 1)
  end
  local value = source:match("^exec%s*=%s*()", open) and source:sub(source:match("^exec%s*=%s*()", open))
  if value:match("^[\"']any[\"']") then return nil, 'exec = "any" lets every program run already' end
  if not value:match("^{") then return nil, "its exec key is not a table lcsb can add to" end
  local at = open + #source:sub(open):match("^exec%s*=%s*{") - 1
  local rest = source:sub(at + 1)
  if rest:match("^%s*}") then
    return source:sub(1, at) .. " " .. text .. " " .. rest:gsub("^%s*", "", 1)
  end
  return source:sub(1, at) .. " " .. text .. ", " .. rest:gsub("^[ \t]*", "", 1)
end

-- SOURCE with ADD (entries of exec) put in its one exec = { ... }, or in
-- its one exec_policy { ... } as a new exec key, in code (never a comment
-- or a string), and still a chunk Lua compiles (compiled, never run); nil
-- and why when the script has no single place lcsb can be sure of.
local function edited(source, add)
  local text, why = placed(source, add)
  if not text then return nil, why end
  local ok, err = load(text, "=policy", "t")
  if not ok then return nil, "the change would not compile there (" .. tostring(err) .. ")" end
  return text
end

-- A unified diff of OLD and NEW (one change, as edited makes), labelled PATH.
local function diff(path, old, new)
  local a, b = {}, {}
  for line in (old .. "\n"):gmatch("(.-)\n") do a[#a + 1] = line end
  for line in (new .. "\n"):gmatch("(.-)\n") do b[#b + 1] = line end
  if old:sub(-1) == "\n" then a[#a] = nil end
  if new:sub(-1) == "\n" then b[#b] = nil end
  local first = 1
  while first <= #a and a[first] == b[first] do first = first + 1 end
  local last_a, last_b = #a, #b
  while last_a >= first and last_b >= first and a[last_a] == b[last_b] do
    last_a, last_b = last_a - 1, last_b - 1
  end
  local from, to_a, to_b = math.max(1, first - 3), math.min(#a, last_a + 3), math.min(#b, last_b + 3)
  local out = { "--- " .. path, "+++ " .. path .. " (learned)",
    ("@@ -%d,%d +%d,%d @@"):format(from, to_a - from + 1, from, to_b - from + 1) }
  for i = from, first - 1 do out[#out + 1] = " " .. a[i] end
  for i = first, last_a do out[#out + 1] = "-" .. a[i] end
  for i = first, last_b do out[#out + 1] = "+" .. b[i] end
  for i = last_a + 1, to_a do out[#out + 1] = " " .. a[i] end
  return table.concat(out, "\n") .. "\n"
end

-- ---- the report ----

local function names_of(targets)
  local out = {}
  for _, t in ipairs(targets) do out[#out + 1] = paths.basename(t) end
  return table.concat(out, ", ")
end

-- What PRESET brings besides its programs, in words: the files of your
-- HOME it shows, the caches it keeps, and that its closures may read more.
local function preset_extras(preset)
  local out = {}
  local home, cache = list(preset and preset.home), list(preset and preset.cache)
  if #home > 0 then
    out[#out + 1] = "shows ~/" .. table.concat(home, ", ~/") .. " of your HOME read-only"
  end
  if #cache > 0 then
    out[#out + 1] = "keeps ~/" .. table.concat(cache, ", ~/") .. " as this project's caches"
  end
  out[#out + 1] = "reads what its programs need (lcsb check lists it)"
  return "; it also " .. table.concat(out, "; ")
end

local function report_change(change, add, lines)
  local n = #change.built + #change.programs
  for _, name in ipairs(change.preset_order) do n = n + #(change.presets[name] or {}) end
  if n == 0 then
    lines[#lines + 1] = "every program the run used, the policy lets run already"
    return
  end
  lines[#lines + 1] = ("the run used %d program(s) the policy does not let run; exec gets: %s")
    :format(n, #add > 0 and table.concat(add, ", ") or "nothing new (the script names them already)")
  for _, name in ipairs(change.preset_order) do
    local targets = change.presets[name]
    if targets then
      lines[#lines + 1] = ("  lcsb.tools.%s for %s%s"):format(name, names_of(targets),
        preset_extras(tools[name]))
    end
  end
  if #change.built > 0 then
    lines[#lines + 1] = ("  built = true for %s (the project's own, or made in the run's TMPDIR: "
      .. "anything the command writes there, it can run)"):format(names_of(change.built))
  end
  for _, path in ipairs(change.programs) do
    lines[#lines + 1] = ("  %s: no preset holds it, named by its path%s"):format(path,
      change.absent[path] and "; the run asked for it, but it is not in the policy's world, so "
        .. "it never ran there: be sure you want it" or "")
  end
end

local function report_rest(ev, change, lines)
  if change.probes then
    lines[#lines + 1] = ("%d read(s) of /proc or /sys the world does not show, left as they are "
      .. "(programs probe them and cope)"):format(change.probes)
  end
  for _, item in ipairs(change.left_out) do
    lines[#lines + 1] = ("left out: %s of %s: %s"):format(item.r.op or item.r.key or "use",
      item.r.target, item.why)
  end
  if #change.other > 0 then
    lines[#lines + 1] = "not learned (the policy refused these, and learning widens only exec; "
      .. "each says what would allow it):"
    for _, line in ipairs(refusal_groups.describe(ev, change.other)) do
      lines[#lines + 1] = "  " .. line
    end
  end
  local att = ev.attestation or {}
  local count = tonumber(att.refused_count) or 0
  if count > #list(att.refused) then
    lines[#lines + 1] = ("%d more refusals were counted than the attestation names: run lcsb "
      .. "learn again once this change is trusted"):format(count - #list(att.refused))
  end
end

-- What the learning run EV (explain's evidence: the attestation, the
-- policy's tables) says to add to the script at PATH, whose text is SOURCE:
-- { lines = the report, text = SOURCE changed (nil when nothing is to be
-- added, or lcsb cannot place it: the report says what to add), diff }.
function M.propose(ev, path, source)
  local lines = {}
  local att = ev.attestation or {}
  lines[#lines + 1] = ("the command exited %s under the policy with every program allowed "
    .. "(reads, writes and the network as the policy says)"):format(tostring(ev.status))
  if att.execs_seen ~= true then
    lines[#lines + 1] = "this run could not show lcsb every exec (it needs the landlock backend's "
      .. "world, seccomp user notification and the recorder): no program is learned"
  end
  local change = gather(ev)
  local add = entries(change, source)
  report_change(change, add, lines)
  report_rest(ev, change, lines)
  local out = { lines = lines }
  if #add > 0 then
    local why
    out.text, why = edited(source, add)
    if out.text then
      out.diff = diff(path, source, out.text)
    else
      lines[#lines + 1] = ("lcsb cannot place the change in %s: %s; add to its exec_policy: "
        .. "exec = { %s }"):format(path, why, table.concat(add, ", "))
    end
  end
  return out
end

-- What the learning world's environment adds to the policy RESULT's: what
-- a closure would set for a program that may now run (go, in a project
-- that is no repository, fails on the empty .git lcsb holds there unless
-- told not to stamp builds), where the policy sets nothing of its own.
function M.world_env(result)
  local env = list(result.env)
  local set = list(env.set)
  if set.GOFLAGS == nil and type(result.cwd) == "string" and tiers.git_at(result.cwd) == "none" then
    return { GOFLAGS = "-buildvcs=false" }
  end
  return {}
end

M.edited, M.diff, M.quoted = edited, diff, quoted

return M
