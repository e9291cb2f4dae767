-- A make build in a container: `lcsb --backend oci container.lua -- make`.
-- The root is an empty directory of its own (podman makes mount points in
-- it); the system the build sees is the host's, mounted read-only into it.
-- A container holds no exec allowlist: anything the build can read, it can
-- run (the attestation says exec: open). Swap rootfs for image = "NAME" to
-- build against an image's system instead.
local lcsb = require "lcsb"

local cache = os.getenv("XDG_CACHE_HOME") or (os.getenv("HOME") .. "/.cache")
local root = cache .. "/lcsb/empty-root"
for _, dir in ipairs { cache, cache .. "/lcsb", root } do
  if not lcsb.kind(dir) then assert(lcsb.mkdir(dir)) end
end

return lcsb.exec_policy {
  net = false,
  oci = { rootfs = root, args = { "--pids-limit=512" } },
}
