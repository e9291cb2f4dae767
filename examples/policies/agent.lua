-- A coding agent's commands in a Python repository: edit with the shell's
-- tools, run the tests, commit as you:
-- `lcsb agent.lua -- sh -c 'sed -i ... && python3 -m pytest && git commit -am ...'`.
-- shell + git + python presets; the repository's hooks and config, and the
-- coding agents' own configuration at its root (.claude/, .cursor/, an
-- .mcp.json that exists, ...), stay read-only (protect's defaults): an
-- agent's directory the project lacks is held empty for the run, and an
-- .mcp.json the command makes is named after it. A step meant to write one
-- says so: protect = { "!.mcp.json" }.
-- built = true lets the project's own programs (a venv's) run. No network.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.shell, lcsb.tools.git, lcsb.tools.python, built = true },
  net = false,
}
