-- bench_lua.lua - what the Lua binding adds over the C calls it wraps.
--
--   lua5.4 bench/bench_lua.lua [BUILD_DIR [ITERATIONS [ROUNDS]]]
--
-- Runs the same operations through `require "pathgate"` (BUILD_DIR/lua) and
-- through the C API (BUILD_DIR/bench/bench_lua_c, built by the bench glob).
-- Rounds of ITERATIONS alternate between Lua and C so that load from other
-- processes hits both alike; each side keeps its best of ROUNDS. Process
-- CPU time on both sides, garbage collection included on the Lua side.
-- Prints one table with the ratio. A measurement, not a test: it asserts
-- nothing about time.
local build = arg[1] or "build"
local ITERATIONS = tonumber(arg[2]) or 200000
local ROUNDS = tonumber(arg[3]) or 5
package.cpath = build .. "/lua/?.so;" .. package.cpath
local pathgate = require "pathgate"

local ADDRESS = "root:repo/common/traits/00_traits.txt"
local NATIVE = "/home/user/projects/mod/common/traits/00_traits.txt"
local URI = "file:///home/user/projects/mod/common/traits/00_traits.txt"

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- A root holding ADDRESS.
local top = os.tmpname()
os.remove(top)
assert(os.execute("mkdir -p " .. q(top .. "/common/traits")))
assert(io.open(top .. "/common/traits/00_traits.txt", "w")):close()

local r = assert(pathgate.Resolver { roots = { repo = top } })
local PathUri = pathgate.PathUri
local u = assert(PathUri.parse(URI))

-- One explicit loop per operation (no closure call per iteration), each
-- doing exactly what the matching op of bench_lua_c.c does.
local loops = {
  resolve = function(n)
    for _ = 1, n do
      local res = r:resolve(ADDRESS)
      r:release(res.ref)
    end
  end,
  from_native = function(n)
    for _ = 1, n do local _ = PathUri.from_native(NATIVE) end
  end,
  parse = function(n)
    for _ = 1, n do local _ = PathUri.parse(URI) end
  end,
  to_native = function(n)
    for _ = 1, n do local _ = u:to_native() end
  end,
}
local ORDER = { "resolve", "from_native", "parse", "to_native" }

-- Sanity: the Lua side does real work.
do
  local res = r:resolve(ADDRESS)
  assert(res.ok and tostring(res.ref) == ADDRESS)
  r:release(res.ref)
  assert(tostring(PathUri.from_native(NATIVE)) == URI)
  assert(u:to_native() == NATIVE)
end

local function c_round(name)
  local cmd = ("%s %s %d 1 %s"):format(q(build .. "/bench/bench_lua_c"), q(top), ITERATIONS, name)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  local ok = p:close()
  local ns = tonumber(out:match("^" .. name .. " (%S+)"))
  if not (ok and ns) then
    os.execute("rm -rf " .. q(top))
    error("bench_lua_c failed (build it: cmake --build " .. build .. " --target bench_lua_c)")
  end
  return ns
end

local lua_ns, c_ns = {}, {}
for _, name in ipairs(ORDER) do
  for _ = 1, ROUNDS do
    collectgarbage("collect")
    local t0 = os.clock()
    loops[name](ITERATIONS)
    local per = (os.clock() - t0) / ITERATIONS * 1e9
    lua_ns[name] = math.min(lua_ns[name] or math.huge, per)
    c_ns[name] = math.min(c_ns[name] or math.huge, c_round(name))
  end
end
assert(#r == 0, "every token was released")
os.execute("rm -rf " .. q(top))

print(("pathgate Lua binding vs C, %d iterations, best of %d rounds, CPU ns per operation")
  :format(ITERATIONS, ROUNDS))
print(("| %-11s | %9s | %9s | %8s | %6s | %8s |"):format("operation", "C ns/op", "Lua ns/op",
  "added ns", "Lua/C", "overhead"))
print("|-------------|-----------|-----------|----------|--------|----------|")
for _, name in ipairs(ORDER) do
  local c, l = c_ns[name], lua_ns[name]
  print(("| %-11s | %9.1f | %9.1f | %8.1f | %5.2fx | %+7.1f%% |"):format(name, c, l, l - c, l / c,
    (l / c - 1) * 100))
end
print("goal: the binding adds at most 30% over the C call")
