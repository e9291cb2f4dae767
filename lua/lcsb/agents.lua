-- The coding agents' own files in a project: what Claude Code, Cursor,
-- Codex and the others read from the project they work in, and act on
-- outside any sandbox at their next start. A command lcsb confines on an
-- agent's behalf may write the project; a prompt-injected build step that
-- plants an MCP server or a hook there has escaped by the agent's next
-- session, and the agent, which reads lcsb's warnings, is the party the
-- injection turned. So what makes an agent run a program or use a tool
-- without asking is kept read-only by default (exec_policy's protect), and
-- what it reads as instructions is named after the run. The lists are
-- data: docs/policy.md ("The agents' own files") says why each is here.

local M = {}

-- Configuration: hooks, MCP servers, plugins, commands run after every edit,
-- tools allowed without asking. Each is a path from the project's root, kept
-- read-only by default (init.lua adds these to lcsb.protect_default;
-- protect = { "!PATH" } lets one go). `dir`: a directory, looked into as a
-- whole after the run. What is not there cannot be kept read-only (a mount
-- needs something to sit on; docs/policy.md says why no placeholder is
-- made): it is named after the run if the command made it, and kept
-- read-only by the runs after. `why` says who runs what,
-- for the warning after a run and for lcsb check. `report = false`: another
-- entry of run_later.lua names it already.
M.config = {
  { path = ".claude", dir = true,
    why = "Claude Code runs the hooks its settings.json and settings.local.json name, allows the "
      .. "tools and starts the MCP servers they list, and follows its commands, agents and "
      .. "skills, at its next start" },
  { path = ".mcp.json",
    why = "Claude Code and GitHub Copilot start the MCP servers it names: programs of its "
      .. "choosing, run with your rights outside any sandbox" },
  { path = ".cursor", dir = true,
    why = "Cursor starts the MCP servers its mcp.json names, runs the commands its hooks.json "
      .. "names at the agent's every step, and follows its rules and commands" },
  { path = ".codex", dir = true,
    why = "Codex starts the MCP servers and runs the hooks its config.toml and hooks.json name "
      .. "(in a project you trusted)" },
  { path = ".gemini", dir = true,
    why = "Gemini CLI starts the MCP servers its settings.json names (trust = true skips every "
      .. "confirmation), runs its hooks and tool discovery command, loads its .env, and runs "
      .. "the shell commands its custom commands hold" },
  { path = ".continue", dir = true,
    why = "Continue starts the MCP servers its mcpServers directory and config.yaml name, and "
      .. "follows its rules and prompts" },
  { path = ".windsurf", dir = true,
    why = "Windsurf's Cascade runs the commands its hooks.json names at the agent's every step, "
      .. "and follows its rules and workflows" },
  { path = ".clinerules", dir = true,
    why = "Cline runs the scripts in its hooks directory at every task and tool use, and follows "
      .. "its rules and workflows" },
  { path = ".roo", dir = true,
    why = "Roo Code starts the MCP servers its mcp.json names, and follows its rules" },
  { path = ".kiro", dir = true,
    why = "Kiro starts the MCP servers its settings/mcp.json names, runs the commands its hooks "
      .. "name, and follows its steering files" },
  { path = ".opencode", dir = true,
    why = "opencode runs the plugins and tools in it (JavaScript) at every start, and follows "
      .. "its agents and commands" },
  { path = "opencode.json",
    why = "opencode starts the MCP servers and installs and runs the plugins it names, and "
      .. "grants the permissions it lists" },
  { path = "opencode.jsonc",
    why = "opencode starts the MCP servers and installs and runs the plugins it names, and "
      .. "grants the permissions it lists" },
  { path = ".aider.conf.yml",
    why = "aider runs the lint-cmd and test-cmd it names after every edit it makes" },
  { path = ".vscode/mcp.json", report = false,
    why = "VS Code starts the MCP servers it names for Copilot's agent" },
  { path = ".vscode/settings.json", report = false,
    why = "VS Code's chat.tools.autoApprove there lets Copilot's agent run tools and terminal "
      .. "commands without asking, and its other settings name programs VS Code runs" },
}

-- Instructions: text an agent reads at every session and follows. It runs
-- nothing itself, and the agent reads the rest of the project (a README, a
-- test's output) with the same trust, so these are named after a run that
-- created or changed one, not kept read-only (docs/policy.md says why;
-- protect = { PATH } keeps one that exists). As run_later.lua's entries: a
-- `name` in any directory, or a `path` from the root.
M.instructions = {
  { name = "CLAUDE.md",
    why = "Claude Code reads it as instructions at every start in or below its directory" },
  { name = "CLAUDE.local.md",
    why = "Claude Code reads it as instructions at every start in or below its directory" },
  { name = "AGENTS.md",
    why = "Codex, Cursor, GitHub Copilot, opencode and others read it as instructions for the "
      .. "code below its directory" },
  { name = "GEMINI.md", why = "Gemini CLI reads it as instructions at every start" },
  { name = ".cursorrules", why = "Cursor reads it as instructions for every request" },
  { name = ".windsurfrules", why = "Windsurf reads it as instructions for every request" },
  { path = ".github/copilot-instructions.md",
    why = "GitHub Copilot reads it as instructions for every request in the repository" },
  { path = ".github/instructions", tree = true,
    why = "GitHub Copilot reads the instructions in it for the files they name" },
  { path = ".github/prompts", tree = true,
    why = "GitHub Copilot runs its prompt files, with the tools they name, when you invoke one" },
  { path = ".github/agents", tree = true,
    why = "GitHub Copilot runs its custom agents, with the tools they name, when you pick one" },
  { path = ".github/chatmodes", tree = true,
    why = "GitHub Copilot runs its chat modes, with the tools they name, when you pick one" },
}

return M
