-- Refusals worded, one kind at a time: what each kind of refusal (a
-- program, a file read or written, one withheld, a protected or hidden
-- path, the private HOME) says, and the entry that would allow it. Apart
-- from the grouping (refusal_groups.lua), which picks the kind, and from
-- the network's (net_refusals.lua).

local evidence = require "lcsb.evidence"
local hint_text = require "lcsb.hint_text"
local paths = require "lcsb.paths"
local settings = require "lcsb.settings_files"
local withheld = require "lcsb.withheld"

local M = {}

local dirname, basename = paths.dirname, paths.basename
local shown, lua_string, lua_list = hint_text.shown, hint_text.lua_string, hint_text.lua_list
local notes = hint_text.notes
local private_home, shown_in = evidence.private_home, evidence.shown_in
local too_wide, held_within, capped = withheld.too_wide, withheld.held_within, withheld.capped
local settings_file, settings_why = settings.settings_file, settings.settings_why

-- The C half tells whether a path exists; without it, guess that a path
-- does not exist.
local has_core, core = pcall(require, "lcsb.core")
local function exists(path)
  return has_core and core.kind(path) ~= nil
end

-- Each call refused, as a hint says it before its target.
local VERB = { exec = "exec of", read = "read of", write = "write of", connect = "connect to",
  bind = "bind to" }

-- "read of /x (cat)", the target as ev shows it.
local function refusal_text(ev, r)
  local target = r.home and private_home(ev, r.target, true) or r.target
  local text = r.op == "socket" and ("a socket of kind " .. shown(target))
    or ((VERB[r.op] or (shown(r.op) .. " of")) .. " " .. shown(target))
  return r.program and ("%s (%s)"):format(text, shown(r.program)) or text
end

-- The policy the evidence holds, and the project (its directory, nil when
-- it names none): the evidence is a host's to fill, and may lack either.
local function policy_of(ev) return type(ev.policy) == "table" and ev.policy or {} end

local function project_of(ev)
  local cwd = policy_of(ev).cwd
  return type(cwd) == "string" and cwd or nil
end

-- Is PATH one of LIST's paths, or inside one?
local function within_any(list, path)
  for _, dir in ipairs(type(list) == "table" and list or {}) do
    if path == dir or path:sub(1, #dir + 1) == dir .. "/" then return true end
  end
  return false
end

-- The default of protect (lcsb.protect_default) that keeps TARGET
-- read-only, by its name from the project's root (the deepest: .git/hooks
-- rather than .git), for the hint that lets that one go; nil when TARGET
-- lies in none, or the evidence names no project (a saved attestation).
-- The defaults are those the run held by (lcsb.protect_default as the
-- policy script left it: it may add to them), kept by lcsb.protect.
local function default_holding(ev, target)
  local project = project_of(ev)
  if not project or target:sub(1, #project + 1) ~= project .. "/" then return nil end
  local rel = target:sub(#project + 2)
  local ok, protect = pcall(require, "lcsb.protect")
  -- Only a default the run held: one the policy let go ("!NAME") holds
  -- nothing, whatever its own entries hold inside it.
  local held = {}
  for _, path in ipairs(type(ev.policy.protect) == "table" and ev.policy.protect or {}) do
    held[path] = true
  end
  local best
  for _, d in ipairs(ok and protect.defaults_in_force() or {}) do
    local name = type(d) == "table" and d.path
    if type(name) == "string" and (rel == name or rel:sub(1, #name + 1) == name .. "/")
      and held[project .. "/" .. name] and (not best or #name > #best) then
      best = name
    end
  end
  return best
end

-- The protected or hidden path of the policy lying below the directory
-- TARGET, or the hidden path TARGET is, if any: { path, hidden, itself }.
local function held_below(ev, target)
  local policy = policy_of(ev)
  for _, tier in ipairs({ "protect", "hide" }) do
    for _, path in ipairs(type(policy[tier]) == "table" and policy[tier] or {}) do
      if type(path) == "string" and (path:sub(1, #target + 1) == target .. "/"
        or (tier == "hide" and path == target)) then
        return { path = path, hidden = tier == "hide", itself = path == target }
      end
    end
  end
  return nil
end

local RO_NOTE = '"Read-only file system" here means outside the policy\'s write tier, not a '
  .. "read-only disk"
local CREATE_FIRST = "make what is missing first: a path that does not exist is left out of a "
  .. "policy"
local OWN_TMP = "the command has a temporary directory of its own, $TMPDIR, which it may write: "
  .. "a fixed path in the host's shared one is seen by every program there"

-- What lets the command write PATH: the file when it is there, else its
-- directory (a policy leaves out what does not exist), unless that is too
-- wide to grant; true as the second value when the file must be made first.
local function write_entry(path)
  if exists(path) then return path end
  local dir = dirname(path)
  if too_wide(dir) then return path, true end
  return dir
end

-- The smallest of lcsb's presets (lcsb.tools) that holds every program of
-- TARGETS by name, when there are two or more of them: a script refused
-- sort, then uniq, then wc, takes one run with the preset, not three. One
-- program alone names the preset that lists it itself (autoreconf's
-- aclocal, then autoconf, then m4: one run with the autotools preset, not
-- eight), not the shell's, whose one tool needs no hundred others.
local function preset_for(targets)
  local ok, tools = pcall(require, "lcsb.tools")
  if not ok or #targets == 0 then return end
  local function holds(preset, name, nested, seen)
    seen = seen or {}
    if seen[preset] then return false end
    seen[preset] = true
    for _, entry in ipairs(preset) do
      if entry == name or (nested and type(entry) == "table" and holds(entry, name, nested, seen)) then
        return true
      end
    end
    return false
  end
  local alone = #targets == 1
  for _, name in ipairs(tools.preset_names or {}) do
    local preset, all = tools[name], not (alone and name == "shell")
    for _, target in ipairs(targets) do
      all = all and type(preset) == "table" and holds(preset, basename(target), not alone)
    end
    if all then return name end
  end
end

-- Is preset NAME in the policy already (exec_policy's notes name it)? Then
-- it is no remedy: what was refused is not what the preset found here (a
-- venv's python made from another python than the one PATH finds).
local function preset_in_use(ev, name)
  local notes = policy_of(ev).tools
  for _, note in ipairs(type(notes) == "table" and notes or {}) do
    if type(note) == "string" and note:sub(1, #name + 8) == "preset " .. name .. ":" then
      return true
    end
  end
  return false
end

-- The run's private TMPDIR, as the policy's env sets it; nil where it
-- sets none (a saved attestation has no env).
local function private_tmp_of(ev)
  local env = type(policy_of(ev).env) == "table" and policy_of(ev).env or {}
  local tmp = type(env.set) == "table" and env.set.TMPDIR or env.TMPDIR
  return type(tmp) == "string" and tmp:sub(1, 1) == "/" and tmp or nil
end

-- Does TARGET lie in the run's private TMPDIR? The policy's env says
-- where it was; a saved attestation, without it, by the name lcsb gives it.
local function in_private_tmp(ev, target)
  local tmp = private_tmp_of(ev)
  if tmp then return target:sub(1, #tmp + 1) == tmp .. "/" end
  return target:find("^/.-/lcsb%-tmp[%.%-][^/]+/") ~= nil
end

-- Does the policy say built = true (the project among its exec paths)?
local function has_built(ev)
  local policy, project = policy_of(ev), project_of(ev)
  for _, path in ipairs(type(policy.exec) == "table" and policy.exec or {}) do
    if path == project then return true end
  end
  return false
end

-- Do TARGETS all lie where built = true would let them run (the project,
-- the run's private TMPDIR), under a policy without it? Then one grant
-- covers every program the build makes, not one hint per run.
local function built_would_cover(ev, targets)
  local project = project_of(ev)
  if not project or #targets == 0 or has_built(ev) then return false end
  for _, target in ipairs(targets) do
    local inside = target:sub(1, #project + 1) == project .. "/" or in_private_tmp(ev, target)
    -- A hook git runs is no program the build made.
    if not inside or target:find("/.git/", 1, true) then return false end
  end
  return true
end

-- TARGETS as exec entries: one in the project by its path from there
-- ("./bin/app", as exec takes it), so that the line holds in any checkout.
local function exec_entries(ev, targets)
  local project = project_of(ev)
  local out = {}
  for i, target in ipairs(targets) do
    local inside = project and project ~= "/" and target:sub(1, #project + 1) == project .. "/"
    out[i] = inside and "./" .. target:sub(#project + 2) or target
  end
  return out
end

-- What TARGET, as the command ran it, is now: its real path (a symlink
-- named in exec, ./bin/app or node_modules/.bin/mocha, is granted as the
-- file it leads to).
local function real_target(target)
  return has_core and core.realpath(target) or target
end

-- Of TARGETS, those the enforced policy names in exec (by their real
-- paths), but not as the project's with built = true, as a set: a program
-- allowed that was refused anyway is one the file at that path no longer is.
local function allowed_by_name(ev, targets)
  local exec = policy_of(ev).exec
  local listed = {}
  for _, path in ipairs(type(exec) == "table" and exec or {}) do listed[path] = true end
  local project = project_of(ev)
  local out = {}
  for _, target in ipairs(targets) do
    local real = real_target(target)
    local built = project and listed[project] and within_any({ project }, real)
    if (listed[target] or listed[real]) and not built then out[target] = true end
  end
  return out
end

-- A program the policy allows by its path, refused anyway. Not executable
-- (its mode), the policy cannot help. Else the file there is not the one
-- the grant holds, the one there when the run started: where the command
-- writes, it made it anew (a linker does, and npm ci), and what it writes
-- and then runs is what built = true allows (in the project), or its
-- directory named in exec; elsewhere, something outside the sandbox
-- replaced it, and the next run allows the new file. Naming it again
-- changes nothing.
local function remade_line(ev, target, program)
  local text = refusal_text(ev, { op = "exec", target = target, program = program })
  local real = real_target(target)
  if has_core and core.kind(real) == "file" and not core.executable(real) then
    return ("refused: %s: the policy allows it, but the file is not executable (its mode: chmod "
      .. "+x it, or have what makes it do so)"):format(text)
  end
  if not within_any(policy_of(ev).write, real) then
    return ("refused: %s: the policy allows it by its path, but the file there is a new one, put "
      .. "there during the run by something outside the sandbox (the command cannot write "
      .. "there), and the grant holds the one there when the run started; the next run allows "
      .. "the new file"):format(text)
  end
  local project = project_of(ev)
  local widen = project and within_any({ project }, real)
    and "exec = { built = true } lets what the project builds run"
    or ("exec = { %q } lets what the command writes in that directory run"):format(dirname(real))
  return ("refused: %s: the policy allows it by its path, but the file there is a new one (a "
    .. "build or an install wrote it during the run) and the grant holds the one there when "
    .. "the run started, so naming it again changes nothing; %s (anything the command writes "
    .. "there, it can run)")
    :format(text, widen)
end

-- Of TARGETS (NAMES their names), those the command built in its private
-- TMPDIR (go test's binaries), at a new path each run, so that no name of
-- them holds for the next: their line (nil when none), and the rest.
local function private_tmp_line(ev, targets, names, program)
  local tmp, tmp_names, rest, rest_names = {}, {}, {}, {}
  local built_fits = project_of(ev) and not has_built(ev)
  for i, target in ipairs(targets) do
    if built_fits and in_private_tmp(ev, target) then
      tmp[#tmp + 1], tmp_names[#tmp_names + 1] = target, names[i]
    else
      rest[#rest + 1], rest_names[#rest_names + 1] = target, names[i]
    end
  end
  if #tmp == 0 then return nil, rest, rest_names end
  local SHOWN = 8
  if #tmp_names > SHOWN then
    tmp_names = table.move(tmp_names, 1, SHOWN, 1, {})
    tmp_names[#tmp_names + 1] = ("and %d more"):format(#tmp - SHOWN)
  end
  local what = #tmp == 1 and refusal_text(ev, { op = "exec", target = tmp[1], program = program })
    or ("exec of %d programs (%s)"):format(#tmp, table.concat(tmp_names, ", "))
  return ("refused: %s: the run's private TMPDIR, where %s, is a directory made anew for each "
    .. "run, so no path in it holds for the next; exec = { built = true } lets what the command "
    .. "builds there, and in the project, run (anything the command writes there, it can run)")
    :format(what, #tmp == 1 and "it lies" or "they lie"), rest, rest_names
end

-- ---- one function for each kind of refusal: GROUP's lines ----

-- Every program refused execution, in one line: the files to add (the
-- first few, and how many more), with the preset that holds them all; a
-- bare name the stderr gave, on a line of its own.
local function exec_lines(ev, group)
  local rs = group.items
  local r = rs[1]
  local targets, names, bare = {}, {}, {}
  for _, x in ipairs(rs) do
    if x.target:sub(1, 1) ~= "/" then
      bare[#bare + 1] = x
    elseif not targets[x.target] then
      targets[x.target] = true
      targets[#targets + 1] = x.target
      names[#names + 1] = shown(basename(x.target))
    end
  end
  local out = {}
  -- Those the policy allows already get a line of their own.
  local remade, rest, rest_names = allowed_by_name(ev, targets), {}, {}
  for i, target in ipairs(targets) do
    if remade[target] then
      out[#out + 1] = remade_line(ev, target, r.program)
    else
      rest[#rest + 1], rest_names[#rest_names + 1] = target, names[i]
    end
  end
  local tmp_line
  tmp_line, targets, names = private_tmp_line(ev, rest, rest_names, r.program)
  out[#out + 1] = tmp_line -- nil adds none
  if #targets == 1 then
    local one = { op = "exec", target = targets[1], program = r.program }
    out[#out + 1] = ("refused: %s: add exec = %s"):format(refusal_text(ev, one),
      lua_list(exec_entries(ev, targets)))
  elseif #targets > 1 then
    -- A line a terminal can show: the first few, and how many more.
    local SHOWN_PROGRAMS, more, total = 8, "", #targets
    if total > SHOWN_PROGRAMS then
      more = (" (and %d more: the attestation lists them)"):format(#targets - SHOWN_PROGRAMS)
      targets = table.move(targets, 1, SHOWN_PROGRAMS, 1, {})
      names = table.move(names, 1, SHOWN_PROGRAMS, 1, {})
      names[#names + 1] = "..."
    end
    out[#out + 1] = ("refused: exec of %d programs (%s): add exec = %s%s"):format(total,
      table.concat(names, ", "), lua_list(exec_entries(ev, targets)), more)
  end
  local preset = preset_for(targets)
  if preset and not preset_in_use(ev, preset) then
    out[#out] = out[#out] .. (", or exec = { lcsb.tools.%s } for %s and the rest of that "
      .. "preset at once"):format(preset, #targets == 1 and "it" or "them")
  elseif built_would_cover(ev, targets) then
    out[#out] = out[#out] .. ", or exec = { built = true } for everything the project builds "
      .. "(anything the command writes there, it can run)"
  end
  for _, x in ipairs(bare) do
    if x.target:find("/") then -- relative: exec takes it as the project's
      out[#out + 1] = ("refused: %s: add exec = %s"):format(refusal_text(ev, x),
        lua_list { x.target })
    else
      out[#out + 1] = ("refused: %s: it is not on PATH here; name it in exec = { ... } by its "
        .. "path"):format(refusal_text(ev, x))
    end
  end
  return out
end

-- Reads, or writes, in one directory: the file itself, the directory when
-- it may be granted, else each file.
local function file_lines(ev, group)
  local rs, kind = group.items, group.kind
  local r = rs[1]
  local ro = false
  for _, x in ipairs(rs) do ro = ro or x.ro end
  local dir = dirname(r.target)
  -- A fixed name in the shared /tmp, where the command has its own.
  local shared_tmp = kind == "write" and (dir == "/tmp" or dir == "/var/tmp")
    and private_tmp_of(ev) and OWN_TMP
  if #rs == 1 then
    local entry, first = r.target, false
    if kind == "write" then entry, first = write_entry(r.target) end
    -- A directory looked at is often one about to be written in (cp
    -- FILE DIR/ checks DIR first): read alone would fail next time.
    local into = kind == "read" and has_core and core.kind(r.target) == "dir"
      and not held_within(r.target, "write")
      and (" (or write = %s, if the command writes in it)"):format(lua_list { entry }) or ""
    return { ("refused: %s: add %s = %s%s%s"):format(refusal_text(ev, r), kind,
      lua_list { entry }, into, notes(first and CREATE_FIRST, ro and RO_NOTE, shared_tmp)) }
  elseif not too_wide(dir) and not held_within(dir, kind) then
    return { ("refused: %s under %s (%d files): add %s = %s%s"):format(kind, shown(dir), #rs,
      kind, lua_list { dir }, notes(ro and RO_NOTE, shared_tmp)) }
  end
  local entries, first = {}, false
  for _, x in ipairs(rs) do
    local entry, make = x.target, false
    if kind == "write" then entry, make = write_entry(x.target) end
    entries[#entries + 1] = entry
    first = first or make
  end
  return { ("refused: %s of %d files in %s: add %s = %s%s"):format(kind, #rs, shown(dir),
    kind, lua_list(entries), notes(first and CREATE_FIRST, ro and RO_NOTE, shared_tmp)) }
end

-- Refusals no hint may offer (GROUP.why says why): one, or how many in a
-- directory.
local function withheld_lines(ev, group)
  local rs = group.items
  local r = rs[1]
  if #rs == 1 then
    return { ("refused: %s: no hint: %s"):format(refusal_text(ev, r), group.why) }
  end
  return { ("refused: %s %d files under %s: no hint: %s"):format(VERB[r.op] or shown(r.op), #rs,
    shown(dirname(r.target)), group.why) }
end

-- A placeholder lcsb made for the run (an agent's directory, the .git
-- of a project that is none) that TARGET is or lies in: the command met
-- what lcsb put there, not a file of the user's (git clean -d trying to
-- remove it, say).
local function placeholder_of(ev, target)
  local held = type(ev.policy) == "table" and type(ev.policy.held) == "table"
    and ev.policy.held or {}
  local placeholder
  for path in pairs(held) do
    if type(path) == "string" and (target == path or target:sub(1, #path + 1) == path .. "/") then
      placeholder = path
    end
  end
  return placeholder
end

-- A protected path written: what protect is for, and how to let it go; a
-- directory held in place above one, a placeholder lcsb made.
local function protect_lines(ev, group)
  local r = group.items[1]
  -- git's settings for one run need no write to .git/config.
  local git = r.target:find("/%.git/config$")
    and "; give git its settings with git -c, or with GIT_AUTHOR_NAME and the like in env, "
      .. "which write nothing, or run git config outside lcsb" or ""
  local name = default_holding(ev, r.target)
  local lift = name and ('protect = { %s } lets that default go, protect = false all '
    .. "protection"):format(lua_string("!" .. name)) or "protect = false turns all protection off"
  local placeholder = placeholder_of(ev, r.target)
  -- A directory above a protected or hidden path: held in place (a
  -- mount of its own), so that it cannot be moved away and made again
  -- around a path nobody holds. Letting protection go is no remedy for
  -- a move; moving what is in it is.
  local pinned = r.busy and not placeholder and held_below(ev, r.target)
  if pinned and pinned.itself then
    return { ("refused: %s: it is hidden by the policy (hide): an empty read-only mount stands "
      .. "in its place for the run (\"Device or resource busy\"), so that the command can "
      .. "neither read it nor move it away"):format(refusal_text(ev, r)) }
  elseif pinned then
    return { ("refused: %s: it holds %s, which the policy %s, and a directory above a "
      .. "protected or hidden path stays where it is for the run (\"Device or resource busy\": "
      .. "it is a mount point), so that it cannot be moved away and made again around a path "
      .. "nobody holds; move or remove what is in it instead"):format(refusal_text(ev, r),
      shown(pinned.path), pinned.hidden and "hides" or "protects") }
  end
  if placeholder then
    local what = placeholder:find("/%.git$") and "a repository with hooks of its own there"
      or "an agent's configuration there, which the agent would act on outside any sandbox"
    return { ("refused: %s: lcsb holds %s empty and read-only for the run, as it was not "
      .. "there, so that the command cannot make %s%s; %s"):format(refusal_text(ev, r),
      shown(placeholder), what,
      r.busy and ' ("Device or resource busy": it is a mount point for the run)' or "", lift) }
  end
  return { ("refused: %s: it is protected (protect): read-only whatever the policy grants, "
    .. "so nothing planted there (a git hook, an agent's configuration) runs outside the "
    .. "sandbox later%s%s; %s"):format(refusal_text(ev, r),
      r.busy and ' ("Device or resource busy": a read-only mount holds it)' or "", git, lift) }
end

-- A hidden path met: it does not exist for the command.
local function hide_lines(ev, group)
  local r = group.items[1]
  return { ("refused: %s: it is hidden by the policy (hide, or one of /etc's secrets): it does "
    .. "not exist for the command"):format(refusal_text(ev, r)) }
end

-- A file of your real HOME the command looked for, not there in its
-- private one (REL: the file from HOME, TEXT: the refusal said): offered
-- to show only when it is a settings file with no credential in it.
local function absent_home_lines(rel, text)
  local cap = capped(rel, { "deny" })
  if cap then
    return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
      .. "there; no hint: the caps keep %s from every policy"):format(text, shown(cap)) }
  end
  -- Your real one: a probe for what you do not have is no refusal.
  local real = (os.getenv("HOME") or "") .. rel:sub(2)
  if rel:sub(1, 2) ~= "~/" or not exists(real) then return {} end
  if not settings_file(rel) then
    return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
      .. "there; no hint: your real one may hold keys or tokens, and showing it (home) is a "
      .. "decision to make yourself"):format(text) }
  end
  local why = settings_why(rel)
  if why then
    return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
      .. "there; no hint: %s"):format(text, why) }
  end
  return { ("refused: %s: the command's HOME is a fresh private directory, so it is not "
    .. "there; to show the command your real one, read-only, add home = %s (the whole file "
    .. "becomes readable to the command: lcsb saw no credential in it, but read it before "
    .. "you add it)"):format(text, lua_list { rel }) }
end

-- The run's private HOME: a file home shows read-only, a cache, a program,
-- a file of the real HOME looked for, else what cache would keep.
local function home_lines(ev, group)
  local r = group.items[1]
  local policy = ev.policy or {}
  local rel = private_home(ev, r.target, true) or r.target
  local home_list = policy.home or (ev.attestation or {}).home
  local cache_list = policy.cache or (ev.attestation or {}).cache
  local entry = shown_in(home_list, rel)
  local text = refusal_text(ev, r)
  if entry then
    return { ("refused: %s: it is your real %s, which home = { ... } shows read-only: the "
      .. "command cannot change it"):format(text, shown(entry)) }
  elseif shown_in(cache_list, rel) then
    return {} -- a cache is the project's own and writable: nothing of lcsb's
  elseif r.op == "exec" then
    -- Not there, and not in your real HOME either: a program looked for
    -- along a PATH through the private HOME (cargo's rustc asks
    -- $CARGO_HOME/bin for cc before /usr/bin), no refusal.
    local real = (os.getenv("HOME") or "") .. rel:sub(2)
    local yours = rel:sub(1, 2) == "~/" and exists(real)
    if r.absent and not yours then return {} end
    if r.absent then
      return { ("refused: %s: the command's HOME is a fresh private directory, so your %s is "
        .. "not there; to let it run, name it in exec = %s, and have the command run it by "
        .. "that path (%s), not through its HOME"):format(text, shown(rel), lua_list { rel }, real) }
    end
    return { ("refused: %s: it lies in the run's private HOME, a fresh directory removed "
      .. "after the run, not your HOME: nothing there can be named in exec"):format(text) }
  elseif r.absent then
    return absent_home_lines(rel, text)
  end
  local top = rel:match("^(~/[^/]+)") or rel
  local keep = capped(top, { "deny", "deny_write" }) and ""
    or ("; cache = %s keeps %s between runs"):format(lua_list { top }, shown(top))
  return { ("refused: %s: it lies in the run's private HOME, a fresh directory removed after "
    .. "the run, not your HOME%s"):format(text, keep) }
end

-- Files of another user's that a command running as root was refused by
-- their own permissions: lcsb drops root's capabilities, and with them
-- its way past a file's mode (a project a CI runner checked out as itself).
local function owner_lines(ev, group)
  local rs = group.items
  local r = rs[1]
  local target = r.target
  local made = r.op == "write" and not exists(target)
  local uid, name
  if has_core and core.owner then uid, name = core.owner(made and dirname(target) or target) end
  local who = not uid and "another user"
    or name and ("%s (uid %d)"):format(shown(name), uid) or ("uid %d"):format(uid)
  local what = #rs == 1 and refusal_text(ev, r)
    or ("%s %d files, %s first"):format(VERB[r.op] or shown(r.op), #rs, shown(target))
  local project = project_of(ev)
  local place = project and within_any({ project }, target) and project or dirname(target)
  return { ("refused: %s: Permission denied: %s belongs to %s, and the command runs as root "
    .. "without root's capabilities (lcsb drops them all), so a file's permissions bind it as "
    .. "they bind any user: run lcsb as %s, or make root the owner (chown -R root %s)")
    :format(what, made and #rs == 1 and "its directory" or "it", who,
      name and shown(name) or "that user", shown(place)) }
end

-- A refusal of no kind a hint knows: said, and no more.
local function other_lines(ev, group)
  return { ("refused: %s"):format(refusal_text(ev, group.items[1])) }
end

M.VERB = VERB
M.refusal_text = refusal_text
M.write_entry = write_entry
M.exec = exec_lines
M.files = file_lines
M.withheld = withheld_lines
M.protect = protect_lines
M.hide = hide_lines
M.home = home_lines
M.owner = owner_lines
M.other = other_lines

return M
