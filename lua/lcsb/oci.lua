-- lcsb.oci: the container's world a policy's oci key describes, checked.
-- Apart from lcsb/init.lua as the one key only a backend of its own reads,
-- and loaded only when composing: a kept plan holds the result.

local core = require "lcsb.core"
local plan = require "lcsb.plan"
local tiers = require "lcsb.tiers"

-- Errors carry no position here: exec_policy re-raises them at the script's
-- line that called it.
local function fail(msg) error(msg, 0) end

-- The container's world for --backend oci: an image, or a directory as the
-- root (an empty one will do: the read baseline is mounted into it); the
-- engine (podman or docker; the detected one by default) and more `run`
-- options. Only the OCI backend reads it; the C core checks the rest.
local OCI_KEYS = { image = "string", rootfs = "string", engine = "string", args = "table" }

local function oci_world(opts)
  local given = opts.oci
  if given == nil then return nil end
  for key, value in pairs(given) do
    local want = type(key) == "string" and OCI_KEYS[key]
    if not want then
      fail(("exec_policy: unknown key 'oci.%s' (expected one of: args, engine, image, rootfs)")
        :format(tostring(key)))
    end
    if type(value) ~= want then
      fail(("exec_policy: key 'oci.%s' must be a %s, not a %s"):format(key, want, type(value)))
    end
  end
  if (given.image == nil) == (given.rootfs == nil) then
    fail("exec_policy: key 'oci' needs exactly one of image = NAME and rootfs = DIR")
  end
  local world = { image = given.image, engine = given.engine, args = {} }
  if given.rootfs then
    world.rootfs = tiers.absolute(given.rootfs, "oci.rootfs")
    if core.kind(world.rootfs) ~= "dir" then
      fail(("exec_policy: key 'oci.rootfs': %s is not a directory"):format(world.rootfs))
    end
  end
  local args = given.args or {}
  for key, arg in pairs(args) do
    if math.type(key) ~= "integer" or key < 1 or key > #args or type(arg) ~= "string" then
      fail("exec_policy: key 'oci.args' must be a list of strings")
    end
    world.args[key] = arg
  end
  return world
end

local M = { oci_world = oci_world }

-- Named now, before a policy script can change it: a plan's key holds its
-- state when a script did (lcsb.plan).
plan.stock_on_demand("lcsb.oci", M)

return M
