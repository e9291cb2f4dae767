-- A coding agent's commands in a Python repository: edit with the shell's
-- tools, run the tests, commit as you:
-- `lcsb agent.lua -- sh -c 'sed -i ... && python3 -m pytest && git commit -am ...'`.
-- shell + git + python presets; the repository's hooks and config, and the
-- agents' own configuration (.claude/, .mcp.json, ...), stay read-only.
-- built = true lets the project's own programs (a venv's) run. No network.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.shell, lcsb.tools.git, lcsb.tools.python, built = true },
  net = false,
}
