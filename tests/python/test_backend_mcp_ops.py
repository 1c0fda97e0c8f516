"""Backend.mkdir / move / stat / multi_edit / head / tail / tree: the core
operations of the MCP server from Python, with their messages, containment
and the session's relative paths. They answer results with error and kind,
like the deepagents protocol's operations."""

import pathlib

import pytest

import pathgate
from pathgate import (Backend, EditResult, LinesResult, MkdirResult, MoveResult, Session,
                      StatResult, TreeResult)

INVALID = "Invalid path / not found"


@pytest.fixture
def backend(resolver):
    return Backend(resolver)


def test_mkdir_move_stat(backend, tree):
    r = backend.mkdir("root:repo/a/b")
    assert r == MkdirResult(path="root:repo/a/b")
    assert (tree["repo"] / "a" / "b").is_dir()
    r = backend.mkdir("root:repo/a/b", parents=False)
    assert (r.error, r.kind, r.path) == ("'root:repo/a/b' already exists", "already_exists", None)
    assert backend.move("root:repo/README.md", "root:repo/a/b/R.md") == MoveResult(path="root:repo/a/b/R.md")
    assert (tree["repo"] / "a" / "b" / "R.md").read_text() == "readme\n"
    (tree["repo"] / "x.txt").write_text("x")
    r = backend.move("root:repo/x.txt", "root:repo/a/b/R.md")
    assert (r.error, r.kind) == ("'root:repo/a/b/R.md' already exists", "already_exists")
    assert (tree["repo"] / "a" / "b" / "R.md").read_text() == "readme\n"
    # across bases (a root and a mod)
    assert backend.move("root:repo/x.txt", "mod:Some Mod/x.txt").path == "mod:Some Mod/x.txt"
    st = backend.stat("mod:Some Mod/x.txt")
    assert isinstance(st, StatResult) and st.error is None and st.kind is None
    assert st.path == "mod:Some Mod/x.txt"
    assert (st.type, st.size, st.mode) == ("file", 1, 0o644)
    assert st.modified_at.endswith("+00:00") and st.changed_at.endswith("+00:00")
    assert backend.stat("root:repo/a").type == "directory"
    missing = backend.stat("root:repo/nope")
    assert (missing.error, missing.kind, missing.path) == ("File 'root:repo/nope' not found",
                                                          "not_found", None)


def test_containment(backend, tree):
    outside = tree["outside"]
    for result in (
        backend.mkdir("root:repo/escape/evil"),
        backend.move("root:repo/README.md", "root:repo/escape/R.md"),
        backend.move("root:repo/escape/secret.txt", "root:repo/s.txt"),
        backend.stat("root:repo/escape/secret.txt"),
        backend.stat(str(outside / "secret.txt")),
        backend.stat(outside / "secret.txt"),
        backend.head("root:repo/escape/secret.txt", 1),
        backend.tail("root:repo/../outside/secret.txt", 1),
        backend.tree("root:repo/escape"),
        backend.multi_edit("root:repo/escape/secret.txt", [("secret", "x")]),
    ):
        assert (result.error, result.kind) == (INVALID, "invalid_path"), result
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_multi_edit_head_tail(backend, tree):
    f = tree["repo"] / "m.txt"
    f.write_text("one\ntwo\nthree\n")
    r = backend.multi_edit("root:repo/m.txt", [("one", "1"), ("two\n", "")], dry_run=True)
    assert isinstance(r, EditResult) and r.path == "root:repo/m.txt"
    assert r.diff == "--- root:repo/m.txt\n+++ root:repo/m.txt\n@@ -1,3 +1,2 @@\n-one\n-two\n+1\n three\n"
    assert f.read_text() == "one\ntwo\nthree\n"
    r = backend.multi_edit("root:repo/m.txt", [("one", "1"), ("zzz", "")])
    assert (r.error, r.kind, r.diff) == ("String not found in file: 'zzz'", "edit_failed", None)
    assert f.read_text() == "one\ntwo\nthree\n"
    assert backend.multi_edit("root:repo/m.txt", [("one", "1"), ("1", "uno", True)]).error is None
    assert f.read_text() == "uno\ntwo\nthree\n"
    assert backend.head("root:repo/m.txt", 2) == LinesResult(content="uno\ntwo\n")
    assert backend.tail("root:repo/m.txt", 1).content == "three\n"
    assert backend.head("root:repo/m.txt").content == "uno\ntwo\nthree\n"
    r = backend.head("root:repo/nope.txt", 1)
    assert (r.kind, r.content) == ("not_found", None)
    # misuse still raises
    with pytest.raises(ValueError):
        backend.head("root:repo/m.txt", -1)
    with pytest.raises(TypeError):
        backend.multi_edit("root:repo/m.txt", ["bad"])  # type: ignore[list-item]


def test_bounded_head_tail_multi_edit_and_listings(backend, tree):
    """The size cap (max_file_size) and the bytes (binary) of head and tail,
    the cap of multi_edit, and listings converted only up to a limit."""
    f = tree["repo"] / "b.txt"
    f.write_bytes(b"ab\xff\n" + b"x" * 100 + b"\nend\n")  # 4 + 101 + 4 bytes
    r = backend.head("root:repo/b.txt", 1, binary=True)
    assert (r.data, r.content, r.error) == (b"ab\xff\n", None, None)
    assert backend.head("root:repo/b.txt", 1).content == "ab\ufffd\n"
    assert backend.tail("root:repo/b.txt", 1, max_file_size=4, binary=True).data == b"end\n"
    cap = "File 'root:repo/b.txt' is larger than the 50-byte size cap"
    for r in (backend.head("root:repo/b.txt", 2, max_file_size=50),  # a window over the cap
              backend.tail("root:repo/b.txt", 2, max_file_size=50, binary=True),
              backend.head("root:repo/b.txt", max_file_size=50),  # the whole file
              backend.multi_edit("root:repo/b.txt", [("end", "END")], max_file_size=50)):
        assert (r.error, r.kind) == (cap, "too_large"), r
    assert f.read_bytes().endswith(b"\nend\n")
    assert backend.head("root:repo/b.txt", max_file_size=109, binary=True).data == f.read_bytes()
    with pytest.raises(ValueError):
        backend.head("root:repo/b.txt", 1, max_file_size=0)
    # listings: every entry, or the first `limit`, with or without metadata
    whole = backend.ls("root:repo").entries
    assert len(whole) > 2 and all("size" in e for e in whole)
    names = backend.ls("root:repo", metadata=False).entries
    assert names == [{"path": e["path"], "is_dir": e["is_dir"]} for e in whole]
    assert backend.ls("root:repo", limit=2).entries == whole[:2]
    assert backend.ls("root:repo", limit=0).entries == []
    everything = backend.tree("root:repo").entries
    r = backend.tree("root:repo", limit=3)
    assert r.entries == everything[:3] and r.error is None
    with pytest.raises(ValueError):
        backend.ls("root:repo", limit=-1)


def test_tree_and_session(resolver, tree):
    s = Session(resolver)
    b = Backend(s)
    r = b.tree("root:repo", exclude=["docs"])
    assert isinstance(r, TreeResult) and r.error is None and not r.truncated
    assert [e["path"] for e in r.entries] == [
        "root:repo/README.md", "root:repo/common/", "root:repo/common/traits/",
        "root:repo/common/traits/00_traits.txt", "root:repo/inner/",
    ]
    s.push("root:repo/common")
    assert b.mkdir("new").path == "root:repo/common/new"
    assert [e["path"] for e in b.tree("traits").entries] == ["root:repo/common/traits/00_traits.txt"]
    assert b.stat("traits/00_traits.txt").size == 7
    assert pathgate.Backend(resolver).tree("root:repo/common/new") == TreeResult(entries=[])


def test_tree_rejects_bad_exclude_patterns(backend):
    r = backend.tree("root:repo", exclude=["a\0b"])
    assert r.kind == "nul_byte" and r.entries is None
    r = backend.tree("root:repo", exclude=[""])
    assert r.kind == "invalid_argument" and "glob pattern is empty" in r.error
    with pytest.raises(TypeError):
        backend.tree("root:repo", exclude=[3])  # type: ignore[list-item]


def test_every_operation_takes_any_path_like(resolver, tree):
    """str, os.PathLike (a host path inside a base), VisibilityRef and a
    resolution from pathgate.resolved, in every operation."""
    b = Backend(resolver)
    host = tree["repo"] / "common"
    (tree["repo"] / "p.txt").write_text("p one\n")
    assert b.stat(host).path == "root:repo/common"
    assert b.mkdir(host / "made").path == "root:repo/common/made"
    assert b.move(tree["repo"] / "p.txt", host / "made" / "p.txt").path == "root:repo/common/made/p.txt"
    assert b.head(pathlib.PurePosixPath(host / "made" / "p.txt")).content == "p one\n"
    assert b.tail(host / "made" / "p.txt", 1).content == "p one\n"
    assert b.tree(host).entries[0]["path"] == "root:repo/common/made/"
    assert b.multi_edit(host / "made" / "p.txt", [("one", "two")]).error is None
    with pathgate.resolved(b, "root:repo/common/made/p.txt") as res:
        assert b.read(res).file_data["content"] == "p two"
        assert b.stat(res.ref).path == "root:repo/common/made/p.txt"
        assert b.edit(res, "two", "three").occurrences == 1
        assert b.head(res).content == "p three\n"
    with pathgate.resolved(b, "root:repo/../x") as bad:
        assert not bad.ok
        for result in (b.read(bad), b.stat(bad), b.write(bad, "x"), b.mkdir(bad), b.ls(bad)):
            assert (result.error, result.kind) == (INVALID, "invalid_path")
        assert b.download_files([bad])[0].error == "invalid_path"
        assert b.upload_files([(bad, b"x")])[0].error == "invalid_path"
    class BytesPath:
        def __fspath__(self) -> bytes:
            return b"root:repo/README.md"

    for wrong in (3, None, b"root:repo/README.md", BytesPath()):
        with pytest.raises(TypeError):
            b.stat(wrong)  # type: ignore[arg-type]
    assert len(resolver) == 0
