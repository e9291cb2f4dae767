-- A Python project with its virtualenv in .venv:
-- `lcsb python.lua -- sh -c 'python3 -m venv .venv && .venv/bin/python -m pytest'`.
-- The python preset runs python3 and pip, with pip's cache kept for the
-- project between runs. built = true lets the venv's own programs run
-- (.venv/bin/pip, pytest): the venv is written by the command, so that is
-- anything it writes in the project. To install from PyPI, add
-- net = { domains = { "pypi.org", "files.pythonhosted.org" } }.
local lcsb = require "lcsb"
return lcsb.exec_policy {
  exec = { lcsb.tools.python, built = true },
  env = { set = { PYTHONDONTWRITEBYTECODE = "1" } },
  net = false,
}
