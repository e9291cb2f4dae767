-- The demo's policy: the project is readable and writable, the system is
-- readable, and only the shell and the tools the build script uses may run.
-- Nothing else of this machine is reachable: not HOME, not /tmp, no network.
local lcsb = require "lcsb"

return function(run)
  return lcsb.exec_policy {
    project = run.cwd,
    exec = { "sh", "cat", "date", "ls" },
    env = { BUILD_MODE = "demo" },
    net = false,
  }
end
