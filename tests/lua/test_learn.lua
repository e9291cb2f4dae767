-- lcsb learn's proposal (lua/lcsb/learn.lua): where a change goes in a
-- script's text and the diff that shows it, and what a learning run's
-- refusals become (presets, built, paths) or stay out of (a secret). Run
-- by ctest with stock lua5.4 and the built lcsb/core.so.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local T = dofile(here .. "/harness.lua")
local learn = require "lcsb.learn"

T.case("the change goes in the one exec = { } or exec_policy { }", function()
  local add = { "lcsb.tools.c", "built = true" }
  T.eq(learn.edited('return lcsb.exec_policy { exec = { "make" } }', add),
    'return lcsb.exec_policy { exec = { lcsb.tools.c, built = true, "make" } }', "into exec")
  T.eq(learn.edited("return lcsb.exec_policy { exec = {} }", add),
    "return lcsb.exec_policy { exec = { lcsb.tools.c, built = true } }", "an empty exec")
  T.eq(learn.edited("return lcsb.exec_policy{ project = run.cwd }", add),
    "return lcsb.exec_policy{ exec = { lcsb.tools.c, built = true }, project = run.cwd }",
    "a new exec key")
  T.eq(learn.edited("return lcsb.exec_policy({\n  project = run.cwd,\n})", add),
    "return lcsb.exec_policy({ exec = { lcsb.tools.c, built = true },\n  project = run.cwd,\n})",
    "called with parentheses, over lines")
  local text, why = learn.edited('return lcsb.exec_policy { exec = "any" }', add)
  T.eq(text, nil, "exec any")
  T.has(why, '"any"', "says why")
  text, why = learn.edited("local f = lcsb.exec_policy\nreturn f { }", add)
  T.eq(text, nil, "no call to place it in")
  T.has(why, "no single exec_policy", "says why")
  text = learn.edited("a = lcsb.exec_policy { }\nb = lcsb.exec_policy { }", add)
  T.eq(text, nil, "two calls: lcsb cannot tell which")
  text, why = learn.edited("return lcsb.exec_policy { exec = programs }", add)
  T.eq(text, nil, "an exec that is no table literal")
  T.has(why, "exec key", "says why")
  -- Comments and strings that look like code are not code: the change goes
  -- where Lua reads it, or nowhere.
  T.eq(learn.edited('-- lcsb learn adds exec = { ... }\nreturn lcsb.exec_policy { }', add),
    '-- lcsb learn adds exec = { ... }\nreturn lcsb.exec_policy { exec = { lcsb.tools.c, built = true }, }',
    "a comment's exec = {")
  T.eq(learn.edited('--[==[ exec = { ]] ]==] return lcsb.exec_policy { note = "exec = {" }', add),
    '--[==[ exec = { ]] ]==] return lcsb.exec_policy { exec = { lcsb.tools.c, built = true }, note = "exec = {" }',
    "a long comment's and a string's")
  T.eq(learn.edited('-- exec = "any"\nreturn lcsb.exec_policy { }', add) ~= nil, true,
    "a comment's exec any is no exec any")
  -- What would not compile there is not written.
  text, why = learn.edited("return lcsb.exec_policy { exec = {", add)
  T.eq(text, nil, "an unfinished script")
  text, why = learn.edited("return lcsb.exec_policy { exec = { } } end", add)
  T.eq(text, nil, "a script that does not compile")
  T.has(why, "would not compile", "says why")
  -- A string that goes on past a newline (\z) is a string still.
  T.eq(learn.edited('local n = "a\\z\n exec = {"\nreturn lcsb.exec_policy { }', add),
    'local n = "a\\z\n exec = {"\nreturn lcsb.exec_policy { exec = { lcsb.tools.c, built = true }, }',
    "past \\z")
  -- Only exec_policy's own exec key: another table's (opts.exec, a
  -- nested one) is another branch's.
  text = learn.edited('opts.exec = { "x" }\nreturn lcsb.exec_policy { project = p }', add)
  T.eq(text, 'opts.exec = { "x" }\nreturn lcsb.exec_policy { exec = { lcsb.tools.c, built = true }, project = p }',
    "opts.exec is not exec_policy's")
  T.eq(learn.edited("return lcsb.exec_policy(opts)", add), nil, "a table built elsewhere")
  -- A key lcsb would not see as exec, and a local function of that name.
  text, why = learn.edited('return lcsb.exec_policy { ["exec"] = { "ls" } }', add)
  T.eq(text, nil, '["exec"]')
  T.has(why, '["exec"]', "says why")
  T.eq(learn.edited("local function exec_policy(t) return t end\nlocal d = exec_policy { }\n"
    .. "return ep { }", add), nil, "a local exec_policy is no call of lcsb's")
  T.eq(learn.edited("return lcsb.exec_policy { oci = { exec = { } } }", add),
    "return lcsb.exec_policy { exec = { lcsb.tools.c, built = true }, oci = { exec = { } } }",
    "a nested exec key is not exec_policy's")
end)

T.case("a path is printable ASCII in the change", function()
  local dir = T.tmpdir()
  local out = learn.propose({ status = 0, policy = { cwd = dir, exec = {}, write = { dir } },
    attestation = { refused = {}, refused_count = 0, execs_seen = true } }, "p.lua", "return 1\n")
  T.eq(out.text, nil, "nothing to add")
  T.eq(learn.quoted('/a"b\\c\n\226\128\174'), '"/a\\034b\\092c\\010\\226\\128\\174"', "escaped")
  T.eq(load("return " .. learn.quoted('/a"b\\c\n\226\128\174'))(), '/a"b\\c\n\226\128\174', "the same path")
end)

T.case("the diff names the changed line, with its context", function()
  local old = "a\nb\nc\nd\ne\nf\n"
  local new = "a\nb\nc\nD\ne\nf\n"
  T.eq(learn.diff("p.lua", old, new),
    "--- p.lua\n+++ p.lua (learned)\n@@ -1,6 +1,6 @@\n a\n b\n c\n-d\n+D\n e\n f\n", "one line")
end)

-- A learning run's evidence: the policy's tables and the refusals.
local function evidence(project, refused, seen)
  return {
    status = 0,
    policy = { cwd = project, exec = { "/usr/bin/env" }, read = { "/usr", "/etc" },
      write = { project }, env = { set = { TMPDIR = "/tmp/lcsb-tmp.abcdef" } } },
    attestation = { refused = refused, refused_count = #refused, execs_seen = seen },
  }
end

T.case("programs become presets, built = true and paths; secrets stay out", function()
  local dir = T.tmpdir()
  local m4 = T.trim(T.sh("command -v m4"))
  local refused = {
    { op = "exec", key = "exec", target = dir .. "/configure", program = "sh" },
    { op = "read", key = "read", target = os.getenv("HOME") .. "/.ssh/id_rsa", program = "cat" },
  }
  if m4 ~= "" then table.insert(refused, 1, { op = "exec", key = "exec", target = m4, program = "sh" }) end
  T.write(dir .. "/configure", "#!/bin/sh\n", "755")
  local source = 'local lcsb = require "lcsb"\nreturn function(run) return lcsb.exec_policy { project = run.cwd } end\n'
  local out = learn.propose(evidence(dir, refused, true), "p.lua", source)
  local report = table.concat(out.lines, "\n")
  T.ok(out.text, "a change: " .. report)
  T.has(out.text, "built = true", "the project's own")
  if m4 ~= "" then T.has(out.text, "lcsb.tools.autotools", "m4's preset") end
  T.hasnt(out.text, ".ssh", "no secret")
  T.has(report, "left out: read of " .. os.getenv("HOME") .. "/.ssh/id_rsa", "the secret named")
  T.has(out.diff, "+++ p.lua (learned)", "a diff")
  -- A module named in a comment is not the one the code names.
  out = learn.propose(evidence(dir, refused, true), "p.lua",
    '-- local lcsb = require "lcsb"\nlocal L = require "lcsb"\nreturn function(run) return L.exec_policy { } end\n')
  if m4 ~= "" then T.has(out.text, "L.tools.autotools", "the code's name") end
  -- A module named otherwise: the change names it so.
  out = learn.propose(evidence(dir, refused, true), "p.lua",
    'local l = require("lcsb")\nreturn function(run) return l.exec_policy { } end\n')
  if m4 ~= "" then T.has(out.text, "l.tools.autotools", "by the script's own name") end
end)

-- A link in the project to a program elsewhere (a venv's python made from
-- another python than the preset's) is refused under built = true: the
-- kernel judges the file it leads to, and learning learns that.
T.case("a link in the project, under built = true, is learned as what it leads to", function()
  local dir = T.tmpdir()
  local sed = T.trim(T.sh("command -v sed"))
  T.sh(("mkdir -p %s/.venv/bin && ln -s %s %s/.venv/bin/tool"):format(T.q(dir), T.q(sed), T.q(dir)))
  local ev = evidence(dir, { { op = "exec", key = "exec", target = dir .. "/.venv/bin/tool",
    program = "sh" } }, true)
  ev.policy.exec = { "/usr/bin/env", dir }
  local source = 'local lcsb = require "lcsb"\nreturn function(run) return lcsb.exec_policy '
    .. '{ project = run.cwd, exec = { built = true } } end\n'
  local out = learn.propose(ev, "p.lua", source)
  local report = table.concat(out.lines, "\n")
  T.hasnt(report, "lets run already", "not taken as allowed: " .. report)
  T.ok(out.text and out.text:find("lcsb.tools.shell", 1, true), "sed's preset: " .. report)
end)

T.case("a run that could not see every exec says so", function()
  local out = learn.propose(evidence(T.tmpdir(), {}, false), "p.lua", "return 1\n")
  T.has(table.concat(out.lines, "\n"), "could not show lcsb every exec", "said")
  T.eq(out.text, nil, "nothing to change")
end)

T.run()
