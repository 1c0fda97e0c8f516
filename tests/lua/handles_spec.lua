-- handles_spec.lua - real Lua file handles and the toolkit (issue 26):
-- obj:open gives io library handles (io.type, lines, read, seek), writes
-- are atomic (an error leaving a <close> scope or an unclosed handle keeps
-- the old content), scandir and walk iterate lazily, and exists, copy,
-- link, symlink, readlink, chmod, utime, remove_tree, lstat and subroot
-- answer with the Lua conventions (nil, message, code), contained like every
-- other operation.
local pathgate = require "pathgate"
local H = require "helpers"

local slurp = H.slurp

local function no_temp_files(dir)
  for _, name in ipairs(H.listdir(dir)) do assert.is_nil(name:find(".pathgate-", 1, true)) end
end

describe("handles", function()
  local t, r
  before_each(function()
    t = H.make_tree()
    r = pathgate.Resolver{ roots = { repo = t.repo, game = t.game }, mods = { Some = t.mod },
                           read_only = { "game" } }
  end)
  after_each(function() r:close(); H.rmtree(t.top) end)

  it("opens real io handles for reading", function()
    local f = assert(r:open("root:repo/common/traits/00_traits.txt"))
    assert.equal("file", io.type(f))
    assert.equal("trait", f:read(5))
    assert.equal(5, f:seek("cur"))
    assert.equal(" = 1\n", f:read("a"))
    f:seek("set", 0)
    local lines = {}
    for l in f:lines() do lines[#lines + 1] = l end
    assert.same({ "trait = 1" }, lines)
    assert.is_true(f:close())
    assert.equal("closed file", io.type(f))
    -- the io library's functions take it too
    local g = assert(r:open("root:game/readme.txt", "rb"))
    assert.equal("game\n", io.input(g):read("a"))
    io.input(io.stdin)
    g:close()
  end)

  it("lines is io.lines over an address", function()
    H.write(t.repo .. "/l.txt", "a\nbb\nccc")
    local got = {}
    for l in r:lines("root:repo/l.txt") do got[#got + 1] = l end
    assert.same({ "a", "bb", "ccc" }, got)
    got = {}
    for a, b in r:lines("root:repo/l.txt", 1, "L") do got[#got + 1] = a .. "|" .. b end
    assert.same({ "a|\n", "b|b\n", "c|cc" }, got)
    assert.has_error(function() r:lines("root:repo/none") end, "File 'root:repo/none' not found")
  end)

  it("refuses what it must, with the Lua conventions", function()
    local f, msg, code = r:open("root:repo/escape/secret.txt")
    assert.is_nil(f)
    assert.equal("Invalid path / not found", msg)
    assert.equal("invalid_path", code)
    f, msg, code = r:open("root:repo/common")
    assert.equal("is_directory", code)
    assert.is_nil(msg:find(t.top, 1, true))
    f, msg, code = r:open("root:game/readme.txt", "w")
    assert.equal("permission_denied", code)
    assert.has_error(function() r:open("root:repo/x", "rw") end)
    assert.has_error(function() r:open("root:repo/x", "r", "extra") end)
    assert.has_error(function() r:open(42) end)
  end)

  it("refuses to write through a dangling link leading out", function()
    H.skip_on_windows(H.WINE_FILE_LINK)
    local f, _, code = r:open("root:repo/dangling", "w")
    assert.is_nil(f)
    assert.equal("invalid_path", code)
    assert.is_nil(slurp(t.outside .. "/missing"))
  end)

  it("writes atomically: the name is taken on close", function()
    local p = t.repo .. "/common/traits/00_traits.txt"
    local f = assert(r:open("root:repo/common/traits/00_traits.txt", "w"))
    f:write("trait = 2\n")
    f:flush()
    assert.equal("trait = 1\n", slurp(p))
    assert.is_true(f:close())
    assert.equal("trait = 2\n", slurp(p))
    no_temp_files(t.repo .. "/common/traits")
    -- append and update start from the old content
    f = assert(r:open("root:repo/common/traits/00_traits.txt", "a"))
    f:write("more\n")
    f:close()
    assert.equal("trait = 2\nmore\n", slurp(p))
    f = assert(r:open("root:repo/common/traits/00_traits.txt", "r+"))
    assert.equal("trait", f:read(5))
    f:seek("set", 0)
    f:write("TRAIT")
    f:close()
    assert.equal("TRAIT = 2\nmore\n", slurp(p))
    -- x: only a new name
    f = assert(r:open("root:repo/new.txt", "x"))
    f:write("n")
    f:close()
    assert.equal("n", slurp(t.repo .. "/new.txt"))
    local _, _, code = r:open("root:repo/new.txt", "x")
    assert.equal("already_exists", code)
  end)

  it("keeps the old content when a <close> scope fails or the handle is dropped", function()
    local p = t.repo .. "/common/traits/00_traits.txt"
    local ok = pcall(function()
      local f <close> = assert(r:open("root:repo/common/traits/00_traits.txt", "w"))
      f:write("half")
      error("crash")
    end)
    assert.is_false(ok)
    assert.equal("trait = 1\n", slurp(p))
    do
      local f <close> = assert(r:open("root:repo/common/traits/00_traits.txt", "a"))
      f:write("ok\n")
    end
    assert.equal("trait = 1\nok\n", slurp(p))
    do
      local f = assert(r:open("root:repo/common/traits/00_traits.txt", "w"))
      f:write("dropped")
      f = nil -- luacheck: ignore
    end
    H.full_gc()
    assert.equal("trait = 1\nok\n", slurp(p))
    no_temp_files(t.repo .. "/common/traits")
  end)
end)

describe("handles on a FIFO", function()
  it("refuses to open one", function()
    H.skip_on_windows("Windows has no FIFO")
    local top = H.tmpdir()
    local r = pathgate.Resolver{ roots = { repo = top } }
    H.sh("mkfifo " .. H.sh_quote(top .. "/fifo"))
    local f, _, code = r:open("root:repo/fifo")
    r:close()
    H.rmtree(top)
    assert.is_nil(f)
    assert.equal("not_regular_file", code)
  end)
end)

describe("iterators", function()
  local t, r
  before_each(function()
    t = H.make_tree()
    r = pathgate.Resolver{ roots = { repo = t.repo } }
  end)
  after_each(function() r:close(); H.rmtree(t.top) end)

  it("scandir gives entries in name order, size on demand", function()
    local got = {}
    for e in r:scandir("root:repo") do got[#got + 1] = e end
    local names = {}
    for i, e in ipairs(got) do names[i] = e.name .. ":" .. e.kind end
    local want = { "a b:directory", "common:directory", "dangling:symlink", "escape:symlink",
                   "inner:symlink" }
    if not H.file_links then table.remove(want, 3) end -- (H.WINE_FILE_LINK)
    assert.same(want, names)
    assert.equal("root:repo/common", got[2].path)
    assert.equal(got[2].path, got[2].address)
    assert.is_nil(got[4].size) -- leads out: nothing to ask
    local f
    for e in r:scandir("root:repo/common/traits") do f = e end
    assert.equal(10, f.size)
    assert.has_error(function() for _ in r:scandir("root:repo/escape") do end end,
                     "Invalid path / not found")
    assert.has_error(function() r:scandir("root:repo/common/traits/00_traits.txt") end,
                     "'root:repo/common/traits/00_traits.txt' is not a directory")
  end)

  it("walk is os.walk over addresses, pruned by editing dirs", function()
    local got = {}
    for dir, dirs, files in r:walk("root:repo") do
      got[#got + 1] = dir .. " [" .. table.concat(dirs, ",") .. "] [" .. table.concat(files, ",") .. "]"
    end
    -- (under wine, the inward link `inner` is refused like every link: H.WINE_DIR_LINK)
    assert.same({ H.windows and "root:repo [a b,common] []" or "root:repo [a b,common,inner] []",
                  "root:repo/a b [] [\195\169.txt]",
                  "root:repo/common [empty,traits] []", "root:repo/common/empty [] []",
                  "root:repo/common/traits [] [00_traits.txt]" }, got)
    got = {}
    for dir, dirs in r:walk("root:repo") do
      got[#got + 1] = dir
      for i = #dirs, 1, -1 do if dirs[i] == "common" then table.remove(dirs, i) end end
    end
    assert.same({ "root:repo", "root:repo/a b" }, got)
    got = {}
    for dir in r:walk("root:repo/common", { topdown = false }) do got[#got + 1] = dir end
    assert.same({ "root:repo/common/empty", "root:repo/common/traits", "root:repo/common" }, got)
    -- breaking out closes it
    for _ in r:walk("root:repo") do break end
    assert.has_error(function() r:walk("root:repo", { depth = 1 }) end)
    assert.has_error(function() r:walk("root:repo/nothing") end,
                     "Directory 'root:repo/nothing' not found")
  end)
end)

describe("the toolkit", function()
  local t, r
  before_each(function()
    t = H.make_tree()
    r = pathgate.Resolver{ roots = { repo = t.repo, game = t.game }, read_only = { "game" } }
  end)
  after_each(function() r:close(); H.rmtree(t.top) end)

  it("exists and isdir see through an inward link", function()
    H.skip_on_windows(H.WINE_DIR_LINK)
    assert.is_true(r:exists("root:repo/inner"))
    assert.is_true(r:isdir("root:repo/inner"))
  end)

  it("exists, isdir, isfile", function()
    assert.is_true(r:isdir("root:repo/common"))
    assert.is_true(r:isfile("root:repo/common/traits/00_traits.txt"))
    for _, bad in ipairs({ "root:repo/escape", "root:repo/dangling", "root:repo/none",
                           "root:repo/a\0b", "", t.outside }) do
      assert.is_false(r:exists(bad))
    end
  end)

  it("copy, link, symlink, readlink", function()
    assert.equal("root:repo/readme.txt", r:copy("root:game/readme.txt", "root:repo/readme.txt"))
    assert.equal("game\n", slurp(t.repo .. "/readme.txt"))
    local ok, msg, code = r:copy("root:game/readme.txt", "root:repo/readme.txt")
    assert.equal("already_exists", code)
    assert.truthy(r:copy("root:repo/common/traits/00_traits.txt", "root:repo/readme.txt",
                         { replace = true }))
    assert.equal("trait = 1\n", slurp(t.repo .. "/readme.txt"))
    ok, msg, code = r:copy("root:repo/readme.txt", "root:game/x")
    assert.equal("permission_denied", code)
    assert.truthy(r:link("root:repo/readme.txt", "root:repo/hard"))
    assert.equal("trait = 1\n", slurp(t.repo .. "/hard"))
    ok, msg, code = r:readlink("root:repo/escape")
    assert.equal("invalid_path", code)
    ok, msg, code = r:readlink("root:repo/readme.txt")
    assert.equal("not_a_symlink", code)
  end)

  it("symlink makes links inside only, readlink reads them", function()
    H.skip_on_windows("wine 8 cannot make links (CreateSymbolicLinkW creates nothing)")
    assert.truthy(r:symlink("../readme.txt", "root:repo/common/up"))
    assert.equal("../readme.txt", r:readlink("root:repo/common/up"))
    local _, _, code = r:symlink("../../outside/secret.txt", "root:repo/common/evil")
    assert.equal("invalid_argument", code)
  end)

  it("chmod sets permission bits", function()
    H.skip_on_windows("Windows keeps a read-only flag, not POSIX permission bits")
    assert.truthy(r:chmod("root:repo/common/traits/00_traits.txt", tonumber("600", 8)))
    assert.equal(600, tonumber(string.format("%o", r:stat("root:repo/common/traits/00_traits.txt").mode)))
  end)

  it("lstat names a link and refuses one leading out", function()
    local _, _, code = r:lstat("root:repo/escape")
    assert.equal("invalid_path", code)
    if H.windows then
      -- (H.WINE_DIR_LINK: an inward link's target is unread there, so it
      -- is taken to lead out as well)
      _, _, code = r:lstat("root:repo/inner")
      assert.equal("invalid_path", code)
      H.skip_on_windows(H.WINE_DIR_LINK)
    end
    assert.equal("symlink", r:lstat("root:repo/inner").type)
  end)

  it("chmod, utime, subroot", function()
    local _, _, code = r:chmod("root:repo/common/traits/00_traits.txt", tonumber("4755", 8))
    assert.equal("invalid_argument", code)
    assert.truthy(r:utime("root:repo/common/traits/00_traits.txt", 1000.5, 2000))
    local st = r:stat("root:repo/common/traits/00_traits.txt")
    assert.truthy(st.modified_at:find("^1970%-01%-01T00:33:20"))
    local sub = assert(r:subroot("root:repo/common"))
    assert.equal("common", sub:resolve("root:common").root_category)
    assert.equal("trait = 1", sub:read("root:common/traits/00_traits.txt").content)
    _, _, code = sub:read("root:common/../inner")
    assert.equal("invalid_path", code)
    local s2, msg
    s2, msg, code = r:subroot("root:repo/escape")
    assert.is_nil(s2)
    assert.equal("invalid_path", code)
    _, msg, code = r:remove_tree("root:repo")
    assert.equal("permission_denied", code)
    assert.equal("secret\n", slurp(t.outside .. "/secret.txt"))
  end)

  it("remove_tree removes a tree, and nothing is fine", function()
    assert.truthy(r:remove_tree("root:repo/common"))
    assert.is_false(r:exists("root:repo/common"))
    assert.truthy(r:remove_tree("root:repo/common")) -- nothing there: fine
    assert.equal("secret\n", slurp(t.outside .. "/secret.txt"))
  end)
end)
