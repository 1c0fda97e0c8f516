-- argerror_spec.lua - a bad argument names the method, even when the call
-- itself carries no name (pcall(r.read, r, 5), a call from C): issue 17,
-- "bad argument #2 to 'read'", never '?'.
local pathgate = require "pathgate"
local helpers = require "helpers"

describe("bad-argument messages", function()
  local top, r, s
  before_each(function()
    top = helpers.tmpdir()
    r = assert(pathgate.Resolver { roots = { repo = top } })
    s = assert(pathgate.Session(r))
  end)
  after_each(function() helpers.rmtree(top) end)

  local function message(f, ...)
    local ok, err = pcall(f, ...)
    assert.is_false(ok)
    return err
  end

  it("name the method when called without a name", function()
    assert.are.equal("bad argument #2 to 'read' (string expected, got number)", message(r.read, r, 5))
    assert.are.equal("bad argument #2 to 'resolve' (string expected, got table)", message(r.resolve, r, {}))
    assert.are.equal("bad argument #2 to 'write' (string expected, got no value)", message(r.write, r))
    assert.are.equal("bad argument #2 to 'push' (string expected, got boolean)", message(s.push, s, true))
    assert.matches("^bad argument #1 to 'read' %(pathgate.Resolver", message(r.read, 5))
    assert.are.equal("bad argument #1 to 'parse' (string expected, got number)", message(pathgate.PathUri.parse, 5))
    assert.are.equal("bad argument #1 to 'Resolver' (table expected, got number)", message(pathgate.Resolver, 5))
    assert.matches("^bad argument #3 to 'read'", message(r.read, r, "root:repo/x", "zero"))
  end)

  it("count arguments as Lua does for method calls", function()
    assert.matches("bad argument #1 to 'read' %(string expected, got number%)", message(function() r:read(5) end))
    assert.matches("calling 'read' on bad self", message(function() local t = { read = r.read }; t:read("x") end))
  end)
end)
