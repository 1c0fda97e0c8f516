-- bench_handles.lua DIR ROUNDS - the Lua half of bench/bench_handles.py:
-- io.open(path, "rb"):read("a") against r:open(address, "rb"):read("a")
-- on DIR/big.txt (and :lines() over it), the candidates alternating round
-- by round, best round compared. Prints a table and "RATIO name best
-- median" lines for the driver. Asserts nothing about time.
local pathgate = require "pathgate"

local dir, rounds = arg[1], tonumber(arg[2] or "7")
local path = dir .. "/big.txt"
local r = assert(pathgate.Resolver{ roots = { bench = dir } })

local function best_and_median(t)
  table.sort(t)
  return t[1], t[(#t + 1) // 2]
end

local function compare(label, base_name, base, pg_name, pg)
  local tb, tp, nb, np = {}, {}, nil, nil
  for i = 1, rounds do
    local order = (i % 2 == 1) and { { base, tb, "b" }, { pg, tp, "p" } }
      or { { pg, tp, "p" }, { base, tb, "b" } }
    for _, c in ipairs(order) do
      collectgarbage("collect") -- no earlier round's garbage in this one
      local t0 = os.clock() -- CPU time (Lua has no finer wall clock)
      local n = c[1]()
      c[2][#c[2] + 1] = os.clock() - t0
      if c[3] == "b" then nb = n else np = n end
    end
  end
  assert(nb == np, label .. ": counts differ")
  local bb, bm = best_and_median(tb)
  local pb, pm = best_and_median(tp)
  print(("%-24s %-28s best %9.1f ms  median %9.1f ms"):format(label, base_name, bb * 1e3,
                                                              bm * 1e3))
  print(("%-24s %-28s best %9.1f ms  median %9.1f ms   ratio %.3fx   (%d counted)"):format(
    "", pg_name, pb * 1e3, pm * 1e3, pb / bb, nb))
  return pb / bb, pm / bm
end

local function io_read()
  local f = assert(io.open(path, "rb"))
  local n = #f:read("a")
  f:close()
  return n
end

local function pg_read()
  local f = assert(r:open("root:bench/big.txt", "rb"))
  local n = #f:read("a")
  f:close()
  return n
end

local function io_lines()
  local n = 0
  for _ in io.lines(path) do n = n + 1 end
  return n
end

local function pg_lines()
  local n = 0
  for _ in r:lines("root:bench/big.txt") do n = n + 1 end
  return n
end

io_read()
print(("# lua: %s, best of %d rounds (CPU time)"):format("io.open vs r:open", rounds))
print(("RATIO lua_read_rb %f %f"):format(
  compare("lua open+read('a')", "io.open()", io_read, "r:open()", pg_read)))
print(("RATIO lua_lines %f %f"):format(
  compare("lua lines", "io.lines()", io_lines, "r:lines()", pg_lines)))
