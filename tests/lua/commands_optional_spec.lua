-- commands_optional_spec.lua - commands are optional: exec_capabilities()
-- says what this build's commands get; a build without them
-- (-DPATHGATE_OS=posix) answers every execute with nil, the one message and
-- "unsupported", and runs nothing, even with allow_unconfined. Runs in
-- every build (docs/exec.md).
local pathgate = require "pathgate"
local helpers = require "helpers"

local MESSAGE = "commands are not supported by this build of pathgate "
  .. "(no contained sandbox for this OS); nothing was run"

describe("commands are optional", function()
  local t
  setup(function() t = helpers.make_tree() end)
  teardown(function() helpers.rmtree(t.top) end)

  it("exec_capabilities names what this build's commands get", function()
    local caps = pathgate.exec_capabilities()
    assert.are.equal("table", type(caps))
    if os.getenv("PATHGATE_OS_BACKEND") == "linux" then
      assert.is_true(caps.seccomp)
      assert.is_true(caps.namespaces)
    else
      assert.are.same({}, caps)
    end
  end)

  it("without commands, execute runs nothing and says why", function()
    if next(pathgate.exec_capabilities()) ~= nil then
      print("SKIPPED: this build has commands (exec_spec.lua covers them)")
      return
    end
    local r = assert(pathgate.Resolver { roots = { { "repo", t.repo } } })
    local res, msg, code = r:execute("touch marker", { allow_unconfined = true })
    assert.is_nil(res)
    assert.are.equal(MESSAGE, msg)
    assert.are.equal("unsupported", code)
    local s = assert(pathgate.Session(r))
    res, msg, code = s:execute("touch marker")
    assert.is_nil(res)
    assert.are.equal(MESSAGE, msg)
    assert.are.equal("unsupported", code)
    assert.is_nil(io.open(t.repo .. "/marker", "rb"))
    r:close()
  end)
end)
