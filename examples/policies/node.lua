-- A Node project: `lcsb node.lua -- npm test`.
-- npm is a script run by node; its cache lives in the private HOME. The
-- registry is HTTPS, so `npm ci` needs connect = { 443 }; tests need none.
local lcsb = require "lcsb"
return function(run)
  local installing = run.argv[2] == "ci" or run.argv[2] == "install"
  return lcsb.exec_policy {
    exec = { "node", "npm", "sh" },
    net = installing and { connect = { 443 } } or false,
  }
end
