#!/usr/bin/env lua5.4
--[[
ck3_mod_tool.lua - what a Crusader Kings III modder does every day, with
every file reached through pathgate: the game and the mods are read-only
bases, only the output mod can be written, and nothing outside them can be
reached whatever a mod's files or symlinks say.

    lua5.4 examples/lua/ck3_mod_tool.lua GAME_DIR OUTPUT_MOD_DIR MOD_DIR...

(with pathgate.so on LUA_CPATH). On Windows the folders are Windows paths
and pathgate.dll sits next to lua.exe (docs/windows.md):

    lua.exe ck3_mod_tool.lua "C:\Program Files (x86)\Steam\steamapps\common\Crusader Kings III\game" ^
      "%USERPROFILE%\Documents\Paradox Interactive\Crusader Kings III\mod\Merged" ^
      "%USERPROFILE%\Documents\Paradox Interactive\Crusader Kings III\mod\Better Traits"

It

  1. lists the files each mod overrides relative to the game (same path
     under the mod as under the game);
  2. greps trait definitions (`name = {` at the start of a line in
     common/traits/*.txt) across the game and every mod with a regular
     expression;
  3. reads a window of a large file (lines 1000-1004 of the game's English
     trait localization) through a file handle, without reading the rest;
  4. writes a merged patch into the output mod through a handle: every
     trait a mod (re)defines, last mod winning, as
     common/traits/zz_merged_traits.txt. The file takes its name only when
     the handle is closed, so a failure never leaves half a patch.

Mods are named by their directory's last component (`mod:<Name>/...`).
]]

local pathgate = require "pathgate"

-- The folder's last name; `\` separates names too on Windows.
local function basename(dir)
  local sep = package.config:sub(1, 1) == "\\" and "/\\" or "/"
  return (dir:gsub("[" .. sep .. "]+$", ""):match("([^" .. sep .. "]+)$"))
end

-- The resolver: the game and the mods read-only, the output mod writable.
local function open_bases(game, out, mods)
  local mod_bases, names = {}, {}
  for _, dir in ipairs(mods) do
    local name = basename(dir)
    mod_bases[name] = dir
    names[#names + 1] = name
  end
  local read_only = { "game" }
  for _, name in ipairs(names) do read_only[#read_only + 1] = name end
  local r = assert(pathgate.Resolver{
    roots = { { "game", game }, { "out", out } },
    mods = mod_bases,
    read_only = read_only,
  })
  return r, names
end

-- 1. the files a mod overrides: every file of the mod whose path also names
--    a file of the game
local function overrides(r, mod)
  local found = {}
  local prefix = "mod:" .. mod .. "/"
  for dir, _, files in r:walk("mod:" .. mod) do
    for _, f in ipairs(files) do
      local rel = (dir .. "/" .. f):sub(#prefix + 1)
      if r:isfile("root:game/" .. rel) then found[#found + 1] = rel end
    end
  end
  table.sort(found)
  return found
end

-- 2. trait definitions: { {base=, trait=, path=, line=}, ... }
local TRAIT = [[^\s*([a-z][a-z0-9_]*)\s*=\s*\{]]

local function trait_definitions(r, base)
  local defs = {}
  local matches = r:grep(TRAIT, base .. "/common/traits", { glob = "*.txt", regex = true })
  for _, m in ipairs(matches or {}) do
    defs[#defs + 1] = { base = base, trait = m.text:match("^%s*([%w_]+)"), path = m.path,
                        line = m.line }
  end
  return defs
end

-- 3. lines first .. first + count - 1 of a file, through a handle
local function window(r, path, first, count)
  local out = {}
  local n = 0
  for line in r:lines(path) do -- the handle closes when the loop ends
    n = n + 1
    if n >= first then out[#out + 1] = line end
    if n == first + count - 1 then break end
  end
  return out
end

-- The text of a trait's block: from its definition line to the line where
-- its braces balance (CK3 scripts keep blocks brace-balanced).
local function block(r, path, line)
  local f = assert(r:open(path))
  local out, depth, n = {}, 0, 0
  for text in f:lines() do
    n = n + 1
    if n >= line then
      out[#out + 1] = text
      local opens = select(2, text:gsub("{", ""))
      local closes = select(2, text:gsub("}", ""))
      depth = depth + opens - closes
      if depth <= 0 then break end
    end
  end
  f:close()
  return table.concat(out, "\n")
end

-- 4. the merged patch: every trait the mods define, the last mod winning
local function write_patch(r, mods)
  local winner, order = {}, {}
  for _, mod in ipairs(mods) do
    for _, d in ipairs(trait_definitions(r, "mod:" .. mod)) do
      if not winner[d.trait] then order[#order + 1] = d.trait end
      winner[d.trait] = d
    end
  end
  table.sort(order)
  local path = "root:out/common/traits/zz_merged_traits.txt"
  assert(r:mkdir("root:out/common/traits", true))
  local f <close> = assert(r:open(path, "w"))
  f:write("# merged by ck3_mod_tool.lua: the last mod defining a trait wins\n")
  for _, trait in ipairs(order) do
    local d = winner[trait]
    f:write("# from ", d.path, ":", d.line, "\n", block(r, d.path, d.line), "\n")
  end
  return path, #order
end

local function main(argv)
  if #argv < 3 then
    io.stderr:write("usage: ck3_mod_tool.lua GAME_DIR OUTPUT_MOD_DIR MOD_DIR...\n")
    return 2
  end
  local mod_dirs = {}
  for i = 3, #argv do mod_dirs[#mod_dirs + 1] = argv[i] end
  local r, mods = open_bases(argv[1], argv[2], mod_dirs)

  for _, mod in ipairs(mods) do
    for _, rel in ipairs(overrides(r, mod)) do print("override", mod, rel) end
  end

  local all = trait_definitions(r, "root:game")
  for _, mod in ipairs(mods) do
    for _, d in ipairs(trait_definitions(r, "mod:" .. mod)) do all[#all + 1] = d end
  end
  for _, d in ipairs(all) do print("trait", d.trait, d.path .. ":" .. d.line) end

  local loc = "root:game/localization/english/traits_l_english.yml"
  for i, line in ipairs(window(r, loc, 1000, 5)) do print("window", 999 + i, line) end

  local path, n = write_patch(r, mods)
  print("patch", path, n)

  -- the game cannot be written, whatever the mods' symlinks say
  local f, msg, code = r:open("root:game/common/traits/00_traits.txt", "w")
  print("game write", f and "allowed" or code, msg)
  return 0
end

os.exit(main(arg))
