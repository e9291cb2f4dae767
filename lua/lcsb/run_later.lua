-- Files that run later: what a tool you use anyway (direnv, an editor, make,
-- npm, git, pytest, CI) runs from the project, outside any sandbox. The
-- command may write the project, and lcsb cannot tell an edit it was asked
-- for from one planted there, so after a run it names each of these files
-- that was created or changed during the run, on stderr and in the
-- attestation (run_later). The list is data: a policy script adds to it
-- (table.insert(require("lcsb.run_later").list, { ... })) before the run
-- ends. docs/policy.md ("Files that run later") says why each is here.

local agents = require "lcsb.agents"
local core = require "lcsb.core"
local paths = require "lcsb.paths"

local M = {}

-- Each entry names its file by `name`, matched in every directory of the
-- project (outside M.dependency_dirs, unless `dependencies` is true; below
-- the directory `within` instead, when it has one), or by `path` from the
-- project's root; either may be a pattern ("*.pth"). `kind` narrows it to
-- a symlink ("link"), or to a directory git takes for a repository
-- ("gitdir"); `parent` to the names of the directory it is directly in.
-- It is looked at as a whole `tree` (it and everything below it), by the
-- paths `inside` it ("." itself, "NAME", "*" each entry, "NAME/*"), or else
-- as itself (a symlink where a directory was is looked at as itself).
-- `why` says what runs it, and when. `hint` replaces the protect hint
-- (false: none). `keys` (for a JSON file) reports it only when one of
-- these top-level keys changed. `quiet`: a file that runs only when you run
-- its tool on it, which builds write too: listed in the attestation, never
-- a warning of its own, but where it lies in a dot-directory.
M.list = {
  { name = ".envrc", why = "direnv runs it when you cd into its directory (once allowed)" },
  { name = ".vscode", inside = { ".", "*" },
    why = "VS Code runs its tasks (one may run when the folder opens), its launch "
      .. "configurations, the programs its settings name and the MCP servers its mcp.json "
      .. "names, and its chat.tools.autoApprove setting lets Copilot's agent run commands "
      .. "without asking" },
  { name = ".idea", tree = true,
    why = "JetBrains IDEs run its run configurations, external tools and startup tasks" },
  -- make runs these only when you run make there, and builds write them
  -- (configure, cmake): quiet, so that every configure is not a warning.
  { name = "Makefile", why = "make runs it", quiet = true },
  { name = "makefile", why = "make runs it", quiet = true },
  { name = "GNUmakefile", why = "make runs it", quiet = true },
  { path = "package.json",
    keys = { "scripts", "packageManager", "husky", "simple-git-hooks", "gitHooks",
      "pre-commit", "lint-staged" },
    why = "npm, yarn and pnpm run its scripts (npm test, npm run, and the install "
      .. "scripts at npm install), corepack the packageManager it names, and git hook "
      .. "managers the hooks it lists" },
  { name = "rust-toolchain.toml",
    why = "rustup runs the toolchain it names (a path one included) at every cargo and rustc" },
  { name = "rust-toolchain",
    why = "rustup runs the toolchain it names at every cargo and rustc" },
  { name = "flake.nix",
    why = "direnv's use flake and nix develop run its shellHook when you cd in or enter it" },
  { name = "shell.nix",
    why = "direnv's use nix and nix-shell run its shellHook when you cd in or enter it" },
  { name = ".irbrc", why = "irb runs it when started in its directory" },
  { name = ".pryrc", why = "pry runs it when started in its directory" },
  { name = "bunfig.toml", why = "bun runs the preload scripts it names at every bun command" },
  { path = ".hg", inside = { "hgrc" },
    why = "Mercurial runs the hooks and extensions its hgrc names at hg status and every other "
      .. "hg command" },
  { name = "*.code-workspace",
    why = "VS Code runs its tasks (one may run when it opens), its launch configurations and the "
      .. "programs its settings name, once you open it" },
  { path = ".devcontainer", tree = true,
    why = "VS Code and the devcontainer CLI run its initializeCommand on this host, and build "
      .. "its Dockerfile, when they open the folder in a container" },
  { path = ".devcontainer.json",
    why = "VS Code and the devcontainer CLI run its initializeCommand on this host when they "
      .. "open the folder in a container" },
  { name = ".env",
    why = "direnv (dotenv, load_dotenv), pipenv and editors load it into your environment, "
      .. "where PATH, LD_PRELOAD or NODE_OPTIONS run code of its choosing" },
  { name = "conftest.py", why = "pytest imports it when it collects tests in its directory" },
  { path = ".pre-commit-config.yaml", why = "pre-commit runs the hooks it names at your next commit" },
  { path = "lefthook.*", why = "lefthook runs the commands it names from your git hooks" },
  { path = ".lefthook.*", why = "lefthook runs the commands it names from your git hooks" },
  { path = "lefthook-local.*", why = "lefthook runs the commands it names from your git hooks" },
  { path = ".lefthook-local.*", why = "lefthook runs the commands it names from your git hooks" },
  { path = ".lefthook", tree = true, why = "lefthook runs the scripts in it from your git hooks" },
  { path = ".lefthook-local", tree = true,
    why = "lefthook runs the scripts in it from your git hooks" },
  { path = ".config", inside = { ".", "*", "mise/*" },
    why = "tools read their configuration from it: lefthook the commands its git hooks run, "
      .. "mise the hooks it runs when you cd in" },
  { name = ".config", inside = { ".", "mise.toml", "mise", "mise/*" },
    why = "mise runs the hooks and env scripts mise.toml names when you cd into the project "
      .. "(with mise activate, once trusted)" },
  { name = "mise.*toml",
    why = "mise runs the hooks and env scripts it names when you cd into its directory (with "
      .. "mise activate, once trusted), and installs the tools it names" },
  { name = ".mise.*toml",
    why = "mise runs the hooks and env scripts it names when you cd into its directory (with "
      .. "mise activate, once trusted), and installs the tools it names" },
  { name = ".mise", inside = { ".", "*", "conf.d/*" },
    why = "mise runs the hooks and env scripts its config.toml names when you cd into the "
      .. "project (with mise activate, once trusted)" },
  { name = ".tool-versions",
    why = "asdf and mise put the versions it names on PATH for every command below it "
      .. "(path: any directory; ref: built from source)" },
  { path = ".husky", tree = true,
    why = "git runs the hooks in it at your next commit where husky set core.hooksPath to it" },
  { path = ".gitmodules",
    why = "git enters the submodules it names (git status runs in each, with that "
      .. "repository's own config)" },
  { name = ".git", dependencies = true,
    inside = { ".", "config", "config.worktree", "hooks", "hooks/*", "commondir" }, hint = false,
    why = "a repository inside the project: git runs what its config names (core.fsmonitor, "
      .. "from the outer project's git status too) and its hooks" },
  -- Git takes for a repository any directory with HEAD, and objects or refs
  -- beside it (a bare one, made with git init --bare): the walk does not
  -- enter one.
  { name = "*", kind = "gitdir", dependencies = true, hint = false,
    inside = { ".", "HEAD", "config", "config.worktree", "commondir", "hooks", "hooks/*" },
    why = "a repository inside the project (a bare one): git takes it for one when it runs "
      .. "there (a prompt's or an editor's git status as you cd in), and runs what its config "
      .. "names (core.fsmonitor) and its hooks" },
  { path = ".git", inside = { "config", "config.worktree", "hooks", "hooks/*" },
    hint = "lcsb keeps .git/config and .git/hooks read-only only where it enforces protected "
      .. "paths (not under --backend none, nor with protect = false)",
    why = "git runs what the repository's config names (core.fsmonitor at every git status) "
      .. "and its hooks" },
  -- The walk never enters .git; submodules keep their repositories in it.
  { within = ".git/modules", name = "config",
    why = "git runs what a submodule's config names (core.fsmonitor) when git status enters it" },
  { within = ".git/modules", name = "hooks", inside = { ".", "*" },
    why = "git runs a submodule's hooks when you commit in it" },
  -- Git makes no symlink there: one sends git status to a repository the
  -- walk does not look into.
  { within = ".git/modules", name = "*", kind = "link", hint = false,
    why = "git follows it to a submodule's repository, and runs what that config names "
      .. "(core.fsmonitor) at every git status; lcsb does not look beyond it" },
  -- site.py reads each .pth in site-packages and runs its import lines.
  { name = "*.pth", parent = { "site-packages", "dist-packages" }, dependencies = true,
    why = "Python runs the import lines in it at every start of that environment's interpreter "
      .. "(your tests, a language server, pip)" },
  { name = "sitecustomize.py", parent = { "site-packages", "dist-packages" }, dependencies = true,
    why = "Python imports it at every start of that environment's interpreter" },
  { name = "usercustomize.py", parent = { "site-packages", "dist-packages" }, dependencies = true,
    why = "Python imports it at every start of that environment's interpreter" },
  { name = ".npmrc", why = "npm reads it: node-options and script-shell run code at every npm run" },
  { name = ".yarnrc.yml", why = "yarn runs the yarnPath it names at every yarn command" },
  { name = ".yarnrc", why = "yarn 1 runs the yarn-path it names at every yarn command" },
  { name = ".pnpmfile.cjs", why = "pnpm runs it at every install" },
  { name = ".cargo", inside = { ".", "config", "config.toml" },
    why = "cargo runs the rustc-wrapper and runners it names (rust-analyzer runs cargo check "
      .. "when an editor opens the project)" },
  { path = ".github/workflows", tree = true,
    why = "GitHub Actions runs it when you push, with the repository's secrets" },
  { path = ".github/actions", tree = true,
    why = "GitHub Actions runs the actions in it when a workflow uses them" },
  { path = ".gitlab-ci.yml", why = "GitLab CI runs it when you push, with the project's variables" },
  { path = ".circleci", tree = true, why = "CircleCI runs it when you push" },
  { path = ".travis.yml", why = "Travis CI runs it when you push" },
  { path = "azure-pipelines.yml", why = "Azure Pipelines runs it when you push" },
  { path = "bitbucket-pipelines.yml", why = "Bitbucket Pipelines runs it when you push" },
  { path = "Jenkinsfile", why = "Jenkins runs it when you push" },
  { path = ".buildkite", tree = true, why = "Buildkite runs it when you push" },
}

-- The coding agents' own files (lua/lcsb/agents.lua). Their configuration is
-- kept read-only at the project's root by default, where it exists or is a
-- directory lcsb can hold; it is named wherever it is made (an agent started
-- in a subdirectory reads that one's), and so are their instructions.
for _, entry in ipairs(agents.config) do
  if entry.report ~= false then
    local slash = entry.path:find("/", 1, true)
    M.list[#M.list + 1] = { name = not slash and entry.path or nil,
      path = slash and entry.path or nil, tree = entry.dir, why = entry.why }
  end
end
for _, entry in ipairs(agents.instructions) do
  M.list[#M.list + 1] = { name = entry.name, path = entry.path, tree = entry.tree,
    why = entry.why }
end

-- Directories that hold what a package manager installed: a `name` entry
-- found below one is the dependency's own (pytest, for one, does not
-- collect them), and is not reported.
M.dependency_dirs = { "node_modules", "site-packages", "dist-packages", ".venv", "venv", ".tox",
  ".nox" }

-- Of those, the ones skimmed, not walked: only what is directly in one
-- (a .pth in site-packages) and each package's root (node_modules/PKG,
-- node_modules/@scope/PKG, site-packages/PKG) are looked at, for a .git
-- there. A virtualenv is walked down to its site-packages.
M.skimmed = { "node_modules", "site-packages", "dist-packages" }

-- The most warning lines a run gets: past it, one line counts the rest.
M.lines_max = 50

-- The most of a JSON file read to compare its keys.
local JSON_MAX = 4 * 1024 * 1024

local function fail(msg) error("run_later: " .. msg, 0) end

-- The walks lcsb.changed takes, one per directory walked ("" the project,
-- else an entry's `within`): { watch, by_key } each, by_key the entry for
-- each watched name. A later entry for the same file replaces an earlier
-- one.
local function walks()
  local by_dir = {}
  for i, entry in ipairs(M.list) do
    if type(entry) ~= "table" or type(entry.why) ~= "string" then
      fail(("entry %d: expected a table with a why"):format(i))
    end
    local key
    if type(entry.name) == "string" and not entry.path and not entry.name:find("/", 1, true) then
      key = entry.name
    elseif type(entry.path) == "string" and not entry.name and not entry.within
      and entry.path:sub(1, 1) ~= "/" then
      key = "/" .. entry.path
    else
      fail(("entry %d: expected a name (no slash) or a path from the project's root"):format(i))
    end
    local dir = entry.within or ""
    if type(dir) ~= "string" or dir:sub(1, 1) == "/" then
      fail(("entry %d: within is a directory from the project's root"):format(i))
    end
    local walk = by_dir[dir] or { watch = {}, by_key = {} }
    by_dir[dir] = walk
    local look = entry.tree and "tree" or entry.inside or true
    if entry.kind or entry.parent then
      look = { look = look, kind = entry.kind, parents = entry.parent }
    end
    walk.watch[key] = look
    walk.by_key[key] = entry
  end
  return by_dir
end

-- A value as text that is the same for the same JSON value, whatever its
-- keys' order.
local function canonical(value)
  if type(value) ~= "table" then return type(value) .. ":" .. tostring(value) end
  local keys, parts = {}, {}
  for key in pairs(value) do keys[#keys + 1] = tostring(key) end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local v = value[key]
    if v == nil then v = value[tonumber(key)] end
    parts[#parts + 1] = ("%q=%s"):format(key, canonical(v))
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- The KEYS of the JSON object at PATH, as text to compare (a file that is
-- not there holds none of them); false when it cannot be read as JSON, or
-- lua-cjson is missing: then any change counts.
local function keys_of(path, keys)
  local doc = {}
  if core.kind(path) then
    local ok, cjson = pcall(require, "cjson.safe")
    local text = core.read_regular(path, JSON_MAX)
    doc = ok and text and cjson.decode(text)
  end
  if type(doc) ~= "table" then return false end
  local parts = {}
  for _, key in ipairs(keys) do parts[#parts + 1] = ("%q=%s"):format(key, canonical(doc[key])) end
  return table.concat(parts, ",")
end

-- The submodules' repositories, which git status enters: .git/modules
-- (its kind and which file it is) and each repository in it (by which
-- directory it is, its path from there). A directory moved in keeps its
-- old config, and a symlink leads where the walk does not look: which
-- directory is there tells what ctime cannot.
local MODULES = ".git/modules"
local function repositories(project)
  local top = project .. "/" .. MODULES
  local kind, id = core.lstat(top)
  local repos = {}
  if kind == "dir" and core.realpath(top) == (core.realpath(project) or project) .. "/" .. MODULES
  then
    -- A repository is not walked into (but for its own modules): this is
    -- a walk of a few directories.
    local found = core.changed(top, 0, { ["*"] = { look = true, kind = "gitdir" } })
    for _, e in ipairs(found or {}) do repos[e.id] = e.path end
  end
  return { kind = kind, id = id, repos = repos }
end

-- Before the command runs: the moment after which a change counts, what
-- the entries with keys hold now, and which the submodules' repositories
-- are. SKIP: directories not to look into (the private HOME and TMPDIR,
-- should they lie in the project); PROTECTED: the policy's protected
-- paths, which the hints do not suggest again; DEFAULTS: paths protect's
-- defaults keep read-only once they exist (a file that was not there), for
-- the hint to say so instead.
function M.before(project, skip, protected, defaults)
  local state = { project = project, skip = skip, since = core.fs_now(), keys = {},
    protected = paths.set(protected), defaults = paths.set(defaults or {}),
    modules = repositories(project) }
  for _, entry in ipairs(M.list) do
    if type(entry) == "table" and entry.keys and entry.path then
      state.keys[entry.path] = keys_of(project .. "/" .. entry.path, entry.keys)
    end
  end
  return state
end

local function in_dependencies(rel)
  local deps = {}
  for _, dir in ipairs(M.dependency_dirs) do deps[dir] = true end
  for dir in rel:gmatch("([^/]+)/") do
    if deps[dir] then return true end
  end
  return false
end

-- What changed inside an entry, for its line: "config, hooks/pre-commit and
-- 3 more" (the attestation has more of them).
local LINE_PARTS = 4
local function inside_text(item)
  if not item.inside or not item.inside[1] then return "" end
  local named = table.move(item.inside, 1, math.min(#item.inside, LINE_PARTS), 1, {})
  local more = item.inside_n - #named
  return " (" .. table.concat(named, ", ") .. (more > 0 and (" and %d more"):format(more) or "")
    .. ")"
end

-- ITEM as a warning line.
local function line(state, item)
  if item.unseen then
    return ("cannot tell whether files that run later changed in %s: %s"):format(item.path,
      item.why)
  end
  local hint = item.hint
  if item.quiet then
    -- protect would break the next configure, which writes it again.
    hint = "Quiet otherwise: builds write it at every configure, so only --report and the "
      .. "attestation list it"
  elseif hint == nil and paths.covered(state.protected, item.path) then
    hint = "The policy protects it, which holds only where lcsb enforces protected paths (not "
      .. "under --backend none)"
  elseif hint == nil and state.defaults and paths.covered(state.defaults, item.path) then
    hint = "lcsb keeps it read-only from the next run on (protect's default), but a file that is "
      .. "not there when a run starts cannot be kept from being made"
  elseif hint == nil then
    hint = ('protect = { "%s" } keeps it read-only in later runs (it must exist)'):format(
      item.path)
  end
  return ("%s was created or changed during the run%s: %s; look at it first%s"):format(
    item.path, inside_text(item), item.why, hint and (". " .. hint) or "")
end

-- What a walk of TOP could not see (INFO; it FOUND these), as items: TOP,
-- where it stopped; a directory it did not enter.
local function unseen_items(top, info, found, items)
  local function where(rel) return rel == "" and top or top .. "/" .. rel end
  local function more(n) return n > 1 and (" (and %d more)"):format(n - 1) or "" end
  if info.cut then
    items[#items + 1] = { path = top, unseen = true,
      why = ("lcsb stopped looking after %d entries"):format(info.visited - 1) }
  end
  if info.full then
    items[#items + 1] = { path = top, unseen = true,
      why = ("lcsb stopped looking after finding %d files that run later"):format(#found) }
  end
  if info.deep then
    items[#items + 1] = { path = where(info.deep.first), unseen = true,
      why = "lcsb does not look this deep" .. more(info.deep.n) }
  end
  if info.unreadable then
    items[#items + 1] = { path = where(info.unreadable.first), unseen = true,
      why = ("lcsb could not look into it: %s%s"):format(info.unreadable.error or "?",
        more(info.unreadable.n)) }
  end
end

-- WALK's entries that changed below TOP (DIR from the project), as ITEMS;
-- where it could not look, as UNSEEN. A message when TOP cannot be walked.
local function changes(state, dir, walk, opts, items, unseen)
  local top = dir == "" and state.project or state.project .. "/" .. dir
  local found, info = core.changed(top, state.since, walk.watch,
    { skip = state.skip, shallow = M.skimmed, entries = opts.entries, depth = opts.depth })
  if not found then return info end
  for _, change in ipairs(found) do
    local entry = walk.by_key[change.watch]
    local path = top .. "/" .. change.path
    local skip = entry.name and not entry.dependencies and not entry.within
      and in_dependencies(change.path)
    if not skip and entry.keys then
      local now = keys_of(path, entry.keys)
      skip = now ~= false and now == state.keys[entry.path]
    end
    if not skip then
      local inside, n = {}, change.parts_n or 0
      for _, part in ipairs(change.parts or {}) do
        if part == "." then n = n - 1 else inside[#inside + 1] = part end
      end
      table.sort(inside)
      -- Quiet only where builds write: in a dot-directory (.github/workflows,
      -- .devcontainer, .husky, an agent's) a tool runs it on its own, and
      -- the tree's own warning is this one.
      local rel = (dir == "" and "" or dir .. "/") .. change.path
      local quiet = entry.quiet and not ("/" .. rel):find("/%.[^/]*/") or nil
      items[#items + 1] = { path = path, why = entry.why, inside = inside, inside_n = n,
        hint = entry.hint, quiet = quiet }
    end
  end
  unseen_items(top, info, found, unseen)
end

-- A submodule's repository that was not there before (a new one, or one
-- moved in), and .git/modules put in place of another (a symlink, or
-- another directory), as ITEMS; none for a repository with a change below
-- it named already.
local function replaced(state, items)
  local was, now = state.modules, repositories(state.project)
  if not was or not now.kind then return end
  local top = state.project .. "/" .. MODULES
  local function item(path, why)
    items[#items + 1] = { path = path, why = why, inside = {}, inside_n = 0, hint = false }
  end
  if now.id ~= was.id and (was.kind or now.kind ~= "dir") then
    item(top, ("it is a %s put in place of %s: git enters the submodules' repositories "
      .. "there at every git status, and runs what their config names (core.fsmonitor)"):format(
      now.kind == "link" and "symlink" or "new " .. now.kind,
      was.kind and "the one that was there" or "none"))
  end
  for id, rel in pairs(now.repos) do
    local path = top .. "/" .. rel
    local named = false
    for _, it in ipairs(items) do named = named or it.path:sub(1, #path + 1) == path .. "/" end
    if not was.repos[id] and not named then
      item(path, "a submodule's repository that was not there before (new, or moved in with "
        .. "a config from elsewhere): git status enters it and runs what its config names "
        .. "(core.fsmonitor)")
    end
  end
end

-- After the command ran: what of M.list changed since STATE was taken, as
-- items ({ path, why, inside } each, and unseen = true for where lcsb could
-- not look), and as warning lines (none for the paths in STATE.quiet, a
-- set, nor for the quiet entries' unless STATE.list_quiet: --report); nil
-- and a message when the project could not be walked. OPTS (tests):
-- entries, depth, the walk's bounds.
function M.after(state, opts)
  opts = opts or {}
  local items, unseen = {}, {}
  local real = core.realpath(state.project)
  for dir, walk in pairs(walks()) do
    -- A directory within the project is walked as itself, never through a
    -- symlink the command put on its way.
    local top = state.project .. "/" .. dir
    if dir == "" or (core.kind(top) == "dir" and core.realpath(top) == real .. "/" .. dir) then
      local err = changes(state, dir, walk, opts, items, unseen)
      if err then return nil, err end
    end
  end
  replaced(state, items)
  table.sort(items, function(a, b) return a.path < b.path end)
  -- A line each, but for what STATE.quiet names (said otherwise already)
  -- and the quiet entries', up to M.lines_max, then one that counts the
  -- rest; then where lcsb could not look. The attestation lists every item.
  local lines, said = {}, state.quiet or {}
  local shown = {}
  for _, item in ipairs(items) do
    if not said[item.path] and (state.list_quiet or not item.quiet) then
      shown[#shown + 1] = item
    end
  end
  for i, item in ipairs(shown) do
    if #lines == M.lines_max and i < #shown then
      lines[#lines + 1] = ("and %d more files that run later, created or changed during the run "
        .. "(the attestation lists them)"):format(#shown - i + 1)
      break
    end
    lines[#lines + 1] = line(state, item)
  end
  for _, item in ipairs(unseen) do lines[#lines + 1] = line(state, item) end
  table.move(unseen, 1, #unseen, #items + 1, items)
  return items, lines
end

return M
