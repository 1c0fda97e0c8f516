-- edit_tools_spec.lua - the edit tools models are trained on, from Lua:
-- obj:apply_patch over the shared cases of tests/data/apply_patch (Codex's
-- 23 scenarios, the cases of its unit tests, pathgate's own) and
-- obj:text_editor over tests/data/editor (expectations from Anthropic's
-- reference implementation); the undo history per object; misuse.
local pathgate = require "pathgate"
local H = require "helpers"

local DATA = H.source_dir .. "/tests/data"

local read = H.slurp

local function lines_of(cmd)
  local out = H.posix_out(cmd)
  local t = {}
  for line in out:gmatch("[^\n]+") do t[#t + 1] = line end
  return t
end

-- Every entry below root as "d rel", "l rel -> target" or "f rel <bytes>".
local function snapshot(root)
  local entries = {}
  for _, line in ipairs(lines_of("cd " .. H.sh_quote(H.posix_path(root)) .. " 2>/dev/null && find . -mindepth 1 -printf '%y %P\\n' | LC_ALL=C sort -k2")) do
    local kind, rel = line:match("^(%a) (.*)$")
    if kind == "d" then
      entries[#entries + 1] = "d " .. rel
    elseif kind == "l" then
      local target = H.posix_out("readlink " .. H.sh_quote(H.posix_path(root) .. "/" .. rel)):gsub("\n$", "")
      entries[#entries + 1] = "l " .. rel .. " -> " .. target
    else
      entries[#entries + 1] = "f " .. rel .. " " .. read(root .. "/" .. rel)
    end
  end
  return table.concat(entries, "\n")
end

local function case_keys(path)
  local keys = {}
  local text = read(path)
  if text then
    for line in text:gmatch("[^\n]+") do
      local k, v = line:match("^([%w_]+):%s*(.-)%s*$")
      if k and not line:match("^#") then keys[k] = v end
    end
  end
  return keys
end

local function case_dirs(group)
  local dirs = {}
  for _, name in ipairs(lines_of("cd " .. H.sh_quote(H.posix_path(DATA) .. "/" .. group) .. " && find . -mindepth 1 -maxdepth 1 -type d -printf '%P\\n' | LC_ALL=C sort")) do
    dirs[#dirs + 1] = DATA .. "/" .. group .. "/" .. name
  end
  return dirs
end

-- Root t (the case's tree), the read-only root ro, a directory outside.
local function world(input)
  local w = { top = H.tmpdir() }
  w.t, w.ro, w.out = w.top .. "/t", w.top .. "/ro", w.top .. "/outside"
  for _, d in ipairs({ w.t, w.ro, w.out }) do H.mkdir(d) end
  H.write(w.ro .. "/ro.txt", "read only\n")
  H.write(w.out .. "/secret.txt", "secret\n")
  if input then
    H.posix_sh("cp -a " .. H.sh_quote(H.posix_path(input)) .. "/. " .. H.sh_quote(H.posix_path(w.t))
      .. " 2>/dev/null || true")
  end
  w.r = pathgate.Resolver { roots = { t = w.t, ro = w.ro }, read_only = { "ro" } }
  w.s = pathgate.Session(w.r, "t")
  return w
end

local function untouched(w)
  return snapshot(w.ro) == "f ro.txt read only\n" and snapshot(w.out) == "f secret.txt secret\n"
end

-- Why a case cannot hold under wine, or nil: it makes a link.
local function wine_skip(dir, text, keys)
  if not H.windows then return nil end
  if keys.link then return H.WINE_FILE_LINK end
  return nil
end

describe("apply_patch", function()
  local counts = { ["apply_patch/codex"] = 23, ["apply_patch/codex_unit"] = 52, ["apply_patch/pathgate"] = 19 }
  for group, count in pairs(counts) do
    local dirs = case_dirs(group)
    it("has every case of " .. group, function()
      assert.are.equal(count, #dirs)
    end)
    for _, dir in ipairs(dirs) do
      it("runs " .. group .. "/" .. dir:match("[^/]+$"), function()
        local keys = case_keys(dir .. "/case.txt")
        local why = wine_skip(dir, read(dir .. "/patch.txt"), keys)
        if why then pending(why) end
        local w = world(dir .. "/input")
        if keys.link then
          local name, target = keys.link:match("^(%S+) (.+)$")
          H.symlink(target, w.t .. "/" .. name)
        end
        if keys.cwd then w.s:push(keys.cwd) end
        local patch = read(dir .. "/patch.txt")
        local function repl(s) return (s:gsub("%%", "%%%%")) end
        -- (a file URI of a host path: file:///C:/... on Windows)
        patch = patch:gsub("file://{ROOT}", repl(H.file_uri(w.t))):gsub("{ROOT}", repl(w.t)):gsub("{RO}", repl(w.ro)):gsub("{OUT}", repl(w.out))
        local res = w.s:apply_patch(patch, { atomic = keys.mode ~= "file_by_file" })
        assert.are.equal(keys.kind or "ok", res.kind or "ok", dir .. ": " .. tostring(res.error))
        local message = read(dir .. "/message.txt")
        if message then
          assert.are.equal(message, res.kind and res.error or res.output, dir)
        end
        assert.are.equal(snapshot(dir .. "/expected"), snapshot(w.t), dir)
        assert.is_true(untouched(w), dir)
        if not res.kind then
          local n = select(2, res.output:gsub("\n", ""))
          assert.are.equal(n, #res.files + 1, dir)
        end
        H.rmtree(w.top)
      end)
    end
  end

  it("answers moves with their source, and refuses misuse", function()
    local w = world()
    H.write(w.t .. "/a.txt", "a\n")
    local res = w.s:apply_patch("*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** End Patch")
    assert.are.same({ { change = "M", path = "root:t/b.txt", from = "root:t/a.txt" } }, res.files)
    assert.has_error(function() w.s:apply_patch(5) end)
    assert.has_error(function() w.s:apply_patch("x", { atomik = false }) end)
    local r2 = w.r:apply_patch("*** Begin Patch\n*** Add File: root:t/z\n+z\n*** End Patch")
    assert.are.equal("Success. Updated the following files:\nA root:t/z\n", r2.output)
    H.rmtree(w.top)
  end)

  it("has multi_edit's lenient option (MCP edit_file's matching), exact without it", function()
    local w = world()
    H.write(w.t .. "/p.py", "def f():\n    if x:\n        return 1\n")
    local edits = { { "if x:\n    return 1", "if y:\n    return 2" } }
    local v, msg = w.s:multi_edit("p.py", edits)
    assert.is_nil(v)
    assert.is_truthy(msg:find("String not found in file", 1, true))
    local address = w.s:multi_edit("p.py", edits, false, { lenient = true })
    assert.are.equal("root:t/p.py", address)
    -- the first new line takes the file's indentation, the next ones theirs
    -- relative to the old text's line at the same index
    assert.are.equal("def f():\n    if y:\n    return 2\n", read(w.t .. "/p.py"))
    H.rmtree(w.top)
  end)
end)

describe("text_editor", function()
  local dirs = case_dirs("editor")
  it("has every shared case", function()
    assert.are.equal(62, #dirs)
  end)
  for _, dir in ipairs(dirs) do
    it("answers " .. dir:match("[^/]+$") .. " as the reference implementation", function()
      local w = world(dir .. "/input")
      local step = 1
      while read(dir .. "/" .. step .. ".cmd") do
        local keys = case_keys(dir .. "/" .. step .. ".cmd")
        local args = {}
        for _, name in ipairs({ "old_str", "new_str", "file_text" }) do
          args[name] = read(dir .. "/" .. step .. "." .. name)
        end
        args.tool = keys.tool
        args.insert_line = keys.insert_line and math.tointeger(tonumber(keys.insert_line))
        args.max_characters = keys.max_characters and math.tointeger(tonumber(keys.max_characters))
        if keys.view_range == "invalid" then
          args.view_range = { "1", "2" }
        elseif keys.view_range then
          args.view_range = {}
          for v in keys.view_range:gmatch("%S+") do args.view_range[#args.view_range + 1] = math.tointeger(tonumber(v)) end
        end
        local res = w.s:text_editor(keys.command, keys.path, args)
        local output = read(dir .. "/" .. step .. ".output")
        if output then
          assert.are.equal(output, res.output, dir .. " step " .. step)
          assert.is_nil(res.error)
        else
          assert.are.equal(read(dir .. "/" .. step .. ".error"), res.error, dir .. " step " .. step)
          assert.are.equal(keys.kind, res.kind, dir .. " step " .. step)
        end
        step = step + 1
      end
      local want = dir .. "/input"
      if H.is_dir(dir .. "/expected") then want = dir .. "/expected" end
      assert.are.equal(snapshot(want), snapshot(w.t), dir)
      assert.is_true(untouched(w), dir)
      H.rmtree(w.top)
    end)
  end

  it("keeps the undo history per object", function()
    local w = world()
    H.write(w.t .. "/h.txt", "one\n")
    local old = { tool = "str_replace_editor" }
    local res = w.s:text_editor("str_replace", "h.txt", { old_str = "one", new_str = "two", tool = "str_replace_editor" })
    assert.is_nil(res.error)
    local other = pathgate.Session(w.r, "t")
    assert.are.equal("edit_failed", other:text_editor("undo_edit", "h.txt", old).kind)
    assert.is_nil(w.s:text_editor("undo_edit", "h.txt", old).error)
    assert.are.equal("one\n", read(w.t .. "/h.txt"))
    assert.has_error(function() w.s:text_editor("view", "h.txt", { tool = "vim" }) end)
    assert.has_error(function() w.s:text_editor("view") end)
    assert.has_error(function() w.s:text_editor("insert", "h.txt", { insert_line = "1", new_str = "x" }) end)
    assert.are.equal("Invalid `view_range`. It should be a list of two integers.",
      w.s:text_editor("view", "h.txt", { view_range = "1,2" }).error)
    assert.is_nil(w.s:text_editor("view", "h.txt", { view_range = {} }).error)
    other = nil
    H.full_gc()
    H.rmtree(w.top)
  end)
end)
