-- read_only_spec.lua - Resolver{read_only = {...}}: bases that file
-- operations may read but never write; an unknown name is refused.
local pathgate = require "pathgate"
local helpers = require "helpers"

describe("read-only bases", function()
  local top
  before_each(function()
    top = helpers.tmpdir()
    for _, d in ipairs { "repo", "game", "mod" } do
      helpers.mkdir(top .. "/" .. d)
      helpers.write(top .. "/" .. d .. "/f.txt", "original\n")
    end
  end)
  after_each(function() helpers.rmtree(top) end)

  local function content(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    return s
  end

  it("refuse every write and keep the content", function()
    local r = assert(pathgate.Resolver {
      roots = { repo = top .. "/repo", game = top .. "/game" },
      mods = { ["Some Mod"] = top .. "/mod" },
      read_only = { "game", "Some Mod" },
    })
    for _, address in ipairs { "root:game/f.txt", "mod:Some Mod/f.txt" } do
      assert.is_table(r:read(address))
      local v, msg, code = r:write(address, "x")
      assert.is_nil(v); assert.are.equal("permission_denied", code); assert.is_string(msg)
      assert.is_nil((r:edit(address, "original", "changed")))
      assert.is_nil((r:delete(address)))
      assert.is_nil((r:write(address:gsub("f%.txt", "new.txt"), "x")))
    end
    assert.are.equal("original\n", content(top .. "/game/f.txt"))
    assert.are.equal("original\n", content(top .. "/mod/f.txt"))
    assert.is_nil(io.open(top .. "/game/new.txt"))
    assert.is_truthy(r:write("root:repo/f.txt", "changed\n"))
    assert.are.equal("changed\n", content(top .. "/repo/f.txt"))
  end)

  it("refuse a name that is no base, and misuse raises", function()
    local v, msg, code = pathgate.Resolver { roots = { repo = top .. "/repo" }, read_only = { "gmae" } }
    assert.is_nil(v); assert.are.equal("invalid_config", code)
    assert.is_nil(msg:find(top, 1, true))
    assert.has_error(function() pathgate.Resolver { roots = { repo = top }, read_only = "repo" } end)
    assert.has_error(function() pathgate.Resolver { roots = { repo = top }, read_only = { 1 } } end)
  end)
  it("make a nested read-only base read-only by every address (issue 16, finding 5)", function()
    local game = top .. "/repo/vendor/game"
    helpers.mkdir(top .. "/repo/vendor")
    helpers.mkdir(game)
    helpers.write(game .. "/g.txt", "vanilla\n")
    local r = assert(pathgate.Resolver {
      roots = { repo = top .. "/repo" },
      mods = { Game = game },
      read_only = { "mod:Game" },
    })
    for _, address in ipairs { "mod:Game/g.txt" } do
      assert.is_table(r:read(address))
      local v, _, code = r:write(address, "pwned")
      assert.is_nil(v); assert.are.equal("permission_denied", code)
      assert.is_nil((r:edit(address, "vanilla", "pwned")))
      assert.is_nil((r:delete(address)))
    end
    assert.is_nil((r:delete("root:repo/vendor")))
    assert.are.equal("vanilla\n", content(game .. "/g.txt"))
    assert.is_truthy(r:write("root:repo/vendor/other.txt", "ok"))
  end)

  it("make a nested read-only base read-only by the address of the base around it", function()
    local game = top .. "/repo/vendor/game"
    helpers.mkdir(game)
    helpers.write(game .. "/g.txt", "vanilla\n")
    local r = assert(pathgate.Resolver {
      roots = { repo = top .. "/repo" },
      mods = { Game = game },
      read_only = { "mod:Game" },
    })
    local address = "root:repo/vendor/game/g.txt"
    assert.is_table(r:read(address))
    local v, _, code = r:write(address, "pwned")
    assert.is_nil(v); assert.are.equal("permission_denied", code)
    assert.is_nil((r:edit(address, "vanilla", "pwned")))
    assert.is_nil((r:delete(address)))
    assert.is_nil((r:write("root:repo/vendor/game/new.txt", "x")))
    assert.are.equal("vanilla\n", content(game .. "/g.txt"))
    assert.is_nil(io.open(game .. "/new.txt"))
  end)
end)
