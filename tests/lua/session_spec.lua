-- session_spec.lua - pathgate.Session: home root, working-directory stack,
-- every message of docs/spec.md section 6, lifetime against its resolver.
local pathgate = require "pathgate"
local helpers = require "helpers"

local INVALID = "Invalid path / not found"

local function raises(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error matching " .. pattern)
  assert.matches(pattern, err, 1, true)
end

describe("Session", function()
  local t, r, s

  local function no_host_path(str)
    assert.is_nil(str:find(t.top, 1, true), "host path leaked: " .. str)
  end

  local function refused(code, message, v, msg, c)
    assert.is_nil(v)
    assert.are.equal(code, c)
    if message then assert.are.equal(message, msg) end
    assert.is_string(msg)
    no_host_path(msg)
  end

  setup(function()
    t = helpers.make_tree()
    -- a deep chain of directories for the overflow test
    helpers.mkdir(t.repo .. "/deep/a")
    helpers.mkdir(t.repo .. "/deep/b")
  end)
  teardown(function() helpers.rmtree(t.top) end)
  before_each(function()
    r = assert(pathgate.Resolver { roots = { { "repo", t.repo }, { "game", t.game } },
                                   mods = { ["Some Mod"] = t.mod } })
    s = assert(pathgate.Session(r))
  end)

  it("starts at the first configured root with an empty stack", function()
    assert.are.equal("pathgate.Session", getmetatable(s))
    assert.are.equal("root:repo", s:pwd())
    assert.are.same({ home = "root:repo", cwd = "root:repo", depth = 0 }, s:get())
    assert.are.equal("pathgate.Session (root:repo)", tostring(s))
    local g = assert(pathgate.Session(r, "game"))
    assert.are.equal("root:game", g:pwd())
    g = assert(pathgate.Session(r, "root:game"))
    assert.are.equal("root:game", g:get().home)
  end)

  it("takes a mod as the home; with mods only, the first mod is the default", function()
    local m = assert(pathgate.Session(r, "mod:Some Mod"))
    assert.are.equal("mod:Some Mod", m:get().home)
    assert.are.equal("mod:Some Mod", m:pwd())
    assert.are.equal("mod:Some Mod/descriptor.mod", tostring(m:resolve("descriptor.mod").ref))
    assert.are.equal("mod:Some Mod", s:cd("mod:Some Mod"))
    refused("subdirectory_home", "Subdirectory homing not allowed", s:cd("mod:Some Mod/common"))
    local only = assert(pathgate.Resolver { mods = { ["Some Mod"] = t.mod } })
    assert.are.equal("mod:Some Mod", assert(pathgate.Session(only)):pwd())
  end)

  it("refuses an unknown or subdirectory home at construction", function()
    refused("unknown_root", "unknown root: nope", pathgate.Session(r, "nope"))
    refused("subdirectory_home", "Subdirectory homing not allowed", pathgate.Session(r, "root:repo/common"))
  end)

  it("cd sets the home root and clears the stack", function()
    assert.are.equal("root:repo/common", s:push("root:repo/common"))
    assert.are.equal("root:game", s:cd("root:game"))
    assert.are.same({ home = "root:game", cwd = "root:game", depth = 0 }, s:get())
    assert.are.equal("root:repo", s:cd("repo"))
    assert.are.equal("root:repo", s:pwd())
  end)

  it("cd refuses subdirectories and unknown keys, leaving the session unchanged", function()
    s:push("root:repo/common")
    refused("subdirectory_home", "Subdirectory homing not allowed", s:cd("root:repo/common"))
    refused("unknown_root", "unknown root: nope", s:cd("root:nope"))
    refused("unknown_root", "unknown root: nope", s:cd("nope"))
    assert.are.same({ home = "root:repo", cwd = "root:repo/common", depth = 1 }, s:get())
  end)

  it("push enters existing directories; relative input is relative to the cwd", function()
    assert.are.equal("root:repo/common", s:push("root:repo/common"))
    assert.are.equal("root:repo/common/traits", s:push("traits"))
    assert.are.equal("root:repo/common/traits", s:pwd())
    assert.are.equal(2, s:get().depth)
    assert.are.equal("mod:Some Mod", s:push("mod:Some Mod"))
    assert.are.equal(3, s:get().depth)
  end)

  it("push of the current directory says so and adds nothing", function()
    s:push("root:repo/common")
    assert.are.equal("already in root:repo/common", s:push("root:repo/common"))
    assert.are.equal("already in root:repo/common", s:push("."))
    assert.are.equal(1, s:get().depth)
  end)

  it("push refuses files, missing and escaping paths, leaving the stack unchanged", function()
    s:push("root:repo/common")
    refused("not_a_directory", "not a directory: root:repo/common/traits/00_traits.txt",
            s:push("traits/00_traits.txt"))
    refused("invalid_path", INVALID, s:push("root:repo/missing"))
    refused("invalid_path", INVALID, s:push("../../outside"))
    refused("invalid_path", INVALID, s:push("root:repo/escape"))
    refused("invalid_path", INVALID, s:push(t.outside))
    assert.are.same({ home = "root:repo", cwd = "root:repo/common", depth = 1 }, s:get())
  end)

  it("push stops at 100 entries", function()
    for i = 1, 100 do
      local target = i % 2 == 1 and "root:repo/deep/a" or "root:repo/deep/b"
      assert.are.equal(target, s:push(target))
    end
    assert.are.equal(100, s:get().depth)
    refused("stack_overflow", "directory stack overflow (max 100)", s:push("root:repo/common"))
    assert.are.same({ home = "root:repo", cwd = "root:repo/deep/b", depth = 100 }, s:get())
    for _ = 1, 100 do s:pop() end
    assert.are.equal(0, s:get().depth)
  end)

  it("pop restores the previous cwd exactly; an empty pop is not an error", function()
    s:push("root:repo/common")
    s:push("traits")
    assert.are.equal("root:repo/common", s:pop())
    assert.are.equal("root:repo", s:pop())
    assert.are.equal("Stack is empty, already at initial directory: root:repo", s:pop())
    s:cd("game")
    assert.are.equal("Stack is empty, already at initial directory: root:game", s:pop())
    assert.are.same({ home = "root:game", cwd = "root:game", depth = 0 }, s:get())
  end)

  it("resolves relative input against the cwd", function()
    local res = s:resolve("common/traits/00_traits.txt")
    assert.is_true(res.ok)
    assert.are.equal("root:repo/common/traits/00_traits.txt", tostring(res.ref))
    s:push("root:repo/common")
    assert.are.equal("root:repo/common/traits", tostring(s:resolve("traits").ref))
    local missing = s:resolve("new.txt", { require_exists = false })
    assert.is_true(missing.ok)
    assert.is_false(missing.exists)
    local bad = s:resolve("missing.txt")
    assert.is_false(bad.ok)
    assert.are.equal(INVALID, bad.error_message)
    assert.is_false(s:resolve("../../x", { require_exists = false }).ok)
    assert.is_true(r:host_path(res.ref) ~= nil)
  end)

  it("refuses NUL as an error, never a truncation", function()
    refused("nul_byte", nil, s:cd("game\0/x"))
    refused("invalid_path", INVALID, s:push("common\0"))
    assert.is_false(s:resolve("common\0/x").ok)
    refused("nul_byte", nil, pathgate.Session(r, "game\0"))
  end)

  it("raises on misuse", function()
    raises("pathgate.Resolver expected, got string", pathgate.Session, "root:repo")
    raises("pathgate.Resolver expected, got no value", pathgate.Session)
    raises("string expected, got number", pathgate.Session, r, 1)
    raises("string expected, got number", s.cd, s, 1)
    raises("string expected, got no value", s.push, s)
    raises("pathgate.Session expected, got pathgate.Resolver", s.pop, r)
    raises("unknown option 'base'", s.resolve, s, "x", { base = "root:repo" })
  end)

  it("keeps its resolver alive", function()
    local sess
    do
      local tmp = assert(pathgate.Resolver { roots = { repo = t.repo } })
      sess = assert(pathgate.Session(tmp))
    end
    helpers.full_gc()
    assert.are.equal("root:repo/common", sess:push("common"))
    assert.is_true(sess:resolve("traits").ok)
    sess = nil -- luacheck: ignore
    helpers.full_gc()
  end)

  it("refuses use once its resolver is closed, and frees both in any order", function()
    local tmp = assert(pathgate.Resolver { roots = { repo = t.repo } })
    local a, b = assert(pathgate.Session(tmp)), assert(pathgate.Session(tmp))
    a:push("common")
    tmp:close()
    raises("the session's pathgate.Resolver is closed", a.pwd, a)
    raises("attempt to use a closed pathgate.Resolver", pathgate.Session, tmp)
    assert.are.equal("pathgate.Session (closed)", tostring(a))
    a:close()
    a:close()
    raises("attempt to use a closed pathgate.Session", a.get, a)
    a, tmp = nil, nil -- luacheck: ignore
    helpers.full_gc()
    b = nil -- luacheck: ignore
    helpers.full_gc()
  end)

  it("closes with <close>", function()
    local keep
    do
      local sess <close> = assert(pathgate.Session(r))
      keep = sess
      sess:push("common")
    end
    assert.are.equal("pathgate.Session (closed)", tostring(keep))
    raises("attempt to use a closed pathgate.Session", keep.pop, keep)
    assert.are.equal(0, s:get().depth) -- another session on the same resolver is untouched
  end)

  it("never shows a host path", function()
    s:push("common")
    for _, v in ipairs { s:pwd(), tostring(s), s:get().cwd, s:pop(), s:pop() } do
      no_host_path(v)
    end
  end)
end)
