-- Best-guess remedies for a failed sandboxed run: an ordered list of small
-- heuristics from the evidence (argv, status, note, policy, attestation) to
-- hint lines. Finding nothing is a fine answer; the trailer fires anyway.
-- Hints name only policy keys and flags that exist.

local M = {}


M.heuristics = {
  -- 126: a program was found but the kernel refused to execute it. The
  -- command itself and its interpreters are always allowed, so it is most
  -- likely a program the command started.
  function(ev)
    if ev.status ~= 126 or ev.attestation.exec ~= "allowlist" then return end
    return 'if a program was refused execution, name it in exec = { "PROGRAM" } (the command '
      .. 'and its interpreters are allowed already), or set exec = "any" to turn the '
      .. 'allowlist off' 
  end,
  -- 97: the shim said what failed above the trailer.
  function(ev)
    if ev.status ~= 97 then return end
    return "the sandbox could not be set up (the message above says why); "
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
