-- exec_net_spec.lua - r:execute(cmd, {allow_domains = {...}}) (docs/exec.md
-- "Network"): a listed name is reached through the proxy, another name, an
-- unlisted IP and an unlisted host loopback service are refused, a direct
-- connection has no route, and every decision reaches the resolver's audit
-- function. The server is a python3 http.server on 127.0.0.1; the name is
-- `localhost` (/etc/hosts): this machine has no DNS.
local pathgate = require "pathgate"
local helpers = require "helpers"

local SERVER = [[
import http.server, os, signal, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b = ("served " + self.path + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
signal.alarm(120)
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d" % (srv.server_port, os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
]]

local function start_server(dir, name)
  local script = dir .. "/server.py"
  helpers.write(script, SERVER)
  local portfile = dir .. "/" .. name
  os.execute("python3 " .. helpers.sh_quote(script) .. " " .. helpers.sh_quote(portfile)
             .. " >/dev/null 2>&1 &")
  for _ = 1, 200 do
    local f = io.open(portfile, "r")
    if f then
      local port, pid = f:read("n", "n")
      f:close()
      return { port = port, pid = pid }
    end
    os.execute("sleep 0.05")
  end
  error("the test server did not start")
end

local function usable()
  local ok = os.execute("command -v curl >/dev/null")
  if not ok then return false end
  local r = assert(pathgate.Resolver { roots = { { "x", "/tmp" } } })
  local res = r:execute("true", { allow_unconfined = true })
  r:close()
  return res and res.landlock_abi > 0 and res.protections.namespaces
end

describe("execute with allow_domains #needs_commands", function()
  local dir, listed, other, run

  setup(function()
    run = usable()
    dir = helpers.tmpdir()
    helpers.mkdir(dir .. "/repo")
    if run then
      listed = start_server(dir, "listed")
      other = start_server(dir, "other")
    end
  end)
  teardown(function()
    if listed then os.execute("kill " .. listed.pid .. " " .. other.pid) end
    helpers.rmtree(dir)
  end)

  it("reaches a listed name and refuses the rest, each decision audited", function()
    if not run then return pending("needs Landlock, namespaces and curl") end
    local events = {}
    local r = assert(pathgate.Resolver {
      roots = { { "repo", dir .. "/repo" } },
      audit = function(e) events[#events + 1] = e end,
    })
    local L, O = listed.port, other.port
    local cmd = ("curl -sS --noproxy '' http://localhost:%d/lua; "
      .. "for u in http://other.example/ http://10.1.2.3/ http://localhost:%d/; do "
      .. "curl -s --noproxy '' -o /dev/null -w '%%{http_code} ' \"$u\"; done; echo; "
      .. "curl -s --noproxy '*' --connect-timeout 5 http://127.0.0.1:%d/; echo direct=$?"):format(L, O, L)
    local res = assert(r:execute(cmd, {
      allow_domains = { "localhost:" .. L, "127.0.0.1:" .. L, "localhost" },
      timeout = 60,
    }))
    assert.equals(0, res.exit_code)
    -- the refusals are also in the result (docs/exec.md "What a result says")
    assert.equals(("served /lua\n403 403 403 \ndirect=7\n"
      .. "pathgate: the network allowlist refused: other.example:80 (not_listed), "
      .. "10.1.2.3:80 (not_listed), localhost:%d (private_address); only the hosts of "
      .. "allow_domains are reachable\n"):format(O), res.output)
    assert.is_true(res.protections.network_allowlist)
    assert.is_true(res.protections.network_namespace)
    -- four network decisions, between the command's own start and end
    local by, net = {}, 0
    for _, e in ipairs(events) do
      if e.operation ~= "execute" then by[e.address] = e; net = net + 1 end
    end
    assert.equals(4, net)
    assert.equals("allowed", events[1].outcome)
    assert.equals("exited", events[#events].outcome)
    local ok = by["localhost:" .. L]
    assert.equals("allowed", ok.outcome)
    assert.equals("http", ok.operation)
    assert.equals("lua", ok.door)
    assert.equals("127.0.0.1", ok.ip)
    assert.equals("not_listed", by["other.example:80"].reason)
    assert.equals("not_listed", by["10.1.2.3:80"].reason)
    assert.equals("private_address", by["localhost:" .. O].reason)
    r:close()
  end)

  it("refuses bad options with the failure convention or an argument error", function()
    local r = assert(pathgate.Resolver { roots = { { "repo", dir .. "/repo" } } })
    local res, msg, code = r:execute("true", { allow_domains = { "*" } })
    assert.is_nil(res)
    assert.equals("invalid_argument", code)
    assert.matches('"*"', msg, 1, true)
    res, msg, code = r:execute("true", { allow_domains = { "example.com" }, allow_network = true })
    assert.is_nil(res)
    assert.equals("invalid_argument", code)
    assert.matches("allow_network", msg, 1, true)
    assert.has_error(function() r:execute("true", { allow_domains = "example.com" }) end)
    assert.has_error(function() r:execute("true", { allow_domains = { 1 } }) end)
    assert.has_error(function() r:execute("true", { allow_domains = { "a\0b" } }) end)
    r:close()
  end)
end)
