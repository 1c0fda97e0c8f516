-- go_root_spec.lua - Go's os.Root path cases (tests/data/go_root_cases.tsv,
-- expanded per operation in go_root_expect.tsv) run against the Lua
-- methods: every row agrees with Go, or differs exactly as its `why` says
-- (docs/fs.md). Names are given as Go gives them, relative to a session
-- whose cwd is ROOT. The tree of each row is built by one shell command;
-- the checks read the host tree through a second resolver rooted above
-- ROOT (lstat, readlink, stat), so they see what is really there.
local pathgate = require "pathgate"
local H = require "helpers"

local MTIME = 1234567890

local function read_tsv(name)
  local rows, header = {}, nil
  for line in io.lines(H.source_dir .. "/tests/data/" .. name) do
    if line:sub(1, 1) ~= "#" then
      local f = {}
      for x in (line .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = x end
      if not header then
        header = f
      else
        local row = {}
        for i, k in ipairs(header) do row[k] = f[i] end
        rows[#rows + 1] = row
      end
    end
  end
  return rows
end

local function split(s, sep)
  local out = {}
  if s == "" then return out end
  for x in (s .. sep):gmatch("(.-)" .. sep) do out[#out + 1] = x end
  return out
end

local CASES = {}
for _, c in ipairs(read_tsv("go_root_cases.tsv")) do CASES[c.name] = c end
local ROWS = read_tsv("go_root_expect.tsv")

-- One shell command building ROOT, its entries and the row's preparation.
local function build(top, case, prep)
  local root = top .. "/ROOT"
  local q = H.sh_quote
  local cmd = { "set -e", "mkdir " .. q(root) }
  local function parent(p) return "mkdir -p \"$(dirname " .. q(p) .. ")\"" end
  for _, e in ipairs(split(case.fs, ";")) do
    local name, target = e:match("^(.-) => (.*)$")
    if name then
      local p = root .. "/" .. name
      cmd[#cmd + 1] = parent(p)
      cmd[#cmd + 1] = "ln -s " .. q((target:gsub("%$ABS", root))) .. " " .. q(p)
    elseif e:sub(-1) == "/" then
      cmd[#cmd + 1] = "mkdir -p " .. q(root .. "/" .. e)
    else
      cmd[#cmd + 1] = parent(root .. "/" .. e)
      cmd[#cmd + 1] = "printf %s " .. q(e) .. " > " .. q(root .. "/" .. e)
    end
  end
  for _, a in ipairs(split(prep, ";")) do
    local w = split(a, " ")
    local p = root .. "/" .. w[2]
    cmd[#cmd + 1] = parent(p)
    if w[1] == "file" then
      cmd[#cmd + 1] = "printf %s " .. q(w[3] == "-" and "" or w[3]) .. " > " .. q(p)
    elseif w[1] == "file000" then
      cmd[#cmd + 1] = ": > " .. q(p) .. " && chmod 000 " .. q(p)
    elseif w[1] == "dir" then
      cmd[#cmd + 1] = "mkdir -p " .. q(p)
    else
      error("unknown prep " .. a)
    end
  end
  local _, ok = H.sh(table.concat(cmd, " && "))
  assert(ok, "building the tree failed")
  return root
end

local function stat_text(st)
  if st.type == "symlink" then return "symlink" end
  return st.type .. " " .. st.size
end

-- ok (boolean) and the result text of op on name.
local function run_op(s, op, name)
  local function ok(x, ...) return x ~= nil and x ~= false, x, ... end
  if op == "open_file" then
    local f = s:open(name, "rb")
    if not f then return false end
    local data = f:read("a")
    f:close()
    return true, data
  elseif op == "open_dir" then
    local good, names = pcall(function()
      local out = {}
      for e in s:scandir(name) do out[#out + 1] = e.name end
      return table.concat(out, ",")
    end)
    return good, good and names or nil
  elseif op == "create" then
    local f = s:open(name, "w")
    if not f then return false end
    f:write("target")
    return ok(f:close())
  elseif op == "chmod" then return ok(s:chmod(name, tonumber("666", 8)))
  elseif op == "chtimes" then return ok(s:utime(name, MTIME, MTIME))
  elseif op == "mkdir" then return ok(s:mkdir(name, false))
  elseif op == "openroot" then
    local sub = s:subroot(name, "sub")
    if not sub then return false end
    local f = sub:open("root:sub/f")
    if not f then return false end
    local data = f:read("a")
    f:close()
    return true, data
  elseif op == "remove" or op == "remove_dir" then return ok(s:delete(name))
  elseif op == "remove_all" then return ok(s:remove_tree(name))
  elseif op == "stat" or op == "lstat" then
    local st = s[op](s, name)
    if not st then return false end
    return true, stat_text(st)
  elseif op == "readlink" then
    local target = s:readlink(name)
    return target ~= nil, target
  elseif op == "rename_from" then return ok(s:move(name, "destination"))
  elseif op == "link_from" then return ok(s:link(name, "destination"))
  elseif op == "rename_to" then return ok(s:move("source", name))
  elseif op == "symlink" then return ok(s:symlink("linktarget", name))
  end
  error("unknown op " .. op)
end

-- The checks, through a resolver rooted at the temp dir (host view).
local function check(host, root, checks, result)
  for _, c in ipairs(split(checks, ";")) do
    local word, rest = c:match("^(%S+) ?(.*)$")
    local name, arg = rest:match("^(%S+) ?(.*)$")
    local a = name and ("root:h/ROOT/" .. name) or nil
    if word == "only-root" then
      local names = {}
      for e in host:scandir("root:h") do names[#names + 1] = e.name end
      assert.same({ "ROOT" }, names, c)
    elseif word == "result" then
      assert.equal((rest:gsub("%$ABS", root)), result, c)
    elseif word == "content" then
      local f = assert(io.open(root .. "/" .. name, "rb"), c)
      assert.equal(arg == "-" and "" or arg, f:read("a"), c)
      f:close()
    elseif word == "nolink" then
      assert.is_not.equal("symlink", (host:lstat(a) or {}).type, c)
    elseif word == "mode" then
      assert.equal(tonumber(arg, 8), host:stat(a).mode, c)
    elseif word == "mtime" then
      assert.truthy(host:stat(a).modified_at:find("^2009%-02%-13T23:31:30"), c)
    elseif word == "isdir" then
      assert.equal("directory", (host:lstat(a) or {}).type, c)
    elseif word == "gone" then
      local st, _, code = host:lstat(a)
      assert.is_nil(st, c)
      assert.equal("not_found", code, c)
    elseif word == "exists" then
      assert.truthy(H.sh("ls -d " .. H.sh_quote(root .. "/" .. name) .. " 2>/dev/null") ~= "", c)
    elseif word == "link" then
      local out = H.sh("readlink " .. H.sh_quote(root .. "/" .. name))
      assert.equal(arg, (out:gsub("\n$", "")), c)
    else
      error("unknown check " .. c)
    end
  end
end

-- POSIX has no path-only handle: chmod and chtimes hold the file itself,
-- which an unprivileged caller cannot open when its mode is 000 (Go's
-- fixture file for these ops; docs/os.md): skipped there, by name.
local POSIX_UNPRIVILEGED = os.getenv("PATHGATE_OS_BACKEND") == "posix"
  and io.popen("id -u"):read("l") ~= "0"

describe("Go's os.Root cases", function()
  it("has every row", function()
    assert.equal(25 * 17, #ROWS)
  end)
  for _, row in ipairs(ROWS) do
    local case = CASES[row.case]
    it(row.op .. " / " .. row.case, function()
      local top = H.tmpdir()
      local ok_run, err = pcall(function()
        local root = build(top, case, row.prep)
        local r = pathgate.Resolver{ roots = { t = root } }
        local s = pathgate.Session(r, "t")
        local host = pathgate.Resolver{ roots = { h = top } }
        local ok, result, _, code = run_op(s, row.op, case.open)
        if POSIX_UNPRIVILEGED and (row.op == "chmod" or row.op == "chtimes") and not ok
            and code == "permission_denied" then
          print("SKIPPED: " .. row.op .. " / " .. row.case .. " (POSIX backend: mode-000 file)")
          return
        end
        assert.equal(row.pathgate == "ok", ok, row.op .. "/" .. row.case .. " " .. row.why)
        check(host, root, ok and row.check or row.failcheck, ok and result or nil)
      end)
      H.rmtree(top)
      assert(ok_run, err)
    end)
  end
end)
