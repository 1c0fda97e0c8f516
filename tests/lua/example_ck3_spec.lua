-- example_ck3_spec.lua - runs examples/lua/ck3_mod_tool.lua (the Crusader
-- Kings III modder's example) on a small synthetic game and two mods, as a
-- user would run it, and checks its four answers: the overridden files,
-- the trait definitions found by regex, a window of a large file, and the
-- merged patch written into the output mod through a handle. A mod's
-- hostile symlink leading out of it must change nothing.
local H = require "helpers"

local slurp = H.slurp

local function lua_exe()
  return os.getenv("PATHGATE_LUA") or "lua5.4"
end

local function cpath()
  local bin = os.getenv("PATHGATE_BINARY_DIR")
  return (bin and (bin .. "/lua/?.so;") or "") .. package.cpath
end

local TRAITS = [[
brave = {
	category = personality
	diplomacy = 1
}

craven = {
	category = personality
	intrigue = 1
}
]]

describe("examples/lua/ck3_mod_tool.lua", function()
  local top
  before_each(function() top = H.tmpdir() end)
  after_each(function() H.rmtree(top) end)

  it("lists overrides, greps traits, reads a window and writes a merged patch", function()
    local game, out = top .. "/game", top .. "/out"
    local a, b = top .. "/mods/Better Traits", top .. "/mods/Localized"
    for _, d in ipairs({ game .. "/common/traits", game .. "/localization/english",
                         a .. "/common/traits", b .. "/localization/english", out,
                         top .. "/outside" }) do
      H.mkdir(d)
    end
    H.write(game .. "/common/traits/00_traits.txt", TRAITS)
    local loc = { "l_english:" }
    for i = 1, 5000 do loc[#loc + 1] = (" trait_%d:0 \"Trait number %d\""):format(i, i) end
    H.write(game .. "/localization/english/traits_l_english.yml", table.concat(loc, "\n") .. "\n")
    -- mod A overrides the game's traits file and adds one of its own
    H.write(a .. "/common/traits/00_traits.txt", "brave = {\n\tcategory = personality\n" ..
            "\tdiplomacy = 2\n}\n")
    H.write(a .. "/common/traits/a_traits.txt", "  zealous = { # comment\n\tpiety = 1\n}\n" ..
            "not_a_trait\n")
    -- mod B overrides the localization and redefines brave (B wins: last)
    H.write(b .. "/localization/english/traits_l_english.yml", "l_english:\n")
    H.mkdir(b .. "/common/traits")
    H.write(b .. "/common/traits/b_traits.txt", "brave = {\n\tprowess = 3\n}\n")
    -- a hostile link in mod B, out of every base
    H.write(top .. "/outside/secret.txt", "secret\n")
    H.symlink("../../../outside/secret.txt", b .. "/common/traits/zz_steal.txt")

    local cmd = ("LUA_CPATH=%s %s %s %s %s %s %s 2>&1"):format(
      H.sh_quote(cpath()), lua_exe(),
      H.sh_quote(H.source_dir .. "/examples/lua/ck3_mod_tool.lua"),
      H.sh_quote(game), H.sh_quote(out), H.sh_quote(a), H.sh_quote(b))
    local output, ok = H.sh(cmd)
    assert(ok, output)
    local lines = {}
    for l in output:gmatch("[^\n]+") do lines[#lines + 1] = l end

    local function having(prefix)
      local got = {}
      for _, l in ipairs(lines) do
        if l:sub(1, #prefix) == prefix then got[#got + 1] = l end
      end
      return got
    end
    assert.same({ "override\tBetter Traits\tcommon/traits/00_traits.txt",
                  "override\tLocalized\tlocalization/english/traits_l_english.yml" },
                having("override"))
    assert.same({
      "trait\tbrave\troot:game/common/traits/00_traits.txt:1",
      "trait\tcraven\troot:game/common/traits/00_traits.txt:6",
      "trait\tbrave\tmod:Better Traits/common/traits/00_traits.txt:1",
      "trait\tzealous\tmod:Better Traits/common/traits/a_traits.txt:1",
      "trait\tbrave\tmod:Localized/common/traits/b_traits.txt:1",
    }, having("trait"))
    assert.same({ "window\t1000\t trait_999:0 \"Trait number 999\"",
                  "window\t1001\t trait_1000:0 \"Trait number 1000\"",
                  "window\t1002\t trait_1001:0 \"Trait number 1001\"",
                  "window\t1003\t trait_1002:0 \"Trait number 1002\"",
                  "window\t1004\t trait_1003:0 \"Trait number 1003\"" }, having("window"))
    assert.same({ "patch\troot:out/common/traits/zz_merged_traits.txt\t2" }, having("patch"))
    assert.same({ "game write\tpermission_denied\tPermission denied: " ..
                  "'root:game/common/traits/00_traits.txt'" }, having("game write"))

    local patch = slurp(out .. "/common/traits/zz_merged_traits.txt")
    assert.equal("# merged by ck3_mod_tool.lua: the last mod defining a trait wins\n" ..
                 "# from mod:Localized/common/traits/b_traits.txt:1\n" ..
                 "brave = {\n\tprowess = 3\n}\n" ..
                 "# from mod:Better Traits/common/traits/a_traits.txt:1\n" ..
                 "  zealous = { # comment\n\tpiety = 1\n}\n", patch)
    -- nothing else changed: the game, the mods, the outside
    assert.equal(TRAITS, slurp(game .. "/common/traits/00_traits.txt"))
    assert.equal("secret\n", slurp(top .. "/outside/secret.txt"))
    assert.is_nil(output:find(top, 1, true)) -- no host path in anything it printed
    assert.equal("", (H.sh("ls -A " .. H.sh_quote(out .. "/common/traits")):gsub(
      "zz_merged_traits.txt\n", "")))
  end)
end)
