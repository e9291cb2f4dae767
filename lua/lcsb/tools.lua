-- lcsb.tools: what real toolchains need, as data.
--
-- Presets are named sets of programs a policy lists in exec
-- (`exec = { lcsb.tools.shell, "make" }`), with the user's config they read
-- (home) and the caches they keep (cache). Closures are what a program runs
-- or reads on its own once allowed: gcc's cc1 and as, git's helpers, the
-- shell npm runs scripts with, the interpreter a version manager's shim
-- selects. Both are resolved when the policy is built, from the files that
-- are installed; no program is run to find out. A closure grants files, never
-- a system-prefix directory (rule 3); a user's own install (~/.pyenv, a
-- rustup toolchain) may be granted whole for reading.
--
-- To teach lcsb another tool, add an entry to M.closures; `lcsb check` shows
-- which closures a policy pulled in, and what each added.

local core = require "lcsb.core"
local paths = require "lcsb.paths"
local tiers = require "lcsb.tiers"

local M = {}

-- ---- globs and lookups over the installed files ----

-- The regular files, or with DIRS also the directories, a path with `*`
-- in any component names; nothing when none exists.
local function glob(pattern, dirs)
  local out = {}
  local function walk(prefix, rest)
    local head, tail = rest:match("^([^/]+)/?(.*)$")
    if not head then
      local kind = core.kind(prefix)
      if kind == "file" or (dirs and kind == "dir") then out[#out + 1] = prefix end
      return
    end
    if not head:find("*", 1, true) then return walk(prefix .. "/" .. head, tail) end
    local lua = paths.glob_pattern(head)
    local names = core.listdir(prefix == "" and "/" or prefix) or {}
    table.sort(names)
    -- As a shell's: a name that starts with a dot only when the part does.
    local hidden_too = head:sub(1, 1) == "."
    for _, name in ipairs(names) do
      if name:match(lua) and (hidden_too or name:sub(1, 1) ~= ".") then
        walk(prefix .. "/" .. name, tail)
      end
    end
  end
  walk("", pattern:sub(2))
  return out
end
M.glob = glob

-- Every NAME on PATH, in PATH's order, as located (symlinks not followed).
local function on_path(name)
  local out = {}
  for dir in (os.getenv("PATH") or ""):gmatch("[^:]+") do
    local path = dir .. "/" .. name
    if dir:sub(1, 1) == "/" and core.kind(path) == "file" then out[#out + 1] = path end
  end
  return out
end

-- The first line of a small file, trimmed; nil when it cannot be read.
local function first_line(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local line = f:read("l")
  f:close()
  return line and line:match("^%s*(.-)%s*$")
end

-- The file named NAME in DIR or the nearest directory above it.
local function upward(dir, name)
  while dir and dir ~= "" do
    if core.kind(dir .. "/" .. name) == "file" then return dir .. "/" .. name end
    dir = dir:match("^(.*)/[^/]*$")
  end
  return nil
end

-- A program's name as the closures know it: "x86_64-linux-gnu-gcc-12" and
-- "gcc-12" are gcc.
function M.family(name)
  local _, base = core.split(name)
  -- Patterns only where they may match: a composition asks this of
  -- hundreds of programs, and most names have no "-".
  if not base:find("-", 1, true) then return base end
  if base:find("-linux-gnu-", 1, true) then base = base:gsub("^[%w_]+%-linux%-gnu%-", "") end
  return (base:gsub("%-%d[%d.]*$", ""))
end

-- ---- version managers: a shim selects the real program ----

-- pyenv and rbenv share a layout: ROOT/shims/NAME is a shell script that
-- runs ROOT/libexec/TOOL, which picks a version from $VERSION_VAR, a
-- version file in the project or above it, or ROOT/version, then runs
-- ROOT/versions/V/bin/NAME (or, for "system", the next NAME on PATH). Its
-- scripts use bash and the shell's tools.
local function env_manager(tool, version_var, version_file)
  return {
    tool = tool,
    match = function(prog)
      -- Asked of every program a policy names: a plain find rules most out.
      if not prog.file:find("/shims/", 1, true) then return nil end
      local root = prog.file:match("^(.*)/shims/[^/]+$")
      if root and core.kind(root .. "/libexec/" .. tool) == "file" then return root end
    end,
    resolve = function(root, prog, ctx)
      local name = prog.file:match("[^/]*$")
      local need = { exec = { "bash", M.shell }, read = { root } }
      for _, f in ipairs(glob(root .. "/libexec/*")) do need.exec[#need.exec + 1] = f end
      for _, f in ipairs(glob(root .. "/plugins/*/bin/*")) do need.exec[#need.exec + 1] = f end
      for _, f in ipairs(glob(root .. "/plugins/*/libexec/*")) do need.exec[#need.exec + 1] = f end
      local chosen = ctx.getenv(version_var)
      if not chosen or chosen == "" then
        local file = upward(ctx.project, version_file) or root .. "/version"
        chosen = first_line(file) or "system"
      end
      for version in chosen:gmatch("[^:%s]+") do
        -- The version file may be the project's, which the command writes:
        -- a name is a directory of ROOT/versions, never a path out of it.
        if version:find("/", 1, true) or version == ".." or version == "." then
          -- passed over
        elseif version == "system" then
          for _, path in ipairs(on_path(name)) do
            if not path:find(root .. "/shims/", 1, true) then
              need.exec[#need.exec + 1] = path
              break
            end
          end
        else
          local bin = root .. "/versions/" .. version .. "/bin/" .. name
          if core.kind(bin) then need.exec[#need.exec + 1] = bin end
        end
      end
      return need
    end,
  }
end

-- rustup's proxies (cargo, rustc, ... in CARGO_HOME/bin are rustup itself)
-- run the selected toolchain's programs: $RUSTUP_TOOLCHAIN, a
-- rust-toolchain(.toml) in the project or above, or settings.toml's
-- default. RUSTUP_HOME is read whole and named to the command, as its
-- private HOME has none; cargo links with cc.
local RUSTUP_PROXIES = {
  cargo = true, rustc = true, rustdoc = true, rustfmt = true, ["cargo-fmt"] = true,
  ["cargo-clippy"] = true, ["clippy-driver"] = true, ["rust-gdb"] = true, ["rust-lldb"] = true,
  ["rust-analyzer"] = true, ["cargo-miri"] = true, rustup = true,
}

local function rustup_toolchain(rustup_home, ctx)
  local chosen = ctx.getenv("RUSTUP_TOOLCHAIN")
  if not chosen or chosen == "" then
    local file = upward(ctx.project, "rust-toolchain.toml") or upward(ctx.project, "rust-toolchain")
    local f = file and io.open(file, "r")
    if f then
      local text = f:read("a")
      f:close()
      chosen = text:match('channel%s*=%s*"([^"]+)"') or text:match("^%s*([%w%.%-_]+)%s*$")
    end
  end
  if not chosen or chosen == "" then
    local f = io.open(rustup_home .. "/settings.toml", "r")
    if f then
      chosen = f:read("a"):match('default_toolchain%s*=%s*"([^"]+)"')
      f:close()
    end
  end
  if not chosen then return nil end
  -- "stable" names stable-<host triple>; a full name names itself.
  for _, dir in ipairs(glob(rustup_home .. "/toolchains/*", true)) do
    local name = dir:match("[^/]*$")
    if name == chosen or name:sub(1, #chosen + 1) == chosen .. "-" then return dir end
  end
  return nil
end

-- ---- the closures ----

-- Each entry: `tool`, its name; `names`, the program families it applies
-- to (M.family of the name as listed or of the file it resolves to), or
-- `match(prog)`, returning a value for resolve when it applies; what it
-- needs: `exec` (programs looked up on PATH, or absolute paths and globs of
-- files; absent ones are passed over), `read`, `home`, `cache` (as the
-- policy's keys of those names take them), `env` (variables to set, unless
-- the policy sets them); or `resolve(matched, prog, ctx)` returning those.
local GCC_INTERNALS = "/usr/lib/gcc/*/*/"
M.closures = {
  {
    tool = "gcc", names = { "gcc", "cc", "c89", "c99", "g++", "c++", "cpp", "gfortran" },
    exec = {
      GCC_INTERNALS .. "cc1", GCC_INTERNALS .. "cc1plus", GCC_INTERNALS .. "collect2",
      GCC_INTERNALS .. "lto-wrapper", GCC_INTERNALS .. "lto1", GCC_INTERNALS .. "f951",
      GCC_INTERNALS .. "g++-mapper-server", "as", "ld", "ld.bfd", "ld.gold",
    },
  },
  { tool = "clang", names = { "clang", "clang++" }, exec = { "as", "ld", "ld.lld" } },
  -- rustc links with cc (a rustup install's proxies have their own closure).
  { tool = "rustc", names = { "rustc" }, exec = { "cc" } },
  -- make runs each recipe line with sh.
  { tool = "make", names = { "make", "gmake" }, exec = { "sh" } },
  {
    -- git runs its helpers (remote-https, maintenance, hooks' sh) from its
    -- exec-path: $GIT_EXEC_PATH, or libexec/git-core or lib/git-core beside
    -- the git that runs. Their interpreters come with them.
    tool = "git", names = { "git" },
    resolve = function(_, prog, ctx)
      local need = { exec = { "sh" } }
      local prefix = prog.file:match("^(.*)/bin/[^/]+$") or "/usr"
      local dirs = { prefix .. "/libexec/git-core", prefix .. "/lib/git-core" }
      local exec_path = ctx.getenv("GIT_EXEC_PATH")
      if exec_path then table.insert(dirs, 1, exec_path) end
      for _, dir in ipairs(dirs) do
        if dir:sub(1, 1) == "/" and core.kind(dir) == "dir" then
          for _, f in ipairs(glob(dir .. "/*")) do need.exec[#need.exec + 1] = f end
          break
        end
      end
      return need
    end,
  },
  {
    -- go runs its compiler, assembler, linker, vet and cgo from its tool
    -- directory (GOROOT/pkg/tool/OS_ARCH), GOROOT being where the go that
    -- runs is installed; cgo runs the C compiler, and stamping a build with
    -- its version-control state runs git. GOROOT is taken from the
    -- program's own place, not from the environment, which the command may
    -- point at a directory it writes.
    tool = "go", names = { "go" },
    resolve = function(_, prog, ctx)
      local real = core.realpath(prog.file) or prog.file
      local root = real:match("^(.*)/bin/[^/]+$")
      local need = { exec = { "gcc", "git" } }
      if root then
        need.read = { root }
        for _, f in ipairs(glob(root .. "/pkg/tool/*/*")) do need.exec[#need.exec + 1] = f end
      end
      -- A project that is no git repository gets an empty .git for the run
      -- (the placeholder lcsb holds), which go would take for a repository
      -- and fail to stamp builds from.
      if tiers.git_at(ctx.project) == "none" then need.env = { GOFLAGS = "-buildvcs=false" } end
      return need
    end,
  },
  -- Maven's and Gradle's launchers are shell scripts that look for java.
  -- (M.shell is made below: resolve runs when the policy is built.)
  {
    tool = "maven", names = { "mvn", "gradle" },
    resolve = function() return { exec = { "java", M.shell } } end,
  },
  -- jshell runs a second JVM for the code it evaluates.
  { tool = "jshell", names = { "jshell" }, exec = { "java" } },
  -- autoreconf runs the rest of the autotools, and they run m4 and perl
  -- (their own #! lines bring perl too); libtoolize copies, libtool links
  -- with the C compiler.
  {
    tool = "autotools",
    names = { "autoreconf", "autoconf", "autoheader", "autom4te", "automake", "aclocal", "autoscan",
      "autoupdate", "ifnames", "libtoolize" },
    resolve = function()
      return { exec = { "autoconf", "autoheader", "autom4te", "automake", "aclocal", "libtoolize",
        "m4", "perl", M.shell } }
    end,
  },
  -- rake runs shell commands (sh) and ruby; bundle and gem run ruby; ruby
  -- reads the gems installed for the whole system (gem install as root).
  {
    tool = "ruby", names = { "ruby", "rake", "bundle", "bundler", "gem", "irb" },
    exec = { "ruby", "sh" }, read = { "/var/lib/gems" },
  },
  -- npm and npx run package scripts with sh, and node for everything.
  { tool = "npm", names = { "npm", "npx", "pnpm", "yarn", "corepack" }, exec = { "sh", "node" } },
  {
    -- nvm, volta, fnm, asdf and the like install node in a prefix of the
    -- user's own: the program runs from it and reads its libraries there.
    tool = "node prefix",
    match = function(prog)
      local real = core.realpath(prog.file) or prog.file
      if not real:find("/node/v", 1, true) then return nil end
      local prefix = real:match("^(.*/node/v[%d.]+)/bin/[^/]+$")
        or real:match("^(.*/node/v[%d.]+)/lib/node_modules/")
      if prefix and not prefix:find("^/usr/") then return prefix end
    end,
    resolve = function(prefix) return { read = { prefix }, exec = glob(prefix .. "/bin/node") } end,
  },
  env_manager("pyenv", "PYENV_VERSION", ".python-version"),
  env_manager("rbenv", "RBENV_VERSION", ".ruby-version"),
  {
    -- asdf: ROOT/shims/NAME runs ROOT/bin/asdf, which reads .tool-versions
    -- and runs ROOT/installs/PLUGIN/VERSION/bin/NAME.
    tool = "asdf",
    match = function(prog)
      if not prog.file:find("/shims/", 1, true) then return nil end
      local root = prog.file:match("^(.*)/shims/[^/]+$")
      if root and core.kind(root .. "/bin/asdf") == "file" then return root end
    end,
    resolve = function(root, prog)
      local need = { exec = { "bash", M.shell, root .. "/bin/asdf" }, read = { root } }
      for _, f in ipairs(glob(root .. "/installs/*/*/bin/" .. prog.file:match("[^/]*$"))) do
        need.exec[#need.exec + 1] = f
      end
      return need
    end,
  },
  {
    tool = "rustup",
    match = function(prog)
      -- Asked of every program a policy names: the name rules most out.
      if not RUSTUP_PROXIES[select(2, core.split(prog.file))] then return nil end
      local dir = prog.file:match("^(.*)/[^/]+$")
      if dir and core.kind(dir .. "/rustup") == "file" then return dir end
    end,
    resolve = function(bin, _, ctx)
      local home = ctx.getenv("RUSTUP_HOME")
      if not home or home == "" then home = (ctx.getenv("HOME") or "") .. "/.rustup" end
      home = core.realpath(home)
      local need = { exec = { "cc" }, read = { bin } }
      for name in pairs(RUSTUP_PROXIES) do
        if core.kind(bin .. "/" .. name) then need.exec[#need.exec + 1] = bin .. "/" .. name end
      end
      table.sort(need.exec)
      if not home then return need end
      need.read[#need.read + 1] = home
      need.env = { RUSTUP_HOME = home }
      local toolchain = rustup_toolchain(home, ctx)
      if toolchain then
        for _, pattern in ipairs { "/bin/*", "/lib/rustlib/*/bin/*", "/lib/rustlib/*/bin/gcc-ld/*",
          "/libexec/*" } do
          for _, f in ipairs(glob(toolchain .. pattern)) do need.exec[#need.exec + 1] = f end
        end
        need.env.RUSTUP_TOOLCHAIN = toolchain:match("[^/]*$")
      end
      return need
    end,
  },
}

-- M.closures as they are now, indexed: the positions of the entries that
-- match by a function, and of those that list each name. A composition
-- takes it once, as it asks closures_of of hundreds of programs (git's
-- every git-core command among them).
function M.closures_index()
  local index = { matchers = {}, by_name = {} }
  for i, entry in ipairs(M.closures) do
    if entry.match then
      index.matchers[#index.matchers + 1] = i
    elseif entry.names then
      for _, name in ipairs(entry.names) do
        local at = index.by_name[name] or {}
        index.by_name[name] = at
        if at[#at] ~= i then at[#at + 1] = i end
      end
    end
  end
  return index
end

-- The closures that apply to PROG ({ name = as listed, file = the file it
-- resolves to }), each with what matched, in M.closures' order. INDEX:
-- closures_index's, taken of M.closures as they are (made here when nil).
function M.closures_of(prog, index)
  index = index or M.closures_index()
  local by_name = index.by_name[M.family(prog.name)]
  local by_file = index.by_name[M.family(prog.file)]
  -- Most programs match by no name: the matchers alone, in their order,
  -- without a list made and sorted for each.
  local at = index.matchers
  if by_name or by_file then
    at = table.move(at, 1, #at, 1, {})
    if by_name then table.move(by_name, 1, #by_name, #at + 1, at) end
    if by_file and by_file ~= by_name then table.move(by_file, 1, #by_file, #at + 1, at) end
    table.sort(at)
  end
  local out = {}
  for k, i in ipairs(at) do
    if i ~= at[k - 1] then
      local entry = M.closures[i]
      local matched = true
      if entry.match then matched = entry.match(prog) end
      if matched then out[#out + 1] = { entry = entry, matched = matched } end
    end
  end
  return out
end

-- ---- presets ----

local PRESET = {}

-- A preset: NAME, and a list of programs (and other presets) to allow, with
-- `home` and `cache` entries its tools use. Programs not installed here are
-- passed over (lcsb check names them).
function M.preset(name, spec)
  if type(name) ~= "string" or type(spec) ~= "table" then
    error("lcsb.tools.preset(NAME, { programs..., home = {...}, cache = {...} })", 2)
  end
  local p = { name = name, home = spec.home or {}, cache = spec.cache or {} }
  for _, entry in ipairs(spec) do p[#p + 1] = entry end
  return setmetatable(p, PRESET)
end

function M.is_preset(value) return getmetatable(value) == PRESET end

-- The presets lcsb ships, by name, the one a hint or lcsb learn may offer
-- first ahead: what a program belongs to is asked of them in this order.
M.preset_names = { "shell", "git", "c", "python", "node", "rust", "go", "java", "ruby",
  "autotools" }
-- What marks a preset, for a plan's key (a preset and a plain list of the
-- same programs compose differently).
M.preset_mark = PRESET

-- The ordinary tools of a shell script: coreutils, text tools, archives and
-- the shells. Nothing that talks to the network (curl, wget, ssh, nc) or
-- changes who runs (su, sudo, chroot, setpriv, unshare).
M.shell = M.preset("shell", {
  "sh", "bash", "dash",
  -- coreutils
  "[", "arch", "b2sum", "base32", "base64", "basename", "basenc", "cat", "chgrp", "chmod",
  "chown", "cksum", "comm", "cp", "csplit", "cut", "date", "dd", "df", "dir", "dircolors",
  "dirname", "du", "echo", "env", "expand", "expr", "factor", "false", "fmt", "fold", "groups",
  "head", "hostid", "id", "install", "join", "link", "ln", "logname", "ls", "md5sum", "mkdir",
  "mkfifo", "mknod", "mktemp", "mv", "nice", "nl", "nohup", "nproc", "numfmt", "od", "paste",
  "pathchk", "pr", "printenv", "printf", "ptx", "pwd", "readlink", "realpath", "rm", "rmdir",
  "seq", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shred", "shuf",
  "sleep", "sort", "split", "stat", "stdbuf", "stty", "sum", "sync", "tac", "tail", "tee",
  "test", "timeout", "touch", "tr", "true", "truncate", "tsort", "tty", "uname", "unexpand",
  "uniq", "unlink", "vdir", "wc", "whoami", "yes",
  -- text, files and archives
  "sed", "awk", "gawk", "mawk", "grep", "egrep", "fgrep", "find", "xargs", "diff", "diff3",
  "sdiff", "cmp", "patch", "tar", "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "xz", "unxz",
  "xzcat", "zstd", "file", "which", "getopt", "column", "rev", "hostname", "tempfile",
})

-- A C build: the compilers, binutils and make, and the shell its recipes
-- run in.
M.c = M.preset("c", {
  M.shell, "make", "cc", "gcc", "c++", "g++", "cpp", "clang", "ar", "ranlib", "as", "ld", "nm",
  "strip", "objcopy", "objdump", "readelf", "size", "pkg-config", "cmake", "ctest", "cpack",
  "ninja",
})

-- GNU's configure-script toolchain: regenerating configure and Makefile.in
-- (autoreconf -i). configure and make themselves need lcsb.tools.c.
M.autotools = M.preset("autotools", {
  M.shell, "autoconf", "autoreconf", "autoheader", "autom4te", "automake", "aclocal",
  "libtoolize", "libtool", "m4", "perl", "autoscan", "autoupdate", "ifnames",
})

-- git, its helpers (by its closure) and the user's identity and settings.
-- Not ~/.config/git whole: it may hold credentials, which caps keep out.
M.git = M.preset("git", {
  "git",
  home = { ".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes" },
})

M.python = M.preset("python", {
  "python3", "python", "pip3", "pip",
  cache = { ".cache/pip" },
})

M.node = M.preset("node", { M.shell, "node", "npm", "npx", cache = { ".npm" } })

-- go and gofmt, the tools go runs (by its closure: compile, link, vet,
-- cgo's C compiler), its build cache and its module cache. The test
-- binaries `go test` builds run from TMPDIR: built = true lets them.
M.go = M.preset("go", {
  "go", "gofmt",
  home = { ".config/go/env" },
  cache = { ".cache/go-build", "go/pkg/mod" },
})

-- The JDK's programs and the two build tools, with their download caches.
-- Not ~/.m2 whole: settings.xml may hold a repository's password.
M.java = M.preset("java", {
  "java", "javac", "jar", "jshell", "javadoc", "javap", "jdeps", "mvn", "gradle",
  cache = { ".m2/repository", ".gradle/caches", ".gradle/wrapper" },
})

-- ruby and its package tools, with the gems they install for the user. Not
-- ~/.gem whole: ~/.gem/credentials holds the rubygems API key.
M.ruby = M.preset("ruby", {
  M.shell, "ruby", "gem", "bundle", "bundler", "rake", "irb", "erb", "rdoc", "ri",
  cache = { ".local/share/gem", ".gem/specs", ".bundle/cache" },
})

M.rust = M.preset("rust", {
  "cargo", "rustc", "rustdoc", "rustup",
  home = { ".cargo/config.toml" },
  cache = { ".cargo/registry", ".cargo/git" },
})

return M
