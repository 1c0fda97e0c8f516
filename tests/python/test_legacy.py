"""LegacyAppPathString through the Python API (docs/spec.md section 3)."""

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pathgate
from pathgate import LegacyAppPathString as L
from pathgate import PathError, PathUri

PCWD = PathUri.parse("file:///home/u/work")
PHOME = PathUri.parse("file:///home/me")
WCWD = PathUri.parse("file:///C:/Users/u/work")
WHOME = PathUri.parse("file:///C:/Users/me")


@given(st.text())
def test_any_text_is_wrapped_unchanged(text):
    p = L(text)
    assert str(p) == text
    assert p == L(text) and hash(p) == hash(L(text))
    assert repr(p) == f"LegacyAppPathString({text!r})"
    ui = p.render_for_ui()  # never fails
    assert isinstance(ui, str)
    assert not any(ord(c) < 0x20 or ord(c) == 0x7F for c in ui)
    assert pickle.loads(pickle.dumps(p)) == p


def test_nul_is_wrapped_but_never_converted():
    p = L("/a\0b")
    assert str(p) == "/a\0b"
    assert p.render_for_ui() == "/a\\x00b"
    assert p.to_uri().is_opaque  # like PathUri.from_native: the opaque form
    with pytest.raises(PathError) as info:
        L("a\0b").resolve_against(PCWD)
    assert info.value.kind == "nul_byte"
    assert "a\\x00b" in str(info.value)  # names the text, escaped


def test_to_uri_and_back():
    assert str(L("C:\\Users\\me").to_uri()) == "file:///C:/Users/me"
    assert str(L("/etc/x").to_uri("posix")) == "file:///etc/x"
    with pytest.raises(PathError) as info:
        L("relative").to_uri()
    assert info.value.kind == "not_absolute"
    assert "relative" in str(info.value)
    with pytest.raises(PathError) as info:
        L("C:\\x").to_uri("posix")
    assert info.value.kind == "not_absolute"
    back = L.from_uri(PathUri.parse("file:///C:/Users/me"), "windows")
    assert isinstance(back, L) and str(back) == "C:\\Users\\me"
    assert str(L.from_uri(PathUri.parse("file:///x/y"))) == "/x/y"
    assert str(L.from_uri(uri=PathUri.parse("file:///x/y"), convention="posix")) == "/x/y"
    with pytest.raises(PathError) as info:
        L.from_uri(PathUri.parse("file://srv/share/x"), "posix")
    assert info.value.kind == "incompatible_convention"
    # rendering for the client is lossy (Codex): a byte that is not UTF-8 is U+FFFD
    assert str(L.from_uri(PathUri.parse("file:///%FF"), "posix")) == "/\ufffd"


def test_infer_convention():
    assert L("C:\\x").infer_convention() == "windows"
    assert L("c:/x").infer_convention() == "windows"
    assert L("\\\\srv\\share").infer_convention() == "windows"
    assert L("/x").infer_convention() == "posix"
    assert L("x/y").infer_convention() is None
    assert L("").infer_convention() is None


@pytest.mark.parametrize(
    "text,cwd,home,expected",
    [
        ("~", PCWD, PHOME, "file:///home/me"),
        ("~/notes/a.txt", PCWD, PHOME, "file:///home/me/notes/a.txt"),
        ("src/main.c", PCWD, None, "file:///home/u/work/src/main.c"),
        ("../x", PCWD, None, "file:///home/u/x"),
        ("/etc/passwd", PCWD, None, "file:///etc/passwd"),
        ("~\\docs\\a.txt", WCWD, WHOME, "file:///C:/Users/me/docs/a.txt"),
        ("\\\\srv\\share\\x", WCWD, None, "file://srv/share/x"),
        ("/x", WCWD, None, "file:///C:/x"),
    ],
)
def test_resolve_against(text, cwd, home, expected):
    assert str(L(text).resolve_against(cwd, home)) == expected
    assert str(L(text).resolve_against(cwd=cwd, home=home)) == expected


def test_resolve_against_errors():
    with pytest.raises(PathError) as info:
        L("~/x").resolve_against(PCWD)
    assert info.value.kind == "no_home"
    with pytest.raises(PathError) as info:
        L("C:\\x").resolve_against(PCWD)
    assert info.value.kind == "incompatible_convention"


def test_wrong_types_and_immutability():
    for call in (
        lambda: L(b"/x"),
        lambda: L(None),
        lambda: L(),
        lambda: L("/x").to_uri(1),
        lambda: L.from_uri("file:///x"),
        lambda: L("x").resolve_against("file:///x"),
        lambda: L("x").resolve_against(PCWD, "file:///y"),
        lambda: L("x").resolve_against(),
    ):
        with pytest.raises(TypeError):
            call()
    p = L("/x")
    with pytest.raises(AttributeError):
        p.text = "y"
    with pytest.raises(TypeError):
        L.to_uri = None
    assert p != "/x"
    assert isinstance(pathgate.LegacyAppPathString("/x"), L)
