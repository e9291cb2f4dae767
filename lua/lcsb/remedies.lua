-- Best-guess remedies for a failed sandboxed run: an ordered list of small
-- heuristics from the evidence (argv, status, note, policy, attestation) to
-- hint lines. Finding nothing is a fine answer; the trailer fires anyway.
-- Hints name only policy keys and flags that exist.

local M = {}

local function basename(path) return (path:match("[^/]+$")) or path end

M.heuristics = {
  -- 126: a program was found but the kernel refused to execute it. The
  -- command itself and its interpreters are always allowed, so it is most
  -- likely a program the command started.
  function(ev)
    if ev.status ~= 126 or ev.attestation.exec ~= "allowlist" then return end
    local name = ev.argv[1] and basename(ev.argv[1]) or "COMMAND"
    return ('a program %s started was refused execution: name it in exec = { "PROGRAM" }, '
      .. 'or set exec = "any" to turn the allowlist off'):format(name)
  end,
  -- 97: the shim said what failed above the trailer.
  function(ev)
    if ev.status ~= 97 then return end
    return "the sandbox could not be set up (see the lcsb-exec line above); "
      .. "`lcsb detect` shows what this host can enforce"
  end,
}

function M.explain(evidence)
  local hints = {}
  for _, heuristic in ipairs(M.heuristics) do
    local ok, hint = pcall(heuristic, evidence)
    if ok and hint then hints[#hints + 1] = hint end
  end
  return hints
end

return M
