-- The command's stderr tail read for refusals: what its programs said the
-- kernel refused (a shell, make, a coreutil, Python, Node, gcc), each line
-- read into a refusal in the recorder's form and judged against the
-- policy. Apart from the wording: this is the one reader of the command's
-- own words, held to bounds a long or hostile line cannot stretch.

local evidence = require "lcsb.evidence"
local hint_text = require "lcsb.hint_text"
local paths = require "lcsb.paths"
local withheld = require "lcsb.withheld"

local M = {}

local dirname, basename = paths.dirname, paths.basename
local matches_any = hint_text.matches_any
local absolute, private_home = evidence.absolute, evidence.private_home
local program_path, named = evidence.program_path, evidence.named
local PROGRAMS = withheld.PROGRAMS

-- The C half tells whether a path exists and where it leads; without it,
-- guess that a path does not exist.
local has_core, core = pcall(require, "lcsb.core")
local function exists(path)
  return has_core and core.kind(path) ~= nil
end

-- Is PATH one of ENTRIES or beneath one?
local function covered(entries, path)
  return paths.covered(paths.set(entries), path)
end

-- ---- what a line says ----

-- Lines of the tail that report a refusal by the kernel.
local REFUSED = { "[Pp]ermission denied", "[Oo]peration not permitted", "[Rr]ead%-only file system",
  "[Dd]evice or resource busy", "EACCES", "EPERM", "EROFS", "EBUSY" }
-- What a tool prints after the path it names.
local MESSAGES = { "[Pp]ermission denied", "[Oo]peration not permitted",
  "[Rr]ead%-only file system", "[Dd]evice or resource busy" }

-- In a world of its own, a path outside the policy does not exist for the
-- command: "No such file or directory" about a path the host has (or whose
-- directory it has, for a file being created) is a refusal too.
local ABSENT = { "[Nn]o such file or directory", "[Dd]irectory nonexistent", "ENOENT" }
local CREATING = { "[Cc]annot create", "[Cc]annot touch", "[Dd]irectory nonexistent",
  "[Cc]annot open .* for writing", "O_CREAT" }

-- Words of a line (its path taken out) that say the refused call wrote.
local WRITING = { "cannot create", "cannot touch", "cannot remove", "cannot make", "mkdir",
  "[Rr]ead%-only", "cannot open .* for writing", "[Ww]rite", "unlink", "rename", "cannot move",
  "cannot copy", "O_WRONLY", "O_CREAT", "changing permissions", "changing ownership" }

-- A Python traceback's source lines that write.
local PY_WRITING = { "open%(.-,%s*[\"'][wax]", "mode%s*=%s*[\"'][wax]", "%.write_", "makedirs",
  "mkdir", "shutil%.", "os%.rename", "os%.replace", "os%.remove", "unlink", "symlink",
  "os%.chmod", "copyfile" }

-- Phrases before the path a tool could not write, and those before a
-- program it could not run; each a Lua pattern, the longest first.
local WRITE_PHRASES = { "cannot create regular file", "cannot create directory",
  "cannot create symbolic link", "cannot create special file", "cannot create fifo",
  "failed to create symbolic link", "failed to create hard link", "cannot create", "cannot touch",
  "cannot open output file", "cannot remove", "cannot overwrite", "cannot move .- to",
  "cannot rename", "could not lock config file", "could not commit config file",
  "could not write config file", "[Uu]nable to create", "couldn't open temporary file",
  "couldn't edit", "changing permissions of", "changing ownership of" }
local EXEC_PHRASES = { "cannot execute", "cannot exec", "cannot run", "failed to run command" }

-- Programs that run the program their operand names: "make: id: Permission
-- denied" is id refused execution, not a file refused reading.
local SHELLS = { sh = true, bash = true, dash = true, zsh = true, ksh = true, ash = true,
  mksh = true, busybox = true }
local LAUNCHERS = { make = true, gmake = true, xargs = true, env = true, nice = true, nohup = true,
  timeout = true, stdbuf = true, setsid = true, flock = true, taskset = true, chrt = true,
  ionice = true }

-- The leading word of a line that names the program saying it: "cat: ...",
-- "/usr/bin/ld: ...", "make[1]: ...", as that program's name.
local NOT_PROGRAMS = { error = true, fatal = true, warning = true, hint = true, note = true }
local function reporter(line)
  local first = line:match("^([^%s:]+):")
  if not first then return end
  local name = basename((first:gsub("%[%d+%]$", "")))
  if name == "" or name:find("Error$") or NOT_PROGRAMS[name:lower()]
    or not name:find("^[%w_][%w_%.%+%-]*$") then
    return
  end
  return name
end

local function leading_quoted(text)
  return text:match("^'([^']*)'") or text:match('^"([^"]*)"') or text:match("^`([^']*)'")
    or text:match("^\226\128\152(.-)\226\128\153")
end

local function unquote(text)
  text = text:match("^%s*(.-)%s*$")
  return text:match("^'(.*)'$") or text:match('^"(.*)"$') or text:match("^`(.*)'$")
    or text:match("^\226\128\152(.*)\226\128\153$") or text
end

-- The operand after PHRASE on LINE: quoted, or up to the message.
local function operand(line, phrase)
  local rest = line:match(phrase .. "%s+(.*)$")
  if not rest then return end
  local quoted = leading_quoted(rest)
  if quoted then return quoted end
  return rest:match("^(.-): [^:]*$") or rest:match("^(%S+)")
end

-- The operand before the message ("cat: out/x: Permission denied"): a
-- path only when it holds a slash, the last word of a phrase only then too.
local function before_message(line, messages)
  for _, message in ipairs(messages) do
    local head = line:match("^(.*): " .. message)
    if head then
      local quoted = head:match("'([^']+)'$") or head:match('"([^"]+)"$')
        or head:match("\226\128\152(.-)\226\128\153$")
      if quoted then return quoted end
      local last = (head:match("^.*:(.*)$") or head):match("^%s*(.-)%s*$")
      if not last:find("%s") and last:find("/") then return last end
      local word = last:match("^.*%s(%S+)$")
      if word and word:find("/") then return unquote(word) end
    end
  end
end

-- The Python traceback LINES[I] ends, as one text (at most 60 lines back).
local function traceback(lines, i)
  local from = math.max(1, i - 60)
  for k = i, from, -1 do
    if lines[k]:find("^Traceback") then
      from = k
      break
    end
  end
  return table.concat(lines, "\n", from, i)
end

-- ---- one line read: the refusal it reports ----

-- Node's child_process, or collect2 looking for the linker it may not run:
-- R, a program refused execution, when LINE is one of theirs.
local function spawn_refused(line, r)
  local spawned, code = line:match("spawn%a* (%S+) (E%u+)")
  if spawned and (code == "EACCES" or code == "EPERM") then
    r.op, r.name = "exec", spawned
    return r
  end
  -- Go's os/exec, whose static programs the recorder does not see (the
  -- shim's init does, in a world of its own; where it cannot, this line):
  -- "fork/exec /usr/lib/go/pkg/tool/linux_amd64/compile: permission denied".
  local forked = line:match("fork/exec ([^:]+): permission denied")
    or line:match("fork/exec ([^:]+): operation not permitted")
  if forked then
    r.op, r.name = "exec", forked
    return r
  end
  local linker = line:match("^collect2: fatal error: cannot find '([^']+)'")
  if linker then
    r.op, r.name = "exec", linker
    return r
  end
end

-- A tool's phrase before its operand (REFUSED: the line reports a refusal,
-- not an absence): a program it could not run, what mv could not move, a
-- file it could not write.
local function by_phrase(line, r, refused)
  -- Every phrase holds one of these words: most lines hold none.
  local phrased = line:find("annot") or line:find("ould") or line:find("nable")
    or line:find("failed") or line:find("changing")
  for _, phrase in ipairs(phrased and EXEC_PHRASES or {}) do
    local name = operand(line, phrase)
    if name and refused then
      r.op, r.name = "exec", name
      return r
    end
  end
  -- mv's "cannot move 'A' to 'B': Device or resource busy": A is what is
  -- held in place (a mount point), not where it was going.
  local moved = r.busy and (line:match("cannot move '([^']+)' to")
    or line:match('cannot move "([^"]+)" to') or line:match("cannot move \226\128\152(.-)\226\128\153 to"))
  if moved then
    r.op, r.name = "write", moved
    return r
  end
  for _, phrase in ipairs(phrased and WRITE_PHRASES or {}) do
    local name = operand(line, phrase)
    if name then
      r.op, r.name = "write", name
      return r
    end
  end
end

-- What a launcher or a shell could not run (make, xargs, env; dash; bash),
-- or the redirect a shell could not open.
local function by_shell(line, r)
  local program = r.program
  -- make, xargs, env: the operand is the program they could not run.
  local launched = program and LAUNCHERS[program]
    and line:match("^[^:]+: (.-): [Pp]ermission denied")
  if launched then
    r.op, r.name = "exec", unquote(launched)
    return r
  end
  -- dash: "sh: 1: NAME: Permission denied" is NAME refused execution (a
  -- redirect says "cannot create"); bash: "SCRIPT: line 3: NAME: ..." and
  -- "bash: NAME: ...", a redirect too when NAME is a path.
  local dash = line:match("^[^:]+: %d+: (%S-): [Pp]ermission denied")
  if dash then
    r.op, r.name = "exec", dash
    return r
  end
  local bash = line:match("^[^:]+: line %d+: (%S-): ")
    or (SHELLS[program] and line:match("^[^:]+: (%S-): "))
  if bash then
    r.name = bash
    if r.ro or r.busy then
      r.op = "write"
    elseif line:find("[Pp]ermission denied") then
      r.op = bash:find("/") and "exec?" or "exec"
    end
    return r
  end
end

-- A runtime's error, which says the same of a read and a write:
-- Python's, from its traceback's source lines; Node's, from the call.
local function by_runtime(lines, i, r)
  local line = lines[i]
  -- Python: "PermissionError: [Errno 13] Permission denied: '/x'", from
  -- subprocess an exec; Node: "EACCES: permission denied, open '/x'".
  local py = line:match("%[Errno %d+%] [^:]+: '(.-)'") or line:match('%[Errno %d+%] [^:]+: "(.-)"')
  if py then
    local context = traceback(lines, i)
    r.name, r.unsure = py, true
    if context:find("subprocess%.py") or context:find("_execute_child") then
      r.op = "exec"
    elseif matches_any(context, PY_WRITING) then
      r.op = "write"
    end
    return r
  end
  local call, node = line:match("E%u+: [^,]+, (%l+) '(.-)'")
  if node then
    r.name, r.unsure = node, true
    if call ~= "open" and call ~= "access" and call ~= "stat" and call ~= "lstat"
      and call ~= "scandir" and call ~= "opendir" and call ~= "readlink" then
      r.op = "write"
    end
    return r
  end
end

-- The path before the message, else an absolute one past the program's own
-- name.
local function by_place(line, r)
  local messages = MESSAGES
  if r.absent then messages = ABSENT end
  r.name = before_message(line, messages)
  if r.name then return r end
  -- Last: an absolute path past the program's own name.
  local rest = line:gsub("^[^%s:]+: ", "", 1)
  r.name = rest:match("'(/[^']*)'") or rest:match('"(/[^"]*)"') or rest:match("(/[^%s:'\"]+)")
  if r.name and r.name ~= "/" then return r end
end

-- The refusal LINES[I] reports, as { op, name (the path or program as the
-- line gives it), program, ro, busy, absent }, or nil.
local function read_line(lines, i)
  local line = lines[i]
  local program = reporter(line)
  local r = { program = program, ro = line:find("[Rr]ead%-only file system") ~= nil
    or line:find("EROFS") ~= nil, busy = line:find("[Dd]evice or resource busy") ~= nil
    or line:find("EBUSY") ~= nil }
  if spawn_refused(line, r) then return r end
  local refused = matches_any(line, REFUSED)
  r.absent = not refused and matches_any(line, ABSENT)
  if not refused and not r.absent then return end
  return by_phrase(line, r, refused) or by_shell(line, r) or by_runtime(lines, i, r)
    or by_place(line, r)
end

-- ---- the tail read: refusals in the recorder's form ----

local LINE_MAX = 1024

-- What from_stderr found for an evidence table, for the three heuristics
-- that read it; explain starts afresh, so a host that changes the evidence
-- between two calls is read again.
local found_in = setmetatable({}, { __mode = "k" })

-- A tool's refusal is a short line, or ends a long one (what the
-- command wrote before it without a newline): its last LINE_MAX bytes.
-- LINES, and for each whether it was cut.
local function tail_lines(stderr)
  local lines, cut = {}, {}
  for line in stderr:gmatch("[^\n]+") do
    lines[#lines + 1] = #line > LINE_MAX and line:sub(-LINE_MAX) or line
    cut[#lines] = #line > LINE_MAX
  end
  return lines, cut
end

-- What LINE, which names PATH and no call (R.op nil), did to it: a write
-- when its words, or a file held read-only, say so; else a read.
local function guessed_op(r, line, path)
  local name = r.name
  local held = r.ro or r.busy
  local text = line:gsub((name:gsub("%p", "%%%0")), "", 1)
  if held or matches_any(text, WRITING) then
    return "write"
  elseif r.absent then
    return matches_any(line, CREATING) and "write" or "read"
  elseif r.unsure and has_core and not exists(path) and exists(dirname(path)) then
    -- Python's and Node's open() say the same of a read and a
    -- write: refused where no file is, one was to be made.
    return "write"
  else
    return "read"
  end
end

-- A write of PATH refused (HELD: the command was told it is read-only or
-- busy), judged against POLICY; nil when the policy allows it.
local function write_record(policy, path, held)
  -- Held read-only inside the write tier: protected, unless a
  -- symlink on the way leads out of the tier.
  local real = held and covered(policy.write, path) and not covered(policy.protect, path)
    and has_core and core.realpath(dirname(path))
  if real and not covered(policy.write, real) then
    return { op = "write", key = "write", target = real .. "/" .. basename(path) }
  elseif covered(policy.protect, path) or (held and covered(policy.write, path)) then
    return { op = "write", key = "protect", target = path }
  elseif not covered(policy.write, path) then
    return { op = "write", key = "write", target = path }
  end
end

-- The record for PATH, read or written as R (from LINE) says or OP guesses,
-- judged against the policy: in the private HOME, protected, outside the
-- tiers; nil when the policy allows it, or it is absent and no refusal.
local function path_record(ev, r, line, op, path)
  local policy = ev.policy or {}
  local own_world = (ev.attestation or {}).world == "own"
  local held = r.ro or r.busy
  if private_home(ev, path) then
    return { op = op or "read", key = op or "read", target = path, home = true }
  elseif r.absent and not own_world then
    return nil
  end
  op = op or guessed_op(r, line, path)
  -- What is absent in a world of its own is refused only when the
  -- host has it (or, being made, its directory).
  if r.absent and not (exists(path) or (op == "write" and exists(dirname(path)))) then
    op = nil
  end
  if op == "write" then
    return write_record(policy, path, held)
  elseif op == "read" and not covered(policy.read, path)
    and not covered(policy.write, path) then
    return { op = "read", key = "read", target = path }
  end
end

-- The records R (read from LINE) stands for, in the recorder's form: the
-- files a program refused would have been, or the path refused; none for
-- what the evidence (KNOWN: what it names) has already.
local function records(ev, r, line, known)
  local policy = ev.policy or {}
  local name = r.name
  local path = (name:find("/") or r.op ~= "exec") and absolute(ev, name)
  local op = r.op
  if op == "exec?" then
    -- bash says the same of a program it could not run and a redirect
    -- it could not open: where the command may write, or among the
    -- programs, it was the run.
    op = path and (covered(policy.write, path) or matches_any(path, PROGRAMS)) and "exec"
      or "write"
  end
  local recs = {}
  if op == "exec" then
    -- A bare name is the file the command's PATH finds (or gcc's, git's own).
    local files = path and { path } or program_path(ev, name) or { name }
    if not (known.programs[basename(name)] or (path and known.paths[path])) then
      for _, file in ipairs(files) do
        recs[#recs + 1] = { op = "exec", key = "exec", target = file }
      end
    end
  elseif path and not known.paths[path] then
    recs[#recs + 1] = path_record(ev, r, line, op, path)
  end
  return recs
end

-- Every distinct refusal the stderr tail reports that the evidence does not
-- name, judged against the policy: a list in the form of the recorder's,
-- plus make's Error 127 (no name) as MAKE127. Only for a run that failed.
local function from_stderr(ev)
  local memo = found_in[ev]
  if memo and memo.stderr == ev.stderr and memo.status == ev.status and memo.policy == ev.policy
    and memo.attestation == ev.attestation then
    return memo.out
  end
  local out = { make127 = false }
  found_in[ev] = { stderr = ev.stderr, status = ev.status, policy = ev.policy,
    attestation = ev.attestation, out = out }
  if ev.status == 0 or type(ev.stderr) ~= "string" then return out end
  local known = named(ev)
  local seen = {}
  local lines, cut = tail_lines(ev.stderr)
  for i, line in ipairs(lines) do
    if line:find("^g?make[%[%d%]]*: %*%*%* .*Error 127") then out.make127 = true end
    -- The shim's own lines are lcsb's, not the command's: a world it could
    -- not make is said by the setup_failed hint, never as a path to grant.
    local r = reporter(line) ~= "lcsb-exec" and read_line(lines, i) or nil
    if r and cut[i] then r.program = nil end -- its first word is not the tool's
    local name = r and r.name
    if name and name ~= "" and name ~= "/" then
      for _, each in ipairs(records(ev, r, line, known)) do
        each.program, each.ro, each.busy, each.absent = r.program, r.ro, r.busy, r.absent
        local id = each.op .. "\0" .. each.target
        if not seen[id] then
          seen[id] = true
          out[#out + 1] = each
        end
      end
    end
  end
  return out
end

-- Explain starts afresh: a host that changes the evidence between two calls
-- has it read again.
function M.begin()
  found_in = setmetatable({}, { __mode = "k" })
end

M.REFUSED = REFUSED
M.ABSENT = ABSENT
M.from_stderr = from_stderr

return M
