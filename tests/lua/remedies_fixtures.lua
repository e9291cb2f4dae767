-- What the tests of the hints share: a fresh directory with the paths they
-- need, the evidence a run gives (an attestation, a policy, a recorded
-- refusal, a stderr tail), the hints for it, and the words the hints end
-- with. Loaded by each test_remedies_*.lua with the harness:
--   local F = loadfile(here .. "/remedies_fixtures.lua")(T)

local T = ...
local remedies = require "lcsb.remedies"
local core = require "lcsb.core"
local tools = require "lcsb.tools"

local F = {}

local D = T.tmpdir()
T.sh("mkdir -p " .. T.q(D .. "/out") .. " " .. T.q(D .. "/proj") .. " " .. T.q(D .. "/work/out"))
T.write(D .. "/out/existing", "")

-- NAME as the hints find it: along the evidence's PATH, else where gcc and
-- git keep their own programs; the bare name when nowhere.
local function which(name)
  for dir in ("/usr/bin:/bin"):gmatch("[^:]+") do
    if core.kind(dir .. "/" .. name) == "file" then return dir .. "/" .. name end
  end
  for _, beside in ipairs { "/usr/lib/gcc/*/*/", "/usr/libexec/gcc/*/*/", "/usr/lib/git-core/",
    "/usr/libexec/git-core/" } do
    local found = tools.glob(beside .. name)
    if found[1] then return found[1] end
  end
  return name
end

local RO = ' ("Read-only file system" here means outside the policy\'s write tier, not a read-only disk)'
local PROTECTED = "it is protected (protect): read-only whatever the policy grants, so nothing "
  .. "planted there (a git hook, an agent's configuration) runs outside the sandbox later"
local LIFT = "; protect = false turns all protection off"
-- A default of protect is let go by its name.
local function lift(name)
  return ('; protect = { "!%s" } lets that default go, protect = false all protection'):format(name)
end

local function attestation(over)
  local att = { backend = "landlock", fs = "enforced", exec = "allowlist", net = "denied",
    net_covers = "all", net_by = "landlock+seccomp", abi = 7, scoped = true, dropped = {},
    world = "own" }
  for k, v in pairs(over or {}) do att[k] = v end
  return att
end

local function evidence(over)
  local ev = {
    argv = { "make" }, status = 1, note = "", attestation = attestation(),
    policy = { read = { "/usr", "/etc" }, write = { D .. "/proj" }, exec = {},
      protect = { D .. "/proj/.git/hooks", D .. "/proj/.git/config" },
      env = { pass = {}, set = { HOME = "/tmp/lcsb-home.x", PATH = "/usr/bin:/bin" }, unset = {} },
      net = false, cwd = D .. "/proj" },
  }
  for k, v in pairs(over or {}) do ev[k] = v end
  return ev
end

-- A recorded refusal, as the attestation has it.
local function refusal(op, key, target, program, over)
  local r = { op = op, key = key, target = target, program = program, errno = 13,
    error = "EACCES", count = 1 }
  for k, v in pairs(over or {}) do r[k] = v end
  return r
end

local function recorded(list, over)
  return attestation { recorded = true, refused = list, refused_count = #list }, over
end

-- The hints for a run that exited 0 and was asked (--report).
local function reported(list, policy)
  local ev = evidence { status = 0, report = true, attestation = recorded(list) }
  if policy then ev.policy = policy end
  return remedies.explain(ev)
end

-- The hints for STDERR, one line, from a run that failed.
local function said(stderr, over)
  local ev = evidence(over)
  ev.stderr = stderr .. "\n"
  return remedies.explain(ev)
end

local function lines(list) return table.concat(list, "\n") end

F.D, F.which, F.RO, F.PROTECTED, F.LIFT, F.lift = D, which, RO, PROTECTED, LIFT, lift
F.attestation, F.evidence, F.refusal, F.recorded = attestation, evidence, refusal, recorded
F.reported, F.said, F.lines = reported, said, lines

return F
