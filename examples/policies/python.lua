-- A Python project: `lcsb python.lua -- python3 -m pytest`.
-- The project's own virtualenv (.venv, inside the project) is readable and
-- writable already; its interpreter is a symlink to the system's python3,
-- which `exec` resolves. No network: install dependencies before, outside.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { "python3" },
  env = { PYTHONDONTWRITEBYTECODE = "1" },
  net = false,
}
