-- helpers.lua - shared by the busted specs of the Lua front end.
-- Loaded through package.path (tests/lua/?.lua is on it, see .busted).
local M = {}

-- The checkout: from the environment (ctest sets it) or from this file's
-- place, tests/lua/helpers.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
M.source_dir = os.getenv("PATHGATE_SOURCE_DIR") or (here .. "/../..")

-- The specs run on two hosts: busted on Linux, and the Windows lua.exe
-- under wine with tests/windows/spec_runner.lua (docs/windows.md). What
-- differs between them lives here: the temp folder, making and removing a
-- tree, links, and how a host path is spelled.
M.windows = package.config:sub(1, 1) == "\\"
M.sep = M.windows and "\\" or "/"

-- The content of a file, or nil when it cannot be opened.
function M.slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- Quotes a string for /bin/sh.
function M.sh_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- Runs a shell command, returns its stdout and whether it exited 0 (a
-- POSIX shell on Linux, cmd.exe on Windows).
function M.sh(cmd)
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

-- A host path as the resolver shows it (host_path, messages): on Windows
-- with `\` separators.
function M.host(path)
  if M.windows then return (path:gsub("/", "\\")) end
  return path
end

-- A `file:` URI for a host path.
function M.file_uri(path)
  if M.windows then return "file:///" .. path:gsub("\\", "/") end
  return "file://" .. path
end

-- Why a case about links skips under wine (docs/windows.md): wine shows a
-- Unix symlink to a directory as a reparse point whose target cannot be
-- read, so pathgate refuses it, inward ones included; a Unix symlink to a
-- file (or a dangling one) it shows as a plain file, so nothing marks it as
-- a link there (links on Windows itself are reparse points).
M.WINE_DIR_LINK = "wine shows a Unix symlink to a directory as a reparse point whose target "
  .. "cannot be read, so every such link is refused, inward ones too"
M.WINE_FILE_LINK = "wine shows a Unix symlink to a file, or a dangling one, as a plain file, "
  .. "not a reparse point, so the tree made on the Linux side has no link Windows can see"
-- Whether the specs make symlinks to files (not under wine: see above).
M.file_links = not M.windows

-- Marks the running case skipped on Windows because of a known bug of the
-- Windows build, named in `why`; it still runs on Linux.
function M.known_bug_on_windows(why)
  if M.windows then pending("known bug on Windows: " .. why) end
end

-- Marks the running case skipped on Windows, with the reason printed; it
-- still runs on Linux. Call it first in the case.
function M.skip_on_windows(why)
  if M.windows then pending("skipped on Windows: " .. why) end
end

------------------------------------------------------- the Linux side (wine)

-- Under wine, the temp folder is PATHGATE_WINDOWS_TMP (a `C:\...` folder);
-- PATHGATE_WINDOWS_TMP_HOST is the same folder as Linux sees it, and
-- PATHGATE_WINDOWS_SH a `.exe` name of /bin/sh (cmd.exe starts a Linux
-- program only through such a name). tests/windows/lua_windows.sh sets them.
local win_tmp, win_tmp_host, win_sh
if M.windows then
  win_tmp = assert(os.getenv("PATHGATE_WINDOWS_TMP"), "PATHGATE_WINDOWS_TMP is not set")
  win_tmp_host = assert(os.getenv("PATHGATE_WINDOWS_TMP_HOST"), "PATHGATE_WINDOWS_TMP_HOST is not set")
  win_sh = assert(os.getenv("PATHGATE_WINDOWS_SH"), "PATHGATE_WINDOWS_SH is not set")
end

-- Runs a cmd.exe command; true when it succeeded. cmd.exe under wine now
-- and then fails to start on a loaded machine: a command that failed is
-- tried again, five times at most, 0.2 s apart.
local function cmd_retrying(command)
  for _ = 1, 5 do
    if os.execute(command) then return true end
    local t = os.clock() + 0.2
    while os.clock() < t do end
  end
  return false
end

-- The Linux spelling of a path under the Windows temp folder.
local function linux_path(path)
  path = path:gsub("/", "\\")
  assert(path:sub(1, #win_tmp + 1):lower() == (win_tmp .. "\\"):lower(), "not under the temp folder: " .. path)
  return win_tmp_host .. path:sub(#win_tmp + 1):gsub("\\", "/")
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- Runs a POSIX shell script on the Linux side and waits for it. Wine does
-- not wait for a Linux process, so the script writes a marker file last and
-- this polls for it (30 s at most, then an error saying so).
local bridge_count = 0
function M.linux(script)
  bridge_count = bridge_count + 1
  local name = ("%s\\linux-%d-%d"):format(win_tmp, os.time(), bridge_count)
  local marker = name .. ".done"
  os.remove(marker)
  local f = assert(io.open(name .. ".sh", "wb"))
  f:write("set -e\n", script, "\n", "echo ok >", M.sh_quote(linux_path(marker)), "\n")
  f:close()
  cmd_retrying(('""%s" "%s""'):format(win_sh, linux_path(name .. ".sh")))
  -- Between looks, a wait that asks nothing of wine (each look is a call to
  -- the wine server, which starves the Linux process when made in a tight
  -- loop by several runs at once): from 0.1 ms, doubling up to 20 ms.
  local deadline, pause = os.time() + 30, 0.0001
  while not exists(marker) do
    if os.time() > deadline then
      error("the Linux side did not finish within 30 s (no " .. marker .. "): " .. script, 2)
    end
    local until_ = os.clock() + pause
    repeat until os.clock() >= until_
    pause = math.min(pause * 2, 0.02)
  end
  os.remove(marker)
  os.remove(name .. ".sh")
end

-- A path as the POSIX shell of M.posix_sh sees it (one starting with `/`
-- is a Linux path already: the checkout's, for instance).
function M.posix_path(path)
  if M.windows and path:sub(1, 1) ~= "/" then return linux_path(path) end
  return path
end

-- Runs a POSIX shell script (on the Linux side under wine); returns its
-- standard output.
function M.posix_out(script)
  if not M.windows then return (M.sh(script)) end
  bridge_count = bridge_count + 1
  local out = ("%s\\out-%d-%d"):format(win_tmp, os.time(), bridge_count)
  M.linux("{ " .. script .. "\n} >" .. M.sh_quote(linux_path(out)))
  local f = assert(io.open(out, "rb"))
  local text = f:read("a")
  f:close()
  os.remove(out)
  return text
end

-- Runs a POSIX shell script (on the Linux side under wine); returns whether
-- it exited 0.
function M.posix_sh(script)
  if M.windows then return pcall(M.linux, script) end
  local _, ok = M.sh(script)
  return ok
end

----------------------------------------------------------------- tree making

-- A fresh empty temporary directory (os.tmpname gives a unique file).
local tmp_count = 0
function M.tmpdir()
  if M.windows then
    tmp_count = tmp_count + 1
    local name = ("%s\\t%d-%d"):format(win_tmp, os.time(), tmp_count)
    M.mkdir(name)
    return name
  end
  local name = os.tmpname()
  os.remove(name)
  local _, ok = M.sh("mkdir -m 700 " .. M.sh_quote(name))
  assert(ok, "mkdir failed")
  return name
end

function M.rmtree(dir)
  if M.windows then
    -- rm -rf on the Linux side: it never follows the tree's links.
    M.linux("rm -rf " .. M.sh_quote(linux_path(dir)))
    return
  end
  assert(dir:match("^/tmp/"), "refusing to remove " .. dir)
  M.sh("rm -rf " .. M.sh_quote(dir))
end

function M.mkdir(path)
  if M.windows then
    path = path:gsub("/", "\\")
    if cmd_retrying(('if not exist "%s\\" mkdir "%s"'):format(path, path)) then return end
    error("mkdir failed: " .. path)
  end
  local _, ok = M.sh("mkdir -p " .. M.sh_quote(path))
  assert(ok, "mkdir -p failed")
end

function M.write(path, content)
  -- (the Windows C library reads a file name in the ANSI code page, not
  -- UTF-8: a name beyond ASCII is given its name on the Linux side)
  local final
  if M.windows and path:find("[\128-\255]") then
    bridge_count = bridge_count + 1
    final, path = path, ("%s\\name-%d-%d"):format(win_tmp, os.time(), bridge_count)
  end
  local f = assert(io.open(path, "wb"))
  f:write(content or "")
  f:close()
  if final then M.linux("mv " .. M.sh_quote(linux_path(path)) .. " " .. M.sh_quote(linux_path(final))) end
end

-- Symbolic links: each {target, path}, made at once (on the Linux side
-- under wine, which cannot make them; wine then shows each as a reparse
-- point).
function M.symlinks(list)
  local lines = {}
  for i, l in ipairs(list) do
    local target, path = l[1], l[2]
    if M.windows then path = linux_path(path) end
    lines[i] = "ln -s " .. M.sh_quote(target) .. " " .. M.sh_quote(path)
  end
  if M.windows then
    M.linux(table.concat(lines, "\n"))
  else
    local _, ok = M.sh(table.concat(lines, " && "))
    assert(ok, "ln -s failed")
  end
end

function M.symlink(target, path)
  M.symlinks { { target, path } }
end

-- Whether a path exists / is a directory (links followed).
function M.exists(path)
  if M.windows then return os.execute(('if exist "%s" (exit 0) else (exit 1)'):format((path:gsub("/", "\\")))) == true end
  local _, ok = M.sh("test -e " .. M.sh_quote(path))
  return ok == true
end

function M.is_dir(path)
  if M.windows then -- (there, a folder exists but does not open as a file)
    local f = io.open(path, "rb")
    if f then f:close() end
    return f == nil and M.exists(path)
  end
  local _, ok = M.sh("test -d " .. M.sh_quote(path))
  return ok == true
end

-- The names in a directory, "." and ".." left out, sorted.
function M.listdir(dir)
  local out = M.windows and M.sh(('dir /b /a "%s"'):format(dir:gsub("/", "\\")))
    or M.sh("ls -A " .. M.sh_quote(dir))
  local names = {}
  for name in out:gmatch("[^\r\n]+") do names[#names + 1] = name end
  table.sort(names)
  return names
end

-- Runs a Lua script (a string) in a fresh interpreter of the same kind
-- (PATHGATE_LUA, else the running one); returns its output and whether it
-- exited 0.
function M.run_lua(script, dir)
  local lua = os.getenv("PATHGATE_LUA") or arg and arg[-1] or "lua5.4"
  local file = dir .. M.sep .. "script.lua"
  M.write(file, script)
  if M.windows then
    return M.sh(('""%s" "%s" 2>&1"'):format(lua, file))
  end
  return M.sh(M.sh_quote(lua) .. " " .. M.sh_quote(file) .. " 2>&1")
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
--   repo/dangling -> ../outside/missing (not under wine: M.file_links),
--   game/readme.txt,
--   mods/some/descriptor.mod, outside/secret.txt
function M.make_tree()
  local t = { top = M.tmpdir() }
  local s = M.sep
  t.repo, t.game = t.top .. s .. "repo", t.top .. s .. "game"
  t.mod, t.outside = t.top .. s .. "mods" .. s .. "some", t.top .. s .. "outside"
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
  local links = { { "../outside", t.repo .. "/escape" }, { "common", t.repo .. "/inner" } }
  if M.file_links then table.insert(links, { "../outside/missing", t.repo .. "/dangling" }) end
  M.symlinks(links)
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
