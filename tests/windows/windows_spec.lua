-- windows_spec.lua - the Lua module on Windows (docs/windows.md), run by the
-- Windows lua.exe under wine with tests/windows/spec_runner.lua: a resolver
-- over Windows paths (`C:\...` in the wine prefix's drive C), the file
-- operations, handles, walk, grep, edit tools and policy presets, names
-- that fold case, Windows name rules, and commands answering unsupported.
--
-- The tree is made by the suite (PATHGATE_WINDOWS_TMP, a `C:\...` folder,
-- and PATHGATE_WINDOWS_TMP_HOST, the same folder as the build machine sees
-- it) before lua.exe starts; links are made there too (wine cannot make
-- them): DIR\repo\dirlink -> ..\outside, a directory link out of the base.
local pathgate = require "pathgate"

local TOP = assert(os.getenv("PATHGATE_WINDOWS_TMP"), "PATHGATE_WINDOWS_TMP is not set")
local REPO = TOP .. [[\repo]]

local MESSAGE = "commands are not supported by this build of pathgate "
  .. "(no contained sandbox for this OS); nothing was run"

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

describe("the Lua module on Windows", function()
  local r
  before_each(function()
    r = assert(pathgate.Resolver {
      roots = { { "repo", REPO } },
      mods = { { "Some Mod", TOP .. [[\mods\Some Mod]] } },
      presets = { "secrets" },
    })
  end)
  after_each(function() r:close() end)

  it("resolves addresses, URIs and host paths of a Windows root", function()
    local v = r:resolve("root:repo/common/traits/00_traits.txt")
    assert.is_true(v.ok)
    assert.are.equal("root:repo/common/traits/00_traits.txt", tostring(v.ref))
    -- a host path under the root, in Windows spelling, maps to its address
    assert.are.equal("root:repo/common/traits/00_traits.txt",
                     r:address_of(REPO .. [[\common\traits\00_traits.txt]]))
    assert.are.equal("mod:Some Mod/descriptor.mod", r:address_of(TOP .. [[\mods\Some Mod\descriptor.mod]]))
    -- escapes and Windows-only spellings are refused before any open
    for _, bad in ipairs { "root:repo/../outside/secret.txt", "root:repo/CON", "root:repo/nul.txt",
                           "root:repo/common/aux.c", "root:repo/a:b", "root:repo/f.txt::$DATA",
                           "root:repo/PROGRA~1", "root:repo/x.txt.", "root:repo/x /y.txt",
                           "root:repo/a?b", "root:repo/COM\194\185" } do
      local res, msg, code = r:read(bad)
      assert.is_nil(res, bad)
      assert.are.equal("invalid_path", code, bad)
      assert.is_nil(msg:find(TOP, 1, true), "a host path in: " .. msg)
      assert.is_false(r:resolve(bad, { require_exists = false }).ok, bad)
      assert.is_nil((r:write(bad, "x")), bad) -- nothing is created under any spelling
    end
    assert.is_nil(io.open(REPO .. [[\x.txt]], "rb"))
  end)

  it("reads, writes, edits, moves and deletes inside the root only", function()
    local page = assert(r:read("root:repo/common/traits/00_traits.txt"))
    assert.are.equal("brave = {\n\tdiplomacy = 1\n}", page.content)
    assert(r:write("root:repo/new/deep/file.txt", "one\ntwo\n"))
    assert.are.equal("one\ntwo\n", slurp(REPO .. [[\new\deep\file.txt]]))
    -- a write replaces the file (a new file renamed over it); so does an
    -- edit (below: "edits an existing file through each edit path")
    assert(r:write("root:repo/new/deep/file.txt", "one\nthree\n"))
    assert.are.equal("one\nthree\n", slurp(REPO .. [[\new\deep\file.txt]]))
    assert.are.equal("root:repo/new/moved.txt", assert(r:move("root:repo/new/deep/file.txt",
                                                               "root:repo/new/moved.txt")))
    assert.is_nil(slurp(REPO .. [[\new\deep\file.txt]]))
    local st = assert(r:stat("root:repo/new/moved.txt"))
    assert.are.equal(10, st.size)
    assert(r:delete("root:repo/new/moved.txt"))
    assert.is_nil(slurp(REPO .. [[\new\moved.txt]]))
    assert(r:delete("root:repo/new"))
    -- the directory link out of the base is no way out
    local res, _, code = r:read("root:repo/dirlink/secret.txt")
    assert.is_nil(res)
    assert.are.equal("invalid_path", code)
    assert.is_nil((r:write("root:repo/dirlink/planted.txt", "x")))
    assert.is_nil(slurp(TOP .. [[\outside\planted.txt]]))
  end)

  it("names a file in any case, as NTFS does, and answers its stored spelling", function()
    local page = assert(r:read("root:repo/COMMON/Traits/00_TRAITS.txt"))
    assert.are.equal("brave = {\n\tdiplomacy = 1\n}", page.content)
    assert.are.equal("root:repo/common/traits/00_traits.txt", page.path)
    assert.is_true(r:isfile("root:repo/Common/traits/00_traits.TXT"))
    assert.are.equal("root:repo/common/traits/00_traits.txt",
                     assert(r:stat("root:repo/Common/TRAITS/00_traits.txt")).path)
    -- a new name keeps the spelling given; the directories on the way, theirs
    assert.are.equal("root:repo/common/New.txt", assert(r:write("root:repo/COMMON/New.txt", "n\n")))
    assert.are.equal("root:repo/common/New.txt", assert(r:read("root:repo/common/NEW.TXT")).path)
    assert(r:delete("root:repo/Common/new.txt"))
    assert.is_nil(slurp(REPO .. [[\common\New.txt]]))
  end)

  it("resolves every spelling of a file to the one its directory stores", function()
    local want = "root:repo/common/traits/00_traits.txt"
    local s = assert(pathgate.Session(r))
    for _, v in ipairs {
      r:resolve("root:repo/COMMON/Traits/00_TRAITS.TXT"),
      r:resolve("root:repo/common/traits/00_traits.txt"),
      r:resolve([[COMMON\Traits\00_TRAITS.TXT]], { base = "root:repo" }),
      r:resolve("file:///" .. REPO:gsub("\\", "/") .. "/COMMON/Traits/00_TRAITS.TXT"),
      s:resolve([[COMMON\Traits\00_TRAITS.TXT]]),
      -- the host's own paths, in either separator and any case
      r:resolve(REPO .. [[\common\traits\00_traits.txt]]),
      r:resolve(REPO .. [[\COMMON\Traits\00_TRAITS.TXT]]),
      r:resolve(REPO:gsub("\\", "/") .. "/common/traits/00_traits.txt"),
      r:resolve(REPO:upper() .. [[\common\traits\00_traits.txt]]),
      r:resolve(REPO:lower() .. [[\common\traits\00_traits.txt]]),
    } do
      assert.is_true(v.ok)
      assert.is_true(v.exists)
      -- the reference of each spelling is the one canonical address
      assert.are.equal(want, tostring(v.ref))
      assert.are.equal("common/traits/00_traits.txt", v.relative_path)
      -- and the file operations answer the same address for it
      assert.are.equal(want, assert(r:read(tostring(v.ref))).path)
    end
    -- the host path of a reference is spelled with the host's separator only
    local hp = assert(r:host_path(r:resolve("root:repo/COMMON/Traits/00_TRAITS.TXT").ref))
    assert.are.equal(REPO .. [[\common\traits\00_traits.txt]], hp)
    assert.are.equal(hp, r:host_path_of("root:repo/common/traits/00_traits.txt"))
    -- a host path outside the bases, or one that depends on a current
    -- drive or directory, lies in no base
    for _, text in ipairs { TOP .. [[\outside\secret.txt]], REPO .. [[\..\outside\secret.txt]],
                            [[C:repo\x.txt]], [[\repo\x.txt]], "/repo/x.txt" } do
      local v = r:resolve(text, { require_exists = false })
      assert.is_false(v.ok, text)
      assert.are.equal("outside_bases", v.reason, text)
    end
    -- a name nothing stores keeps the spelling given; the names before it take theirs
    local m = r:resolve("root:repo/COMMON/Traits/New_Trait.TXT", { require_exists = false })
    assert.is_true(m.ok)
    assert.is_false(m.exists)
    assert.are.equal("root:repo/common/traits/New_Trait.TXT", tostring(m.ref))
    m = r:resolve("root:repo/Common/Missing/X.txt", { require_exists = false })
    assert.are.equal("root:repo/common/Missing/X.txt", tostring(m.ref))
    assert.is_false(r:resolve("root:repo/COMMON/Traits/New_Trait.TXT").ok)
    -- the policy still folds case: .env is hidden from resolve in every spelling
    for _, name in ipairs { ".env", ".ENV", ".Env" } do
      local v = r:resolve("root:repo/" .. name)
      assert.is_false(v.ok, name)
      assert.are.equal("denied", v.reason, name)
    end
  end)

  it("edits an existing file through each edit path, atomically, keeping its stored name", function()
    local host = REPO .. [[\Edit\Target.TXT]]
    local stored = "root:repo/Edit/Target.TXT"
    local function listing()
      local out = {}
      for _, e in ipairs(assert(r:ls("root:repo/EDIT"))) do out[#out + 1] = e.path end
      table.sort(out)
      return out
    end
    -- after each edit: the new content under the stored name, and nothing
    -- beside it (no temp file, no backup)
    local function replaced(want)
      assert.are.equal(want, slurp(host))
      assert.are.same({ stored }, listing())
    end
    assert(r:mkdir("root:repo/Edit"))
    assert.are.equal(stored, assert(r:write("root:repo/Edit/Target.TXT", "alpha\nbeta\ngamma\n")))

    local addr, n = assert(r:edit("root:repo/EDIT/target.txt", "beta", "BETA"))
    assert.are.equal(stored, addr)
    assert.are.equal(1, n)
    replaced("alpha\nBETA\ngamma\n")

    addr = assert(r:multi_edit("root:repo/edit/TARGET.TXT", { { "alpha", "ALPHA" }, { "gamma", "GAMMA" } }))
    assert.are.equal(stored, addr)
    replaced("ALPHA\nBETA\nGAMMA\n")

    local s = assert(pathgate.Session(r))
    local e = s:text_editor("str_replace", "root:repo/EDIT/Target.txt",
                            { tool = "str_replace_editor", old_str = "BETA", new_str = "beta two" })
    assert.is_nil(e.error)
    replaced("ALPHA\nbeta two\nGAMMA\n")
    e = s:text_editor("insert", "root:repo/edit/target.txt",
                      { tool = "str_replace_editor", insert_line = 1, new_str = "inserted" })
    assert.is_nil(e.error)
    replaced("ALPHA\ninserted\nbeta two\nGAMMA\n")
    e = s:text_editor("undo_edit", "root:repo/EDIT/TARGET.TXT", { tool = "str_replace_editor" })
    assert.is_nil(e.error)
    replaced("ALPHA\nbeta two\nGAMMA\n")

    local res = s:apply_patch("*** Begin Patch\n*** Update File: root:repo/EDIT/TARGET.txt\n@@\n"
                              .. " ALPHA\n-beta two\n+beta patched\n GAMMA\n*** End Patch")
    assert.is_nil(res.error)
    assert.are.equal(stored, res.files[1].path)
    assert.are.equal("M", res.files[1].change)
    replaced("ALPHA\nbeta patched\nGAMMA\n")

    assert.are.equal(stored, assert(r:write("root:repo/EDIT/target.TXT", "whole\n")))
    replaced("whole\n")

    -- io handles: the old content until close, the temp file beside it
    for _, case in ipairs { { "w", "new\n", "new\n" }, { "a", "tail\n", "new\ntail\n" },
                            { "r+", "NEW", "NEW\ntail\n" } } do
      local before = slurp(host)
      local f = assert(r:open("root:repo/edit/TARGET.TXT", case[1]))
      f:write(case[2])
      assert.are.equal(before, slurp(host))
      local now = listing()
      assert.are.equal(2, #now)
      assert.matches("^root:repo/Edit/%.pathgate%-%x+%.tmp$", now[1])
      assert.are.equal(stored, now[2])
      f:close()
      replaced(case[3])
    end

    -- a file another program reads (io.open shares no deletion): the edit
    -- fails and changes nothing, leaving no temp file; once it is closed
    -- the edit goes through
    local reader = assert(io.open(host, "rb"))
    local ok, msg, code = r:edit("root:repo/Edit/Target.TXT", "NEW", "held")
    assert.is_nil(ok)
    assert.is_string(code)
    assert.is_nil(msg:find(TOP, 1, true), "a host path in: " .. msg)
    assert.are.equal("NEW\ntail\n", reader:read("a"))
    reader:close()
    replaced("NEW\ntail\n")
    assert(r:edit("root:repo/Edit/Target.TXT", "NEW", "held"))
    replaced("held\ntail\n")
    assert(r:delete("root:repo/Edit"))
  end)

  it("protects .env in every case (the secrets preset folds case)", function()
    for _, name in ipairs { ".env", ".ENV", ".Env" } do
      local res, _, code = r:read("root:repo/" .. name)
      assert.is_nil(res, name)
      assert.are.equal("invalid_path", code, name)
    end
    local names = {}
    for _, e in ipairs(assert(r:ls("root:repo"))) do names[#names + 1] = e.path end
    table.sort(names)
    assert.are.same({ "root:repo/common/", "root:repo/readme.txt" }, names)
    local matches = assert(r:grep("SECRET", "root:repo"))
    assert.are.equal(0, #matches)
  end)

  it("walks, globs and greps with PCRE2", function()
    local files = {}
    for dir, _, fs in r:walk("root:repo") do
      for _, f in ipairs(fs) do files[#files + 1] = dir .. "/" .. f end
    end
    table.sort(files)
    assert.are.same({ "root:repo/common/traits/00_traits.txt", "root:repo/readme.txt" }, files)
    local globbed = assert(r:glob("**/*.txt", "root:repo"))
    assert.are.equal(2, #globbed)
    local m = assert(r:grep([[^\s*([a-z_]+)\s*=\s*\{]], "root:repo/common", { regex = true }))
    assert.are.equal(1, #m)
    assert.are.equal("root:repo/common/traits/00_traits.txt", m[1].path)
    assert.are.equal(1, m[1].line)
  end)

  it("opens real io handles, written atomically on close", function()
    local f = assert(r:open("root:repo/readme.txt"))
    assert.are.equal("readme\n", f:read("a"))
    f:close()
    do
      local out <close> = assert(r:open("root:repo/merged.txt", "w"))
      out:write("a\r\n", "b\n")
      assert.is_nil(slurp(REPO .. [[\merged.txt]])) -- the name is taken on close
    end
    assert.are.equal("a\r\nb\n", slurp(REPO .. [[\merged.txt]])) -- bytes as written
    local lines = {}
    for l in r:lines("root:repo/merged.txt") do lines[#lines + 1] = l end
    assert.are.same({ "a\r", "b" }, lines)
    assert(r:delete("root:repo/merged.txt"))
  end)

  it("applies a patch and runs the text editor (view, create)", function()
    local s = assert(pathgate.Session(r))
    local res = s:apply_patch("*** Begin Patch\n*** Add File: root:repo/p.txt\n+patched\n*** End Patch")
    assert.matches("^Success", res.output)
    assert.are.equal("patched\n", slurp(REPO .. [[\p.txt]]))
    local v = s:text_editor("view", "root:repo/p.txt")
    assert.matches("patched", v.output)
    v = s:text_editor("create", "root:repo/q.txt", { file_text = "created\n" })
    assert.are.equal("created\n", slurp(REPO .. [[\q.txt]]))
    assert(r:delete("root:repo/p.txt"))
    assert(r:delete("root:repo/q.txt"))
  end)

  it("answers every command with unsupported, running nothing", function()
    assert.are.same({}, pathgate.exec_capabilities())
    local res, msg, code = r:execute("echo x > planted.txt", { allow_unconfined = true })
    assert.is_nil(res)
    assert.are.equal(MESSAGE, msg)
    assert.are.equal("unsupported", code)
    local s = assert(pathgate.Session(r))
    res, msg, code = s:execute("echo x > planted.txt")
    assert.is_nil(res)
    assert.are.equal(MESSAGE, msg)
    assert.are.equal("unsupported", code)
    assert.is_nil(slurp(REPO .. [[\planted.txt]]))
  end)

  it("refuses a volume root as a base, as / is refused on POSIX", function()
    local bad, msg, code = pathgate.Resolver { roots = { { "c", [[C:\]] } } }
    assert.is_nil(bad)
    assert.are.equal("invalid_config", code)
    assert.matches("filesystem root", msg)
    -- and a missing root is an error, not a default
    bad, _, code = pathgate.Resolver { roots = { { "x", TOP .. [[\missing]] } } }
    assert.is_nil(bad)
    assert.is_string(code)
  end)
end)
