-- exec_policy_spec.lua - the resolver's policy inside commands through the
-- Lua door (docs/exec.md "Policy in commands"): resolver:execute under
-- deny_read / deny_write / presets hides `.env` (by any name), keeps
-- `.git/hooks/` and deny_write files read-only, and reports each command
-- to the audit function (start with protections, end with exit status).
local pathgate = require "pathgate"
local helpers = require "helpers"

describe("execute under a policy", function()
  local top, repo
  before_each(function()
    top = helpers.tmpdir()
    repo = top .. "/repo"
    for rel, text in pairs {
      [".env"] = "SECRET=1\n", ["app/.env"] = "APP_SECRET=1\n", ["app/main.txt"] = "m\n",
      [".git/hooks/pre-commit"] = "#!/bin/sh\n", ["locked.txt"] = "keep\n",
    } do
      helpers.mkdir((repo .. "/" .. rel):match("^(.*)/[^/]*$"))
      helpers.write(repo .. "/" .. rel, text)
    end
    helpers.symlink(".env", repo .. "/innocent")
  end)
  after_each(function() helpers.rmtree(top) end)

  local function slurp(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    return s
  end

  it("hides, keeps read-only and audits", function()
    local events = {}
    local r = assert(pathgate.Resolver {
      roots = { repo = repo }, deny_read = { "**/.env" }, deny_write = { "locked.txt" },
      presets = { "vcs", "secrets" }, audit = function(e) events[#events + 1] = e end,
    })
    local res, msg = r:execute("cat .env app/.env innocent; echo rc=$?; grep -r SECRET .; "
      .. "echo x >> locked.txt; rm -f locked.txt; echo evil > .git/hooks/pre-commit; exit 4")
    if not res and msg:match("namespaces") then
      r:close()
      return -- no view on this system: refused, never unmasked
    end
    assert(res, msg)
    assert.is_nil(res.output:find("SECRET=1", 1, true))
    assert.is_truthy(res.output:find("rc=1", 1, true))
    assert.are.equal(4, res.exit_code)
    assert.are.equal("keep\n", slurp(repo .. "/locked.txt"))
    assert.are.equal("#!/bin/sh\n", slurp(repo .. "/.git/hooks/pre-commit"))
    local start, finish
    for _, e in ipairs(events) do
      if e.operation == "execute" and e.outcome == "allowed" then start = e end
      if e.operation == "execute" and e.outcome == "exited" then finish = e end
    end
    assert.are.equal("root:repo", start.address)
    assert.is_true(start.count >= 3)
    assert.is_true(start.protections > 0)
    assert.are.equal(4, finish.exit_status)
    r:close()
  end)
  it("quarantines the links a command plants at protected names", function()
    local events = {}
    local r = assert(pathgate.Resolver {
      roots = { repo = repo }, presets = { "secrets", "agent-config" },
      audit = function(e) events[#events + 1] = e end,
    })
    helpers.write(repo .. "/public.txt", "public\n")
    local res, msg = r:execute("ln -s public.txt .env.local && ln -s public.txt .envrc")
    if not res and msg:match("namespaces") then
      r:close()
      return
    end
    assert(res, msg)
    assert.are.equal(0, res.exit_code)
    table.sort(res.quarantined)
    assert.are.same({ "root:repo/.env.local", "root:repo/.envrc" }, res.quarantined)
    assert.is_nil(io.open(repo .. "/.envrc", "rb"))
    local n = 0
    for _, e in ipairs(events) do
      if e.outcome == "quarantined" then
        n = n + 1
        assert.are.equal("symlink", e.reason)
      end
    end
    assert.are.equal(2, n)
    assert.are.same({}, assert(r:execute("true")).quarantined)
    r:close()
  end)
end)
