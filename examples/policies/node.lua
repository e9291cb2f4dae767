-- A Node project: `lcsb node.lua -- npm test`.
-- npm is a script run by node; its cache lives in the private HOME. The
-- registry is HTTPS, so `npm ci` needs connect = { 443 }; tests need none.
-- npm's settings pass from the caller's environment (NPM_CONFIG_*, but never
-- a token such as NPM_CONFIG__AUTH, which a pattern cannot pass), and CI.
local lcsb = require "lcsb"
return function(run)
  local installing = run.argv[2] == "ci" or run.argv[2] == "install"
  return lcsb.exec_policy {
    exec = { "node", "npm", "sh" },
    env = { pass = { "CI", "NODE_ENV", "NPM_CONFIG_*" } },
    net = installing and { connect = { 443 } } or false,
  }
end
