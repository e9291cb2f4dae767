-- Files that run later (lua/lcsb/run_later.lua): which changes the list
-- reports, and the walk under it (lcsb.core.changed) on trees a command
-- could leave: symlink loops, trees too deep, too many entries, unreadable
-- directories (which only an ordinary user's run can show; scripts/test.sh
-- runs this as one), other mounts. Run by ctest with stock lua5.4 and the
-- built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local core = require "lcsb.core"
local run_later = require "lcsb.run_later"

local q = T.q
local root = T.trim(T.sh("id -u")) == "0"

-- Run shell commands in DIR; they must succeed.
local function sh(dir, cmd)
  local out, code = T.sh("cd " .. q(dir) .. " && (" .. cmd .. ") 2>&1")
  T.eq(code, 0, cmd .. ": " .. out)
end

-- Past the file system's clock tick: what was written before it is no
-- change after it (a change within the same tick is one, erring that way).
local function next_tick() T.sh("sleep 0.03") end

-- A fresh project, SETUP run in it before the start, CHANGE after; what
-- run_later reports, as items and lines, and the items by path from the
-- project.
local function report(setup, change, opts)
  local dir = T.tmpdir()
  if setup then
    sh(dir, setup)
    next_tick()
  end
  local state = run_later.before(dir, opts and opts.skip, opts and opts.protected)
  if change then sh(dir, change) end
  local items, lines = run_later.after(state, opts)
  T.ok(items, "run_later.after: " .. tostring(lines))
  local by = {}
  for _, item in ipairs(items) do by[item.path:sub(#dir + 2)] = item end
  return by, lines, items, dir
end

local function keys(t)
  local list = {}
  for k in pairs(t) do list[#list + 1] = k end
  table.sort(list)
  return table.concat(list, " ")
end

-- ---- the list ----

T.case("nothing written, nothing reported; what existed before is not a change", function()
  local by, lines = report("echo x > .envrc && mkdir -p a/.git && echo > Makefile", nil)
  T.eq(keys(by), "", "reported")
  T.eq(#lines, 0, "lines")
  by = report(nil, "echo 'int x;' > main.c && mkdir -p src && echo y > src/lib.c")
  T.eq(keys(by), "", "sources are not reported")
end)

T.case("each kind of entry is found where it runs from", function()
  local by = report("mkdir -p .github/workflows sub/deeper",
    "echo x > .envrc && echo x > sub/deeper/.envrc && echo 'all:' > sub/Makefile && "
      .. "echo > GNUmakefile && echo > sub/deeper/conftest.py && mkdir .vscode && "
      .. "echo '{}' > .vscode/tasks.json && mkdir -p .idea/runConfigurations && "
      .. "echo > .idea/runConfigurations/x.xml && echo > .github/workflows/ci.yml && "
      .. "echo > .gitlab-ci.yml && echo > .pre-commit-config.yaml && echo > .gitmodules && "
      .. "echo > .npmrc && mkdir .cargo && echo > .cargo/config.toml")
  T.eq(keys(by), ".cargo .envrc .github/workflows .gitlab-ci.yml .gitmodules .idea .npmrc "
    .. ".pre-commit-config.yaml .vscode GNUmakefile sub/Makefile sub/deeper/.envrc "
    .. "sub/deeper/conftest.py", "reported")
  T.eq(table.concat(by[".vscode"].inside, ","), "tasks.json", ".vscode's inside")
  T.contains(by[".idea"].inside, "runConfigurations/x.xml", ".idea's inside")
  T.eq(table.concat(by[".github/workflows"].inside, ","), "ci.yml", "workflows' inside")
  T.eq(table.concat(by[".cargo"].inside, ","), "config.toml", ".cargo's inside")
  T.has(by[".envrc"].why, "direnv", "why")
end)

T.case("a path entry counts at the root only; a name entry not in a dependency", function()
  local by = report(nil, "mkdir -p sub/.github/workflows node_modules/dep/.vscode "
    .. ".venv/lib/site-packages/pkg && echo > sub/.gitlab-ci.yml && "
    .. "echo > sub/.github/workflows/x.yml && echo > sub/package.json && "
    .. "echo > node_modules/dep/Makefile && echo > node_modules/dep/.vscode/settings.json && "
    .. "echo > .venv/lib/site-packages/pkg/conftest.py && mkdir -p node_modules/dep/.git")
  -- A repository is one wherever it is.
  T.eq(keys(by), "node_modules/dep/.git", "reported")
end)

T.case("toolchains, nix shells, REPL rcs and Mercurial's hgrc are reported", function()
  local by = report(nil, "echo > rust-toolchain.toml && mkdir -p sub && echo > sub/flake.nix && "
    .. "echo > shell.nix && echo > .irbrc && echo > .pryrc && echo > bunfig.toml && mkdir .hg && "
    .. "echo > .hg/hgrc")
  T.eq(keys(by), ".hg .irbrc .pryrc bunfig.toml rust-toolchain.toml shell.nix sub/flake.nix",
    "reported")
end)

T.case("installed packages are skimmed: a .git at a package's root, not deeper", function()
  local by, _, items = report("mkdir -p node_modules/pkg/lib node_modules/@scope/pkg/lib "
    .. "node_modules/pkg/node_modules/inner site-packages/mod/sub",
    "mkdir node_modules/pkg/.git node_modules/@scope/pkg/.git site-packages/mod/.git "
      .. "node_modules/pkg/lib/.git node_modules/@scope/pkg/lib/.git "
      .. "node_modules/pkg/node_modules/inner/.git site-packages/mod/sub/.git")
  T.eq(keys(by), "node_modules/@scope/pkg/.git node_modules/pkg/.git site-packages/mod/.git",
    "reported")
  T.eq(#items, 3, "nothing deeper, and nothing said of it")
end)

T.case("a line per file: what runs it, what changed inside, and protect", function()
  local by, lines, _, dir = report("mkdir .vscode",
    "echo x > .envrc && for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do "
      .. "echo > .vscode/t$i.json; done")
  T.eq(#lines, 2, "lines")
  T.has(lines[1], dir .. "/.envrc was created or changed during the run: direnv", "the line")
  T.has(lines[1], ('protect = { "%s/.envrc" }'):format(dir), "the protect hint")
  T.has(lines[2], dir .. "/.vscode was created or changed during the run (", "the line")
  T.ok(lines[2]:find("(t%d+%.json, t%d+%.json, t%d+%.json, t%d+%.json and 14 more)"),
    "four named, the rest counted: " .. lines[2])
  T.eq(by[".vscode"].inside_n, 18, "counted")
  -- A protected path's hint says where protection holds instead.
  local _, plines = report("echo > .envrc", "echo x >> .envrc", { protected = { "PLACEHOLDER" } })
  T.has(plines[1], "protect = {", "not protected: the hint")
  local pdir = T.tmpdir()
  sh(pdir, "echo > .envrc")
  next_tick()
  local state = run_later.before(pdir, nil, { pdir .. "/.envrc" })
  sh(pdir, "echo x >> .envrc")
  local _, protected_lines = run_later.after(state)
  T.has(protected_lines[1], "The policy protects it", "protected: the hint")
end)

T.case("the lines stop at lines_max, the items do not; quiet paths get no line", function()
  local max = run_later.lines_max
  run_later.lines_max = 3
  local ok, by, lines = pcall(report, nil, "for i in 1 2 3 4 5 6 7 8 9 10; do mkdir d$i && "
    .. "echo > d$i/.envrc; done")
  run_later.lines_max = max
  T.ok(ok, tostring(by))
  T.eq(#lines, 4, "three lines and a count")
  T.has(lines[4], "and 7 more files that run later", "the count")
  T.eq(#keys(by):gsub("[^ ]", ""), 9, "ten items")
  local dir = T.tmpdir()
  local state = run_later.before(dir)
  sh(dir, "echo > Makefile && echo > .envrc")
  state.quiet = { [dir .. "/Makefile"] = true }
  local items, quiet_lines = run_later.after(state)
  T.eq(#items, 2, "both items")
  T.eq(#quiet_lines, 1, "one line")
  T.has(quiet_lines[1], "/.envrc", "the other one")
  -- A quiet entry's file (a build writes its Makefile): an item, no line.
  dir = T.tmpdir()
  state = run_later.before(dir)
  sh(dir, "mkdir b && echo 'all:' > b/Makefile && echo > .envrc")
  items, quiet_lines = run_later.after(state)
  T.eq(#items, 2, "both items")
  local makefile = items[1].path:find("Makefile") and items[1] or items[2]
  T.eq(makefile.path, dir .. "/b/Makefile", "the Makefile's item")
  T.ok(makefile.quiet, "marked quiet")
  T.eq(#quiet_lines, 1, "one line")
  T.has(quiet_lines[1], "/.envrc", "for the .envrc alone")
  -- --report (list_quiet): the quiet one gets a line too, saying why it is
  -- quiet, never protect's advice, which would break the next configure.
  dir = T.tmpdir()
  state = run_later.before(dir)
  state.list_quiet = true
  sh(dir, "echo 'all:' > Makefile")
  items, quiet_lines = run_later.after(state)
  T.eq(#quiet_lines, 1, "listed under --report")
  T.has(quiet_lines[1], dir .. "/Makefile was created or changed during the run", "named")
  T.has(quiet_lines[1], "Quiet otherwise", "why it is quiet")
  T.hasnt(quiet_lines[1], "protect =", "no advice to protect it")
  -- In a dot-directory a tool runs it on its own (CI, a devcontainer): an
  -- edit in place there is a warning, the tree's.
  dir = T.tmpdir()
  sh(dir, "mkdir -p .devcontainer .github/workflows && echo 'all:' > .devcontainer/Makefile "
    .. "&& echo 'all:' > .github/workflows/GNUmakefile && sleep 0.05") -- past the clock's tick
  state = run_later.before(dir)
  sh(dir, "echo '	curl x' >> .devcontainer/Makefile && echo '	curl x' >> .github/workflows/GNUmakefile")
  items, quiet_lines = run_later.after(state)
  T.eq(#items, 2, "both edits")
  T.eq(#quiet_lines, 2, "a line each")
  T.has(quiet_lines[1] .. quiet_lines[2], ".devcontainer/Makefile was created or changed", "the devcontainer's")
end)

T.case("package.json counts when its scripts change, not its version nor key order", function()
  local before = '{"name":"p","version":"1.0.0","scripts":{"test":"true","b":"make"}}'
  local cases = {
    { '{"scripts":{"b":"make","test":"true"},"version":"2.0.0","name":"p"}', false },
    { '{"name":"p","version":"1.0.0","scripts":{"test":"true","b":"make","postinstall":"x"}}',
      true },
    { '{"name":"p","version":"1.0.0","scripts":{"test":"true","b":"make"},'
      .. '"packageManager":"yarn@https://example.com/yarn.js"}', true },
    { '{"name":"p","version":"1.0.0","scripts":{"test":"true","b":"make"},'
      .. '"husky":{"hooks":{"pre-commit":"x"}}}', true },
    { '{"name":"p", "scripts": {', true }, -- not JSON: any change counts
    { '[1, 2, 3]', true },
  }
  for i, c in ipairs(cases) do
    local by = report("echo " .. q(before) .. " > package.json", "echo " .. q(c[1]) .. " > package.json")
    T.eq(by["package.json"] ~= nil, c[2], ("case %d: reported"):format(i))
  end
  -- A new one with no scripts holds nothing to run; with scripts it does.
  T.eq(report(nil, "echo '{\"name\":\"p\"}' > package.json")["package.json"], nil, "new, no scripts")
  T.ok(report(nil, "echo '{\"scripts\":{\"t\":\"x\"}}' > package.json")["package.json"], "new, scripts")
  -- One that is no regular file is reported, and never waited on.
  T.ok(report(nil, "mkfifo package.json")["package.json"], "a FIFO")
  T.ok(report(nil, "ln -s /dev/zero package.json")["package.json"], "a symlink")
  local big = report(nil, "head -c 5000000 /dev/zero | tr '\\0' ' ' > package.json")
  T.ok(big["package.json"], "too large to read")
end)

T.case("the project's own repository counts by its config and hooks, not by commits", function()
  if T.sh("command -v git")  == "" then return end
  local setup = "git init -q . && git config user.email t@example.com && git config user.name t"
  local by = report(setup, "echo a > a && git add a && git -c core.hooksPath=/dev/null commit -qm x")
  T.eq(keys(by), "", "a commit")
  by = report(setup, "git config core.fsmonitor 'touch /tmp/x'")
  T.eq(keys(by), ".git", "config")
  T.contains(by[".git"].inside, "config", "inside")
  by = report(setup, "echo x > .git/hooks/pre-commit")
  T.contains(by[".git"].inside, "hooks/pre-commit", "a hook")
end)

T.case("a submodule's repository in .git/modules counts by its config and hooks", function()
  local setup = "mkdir -p .git/modules/lib/hooks .git/modules/lib/objects/ab && echo > "
    .. ".git/modules/lib/config"
  local by = report(setup, "echo x >> .git/modules/lib/config && echo > "
    .. ".git/modules/lib/hooks/post-checkout && echo > .git/modules/lib/objects/ab/cd")
  T.eq(keys(by), ".git/modules/lib/config .git/modules/lib/hooks", "reported")
  T.eq(table.concat(by[".git/modules/lib/hooks"].inside, ","), "post-checkout", "the hook")
  -- .git/modules made a symlink out of the project is not followed, and is
  -- reported as itself.
  local outside = T.tmpdir()
  sh(outside, "mkdir -p lib && echo > lib/config")
  by = report("mkdir .git", "ln -s " .. q(outside) .. " .git/modules && echo x >> "
    .. q(outside .. "/lib/config"))
  T.eq(keys(by), ".git/modules", "the symlink, not through it")
end)

-- A submodule's repository, and a planted one the command prepared in an
-- earlier run (old ctimes throughout).
local SUBMODULE = "mkdir -p .git/modules/sub/hooks .git/modules/sub/objects "
  .. ".git/modules/sub/refs/heads && echo 'ref: refs/heads/main' > .git/modules/sub/HEAD && "
  .. "echo > .git/modules/sub/config && mkdir -p build/cache/sub/objects build/cache/sub/refs "
  .. "&& printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > build/cache/sub/config"

T.case("a submodule's repository swapped for a symlink, or moved in, is reported", function()
  local by = report(SUBMODULE, "mv .git/modules/sub .git/modules/.sub-old && "
    .. "ln -s ../../build/cache/sub .git/modules/sub")
  T.eq(keys(by), ".git/modules/sub", "a symlink in its place")
  -- A real directory moved in keeps its old config: the directory is new.
  by = report(SUBMODULE .. " && echo 'ref: refs/heads/main' > build/cache/sub/HEAD",
    "mv .git/modules/sub .git/modules/.sub-old && mv build/cache/sub .git/modules/sub")
  T.eq(keys(by), ".git/modules/sub", "moved in")
  T.has(by[".git/modules/sub"].why, "submodule", "why")
  -- The whole of .git/modules, a symlink or another directory.
  by = report(SUBMODULE, "mv .git/modules .git/modules-old && ln -s ../build/cache .git/modules")
  T.eq(keys(by), ".git/modules", "all of it a symlink")
  by = report(SUBMODULE, "mv .git/modules .git/modules-old && mv build/cache .git/modules")
  T.eq(keys(by), ".git/modules", "all of it moved in")
  -- The project's .git itself, a symlink where a repository was.
  by = report("mkdir -p .git/objects build/evil && echo > .git/config",
    "mv .git .git-old && ln -s build/evil .git")
  T.eq(keys(by), ".git", "the project's .git a symlink")
  -- What git does in a submodule is no report: a commit, a checkout, a
  -- fetch, a new submodule's repository only by its config.
  by = report(SUBMODULE, "cd .git/modules/sub && echo x > index.lock && mv index.lock index && "
    .. "echo y > HEAD && echo z > FETCH_HEAD && mkdir objects/ab && echo > objects/ab/cd && "
    .. "echo 1 > refs/heads/main")
  T.eq(keys(by), "", "git at work in a submodule")
  by = report(SUBMODULE, "mkdir -p .git/modules/new/objects .git/modules/new/refs && "
    .. "echo > .git/modules/new/HEAD && echo > .git/modules/new/config")
  T.eq(keys(by), ".git/modules/new/config", "a new submodule, by its config")
end)

T.case("a directory moved in, with what it holds unchanged, is named by itself", function()
  local by = report("mkdir -p build/vs build/cargo && echo '{}' > build/vs/tasks.json && "
    .. "echo > build/cargo/config.toml", "mv build/vs .vscode && mv build/cargo sub-cargo && "
    .. "mkdir sub && mv sub-cargo sub/.cargo")
  T.eq(keys(by), ".vscode sub/.cargo", "moved in")
end)

T.case("a directory that git takes for a repository is reported like a nested one", function()
  local bare = "mkdir -p docs/examples/objects docs/examples/refs docs/examples/hooks && "
    .. "echo 'ref: refs/heads/main' > docs/examples/HEAD && "
  local by = report(nil, bare .. "printf '[core]\\n\\tfsmonitor = x\\n' > docs/examples/config")
  T.eq(keys(by), "docs/examples", "a bare repository made")
  T.has(by["docs/examples"].why, "repository", "why")
  by = report(bare .. "echo > docs/examples/config", "echo x >> docs/examples/config && "
    .. "echo > docs/examples/hooks/post-update")
  T.eq(keys(by), "docs/examples", "its config and a hook")
  T.contains(by["docs/examples"].inside, "config", "inside")
  T.contains(by["docs/examples"].inside, "hooks/post-update", "inside")
  -- Objects and refs pushed into it are no report, nor looked into.
  by = report(bare .. "echo > docs/examples/config && mkdir docs/examples/refs/heads",
    "mkdir docs/examples/objects/ab && echo > docs/examples/objects/ab/cd && "
      .. "echo 1 > docs/examples/refs/heads/main && echo > docs/examples/objects/conftest.py")
  T.eq(keys(by), "", "a push")
  -- HEAD alone, or objects and refs without HEAD, is no repository.
  by = report(nil, "mkdir -p a/objects a/refs b && echo > a/config && echo > b/HEAD && "
    .. "echo > b/config")
  T.eq(keys(by), "", "not repositories")
  -- As git makes them: a bare one, and a nested one named once, by its .git.
  if T.sh("command -v git") ~= "" then
    by = report(nil, "git init -q --bare docs/ex && git -C docs/ex config core.fsmonitor x && "
      .. "git init -q sub")
    T.eq(keys(by), "docs/ex sub/.git", "git init --bare, git init")
  end
  -- In the project's own .git, git's: never looked into.
  by = report("mkdir -p .git/worktrees/w/objects", "echo > .git/worktrees/w/HEAD")
  T.eq(keys(by), "", "inside .git")
end)

T.case("a .pth file or sitecustomize.py in site-packages, inside a virtualenv too", function()
  local sp = ".venv/lib/python3.11/site-packages"
  local by = report("mkdir -p " .. sp .. "/pkg lib/dist-packages models",
    "echo 'import os' > " .. sp .. "/zz-evil.pth && echo > " .. sp .. "/sitecustomize.py && "
      .. "echo > lib/dist-packages/x.pth && echo > " .. sp .. "/pkg/inner.pth && "
      .. "echo > models/model.pth && echo > " .. sp .. "/pkg/conftest.py")
  T.eq(keys(by), sp .. "/sitecustomize.py " .. sp .. "/zz-evil.pth lib/dist-packages/x.pth",
    "reported")
  T.has(by[sp .. "/zz-evil.pth"].why, "Python", "why")
  -- A virtualenv is walked to its site-packages, which is skimmed: a .git
  -- at a package's root counts, nothing deeper is looked at.
  by = report("mkdir -p " .. sp .. "/pkg/sub venv/src/dep",
    "mkdir " .. sp .. "/pkg/.git " .. sp .. "/pkg/sub/.git venv/src/dep/.git && echo > "
      .. "venv/src/dep/Makefile")
  T.eq(keys(by), sp .. "/pkg/.git venv/src/dep/.git", "a virtualenv's repositories")
end)

T.case("devcontainers, lefthook, mise, asdf, VS Code workspaces and .env", function()
  local by = report(nil, "mkdir -p .devcontainer sub .config/mise .mise && "
    .. "echo '{}' > .devcontainer/devcontainer.json && echo > .devcontainer.json && "
    .. "echo > lefthook.yml && echo > .lefthook-local.toml && echo > sub/lefthook.yml && "
    .. "echo > sub/mise.toml && echo > .mise.local.toml && echo > .config/mise/config.toml && "
    .. "echo > .mise/config.toml && echo > .tool-versions && echo > p.code-workspace && "
    .. "echo > sub/.env && echo > sub/lefthook-guide.md && echo > .env.example")
  T.eq(keys(by), ".config .devcontainer .devcontainer.json "
    .. ".lefthook-local.toml .mise .mise.local.toml .tool-versions lefthook.yml p.code-workspace "
    .. "sub/.env sub/mise.toml", "reported")
end)

-- The coding agents' files (lua/lcsb/agents.lua): their configuration
-- (an MCP server, a hook) and their instructions, wherever they are made,
-- each with the agent that acts on it; not what lies beside them.
T.case("the agents' configuration and instructions are reported, wherever made", function()
  local by, lines, _, dir = report("mkdir -p sub .github .claude/commands && echo > README.md",
    "echo '{\"mcpServers\":{}}' > .mcp.json && echo '{\"hooks\":{}}' > .claude/settings.json "
      .. "&& mkdir -p .codex sub/.cursor && echo > .codex/config.toml && echo > sub/.cursor/mcp.json "
      .. "&& echo > .aider.conf.yml && echo > CLAUDE.md && echo > sub/AGENTS.md && echo > "
      .. ".github/copilot-instructions.md && echo > .clinerules && echo x >> README.md && "
      .. "echo > .claude/notes.txt")
  T.eq(keys(by), ".aider.conf.yml .claude .clinerules .codex .github/copilot-instructions.md "
    .. ".mcp.json CLAUDE.md sub/.cursor sub/AGENTS.md", "reported")
  T.has(by[".mcp.json"].why, "MCP servers", ".mcp.json's why")
  T.has(by[".claude"].why, "Claude Code runs the hooks", ".claude's why")
  T.contains(by[".claude"].inside, "settings.json", "what changed in .claude")
  T.has(by["sub/.cursor"].why, "Cursor", "a nested one too")
  T.has(by["sub/AGENTS.md"].why, "instructions", "instructions")
  -- A file protect's defaults keep once it exists: the hint says that,
  -- rather than to protect it.
  T.ok(#lines > 0, "lines")
  dir = T.tmpdir()
  local state = run_later.before(dir, nil, {}, { dir .. "/.mcp.json" })
  sh(dir, "echo '{}' > .mcp.json")
  local _, later = run_later.after(state)
  T.has(later[1], dir .. "/.mcp.json was created or changed during the run", "the line")
  T.has(later[1], "lcsb keeps it read-only from the next run on (protect's default)",
    "the default's hint")
  T.hasnt(later[1], "protect = {", "no protect hint")
end)

T.case("an entry a policy adds is looked for; a malformed one is an error", function()
  local list = run_later.list
  table.insert(list, { name = "justfile", why = "just runs it" })
  local ok, by = pcall(report, nil, "echo > justfile")
  table.remove(list)
  T.ok(ok, tostring(by))
  T.eq(by.justfile.why, "just runs it", "added")
  table.insert(list, { name = "a/b", why = "x" })
  local err = T.raises(function() report(nil, nil) end)
  table.remove(list)
  T.has(err, "run_later: entry", "malformed")
end)

-- ---- the walk ----

local function walk(dir, since, watch, opts)
  local found, info = core.changed(dir, since, watch, opts)
  T.ok(found, "changed: " .. tostring(info))
  local by = {}
  for _, e in ipairs(found) do by[e.path] = e end
  return by, info
end

T.case("symlinks are never followed: loops end, a link is reported as itself", function()
  local dir, outside = T.tmpdir(), T.tmpdir()
  sh(outside, "mkdir -p x && echo > x/.envrc")
  next_tick()
  local since = core.fs_now()
  sh(dir, "ln -s . loop && ln -s .. up && mkdir a && ln -s ../a a/back && ln -s " .. q(outside)
    .. " out && ln -s " .. q(outside .. "/x/.envrc") .. " .envrc && echo > a/.envrc")
  local by, info = walk(dir, since, { [".envrc"] = true })
  T.eq(keys(by), ".envrc a/.envrc", "found")
  T.eq(by[".envrc"].kind, "link", "the link itself")
  T.eq(info.visited, 7, "each entry once")
end)

T.case("a .git directory is never entered; another mount is never entered", function()
  local dir = T.tmpdir()
  local since = core.fs_now()
  sh(dir, "mkdir -p .git/modules/m/sub && echo > .git/modules/m/sub/conftest.py")
  local by = walk(dir, since, { ["conftest.py"] = true })
  T.eq(keys(by), "", "nothing inside .git")
  -- Where this user may mount (root, outside a container that forbids it).
  sh(dir, "mkdir mnt")
  if select(2, T.sh("mount -t tmpfs none " .. q(dir .. "/mnt") .. " 2>/dev/null")) ~= 0 then
    return
  end
  sh(dir, "echo > mnt/conftest.py")
  local ok, found = pcall(walk, dir, since, { ["conftest.py"] = true })
  T.sh("umount " .. q(dir .. "/mnt"))
  T.ok(ok, tostring(found))
  T.eq(keys(found), "", "nothing across a mount")
end)

T.case("a tree too deep, or too many entries: the walk stops and says where", function()
  local dir = T.tmpdir()
  local since = core.fs_now()
  local deep = string.rep("d/", 120)
  sh(dir, "mkdir -p " .. deep .. " && echo > " .. deep .. "conftest.py && mkdir -p "
    .. string.rep("d/", 40) .. ".git")
  local by, info = walk(dir, since, { ["conftest.py"] = true, [".git"] = { "." } })
  T.eq(keys(by), string.rep("d/", 40) .. ".git", "found above the bound")
  T.eq(info.deep.first, string.rep("d/", 100) .. "d", "where it stopped")
  by, info = walk(dir, since, { ["conftest.py"] = true }, { depth = 200 })
  T.ok(by[deep .. "conftest.py"], "found with a deeper bound")
  T.eq(info.deep, nil, "nothing unseen")
  -- Each stop is an item, and a line, of its own.
  local state = run_later.before(dir)
  state.since = since
  local items, lines = run_later.after(state, { depth = 2 })
  T.ok(items[#items].unseen, "an unseen item")
  T.eq(items[#items].path, dir .. "/d/d/d", "where")
  T.has(lines[#lines], "lcsb does not look this deep", "the depth")
  items, lines = run_later.after(state, { entries = 1 })
  T.eq(items[#items].path, dir, "where")
  T.has(lines[#lines], "lcsb stopped looking after 1 entries", "the cut")
  _, info = walk(dir, since, {}, { entries = 10 })
  T.ok(info.cut, "cut")
  T.eq(info.visited, 11, "stopped at the bound")
end)

T.case("past 10,000 files found the walk stops, and says so", function()
  local dir = T.tmpdir()
  local since = core.fs_now()
  sh(dir, "python3 -c " .. q("import os\nfor i in range(10001):\n os.mkdir('d%d' % i)\n"
    .. " open('d%d/.envrc' % i, 'w').close()"))
  local found, info = core.changed(dir, since, { [".envrc"] = true })
  T.eq(#found, 10000, "found")
  T.ok(info.full, "full")
  local state = run_later.before(dir)
  state.since = since
  local items, lines = run_later.after(state)
  T.ok(items[#items].unseen, "an unseen item")
  T.has(lines[#lines], "lcsb stopped looking after finding 10000 files", "the line")
  T.eq(#lines, run_later.lines_max + 2, "the lines stop")
end)

T.case("a name too long for a path is noted, not overrun", function()
  local dir = T.tmpdir()
  local since = core.fs_now()
  local name = string.rep("n", 250)
  -- 17 levels of 251 bytes: past PATH_MAX, each level reached by its own cd.
  sh(dir, "python3 -c " .. q("import os\nfor i in range(17):\n os.mkdir('" .. name
    .. "')\n os.chdir('" .. name .. "')\nopen('.envrc', 'w').close()"))
  local by, info = walk(dir, since, { [".envrc"] = true })
  T.eq(keys(by), "", "not reachable")
  T.ok(info.deep and info.deep.n >= 1, "noted")
end)

T.case("the directories to skip are skipped, and the start is after setup", function()
  local dir = T.tmpdir()
  sh(dir, "mkdir home && echo > home/.envrc")
  next_tick()
  local since = core.fs_now()
  sh(dir, "echo > home/Makefile && echo > Makefile")
  local by = walk(dir, since, { Makefile = true, [".envrc"] = true }, { skip = { dir .. "/home" } })
  T.eq(keys(by), "Makefile", "home skipped, its old .envrc no change")
end)

T.case("a backdated file is still a change: utimes sets ctime to now", function()
  local dir = T.tmpdir()
  sh(dir, "echo > Makefile")
  next_tick()
  local since = core.fs_now()
  sh(dir, "echo x >> Makefile && touch -d 2001-01-01 Makefile")
  T.eq(keys(walk(dir, since, { Makefile = true })), "Makefile", "found")
end)

T.case("unreadable directories: noted when the command could have used them", function()
  if root then return end -- root reads them all; scripts/test.sh runs this as lcsbtest
  local dir = T.tmpdir()
  sh(dir, "mkdir old && chmod 0 old")
  next_tick()
  local since = core.fs_now()
  -- Made unreadable during the run: what it hides is unseen, and said.
  sh(dir, "mkdir -p hidden/sub/.git && chmod 0 hidden && mkdir wx && chmod 0300 wx")
  local by, info = walk(dir, since, { [".git"] = { "." } })
  T.eq(keys(by), "", "nothing seen inside")
  T.eq(info.unreadable.n, 2, "hidden and the write-only one, not the old one")
  T.ok(info.unreadable.first == "hidden" or info.unreadable.first == "wx", "named")
  T.has(info.unreadable.error, "ermission", "why")
  -- Unreadable before the run and not searchable: the command could not have used it either.
  local dir2 = T.tmpdir()
  sh(dir2, "mkdir old && chmod 0 old")
  next_tick()
  local since2 = core.fs_now()
  _, info = walk(dir2, since2, { [".git"] = { "." } })
  T.eq(info.unreadable, nil, "an old unreadable directory")
end)

T.case("globs, a parent's name and a kind narrow a watch", function()
  local dir = T.tmpdir()
  local since = core.fs_now()
  sh(dir, "mkdir -p a/site-packages b c/d && echo > a/site-packages/x.pth && echo > b/y.pth && "
    .. "ln -s nowhere c/link && echo > c/file && echo > c/d/x.cfg && echo > top.cfg")
  local by = walk(dir, since, {
    ["*.pth"] = { look = true, parents = { "site-packages" } },
    ["*"] = { look = true, kind = "link" },
    ["/*.cfg"] = true,
  })
  T.eq(keys(by), "a/site-packages/x.pth c/link top.cfg", "found")
  T.eq(by["c/link"].watch, "*", "which watch")
  T.raises(function() core.changed(dir, 0, { x = { look = true, kind = "fifo" } }) end, "a kind")
  T.raises(function() core.changed(dir, 0, { x = { look = true, parents = { "a/b" } } }) end,
    "a parent with a slash")
end)

T.case("a repository is found, and not walked into but for its submodules'", function()
  local dir = T.tmpdir()
  local function repo(at) return ("mkdir -p %s/objects/aa %s/refs && echo > %s/HEAD && "
    .. "echo > %s/objects/aa/conftest.py && "):format(at, at, at, at) end
  sh(dir, repo("a") .. repo("a/modules/b") .. repo("c/d") .. repo("node_modules/pkg")
    .. repo("node_modules/pkg/lib/inner") .. "mkdir -p e/objects && echo > e/HEAD.txt")
  local by = walk(dir, 0, { ["*"] = { look = true, kind = "gitdir" }, ["conftest.py"] = true },
    { shallow = { "node_modules" } })
  T.eq(keys(by), "a a/modules/b c/d node_modules/pkg", "found, and nothing in them")
  T.ok(by.a.id and by.a.id:match("^%d+:%d+$"), "which directory")
end)

T.case("misuse raises; a project that cannot be walked is nil, message", function()
  T.raises(function() core.changed("/tmp", 0, { ["a/b"] = true }) end, "a name with a slash")
  T.raises(function() core.changed("/tmp", 0, { x = { "../y" } }) end, "an inside path out")
  T.raises(function() core.changed("/tmp", 0, { x = "trees" }) end, "a kind")
  T.raises(function() core.changed("/tmp", -1, {}) end, "a negative time")
  local found, err = core.changed("/nonexistent-lcsb", 0, {})
  T.eq(found, nil, "no project")
  T.has(err, "/nonexistent-lcsb", "named")
  T.eq(core.read_regular("/nonexistent-lcsb", 10), nil, "read_regular")
end)

T.run()
