-- What the private HOME shows of the real one: home = { ... } entries,
-- read-only, and cache = { ... } directories kept per project; how entries
-- are named, what is refused and why. The file reruns itself with a HOME of
-- its own (and no XDG_*_HOME), which both exec_policy and the C core read.
-- Run by ctest with stock lua5.4 and the built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")

if not os.getenv("LCSB_TEST_OWN_HOME") then
  local home = T.tmpdir()
  local _, _, code = os.execute(("env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u XDG_STATE_HOME "
    .. "HOME=%s LCSB_TEST_OWN_HOME=1 %s %s"):format(T.q(home), T.q(arg[-1]), T.q(arg[0])))
  T.sh("rm -rf " .. T.q(home))
  os.exit(code or 1)
end

local H = assert(loadfile(here .. "/exec_policy_helpers.lua"))(T)
local lcsb = require "lcsb"
local core = require "lcsb.core"

local policy, policy_error, mode = H.policy, H.policy_error, H.mode
local HOME = os.getenv("HOME")

local function readlink(path) return T.trim(T.sh("readlink " .. T.q(path))) end
local function mkdirs(path) T.sh("mkdir -p " .. T.q(path)) end
local function names(list)
  local out = {}
  for i, e in ipairs(list) do out[i] = e.name end
  return table.concat(out, " ")
end

-- Where lcsb keeps PROJECT's caches: the one directory under projects/
-- whose marker names it.
local function project_cache(project)
  local root = HOME .. "/.cache/lcsb/projects"
  for _, name in ipairs(core.listdir(root) or {}) do
    local f = io.open(root .. "/" .. name .. "/project")
    local says = f and f:read("l")
    if f then f:close() end
    if says == lcsb.realpath(project) then return root .. "/" .. name end
  end
end

T.case("home: each entry a read-only symlink at its place in the private HOME", function()
  T.write(HOME .. "/.gitconfig", "[user]\n\tname = Home Person\n")
  mkdirs(HOME .. "/.config/git")
  T.write(HOME .. "/.config/git/ignore", "*.o\n")
  local s <close> = lcsb.scope()
  -- Four spellings of two entries: one each.
  local t = policy { scope = s, project = T.tmpdir(),
    home = { ".gitconfig", "~/.config/git", HOME .. "/.config/git", "./.gitconfig" } }
  local private = t.env.set.HOME
  T.eq(core.lstat(private .. "/.gitconfig"), "link", "~/.gitconfig in the private HOME")
  T.eq(readlink(private .. "/.gitconfig"), HOME .. "/.gitconfig", "it leads to the real one")
  T.eq(core.lstat(private .. "/.config"), "dir", "the directory above an entry is a real one")
  T.eq(readlink(private .. "/.config/git"), HOME .. "/.config/git", "~/.config/git")
  T.eq(mode(private .. "/.config"), "700", "made private")
  T.contains(t.read, HOME .. "/.gitconfig", "read tier")
  T.contains(t.read, HOME .. "/.config/git", "read tier")
  T.lacks(t.write, HOME .. "/.gitconfig", "write tier")
  T.eq(names(t.home), "~/.gitconfig ~/.config/git", "result.home")
  T.eq(t.home[1].path, HOME .. "/.gitconfig", "by its path")
  T.eq(#t.cache, 0, "no cache")
  -- Without home, the private HOME is empty.
  local bare = policy { scope = s, project = T.tmpdir() }
  T.eq((core.listdir(bare.env.set.HOME) or { "?" })[1], nil, "nothing without home")
  T.lacks(bare.read, HOME .. "/.gitconfig", "nothing granted")
end)

T.case("home: an entry is granted, and shown, by its real path", function()
  mkdirs(HOME .. "/dotfiles")
  T.write(HOME .. "/dotfiles/gitconfig", "[user]\n")
  T.sh(("ln -sfn dotfiles/gitconfig %s"):format(T.q(HOME .. "/.gitconfig")))
  local s <close> = lcsb.scope()
  local t = policy { scope = s, project = T.tmpdir(), home = { ".gitconfig" } }
  -- In a world of its own only granted paths exist: the symlink in HOME
  -- would lead nowhere there.
  T.contains(t.read, HOME .. "/dotfiles/gitconfig", "the real path")
  T.lacks(t.read, HOME .. "/.gitconfig", "not the link")
  T.eq(readlink(t.env.set.HOME .. "/.gitconfig"), HOME .. "/dotfiles/gitconfig", "leads there")
  T.sh("rm -f " .. T.q(HOME .. "/.gitconfig"))
end)

T.case("home: an entry that does not exist is left out, for lcsb check to show", function()
  local s <close> = lcsb.scope()
  local t = policy { scope = s, project = T.tmpdir(), home = { ".nothere", ".config/nothere" } }
  T.eq(#t.home, 0, "nothing shown")
  T.eq(core.lstat(t.env.set.HOME .. "/.nothere"), nil, "nothing in the private HOME")
  T.eq(#t.left_out, 2, "both left out")
  T.eq(t.left_out[1].tier, "read", "in the read tier's list")
  T.eq(t.left_out[1].path, HOME .. "/.nothere", "by path")
  T.eq(t.left_out[1].why, "home: does not exist", "why")
end)

T.case("home and cache: entries outside HOME, with '..', empty or HOME itself are refused", function()
  local s <close> = lcsb.scope()
  local project = T.tmpdir()
  for _, key in ipairs { "home", "cache" } do
    local function refused(entry, says)
      local err = policy_error { scope = s, project = project, [key] = { entry } }
      T.has(err, ("key '%s'"):format(key), "names the key")
      T.has(err, says, key .. " " .. tostring(entry))
    end
    refused("/etc/gitconfig", "outside your HOME (" .. HOME .. ")")
    refused(HOME .. "x/.gitconfig", "outside your HOME")
    refused("/", "outside your HOME")
    refused("../x", 'holds ".."')
    refused("~/.config/../.ssh", 'holds ".."')
    refused(".", "your whole HOME")
    refused("", "names nothing")
    refused("~", "your whole HOME")
    refused("~/", "your whole HOME")
    refused(HOME, "your whole HOME")
    refused(HOME .. "/", "your whole HOME")
    refused("a\0b", "NUL")
    refused(5, "entries must be strings, not number")
    T.has(policy_error { scope = s, project = project, [key] = { x = ".npm" } },
      ("key '%s' must be a list"):format(key))
    T.has(policy_error { scope = s, project = project, [key] = ".npm" },
      ("key '%s' must be a table"):format(key))
  end
  T.eq(core.kind(HOME .. "/.cache"), nil, "no cache made for a refused policy")
end)

T.case("home: an entry inside another is seen through it", function()
  mkdirs(HOME .. "/.config/git")
  local s <close> = lcsb.scope()
  local t = policy { scope = s, project = T.tmpdir(), home = { ".config/git", ".config" } }
  T.eq(names(t.home), "~/.config", "the outer one")
  T.eq(readlink(t.env.set.HOME .. "/.config"), HOME .. "/.config", "one link")
end)

T.case("cache: a directory of the project's own, kept between its runs, never another's", function()
  local p1, p2 = T.tmpdir(), T.tmpdir()
  local s <close> = lcsb.scope()
  local t = policy { scope = s, project = p1, cache = { ".npm", "~/.cache/pip" } }
  local kept = project_cache(p1)
  T.ok(kept, "a directory for the project, whose marker names it")
  local leaf = p1:match("[^/]+$")
  T.eq(kept:match("[^/]+$"):sub(1, #leaf + 1), leaf .. "-", "named after the project")
  T.ok(kept:match("%-%x+$"), "and a hash")
  T.eq(names(t.cache), "~/.npm ~/.cache/pip", "result.cache")
  local npm, pip = t.cache[1].path, t.cache[2].path
  T.eq(npm, kept .. "/.npm", "~/.npm")
  T.eq(pip, kept .. "/.cache%2Fpip", "~/.cache/pip, one name")
  for _, dir in ipairs { HOME .. "/.cache", HOME .. "/.cache/lcsb", kept, npm, pip } do
    T.eq(mode(dir), "700", dir)
  end
  T.contains(t.write, npm, "write tier")
  T.contains(t.write, pip, "write tier")
  T.lacks(t.write, kept, "not the project's whole cache directory")
  local private = t.env.set.HOME
  T.eq(readlink(private .. "/.npm"), npm, "seen at ~/.npm")
  T.eq(core.lstat(private .. "/.cache"), "dir", "~/.cache a real directory")
  T.eq(readlink(private .. "/.cache/pip"), pip, "seen at ~/.cache/pip")
  -- What one run writes, the next run of the project reads.
  T.write(npm .. "/kept", "from the first run")
  local again = policy { scope = s, project = p1, cache = { ".npm" } }
  T.eq(again.cache[1].path, npm, "the same directory")
  T.eq(core.kind(readlink(again.env.set.HOME .. "/.npm") .. "/kept"), "file", "kept")
  -- Another project: a directory of its own.
  local other = policy { scope = s, project = p2, cache = { ".npm" } }
  T.ok(other.cache[1].path ~= npm, "another directory")
  T.eq(other.cache[1].path, project_cache(p2) .. "/.npm", "the other project's")
  T.eq(core.kind(other.cache[1].path .. "/kept"), nil, "nothing of the first project's")
  -- Closing the scope takes the private HOME, never the cache.
  s:close()
  T.eq(core.kind(private), nil, "private HOME removed")
  T.eq(core.kind(npm .. "/kept"), "file", "the cache stays")
end)

T.case("home and cache share a directory of the private HOME", function()
  mkdirs(HOME .. "/.cargo")
  T.write(HOME .. "/.cargo/config.toml", "[net]\n")
  local s <close> = lcsb.scope()
  local t = policy { scope = s, project = T.tmpdir(),
    home = { ".cargo/config.toml" }, cache = { ".cargo/registry" } }
  local cargo = t.env.set.HOME .. "/.cargo"
  T.eq(core.lstat(cargo), "dir", "~/.cargo a real directory of the private HOME")
  T.eq(readlink(cargo .. "/config.toml"), HOME .. "/.cargo/config.toml", "home's")
  T.eq(readlink(cargo .. "/registry"), t.cache[1].path, "cache's")
  T.ok(t.cache[1].path:match("/%.cargo%%2Fregistry$"), "kept as one name")
end)

T.case("a home directory holding a cache entry, or the reverse, is refused naming both", function()
  mkdirs(HOME .. "/.cargo")
  T.write(HOME .. "/.cargo/config.toml", "[net]\n")
  local s <close> = lcsb.scope()
  local project = T.tmpdir()
  local err = policy_error { scope = s, project = project, home = { ".cargo" },
    cache = { ".cargo/registry" } }
  T.has(err, "key 'cache': ~/.cargo/registry lies in ~/.cargo, which home shows read-only", "err")
  err = policy_error { scope = s, project = project, home = { ".cargo/config.toml" },
    cache = { ".cargo" } }
  T.has(err, "key 'home': ~/.cargo/config.toml lies in ~/.cargo, which cache keeps per project",
    "err")
  err = policy_error { scope = s, project = project, home = { ".cargo" }, cache = { "~/.cargo" } }
  T.has(err, "~/.cargo is both in home and in cache", "err")
  T.eq(project_cache(project), nil, "no cache made for a refused policy")
  -- A home entry that does not exist holds nothing: the cache is made.
  local t = policy { scope = s, project = project, home = { ".rustup" },
    cache = { ".rustup/toolchains" } }
  T.eq(names(t.cache), "~/.rustup/toolchains", "cache made")
end)

T.case("presets feed the same lists; an entry of theirs that is missing is passed over", function()
  T.write(HOME .. "/.gitconfig", "[user]\n")
  local s <close> = lcsb.scope()
  local project = T.tmpdir()
  local mine = lcsb.tools.preset("mine", { "sh", home = { ".gitconfig", ".from-preset" },
    cache = { ".cache/mine" } })
  local t = policy { scope = s, project = project, exec = { mine },
    home = { ".gitconfig", ".from-policy" } }
  T.eq(names(t.home), "~/.gitconfig", "shown once")
  T.eq(names(t.cache), "~/.cache/mine", "the preset's cache")
  T.eq(t.cache[1].path, project_cache(project) .. "/.cache%2Fmine", "kept for the project")
  T.eq(readlink(t.env.set.HOME .. "/.cache/mine"), t.cache[1].path, "in the private HOME")
  local left = {}
  for _, l in ipairs(t.left_out) do left[#left + 1] = l.path end
  T.contains(left, HOME .. "/.from-policy", "the policy's own, left out and said")
  T.lacks(left, HOME .. "/.from-preset", "the preset's, passed over")
end)

-- Through the CLI: what is refused is a 125 naming the key or the cap.
local function check(project, body, env)
  T.write(project .. "/p.lua", 'local lcsb = require "lcsb"\nreturn lcsb.exec_policy { '
    .. body .. " }\n")
  return T.sh(("cd %s && env %s %s check --no-trust-check --backend none p.lua 2>&1"):format(
    T.q(project), env or "", T.q(T.build .. "/lcsb")))
end

T.case("lcsb check: home and cache shown; a bad entry, a denied path, a bad cache root: 125",
  function()
    if not T.build then return print("     (skipped: LCSB_BUILD_DIR not set)") end
    local project = T.tmpdir()
    T.write(HOME .. "/.gitconfig", "[user]\n")
    local out, code = check(project, 'home = { ".gitconfig", ".nothere" }, cache = { ".npm" }')
    T.eq(code, 0, "check: " .. out)
    T.has(out, "home:", "a section of its own")
    T.has(out, "~/.gitconfig -> " .. HOME .. "/.gitconfig", "the home entry")
    T.has(out, "~/.npm -> " .. project_cache(project) .. "/.npm", "the cache entry")
    T.has(out, "dropped   " .. HOME .. "/.nothere (home: does not exist)", "left out")

    out, code = check(project, 'home = { "/etc/passwd" }')
    T.eq(code, 125, "outside HOME: " .. out)
    T.has(out, "p.lua:2: exec_policy: key 'home': \"/etc/passwd\" is outside your HOME", "names it")

    -- The caps judge the real path: ~/.ssh is refused by name.
    mkdirs(HOME .. "/.ssh")
    out, code = check(project, 'home = { ".ssh" }')
    T.eq(code, 125, "~/.ssh: " .. out)
    T.has(out, "asks to read " .. HOME .. "/.ssh", "names the path")
    T.has(out, "cap deny", "names the cap")
    T.write(HOME .. "/.npmrc", "//registry.npmjs.org/:_authToken=x\n")
    out, code = check(project, 'home = { ".npmrc" }')
    T.eq(code, 125, "~/.npmrc: " .. out)
    T.has(out, HOME .. "/.npmrc", "names the path")

    -- A cache root that is a symlink is refused; so is one in lcsb's own
    -- configuration.
    local elsewhere = T.tmpdir()
    local xdg = T.tmpdir()
    T.sh(("ln -s %s %s"):format(T.q(elsewhere), T.q(xdg .. "/lcsb")))
    out, code = check(project, 'cache = { ".npm" }', "XDG_CACHE_HOME=" .. T.q(xdg))
    T.eq(code, 125, "a symlinked cache root: " .. out)
    T.has(out, "the cache directory " .. xdg .. "/lcsb is a symlink", "names it")
    T.eq((core.listdir(elsewhere) or { "?" })[1], nil, "nothing made where it leads")
    out, code = check(project, 'cache = { ".npm" }',
      "XDG_CACHE_HOME=" .. T.q(HOME .. "/.config/lcsb/cache"))
    T.eq(code, 125, "a cache root in lcsb's configuration: " .. out)
    T.has(out, "lies in lcsb's own directory " .. HOME .. "/.config/lcsb", "names it")
    -- Above it, where its lcsb/ would be lcsb's own configuration.
    out, code = check(project, 'cache = { ".npm" }', "XDG_CACHE_HOME=" .. T.q(HOME .. "/.config"))
    T.eq(code, 125, "a cache root whose lcsb/ is lcsb's configuration: " .. out)
    T.has(out, "lies in lcsb's own directory " .. HOME .. "/.config/lcsb", "names it")
    T.eq(core.kind(HOME .. "/.config/lcsb/projects"), nil, "nothing made there")
    -- XDG_CACHE_HOME, when set, is where caches go.
    out, code = check(project, 'cache = { ".npm" }', "XDG_CACHE_HOME=" .. T.q(xdg .. "/c"))
    T.eq(code, 0, "XDG_CACHE_HOME: " .. out)
    T.has(out, xdg .. "/c/lcsb/projects/", "under XDG_CACHE_HOME")
  end)

T.run()
