-- lcsb: policies for running commands in a kernel-enforced sandbox.
--
-- The C half (lcsb.core) builds and checks policies; this file adds
-- exec_policy, the one policy that probes and real runs share: the system read
-- baseline, the project, a private HOME and TMPDIR, and an exec allowlist of
-- resolved files. The module's API is the table M at the end, and
-- docs/policy.md ("The Lua module") documents each name in it. Here are the
-- phases in their order (compose, then instantiate for a run, then
-- after_run) and the tiers' own; the larger phases are modules of their own:
-- lcsb.home (the private HOME and the caches), lcsb.protect (what is held
-- read-only, the .git among it), lcsb.plan (the plan cache), and, loaded
-- only when composing, lcsb.exec_tier, lcsb.env and lcsb.oci.

local core = require "lcsb.core"
local paths = require "lcsb.paths"
local plans = require "lcsb.plan"
local private_home = require "lcsb.home"
local protect = require "lcsb.protect"
local run_later = require "lcsb.run_later"
local tiers = require "lcsb.tiers"
local tools = require "lcsb.tools"

local covered = paths.covered
local add_unique, absolute, leave_out = tiers.add_unique, tiers.absolute, tiers.leave_out
local existing, resolved, own_world = tiers.existing, tiers.resolved, tiers.own_world
local private_dirs, cache_entries = private_home.private_dirs, private_home.cache_entries
local place_in_home, entries_shown = private_home.place_in_home, private_home.entries_shown
local list_copy, home_entries = private_home.list_copy, private_home.home_entries
local cache_rels, private_spec = private_home.cache_rels, private_home.private_spec
local protected = protect.protected
local getenv = plans.getenv

local M = {}

-- What in /etc is never readable, as paths relative to /etc; `*` matches
-- within the last component only. Where the command gets a world of its own
-- (Landlock with user namespaces), /etc is read whole and these are hidden
-- in it (M.etc_hidden). Elsewhere Landlock cannot take a subpath back from a
-- granted directory, so /etc itself is not granted: its entries are, one by
-- one, leaving these out (and /etc can no longer be listed).
M.etc_secrets = {
  "shadow", "shadow-",        -- password hashes (and the backup copy)
  "gshadow", "gshadow-",      -- group password hashes
  "sudoers", "sudoers.d",     -- who may become root, and how: root-only for a reason
  "ssh/ssh_host_*_key",       -- sshd's private host keys (*.pub and ssh_config stay)
  "security/opasswd",         -- pam_pwhistory's old password hashes
  "ssl/private",              -- TLS private keys
  "krb5.keytab",              -- Kerberos service keys
  "krb5kdc",                  -- a KDC's master key stash and admin keytab
  "master.passwd",            -- macOS's password hashes
  -- Keys and passwords services keep here for root alone: a command run as
  -- root could read them (docs/policy.md: hide what else a host holds).
  "pki/tls/private", "pki/CA/private", -- TLS private keys (Red Hat's layout)
  "letsencrypt",              -- certbot's account and certificate keys
  "dovecot/private",          -- the mail server's TLS key
  "wireguard",                -- VPN private keys
  "openvpn",                  -- VPN keys and credentials
  "ipsec.secrets", "ipsec.d/private", "swanctl/private", -- IPsec keys
  "ppp/chap-secrets", "ppp/pap-secrets", -- dial-up and PPPoE passwords
  "NetworkManager/system-connections", -- Wi-Fi and VPN secrets
  "wpa_supplicant/*.conf", "wpa_supplicant.conf", -- Wi-Fi passphrases
  "netplan",                  -- Wi-Fi passphrases, as netplan writes them
  "kubernetes",               -- cluster admin credentials and keys
  "rancher",                  -- k3s's kubeconfig and node token
  "docker/key.json",          -- the Docker daemon's identity key
  "gitlab/gitlab-secrets.json", "gitlab-runner", -- GitLab's secrets, runner tokens
  "ceph/*.keyring", "ceph/keyring", "ceph/keyring.bin", -- Ceph's client keys
  "mysql/debian.cnf",         -- Debian's MySQL/MariaDB maintenance password
  "ldap.secret", "libnss-ldap.secret", "pam_ldap.secret", "nslcd.conf", -- LDAP bind passwords
  "sssd",                     -- SSSD's LDAP and AD credentials
  "postfix/sasl_passwd", "postfix/sasl_passwd.db", "exim4/passwd.client", -- mail relay passwords
  "credstore", "credstore.encrypted", -- systemd's credentials
}

-- What ordinary programs need to read: system trees and the few /proc, /sys
-- and /dev entries runtimes open. /proc is safe to list: Landlock refuses
-- ptrace-class access (environ, mem) to processes outside the sandbox. /etc
-- is added by M.etc_read, minus M.etc_secrets.
M.baseline_read = {
  "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
  "/proc", "/sys/devices/system/cpu", "/dev/random", "/dev/urandom",
}

-- Devices a command writes to as a matter of course, plus the caller's own
-- terminal (added per run): never all of /dev/pts, which would reach other
-- sessions' terminals.
M.baseline_write = { "/dev/null", "/dev/zero", "/dev/full", "/dev/tty" }

-- What stays read-only inside the write tier by default, as data: each a
-- path from the project's root, with why. The repository's hooks and config:
-- a hook the command plants there would run, unsandboxed, the next time the
-- user commits. Then the coding agents' own configuration (lua/lcsb/agents.lua),
-- which an agent acts on, outside any sandbox, at its next start. `protect =
-- false` turns them all off, `protect = { "!PATH" }` the one at PATH (and
-- those below it: "!.git" all three of git's); a list adds paths of its own.
-- Only what exists can be protected (a mount needs something to sit on): a
-- listed path that does not exist is an error; a default one is skipped (the
-- report after the run names it if the command made it, and the runs after
-- keep it); what is not writable anyway needs no protection (noted for
-- check). `dir`: a directory, which the report looks into as a whole.
-- (The list is lcsb.protect's, where the hints read it too: one table.)
M.protect_default = protect.defaults

local KEYS = {
  project = "string", read = "table", write = "table", exec = "table|string",
  env = "table", net = "boolean|table", scope = "userdata", degrade = "table",
  protect = "table|boolean", oci = "table", limits = "table", sockets = "table",
  hide = "table", home = "table", cache = "table", secrets = "table",
}

-- Errors carry no position here: exec_policy re-raises them at the script's
-- line that called it.
local function fail(msg) error(msg, 0) end

-- /etc's entries minus M.etc_secrets, each by its real path, read when the
-- policy is built. A directory holding a secret is not granted but entered and
-- its entries granted the same way. An entry that does not resolve, or whose
-- real path is a secret or lies within one, is left out; so is a symlink to a
-- directory holding a secret (to /etc/ssh, to /). ETC (default /etc) lets a
-- test hand it a tree of its own.
function M.etc_read(etc)
  etc = core.realpath(etc or "/etc")
  if not etc then return {} end
  -- Secrets named outright go in a set; those with a "*" (ssh host keys)
  -- become a pattern tried only on the entries of their own directory.
  -- HOLDERS is every directory a secret lies in, with its ancestors.
  local exact, globs, holders = {}, {}, { ["/"] = true }
  for _, rel in ipairs(M.etc_secrets) do
    local abs = etc .. "/" .. rel
    local parent = abs:match("^(.*)/[^/]*$")
    if rel:find("*", 1, true) then
      globs[#globs + 1] = {
        parent = parent,
        pattern = paths.glob_pattern(abs),
      }
    else
      exact[abs] = true
    end
    for slash in (parent .. "/"):gmatch("()/") do holders[parent:sub(1, slash - 1)] = true end
  end
  -- PATH, an entry of DIR, matches a secret's glob.
  local function globbed(dir, path)
    for _, g in ipairs(globs) do
      if g.parent == dir and path:match(g.pattern) then return true end
    end
    return false
  end
  -- PATH, an entry of DIR, is a secret; DIR is known to be none.
  local function is_secret_entry(dir, path) return exact[path] or globbed(dir, path) end
  -- PATH is a secret or lies within one.
  local function is_secret(path)
    return covered(exact, path) or globbed(path:match("^(.*)/[^/]*$"), path)
  end
  local out = {}
  local function walk(dir)
    local names, kinds = core.listdir(dir)
    for i, name in ipairs(names or {}) do
      -- DIR is a real path, so an entry that is no symlink is its own.
      local path = dir .. "/" .. name
      local plain = kinds[i] == "file" or kinds[i] == "dir"
      local real = plain and path or core.realpath(path)
      if not real or is_secret_entry(dir, path) or (real ~= path and is_secret(real)) then
        -- left out
      elseif holders[path] or holders[real] then
        -- Entered only where it is the real directory: a symlink to one is
        -- left out, as it would grant the secret under another name.
        if real == path and core.kind(path) == "dir" then walk(path) end
      else
        out[#out + 1] = real
      end
    end
  end
  walk(etc)
  return out
end

-- The real paths of the secrets ETC (default /etc) holds, for a world of its
-- own to hide: each secret that exists, by where it really is (a symlink's
-- target is what a read through it would reach).
function M.etc_hidden(etc)
  etc = core.realpath(etc or "/etc")
  if not etc then return {} end
  local out = {}
  local function hide(path)
    local real = core.realpath(path)
    if real then add_unique(out, real) end
  end
  for _, rel in ipairs(M.etc_secrets) do
    local abs = etc .. "/" .. rel
    if rel:find("*", 1, true) then
      local dir, leaf = abs:match("^(.*)/([^/]*)$")
      local pattern = paths.glob_pattern(leaf)
      for _, name in ipairs(core.listdir(dir) or {}) do
        if name:match(pattern) then hide(dir .. "/" .. name) end
      end
    else
      hide(abs)
    end
  end
  return out
end

-- ---- the phases of exec_policy, each returning what it makes ----

local function check_options(opts)
  opts = opts or {}
  if type(opts) ~= "table" then fail("exec_policy: expected a table of options") end
  for key, value in pairs(opts) do
    local want = type(key) == "string" and KEYS[key]
    if not want then
      local names = {}
      for name in pairs(KEYS) do names[#names + 1] = name end
      table.sort(names)
      fail(("exec_policy: unknown key '%s' (expected one of: %s)"):format(tostring(key),
        table.concat(names, ", ")))
    end
    if not want:find(type(value), 1, true) then
      fail(("exec_policy: key '%s' must be a %s, not a %s"):format(key,
        want:gsub("|", " or "), type(value)))
    end
  end
  return opts
end

-- Who owns the private HOME: the caller's scope, or the run's.
local function scope_of(opts)
  local scope = opts.scope or core.run_scope()
  if not scope then
    fail("exec_policy: no scope owns the private HOME; pass scope = lcsb.scope() "
      .. "(local s <close> = lcsb.scope()) or run the script through lcsb")
  end
  return scope
end

-- The project: readable, writable, the working directory; never the whole HOME
-- unless said.
local function project_of(opts, run)
  local project = absolute(opts.project or run.cwd or core.realpath("."), "project")
  if core.kind(project) ~= "dir" then
    fail(("exec_policy: project %s is not a directory"):format(project))
  end
  local real_home = os.getenv("HOME")
  if not opts.project and real_home and core.realpath(real_home) == project then
    fail(("exec_policy: the project would be your whole HOME (%s); run lcsb from a project "
      .. "directory: HOME holds your credentials and lcsb's own configuration, which lcsb's caps keep "
      .. "from every project"):format(project))
  end
  return project
end

-- The read tier, and what is hidden inside it.
local function read_tier(opts, result)
  local read, hide = {}, {}
  resolved(M.baseline_read, read)
  if own_world() then
    resolved({ "/etc" }, read)
    hide = M.etc_hidden()
  else
    -- etc_read's paths are real already: resolving them again cost a realpath each.
    for _, real in ipairs(M.etc_read()) do
      if not covered(read, real) then add_unique(read, real) end
    end
  end
  existing(opts.read, "read", read, result)
  return read, hide
end

-- hide = { "~/.ssh" }: paths the command must not see though a tree it reads
-- holds them (the caps refuse such a tree otherwise), each by its real path,
-- which is what a read through it would reach. One that does not exist is
-- hidden already. Hidden paths hold in a world of its own.
local function hidden_paths(opts, hide, result)
  for _, path in ipairs(opts.hide or {}) do
    local abs = absolute(path, "hide")
    local real = core.realpath(abs)
    if real then
      add_unique(hide, real)
    else
      leave_out(result, "hide", abs, "does not exist")
    end
  end
end

-- sockets = { "$SSH_AUTH_SOCK", "/run/x.sock" }: unix sockets outside the
-- policy's trees, which a world of its own would not hold, opted in by path
-- (read, so that they exist there). "$NAME" is the caller's variable; one
-- that is unset or empty, or a path that does not exist, is left out.
local function socket_paths(opts, read, result)
  for _, entry in ipairs(opts.sockets or {}) do
    local path = entry
    if type(entry) == "string" and entry:sub(1, 1) == "$" then
      path = getenv(entry:sub(2))
      if not path or path == "" then
        leave_out(result, "read", entry, "sockets: the variable is not set")
        path = nil
      end
    end
    local real = path and core.realpath(absolute(path, "sockets"))
    if path and not real then
      leave_out(result, "read", path, "sockets: does not exist")
    elseif real then
      add_unique(read, real)
    end
  end
end

-- The write tier as the policy says it; the run adds its own (instantiate):
-- the caller's terminal, the private HOME and TMPDIR, the caches.
local function write_tier(opts, project, result)
  local write = {}
  resolved(M.baseline_write, write)
  existing(opts.write, "write", write, result)
  add_unique(write, project)
  return write
end

-- ---- composing, then instantiating for a run ----

-- What the private HOME and TMPDIR will be, in a composed env before the
-- run makes them: no variable's value can hold a NUL byte.
local PRIVATE = { ["\0home"] = "home", ["\0tmp"] = "tmp" }

-- A net.domains entry for the loopback (localhost, 127.x, ::1) reaches
-- nothing a client asks for by name: the proxy's NO_PROXY sends clients
-- there directly, to the command's own loopback in a network of its own,
-- and to a port the policy does not open otherwise.
local function loopback_warnings(net, warnings)
  local domains = type(net) == "table" and net.domains
  if type(domains) ~= "table" then return end
  for key, value in pairs(domains) do
    local entry = type(key) == "string" and key or type(value) == "string" and value or ""
    local host = (entry:match("^%[([^%]]*)%]") or entry:match("^([^:%s]+)") or ""):lower()
    if host == "localhost" or host == "::1" or host:match("^127%.[%d.]+$") then
      warnings[#warnings + 1] = ("net.domains: %s is the loopback, which clients reach without "
        .. "the proxy (NO_PROXY holds localhost, 127.0.0.1 and ::1), so they find the command's "
        .. "own, not this machine's; to reach a server on this machine, name it by the "
        .. "machine's name and add net = { lan = { \"127.0.0.0/8\" } }"):format(entry)
    end
  end
end

-- Everything of exec_policy that comes from the policy's options, the
-- environment and the file system as they are, and touches nothing: plain
-- data, which a plan keeps (core.plan_save) and a later run takes instead
-- of composing again while nothing it came from changed. The project is
-- RUN's working directory unless the policy names one.
local function compose(opts, run, cache_root)
  local plan = { left_out = {} }
  local project = project_of(opts, run)
  local read, hide = read_tier(opts, plan)
  hidden_paths(opts, hide, plan)
  socket_paths(opts, read, plan)
  local write = write_tier(opts, project, plan)
  -- Loaded here, not with this file: a run on a kept plan needs none of them.
  local exec_tier, env_of, oci = require "lcsb.exec_tier", require "lcsb.env", require "lcsb.oci"
  local given_exec = type(opts.exec) == "table" and opts.exec or {}
  -- Where the command writes, for the exec tier's planted test: the write
  -- tier, and every project's caches (made only after the exec tier, which
  -- names the presets' ones). The private HOME and TMPDIR are made fresh
  -- for the run: nothing is found in them.
  local writes = paths.set(write)
  -- No place for caches (an error cache = {...} will name) holds none.
  if cache_root then writes[cache_root] = true end
  local acc = exec_tier.new_acc(project, paths.set(read), writes, given_exec.built == true)
  acc.policy_hide = paths.set(hide)
  acc.path_dirs = exec_tier.path_dirs()
  acc.on_path_planted = exec_tier.planted_on_path(acc)
  local exec = exec_tier.exec_tier(opts, run, acc)
  for _, real in ipairs(acc.read) do
    if not covered(read, real) then add_unique(read, real) end
  end
  local env = env_of.env_spec(opts, "\0home", "\0tmp")
  -- What a closure names (RUSTUP_HOME) yields to what the policy says.
  for name, value in pairs(acc.env) do
    local unset = false
    for _, n in ipairs(env.unset) do unset = unset or n == name end
    if env.set[name] == nil and not unset then env.set[name] = value end
  end
  -- The seam for tool presets: what they want of the real HOME is appended
  -- to these copies of the policy's own lists, here, before either is read
  -- (duplicates merge, and an entry inside another is seen through it).
  local home_asked = list_copy(opts.home, "home")
  local cache_asked = list_copy(opts.cache, "cache")
  local own = #home_asked
  table.move(acc.home, 1, #acc.home, #home_asked + 1, home_asked)
  table.move(acc.cache, 1, #acc.cache, #cache_asked + 1, cache_asked)
  local homes = home_entries(home_asked, read, plan, own, writes, acc.warnings)
  local net = opts.net
  if net == nil then net = false end
  loopback_warnings(net, acc.warnings)
  -- Lists only: a set's marks (add_unique) are no part of the data.
  local function list_of(t) return table.move(t, 1, #t, 1, {}) end
  plan.project, plan.read, plan.hide, plan.write = project, list_of(read), list_of(hide),
    list_of(write)
  plan.exec = exec == "any" and "any" or list_of(exec)
  plan.env, plan.net, plan.degrade, plan.limits = env, net, opts.degrade or {}, opts.limits or {}
  plan.protect, plan.secrets = opts.protect, opts.secrets
  plan.homes, plan.cache_rels = homes, cache_rels(cache_asked, homes)
  plan.oci = oci.oci_world(opts)
  plan.tools, plan.warnings, plan.built = acc.notes, acc.warnings, acc.built
  plan.built_tmp = given_exec.built == true and exec ~= "any"
  plan.home_wanted, plan.cache_wanted = acc.home, acc.cache
  -- The paths found to be their own real paths (asked once already): the
  -- C core's checks take them as they are (policy.h's verified).
  plan.verified = {}
  for _, list in ipairs { plan.read, plan.hide, plan.write, type(exec) == "table" and plan.exec or {} } do
    for _, path in ipairs(list) do
      if core.realpath(path) == path then plan.verified[#plan.verified + 1] = path end
    end
  end
  return plan
end

-- PLAN made for a run: the private HOME and TMPDIR in SCOPE (FRESH: named
-- only, with what the private HOME shows, for the run to make: the policy's
-- private), the caller's terminal, the caches, what the private HOME shows, the project's .git
-- held, the protected paths, and what to look for after it. The result:
-- the policy the C core enforces (result.policy), the same policy as the
-- plain tables lcsb.policy took (read, write, exec, env, net, cwd, degrade,
-- protect: what explain reads), the container world (oci), what the
-- private HOME shows of the real one (home, cache: { name, path } each),
-- what was left out, and what the run holds (placeholders, watch) and
-- looks for afterwards (watch_later), which M.after_run sees to.
local function instantiate(plan, scope, run, fresh)
  local result = { left_out = plan.left_out, placeholders = {}, watch = {}, held = {} }
  local home, tmp = private_dirs(scope, fresh)
  local made = { home = home, tmp = tmp }
  local write = {}
  for _, path in ipairs(plan.write) do add_unique(write, path) end
  resolved(core.ttys(), write)
  add_unique(write, home)
  add_unique(write, tmp)
  local caches = cache_entries(plan.cache_rels, plan.project, write)
  if not fresh then
    place_in_home(home, plan.homes)
    place_in_home(home, caches)
  end
  local env = { pass = plan.env.pass, set = {}, unset = plan.env.unset }
  for name, value in pairs(plan.env.set) do env.set[name] = PRIVATE[value] and made[PRIVATE[value]] or value end
  -- built = true: what the run makes in its private TMPDIR runs too (the
  -- test binaries go test builds there). It is as new as the run, so this
  -- gives away nothing the project's files do not.
  local exec, built = plan.exec, plan.built
  if plan.built_tmp then
    exec = table.move(plan.exec, 1, #plan.exec, 1, {})
    built = table.move(plan.built, 1, #plan.built, 1, {})
    add_unique(exec, tmp)
    add_unique(built, tmp)
  end
  local spec = {
    read = plan.read, write = write, exec = exec, env = env, net = plan.net,
    cwd = plan.project, degrade = plan.degrade,
    protect = protected({ protect = plan.protect }, plan.project, write, run, result,
      M.protect_default),
    hide = plan.hide, limits = plan.limits, secrets = plan.secrets,
    private = fresh and private_spec(home, tmp, plan.homes, caches) or nil,
  }
  local ok, policy = pcall(core.policy, spec)
  if not ok then fail("exec_policy: " .. tostring(policy)) end
  for key, value in pairs(spec) do result[key] = value end
  result.policy = policy
  result.oci, result.tools, result.warnings, result.built = plan.oci, plan.tools, plan.warnings,
    built
  result.home_wanted, result.cache_wanted = plan.home_wanted, plan.cache_wanted
  result.verified, result.plan = plan.verified, plan.plan
  -- What the private HOME shows (the attestation and lcsb check list them).
  result.home, result.cache = entries_shown(plan.homes), entries_shown(caches)
  -- Last: what lcsb itself made in the project above (a placeholder .git, an
  -- empty hooks directory) is no change of the command's.
  if run then
    result.watch_later = run_later.before(plan.project, { home, tmp }, spec.protect,
      result.protect_later)
  end
  return result
end

local function build(opts)
  opts = check_options(opts)
  -- The run context, when lcsb runs this script for a command (nil in a
  -- plain Lua program, where nothing is held for the run).
  local run = core.run()
  local scope = scope_of(opts)
  -- The run's own scope names the private HOME and TMPDIR for the run to
  -- make; a caller's makes them now.
  return instantiate(plans.compose_cached(opts, run or {}, compose, M), scope, run,
    opts.scope == nil)
end

-- After the run: the placeholders RESULT holds are let go of (the last run
-- to let go removes each); what went wrong, and what the command made that
-- the user must hear of, are warning lines. Files that run later are looked
-- for only when the command ran (RAN is not false: lcsb check and wrap run
-- nothing), and kept as result.run_later for the attestation; LIST_QUIET
-- (--report) gives the quiet ones a line too.
local function after_run(result, ran, list_quiet)
  local warnings, became = {}, {}
  for _, placeholder in ipairs(result.placeholders or {}) do
    local path = placeholder.path
    local ok, err = placeholder.hold:release()
    local what = placeholder.what or "a repository"
    if not ok and core.kind(path) then
      if not (core.listdir(path) or {})[1] then
        warnings[#warnings + 1] = ("cannot remove %s, the empty directory lcsb held to keep %s "
          .. "from being made there: %s"):format(path, what, err)
      elseif what == "a repository" then
        became[path] = true
        -- Not empty: a repository was made there after all. It stays, and
        -- the user hears of it before trusting its hooks and config.
        warnings[#warnings + 1] = ("%s became a repository during the run: lcsb holds it "
          .. "read-only only where it enforces protected paths (not under --backend none, nor "
          .. "with metadata dropped), or another process made it; look at its hooks and config "
          .. "before you run git there"):format(path)
      end
      -- Not empty, an agent's: it stays, and the report of files that run
      -- later names it, with what the agent runs from it.
    end
  end
  for _, path in ipairs(result.watch or {}) do
    if core.kind(path) then
      warnings[#warnings + 1] = ("the command created %s, which sends git to another "
        .. "directory's hooks and config; remove it before you run git there"):format(path)
    end
  end
  result.placeholders, result.watch = {}, {}
  local later = result.watch_later
  result.watch_later = nil
  if later and ran ~= false then
    -- A repository made where lcsb held none was named above already.
    later.quiet, later.list_quiet = became, list_quiet
    local ok, items, lines = pcall(run_later.after, later)
    if not ok or not items then
      warnings[#warnings + 1] = ("cannot look for files that run later in %s: %s"):format(
        later.project, tostring(ok and lines or items))
    else
      result.run_later = items
      table.move(lines, 1, #lines, #warnings + 1, warnings)
    end
  end
  return warnings
end

-- ---- the module ----

-- Errors name the script's line that called exec_policy, even in tail
-- position (`return lcsb.exec_policy{...}`): the C wrapper keeps that frame.
M.exec_policy = core.blame_caller(build)
M.after_run = after_run
-- The files that run later, as data (lua/lcsb/run_later.lua): list,
-- dependency_dirs and skimmed, for a policy script to add to.
M.run_later = run_later
-- Presets (lcsb.tools.shell, .c, .git, .python, .node, .rust) and the exec
-- closures, as data (lua/lcsb/tools.lua).
M.tools = tools

-- The C core's public half; the rest of lcsb.core (run, run_scope, hold,
-- listdir, normalize, rmdir, blame_caller) is exec_policy's own, and peek
-- and own_files are the hints' (remedies.lua).
M.version = core.version
M.exit = core.exit
M.policy = core.policy
M.scope = core.scope
M.detect = core.detect
M.set_shim = core.set_shim
M.wrap = core.wrap
M.attest = core.attest

-- lcsb.execute(policy, argv [, backend [, options]]) -> result | nil, message:
-- run ARGV under POLICY (an lcsb.policy or exec_policy's result) and wait.
-- RESULT: status, note, setup_failed, stderr (its tail; the command's stderr
-- is relayed as it runs), attestation (refused: what the sandbox refused,
-- as recorded) and hints (lines, as the CLI prints them, on any exit).
-- OPTIONS: record = false (no recorder), capture = false (stderr untouched).
function M.execute(policy, argv, backend, options)
  local result, message = core.execute(policy, argv, backend, options)
  if not result then return nil, message end
  local remedies = require "lcsb.remedies"
  local tables = type(policy) == "table" and policy or {}
  result.hints = remedies.explain { argv = argv, status = result.status, note = result.note,
    setup_failed = result.setup_failed, stderr = result.stderr,
    attestation = result.attestation, policy = tables, report = true }
  return result
end
M.which = core.which
M.kind = core.kind
M.realpath = core.realpath
M.mkdir = core.mkdir
M.ttys = core.ttys
M.escape = core.escape
M.trusted = core.trusted

-- Every function of lcsb's, and of the standard library, named by where it
-- is now, before any policy script can change them.
core.plan_stock(plans.state_roots(M))

return M
