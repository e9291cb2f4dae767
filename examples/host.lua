-- host.lua: sandbox a command from a stock Lua 5.4 program.
--
--     lua5.4 host.lua DIR CMD [ARG...]
--
-- `require "lcsb"` finds the installed module (PREFIX/share/lua/5.4 and
-- PREFIX/lib/lua/5.4 are on stock Lua's default paths for /usr/local; for
-- another prefix LUA_PATH and LUA_CPATH name them, README's "Install"), and
-- the module finds the shim of its install. DIR is an absolute path.
-- The policy is built here, wrapped into the argv that enforces it, attested,
-- and run; the private HOME lives until the scope closes.
local lcsb = require "lcsb"

local dir, command = arg[1], { table.unpack(arg, 2) }
if not dir or #command == 0 then
  io.stderr:write("usage: lua5.4 host.lua DIR CMD [ARG...]\n")
  os.exit(125)
end

local scope <close> = lcsb.scope()
-- exec_policy's result: the policy, its tables, what it left out.
local result = lcsb.exec_policy {
  scope = scope,          -- who owns the private HOME and TMPDIR
  project = dir,          -- readable, writable, the working directory
  exec = { command[1] },  -- outside a run, the command is named here
  net = false,
}
local argv = assert(lcsb.wrap(result, command))
local attestation = assert(lcsb.attest(argv))
io.stderr:write(("host.lua: fs %s, exec %s, net %s\n"):format(attestation.fs,
  attestation.exec, attestation.net))

-- Stock Lua runs programs through the shell only: quote every word.
local words = {}
for i, word in ipairs(argv) do words[i] = "'" .. word:gsub("'", "'\\''") .. "'" end
local ok, how, status = os.execute("cd '" .. dir:gsub("'", "'\\''") .. "' && " .. table.concat(words, " "))
scope:close()
os.exit(ok and 0 or (how == "signal" and 128 + status or status))
