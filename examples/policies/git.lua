-- Work in a repository as you: `lcsb git.lua -- sh -c 'git add -A && git commit -m ...'`.
-- The git preset runs git and its helpers, and shows the command your
-- identity and settings (~/.gitconfig, ~/.config/git's config, ignore and
-- attributes) read-only; never your credentials. The repository's hooks and
-- config stay read-only: a command cannot plant a hook that runs later.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.shell, lcsb.tools.git },
  net = false,
}
