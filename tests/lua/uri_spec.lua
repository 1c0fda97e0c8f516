-- uri_spec.lua - pathgate.PathUri through the Lua front end: every row of
-- tests/data/uri_cases.tsv, the invariants the table asks readers to check,
-- and the Lua conventions (nil, msg, code; misuse raises; NUL; <close>).
local pathgate = require "pathgate"
local helpers = require "helpers"
-- The host's convention: the Windows build runs this spec too (docs/windows.md).
local host = package.config:sub(1, 1) == "\\" and "windows" or "posix"
local PathUri = pathgate.PathUri

local CONV = { posix = "posix", windows = "windows", infer = nil }

local function must_parse(text)
  local uri, msg = PathUri.parse(text)
  assert(uri, "setup parse of " .. tostring(text) .. " failed: " .. tostring(msg))
  return uri
end

-- Converts `value, msg, code` to the table's notation.
local function outcome(value, msg, code)
  if value == nil and code ~= nil then
    assert(type(msg) == "string" and #msg > 0, "an error return carries a message")
    return "!" .. code
  end
  if value == nil then return nil end
  if type(value) == "boolean" then return tostring(value) end
  return tostring(value)
end

local ops = {}
function ops.parse(c) return outcome(PathUri.parse(c.input)) end
function ops.from_native(c) return outcome(PathUri.from_native(c.input, CONV[c.arg])) end
function ops.to_native(c) return outcome(must_parse(c.input):to_native(CONV[c.arg])) end
function ops.native_roundtrip(c)
  local uri, msg, code = PathUri.from_native(c.input, CONV[c.arg])
  if not uri then return outcome(uri, msg, code) end
  return outcome(uri:to_native(CONV[c.arg]))
end
function ops.parent(c) return outcome(must_parse(c.input):parent()) end
function ops.basename(c) return outcome(must_parse(c.input):basename()) end
function ops.join(c) return outcome(must_parse(c.input):join(c.arg)) end
function ops.join_descendant(c) return outcome(must_parse(c.input):join_descendant(c.arg)) end
function ops.starts_with(c) return outcome(must_parse(c.input):starts_with(must_parse(c.arg))) end
function ops.relative_to(c) return outcome(must_parse(c.input):relative_to(must_parse(c.arg))) end
function ops.equal(c) return outcome(must_parse(c.input) == must_parse(c.arg)) end
function ops.convention(c) return outcome(must_parse(c.input):convention()) end
function ops.is_opaque(c) return outcome(must_parse(c.input):is_opaque()) end
function ops.display(c) return outcome(must_parse(c.input):display()) end
function ops.host_path(c) return outcome(must_parse(c.input):to_host_path()) end
local Legacy = pathgate.LegacyAppPathString
function ops.from_uri(c) return outcome(Legacy.from_uri(must_parse(c.input), CONV[c.arg])) end
function ops.legacy_to_uri(c) return outcome(Legacy(c.input):to_uri(CONV[c.arg])) end
function ops.ancestors(c)
  local names = {}
  for i, a in ipairs(must_parse(c.input):ancestors()) do names[i] = tostring(a) end
  return table.concat(names, " ")
end
function ops.encoded_path(c) return outcome(must_parse(c.input):encoded_path()) end
function ops.decoded_path(c) return outcome(must_parse(c.input):decoded_path_bytes()) end
function ops.lexical_depth(c) return outcome(must_parse(c.input):lexical_depth()) end
function ops.overlaps(c)
  local a, b = must_parse(c.input), must_parse(c.arg)
  assert(a:overlaps(b) == b:overlaps(a), "overlaps is symmetric")
  return outcome(a:overlaps(b))
end
function ops.path_segments(c)
  return table.concat(pathgate.path_segments(c.input, c.arg), "|")
end
function ops.home_suffix(c) return outcome(pathgate.home_relative_suffix(c.input, c.arg)) end
function ops.device_path(c) return outcome(pathgate.normalize_windows_device_path(c.input)) end
function ops.platform(c) return outcome(pathgate.platform_convention(c.input)) end
function ops.join_bytes(c) return outcome(must_parse(c.input):join_bytes(c.arg)) end
local function config_args(c)
  local conv, base, home = c.arg:match("^(%S+) (%S+) (%S+)$")
  base = base ~= "-" and must_parse(base) or nil
  home = home ~= "-" and must_parse(home) or nil
  return base, home, CONV[conv]
end
function ops.resolve_config(c) return outcome(Legacy(c.input):resolve_config(config_args(c))) end
function ops.config_path(c)
  local base, home, conv = config_args(c)
  local uri, msg, code = Legacy(c.input):resolve_config(base, home, conv)
  if not uri then return outcome(uri, msg, code) end
  return outcome(uri:to_config_path(conv))
end
function ops.validate_config(c)
  local ok, msg, code = must_parse(c.input):validate_config(CONV[c.arg])
  if ok then return "ok" end
  return outcome(ok, msg, code)
end
function ops.validate_glob(c)
  local ok, msg, code = must_parse(c.input):validate_glob_directory(CONV[c.arg])
  if ok then return "ok" end
  return outcome(ok, msg, code)
end
function ops.legacy_roundtrip(c)
  local uri, msg, code = Legacy(c.input):to_uri(CONV[c.arg])
  if not uri then return outcome(uri, msg, code) end
  return outcome(Legacy.from_uri(uri, CONV[c.arg]))
end

for _, table_name in ipairs { "uri_cases.tsv", "uri_codex.tsv" } do
describe("PathUri table cases (tests/data/" .. table_name .. ")", function()
  -- host_path rows name the host they are for: only this host's run.
  local cases = {}
  for _, c in ipairs(helpers.uri_cases(table_name)) do
    if c.op ~= "host_path" or c.arg == host then cases[#cases + 1] = c end
  end

  it("has a substantial table with every op known", function()
    assert.is_true(#cases > 50)
    for _, c in ipairs(cases) do
      assert.is_not_nil(ops[c.op], "line " .. c.line .. ": unknown op " .. c.op)
    end
  end)

  for _, c in ipairs(cases) do
    it(("line %d: %s %q %q"):format(c.line, c.op, c.input or "\\N", c.arg or "\\N"), function()
      local got = ops[c.op](c)
      assert.are.equal(c.expected, got)
      -- Invariant: a successful parse/from_native result parses back to
      -- the same string and an equal URI.
      if (c.op == "parse" or c.op == "from_native") and got and got:sub(1, 1) ~= "!" then
        local again = must_parse(got)
        assert.are.equal(got, tostring(again))
        local first = c.op == "parse" and PathUri.parse(c.input)
          or PathUri.from_native(c.input, CONV[c.arg])
        assert.is_true(first == again)
      end
    end)
  end
end)
end

describe("PathUri objects", function()
  it("are userdata named pathgate.PathUri whose string is the URI", function()
    local u = must_parse("file:///a/b%20c")
    assert.are.equal("userdata", type(u))
    assert.are.equal("pathgate.PathUri", getmetatable(u))
    assert.are.equal("file:///a/b%20c", tostring(u))
  end)

  it("expose the Python names as methods", function()
    local u = must_parse("file:///a/b%20c")
    assert.are.equal("posix", u:convention())
    assert.is_false(u:is_opaque())
    assert.are.equal("file:///a", tostring(u:parent()))
    assert.are.equal("b c", u:basename())
    assert.is_true(u:starts_with(must_parse("file:///a")))
    assert.are.equal("b c", u:relative_to(must_parse("file:///a")))
    assert.are.equal("file:///a/b%20c/d", tostring(u:join("d")))
    assert.are.equal("file:///a/b%20c/d", tostring(u:join_descendant("d")))
    assert.are.equal("/a/b c", u:to_native())
    if host == "posix" then
      assert.are.equal("/a/b c", u:to_host_path())
    else
      assert.are.equal("C:\\a b", must_parse("file:///C:/a%20b"):to_host_path())
    end
    assert.are.equal("/a/b c", u:display())
  end)

  it("return nil (not an error) where there is no answer", function()
    local root = must_parse("file:///")
    assert.is_nil(root:parent())
    assert.is_nil(root:basename())
    assert.are.equal(1, select("#", root:parent()))
    assert.is_nil(must_parse("file:///a"):relative_to(must_parse("file:///b")))
  end)

  it("return nil, message, code on expected failures", function()
    local v, msg, code = PathUri.parse("http://example.com/x")
    assert.is_nil(v)
    assert.are.equal("unsupported_scheme", code)
    assert.is_string(msg)
    v, msg, code = PathUri.from_native("relative/x")
    assert.is_nil(v); assert.are.equal("not_absolute", code); assert.is_string(msg)
    v, msg, code = must_parse("file:///a"):to_native("windows")
    assert.is_nil(v); assert.are.equal("incompatible_convention", code); assert.is_string(msg)
    v, msg, code = must_parse(host == "posix" and "file:///C:/x" or "file:///x"):to_host_path()
    assert.is_nil(v); assert.are.equal("incompatible_convention", code); assert.is_string(msg)
    v, msg, code = must_parse("file:///a"):join_descendant("../b")
    assert.is_nil(v); assert.are.equal("not_descendant", code); assert.is_string(msg)
  end)

  it("refuse an embedded NUL with nul_byte instead of truncating", function()
    for _, f in ipairs {
      function() return PathUri.parse("file:///a\0/b") end,
      function() return must_parse("file:///a"):join("b\0c") end,
      function() return must_parse("file:///a"):join_descendant("b\0c") end,
    } do
      local v, msg, code = f()
      assert.is_nil(v)
      assert.is_string(msg)
      assert.are.equal("nul_byte", code)
    end
    -- Native POSIX text holding NUL has no honest URI: the opaque form
    -- keeps every byte (nothing is cut at the NUL).
    local opaque = assert(PathUri.from_native("/a\0b", "posix"))
    assert.is_true(opaque:is_opaque())
    assert.is_false(opaque == assert(PathUri.from_native("/a")))
    assert.are.equal("file:///%00/bad/path/L2EAYg", tostring(opaque))
  end)

  it("raise on misuse: wrong types, bad conventions, missing arguments", function()
    local u = must_parse("file:///a")
    local function raises(pattern, f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      assert.matches(pattern, err)
    end
    raises("string expected, got number", PathUri.parse, 42)
    raises("string expected, got no value", PathUri.parse)
    raises("string expected, got table", PathUri.from_native, {})
    raises("invalid convention 'mac'", PathUri.from_native, "/x", "mac")
    raises("string expected, got number", PathUri.from_native, "/x", 1)
    raises("pathgate.PathUri expected, got string", u.parent, "file:///a")
    raises("pathgate.PathUri expected, got no value", u.starts_with, u)
    raises("pathgate.PathUri expected, got string", u.relative_to, u, "file:///")
    raises("string expected, got nil", u.join, u, nil)
    raises("invalid convention 'POSIX'", u.to_native, u, "POSIX")
  end)

  it("compare with == as the core does and never equal other types", function()
    assert.is_true(must_parse("file:///C:/X/y") == must_parse("file:///c:/x/Y"))
    assert.is_false(must_parse("file:///a/X") == must_parse("file:///a/x"))
    assert.is_false(must_parse("file:///a") == pathgate.LegacyAppPathString("file:///a"))
    assert.is_false(must_parse("file:///a") == "file:///a")
  end)

  it("support <close> and close idempotently", function()
    local keep
    do
      local u <close> = must_parse("file:///a")
      keep = u
      assert.are.equal("file:///a", tostring(u))
    end
    local ok, err = pcall(keep.parent, keep)
    assert.is_false(ok)
    assert.matches("attempt to use a closed pathgate.PathUri", err)
    assert.are.equal("pathgate.PathUri (closed)", tostring(keep))
    getmetatable(keep) -- the metatable is protected: this returns its name
    local mt_close = debug.getmetatable(keep).__close
    mt_close(keep); mt_close(keep) -- idempotent
    assert.is_false(keep == must_parse("file:///a"))
  end)

  it("survive heavy garbage collection", function()
    local base = must_parse("file:///base")
    for i = 1, 2000 do
      local u = base:join("x" .. i)
      if i % 500 == 0 then helpers.full_gc() end
      assert.are.equal("x" .. i, u:basename())
    end
    helpers.full_gc()
    assert.are.equal("file:///base", tostring(base))
  end)
end)

describe("PathUri: Codex's further operations", function()
  it("lists ancestors as a sequence of PathUri, root last", function()
    local list = must_parse("file:///C:/workspace/src/"):ancestors()
    assert.are.equal(3, #list)
    assert.are.equal("file:///C:/workspace/src/", tostring(list[1]))
    assert.are.equal("file:///C:", tostring(list[3]))
    assert.are.equal("pathgate.PathUri", getmetatable(list[2]))
  end)

  it("walks each parent once, even for a deep URI", function()
    -- the same walk as Python's ancestors() (tests/python/test_uri.py)
    local deep = must_parse("file:///" .. string.rep("a/", 2000) .. "z")
    local list = deep:ancestors()
    assert.are.equal(2002, #list)
    assert.are.equal(deep, list[1])
    assert.are.equal("file:///", tostring(list[#list]))
    for i = 1, #list - 1 do
      assert.are.equal(list[i]:parent(), list[i + 1])
    end
  end)

  it("answers nil where Codex answers None", function()
    assert.is_nil(must_parse("file:///a%2Fb"):lexical_depth())
    assert.is_nil(must_parse("file:///a%2Fb"):overlaps(must_parse("file:///")))
    assert.are.equal(1, select("#", must_parse("file:///a%2Fb"):overlaps(must_parse("file:///"))))
    assert.is_nil(pathgate.normalize_windows_device_path("C:\\x"))
    assert.is_nil(pathgate.platform_convention(nil))
  end)

  it("joins raw bytes, NUL refused with nul_byte", function()
    local base = must_parse("file:///root/%FE/admin")
    assert.are.equal("file:///root/%FE/%FF/%252e%3F%23%5C", tostring(base:join_bytes("../\xff/%2e?#\\")))
    local v, msg, code = base:join_bytes("a\0b")
    assert.is_nil(v); assert.is_string(msg); assert.are.equal("nul_byte", code)
  end)

  it("takes text as strings only, as Python takes str (one table: bindings/uri_ops.h)", function()
    assert.has_error(function() pathgate.path_segments(12, "posix") end)
    assert.has_error(function() pathgate.home_relative_suffix(12, "posix") end)
    assert.has_error(function() pathgate.normalize_windows_device_path(12) end)
    assert.has_error(function() pathgate.platform_convention(12) end)
    assert.has_error(function() must_parse("file:///r"):join_bytes(12) end)
    assert.are.same({ "", "a" }, pathgate.path_segments("/a", "posix"))
    assert.are.equal("posix", pathgate.platform_convention("linux"))
  end)

  it("resolves configuration paths with an optional base, home and convention", function()
    local Legacy = pathgate.LegacyAppPathString
    local r = assert(Legacy("~/a/"):resolve_config(nil, must_parse("file:///home/u")))
    assert.are.equal("file:///home/u/a", tostring(r))
    assert.are.equal("/home/u/a", r:to_config_path())
    local v, msg, code = Legacy("~/a"):resolve_config(must_parse("file:///w"))
    assert.is_nil(v); assert.is_string(msg); assert.are.equal("no_home", code)
    assert.is_true(must_parse("file:///C:/x"):validate_config())
    v, msg, code = must_parse("file:///C:/x"):validate_config("posix")
    assert.is_nil(v); assert.is_string(msg); assert.are.equal("incompatible_convention", code)
    assert.has_error(function() pathgate.path_segments("a", "dos") end)
  end)
end)
