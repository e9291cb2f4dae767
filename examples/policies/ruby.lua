-- A Ruby project: `lcsb ruby.lua -- rake test`.
-- The ruby preset runs ruby, gem, bundle, rake, irb and the shell's tools
-- (rake's sh tasks), with the gems installed for the user kept for the
-- project between runs; not ~/.gem/credentials, rubygems' API key.
-- Installing gems needs net = { domains = { "rubygems.org", "index.rubygems.org" } }.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.ruby },
  net = false,
}
