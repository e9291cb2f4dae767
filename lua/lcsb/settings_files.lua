-- The files of your real HOME a hint may offer to show the command (home
-- = {...}): settings alone, and only when nothing in them looks like a
-- credential, since showing a file shows all of it. Apart from the other
-- reasons a hint is withheld: this one reads the file.

local hint_text = require "lcsb.hint_text"

local M = {}

local matches_any = hint_text.matches_any

-- The C half reads the file; without it, none is offered.
local has_core, core = pcall(require, "lcsb.core")

-- Files of a HOME that hold settings: the only ones a hint offers to show
-- (home = {...}), and only when nothing in them looks like a credential
-- (settings_why). Any other may hold a token.
local SETTINGS = { "~/.gitconfig", "~/.config/git/config", "~/.config/git/ignore",
  "~/.gitignore_global", "~/.cargo/config.toml", "~/.config/pip/pip.conf", "~/.editorconfig",
  "~/.inputrc", "~/.vimrc", "~/.config/nvim/init.lua", "~/.config/nvim/init.vim" }
local function settings_file(rel)
  for _, name in ipairs(SETTINGS) do
    if rel == name then return true end
  end
  return false
end

-- How much of a settings file lcsb reads to look for a credential in it;
-- a larger one is not offered.
local SETTINGS_MAX = 256 * 1024

-- Words in a setting's name that say it holds a secret: a registry's
-- token (cargo, npm's _authToken), a password (sendemail's smtpPass), a
-- client secret, an API key.
local SECRET_NAMES = { "token", "pass", "secret", "_auth", "auth_", "authorization", "apikey",
  "api_key", "api-key", "credential", "private" }
-- Access tokens by their published prefixes (GitHub, GitLab, Slack, AWS,
-- npm, PyPI), wherever they stand.
local TOKENS = { "gh[pousr]_%w%w%w%w%w%w%w%w", "github_pat_", "glpat%-", "xox[abposr]%-",
  "AKIA[%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d][%u%d]",
  "npm_%w%w%w%w%w%w%w%w", "pypi%-Ag" }

-- What in TEXT (a settings file's) looks like a credential, said without
-- quoting it; nil when nothing does. Settings files hold them as a rule
-- more often than the name says: pip's index-url with user:password@,
-- cargo's registry token, git's insteadOf URL with a token, a credential
-- helper that stores passwords. Each look is bounded (the file is the
-- user's, but a line may be long): "://" found plainly, its scheme and
-- user part read from a few bytes around it.
local function credential_in(text)
  for line in text:gmatch("[^\n]+") do
    local at = 1
    while true do
      local colon = line:find("://", at, true)
      if not colon then break end
      local scheme = line:sub(math.max(1, colon - 32), colon - 1):match("(%a[%w+%.%-]*)$") or ""
      local user = line:sub(colon + 3, colon + 515):match("^([^%s/@\"'<>]*)@")
      if user and (user:find(":", 1, true) or scheme:lower():find("^https?$")) then
        return "a URL with a password or a token before its host"
      end
      at = colon + 3
    end
    local lower = line:lower()
    local sign = lower:find("[=:]")
    local name = sign and lower:sub(1, sign - 1)
    local value = sign and lower:sub(sign + 1):match("^%s*(.*)")
    if name and name:find("helper", 1, true)
      and (value:find("store", 1, true) or value:find("^[\"']?!")) then
      return "a credential helper that stores or prints passwords"
    end
    for _, word in ipairs(name and SECRET_NAMES or {}) do
      if name:find(word, 1, true) then
        return "a setting whose name says it holds a token, a password or a secret"
      end
    end
    if lower:find("authorization:", 1, true) or lower:find("bearer ", 1, true) then
      return "an authorization header"
    end
    if matches_any(line, TOKENS) then return "what looks like an access token" end
  end
end

-- Why your real settings file REL ("~/x") may not be offered to home, or
-- nil: what in it looks like a credential, or that lcsb could not read it
-- to tell. Showing a file shows all of it.
local function settings_why(rel)
  local real = (os.getenv("HOME") or "") .. rel:sub(2)
  local text, err
  if has_core then
    text, err = core.read_regular(core.realpath(real) or real, SETTINGS_MAX)
  else
    err = "lcsb's C half is not loaded"
  end
  if not text then
    return ("lcsb cannot read your real one (%s) to tell whether it holds a credential, and "
      .. "showing it (home) shows all of it: a decision to make yourself"):format(err)
  end
  local found = credential_in(text)
  if found then
    return ("your real one holds %s, and showing it (home) shows all of it: a decision to make "
      .. "yourself"):format(found)
  end
end

M.settings_file = settings_file
M.settings_why = settings_why

return M
