-- module_spec.lua - `require "pathgate"`: the returned table, no globals,
-- per-state metatables.
local pathgate = require "pathgate"
local helpers = require "helpers"

describe("require 'pathgate'", function()
  it("returns the class tables and the version", function()
    local names = {}
    for k in pairs(pathgate) do names[#names + 1] = k end
    table.sort(names)
    assert.are.same({ "LegacyAppPathString", "PathUri", "Resolver", "Session", "VisibilityRef",
                      "exec_capabilities", "exec_protections", "home_relative_suffix",
                      "normalize_windows_device_path", "path_segments",
                      "platform_convention", "version" }, names)
    assert.matches("^%d+%.%d+%.%d+$", pathgate.version)
    assert.is_function(pathgate.PathUri.parse)
    assert.is_function(pathgate.PathUri.from_native)
    assert.is_function(pathgate.LegacyAppPathString.from_uri)
    for _, class in ipairs { "LegacyAppPathString", "Resolver", "Session", "VisibilityRef" } do
      assert.is_function(getmetatable(pathgate[class]).__call, class)
    end
    assert.are.equal(pathgate, require "pathgate")
  end)

  it("sets no global in a fresh interpreter", function()
    local script = [[
      package.cpath = CPATH
      local before = {}
      for k in pairs(_G) do before[k] = true end
      local pg = require "pathgate"
      for k in pairs(_G) do assert(before[k], "new global " .. tostring(k)) end
      assert(pg.PathUri.parse("file:///x"))
      io.write("clean")
    ]]
    local dir = helpers.tmpdir()
    local out, ok = helpers.run_lua(("CPATH = %q\n"):format(package.cpath) .. script, dir)
    helpers.rmtree(dir)
    assert.is_true(ok, out)
    assert.are.equal("clean", out)
  end)

  it("protects metatables: getmetatable gives the class name", function()
    local u = assert(pathgate.PathUri.parse("file:///x"))
    assert.are.equal("pathgate.PathUri", getmetatable(u))
    assert.has_error(function() setmetatable(u, {}) end)
  end)
end)
