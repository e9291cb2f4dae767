-- What the exec_policy tests (test_exec_policy_*.lua) share: the policy's
-- result, the error exec_policy raises and where, and lookups done here
-- independently of lcsb's own. Loaded after harness.lua, which it is given:
--   local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)

local T = ...
local lcsb = require "lcsb"

local ME = "exec_policy_helpers.lua"

local H = {}

-- exec_policy's result, twice: as the policy's tables, and as what wrap takes.
function H.policy(opts)
  local result = lcsb.exec_policy(opts)
  return result, result
end

function H.mode(path) return T.trim(T.sh("stat -c %a " .. T.q(path))) end

function H.realpath(path) return T.trim(T.sh("readlink -f " .. T.q(path))) end

-- NAME looked up on PATH the way execvp does (not the shell: `true` is a builtin).
function H.on_path(name)
  for dir in (os.getenv("PATH") or "/usr/bin:/bin"):gmatch("[^:]+") do
    local f = dir .. "/" .. name
    if lcsb.kind(f) == "file" then return f end
  end
end

-- The error exec_policy raises for OPTS, and the line that made the call.
function H.policy_error(opts)
  local line
  local ok, err = pcall(function()
    line = debug.getinfo(1, "l").currentline + 1
    local p = lcsb.exec_policy(opts)
    return p
  end)
  T.ok(not ok, "exec_policy should have failed")
  err = tostring(err)
  -- Blamed on the line that called exec_policy, wherever inside it the check was.
  T.has(err, ("%s:%d:"):format(ME, line), "error position")
  return err
end

-- PT_INTERP of a 64-bit little-endian ELF file, read here independently of
-- lcsb's resolver; nil when it has none.
function H.elf_interp(path)
  local f = assert(io.open(path, "rb"))
  local data = f:read("a")
  f:close()
  if data:sub(1, 4) ~= "\127ELF" or data:byte(5) ~= 2 or data:byte(6) ~= 1 then return nil end
  local phoff = string.unpack("<I8", data, 33)
  local phentsize, phnum = string.unpack("<I2I2", data, 55)
  for i = 0, phnum - 1 do
    local at = phoff + i * phentsize + 1
    local ptype = string.unpack("<I4", data, at)
    if ptype == 3 then
      local offset, _, _, filesz = string.unpack("<I8I8I8I8", data, at + 8)
      return (data:sub(offset + 1, offset + filesz):gsub("%z+$", ""))
    end
  end
end

return H
