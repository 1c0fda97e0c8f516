-- legacy_spec.lua - pathgate.LegacyAppPathString through the Lua front end.
local pathgate = require "pathgate"
local Legacy = pathgate.LegacyAppPathString
local PathUri = pathgate.PathUri

local function uri(text) return assert(PathUri.parse(text)) end

describe("LegacyAppPathString", function()
  it("wraps any bytes (even NUL) and prints them back", function()
    local odd = "a\0b\255"
    local p = Legacy(odd)
    assert.are.equal("userdata", type(p))
    assert.are.equal("pathgate.LegacyAppPathString", getmetatable(p))
    assert.are.equal(odd, tostring(p))
    assert.are.equal("", tostring(Legacy("")))
  end)

  it("infers the convention like the core", function()
    local rows = {
      ["C:\\x"] = "windows", ["c:/x"] = "windows", ["\\\\srv\\share"] = "windows",
      ["/"] = "posix", ["/usr/bin"] = "posix", ["//srv/share"] = "posix",
    }
    for text, conv in pairs(rows) do
      assert.are.equal(conv, Legacy(text):infer_convention(), text)
    end
    for _, text in ipairs { "C:", "C:x", "x/y", "", "~", "~/x", " /x" } do
      assert.is_nil(Legacy(text):infer_convention(), text)
    end
  end)

  it("converts absolute text to a PathUri, fail-closed with the text named", function()
    assert.are.equal("file:///usr/share/doc", tostring(Legacy("/usr/share/doc"):to_uri()))
    assert.are.equal("file:///C:/Users/me/file.txt",
      tostring(Legacy("C:\\Users\\me\\file.txt"):to_uri()))
    assert.are.equal("file://server/share/dir", tostring(Legacy("\\\\server\\share\\dir"):to_uri()))
    assert.are.equal("file:///srv/share", tostring(Legacy("//srv/share"):to_uri("posix")))
    local v, msg, code = Legacy("foo"):to_uri("posix")
    assert.is_nil(v)
    assert.are.equal("not_absolute", code)
    assert.are.equal("cannot convert 'foo' to a posix URI: not absolute", msg)
    v, msg, code = Legacy("foo"):to_uri()
    assert.are.equal("cannot convert 'foo' to a URI: not absolute (no convention inferred)", msg)
    v, msg, code = Legacy("a\0b"):to_uri("posix")
    assert.is_nil(v)
    assert.are.equal("not_absolute", code)
    assert.are.equal("cannot convert 'a\\x00b' to a posix URI: not absolute", msg)
    -- an absolute POSIX path holding NUL has only the opaque form, which
    -- keeps every byte (never a truncation at the NUL)
    local opaque = assert(Legacy("/a\0b"):to_uri())
    assert.is_true(opaque:is_opaque())
    assert.are.equal("file:///%00/bad/path/L2EAYg", tostring(opaque))
  end)

  it("renders a URI for the client (from_uri), fail-closed", function()
    assert.are.equal("/usr/a b", tostring(Legacy.from_uri(uri("file:///usr/a%20b"))))
    assert.are.equal("C:\\Users\\me", tostring(Legacy.from_uri(uri("file:///C:/Users/me"))))
    assert.are.equal("/C:/x", tostring(Legacy.from_uri(uri("file:///C:/x"), "posix")))
    assert.are.equal("\\\\srv\\share\\x", tostring(Legacy.from_uri(uri("file://srv/share/x"), "windows")))
    local v, msg, code = Legacy.from_uri(uri("file:///usr/x"), "windows")
    assert.is_nil(v); assert.is_string(msg); assert.are.equal("incompatible_convention", code)
    v, msg, code = Legacy.from_uri(uri("file:///%00/bad/path/L3gAeQ"), "windows")
    assert.is_nil(v); assert.is_string(msg); assert.are.equal("opaque", code)
    -- fail-open where Codex is: the opaque payload is the original text
    assert.are.equal("/x\0y", tostring(Legacy.from_uri(uri("file:///%00/bad/path/L3gAeQ"))))
    assert.are.equal("/tmp/a/b", tostring(Legacy.from_uri(uri("file:///tmp/a%2Fb"))))
    assert.are.equal("file://server/", tostring(Legacy.from_uri(uri("file://server/"))))
  end)

  it("round-trips text -> uri -> text", function()
    for _, text in ipairs { "/usr/share/a b", "/tmp/100%/#x?y", "C:\\Program Files\\App",
                            "D:\\", "\\\\srv\\share\\dir\\f.txt", "/" } do
      local p = Legacy(text)
      local back = Legacy.from_uri(p:to_uri(), p:infer_convention())
      assert.are.equal(text, tostring(back))
      assert.is_true(back == p)
    end
  end)

  it("renders for a UI without ever failing", function()
    assert.are.equal("a\\tb\\nc", Legacy("a\tb\nc"):render_for_ui())
    assert.are.equal("a\\x00b", Legacy("a\0b"):render_for_ui())
    assert.are.equal("a\239\191\189b", Legacy("a\255b"):render_for_ui())
    assert.are.equal("evil\\u202Etxt.exe", Legacy("evil\226\128\174txt.exe"):render_for_ui())
  end)

  it("resolves against a cwd and an optional home", function()
    local cwd, home = uri("file:///home/u/work"), uri("file:///home/me")
    assert.are.equal("file:///home/me/notes", tostring(Legacy("~/notes"):resolve_against(cwd, home)))
    assert.are.equal("file:///home/u/work/src/x.c", tostring(Legacy("src/x.c"):resolve_against(cwd)))
    assert.are.equal("file:///home/u/x", tostring(Legacy("../x"):resolve_against(cwd, nil)))
    assert.are.equal("file:///etc/passwd", tostring(Legacy("/etc/passwd"):resolve_against(cwd)))
    local v, msg, code = Legacy("~/x"):resolve_against(cwd)
    assert.is_nil(v); assert.is_string(msg); assert.are.equal("no_home", code)
    v, msg, code = Legacy("C:\\x"):resolve_against(cwd)
    assert.is_nil(v); assert.are.equal("incompatible_convention", code)
    assert.are.equal("cannot resolve 'C:\\x' against a posix working directory: incompatible convention", msg)
    v, msg, code = Legacy("a\0b"):resolve_against(cwd)
    assert.is_nil(v); assert.are.equal("nul_byte", code)
    assert.are.equal("cannot resolve 'a\\x00b' against a posix working directory: nul byte", msg)
    local wcwd = uri("file:///C:/Users/u/work")
    assert.are.equal("file:///C:/etc/hosts", tostring(Legacy("/etc/hosts"):resolve_against(wcwd)))
    v, msg, code = Legacy("D:rel"):resolve_against(wcwd)
    assert.is_nil(v); assert.are.equal("drive_mismatch", code)
  end)

  it("compares texts byte for byte", function()
    assert.is_true(Legacy("/a") == Legacy("/a"))
    assert.is_false(Legacy("/a") == Legacy("/A"))
    assert.is_false(Legacy("a\0b") == Legacy("a\0c"))
    assert.is_false(Legacy("file:///a") == uri("file:///a"))
  end)

  it("raises on misuse", function()
    local p = Legacy("/a")
    local function raises(pattern, f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      assert.matches(pattern, err)
    end
    raises("string expected, got number", Legacy, 12)
    raises("string expected, got no value", Legacy)
    raises("pathgate.PathUri expected, got string", Legacy.from_uri, "file:///a")
    raises("invalid convention 'dos'", Legacy.from_uri, uri("file:///a"), "dos")
    raises("pathgate.PathUri expected, got string", p.resolve_against, p, "file:///a")
    raises("pathgate.PathUri expected, got string", p.resolve_against, p, uri("file:///a"), "file:///h")
    raises("pathgate.LegacyAppPathString expected, got pathgate.PathUri", p.to_uri, uri("file:///a"))
    raises("invalid convention", p.to_uri, p, "Windows")
  end)

  it("closes idempotently with <close>", function()
    local keep
    do
      local p <close> = Legacy("/x")
      keep = p
    end
    assert.are.equal("pathgate.LegacyAppPathString (closed)", tostring(keep))
    local ok, err = pcall(keep.to_uri, keep)
    assert.is_false(ok)
    assert.matches("attempt to use a closed pathgate.LegacyAppPathString", err)
    debug.getmetatable(keep).__close(keep)
  end)
end)
