-- A Ruby project: `lcsb ruby.lua -- rake test`.
-- The ruby preset runs ruby, gem, bundle, rake, irb and the shell's tools
-- (rake's sh tasks), reads the gems installed for the whole system
-- (/var/lib/gems), and keeps what gem and bundle install for the user in
-- caches of the project's own between runs: the gems you installed in
-- your own ~/.local/share/gem are not seen. Never ~/.gem/credentials,
-- rubygems' API key.
-- Installing gems needs net = { domains = { "rubygems.org", "index.rubygems.org" } }.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.ruby },
  net = false,
}
