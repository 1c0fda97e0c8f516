-- spec_runner.lua - runs busted-style spec files with plain Lua, where busted
-- cannot go (the Windows lua.exe under wine; docs/windows.md).
--
--   lua spec_runner.lua SPEC.lua...
--
-- The subset of busted the specs it runs use: describe, it, setup,
-- teardown, before_each, after_each, pending (inside a case: the case is
-- skipped, its reason printed), and assert with are.equal, are.same,
-- is_true, is_false, is_nil, is_string, is_number, is_table, is_function,
-- is_truthy, matches, has_error, has_no.errors and their is_not / are_not
-- negations. Prints one line per skipped case, one per failure and a
-- summary line; exits 1 when anything failed or nothing ran.

local function fmt(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

local function show(v)
  if type(v) ~= "table" then return fmt(v) end
  local keys, parts = {}, {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do parts[#parts + 1] = "[" .. fmt(k) .. "]=" .. show(v[k]) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local function deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do if not deep_equal(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- Each check: returns ok, message.
local checks = {
  equal = function(e, g) return e == g, ("expected %s, got %s"):format(fmt(e), fmt(g)) end,
  same = function(e, g) return deep_equal(e, g), ("expected %s, got %s"):format(show(e), show(g)) end,
  ["true"] = function(v) return v == true, "expected true, got " .. fmt(v) end,
  ["false"] = function(v) return v == false, "expected false, got " .. fmt(v) end,
  ["nil"] = function(v) return v == nil, "expected nil, got " .. fmt(v) end,
  string = function(v) return type(v) == "string", "expected a string, got " .. fmt(v) end,
  number = function(v) return type(v) == "number", "expected a number, got " .. fmt(v) end,
  truthy = function(v) return not not v, "expected a truthy value, got " .. fmt(v) end,
  falsy = function(v) return not v, "expected a falsy value, got " .. fmt(v) end,
  matches = function(p, s, init, plain)
    return type(s) == "string" and s:find(p, init, plain) ~= nil, ("%s does not match %s"):format(fmt(s), fmt(p))
  end,
  ["function"] = function(v) return type(v) == "function", "expected a function, got " .. fmt(v) end,
  table = function(v) return type(v) == "table", "expected a table, got " .. fmt(v) end,
  boolean = function(v) return type(v) == "boolean", "expected a boolean, got " .. fmt(v) end,
  userdata = function(v) return type(v) == "userdata", "expected a userdata, got " .. fmt(v) end,
  error = function(f, want)
    local ok, err = pcall(f)
    if ok then return false, "expected an error" end
    if want ~= nil and err ~= want and not tostring(err):find(want, 1, true) then
      return false, ("error %s, expected %s"):format(fmt(err), fmt(want))
    end
    return true, ""
  end,
}
checks.errors = checks.error
checks.match = checks.matches
checks.equals = checks.equal
checks.error_matches = function(f, p)
  local ok, err = pcall(f)
  return not ok and tostring(err):find(p) ~= nil, "error " .. fmt(err) .. " does not match " .. fmt(p)
end

local function checker(negate)
  return setmetatable({}, {
    __index = function(_, key)
      if key == "is_not" or key == "are_not" or key == "has_no" then return checker(not negate) end
      local rest = key:match("^is_not_(.+)$") or key:match("^are_not_(.+)$") or key:match("^has_no_(.+)$")
      if rest then return checker(not negate)[rest] end
      local name = key:gsub("^is_", ""):gsub("^are_", ""):gsub("^has_", ""):gsub("^no_", "")
      if key == "are" or key == "is" or key == "has" or key == "does" then return checker(negate) end
      local check = checks[name]
      if not check then error("spec_runner: unknown assertion " .. key, 2) end
      return function(...)
        local ok, msg = check(...)
        if negate then ok, msg = not ok, "expected the opposite: " .. msg end
        if not ok then error(msg, 2) end
        return ...
      end
    end,
    __call = function(_, v, msg, ...)
      if not v then error(msg or "assertion failed!", 2) end
      return v, msg, ...
    end,
  })
end
assert = checker(false)

-- The tree of describe blocks, run as it is declared.
local passed, failed, skipped, failures, skips = 0, 0, 0, {}, {}
-- pending(why) inside a case stops it and counts it as skipped.
local PENDING = {}
local in_case = false
local stack = { { name = "", before = {}, after = {} } }

local function run_hooks(kind)
  if kind == "before" then
    for i = 1, #stack do for _, f in ipairs(stack[i].before) do f() end end
  else
    for i = #stack, 1, -1 do for _, f in ipairs(stack[i].after) do f() end end
  end
end

local function full_name(name)
  local parts = {}
  for i = 2, #stack do parts[#parts + 1] = stack[i].name end
  parts[#parts + 1] = name
  return table.concat(parts, " ")
end

function describe(name, body)
  local block = { name = name, before = {}, after = {}, teardown = {} }
  stack[#stack + 1] = block
  local ok, err = xpcall(body, debug.traceback)
  if not ok then
    failed = failed + 1
    failures[#failures + 1] = full_name("(describe)") .. ": " .. tostring(err)
  end
  for _, f in ipairs(block.teardown) do f() end
  stack[#stack] = nil
end
context = describe

function it(name, body)
  in_case = true
  local ok, err = xpcall(function()
    run_hooks("before")
    body()
  end, function(e)
    if type(e) == "table" and e[PENDING] then return e end
    return debug.traceback(e)
  end)
  in_case = false
  local ok2, err2 = pcall(run_hooks, "after")
  if not ok and type(err) == "table" and err[PENDING] then
    skipped = skipped + 1
    skips[#skips + 1] = full_name(name) .. ": " .. err[PENDING]
    if not ok2 then
      failed = failed + 1
      failures[#failures + 1] = full_name(name) .. ": " .. tostring(err2)
    end
  elseif ok and ok2 then
    passed = passed + 1
  else
    failed = failed + 1
    failures[#failures + 1] = full_name(name) .. ": " .. tostring(ok and err2 or err)
  end
end

-- pending(why): inside a case, stops it as skipped; outside, a case
-- declared but not written (busted's meaning).
function pending(why)
  if in_case then error({ [PENDING] = why or "pending" }, 0) end
  skipped = skipped + 1
  skips[#skips + 1] = full_name(why or "pending") .. ": pending"
end
function setup(f) f() end
function teardown(f) table.insert(stack[#stack].teardown, f) end
function before_each(f) table.insert(stack[#stack].before, f) end
function after_each(f) table.insert(stack[#stack].after, f) end
lazy_setup, lazy_teardown, strict_setup, strict_teardown = setup, teardown, setup, teardown

for _, file in ipairs(arg) do
  local chunk, err = loadfile(file)
  if not chunk then
    failed = failed + 1
    failures[#failures + 1] = err
  else
    describe(file:match("[^/\\]+$"), chunk)
  end
end
for _, f in ipairs(skips) do io.write("SKIPPED: ", f, "\n") end
for _, f in ipairs(failures) do io.write("FAILED: ", f, "\n") end
io.write(("%d successes / %d failures / %d skipped (%s)\n"):format(passed, failed, skipped, _VERSION))
os.exit(failed == 0 and passed > 0 and 0 or 1)
