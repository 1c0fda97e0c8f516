-- policy_spec.lua - the policy layer through the Lua door (docs/policy.md):
-- Resolver{deny_read, deny_write, presets, audit, audit_door}, r:restrict,
-- r:policy_check. A `**/.env` file cannot be read, listed, grepped, globbed
-- or moved; `.git/hooks/pre-commit` cannot be written; every refusal is an
-- audit event, from a coroutine too, and a failing audit function never
-- breaks an operation.
local pathgate = require "pathgate"
local helpers = require "helpers"

describe("policy", function()
  local top, repo
  before_each(function()
    top = helpers.tmpdir()
    repo = top .. "/repo"
    for rel, text in pairs {
      [".env"] = "SECRET=1\n", ["app/.env"] = "APP_SECRET=1\n",
      ["app/main.txt"] = "hello\nreads APP_SECRET\n", ["notes.txt"] = "notes\n",
      [".git/hooks/pre-commit"] = "#!/bin/sh\n", [".git/index"] = "idx\n",
    } do
      helpers.mkdir((repo .. "/" .. rel):match("^(.*)/[^/]*$"))
      helpers.write(repo .. "/" .. rel, text)
    end
    if helpers.file_links then helpers.symlink(".env", repo .. "/innocent") end -- (not under wine)
  end)
  after_each(function() helpers.rmtree(top) end)

  local function make(events, extra)
    local opts = {
      roots = { repo = repo }, deny_read = { "**/.env" }, presets = { "vcs" },
      audit = function(e) events[#events + 1] = e end,
    }
    for k, v in pairs(extra or {}) do opts[k] = v end
    return assert(pathgate.Resolver(opts))
  end

  local function denied(events, op, address, reason)
    for _, e in ipairs(events) do
      if e.operation == op and e.address == address and e.outcome == "denied"
          and (not reason or e.reason == reason) then
        return e
      end
    end
  end

  it("hides deny_read paths from every operation and listing", function()
    local events = {}
    local r = make(events)
    local host = repo .. "/app/.ENV"
    for _, spelling in ipairs { "root:repo/.env", "ROOT_REPO:/app/.env", helpers.file_uri(repo .. "/.env"),
                                host } do
      local res = r:resolve(spelling, { require_exists = false })
      assert.is_false(res.ok); assert.are.equal("denied", res.reason)
      assert.are.equal("Invalid path / not found", res.error_message)
      local v, msg, code = r:read(spelling)
      assert.is_nil(v); assert.are.equal("invalid_path", code)
      assert.are.equal("Invalid path / not found", msg)
    end
    local v, _, code = r:move("root:repo/app/.env", "root:repo/stolen.txt")
    assert.is_nil(v); assert.are.equal("invalid_path", code)
    v, _, code = r:move("root:repo/app", "root:repo/app2")
    assert.is_nil(v); assert.are.equal("policy_denied", code)
    assert.is_nil((r:write("root:repo/new/.env", "x")))
    assert.is_nil(io.open(repo .. "/stolen.txt")); assert.is_nil(io.open(repo .. "/new/.env"))
    local entries, info = r:ls("root:repo")
    for _, e in ipairs(entries) do
      assert.is_nil(e.path:find("%.env$")); assert.is_nil(e.path:find("innocent", 1, true))
    end
    -- (.env, and the link innocent where there is one: helpers.file_links)
    assert.are.equal(helpers.file_links and 2 or 1, info.skipped_denied); assert.is_true(info.incomplete)
    local matches = r:grep("SECRET", "root:repo")
    assert.are.equal(1, #matches); assert.are.equal("root:repo/app/main.txt", matches[1].path)
    assert.are.equal(0, #r:glob("**/.env", "root:repo"))
    local n = 0
    for m in r:grep_iter("=", "root:repo") do
      assert.is_nil(m.path:find(".env", 1, true)); n = n + 1
    end
    assert.are.equal(0, n)
    assert.truthy(denied(events, "read", "root:repo/.env", "deny_read"))
    assert.truthy(denied(events, "move", "root:repo/app/.env"))
    assert.truthy(denied(events, "resolve", "root:repo/.env"))
    local e = denied(events, "read", "root:repo/.env")
    assert.are.equal("lua", e.door); assert.are.equal("**/.env", e.rule)
    assert.are.equal("deny_read", e.source); assert.are.equal(helpers.host(repo .. "/.env"), helpers.host(e.host_path))
    assert.is_number(e.time); assert.are.equal(0, e.count)
    local hidden = false
    for _, x in ipairs(events) do
      if x.outcome == "hidden" and x.operation == "grep" then hidden = true end
    end
    assert.is_true(hidden)
  end)

  it("hides a file link to a denied path", function()
    helpers.skip_on_windows(helpers.WINE_FILE_LINK)
    local events = {}
    local r = make(events)
    local res = r:resolve("root:repo/innocent")
    assert.is_false(res.ok); assert.are.equal("denied", res.reason)
    local v, _, code = r:read("root:repo/innocent")
    assert.is_nil(v); assert.are.equal("invalid_path", code)
    assert.truthy(denied(events, "read", "root:repo/innocent", "deny_read"))
  end)

  it("protects .git/hooks/ with the vcs preset, by every address", function()
    local events = {}
    local r = make(events)
    assert.is_table(r:read("root:repo/.git/hooks/pre-commit"))
    local v, msg, code = r:write("root:repo/.git/hooks/pre-commit", "evil")
    assert.is_nil(v); assert.are.equal("policy_denied", code)
    assert.truthy(msg:find("Protected by policy", 1, true))
    assert.is_nil((r:write(repo .. "/.git/hooks/pre-push", "evil")))
    assert.is_nil((r:delete("root:repo/.git")))
    assert.is_truthy(r:write("root:repo/.git/index", "idx2"))
    local f = assert(io.open(repo .. "/.git/hooks/pre-commit")); local s = f:read("a"); f:close()
    assert.are.equal("#!/bin/sh\n", s)
    local e = denied(events, "write", "root:repo/.git/hooks/pre-commit", "deny_write")
    assert.truthy(e); assert.are.equal("preset:vcs", e.source)
  end)

  it("restricts, checks, and reports events from a coroutine and a failing function", function()
    local events = {}
    local r = make(events, { audit_door = "modtool" })
    assert.are.same({ denied = "read", rule = "**/.env", source = "deny_read" },
                    r:policy_check("root:repo/app/.env"))
    assert.are.equal("write", r:policy_check("root:repo/.git/hooks/x").denied)
    assert.is_nil(r:policy_check("root:repo/notes.txt").denied)
    local v, _, code = r:policy_check("root:nope/x")
    assert.is_nil(v); assert.are.equal("invalid_path", code)
    assert.is_true(r:restrict { deny_write = { "notes.txt" }, source = "host" })
    v, _, code = r:write("root:repo/notes.txt", "x")
    assert.is_nil(v); assert.are.equal("policy_denied", code)
    v, _, code = r:restrict { presets = { "nope" } }
    assert.is_nil(v); assert.are.equal("invalid_config", code)
    assert.has_error(function() r:restrict { nope = {} } end)
    assert.has_error(function() r:restrict { deny_read = ".env" } end)
    local co = coroutine.wrap(function() return r:read("root:repo/.env") end)
    assert.is_nil((co()))
    local e = denied(events, "write", "root:repo/notes.txt")
    assert.are.equal("host", e.source); assert.are.equal("modtool", e.door)
    -- a failing or yielding audit function: warned, never raised through the core
    local bad = assert(pathgate.Resolver {
      roots = { repo = repo }, deny_read = { ".env" },
      audit = function() error("audit sink down") end,
    })
    v, _, code = bad:read("root:repo/.env")
    assert.is_nil(v); assert.are.equal("invalid_path", code)
    local yielding = assert(pathgate.Resolver {
      roots = { repo = repo }, deny_read = { ".env" },
      audit = function() coroutine.yield() end,
    })
    local co2 = coroutine.wrap(function() return yielding:read("root:repo/.env") end)
    assert.is_nil((co2()))
  end)

  it("refuses bad options", function()
    local v, msg, code = pathgate.Resolver { roots = { repo = repo }, deny_read = { "root:nope/x" } }
    assert.is_nil(v); assert.are.equal("invalid_config", code)
    assert.is_nil(msg:find(top, 1, true))
    v, _, code = pathgate.Resolver { roots = { repo = repo }, presets = { "nope" } }
    assert.is_nil(v); assert.are.equal("invalid_config", code)
    assert.has_error(function() pathgate.Resolver { roots = { repo = repo }, deny_read = ".env" } end)
    assert.has_error(function() pathgate.Resolver { roots = { repo = repo }, deny_write = { 1 } } end)
    assert.has_error(function() pathgate.Resolver { roots = { repo = repo }, audit = "x" } end)
    assert.has_error(function() pathgate.Resolver { roots = { repo = repo }, audit_door = 1 } end)
    -- the audit function is released with the resolver
    local r = make({})
    r:close()
    helpers.full_gc()
  end)
  it("lists the hidden paths git tracks (docs/policy.md, secrets in git history)", function()
    local fake = repo .. "/.git/index"
    os.remove(fake)
    local q = helpers.sh_quote(helpers.posix_path(repo))
    assert.is_true(helpers.posix_sh("cd " .. q .. " && rm -rf .git && git init -q . && git add .env "
      .. "app/.env app/main.txt >/dev/null 2>&1"))
    local events = {}
    local r = assert(pathgate.Resolver {
      roots = { repo = repo }, presets = { "secrets" },
      audit = function(e) events[#events + 1] = e end,
    })
    local found = r:policy_tracked()
    table.sort(found)
    assert.are.same({ "root:repo/.env", "root:repo/app/.env" }, found)
    local seen = 0
    for _, e in ipairs(events) do
      if e.operation == "git_index" and e.outcome == "tracked" then seen = seen + 1 end
    end
    assert.is_true(seen >= 2)
    local plain = assert(pathgate.Resolver { roots = { repo = repo }, presets = { "vcs" } })
    assert.are.same({}, plain:policy_tracked())
  end)
end)
