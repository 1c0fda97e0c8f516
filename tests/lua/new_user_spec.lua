-- new_user_spec.lua - issue 34 through the Lua door: a script that
-- resolves all day never fills the registry (tokens go back on __gc and
-- __close; host_path_of holds none), a root at / is refused, file times are
-- given as numbers too, and glob entries carry no size unless asked.
local pathgate = require "pathgate"
local helpers = require "helpers"

local CAPACITY = "Visibility registry capacity exceeded \u{2014} restart server"

describe("issue 34 (Lua)", function()
  local t, r

  setup(function()
    t = helpers.make_tree()
  end)
  teardown(function()
    helpers.rmtree(t.top)
  end)
  before_each(function()
    r = assert(pathgate.Resolver { roots = { repo = t.repo } })
  end)
  after_each(function()
    r:close()
  end)

  describe("tokens", function()
    it("30,000 resolves in a loop succeed with the default max_tokens", function()
      for i = 1, 30000 do
        local res = r:resolve("root:repo/common/traits/00_traits.txt")
        assert(res.ok, res.error_message)
        if i % 1000 == 0 then collectgarbage() end
      end
      collectgarbage()
      collectgarbage()
      assert.are.equal(0, #r)
    end)

    it("`local res <close>` gives the token back at the end of the scope", function()
      do
        local res <close> = r:resolve("root:repo/common")
        assert.is_true(res.ok)
        assert.are.equal(1, #r)
        assert.is_string(r:host_path(res.ref))
      end
      assert.are.equal(0, #r)
      -- a failed resolution holds nothing and closes fine
      do
        local bad <close> = r:resolve("root:repo/../../etc/passwd")
        assert.is_false(bad.ok)
      end
    end)

    it("a ref copied out of a resolution keeps its token alive", function()
      local ref = r:resolve("root:repo/common").ref
      collectgarbage()
      collectgarbage()
      assert.are.equal(1, #r)
      assert.is_string(r:host_path(ref))
      ref = nil
      collectgarbage()
      collectgarbage()
      assert.are.equal(0, #r)
    end)

    it("a ref closed with <close> releases; a rebuilt ref owns no token", function()
      local res = r:resolve("root:repo/common")
      local copy = pathgate.VisibilityRef(res.ref:token(), tostring(res.ref))
      copy = nil
      collectgarbage()
      assert.are.equal(1, #r) -- the rebuilt ref released nothing
      do
        local ref <close> = res.ref
      end
      assert.are.equal(0, #r)
      assert.are.equal("VisibilityResolution(ok=true, ref=(closed), exists=true)", tostring(res))
    end)

    it("session resolutions give their tokens back too", function()
      local s = assert(pathgate.Session(r))
      for _ = 1, 12000 do
        local res = s:resolve("common")
        assert(res.ok, res.error_message)
        if _ % 1000 == 0 then collectgarbage() end
      end
      collectgarbage()
      collectgarbage()
      assert.are.equal(0, #r)
      s:close()
    end)

    it("a ref outliving its closed resolver is collected safely", function()
      local r2 = assert(pathgate.Resolver { roots = { repo = t.repo } })
      local ref = r2:resolve("root:repo/common").ref
      r2:close()
      assert.are.equal("root:repo/common", tostring(ref))
      ref = nil
      collectgarbage()
      collectgarbage()
    end)

    it("the capacity message is the seed's exact text when refs are kept", function()
      local small = assert(pathgate.Resolver { roots = { repo = t.repo }, max_tokens = 3 })
      local kept = {}
      for i = 1, 3 do kept[i] = small:resolve("root:repo/common") end
      local res = small:resolve("root:repo/common")
      assert.is_false(res.ok)
      assert.are.equal(CAPACITY, res.error_message)
      kept = nil
      collectgarbage()
      collectgarbage()
      assert.is_true(small:resolve("root:repo/common").ok)
      small:close()
    end)

    it("host_path_of answers a host path in one call and holds no token", function()
      for _ = 1, 20000 do
        assert(r:host_path_of("root:repo/common/traits/00_traits.txt"))
      end
      assert.are.equal(0, #r)
      local path = r:host_path_of("traits/00_traits.txt", { base = "root:repo/common" })
      assert.are.equal(helpers.host(t.repo .. "/common/traits/00_traits.txt"), path)
      local none, msg, code = r:host_path_of("root:repo/../../etc/passwd")
      assert.is_nil(none)
      assert.are.equal("Invalid path / not found", msg)
      assert.are.equal("invalid_path", code)
      assert.is_nil(r:host_path_of("root:repo/nothing-here"))
      assert.is_string(r:host_path_of("root:repo/nothing-here", { require_exists = false }))
      assert.are.equal(0, #r)
    end)
  end)

  describe("file times and glob entries", function()
    it("gives ISO strings and integer seconds (LuaFileSystem's numbers)", function()
      local before = os.time()
      assert(r:write("root:repo/t.txt", "x\n"))
      local st = assert(r:stat("root:repo/t.txt"))
      assert.is_string(st.modified_at)
      assert.is_true(math.type(st.mtime) == "integer")
      assert.is_true(math.abs(st.mtime - before) <= 5, tostring(st.mtime))
      assert.are.equal(os.date("!%Y-%m-%dT%H:%M:%S", st.mtime), st.modified_at:sub(1, 19))
      for _, k in ipairs { "atime", "ctime" } do
        assert.is_true(math.type(st[k]) == "integer", k)
      end
      assert.is_string(os.date("%c", st.mtime)) -- os.date takes it
      local entries = assert(r:ls("root:repo"))
      for _, e in ipairs(entries) do
        assert.is_true(math.type(e.mtime) == "integer", e.path)
      end
      local rd = assert(r:read("root:repo/t.txt"))
      assert.are.equal(st.mtime, rd.mtime)
    end)

    it("glob entries have no size unless {metadata = true}", function()
      local plain = assert(r:glob("*.txt", "root:repo/common"))
      assert.are.equal(1, #plain)
      assert.is_nil(plain[1].size)
      assert.is_nil(plain[1].mtime)
      local full = assert(r:glob("*.txt", "root:repo/common", { metadata = true }))
      assert.are.equal(10, full[1].size)
      assert.is_true(math.type(full[1].mtime) == "integer")
    end)
  end)

  describe("search and policy", function()
    it("grep all_bases searches every root and mod; ^ matches after a BOM", function()
      helpers.write(t.mod .. "/l_english.yml", "\239\187\191l_english:\n")
      helpers.write(t.game .. "/l_english.yml", "\239\187\191l_english:\n")
      local all = assert(pathgate.Resolver {
        roots = { { "repo", t.repo }, { "game", t.game } }, mods = { ["Some Mod"] = t.mod } })
      local m = assert(all:grep("^l_english:", { regex = true, all_bases = true }))
      assert.are.equal(2, #m)
      assert.are.equal("root:game/l_english.yml", m[1].path)
      assert.are.equal("mod:Some Mod/l_english.yml", m[2].path)
      assert.are.equal("l_english:", m[1].text)
      assert.are.equal(1, m[1].line)
      -- the default is the first base only
      assert.are.equal(0, #assert(all:grep("l_english")))
      all:close()
    end)

    it("policy_check takes relative text", function()
      local p = assert(pathgate.Resolver { roots = { repo = t.repo }, deny_read = { "**/.env" } })
      assert.are.equal("read", p:policy_check(".env").denied)
      assert.are.equal("read", p:policy_check("common/.env").denied)
      assert.is_nil(p:policy_check("common/traits/00_traits.txt").denied)
      p:close()
    end)
  end)

  describe("address_of", function()
    it("maps a .mod descriptor's Windows path and host paths to addresses", function()
      local MOD = "C:/Users/me/Documents/Paradox Interactive/Crusader Kings III/mod"
      local a = assert(pathgate.Resolver {
        roots = { user = t.repo }, mods = { ["Some Mod"] = t.mod },
        native_prefixes = { [MOD] = "root:user" },
      })
      assert.are.equal("root:user/x", a:address_of(MOD .. "/x"))
      -- Windows prefixes: either separator, any case
      assert.are.equal("root:user/x/y.txt", a:address_of(
        [[c:\USERS\me\Documents\paradox interactive\Crusader Kings III\MOD\x\y.txt]]))
      assert.are.equal("mod:Some Mod/descriptor.mod", a:address_of(t.mod .. "/descriptor.mod"))
      local none, msg, code = a:address_of("/etc/passwd")
      assert.is_nil(none)
      assert.are.equal("Invalid path / not found", msg)
      assert.are.equal("invalid_path", code)
      assert.is_nil(a:address_of(MOD .. "/../../x"))
      assert.are.equal(0, #a)
      a:close()
      local bad, _, c = pathgate.Resolver { roots = { user = t.repo },
        native_prefixes = { [MOD] = "root:nope" } }
      assert.is_nil(bad)
      assert.are.equal("invalid_config", c)
    end)
  end)

  describe("a root at /", function()
    it("is refused, read-only or not, under any spelling", function()
      -- (on Windows, a volume root under its spellings)
      for _, dir in ipairs(helpers.windows and { "C:\\", "C:/", "Z:\\" } or { "/", "//", "/tmp/.." }) do
        local none, msg, code = pathgate.Resolver { roots = { repo = dir } }
        assert.is_nil(none)
        assert.are.equal("invalid_config", code)
        assert.truthy(msg:find("root 'repo': the directory is the filesystem root", 1, true))
        none, msg, code = pathgate.Resolver { roots = { repo = dir }, read_only = { "repo" } }
        assert.is_nil(none)
        assert.are.equal("invalid_config", code)
        none, msg, code = pathgate.Resolver { roots = { repo = t.repo }, mods = { Host = dir } }
        assert.is_nil(none)
        assert.are.equal("invalid_config", code)
      end
    end)
  end)
end)
