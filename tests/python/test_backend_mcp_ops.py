"""Backend.mkdir / move / stat / multi_edit / head / tail / tree: the core
operations of the MCP server from Python, with their messages, containment
and the session's relative paths."""

import pytest

import pathgate
from pathgate import Backend, Error, Session

INVALID = "Invalid path / not found"


@pytest.fixture
def backend(resolver):
    return Backend(resolver)


def test_mkdir_move_stat(backend, tree):
    assert backend.mkdir("root:repo/a/b") == "root:repo/a/b"
    assert (tree["repo"] / "a" / "b").is_dir()
    with pytest.raises(Error, match="^'root:repo/a/b' already exists$"):
        backend.mkdir("root:repo/a/b", parents=False)
    assert backend.move("root:repo/README.md", "root:repo/a/b/R.md") == "root:repo/a/b/R.md"
    assert (tree["repo"] / "a" / "b" / "R.md").read_text() == "readme\n"
    (tree["repo"] / "x.txt").write_text("x")
    with pytest.raises(Error) as e:
        backend.move("root:repo/x.txt", "root:repo/a/b/R.md")
    assert str(e.value) == "'root:repo/a/b/R.md' already exists"
    assert e.value.kind == "already_exists"
    assert (tree["repo"] / "a" / "b" / "R.md").read_text() == "readme\n"
    # across bases (a root and a mod)
    assert backend.move("root:repo/x.txt", "mod:Some Mod/x.txt") == "mod:Some Mod/x.txt"
    st = backend.stat("mod:Some Mod/x.txt")
    assert st["path"] == "mod:Some Mod/x.txt"
    assert (st["type"], st["size"]) == ("file", 1)
    assert st["modified_at"].endswith("+00:00")
    assert backend.stat("root:repo/a")["type"] == "directory"


def test_containment(backend, tree):
    outside = tree["outside"]
    for call in (
        lambda: backend.mkdir("root:repo/escape/evil"),
        lambda: backend.move("root:repo/README.md", "root:repo/escape/R.md"),
        lambda: backend.move("root:repo/escape/secret.txt", "root:repo/s.txt"),
        lambda: backend.stat("root:repo/escape/secret.txt"),
        lambda: backend.stat(str(outside / "secret.txt")),
        lambda: backend.head("root:repo/escape/secret.txt", 1),
        lambda: backend.tail("root:repo/../outside/secret.txt", 1),
        lambda: backend.tree("root:repo/escape"),
        lambda: backend.multi_edit("root:repo/escape/secret.txt", [("secret", "x")]),
    ):
        with pytest.raises(Error) as e:
            call()
        assert str(e.value) == INVALID
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_multi_edit_head_tail(backend, tree):
    f = tree["repo"] / "m.txt"
    f.write_text("one\ntwo\nthree\n")
    addr, diff = backend.multi_edit("root:repo/m.txt", [("one", "1"), ("two\n", "")], dry_run=True)
    assert addr == "root:repo/m.txt"
    assert diff == "--- root:repo/m.txt\n+++ root:repo/m.txt\n@@ -1,3 +1,2 @@\n-one\n-two\n+1\n three\n"
    assert f.read_text() == "one\ntwo\nthree\n"
    with pytest.raises(Error, match="^String not found in file: 'zzz'$"):
        backend.multi_edit("root:repo/m.txt", [("one", "1"), ("zzz", "")])
    assert f.read_text() == "one\ntwo\nthree\n"
    backend.multi_edit("root:repo/m.txt", [("one", "1"), ("1", "uno", True)])
    assert f.read_text() == "uno\ntwo\nthree\n"
    assert backend.head("root:repo/m.txt", 2) == "uno\ntwo\n"
    assert backend.tail("root:repo/m.txt", 1) == "three\n"
    assert backend.head("root:repo/m.txt") == "uno\ntwo\nthree\n"
    with pytest.raises(ValueError):
        backend.head("root:repo/m.txt", -1)
    with pytest.raises(TypeError):
        backend.multi_edit("root:repo/m.txt", ["bad"])  # type: ignore[list-item]


def test_tree_and_session(resolver, tree):
    s = Session(resolver)
    b = Backend(s)
    entries, truncated = b.tree("root:repo", exclude=["docs"])
    paths = [e["path"] for e in entries]
    assert paths == [
        "root:repo/README.md", "root:repo/common/", "root:repo/common/traits/",
        "root:repo/common/traits/00_traits.txt", "root:repo/inner/",
    ]
    assert not truncated
    s.push("root:repo/common")
    assert b.mkdir("new") == "root:repo/common/new"
    assert [e["path"] for e in b.tree("traits")[0]] == ["root:repo/common/traits/00_traits.txt"]
    assert b.stat("traits/00_traits.txt")["size"] == 7
    assert pathgate.Backend(resolver).tree("root:repo/common/new") == ([], False)


def test_tree_rejects_bad_exclude_patterns(backend):
    with pytest.raises(Error) as e:
        backend.tree("root:repo", exclude=["a\0b"])
    assert e.value.kind == "nul_byte"
    with pytest.raises(Error, match="glob pattern is empty"):
        backend.tree("root:repo", exclude=[""])
    with pytest.raises(TypeError):
        backend.tree("root:repo", exclude=[3])  # type: ignore[list-item]
