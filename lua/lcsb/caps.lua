-- lcsb's default caps: what no project policy may grant, unless a caps file
-- says otherwise (docs/policy.md, "Caps: what no project may grant").
--
-- This file is data, in the format of the administrator's caps file
-- (/etc/lcsb/caps.lua) and the user's (~/.config/lcsb/user.lua): lcsb loads
-- each in a Lua state of its own, with no libraries, never in the state a
-- policy script runs in. Those files may `allow` what is denied here; they
-- cannot loosen each other. Net, `exec = "any"` and degrade are left open
-- here: policies use them today, and either file may close them.
return {
  -- Neither readable, writable nor runnable by the command, and refused in
  -- a tree that holds one unless the policy hides it. "~" is the caller's
  -- HOME. Keys and agents first, then each tool's credentials, then what a
  -- browser keeps (cookies and saved passwords are credentials too).
  deny = {
    -- keys, keyrings and password stores
    "~/.ssh",
    "~/.gnupg",
    "~/.password-store",
    "~/.local/share/keyrings",      -- GNOME keyring
    "~/.local/share/kwalletd",      -- KDE wallet
    "~/Library/Keychains",          -- macOS keychains
    -- version control and package registries
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.netrc",
    "~/.config/gh",                 -- GitHub CLI tokens
    "~/.config/hub",
    "~/.config/glab-cli",           -- GitLab CLI tokens
    "~/.npmrc",                     -- npm's _authToken (exec_policy's HOME is private anyway)
    "~/.yarnrc.yml",
    "~/.pypirc",
    "~/.gem/credentials",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.docker/config.json",        -- registry logins
    -- clouds and clusters
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.oci",                       -- Oracle Cloud
    "~/.kube",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.vault-token",
    "~/.config/op",                 -- 1Password CLI
    "~/.config/doctl",              -- DigitalOcean
    "~/.s3cfg",
    "~/.boto",
    "~/.config/rclone",
    -- databases
    "~/.pgpass",
    "~/.my.cnf",
    -- browser profiles
    "~/.mozilla",
    "~/.config/google-chrome",
    "~/.config/chromium",
    "~/.config/BraveSoftware",
    "~/.config/microsoft-edge",
    "~/.config/vivaldi",
    "~/snap/firefox",
    "~/snap/chromium",
    "~/Library/Application Support/Google/Chrome",
    "~/Library/Application Support/Firefox",
    "~/Library/Application Support/BraveSoftware",
    "~/Library/Application Support/Microsoft Edge",
    "~/Library/Safari",
    "~/Library/Cookies",
  },
  -- Readable, never writable: what the user's own tools run later,
  -- unsandboxed, as the user. A project policy that could write these
  -- would choose what runs at the next login, shell, git command or editor
  -- start. A tree that holds one must protect it (or hide it).
  deny_write = {
    -- shells
    "~/.profile",
    "~/.bashrc",
    "~/.bash_profile",
    "~/.bash_login",
    "~/.bash_logout",
    "~/.zshrc",
    "~/.zshenv",
    "~/.zprofile",
    "~/.zlogin",
    "~/.config/fish",
    "~/.pam_environment",
    "~/.config/environment.d",
    -- programs found before the system's
    "~/.local/bin",
    "~/bin",
    -- git's own configuration (hooksPath, fsmonitor, aliases)
    "~/.gitconfig",
    "~/.config/git",
    -- what starts at login, and editors' code
    "~/.config/autostart",
    "~/.config/systemd",
    "~/.xprofile",
    "~/.xinitrc",
    "~/.xsession",
    "~/.config/direnv",
    "~/.direnvrc",
    "~/.vimrc",
    "~/.config/nvim",
    "~/.emacs",
    "~/.emacs.d",
    "~/.config/Code/User",
    "~/.vscode/extensions",
  },
}
