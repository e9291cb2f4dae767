-- A Rust project: `lcsb rust.lua -- sh -c 'cargo build && cargo test'`.
-- The rust preset runs cargo, rustc and rustdoc (a rustup install's
-- proxies bring the toolchain they select), links with cc, and keeps
-- cargo's registry cache for the project between runs. built = true lets
-- what cargo builds (target/) run. Fetching crates needs
-- net = { domains = { "index.crates.io", "static.crates.io" } }.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.rust, lcsb.tools.shell, built = true },
  net = false,
}
