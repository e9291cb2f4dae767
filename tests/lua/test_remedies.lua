-- The explain heuristics: the exec hint for a refused execution, nothing for
-- success, and, over a walk of synthetic evidence, every hint names only
-- exec_policy keys and lcsb flags that exist (DESIGN rule 7).

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local remedies = require "lcsb.remedies"

-- The keys exec_policy takes (CONTRACT.md) that a user would write.
local POLICY_KEYS = { project = true, read = true, write = true, exec = true, env = true, net = true }

local function evidence(over)
  local ev = {
    argv = { "/usr/bin/make", "-j8" },
    status = 1,
    note = "",
    attestation = { backend = "landlock", fs = "enforced", exec = "allowlist", net = "denied",
      net_covers = "all", net_by = "landlock+seccomp", abi = 7, scoped = true, dropped = {} },
    policy = { read = { "/usr", "/etc" }, write = { "/home/u/proj" }, exec = { "/usr/bin/make" },
      env = { HOME = "/tmp/lcsb-home.x" }, net = false, cwd = "/home/u/proj" },
  }
  for k, v in pairs(over or {}) do ev[k] = v end
  return ev
end

T.case("status 126 under an exec allowlist: the exec hint", function()
  local hints = remedies.explain(evidence { status = 126 })
  T.ok(#hints >= 1, "a hint")
  local text = table.concat(hints, "\n")
  T.has(text, "exec = {", "names the exec key")
  T.has(text, "allowed already", "says the command itself is not the one refused")
  local open = evidence { status = 126 }
  open.attestation = { backend = "none", fs = "open", exec = "open", net = "open" }
  T.eq(#remedies.explain(open), 0, "no exec hint without an allowlist")
end)

T.case("nothing to say about success", function()
  T.eq(#remedies.explain(evidence { status = 0 }), 0, "hints for status 0")
  local open = evidence { status = 0 }
  open.attestation = { backend = "none", fs = "open", exec = "open", net = "open" }
  T.eq(#remedies.explain(open), 0, "hints for status 0 unsandboxed")
end)

T.case("no exec hint when nothing restricted execution", function()
  local ev = evidence { status = 126 }
  ev.attestation.exec = "open"
  ev.policy.exec = "any"
  for _, hint in ipairs(remedies.explain(ev)) do T.hasnt(hint, "exec = {", "hint") end
end)

T.case("status 97: the setup hint", function()
  local hints = remedies.explain(evidence { status = 97 })
  T.ok(#hints >= 1, "a hint")
  T.has(table.concat(hints, "\n"), "lcsb detect")
end)

T.case("a heuristic that raises does not take explain down", function()
  local saved = remedies.heuristics
  remedies.heuristics = { function() error("boom") end, function() return "still here" end }
  local ok, hints = pcall(remedies.explain, evidence())
  remedies.heuristics = saved
  T.ok(ok, "explain survived")
  T.eq(#hints, 1, "hints")
  T.eq(hints[1], "still here", "hint")
end)

-- Every combination of evidence the runner can hand over, and a few stderr
-- tails a future heuristic may read.
local function walk()
  local out = {}
  local statuses = { 0, 1, 2, 97, 124, 125, 126, 127, 128 + 2, 128 + 9, 128 + 15, 255 }
  local attestations = {
    { backend = "landlock", fs = "enforced", exec = "allowlist", net = "denied", net_covers = "all", net_by = "landlock+seccomp", abi = 7, scoped = true, dropped = {} },
    { backend = "landlock", fs = "enforced", exec = "allowlist", net = "open", net_covers = "tcp", net_by = "landlock", abi = 4, scoped = false, dropped = { "net", "scope", "ioctl", "terminal" } },
    { backend = "landlock", fs = "enforced", exec = "open", net = "open", abi = 3, scoped = false },
    { backend = "none", fs = "open", exec = "open", net = "open" },
  }
  local argvs = { { "/usr/bin/make", "-j8" }, { "python3", "-c", "pass" }, { "./build/app" }, {} }
  local notes = { "", "cannot execute ./build/app: Permission denied", "not found" }
  local stderrs = { nil, "Permission denied\n", "connect: Connection refused\n",
    "Read-only file system\n", "No such file or directory\n", "Operation not permitted\n" }
  local policies = {
    { read = {}, write = { "/p" }, exec = { "/usr/bin/make" }, env = {}, net = false, cwd = "/p" },
    { read = {}, write = {}, exec = "any", env = { CI = "1" }, net = true },
    { read = {}, write = {}, exec = {}, env = {}, net = { connect = { 443 }, bind = {} } },
  }
  for _, status in ipairs(statuses) do
    for _, att in ipairs(attestations) do
      for _, argv in ipairs(argvs) do
        for _, note in ipairs(notes) do
          for si = 1, #stderrs + 1 do
            for _, pol in ipairs(policies) do
              out[#out + 1] = { argv = argv, status = status, note = note, attestation = att,
                stderr = stderrs[si], policy = pol }
            end
          end
        end
      end
    end
  end
  return out
end

local function help_text()
  local build = T.build or "."
  local text, code = T.sh(T.q(build .. "/lcsb") .. " --help 2>&1")
  T.eq(code, 0, "lcsb --help")
  T.has(text, "usage:", "lcsb --help")
  return text
end

T.case("every hint names only real policy keys and lcsb flags", function()
  if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
  local help = help_text()
  local produced = {}
  local keys_seen, flags_seen, hints_seen = 0, 0, 0
  for _, ev in ipairs(walk()) do
    for i, heuristic in ipairs(remedies.heuristics) do
      local ok, hint = pcall(heuristic, ev)
      if not ok then
        error(("heuristic %d raised on status %s: %s"):format(i, tostring(ev.status), tostring(hint)))
      end
      if hint ~= nil then
        T.eq(type(hint), "string", "heuristic " .. i .. "'s hint")
        T.ok(#hint > 0 and not hint:find("\n"), "one non-empty line: " .. hint)
        produced[i] = true
        hints_seen = hints_seen + 1
        -- `key = {` and `key = "..."`, as a policy script writes them.
        for key in hint:gmatch("([%a_][%w_%.]*)%s*=%s*[{\"'%w]") do
          local top = key:match("^[^.]+")
          if not POLICY_KEYS[top] then
            error(("hint names policy key '%s', which exec_policy does not take: %s"):format(key, hint))
          end
          keys_seen = keys_seen + 1
        end
        for flag in hint:gmatch("%-%-[%a][%w%-]*") do
          if not help:find(flag, 1, true) then
            error(("hint names %s, which lcsb --help does not list: %s"):format(flag, hint))
          end
          flags_seen = flags_seen + 1
        end
        for sub in hint:gmatch("`lcsb ([%a%-]+)") do
          if not help:find("lcsb " .. sub, 1, true) then
            error(("hint names `lcsb %s`, which lcsb --help does not list: %s"):format(sub, hint))
          end
        end
      end
    end
  end
  -- The walk reached every heuristic: a new one that this evidence never
  -- triggers must come with evidence that does.
  for i = 1, #remedies.heuristics do
    T.ok(produced[i], ("heuristic %d produced a hint for some evidence"):format(i))
  end
  T.ok(hints_seen > 0 and keys_seen > 0, "the walk checked some keys")
  -- And the checks themselves would catch a wrong name.
  T.ok(not POLICY_KEYS["exec_allow"], "a made-up key is not a key")
  T.ok(not help:find("--allow-exec", 1, true), "a made-up flag is not in --help")
end)

T.run()
