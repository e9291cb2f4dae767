-- A Node project: `lcsb node.lua -- sh -c 'npm install && npm test'`.
-- The node preset runs node, npm and npx (and the shell preset, for package
-- scripts), with npm's cache kept for the project between runs. Only the
-- registry is reachable, by name, through lcsb's proxy (npm reads the
-- HTTPS_PROXY lcsb sets); a registry of your own (`npm config get registry`)
-- goes in domains instead. CI and npm's settings (NPM_CONFIG_*, never a
-- token such as NPM_CONFIG__AUTH, which a pattern cannot pass) come along.
-- built = true lets the project's files run: npm test's tools are there, in
-- node_modules/.bin (mocha, jest, tsc), and so are the native programs some
-- packages bring (esbuild's). It lets run whatever npm installed, which
-- node would run as JavaScript anyway; without it, name each by its path.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.node, built = true },
  env = { pass = { "CI", "NODE_ENV", "NPM_CONFIG_*" } },
  net = { domains = { "registry.npmjs.org" } },
}
