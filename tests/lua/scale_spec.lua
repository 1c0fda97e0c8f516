-- scale_spec.lua - the scale options and iterators from Lua: regex and
-- case-insensitive grep, threads giving the same answer, the info table
-- (skipped names), read's not_text, and the for-loop iterators of grep,
-- glob and ls stopping early.
local pathgate = require "pathgate"
local helpers = require "helpers"

describe("scale", function()
  local t, r

  before_each(function()
    t = { top = helpers.tmpdir() }
    t.repo = t.top .. "/repo"
    helpers.mkdir(t.repo)
    helpers.mkdir(t.repo .. "/d")
    for i = 1, 30 do
      helpers.write(string.format("%s/d/f%02d.txt", t.repo, i), "hello one\nHELLO two\nbye\n")
    end
    helpers.write(t.repo .. "/latin1.txt", "caf\233\n")
    if not helpers.windows then -- (see "skips a name that is not UTF-8")
      helpers.write(t.repo .. "/caf\233.txt", "hello\n")
    end
    r = pathgate.Resolver { roots = { repo = t.repo } }
  end)

  after_each(function()
    r:close()
    helpers.rmtree(t.top)
  end)

  it("greps with a regex, ignoring case, on any number of threads", function()
    local m, truncated = r:grep("^h\\w+ (one|two)$",
                                      { regex = true, ignore_case = true, threads = 1 })
    assert.are.equal(60, #m)
    assert.is_false(truncated)
    assert.are.equal("root:repo/d/f01.txt", m[1].path)
    assert.are.equal("HELLO two", m[2].text)
    local m4 = r:grep("^h\\w+ (one|two)$",
                     { max_count = 7, regex = true, ignore_case = true, threads = 4 })
    assert.are.equal(7, #m4)
    for i = 1, 7 do assert.are.same(m[i], m4[i]) end
    local v, msg, code = r:grep("a(b", { regex = true })
    assert.is_nil(v)
    assert.are.equal("invalid_argument", code)
    assert.are.equal("invalid regular expression at offset 3: missing closing parenthesis", msg)
  end)

  it("says what was left out", function()
    local list = r:ls("root:repo")
    assert.are.equal(2, #list)
    local res = r:read("root:repo/latin1.txt", 0, 1)
    assert.are.equal("base64", res.encoding)
    assert.are.equal("invalid_utf8", res.not_text)
    assert.is_false(res.partial)
  end)

  it("skips a name that is not UTF-8, and says so", function()
    helpers.skip_on_windows("Windows names are UTF-16: a name that is not UTF-8 cannot be made "
      .. "there (wine shows such a Unix name with U+FFFD)")
    local _, _, info = r:grep("hello", { threads = 1 })
    assert.is_true(info.incomplete)
    assert.are.equal(1, info.skipped_names)
    local list
    list, info = r:ls("root:repo")
    assert.are.equal(2, #list)
    assert.is_true(info.incomplete)
    assert.are.equal(1, info.skipped_names)
  end)

  it("iterates grep, glob and ls, and stops early", function()
    local n = 0
    for m in r:grep_iter("hello", { ignore_case = true }) do
      n = n + 1
      assert.are.equal(string.format("root:repo/d/f%02d.txt", (n + 1) // 2), m.path)
    end
    assert.are.equal(60, n)
    n = 0
    for _ in r:grep_iter("hello") do
      n = n + 1
      if n == 2 then break end
    end
    assert.are.equal(2, n)
    local files = {}
    for e in r:glob_iter("*.txt", "root:repo/d", { metadata = true }) do files[#files + 1] = e end
    assert.are.equal(30, #files)
    assert.are.equal(24, files[1].size)
    local names = {}
    for e in r:ls_iter("root:repo") do names[#names + 1] = e.path end
    assert.are.same({ "root:repo/d/", "root:repo/latin1.txt" }, names)
    assert.has_error(function()
      for _ in r:grep_iter("(", { regex = true }) do end
    end)
    helpers.full_gc() -- an abandoned iterator is collected without harm
  end)
end)
