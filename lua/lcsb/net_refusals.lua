-- The network's refusals worded: a host by name or by address, a port, a
-- socket of a kind the policy does not allow, each said in the policy's own
-- net syntax, and never as a port that would open every host. Apart from
-- the other kinds (refusal_lines.lua): what an address is takes reading.

local evidence = require "lcsb.evidence"
local hint_text = require "lcsb.hint_text"
local lines = require "lcsb.refusal_lines"

local M = {}

local shown, lua_list, list = hint_text.shown, hint_text.lua_list, hint_text.list
local refusal_text = lines.refusal_text
local where_named = evidence.where_named

-- ---- addresses ----

-- An address without its IPv6 brackets.
local function unbracket(host) return (host or ""):match("^%[(.*)%]$") or host end

-- HOST as an address in its plain form ("127.0.0.1", "[::1]") when it is
-- one: IPv4 as inet_aton reads it (1 to 4 parts, each decimal, 0x hex or 0
-- octal: 127.1, 0x7f000001, 0177.0.0.1, 2130706433), or IPv6 in brackets;
-- nil for a name. A name spelled as an address is an address: no hint
-- offers it to net.domains, where it would lead to one.
local function address(host)
  if type(host) ~= "string" then return nil end
  if host:find("^%[[%x:.]+%]$") then return host:lower() end
  local parts = {}
  for part in (host .. "."):gmatch("([^.]*)%.") do
    local n = part:find("^0[xX]%x+$") and tonumber(part:sub(3), 16)
      or part:find("^[1-9]%d*$") and tonumber(part)
      or part:find("^0[0-7]*$") and tonumber(part, 8)
    if not n or #parts == 4 then return nil end
    parts[#parts + 1] = n
  end
  -- The last part fills what the others leave: a.b.c.d, a.b.cd, a.bcd, abcd.
  local last, bytes = parts[#parts], {}
  for i = 1, #parts - 1 do
    if parts[i] > 255 then return nil end
    bytes[i] = parts[i]
  end
  local room = 5 - #parts
  if #parts == 0 or last >= 256 ^ room then return nil end
  for i = room, 1, -1 do
    bytes[#parts - 1 + i] = last % 256
    last = last // 256
  end
  return table.concat(bytes, ".")
end

-- Is HOST (an address or name, as a refusal gives it) this host's loopback?
local function is_loopback(host)
  host = unbracket(host)
  return host == "localhost" or host == "::1" or (host or ""):find("^127%.%d+%.%d+%.%d+$") ~= nil
end

-- Is HOST an address of a private, link-local or unique-local network,
-- which lcsb's proxy reaches only where net.lan names it?
local function is_private(host)
  host = (unbracket(host) or ""):lower()
  local a, b = host:match("^(%d+)%.(%d+)%.%d+%.%d+$")
  a, b = tonumber(a), tonumber(b)
  if a then
    return a == 10 or (a == 172 and b >= 16 and b <= 31) or (a == 192 and b == 168)
      or (a == 169 and b == 254) or (a == 100 and b >= 64 and b <= 127)
  end
  return host:find("^f[cd]%x%x:") ~= nil or host:find("^fe[89ab]%x:") ~= nil
end

-- What a port in net.connect opens: the policy names ports, not hosts, so
-- the loopback's port is every host's.
local function every_host(port)
  return ("which opens TCP %d to every host, not this host's loopback alone"):format(port)
end

-- ---- a refusal of the network, worded ----

-- A socket of a kind the policy does not allow (TEXT: the refusal said);
-- nothing when the evidence names where its connection was for.
local function socket_lines(ev, r, text)
  local att = ev.attestation or {}
  if r.target:find("^inet") and where_named(ev, r.program) then return {} end
  if att.net == "ports" then
    return { ("refused: %s: net = { connect = { PORT } } allows TCP alone; net = true "
      .. "allows every kind of socket"):format(text) }
  end
  -- A program may make one and go on without it (a JVM as it starts, javac
  -- too): the network is offered for a command that needs it, not as the
  -- fix for every socket.
  return { ("refused: %s: the policy allows no network (a command that needs none may make a "
    .. "socket anyway, as a JVM does as it starts, and go on without it); net = true allows all "
    .. "of it, net = { domains = { \"HOST\" } } names hosts to reach through lcsb's proxy")
    :format(text) }
end

-- How a program that looked a name up itself goes through lcsb's proxy.
local USE_PROXY = "HTTPS_PROXY, HTTP_PROXY and ALL_PROXY name it: tell the tool to use them "
  .. "(Node's built-in fetch reads them only where Node knows NODE_USE_ENV_PROXY=1, which lcsb "
  .. "sets, in its newer releases; otherwise undici's EnvHttpProxyAgent)"

-- NAME, which the command looked up itself, in net.domains: the program
-- went around lcsb's proxy, not through it; nil when NAME is not listed.
local function around_proxy(ev, text, name, port)
  local policy = ev.policy or {}
  local net = type(policy.net) == "table" and policy.net or {}
  for _, listed in ipairs(list(net.domains)) do
    if listed == name or listed == name .. ":" .. tostring(port) then
      return { ("not through the proxy: %s: %s is in net.domains, but the program looked "
        .. "it up itself instead of going through lcsb's proxy; %s"):format(text, shown(name),
          USE_PROXY) }
    end
  end
end

-- A connection, a bind or a name looked up: the entry in net that allows
-- it, by the host's name where the evidence has one.
local function net_lines(ev, group)
  local r = group.items[1]
  local att = ev.attestation or {}
  local port = tonumber(r.target:match(":(%d+)$"))
  local text = refusal_text(ev, r)
  if r.op == "socket" then return socket_lines(ev, r, text) end
  -- A name the command looked up (the recorder's getaddrinfo): port 0 when
  -- it did not say one.
  local host = r.target:match("^(.-):%d+$")
  -- Only a host name's own bytes: a "*.com" or a list the command made
  -- up is no domain to offer.
  local name = host and host:find("%a") and host:find("^[%w][%w%.%-]*$")
    and not address(host) and host
  if name and port == 0 then text = text:gsub(":0 %(", " (", 1):gsub(":0$", "") end
  local around = name and r.op == "connect" and around_proxy(ev, text, name, port)
  if around then return around end
  if name and r.op == "connect" and att.net == "domains" then
    -- Told of the proxy, it looked the name up itself: listed, it would
    -- still go around the proxy.
    return { ("refused: %s: to reach a host by name, add net = { domains = %s }, and have "
      .. "the program go through lcsb's proxy, as it looked the name up itself; %s"):format(
      text, lua_list { name }, USE_PROXY) }
  elseif name and r.op == "connect" then
    return { ("refused: %s: to reach a host by name, add net = { domains = %s } (through "
      .. "lcsb's proxy)"):format(text, lua_list { name }) }
  elseif att.net == "domains" and r.op == "connect" then
    -- No name in the evidence: the host may be listed already, and the
    -- program told to go around the proxy (Java's options are, often).
    return { ("refused: %s: under net.domains the command reaches hosts by name, through "
      .. "lcsb's proxy: add the host's name to net = { domains = { ... } }; if it is there "
      .. "already, the program went around the proxy, which HTTPS_PROXY and its kin name, and "
      .. "for Java JAVA_TOOL_OPTIONS (which _JAVA_OPTIONS, JDK_JAVA_OPTIONS and java's own -D "
      .. "options override)"):format(text) }
  elseif port and port > 0 and r.op == "connect" and address(host)
    and not is_loopback(address(host)) then
    -- Another host: a port alone would open that port to every host.
    local plain = address(host)
    local lan = is_private(plain) and (", lan = %s"):format(lua_list { unbracket(plain) }) or ""
    return { ("refused: %s: to reach that host, add net = { domains = %s%s } (through lcsb's "
      .. "proxy; its name, where you know it, is better); net = { connect = { %d } } would "
      .. "open TCP %d to every host"):format(text, lua_list { plain .. ":" .. port }, lan, port,
        port) }
  elseif port and port > 0 and r.op == "bind" then
    return { ("refused: %s: add net = { bind = { %d } }"):format(text, port) }
  elseif port and port > 0 and is_loopback(address(host)) then
    return { ("refused: %s: add net = { connect = { %d } } (%s)"):format(text, port,
      every_host(port)) }
  end
  return { ("refused: %s: the policy's net key governs it"):format(text) }
end

M.unbracket = unbracket
M.address = address
M.is_loopback = is_loopback
M.is_private = is_private
M.every_host = every_host
M.lines = net_lines

return M
