-- A shell script: `lcsb shell.lua -- sh ./script.sh`.
-- The shell preset lets the shells, coreutils and the text and archive
-- tools run (sed, awk, grep, find, xargs, tar, ...); nothing that reaches
-- the network or changes who runs. The project is readable and writable,
-- the system readable; nothing else of this machine is there.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.shell },
  net = false,
}
