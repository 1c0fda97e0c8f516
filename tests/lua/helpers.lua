-- helpers.lua - shared by the busted specs of the Lua front end.
-- Loaded through package.path (tests/lua/?.lua is on it, see .busted).
local M = {}

-- The checkout: from the environment (ctest sets it) or from this file's
-- place, tests/lua/helpers.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
M.source_dir = os.getenv("PATHGATE_SOURCE_DIR") or (here .. "/../..")

-- Quotes a string for /bin/sh.
function M.sh_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- Runs a shell command, returns its stdout and whether it exited 0.
function M.sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

-- A fresh empty temporary directory (os.tmpname gives a unique file).
function M.tmpdir()
  local name = os.tmpname()
  os.remove(name)
  local _, ok = M.sh("mkdir -m 700 " .. M.sh_quote(name))
  assert(ok, "mkdir failed")
  return name
end

function M.rmtree(dir)
  assert(dir:match("^/tmp/"), "refusing to remove " .. dir)
  M.sh("rm -rf " .. M.sh_quote(dir))
end

function M.mkdir(path)
  local _, ok = M.sh("mkdir -p " .. M.sh_quote(path))
  assert(ok, "mkdir -p failed")
end

function M.write(path, content)
  local f = assert(io.open(path, "wb"))
  f:write(content or "")
  f:close()
end

function M.symlink(target, path)
  local _, ok = M.sh("ln -s " .. M.sh_quote(target) .. " " .. M.sh_quote(path))
  assert(ok, "ln -s failed")
end

-- Full garbage collection, several times (finalizers resurrect objects for
-- one more cycle).
function M.full_gc()
  for _ = 1, 4 do collectgarbage("collect") end
end

------------------------------------------------------------------ a test tree

-- Builds a fresh tree under a temp dir and returns a table with its dirs:
--   repo/common/traits/00_traits.txt, repo/common/empty/, repo/a b/é.txt,
--   repo/escape -> ../outside (outward symlink), repo/inner -> common,
--   repo/dangling -> ../outside/missing, game/readme.txt,
--   mods/some/descriptor.mod, outside/secret.txt
function M.make_tree()
  local t = { top = M.tmpdir() }
  t.repo, t.game = t.top .. "/repo", t.top .. "/game"
  t.mod, t.outside = t.top .. "/mods/some", t.top .. "/outside"
  M.mkdir(t.repo .. "/common/traits")
  M.mkdir(t.repo .. "/common/empty")
  M.mkdir(t.repo .. "/a b")
  M.mkdir(t.game)
  M.mkdir(t.mod)
  M.mkdir(t.outside)
  M.write(t.repo .. "/common/traits/00_traits.txt", "trait = 1\n")
  M.write(t.repo .. "/a b/\195\169.txt", "e\n")
  M.write(t.game .. "/readme.txt", "game\n")
  M.write(t.mod .. "/descriptor.mod", "name=\"Some Mod\"\n")
  M.write(t.outside .. "/secret.txt", "secret\n")
  M.symlink("../outside", t.repo .. "/escape")
  M.symlink("common", t.repo .. "/inner")
  M.symlink("../outside/missing", t.repo .. "/dangling")
  return t
end

---------------------------------------------------------------- uri_cases.tsv

local function unescape(field, where)
  if field == "\\N" then return nil end
  -- A scanner, so that `\\t` stays a backslash followed by `t`.
  local res, i = {}, 1
  local s = field
  while i <= #s do
    local c = s:sub(i, i)
    if c ~= "\\" then
      res[#res + 1] = c
      i = i + 1
    else
      local n = s:sub(i + 1, i + 1)
      if n == "\\" then res[#res + 1] = "\\"; i = i + 2
      elseif n == "t" then res[#res + 1] = "\t"; i = i + 2
      elseif n == "n" then res[#res + 1] = "\n"; i = i + 2
      elseif n == "r" then res[#res + 1] = "\r"; i = i + 2
      elseif n == "x" then
        local hex = s:sub(i + 2, i + 3)
        assert(hex:match("^%x%x$"), "malformed \\x escape at " .. where)
        res[#res + 1] = string.char(tonumber(hex, 16))
        i = i + 4
      else
        error("malformed escape \\" .. n .. " at " .. where)
      end
    end
  end
  return table.concat(res)
end

-- Every case of tests/data/<name> (default uri_cases.tsv) as
-- {line=, op=, input=, arg=, expected=}.
function M.uri_cases(name)
  local path = M.source_dir .. "/tests/data/" .. (name or "uri_cases.tsv")
  local cases, lineno = {}, 0
  for line in io.lines(path) do
    lineno = lineno + 1
    if line ~= "" and line:sub(1, 1) ~= "#" then
      local fields = {}
      for f in (line .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = f end
      assert(#fields == 4, "line " .. lineno .. ": expected 4 fields, got " .. #fields)
      local where = "line " .. lineno
      cases[#cases + 1] = {
        line = lineno,
        op = fields[1],
        input = unescape(fields[2], where),
        arg = unescape(fields[3], where),
        expected = unescape(fields[4], where),
      }
    end
  end
  return cases
end

return M
