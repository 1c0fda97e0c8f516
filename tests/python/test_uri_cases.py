"""Every row of tests/data/uri_cases.tsv (the C table) through the Python API.

The table's format is documented at its top. Byte strings (\\xHH escapes
that are not UTF-8) map to str the way os.fsdecode does: a byte that is not
UTF-8 becomes a lone surrogate, which is also how the Python API passes such
bytes to the core and returns them from it.
"""

import os
import pathlib
import re

import pytest

import pathgate
from conftest import DATA_DIR

ABSENT = object()
_ESCAPE = re.compile(rb"\\(\\|t|n|r|x[0-9A-Fa-f]{2}|.)")


def _unescape(field: str):
    if field == "\\N":
        return ABSENT
    raw = field.encode("utf-8")

    def sub(m):
        code = m.group(1)
        if code == b"\\":
            return b"\\"
        if code in (b"t", b"n", b"r"):
            return {b"t": b"\t", b"n": b"\n", b"r": b"\r"}[code]
        if code[:1] == b"x" and len(code) == 3:
            return bytes([int(code[1:], 16)])
        raise ValueError(f"malformed escape \\{code!r}")

    return _ESCAPE.sub(sub, raw).decode("utf-8", "surrogateescape")


# host_path rows name the host they are for.
HOST = "windows" if os.name == "nt" else "posix"


def _load(name):
    rows = []
    path = DATA_DIR / name
    for lineno, line in enumerate(path.read_text("utf-8").split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        assert len(fields) == 4, f"{name}:{lineno}: expected 4 fields"
        op, inp, arg = fields[0], _unescape(fields[1]), _unescape(fields[2])
        if op == "host_path" and arg != HOST:
            continue  # another host's row (the table's header)
        # `!<errname>` is recognised before unescaping (a literal `!` is \x21)
        raw = fields[3]
        expected = ("error", raw[1:]) if raw.startswith("!") else _unescape(raw)
        tag = "" if name == "uri_cases.tsv" else name.split(".")[0].split("_")[-1] + "-"
        rows.append(pytest.param(op, inp, arg, expected, id=f"{tag}L{lineno}-{op}"))
    return rows


ROWS = _load("uri_cases.tsv") + _load("uri_codex.tsv")


def _conv(arg):
    return None if arg in ("infer", "", ABSENT) else arg


def _uri(text):
    u = pathgate.PathUri.parse(text)
    assert isinstance(u, pathgate.PathUri)
    return u


def _check_reparse(u):
    """The invariant of every successful parse / from_native."""
    again = pathgate.PathUri.parse(str(u))
    assert str(again) == str(u)
    assert again == u and hash(again) == hash(u)


def _text(value):
    if value is None:
        return ABSENT
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, pathgate.PathUri):
        _check_reparse(value)
        return str(value)
    if isinstance(value, pathlib.Path):
        return str(value)
    assert isinstance(value, str)
    return value


def _run(op, inp, arg):
    P = pathgate.PathUri
    if op == "parse":
        return P.parse(inp)
    if op == "from_native":
        return P.from_native(inp, _conv(arg))
    if op == "to_native":
        return _uri(inp).to_native(_conv(arg))
    if op == "native_roundtrip":
        conv = _conv(arg)
        return P.from_native(inp, conv).to_native(conv)
    if op == "parent":
        return _uri(inp).parent
    if op == "basename":
        return _uri(inp).basename
    if op == "join":
        return _uri(inp).join(arg)
    if op == "join_descendant":
        return _uri(inp).join_descendant(arg)
    if op == "starts_with":
        return _uri(inp).starts_with(_uri(arg))
    if op == "relative_to":
        return _uri(inp).relative_to(_uri(arg))
    if op == "equal":
        a, b = _uri(inp), _uri(arg)
        eq = a == b
        assert eq == (not (a != b))
        if eq:
            assert hash(a) == hash(b)
        return eq
    if op == "convention":
        return _uri(inp).convention
    if op == "is_opaque":
        return _uri(inp).is_opaque
    if op == "display":
        return _uri(inp).display()
    L = pathgate.LegacyAppPathString
    if op == "ancestors":
        return " ".join(_text(a) for a in _uri(inp).ancestors())
    if op == "encoded_path":
        return _uri(inp).encoded_path
    if op == "decoded_path":
        return os.fsdecode(_uri(inp).decoded_path_bytes)
    if op == "lexical_depth":
        d = _uri(inp).lexical_depth
        return None if d is None else str(d)
    if op == "overlaps":
        a, b = _uri(inp), _uri(arg)
        assert a.overlaps(b) == b.overlaps(a)
        return a.overlaps(b)
    if op == "path_segments":
        return "|".join(pathgate.path_segments(inp, arg))
    if op == "home_suffix":
        return pathgate.home_relative_suffix(inp, arg)
    if op == "device_path":
        return pathgate.normalize_windows_device_path(inp)
    if op == "platform":
        return pathgate.platform_convention(inp)
    if op == "join_bytes":
        return _uri(inp).join(os.fsencode(arg))
    if op in ("resolve_config", "config_path"):
        conv, base, home = arg.split(" ")
        r = L(inp).resolve_config(
            None if base == "-" else _uri(base),
            home=None if home == "-" else _uri(home),
            convention=_conv(conv),
        )
        return r.to_config_path(_conv(conv)) if op == "config_path" else r
    if op in ("validate_config", "validate_glob"):
        u = _uri(inp)
        check = u.validate_config if op == "validate_config" else u.validate_glob_directory
        assert check(_conv(arg)) is None
        return "ok"
    if op == "from_uri":
        return str(L.from_uri(_uri(inp), _conv(arg)))
    if op == "legacy_to_uri":
        return L(inp).to_uri(_conv(arg))
    if op == "legacy_roundtrip":
        return str(L.from_uri(L(inp).to_uri(_conv(arg)), _conv(arg)))
    if op == "host_path":
        p = _uri(inp).to_host_path()
        assert isinstance(p, pathlib.Path)
        return p
    raise AssertionError(f"unknown op {op!r}")


def test_table_is_not_empty():
    assert len(ROWS) > 600
    assert {p.values[0] for p in ROWS} >= {
        "parse", "from_native", "to_native", "native_roundtrip", "parent", "basename",
        "join", "join_descendant", "starts_with", "relative_to", "equal", "convention",
        "is_opaque", "display", "host_path",
    }


@pytest.mark.parametrize("op,inp,arg,expected", ROWS)
def test_case(op, inp, arg, expected):
    if isinstance(expected, tuple):
        with pytest.raises(pathgate.PathError) as info:
            _run(op, inp, arg)
        assert info.value.kind == expected[1]
        assert isinstance(info.value, pathgate.Error) and isinstance(info.value, ValueError)
        return
    got = _text(_run(op, inp, arg))
    if op == "host_path":
        expected = str(pathlib.Path(expected))
    assert got == expected
