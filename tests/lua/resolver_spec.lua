-- resolver_spec.lua - pathgate.Resolver, VisibilityResolution and
-- VisibilityRef through the Lua front end: grammar and containment basics
-- on a temporary tree, the exact agent-visible messages, the registry,
-- garbage collection, coroutines and misuse.
local pathgate = require "pathgate"
local helpers = require "helpers"

local INVALID = "Invalid path / not found"
local CAPACITY = "Visibility registry capacity exceeded \u{2014} restart server"
local UUID4 = "^%x%x%x%x%x%x%x%x%-%x%x%x%x%-4%x%x%x%-[89ab]%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x$"

local function raises(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error matching " .. pattern)
  assert.matches(pattern, err, 1, true)
end

describe("Resolver", function()
  local t, r

  local function no_host_path(s)
    assert.is_nil(s:find(t.top, 1, true), "host path leaked: " .. s)
  end

  local function ok(text, opts)
    local res = r:resolve(text, opts)
    assert.is_true(res.ok, text .. ": " .. tostring(res))
    return res
  end

  local function invalid(text, reason, opts)
    local res = r:resolve(text, opts)
    assert.is_false(res.ok, text .. " resolved")
    assert.are.equal(INVALID, res.error_message)
    if reason then assert.are.equal(reason, res.reason, text) end
    assert.is_nil(res.ref)
    assert.is_nil(res.exists)
    assert.is_nil(res.relative_path)
    no_host_path(tostring(res))
    return res
  end

  setup(function()
    t = helpers.make_tree()
  end)
  teardown(function()
    helpers.rmtree(t.top)
  end)
  before_each(function()
    r = assert(pathgate.Resolver {
      roots = { repo = t.repo, game = t.game },
      mods = { ["Some Mod"] = t.mod },
    })
  end)

  describe("construction", function()
    it("is a userdata named pathgate.Resolver; map form sorts by name", function()
      assert.are.equal("userdata", type(r))
      assert.are.equal("pathgate.Resolver", getmetatable(r))
      assert.are.same({ "game", "repo" }, r:roots())
      assert.are.same({ "Some Mod" }, r:mods())
      no_host_path(tostring(r))
    end)

    it("keeps the order of the list form", function()
      local r2 = assert(pathgate.Resolver { roots = { { "repo", t.repo }, { "game", t.game } },
                                            mods = { { "Some Mod", t.mod } } })
      assert.are.same({ "repo", "game" }, r2:roots())
      assert.are.same({ "Some Mod" }, r2:mods())
    end)

    it("returns nil, message, code for a bad configuration, naming no directory", function()
      local v, msg, code = pathgate.Resolver { roots = {} }
      assert.is_nil(v); assert.are.equal("invalid_config", code); assert.is_string(msg)
      v, msg, code = pathgate.Resolver { roots = { Repo = t.repo } }
      assert.is_nil(v); assert.are.equal("invalid_config", code)
      assert.truthy(msg:find("Repo", 1, true)); no_host_path(msg)
      v, msg, code = pathgate.Resolver { roots = { repo = t.top .. "/missing" } }
      assert.is_nil(v); assert.are.equal("io_error", code); no_host_path(msg)
      v, msg, code = pathgate.Resolver { roots = { repo = t.repo }, mods = { ["a/b"] = t.mod } }
      assert.is_nil(v); assert.are.equal("invalid_config", code); no_host_path(msg)
      v, msg, code = pathgate.Resolver { roots = { { "repo", t.repo }, { "repo", t.game } } }
      assert.is_nil(v); assert.are.equal("invalid_config", code); no_host_path(msg)
      v, msg, code = pathgate.Resolver { roots = { repo = t.repo .. "\0/x" } }
      assert.is_nil(v); assert.is_string(msg); assert.is_string(code)
    end)

    it("raises on misuse", function()
      raises("table expected, got string", pathgate.Resolver, "roots")
      raises("table expected, got no value", pathgate.Resolver)
      raises("option 'roots' must be a table", pathgate.Resolver, { roots = 1 })
      local none, msg, code = pathgate.Resolver({})
      assert.is_nil(none)
      assert.are.equal("no root or mod configured", msg)
      assert.are.equal("invalid_config", code)
      raises("option 'mods' must be a table", pathgate.Resolver, { roots = { repo = t.repo }, mods = 1 })
      raises("unknown option 'root'", pathgate.Resolver, { root = { repo = t.repo } })
      raises("roots: expected string, got number", pathgate.Resolver, { roots = { repo = 42 } })
      raises("roots: names must be strings", pathgate.Resolver, { roots = { [true] = t.repo } })
      raises("roots: mixes list entries and named entries", pathgate.Resolver,
             { roots = { { "repo", t.repo }, game = t.game } })
      raises("option 'max_tokens' must be a positive integer", pathgate.Resolver,
             { roots = { repo = t.repo }, max_tokens = 0 })
      raises("option 'max_tokens' must be a positive integer", pathgate.Resolver,
             { roots = { repo = t.repo }, max_tokens = "10" })
      raises("option 'max_tokens' must be a positive integer", pathgate.Resolver,
             { roots = { repo = t.repo }, max_tokens = 1.5 })
    end)
  end)

  describe("resolve", function()
    it("returns the fields of a successful resolution", function()
      local res = ok("root:repo/common/traits/00_traits.txt")
      assert.are.equal("pathgate.VisibilityResolution", getmetatable(res))
      assert.are.equal("root:repo/common/traits/00_traits.txt", tostring(res.ref))
      assert.are.equal("repo", res.root_category)
      assert.are.equal("common/traits/00_traits.txt", res.relative_path)
      assert.is_true(res.exists)
      assert.is_nil(res.error_message)
      assert.are.equal("ok", res.reason)
      assert.are.equal(res.ref, res.ref)
      assert.is_true(rawequal(res.ref, res.ref))
      assert.are.equal("pathgate.VisibilityRef", getmetatable(res.ref))
      assert.matches(UUID4, res.ref:token())
      assert.are.equal("root:repo/common/traits/00_traits.txt", res.ref:session_abs())
      assert.is_nil(res.no_such_field)
      assert.is_nil(res.mod_name)
      no_host_path(tostring(res))
      assert.truthy(tostring(res):find("root:repo/common/traits/00_traits.txt", 1, true))
    end)

    it("mints a new token for every resolve", function()
      local a, b = ok("root:repo/common"), ok("root:repo/common")
      assert.are_not.equal(a.ref:token(), b.ref:token())
      assert.is_false(a.ref == b.ref)
      assert.are.equal(tostring(a.ref), tostring(b.ref))
      assert.are.equal(2, #r)
      assert.are.equal(2, r:count())
    end)

    it("normalises the accepted input forms to one canonical address", function()
      local want = "root:repo/common/traits/00_traits.txt"
      for _, text in ipairs {
        "root:repo/common/traits/00_traits.txt",
        "  root:repo/common/traits/00_traits.txt \n",
        "root:repo/common\\traits\\00_traits.txt",
        "root:repo/common/./traits//00_traits.txt",
        "root:repo/common/empty/../traits/00_traits.txt",
        "ROOT_REPO:/common/traits/00_traits.txt",
        helpers.file_uri(t.repo .. "/common/traits/00_traits.txt"),
      } do
        local res = ok(text)
        assert.are.equal(want, tostring(res.ref), text)
      end
      assert.are.equal("root:repo", tostring(ok("root:repo").ref))
      assert.are.equal("", ok("root:repo").relative_path)
    end)

    it("maps a host path under a base to its address", function()
      local want = "root:repo/common/traits/00_traits.txt"
      assert.are.equal(want, tostring(ok(t.repo .. "/common/traits/00_traits.txt").ref))
      assert.are.equal(want, tostring(ok(helpers.host(t.repo .. "/common/traits/00_traits.txt")).ref))
    end)

    it("follows an inward symlink and keeps its name", function()
      helpers.skip_on_windows(helpers.WINE_DIR_LINK)
      assert.are.equal("root:repo/inner/traits/00_traits.txt",
                       tostring(ok("root:repo/inner/traits/00_traits.txt").ref))
    end)

    it("resolves mods, with and without the legacy alias", function()
      local res = ok("mod:Some Mod/descriptor.mod")
      assert.are.equal("mod:Some Mod/descriptor.mod", tostring(res.ref))
      assert.is_nil(res.root_category)
      assert.are.equal("Some Mod", res.mod_name)
      assert.are.equal("descriptor.mod", res.relative_path)
      assert.are.equal("mod:Some Mod/descriptor.mod", tostring(ok("mod:Some Mod:/descriptor.mod").ref))
      invalid("mod:Other/descriptor.mod", "unknown_mod")
    end)

    it("is a record pairs() walks, as the documentation says", function()
      local function fields(res)
        local out, keys = {}, {}
        for k, v in pairs(res) do
          out[k] = v
          keys[#keys + 1] = k
        end
        return out, keys
      end
      local res = ok("mod:Some Mod/descriptor.mod")
      local got, keys = fields(res)
      assert.are.same({ "ok", "ref", "mod_name", "relative_path", "exists", "reason" }, keys)
      assert.are.same({ ok = true, ref = res.ref, mod_name = "Some Mod",
                        relative_path = "descriptor.mod", exists = true, reason = "ok" }, got)
      got, keys = fields(ok("root:repo/common"))
      assert.are.same({ "ok", "ref", "root_category", "relative_path", "exists", "reason" }, keys)
      assert.are.equal("repo", got.root_category)
      got = fields(r:resolve("root:repo/../../etc"))
      assert.are.same({ ok = false, error_message = "Invalid path / not found",
                        reason = got.reason }, got)
      assert.is_string(got.reason)
    end)

    it("resolves relative text only against a base", function()
      invalid("traits/00_traits.txt", "relative_without_base")
      local res = ok("traits/00_traits.txt", { base = "root:repo/common" })
      assert.are.equal("root:repo/common/traits/00_traits.txt", tostring(res.ref))
      local base = ok("root:repo/common").ref
      assert.are.equal("root:repo/common/traits", tostring(ok("traits", { base = base }).ref))
      assert.are.equal("root:repo/a b", tostring(ok("../a b", { base = base }).ref))
    end)

    it("refuses escapes, unknown roots, syntax errors with the one message", function()
      invalid("root:repo/../outside/secret.txt", "escapes_root")
      invalid("root:repo/escape/secret.txt")
      invalid("root:nope/x", "unknown_root")
      invalid(t.outside .. "/secret.txt", "outside_bases")
      invalid("root:repo/common/missing.txt", "not_found")
      invalid("")
      invalid("http://example.com/x")
      invalid("../x", "escapes_root", { base = "root:repo" })
    end)

    it("refuses a path through an outward link even when it need not exist", function()
      invalid("root:repo/escape/secret.txt", nil, { require_exists = false })
      invalid("root:repo/escape/new", nil, { require_exists = false })
    end)

    it("refuses a dangling link leading out even when it need not exist", function()
      helpers.skip_on_windows(helpers.WINE_FILE_LINK)
      invalid("root:repo/dangling", nil, { require_exists = false })
    end)

    it("accepts a missing target when require_exists is false", function()
      local res = ok("root:repo/common/new/file.txt", { require_exists = false })
      assert.is_false(res.exists)
      assert.are.equal("common/new/file.txt", res.relative_path)
      assert.is_true(ok("root:repo/common", { require_exists = false }).exists)
      assert.is_true(ok("root:repo/common", { require_exists = true }).exists)
    end)

    it("treats NUL, bad UTF-8 and over-long input as failed resolutions, not errors", function()
      local res = invalid("root:repo/common\0/x")
      assert.are.equal("encoding", res.reason)
      invalid("root:repo/\255", "encoding")
      invalid("root:repo/" .. string.rep("a", 5000), "too_long")
    end)

    it("caps the registry with the exact capacity message; failures mint nothing", function()
      local small = assert(pathgate.Resolver { roots = { repo = t.repo }, max_tokens = 2 })
      local a = small:resolve("root:repo/common")
      assert.is_false(small:resolve("root:repo/missing").ok)
      local b = small:resolve("root:repo/common/traits")
      assert.is_true(a.ok and b.ok)
      assert.are.equal(2, #small)
      local full = small:resolve("root:repo/common")
      assert.is_false(full.ok)
      assert.are.equal(CAPACITY, full.error_message)
      assert.are.equal("capacity", full.reason)
      assert.is_nil(full.ref)
      assert.are.equal(2, #small)
      assert.is_true(small:release(a.ref))
      assert.is_false(small:release(a.ref))
      assert.is_true(small:resolve("root:repo/common").ok)
    end)
  end)

  describe("refs and the registry", function()
    it("gives the host path only for refs it minted and still holds", function()
      local res = ok("root:repo/common/traits/00_traits.txt")
      local host = r:host_path(res.ref)
      assert.is_string(host)
      -- (on Windows, the root as configured, then the rest with `/`: compared
      -- with both read as host paths)
      assert.are.equal(helpers.host(t.repo .. "/common/traits/00_traits.txt"), helpers.host(host))
      -- a forged ref (right address, made-up token) and a tampered one
      local forged = assert(pathgate.VisibilityRef("123e4567-e89b-42d3-a456-426614174000",
                                                   "root:repo/common/traits/00_traits.txt"))
      assert.is_nil(r:host_path(forged))
      local tampered = assert(pathgate.VisibilityRef(res.ref:token(), "root:repo/common"))
      assert.is_nil(r:host_path(tampered))
      assert.is_false(r:release(tampered))
      -- a copy made from the ref's strings is equal and works
      local copy = assert(pathgate.VisibilityRef(res.ref:token(), res.ref:session_abs()))
      assert.is_true(copy == res.ref)
      assert.are.equal(host, r:host_path(copy))
      -- another resolver never knows it
      local other = assert(pathgate.Resolver { roots = { repo = t.repo } })
      assert.is_nil(other:host_path(res.ref))
      assert.is_true(r:release(res.ref))
      assert.is_nil(r:host_path(res.ref))
    end)

    it("builds refs from strings with nil, message, code on bad input", function()
      local v, msg, code = pathgate.VisibilityRef("x\0y", "root:repo")
      assert.is_nil(v); assert.is_string(msg); assert.is_string(code)
      raises("string expected, got no value", pathgate.VisibilityRef, "tok")
    end)

    it("keep refs valid after their resolver is collected", function()
      local refs = {}
      do
        local tmp = assert(pathgate.Resolver { roots = { repo = t.repo } })
        for i = 1, 50 do refs[i] = tmp:resolve("root:repo/common").ref end
        tmp = nil -- luacheck: ignore
      end
      helpers.full_gc()
      for i = 1, 50 do
        assert.are.equal("root:repo/common", tostring(refs[i]))
        assert.matches(UUID4, refs[i]:token())
        assert.is_true(refs[i] == refs[i])
      end
      assert.is_nil(r:host_path(refs[1]))
      refs = nil -- luacheck: ignore
      helpers.full_gc()
    end)

    it("keep refs valid after their resolver is closed", function()
      local res
      do
        local tmp <close> = assert(pathgate.Resolver { roots = { repo = t.repo } })
        res = tmp:resolve("root:repo/common")
        assert.is_true(res.ok)
      end
      assert.are.equal("root:repo/common", tostring(res.ref))
      helpers.full_gc()
      assert.are.equal("root:repo/common", tostring(res.ref))
    end)

    it("keep every field of a resolution after its resolver and its ref are gone", function()
      local res, mres
      do
        local tmp = assert(pathgate.Resolver { roots = { repo = t.repo }, mods = { M = t.mod } })
        res = tmp:resolve("root:repo/common/traits/00_traits.txt")
        mres = tmp:resolve("mod:M/descriptor.mod")
        tmp:close()
      end
      helpers.full_gc()
      do local ref <close> = res.ref end -- the ref is closed, the record stays whole
      assert.are.equal("repo", res.root_category)
      assert.are.equal("common/traits/00_traits.txt", res.relative_path)
      assert.is_true(res.ok and res.exists)
      assert.are.equal("VisibilityResolution(ok=true, ref=(closed), exists=true)", tostring(res))
      assert.is_nil(mres.root_category)
      assert.are.equal("M", mres.mod_name)
      assert.are.equal("descriptor.mod", mres.relative_path)
      assert.are.equal("mod:M/descriptor.mod", tostring(mres.ref))
    end)

    it("survive resolutions and resolvers collected in any order", function()
      for round = 1, 20 do
        local tmp = assert(pathgate.Resolver { roots = { repo = t.repo }, max_tokens = 100 })
        local keep = {}
        for i = 1, 40 do
          local res = tmp:resolve(i % 3 == 0 and "root:repo/missing" or "root:repo/common")
          if i % 2 == 0 then keep[#keep + 1] = res end
          if i % 5 == 0 then keep[#keep + 1] = res.ref end
        end
        if round % 2 == 0 then tmp:close() end
        tmp = nil -- luacheck: ignore
        collectgarbage("collect")
        for _, v in ipairs(keep) do assert.is_string(tostring(v)) end
      end
      helpers.full_gc()
    end)
  end)

  describe("objects", function()
    it("close idempotently and refuse use after close", function()
      local tmp = assert(pathgate.Resolver { roots = { repo = t.repo } })
      local res = tmp:resolve("root:repo/common")
      tmp:close()
      tmp:close()
      debug.getmetatable(tmp).__close(tmp)
      assert.are.equal("pathgate.Resolver (closed)", tostring(tmp))
      raises("attempt to use a closed pathgate.Resolver", tmp.resolve, tmp, "root:repo")
      raises("attempt to use a closed pathgate.Resolver", function() return #tmp end)
      raises("attempt to use a closed pathgate.Resolver", tmp.host_path, tmp, res.ref)
      local ref = res.ref
      do local closing <close> = ref end
      assert.are.equal("pathgate.VisibilityRef (closed)", tostring(ref))
      raises("attempt to use a closed pathgate.VisibilityRef", ref.token, ref)
      -- the resolution still hands out the (closed) ref it cached
      assert.is_true(rawequal(ref, res.ref))
    end)

    it("raise on misuse of resolve, host_path and release", function()
      raises("string expected, got number", r.resolve, r, 42)
      raises("string expected, got no value", r.resolve, r)
      raises("pathgate.Resolver expected, got string", r.resolve, "root:repo", "x")
      raises("table expected, got string", r.resolve, r, "root:repo", "nope")
      raises("unknown option 'require'", r.resolve, r, "root:repo", { require = false })
      raises("option 'require_exists' must be a boolean, got string", r.resolve, r, "root:repo",
             { require_exists = "no" })
      raises("option 'base' must be a string or pathgate.VisibilityRef, got number", r.resolve, r,
             "x", { base = 1 })
      raises("pathgate.VisibilityRef expected, got string", r.host_path, r, "root:repo")
      raises("pathgate.VisibilityRef expected, got nil", r.release, r, nil)
    end)

    it("interleave resolves across coroutines", function()
      local targets = { "root:repo/common", "root:game/readme.txt", "mod:Some Mod/descriptor.mod",
                        "root:repo/common/traits/00_traits.txt" }
      local cos, results = {}, {}
      for c = 1, #targets do
        results[c] = {}
        cos[c] = coroutine.create(function()
          for i = 1, 50 do
            local res = r:resolve(targets[c])
            coroutine.yield()
            results[c][i] = res
            if i % 10 == 0 then collectgarbage("step") end
          end
        end)
      end
      local alive = #cos
      while alive > 0 do
        alive = 0
        for c = 1, #cos do
          if coroutine.status(cos[c]) ~= "dead" then
            assert(coroutine.resume(cos[c]))
            alive = alive + 1
          end
        end
      end
      local tokens = {}
      for c = 1, #targets do
        assert.are.equal(50, #results[c])
        for _, res in ipairs(results[c]) do
          assert.is_true(res.ok)
          assert.are.equal(targets[c], tostring(res.ref))
          assert.is_nil(tokens[res.ref:token()])
          tokens[res.ref:token()] = true
        end
      end
      assert.are.equal(200, #r)
    end)
  end)
end)
