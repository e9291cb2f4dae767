-- The hints from the stderr tail, for what the recorder did not see: a
-- corpus of real tools' refusals (issue 20: every refusal named), each
-- read for the path or program it names and judged against the policy,
-- the private HOME's, ten lines at most, and in time linear in the tail.

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local F = loadfile(here .. "/remedies_fixtures.lua")(T)

local D, which, RO, PROTECTED, lift = F.D, F.which, F.RO, F.PROTECTED, F.lift
local evidence, said, lines = F.evidence, F.said, F.lines

local BUILT = ", or exec = { built = true } for everything the project builds (anything the "
  .. "command writes there, it can run)"

T.case("writes: the path the tool names, not the shell's own; never a read-only disk", function()
  local out = D .. "/out"
  local cases = {
    { "/bin/sh: 1: cannot create " .. out .. "/new: Read-only file system", "sh", out .. "/new", RO },
    { "sh: 1: cannot create " .. out .. "/new: Directory nonexistent", "sh", out .. "/new", "" },
    { "bash: " .. out .. "/new: Read-only file system", "bash", out .. "/new", RO },
    { "/usr/bin/ld: cannot open output file " .. out .. "/a.out: Read-only file system", "ld",
      out .. "/a.out", RO },
    { "touch: cannot touch '" .. out .. "/t': Permission denied", "touch", out .. "/t", "" },
    { "cp: cannot create regular file '" .. out .. "/c': Permission denied", "cp", out .. "/c", "" },
    { "mkdir: cannot create directory \226\128\152" .. out .. "/m\226\128\153: Read-only file system",
      "mkdir", out .. "/m", RO },
    { "OSError: [Errno 30] Read-only file system: '" .. out .. "/o'", nil, out .. "/o", RO },
    { "PermissionError: [Errno 13] Permission denied: '" .. out .. "/p'", nil, out .. "/p", "" },
    { "Error: EACCES: permission denied, open '" .. out .. "/n'", nil, out .. "/n", "" },
    { "Error: EROFS: read-only file system, open '" .. out .. "/n'", nil, out .. "/n", RO },
    { "Error: EACCES: permission denied, mkdir '" .. out .. "/existing'", nil, out .. "/existing", "" },
  }
  for _, c in ipairs(cases) do
    local line, program, target, note = c[1], c[2], c[3], c[4]
    local entry = target == out .. "/existing" and target or out
    T.eq(lines(said(line)), ('refused: write of %s%s: add write = { "%s" }%s'):format(target,
      program and (" (" .. program .. ")") or "", entry, note), line)
  end
  -- A file that is there, named by Python or Node: read.
  T.eq(lines(said("PermissionError: [Errno 13] Permission denied: '" .. out .. "/existing'")),
    ('refused: read of %s/existing: add read = { "%s/existing" }'):format(out, out), "python read")
end)

T.case("relative paths are the run's working directory's, never cut to a tail", function()
  local work = evidence().policy
  work.cwd = D .. "/work"
  T.eq(lines(said("touch: cannot touch 'out/x': Read-only file system", { policy = work })),
    ('refused: write of %s/work/out/x (touch): add write = { "%s/work/out" }%s'):format(D, D, RO),
    "a relative write")
  T.eq(lines(said("sh: 1: cannot create .git/hooks/pre-commit: Read-only file system")),
    ("refused: write of %s/proj/.git/hooks/pre-commit (sh): %s%s"):format(D, PROTECTED,
      lift(".git/hooks")), "a hook: protected")
  T.eq(lines(said("sh: 1: ./app: Permission denied")),
    ('refused: exec of %s/proj/app (sh): add exec = { "./app" }'):format(D) .. BUILT,
    "./app")
  T.eq(lines(said("error: could not lock config file .git/config: Device or resource busy")),
    ('refused: write of %s/proj/.git/config: %s ("Device or resource busy": a read-only mount '
      .. "holds it); give git its settings with git -c, or with GIT_AUTHOR_NAME and the like in "
      .. "env, which write nothing, or run git config outside lcsb%s"):format(D, PROTECTED,
      lift(".git/config")), "EBUSY on a protected config")
  -- Without a working directory, a relative path is no grant.
  local none = evidence().policy
  none.cwd = nil
  T.eq(lines(said("touch: cannot touch 'out/x': Read-only file system", { policy = none })), "",
    "no cwd, no guess")
end)

T.case("exec refusals below the top: make, xargs, env, node, python, gcc, collect2, git", function()
  local function exec(path, program)
    return ('refused: exec of %s%s: add exec = { "%s" }'):format(path,
      program and (" (" .. program .. ")") or "", path)
  end
  local id = which("id")
  T.eq(lines(said("make: id: Permission denied\nmake: *** [Makefile:2: all] Error 127")),
    exec(id, "make"), "make")
  T.eq(lines(said("xargs: echo: Permission denied")), exec(which("echo"), "xargs"), "xargs")
  T.eq(lines(said("env: \226\128\152id\226\128\153: Permission denied")), exec(id, "env"), "env")
  T.eq(lines(said("timeout: failed to run command \226\128\152id\226\128\153: Permission denied")),
    exec(id, "timeout"), "timeout")
  T.eq(lines(said("node:child_process:1\nError: spawnSync /usr/bin/id EACCES")),
    exec("/usr/bin/id"), "spawnSync")
  T.eq(lines(said("Error: spawn /usr/bin/id EACCES")), exec("/usr/bin/id"), "spawn")
  T.eq(lines(said("Traceback (most recent call last):\n  File \"x.py\", line 2, in <module>\n"
    .. "  File \"/usr/lib/python3.11/subprocess.py\", line 1901, in _execute_child\n"
    .. "PermissionError: [Errno 13] Permission denied: '/usr/bin/id'")),
    exec("/usr/bin/id"), "python's subprocess")
  local cc1 = which("cc1")
  T.eq(lines(said("gcc: fatal error: cannot execute 'cc1': execvp: Permission denied")),
    cc1:find("/") and exec(cc1, "gcc")
      or "refused: exec of cc1 (gcc): it is not on PATH here; name it in exec = { ... } by its path",
    "gcc's own")
  local ld = which("ld")
  -- One program a preset lists itself: the preset is named for it too.
  T.eq(lines(said("collect2: fatal error: cannot find 'ld'")),
    ld:find("/") and exec(ld, "collect2") .. ", or exec = { lcsb.tools.c } for it and the rest "
      .. "of that preset at once"
      or "refused: exec of ld (collect2): it is not on PATH here; name it in exec = { ... } by its path",
    "collect2")
  -- Go's toolchain is static: no recorder sees its execs, its own words do.
  T.eq(lines(said("fork/exec /usr/lib/go-1.19/pkg/tool/linux_amd64/compile: permission denied",
    { argv = { "go" } })),
    'refused: exec of /usr/lib/go-1.19/pkg/tool/linux_amd64/compile: add exec = '
      .. '{ "/usr/lib/go-1.19/pkg/tool/linux_amd64/compile" }', "go's fork/exec")
  T.eq(lines(said("fatal: cannot exec 'git-lcsb-none': Permission denied")),
    "refused: exec of git-lcsb-none: it is not on PATH here; name it in exec = { ... } by its path",
    "git, a helper that is nowhere")
  T.eq(lines(said("error: cannot run .git/hooks/pre-commit: Permission denied")),
    ('refused: exec of %s/proj/.git/hooks/pre-commit: add exec = { "./.git/hooks/pre-commit" }')
      :format(D), "git's hook")
  T.eq(lines(said("make: *** [Makefile:2: all] Error 127")),
    "a make recipe could not run a program (make's Error 127: not found, or refused "
    .. 'execution); if it was refused, name it in exec = { "PROGRAM" }', "make alone")
  -- Several programs: one line for all.
  T.eq(lines(said("make: id: Permission denied\nxargs: echo: Permission denied")),
    ('refused: exec of 2 programs (id, echo): add exec = { "%s", "%s" }, or exec = { '
      .. "lcsb.tools.shell } for them and the rest of that preset at once"):format(id, which("echo")),
    "grouped")
end)

T.case("npm's log in the private HOME is no grant: it went with the HOME", function()
  local text = lines(said("npm ERR! A complete log of this run can be found in: "
    .. "/tmp/lcsb-home.x/.npm/_logs/2024-01-01T00_00_00_000Z-debug-0.log"))
  T.eq(text, "~/.npm/_logs/2024-01-01T00_00_00_000Z-debug-0.log, which the command named, lies "
    .. "in the run's private HOME, a fresh directory removed after the run, not your HOME; "
    .. 'cache = { "~/.npm" } keeps ~/.npm between runs', "the log")
  local kept = evidence().policy
  kept.cache = { { name = "~/.npm", path = D .. "/cache/.npm" } }
  T.eq(lines(said("npm ERR! A complete log of this run can be found in: "
    .. "/tmp/lcsb-home.x/.npm/_logs/x-debug-0.log", { policy = kept })), "", "kept already")
end)

T.case("several refusals: each named, ten lines at most", function()
  local stderr = {}
  for i = 1, 12 do stderr[i] = ("cat: /srv/lcsb-none-%02d/f: Permission denied"):format(i) end
  local hints = said(table.concat(stderr, "\n"))
  T.eq(#hints, 10, "ten lines")
  T.eq(hints[1], 'refused: read of /srv/lcsb-none-01/f (cat): add read = { "/srv/lcsb-none-01/f" }',
    "the first")
  T.eq(hints[10], "3 more refused paths the command's stderr names", "the rest counted")
  -- The same refusal twice is one line.
  T.eq(#said("cat: /srv/x: Permission denied\ncat: /srv/x: Permission denied"), 1, "distinct")
end)

T.case("a line the command printed cannot coax a grant of a sensitive path", function()
  local only_usr = evidence().policy
  only_usr.read = { "/usr" }
  for _, c in ipairs {
    { "cat: /etc/shadow: Permission denied", "read", "/etc/shadow", "cat", "the system's own files" },
    { "cat: /home/u/.ssh/id_rsa: Permission denied", "read", "/home/u/.ssh/id_rsa", "cat",
      "a dot-file or dot-directory (where keys, credentials and start-up files live)" },
    { "cat: /home/u/\b.ssh/id_rsa: Permission denied", "read", "/home/u/\\x08.ssh/id_rsa", "cat",
      "a dot-file or dot-directory (where keys, credentials and start-up files live)" },
    { "sh: 1: cannot create /root/.bashrc: Permission denied", "write", "/root/.bashrc", "sh",
      "root's home" },
  } do
    T.eq(lines(said(c[1], { policy = only_usr })),
      ("refused: %s of %s (%s): no hint: granting %s is a decision to make yourself"):format(c[2],
        c[3], c[4], c[5]), c[1])
  end
end)

T.case("a long line the command wrote costs lcsb no more than a short one", function()
  -- What it wrote before a refusal without a newline, and lines built to
  -- make a pattern backtrack: read in linear time, the refusal still named.
  local t = os.clock()
  T.eq(lines(said(string.rep("x", 65000) .. "cat: /srv/lcsb-none/a: Permission denied")),
    'refused: read of /srv/lcsb-none/a: add read = { "/srv/lcsb-none/a" }', "the last bytes")
  for _, text in ipairs { string.rep("a:", 32000) .. " Permission denied",
    string.rep("EA: ", 16000) .. "permission denied", string.rep("/a", 32000) .. ": Permission denied",
    string.rep(string.rep("cannot move 'a' to ", 50) .. "Permission denied\n", 60) } do
    said(text)
  end
  T.ok(os.clock() - t < 2, "in well under two seconds")
end)

T.run()
