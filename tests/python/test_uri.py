"""PathUri through the Python API: properties (hypothesis), types, errors,
immutability. The exhaustive behaviour table is test_uri_cases.py."""

import pathlib
import pickle
import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import pathgate
from pathgate import LegacyAppPathString, PathError, PathUri

# ------------------------------------------------------------ strategies

_SPECIAL = list(" %#?<>\"`{}*'(),:[]|^!$&+;=@~é€😀") + ["\t", "\x7f"]


def _segment(forbidden: str):
    chars = st.one_of(
        st.characters(
            blacklist_categories=("Cs",), blacklist_characters=forbidden + "\0"
        ),
        st.sampled_from([c for c in _SPECIAL if c not in forbidden]),
    )
    return st.text(chars, min_size=1, max_size=8).filter(lambda s: s not in (".", ".."))


posix_segment = _segment("/")
windows_segment = _segment("\\/:").filter(lambda s: not s.endswith((".", " ")))
host_name = st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=8).filter(
    lambda s: s not in ("localhost",)
)


@st.composite
def posix_paths(draw):
    segs = draw(st.lists(posix_segment, max_size=5))
    return "/" + "/".join(segs)


@st.composite
def windows_paths(draw):
    segs = draw(st.lists(windows_segment, max_size=5))
    if draw(st.booleans()):
        drive = draw(st.sampled_from(string.ascii_uppercase))
        return drive + ":\\" + "\\".join(segs)
    server, share = draw(host_name), draw(host_name)
    return "\\\\" + "\\".join([server, share, *segs])


relative_text = st.lists(
    st.one_of(posix_segment, st.sampled_from([".", "..", "", "a", "b"])), max_size=6
).map("/".join)

# ------------------------------------------------------------ properties


@given(posix_paths())
def test_posix_native_roundtrip(path):
    u = PathUri.from_native(path, "posix")
    if u.is_opaque:  # e.g. a first segment spelled like a drive: no honest URI
        with pytest.raises(PathError) as info:
            u.to_native("posix")
        assert info.value.kind == "opaque"
    else:
        assert u.to_native("posix") == path
        assert u.convention == "posix"
    assert PathUri.from_native(path) == u  # a leading / infers POSIX


@given(windows_paths())
def test_windows_native_roundtrip(path):
    u = PathUri.from_native(path, "windows")
    assert not u.is_opaque
    assert u.convention == "windows"
    assert u.to_native("windows") == path  # a trailing separator is kept too
    assert u.to_native() == path
    assert PathUri.from_native(path) == u


@given(st.one_of(posix_paths(), windows_paths()))
def test_parse_of_str_is_identity(path):
    u = PathUri.from_native(path)
    again = PathUri.parse(str(u))
    assert again == u
    assert hash(again) == hash(u)
    assert str(again) == str(u)
    assert pickle.loads(pickle.dumps(u)) == u


@given(posix_paths(), relative_text)
def test_join_descendant_stays_under_base_posix(base_path, text):
    base = PathUri.from_native(base_path, "posix")
    assume(not base.is_opaque)
    try:
        joined = base.join_descendant(text)
    except PathError as e:
        assert e.kind in ("not_descendant", "not_absolute", "invalid_utf8")
        return
    assert joined.starts_with(base)
    assert joined.relative_to(base) is not None


@given(windows_paths(), relative_text.map(lambda t: t.replace("/", "\\")))
def test_join_descendant_stays_under_base_windows(base_path, text):
    base = PathUri.from_native(base_path, "windows")
    try:
        joined = base.join_descendant(text)
    except PathError as e:
        assert e.kind in ("not_descendant", "not_absolute", "incompatible_convention")
        return
    assert joined.starts_with(base)


@given(posix_paths())
def test_parent_chain_reaches_root(path):
    u = PathUri.from_native(path, "posix")
    assume(not u.is_opaque)
    steps = 0
    while (p := u.parent) is not None:
        assert u.starts_with(p)
        u = p
        steps += 1
    assert str(u) == "file:///"
    assert steps == path.count("/") - (1 if path == "/" else 0)


# ------------------------------------------------------------ API surface


def test_properties_and_methods():
    u = PathUri.from_native("C:\\Users\\x y\\f.txt")
    assert str(u) == "file:///C:/Users/x%20y/f.txt"
    assert repr(u) == "PathUri('file:///C:/Users/x%20y/f.txt')"
    assert u.convention == "windows"
    assert u.is_opaque is False
    assert u.basename == "f.txt"
    assert str(u.parent) == "file:///C:/Users/x%20y"
    assert u.to_native() == "C:\\Users\\x y\\f.txt"
    assert u.to_native("windows") == "C:\\Users\\x y\\f.txt"
    assert u.display() == "C:\\Users\\x y\\f.txt"
    base = PathUri.parse("file:///c:/users")
    assert u.starts_with(base)
    assert u.relative_to(base) == "x y\\f.txt"
    assert PathUri.parse("file:///d:/").relative_to(base) is None
    assert str(base.join("..\\..\\..\\Windows")) == "file:///C:/Windows"
    assert str(base.join("D:\\x")) == "file:///D:/x"


def test_convention_is_keyword_or_positional():
    assert PathUri.from_native("/x", convention="posix") == PathUri.from_native("/x", "posix")
    assert PathUri.parse("file:///x").to_native(convention="posix") == "/x"


def test_to_host_path_is_pathlib_and_fails_closed():
    p = PathUri.parse("file:///tmp/a%20b").to_host_path()
    assert isinstance(p, pathlib.Path) and p == pathlib.Path("/tmp/a b")
    with pytest.raises(PathError) as info:
        PathUri.parse("file:///C:/x").to_host_path()
    assert info.value.kind == "incompatible_convention"


def test_non_utf8_posix_names_use_surrogateescape():
    u = PathUri.from_native("/caf\udce9", "posix")  # os.fsdecode(b"/caf\xe9")
    assert str(u) == "file:///caf%E9"
    assert u.to_native() == "/caf\udce9"
    assert u.basename == "caf\udce9"
    assert u.to_host_path() == pathlib.Path(b"/caf\xe9".decode("utf-8", "surrogateescape"))


def test_equality_and_hash():
    a, b = PathUri.parse("file:///C:/A"), PathUri.parse("file:///c:/a")
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    assert PathUri.parse("file:///A") != PathUri.parse("file:///a")
    assert a != "file:///C:/A"
    with pytest.raises(TypeError):
        a < b  # noqa: B015


@pytest.mark.parametrize(
    "text,kind",
    [
        ("http://x/y", "unsupported_scheme"),
        ("file:///x?q", "query_not_allowed"),
        ("file:///x#f", "fragment_not_allowed"),
        ("file://u@h/x", "credentials_not_allowed"),
        ("file://h:1/x", "port_not_allowed"),
        ("file:///a%00b", "encoded_nul"),
        ("file:///a\0b", "nul_byte"),
        ("file:///\ud800", "invalid_utf8"),
    ],
)
def test_parse_errors_are_path_errors_with_kind(text, kind):
    with pytest.raises(PathError) as info:
        PathUri.parse(text)
    assert info.value.kind == kind
    assert info.value.code < 0
    assert isinstance(info.value, pathgate.Error) and isinstance(info.value, ValueError)


def test_nul_is_an_error_never_a_truncation():
    base = PathUri.parse("file:///a")
    for call in (
        lambda: PathUri.parse("file:///x\0/y"),
        lambda: base.join("b\0c"),
        lambda: base.join_descendant("b\0c"),
    ):
        with pytest.raises(PathError) as info:
            call()
        assert info.value.kind == "nul_byte"


def test_native_nul_becomes_the_opaque_uri():
    # from_native is the one exception to "NUL is an error": by the core's
    # rule a native path holding NUL has no honest URI and becomes opaque.
    w = PathUri.from_native("C:\\x\0y")
    assert w.is_opaque and w.convention == "windows"
    u = PathUri.from_native("/a\0b", "posix")
    assert u.is_opaque
    assert str(u).startswith("file:///%00/bad/path/")
    assert u.parent is None and u.basename is None
    assert u.starts_with(u)
    with pytest.raises(PathError) as info:
        u.to_native()
    assert info.value.kind == "opaque"
    assert u.display() == "/a\\x00b"  # the payload, its NUL escaped for a UI
    assert PathUri.parse(str(u)) == u


def test_other_errors_have_kinds():
    with pytest.raises(PathError) as info:
        PathUri.from_native("relative/x")
    assert info.value.kind == "not_absolute"
    with pytest.raises(PathError) as info:
        PathUri.parse("file://s/sh/x").to_native("posix")
    assert info.value.kind == "incompatible_convention"
    with pytest.raises(PathError) as info:
        PathUri.parse("file:///a").join_descendant("../b")
    assert info.value.kind == "not_descendant"


def test_wrong_types_raise_type_error():
    u = PathUri.parse("file:///a")
    for call in (
        lambda: PathUri.parse(b"file:///a"),
        lambda: PathUri.parse(None),
        lambda: PathUri.parse(pathlib.Path("/a")),
        lambda: PathUri.from_native(1),
        lambda: PathUri.from_native("/a", 1),
        lambda: u.join(1),
        lambda: u.join_descendant(b"x"),
        lambda: u.starts_with("file:///a"),
        lambda: u.relative_to(None),
        lambda: u.to_native(b"posix"),
        lambda: PathUri.parse(),
        lambda: PathUri.parse("a", "b"),
        lambda: PathUri.from_native("/a", convention="posix", extra=1),
        lambda: PathUri.from_native(text="/a"),
        lambda: u.to_native("posix", "windows"),
    ):
        with pytest.raises(TypeError):
            call()


def test_bad_convention_string_is_a_value_error():
    with pytest.raises(pathgate.Error) as info:
        PathUri.from_native("/a", "POSIX")
    assert info.value.kind == "invalid_argument"


def test_immutable():
    u = PathUri.parse("file:///a")
    with pytest.raises(AttributeError):
        u.convention = "windows"
    with pytest.raises(AttributeError):
        u.anything = 1
    with pytest.raises(AttributeError):
        del u.basename
    with pytest.raises(TypeError):
        PathUri.parse = None
    with pytest.raises(TypeError):
        PathUri()
    with pytest.raises(TypeError):

        class Sub(PathUri):  # final: no subclasses
            pass
    assert not hasattr(u, "__dict__")


def test_too_long_text():
    with pytest.raises(PathError) as info:
        PathUri.from_native("/" + "a" * (pathgate.PATH_MAX + 1))
    assert info.value.kind == "too_long"


# ------------------------------------------- Codex's further operations


def test_serialisation_is_the_uri_string():


    for text in ("file:///tmp/", "file:///C:", "file://server/share/x", "file:///%00/bad/path/L3g"):
        u = PathUri.parse(text)
        back = pickle.loads(pickle.dumps(u))
        assert str(back) == text and back == u and hash(back) == hash(u)
    # deserialising is parse: relative text and other schemes refuse, in Codex's words
    with pytest.raises(PathError) as info:
        PathUri.parse("relative/x")
    assert info.value.kind == "not_absolute"
    assert str(info.value) == "invalid URI: relative URL without a base"
    with pytest.raises(PathError) as info:
        PathUri.parse("https://example.com/x")
    assert info.value.kind == "unsupported_scheme"
    assert str(info.value) == "unsupported path URI scheme `https`"
    # a LegacyAppPathString round-trips unchanged, whatever it holds
    for text in ("C:\\tmp\\", "relative", "\\\\?\\Volume{x}\\f", "/a\udcff"):
        p = LegacyAppPathString(text)
        assert str(pickle.loads(pickle.dumps(p))) == text


def test_ancestors_is_an_iterator_of_path_uris():
    it = PathUri.parse("file://server/share/project/src").ancestors()
    assert iter(it) is it
    assert [str(a) for a in it] == [
        "file://server/share/project/src",
        "file://server/share/project",
        "file://server/share",
    ]


def test_join_takes_raw_posix_bytes():
    base = PathUri.parse("file:///root/%FE/admin")
    assert str(base.join(b"../\xff/%2e?#\\")) == "file:///root/%FE/%FF/%252e%3F%23%5C"
    assert base.join(b"x") == base.join("x")
    for bad, kind in ((b"bad\0\xff", "nul_byte"),):
        with pytest.raises(PathError) as info:
            base.join(bad)
        assert info.value.kind == kind
    with pytest.raises(PathError) as info:
        PathUri.parse("file:///C:/repo").join(b"\xff")
    assert info.value.kind == "incompatible_convention"
    with pytest.raises(TypeError):
        base.join(bytearray(b"x"))


def test_module_helpers_check_their_arguments():
    import pathgate

    with pytest.raises(pathgate.Error):
        pathgate.path_segments("a/b", None)
    with pytest.raises(TypeError):
        pathgate.path_segments(b"a/b", "posix")
    with pytest.raises(pathgate.Error):
        pathgate.home_relative_suffix("~", "dos")
    assert pathgate.platform_convention(None) is None
    with pytest.raises(TypeError):
        pathgate.normalize_windows_device_path(None)


def test_resolve_config_types_and_defaults():
    L = LegacyAppPathString
    base = PathUri.parse("file:///C:/work")
    # convention None is the base's (else the home's)
    assert str(L("x\\").resolve_config(base)) == "file:///C:/work/x"
    assert str(L("~").resolve_config(None, home=PathUri.parse("file:///home/u/"))) == "file:///home/u"
    with pytest.raises(TypeError):
        L("x").resolve_config("file:///C:/work")
    with pytest.raises(PathError) as info:
        L("~/x").resolve_config(base)
    assert info.value.kind == "no_home"
    assert L("d:\\p\\*.env\\").resolve_config(None, convention="windows").to_config_path() == "D:\\p\\*.env"


@given(st.binary(max_size=40))
def test_join_bytes_never_leaves_the_posix_convention(data):
    base = PathUri.parse("file:///r/s")
    try:
        u = base.join(data)
    except PathError as e:
        assert e.kind == "nul_byte" and b"\0" in data
        return
    assert PathUri.parse(str(u)) == u
    if not u.is_opaque:
        assert u.convention == "posix"


def test_ancestors_walk_each_parent_once_even_deep():
    # the same walk as Lua's ancestors() (tests/lua/uri_spec.lua): the URI,
    # then each ancestor the parent of the one before, ending at the root
    deep = PathUri.parse("file:///" + "a/" * 2000 + "z")
    got = list(deep.ancestors())
    assert len(got) == 2002
    assert got[0] == deep and str(got[-1]) == "file:///"
    assert all(got[i + 1] == got[i].parent for i in range(len(got) - 1))


def test_join_bytes_as_in_lua():
    # the same call and answers as Lua's uri:join_bytes (tests/lua/uri_spec.lua)
    base = PathUri.parse("file:///root/%FE/admin")
    assert str(base.join_bytes(b"../\xff/%2e?#\\")) == "file:///root/%FE/%FF/%252e%3F%23%5C"
    assert base.join_bytes(b"../\xff/%2e?#\\") == base.join(b"../\xff/%2e?#\\")
    with pytest.raises(PathError) as info:
        base.join_bytes(b"a\0b")
    assert info.value.kind == "nul_byte"
    with pytest.raises(TypeError):
        base.join_bytes("a")


def test_validate_without_a_convention_checks_the_uris_own():
    # as Lua's uri:validate_config() (the convention optional in both)
    u = PathUri.parse("file:///C:/x")
    assert u.validate_config() is None
    assert u.validate_glob_directory() is None
    assert u.validate_config(convention=None) is None
    with pytest.raises(PathError) as info:
        u.validate_config("posix")
    assert info.value.kind == "incompatible_convention"


_MODULE_CALLS = {"path_segments", "home_relative_suffix", "normalize_windows_device_path",
                 "platform_convention"}


def test_lua_has_the_same_uri_calls():
    """Both front ends are made from one table (bindings/uri_ops.h): the
    PathUri calls (a Python property is a Lua method) and the module's
    path-text functions are the same names on both sides."""
    import os
    import shutil
    import subprocess

    build = os.environ.get("PATHGATE_BINARY_DIR")
    lua = shutil.which("lua5.4")
    if not build or lua is None or not (pathlib.Path(build) / "lua" / "pathgate.so").exists():
        pytest.skip("needs lua5.4 and the Lua module of this build")
    script = (
        'package.cpath = arg[1] .. "/lua/?.so;" .. package.cpath '
        'local p = require "pathgate" '
        'local u = p.PathUri.parse("file:///a") '
        'for k in pairs(debug.getmetatable(u).__index) do print("uri " .. k) end '
        'for k in pairs(p.PathUri) do print("uri " .. k) end '
        'for k, v in pairs(p) do if type(v) == "function" then print("fn " .. k) end end'
    )
    out = subprocess.run([lua, "-e", script, "-", build], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True,
                         check=True, timeout=60).stdout.split()
    lua_uri = {out[i + 1] for i in range(0, len(out), 2) if out[i] == "uri"}
    lua_fns = {out[i + 1] for i in range(0, len(out), 2) if out[i] == "fn"}
    py_uri = {n for n in dir(PathUri) if not n.startswith("_")}
    assert py_uri == lua_uri
    assert _MODULE_CALLS <= lua_fns
    assert all(callable(getattr(pathgate, n)) for n in _MODULE_CALLS)
