-- A Node project: `lcsb node.lua -- npm test`.
-- npm is a script run by node; its cache lives in the private HOME. Installing
-- reaches the registry, by name, through lcsb's proxy (npm reads the
-- HTTPS_PROXY lcsb sets); nothing else is reachable, and tests need no network.
-- A registry of your own (`npm config get registry`) goes in domains instead.
-- npm's settings pass from the caller's environment (NPM_CONFIG_*, but never
-- a token such as NPM_CONFIG__AUTH, which a pattern cannot pass), and CI.
local lcsb = require "lcsb"
return function(run)
  local installing = run.argv[2] == "ci" or run.argv[2] == "install"
  return lcsb.exec_policy {
    exec = { "node", "npm", "sh" },
    env = { pass = { "CI", "NODE_ENV", "NPM_CONFIG_*" } },
    net = installing and { domains = { "registry.npmjs.org" } } or false,
  }
end
