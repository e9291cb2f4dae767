-- A Go module: `lcsb go.lua -- sh -c 'go build ./... && go test ./...'`.
-- The go preset runs go and gofmt and, by go's closure, the tools go runs
-- itself (compile, link, vet, cgo's C compiler, git to stamp a build), with
-- go's build cache and module cache kept for the project between runs.
-- built = true lets `go test` run the test binaries it builds in the run's
-- private TMPDIR, and what the project builds. Fetching modules needs
-- net = { domains = { "proxy.golang.org", "sum.golang.org" } }.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.go, lcsb.tools.shell, built = true },
  net = false,
}
