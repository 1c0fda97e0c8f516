-- fs_spec.lua - the file operations (docs/spec.md section 7) as methods of
-- Resolver and Session: results as tables, failures as nil, message, code,
-- containment (outward symlinks, FIFOs), and per-item upload/download codes.
local pathgate = require "pathgate"
local helpers = require "helpers"

local INVALID = "Invalid path / not found"
local REMINDER = "System reminder: File exists but has empty contents"

describe("file operations", function()
  local t, r

  local function no_host_path(str)
    assert.is_nil(str:find(t.top, 1, true), "host path leaked: " .. str)
  end

  local function refused(code, message, v, msg, c)
    assert.is_nil(v)
    assert.are.equal(code, c)
    if message then assert.are.equal(message, msg) end
    no_host_path(msg)
  end

  local read_file = helpers.slurp

  local function paths(list)
    local out = {}
    for i, e in ipairs(list) do out[i] = e.path end
    return out
  end

  before_each(function()
    t = { top = helpers.tmpdir() }
    t.repo, t.outside = t.top .. "/repo", t.top .. "/outside"
    helpers.mkdir(t.repo .. "/dir/sub")
    helpers.mkdir(t.repo .. "/.hidden")
    helpers.mkdir(t.outside)
    helpers.write(t.outside .. "/secret.txt", "SECRET needle\n")
    helpers.write(t.repo .. "/a.txt", "alpha\nbeta\ngamma\n")
    helpers.write(t.repo .. "/crlf.txt", "one\r\ntwo\r\nthree\r\n")
    helpers.write(t.repo .. "/empty.txt", "")
    helpers.write(t.repo .. "/bin.dat", "\0\1\255")
    local lines = {}
    for i = 1, 10000 do lines[i] = "line " .. i end
    helpers.write(t.repo .. "/big.txt", table.concat(lines, "\n") .. "\n")
    helpers.write(t.repo .. "/name with space.txt", "spaced\n")
    helpers.write(t.repo .. "/dir/sub/deep.txt", "deep needle\n")
    helpers.write(t.repo .. "/dir/x.py", "print('needle')\n")
    helpers.write(t.repo .. "/.hidden/s.txt", "hidden needle\n")
    local links = { { "../outside", t.repo .. "/link_out_dir" } }
    if helpers.file_links then -- (not under wine: "file links" below skips there)
      table.insert(links, { "a.txt", t.repo .. "/link_in" })
      table.insert(links, { "../outside/secret.txt", t.repo .. "/link_out" })
      table.insert(links, { "../outside/newfile", t.repo .. "/dangling_out" })
    end
    helpers.symlinks(links)
    if not helpers.windows then -- (Windows has no FIFO: "refuses a FIFO" skips there)
      local _, ok = helpers.sh("mkfifo " .. helpers.sh_quote(t.repo .. "/fifo"))
      assert(ok)
    end
    r = assert(pathgate.Resolver { roots = { { "repo", t.repo } } })
  end)
  after_each(function() helpers.rmtree(t.top) end)

  it("ls lists sorted entries with metadata and skips what leads out", function()
    local list = assert(r:ls("root:repo"))
    local want = {
      "root:repo/.hidden/", "root:repo/a.txt", "root:repo/big.txt", "root:repo/bin.dat",
      "root:repo/crlf.txt", "root:repo/dir/", "root:repo/empty.txt", "root:repo/link_in",
      "root:repo/name with space.txt",
    }
    if not helpers.file_links then table.remove(want, 8) end
    assert.are.same(want, paths(list))
    assert.is_true(list[1].is_dir)
    assert.are.equal(0, list[1].size)
    assert.is_false(list[2].is_dir)
    assert.are.equal(17, list[2].size)
    assert.matches("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d+%+00:00$", list[2].modified_at)
    refused("not_found", "Directory 'root:repo/nope' not found", r:ls("root:repo/nope"))
    refused("not_a_directory", "'root:repo/a.txt' is not a directory", r:ls("root:repo/a.txt"))
    refused("invalid_path", INVALID, r:ls("root:repo/link_out_dir"))
    -- metadata false: the same entries and kinds, no size or time
    local bare = assert(r:ls("root:repo", { metadata = false }))
    assert.are.same(paths(list), paths(bare))
    for i, e in ipairs(bare) do
      assert.are.equal(list[i].is_dir, e.is_dir)
      assert.is_nil(e.size)
      assert.is_nil(e.modified_at)
    end
    assert.are.equal(17, assert(r:ls("root:repo", { metadata = true }))[2].size)
    refused("invalid_path", INVALID, r:ls(t.outside))
  end)

  it("read gives a line window, the reminder, or base64", function()
    local res = assert(r:read("root:repo/a.txt"))
    assert.are.equal("alpha\nbeta\ngamma", res.content)
    assert.are.equal("utf-8", res.encoding)
    assert.are.equal(3, res.total_lines)
    assert.are.equal(1, res.start_line)
    assert.are.equal(3, res.end_line)
    assert.is_nil(res.next_offset)
    res = assert(r:read("root:repo/a.txt", 1, 1))
    assert.are.equal("beta", res.content)
    assert.are.equal(2, res.next_offset)
    assert.are.equal("one\ntwo\nthree", r:read("root:repo/crlf.txt").content)
    res = assert(r:read("root:repo/big.txt"))
    assert.are.equal(10000, res.total_lines)
    assert.are.equal(2000, res.next_offset)
    assert.are.equal("line 10000", r:read("root:repo/big.txt", 9999).content)
    res = assert(r:read("root:repo/empty.txt"))
    assert.is_true(res.empty)
    assert.are.equal(REMINDER, res.content)
    res = assert(r:read("root:repo/bin.dat"))
    assert.are.equal("base64", res.encoding)
    assert.are.equal("AAH/", res.content)
    assert.is_true(assert(r:read("root:repo/missing", 0, 0)).no_lines_requested)
    refused("out_of_range", "Line offset 3 exceeds file length (3 lines)", r:read("root:repo/a.txt", 3))
    refused("not_found", "File 'root:repo/missing' not found", r:read("root:repo/missing"))
    refused("is_directory", "'root:repo/dir' is a directory", r:read("root:repo/dir"))
    refused("invalid_path", INVALID, r:read(t.outside .. "/secret.txt"))
    assert.has_error(function() r:read(1) end)
  end)

  it("follows file links inward and refuses them outward", function()
    helpers.skip_on_windows(helpers.WINE_FILE_LINK)
    assert.are.equal("alpha", r:read("root:repo/link_in", 0, 1).content)
    refused("invalid_path", INVALID, r:read("root:repo/link_out"))
    refused("invalid_path", INVALID, r:write("root:repo/dangling_out", "x"))
    assert.is_nil(read_file(t.outside .. "/newfile"))
    assert.are.same({ { path = "root:repo/dangling_out", error = "invalid_path" } },
                    assert(r:upload_files { { "root:repo/dangling_out", "x" } }))
    assert.is_nil(read_file(t.outside .. "/newfile"))
    assert.are.same({ { path = "root:repo/link_out", error = "invalid_path" } },
                    assert(r:download_files { "root:repo/link_out" }))
    assert.are.same({}, assert(r:grep("SECRET")))
    assert.are.equal("SECRET needle\n", read_file(t.outside .. "/secret.txt"))
  end)

  it("refuses a FIFO for read and write", function()
    helpers.skip_on_windows("Windows has no FIFO")
    refused("not_regular_file", "'root:repo/fifo' is not a regular file", r:read("root:repo/fifo"))
    refused("not_regular_file", nil, r:write("root:repo/fifo", "x"))
  end)

  it("write and delete are contained", function()
    assert.are.equal("root:repo/n/m/x.txt", r:write("root:repo/n/m/x.txt", "hi\0there"))
    assert.are.equal("hi\0there", read_file(t.repo .. "/n/m/x.txt"))
    refused("invalid_path", INVALID, r:write("root:repo/link_out_dir/n", "x"))
    refused("is_directory", "'root:repo/dir' is a directory", r:write("root:repo/dir", "x"))
    assert.are.equal("root:repo/dir", r:delete("root:repo/dir"))
    assert.is_nil(read_file(t.repo .. "/dir/x.py"))
    refused("not_found", "File 'root:repo/dir' not found", r:delete("root:repo/dir"))
    refused("permission_denied", "Permission denied: 'root:repo'", r:delete("root:repo"))
    refused("invalid_path", INVALID, r:delete("root:repo/link_out_dir"))
    assert.are.equal("SECRET needle\n", read_file(t.outside .. "/secret.txt"))
  end)

  it("edit replaces text in place, atomically", function()
    local addr, n = r:edit("root:repo/a.txt", "beta", "BETA")
    assert.are.equal("root:repo/a.txt", addr)
    assert.are.equal(1, n)
    refused("edit_failed", "String not found in file: 'zeta'", r:edit("root:repo/a.txt", "zeta", "x"))
    refused("edit_ambiguous", "String 'a' appears 4 times in file.", r:edit("root:repo/a.txt", "a", "4"))
    -- a dry run counts and writes nothing
    assert.are.equal(4, select(2, r:edit("root:repo/a.txt", "a", "4", true, { dry_run = true })))
    assert.are.equal("alpha\nBETA\ngamma\n", read_file(t.repo .. "/a.txt"))
    assert.are.equal(4, select(2, r:edit("root:repo/a.txt", "a", "4", true)))
    refused("edit_failed", "old_string must not be empty", r:edit("root:repo/a.txt", "", "x"))
    assert(r:edit("root:repo/crlf.txt", "one\ntwo", "1\n2"))
    assert.are.equal("1\r\n2\r\nthree\r\n", read_file(t.repo .. "/crlf.txt"))
  end)

  it("grep and glob search inside only", function()
    local m, truncated = assert(r:grep("needle"))
    assert.is_false(truncated)
    assert.are.same({
      { path = "root:repo/.hidden/s.txt", line = 1, text = "hidden needle" },
      { path = "root:repo/dir/sub/deep.txt", line = 1, text = "deep needle" },
      { path = "root:repo/dir/x.py", line = 1, text = "print('needle')" },
    }, m)
    assert.are.same({ "root:repo/dir/x.py" }, paths((r:grep("needle", { glob = "*.py" }))))
    m, truncated = r:grep("needle", "root:repo", { max_count = 2 })
    assert.are.equal(2, #m)
    assert.is_true(truncated)
    assert.are.same({ { path = "root:repo/crlf.txt", line = 2, text = "two" } },
      (r:grep("tw", "root:repo/crlf.txt")))
    assert.are.equal(9999, r:grep("line 9999", "root:repo/big.txt")[1].line)
    refused("invalid_argument", nil, r:grep("a\nb"))
    refused("invalid_path", INVALID, r:grep("x", "root:repo/link_out_dir"))
    assert.has_error(function() r:grep("x", { max_count = -1 }) end)

    assert.are.same({ "root:repo/a.txt", "root:repo/big.txt", "root:repo/crlf.txt",
      "root:repo/dir/sub/deep.txt", "root:repo/empty.txt", "root:repo/name with space.txt" },
      paths(assert(r:glob("*.txt"))))
    assert.are.same({ "root:repo/.hidden/s.txt" }, paths(r:glob(".hidden/*")))
    assert.are.same({ "root:repo/dir/x.py" }, paths(r:glob("**/*.{py,c}")))
    local g = assert(r:glob("a.txt", { metadata = true }))
    assert.are.equal(17, g[1].size)
    assert.is_nil(r:glob("a.txt")[1].size)
    for _, e in ipairs(r:glob("**/*")) do
      assert.is_nil(e.path:find("out", 1, true))
      assert.is_nil(e.path:find("fifo", 1, true))
    end
    refused("not_a_directory", nil, r:glob("*", "root:repo/a.txt"))
  end)

  it("takes grep's options in one table, as Python takes them by keyword", function()
    local m = assert(r:grep("NEEDLE", "root:repo/dir", { ignore_case = true, glob = "*.py" }))
    assert.are.same({ "root:repo/dir/x.py" }, paths(m))
    m = assert(r:grep("^(deep|hidden) ", { regex = true, max_count = 1, threads = 1 }))
    assert.are.same({ "root:repo/.hidden/s.txt" }, paths(m))
    assert.are.same({ "root:repo/dir/sub/deep.txt" }, paths(assert(r:grep("needle", nil, { glob = "**/*.txt" }))))
    local function raises(pattern, ...)
      local args = table.pack(...)
      local ok, err = pcall(function() return r:grep(table.unpack(args, 1, args.n)) end)
      assert.is_false(ok)
      assert.matches(pattern, err)
    end
    raises("bad argument #3 to 'grep' %(unknown option 'regexp'%)", "x", "root:repo", { regexp = true })
    raises("bad argument #2 to 'grep' %(unknown option 'ignorecase'%)", "x", { ignorecase = true })
    raises("bad argument #3 to 'grep' %(options table expected, got string%)", "x", "root:repo", "*.c")
    raises("bad argument #4 to 'grep' %(no more arguments expected%)", "x", "root:repo", {}, 5)
    raises("option 'regex': boolean expected, got number", "x", { regex = 1 })
    raises("option 'glob': string expected, got boolean", "x", { glob = true })
    raises("option 'max_count': integer expected, got string", "x", { max_count = "2" })
    raises("threads must be between 0 %(every core%) and 1024", "x", { threads = 2000 })
    raises("max_file_size must be > 0", "x", { max_file_size = 0 })
    assert.has_error(function() r:glob("*", nil, { glob = "x" }) end)
    assert.has_error(function() r:read("root:repo/a.txt", 0, 1, {}, true) end)
    assert.has_error(function() r:write("root:repo/a.txt", "x", {}) end)
    -- extra nils are nothing, as in any Lua call
    assert.are.equal(3, #assert(r:grep("needle", nil, nil, nil)))
  end)

  it("upload_files and download_files answer per item", function()
    local up = assert(r:upload_files {
      { "root:repo/up/one.bin", "\0\1\2" },
      { "root:repo/dir", "x" },
      { "nowhere:x", "x" },
    })
    assert.are.same({
      { path = "root:repo/up/one.bin" },
      { path = "root:repo/dir", error = "is_directory" },
      { path = "nowhere:x", error = "invalid_path" },
    }, up)
    local down = assert(r:download_files { "root:repo/up/one.bin", "root:repo/missing",
                                           "root:repo/dir" })
    assert.are.same({
      { path = "root:repo/up/one.bin", content = "\0\1\2" },
      { path = "root:repo/missing", error = "file_not_found" },
      { path = "root:repo/dir", error = "is_directory" },
    }, down)
    assert.are.same({}, r:upload_files {})
    assert.has_error(function() r:upload_files { { "root:repo/x", 1 } } end)
    assert.has_error(function() r:download_files { 1 } end)
  end)

  it("a session resolves relative paths against its cwd", function()
    local s = assert(pathgate.Session(r))
    assert(s:push("dir"))
    assert.are.same({ "root:repo/dir/sub/deep.txt" }, paths(s:ls("sub")))
    assert.are.equal("print('needle')", s:read("x.py").content)
    assert.are.equal("root:repo/dir/made.txt", s:write("made.txt", "m"))
    assert.are.equal(2, #s:grep("needle"))
    assert.are.same({ "root:repo/dir/x.py" }, paths(s:glob("*.py")))
    refused("invalid_path", INVALID, s:read("../../outside/secret.txt"))
    assert.are.equal(0, r:count())
    s:close()
    assert.has_error(function() s:ls("sub") end)
  end)

  it("a resolver reads relative paths from its first base, as a new session", function()
    assert.are.same({ "root:repo/dir/sub/deep.txt" }, paths(r:ls("dir/sub")))
    assert.are.equal("alpha\nbeta\ngamma", r:read("a.txt").content)
    assert.are.equal("root:repo/dir/new.txt", r:write("dir/new.txt", "n"))
    assert.are.same(paths(pathgate.Session(r):ls(".")), paths(r:ls(".")))
    refused("invalid_path", INVALID, r:read("../outside/secret.txt"))
    assert.are.equal(0, r:count())
  end)

  it("read says whether the window's last line had a line break", function()
    assert.is_true(r:read("root:repo/a.txt").final_newline)
    assert.is_true(r:read("root:repo/crlf.txt", 1, 1).final_newline)
    helpers.write(t.repo .. "/open.txt", "x\ny")
    assert.is_false(r:read("root:repo/open.txt").final_newline)
    assert.is_true(r:read("root:repo/open.txt", 0, 1).final_newline)
  end)

  it("misuse raises", function()
    assert.has_error(function() pathgate.Resolver.ls({}, "root:repo") end)
    r:close()
    assert.has_error(function() r:ls("root:repo") end)
  end)
end)
