-- A C project built with make: `lcsb make.lua -- make`.
-- gcc runs its helpers (cc1, collect2) from its private directory, which is
-- granted whole; as and ld are named. Only what the policy names may run:
-- a program the build writes may not, unless its directory is added to exec.
local lcsb = require "lcsb"

local function gcc_private_dir()
  local pipe = io.popen("gcc -print-prog-name=cc1")
  local cc1 = pipe and pipe:read("l")
  if pipe then pipe:close() end
  return cc1 and cc1:match("^(/.+)/cc1$")
end

return lcsb.exec_policy {
  exec = { "make", "sh", "cc", "gcc", "as", "ld", gcc_private_dir() },
  net = false,
}
