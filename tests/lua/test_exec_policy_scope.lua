-- The scope that removes what exec_policy made, without following what the
-- command planted: links out of HOME, and mode-000 directories (which only an
-- ordinary user's run can show; scripts/test.sh runs this as one). Run by
-- ctest with stock lua5.4 and the built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)
local lcsb = require "lcsb"
local core = require "lcsb.core"

local policy, mode = H.policy, H.mode

T.case("closing the scope removes the private directories", function()
  local s = lcsb.scope()
  local t = policy { scope = s }
  local home, tmp = t.env.set.HOME, t.env.set.TMPDIR
  T.write(home .. "/.bashrc", "x")
  T.sh("mkdir -p " .. T.q(home .. "/a/b/c") .. " && touch " .. T.q(home .. "/a/b/c/d"))
  T.sh("chmod 0 " .. T.q(home .. "/a/b"))
  T.write(tmp .. "/x", "y")
  T.ok(s:close(), "close")
  T.eq(lcsb.kind(home), nil, "HOME removed")
  T.eq(lcsb.kind(tmp), nil, "TMPDIR removed")
  T.ok(s:close(), "closing twice is harmless")
  T.ok(select(2, pcall(s.mkdtemp, s, "x")) ~= nil, "a closed scope makes nothing")
  -- A to-be-closed scope closes at the end of its block.
  do
    local s2 <close> = lcsb.scope()
    home = policy({ scope = s2 }).env.set.HOME
  end
  T.eq(lcsb.kind(home), nil, "HOME removed at the end of the block")
end)

T.case("a symlink planted in HOME does not lead removal outside", function()
  local outside = T.tmpdir()
  T.write(outside .. "/precious", "keep me")
  T.sh("mkdir " .. T.q(outside .. "/dir") .. " && echo keep > " .. T.q(outside .. "/dir/inner"))
  local s = lcsb.scope()
  local t = policy { scope = s }
  local home, tmp = t.env.set.HOME, t.env.set.TMPDIR
  for _, d in ipairs { home, tmp } do
    T.sh(("ln -s %s %s/link && ln -s %s %s/flink && mkdir %s/sub && ln -s %s %s/sub/up && ln %s %s/hard")
      :format(T.q(outside), T.q(d), T.q(outside .. "/precious"), T.q(d), T.q(d),
        T.q(outside .. "/dir"), T.q(d), T.q(outside .. "/precious"), T.q(d)))
    T.eq(lcsb.kind(d .. "/link/precious"), "file", "planted link works")
  end
  local closed, why = s:close()
  T.eq(lcsb.kind(outside), "dir", "outside directory kept")
  T.eq(lcsb.kind(outside .. "/dir"), "dir", "outside subdirectory kept")
  local f = assert(io.open(outside .. "/precious"))
  T.eq(f:read("a"), "keep me", "outside file untouched")
  f:close()
  T.eq(lcsb.kind(outside .. "/dir/inner"), "file", "file beneath the outside directory kept")
  T.ok(closed, "close: " .. tostring(why))
  T.eq(lcsb.kind(home), nil, "HOME removed")
  T.eq(lcsb.kind(tmp), nil, "TMPDIR removed")
end)

T.case("a scope removes a mode-000 directory, through a descriptor, never a link", function()
  -- An outside directory, mode 0755, that a symlink in the scope points at:
  -- opening up an unreadable entry by name (chmod follows links) would have
  -- made it 0700. As root, mode 000 blocks nothing; the unprivileged pass
  -- runs this as an ordinary user, where it does.
  local outside = T.tmpdir()
  T.sh("chmod 0755 " .. T.q(outside))
  T.write(outside .. "/keep", "keep me")
  T.sh("mkdir " .. T.q(outside .. "/sub") .. " && echo inner > " .. T.q(outside .. "/sub/inner"))
  T.sh("chmod 0755 " .. T.q(outside .. "/sub"))
  local s = lcsb.scope()
  local dir = assert(s:mkdtemp("t"))
  T.sh(("mkdir -p %s/locked/deeper && echo x > %s/locked/deeper/f && echo y > %s/locked/g")
    :format(T.q(dir), T.q(dir), T.q(dir)))
  -- Read-only too, as a Go module cache leaves its trees.
  T.sh(("mkdir -p %s/ro/sub && echo z > %s/ro/sub/h && chmod 0555 %s/ro/sub %s/ro")
    :format(T.q(dir), T.q(dir), T.q(dir), T.q(dir)))
  T.sh(("chmod 000 %s/locked/deeper %s/locked"):format(T.q(dir), T.q(dir)))
  for _, name in ipairs { "link", "locked-link" } do
    T.sh(("ln -s %s %s/%s"):format(T.q(outside), T.q(dir), name))
  end
  T.sh(("ln -s %s %s/sublink"):format(T.q(outside .. "/sub"), T.q(dir)))
  T.sh("chmod 0500 " .. T.q(dir)) -- the scope's own directory, too
  local closed, why = s:close()
  T.ok(closed, "close: " .. tostring(why))
  T.eq(lcsb.kind(dir), nil, "the scope's directory is gone")
  T.eq(mode(outside), "755", "outside directory's mode")
  T.eq(mode(outside .. "/sub"), "755", "outside subdirectory's mode")
  local f = assert(io.open(outside .. "/keep"))
  T.eq(f:read("a"), "keep me", "outside file intact")
  f:close()
  T.eq(T.trim(T.sh("cat " .. T.q(outside .. "/sub/inner"))), "inner", "outside subdirectory's file intact")
end)

T.run()
