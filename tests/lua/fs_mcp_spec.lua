-- fs_mcp_spec.lua - the operations of the MCP server as Resolver and
-- Session methods: mkdir, move, stat, multi_edit (dry run and diff),
-- head, tail, tree; failures as nil, message, code; nothing outside
-- reached.
local pathgate = require "pathgate"
local helpers = require "helpers"

local INVALID = "Invalid path / not found"

describe("MCP file operations", function()
  local t, r

  local read_file = helpers.slurp

  before_each(function()
    t = { top = helpers.tmpdir() }
    t.repo, t.outside = t.top .. "/repo", t.top .. "/outside"
    helpers.mkdir(t.repo .. "/dir/sub")
    helpers.mkdir(t.outside)
    helpers.write(t.outside .. "/secret.txt", "SECRET\n")
    helpers.write(t.repo .. "/a.txt", "alpha\nbeta\ngamma\n")
    helpers.write(t.repo .. "/dir/sub/deep.txt", "deep\n")
    helpers.symlink("../outside", t.repo .. "/link_out_dir")
    r = assert(pathgate.Resolver { roots = { { "repo", t.repo } } })
  end)
  after_each(function() helpers.rmtree(t.top) end)

  it("mkdir creates parents and refuses to reach outside", function()
    assert.are.equal("root:repo/p/q", r:mkdir("root:repo/p/q"))
    assert.is_true(helpers.is_dir(t.repo .. "/p/q"))
    local v, msg, code = r:mkdir("root:repo/p/q", false)
    assert.is_nil(v)
    assert.are.equal("'root:repo/p/q' already exists", msg)
    assert.are.equal("already_exists", code)
    v, msg = r:mkdir("root:repo/link_out_dir/evil")
    assert.is_nil(v)
    assert.are.equal(INVALID, msg)
    assert.is_false(helpers.exists(t.outside .. "/evil"))
  end)

  it("move renames without overwriting", function()
    assert.are.equal("root:repo/dir/b.txt", r:move("root:repo/a.txt", "root:repo/dir/b.txt"))
    assert.are.equal("alpha\nbeta\ngamma\n", read_file(t.repo .. "/dir/b.txt"))
    assert.is_nil(read_file(t.repo .. "/a.txt"))
    helpers.write(t.repo .. "/c.txt", "c\n")
    local v, msg = r:move("root:repo/c.txt", "root:repo/dir/b.txt")
    assert.is_nil(v)
    assert.are.equal("'root:repo/dir/b.txt' already exists", msg)
    assert.are.equal("c\n", read_file(t.repo .. "/c.txt"))
    v, msg = r:move("root:repo/c.txt", "root:repo/link_out_dir/c.txt")
    assert.is_nil(v)
    assert.are.equal(INVALID, msg)
    assert.is_nil(read_file(t.outside .. "/c.txt"))
  end)

  it("stat answers size, type and times", function()
    local s = assert(r:stat("root:repo/a.txt"))
    assert.are.equal("root:repo/a.txt", s.path)
    assert.are.equal("file", s.type)
    assert.are.equal(17, s.size)
    assert.are.equal(32, #s.modified_at)
    assert.are.equal("directory", assert(r:stat("root:repo/dir")).type)
    local v, msg = r:stat("root:repo/link_out_dir/secret.txt")
    assert.is_nil(v)
    assert.are.equal(INVALID, msg)
  end)

  it("multi_edit applies in order, all or nothing, with a diff", function()
    local addr, diff = r:multi_edit("root:repo/a.txt", { { "alpha", "ALPHA" }, { "ALPHA\nbeta", "AB" } }, true)
    assert.are.equal("root:repo/a.txt", addr)
    assert.are.equal("--- root:repo/a.txt\n+++ root:repo/a.txt\n@@ -1,3 +1,2 @@\n"
      .. "-alpha\n-beta\n+AB\n gamma\n", diff)
    assert.are.equal("alpha\nbeta\ngamma\n", read_file(t.repo .. "/a.txt"))
    local v, msg = r:multi_edit("root:repo/a.txt", { { "alpha", "A" }, { "nope", "x" } })
    assert.is_nil(v)
    assert.are.equal("String not found in file: 'nope'", msg)
    assert.are.equal("alpha\nbeta\ngamma\n", read_file(t.repo .. "/a.txt"))
    assert.has_error(function() r:multi_edit("root:repo/a.txt", { "bad" }) end)
  end)

  it("multi_edit writes its edits", function()
    assert(r:multi_edit("root:repo/a.txt", { { "beta", "B" } }))
    assert.are.equal("alpha\nB\ngamma\n", read_file(t.repo .. "/a.txt"))
  end)

  it("head and tail", function()
    assert.are.equal("alpha\n", r:head("root:repo/a.txt", 1))
    assert.are.equal("beta\ngamma\n", r:tail("root:repo/a.txt", 2))
    assert.are.equal("alpha\nbeta\ngamma\n", r:head("root:repo/a.txt"))
    local v, msg = r:head("root:repo/dir", 1)
    assert.is_nil(v)
    assert.are.equal("'root:repo/dir' is a directory", msg)
  end)

  it("head and tail answer at most max_file_size bytes", function()
    -- a.txt is "alpha\nbeta\ngamma\n" (17 bytes): a window within the cap
    -- is answered, one larger is too_large with the size cap's message
    assert.are.equal("alpha\n", r:head("root:repo/a.txt", 1, { max_file_size = 6 }))
    assert.are.equal("gamma\n", r:tail("root:repo/a.txt", 1, { max_file_size = 6 }))
    local cap = "File 'root:repo/a.txt' is larger than the 6-byte size cap"
    for _, call in ipairs({
      function() return r:head("root:repo/a.txt", 2, { max_file_size = 6 }) end,
      function() return r:tail("root:repo/a.txt", 2, { max_file_size = 6 }) end,
      function() return r:head("root:repo/a.txt", nil, { max_file_size = 6 }) end,
    }) do
      local v, msg, code = call()
      assert.is_nil(v)
      assert.are.equal(cap, msg)
      assert.are.equal("too_large", code)
    end
    assert.are.equal("alpha\nbeta\ngamma\n", r:head("root:repo/a.txt", nil, { max_file_size = 17 }))
    assert.has_error(function() r:head("root:repo/a.txt", 1, { max_file_size = 0 }) end)
  end)

  it("tree walks depth first, excludes, and works from a session", function()
    local list, truncated = r:tree("root:repo", { "link_out_dir" })
    local paths = {}
    for i, e in ipairs(list) do paths[i] = e.path end
    assert.are.same({ "root:repo/a.txt", "root:repo/dir/", "root:repo/dir/sub/",
      "root:repo/dir/sub/deep.txt" }, paths)
    assert.is_false(truncated)
    local s = assert(pathgate.Session(r))
    assert(s:push("root:repo/dir"))
    list = assert(s:tree("sub"))
    assert.are.equal("root:repo/dir/sub/deep.txt", list[1].path)
  end)
end)
