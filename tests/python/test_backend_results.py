"""pathgate.Backend results a program can act on: ``kind`` on every failure,
paths as ``os.PathLike`` or ``VisibilityRef``, and ``pathgate.resolved``, the
``with`` form that releases a ref. (No deepagents needed.)"""

import os
import pathlib
import subprocess
import sys

import pytest

import pathgate
from pathgate import Backend


@pytest.fixture
def fs(tmp_path):
    repo = tmp_path / "repo"
    (repo / "dir").mkdir(parents=True)
    (repo / "a.txt").write_text("alpha\nbeta\n")
    (repo / "dir" / "b.txt").write_text("needle\n")
    resolver = pathgate.Resolver(roots={"repo": repo})
    return {"tmp": tmp_path, "repo": repo, "resolver": resolver, "backend": Backend(resolver)}


# ------------------------------------------------------------------ kind


def test_every_failure_has_the_core_error_name(fs):
    b = fs["backend"]
    cases = [
        (b.read("root:repo/missing.txt"), "not_found"),
        (b.read("root:repo/dir"), "is_directory"),
        (b.read("root:repo/../x"), "invalid_path"),
        (b.read("root:repo/a.txt", offset=99), "out_of_range"),
        (b.ls("root:repo/a.txt"), "not_a_directory"),
        (b.ls("root:repo/none"), "not_found"),
        (b.ls("/etc"), "invalid_path"),
        (b.edit("root:repo/a.txt", "zzz", "y"), "edit_failed"),
        (b.edit("root:repo/missing.txt", "a", "b"), "not_found"),
        (b.delete("root:repo/missing.txt"), "not_found"),
        (b.write("root:nope/x.txt", "x"), "invalid_path"),
        (b.write("root:repo/x.txt", {"content": "%%%", "encoding": "base64"}), "invalid_content"),
        (b.grep("x", "root:repo/none"), "not_found"),
        (b.glob("*", "root:repo/none"), "not_found"),
    ]
    for result, kind in cases:
        assert result.error, result
        assert result.kind == kind, (result, kind)
    # the text stays the deepagents-compatible one
    assert cases[0][0].error == "File 'root:repo/missing.txt' not found"


def test_success_has_no_kind(fs):
    b = fs["backend"]
    for r in (b.read("root:repo/a.txt"), b.ls("root:repo"), b.write("root:repo/n.txt", "n"),
              b.edit("root:repo/n.txt", "n", "m"), b.grep("needle", "root:repo"),
              b.glob("*.txt", "root:repo"), b.delete("root:repo/n.txt")):
        assert r.error is None and r.kind is None, r


def test_kind_is_the_name_pathgate_error_carries(fs):
    with pytest.raises(pathgate.Error) as info:
        pathgate._core._fs_read(fs["resolver"], "root:repo/missing.txt", 0, 10)
    assert fs["backend"].read("root:repo/missing.txt").kind == info.value.kind


# ------------------------------------------------- PathLike, VisibilityRef


def test_pathlike_arguments(fs):
    b, repo = fs["backend"], fs["repo"]
    assert b.read(repo / "a.txt").file_data["content"] == "alpha\nbeta"
    assert [e["path"] for e in b.ls(repo / "dir").entries] == ["root:repo/dir/b.txt"]
    assert b.write(repo / "p.txt", "p").path == "root:repo/p.txt"
    assert b.edit(pathlib.PurePosixPath(repo / "p.txt"), "p", "q").occurrences == 1
    assert [m["path"] for m in b.grep("needle", repo / "dir").matches] == ["root:repo/dir/b.txt"]
    assert [m["path"] for m in b.glob("*.txt", repo / "dir").matches] == ["root:repo/dir/b.txt"]
    up = b.upload_files([(repo / "u.bin", b"\x00\x01")])
    assert up[0].error is None and (repo / "u.bin").read_bytes() == b"\x00\x01"
    down = b.download_files([repo / "u.bin"])
    assert down[0].content == b"\x00\x01"
    assert b.delete(repo / "p.txt").path == "root:repo/p.txt"


def test_pathlike_outside_is_refused_like_text(fs):
    outside = fs["tmp"] / "outside.txt"
    outside.write_text("secret")
    r = fs["backend"].read(outside)
    assert r.kind == "invalid_path" and str(fs["tmp"]) not in r.error


def test_bytes_pathlike_and_wrong_types_raise(fs):
    class BytesPath(os.PathLike):
        def __fspath__(self):
            return b"/x"

    with pytest.raises(TypeError):
        fs["backend"].read(BytesPath())
    with pytest.raises(TypeError):
        fs["backend"].ls(42)


def test_visibility_ref_is_its_address(fs):
    r, b = fs["resolver"], fs["backend"]
    res = r.resolve("root:repo/a.txt")
    try:
        assert b.read(res.ref).file_data["content"] == "alpha\nbeta"
        assert b.edit(res.ref, "beta", "gamma").path == "root:repo/a.txt"
    finally:
        r.release(res.ref)
    d = r.resolve("root:repo/dir")
    try:
        assert [e["path"] for e in b.ls(d.ref).entries] == ["root:repo/dir/b.txt"]
        assert len(b.grep("needle", d.ref).matches) == 1
    finally:
        r.release(d.ref)


# ------------------------------------------------------------- resolved()


def test_resolved_releases_the_ref(fs):
    r = fs["resolver"]
    before = len(r)
    with pathgate.resolved(r, "root:repo/a.txt") as res:
        assert res.ok and len(r) == before + 1
        ref = res.ref
        assert r.host_path(ref) == fs["repo"] / "a.txt"
    assert len(r) == before
    assert r.host_path(ref) is None  # released: the token no longer resolves
    assert not r.release(ref)


def test_resolved_releases_on_exception_and_accepts_failures(fs):
    r = fs["resolver"]
    with pytest.raises(RuntimeError):
        with pathgate.resolved(r, fs["repo"] / "a.txt") as res:
            assert res.ok
            raise RuntimeError("boom")
    assert len(r) == 0
    with pathgate.resolved(r, "root:repo/missing") as res:
        assert not res.ok and res.ref is None
    with pathgate.resolved(r, "root:repo/missing", require_exists=False) as res:
        assert res.ok and res.exists is False
    assert len(r) == 0


def test_resolved_with_a_session_and_from_a_backend(fs):
    s = pathgate.Session(fs["resolver"])
    s.push("dir")
    with pathgate.resolved(s, "b.txt") as res:
        assert res.ref.session_abs == "root:repo/dir/b.txt"
        assert len(fs["resolver"]) == 1
    assert len(fs["resolver"]) == 0
    with Backend(s).resolved("b.txt") as res:
        assert res.ok
    assert len(fs["resolver"]) == 0
    with pytest.raises(TypeError):
        with pathgate.resolved("not an owner", "x"):
            pass


def test_many_resolves_in_with_blocks_do_not_exhaust_the_registry(tmp_path):
    (tmp_path / "f").write_text("x")
    r = pathgate.Resolver(roots={"repo": tmp_path}, max_tokens=4)
    for _ in range(50):
        with pathgate.resolved(r, "root:repo/f") as res:
            assert res.ok
    assert len(r) == 0


# --------------------------------------------------- no deepagents needed


def test_pathgate_never_imports_deepagents_and_the_adapter_says_what_is_missing():
    env = {k: v for k, v in os.environ.items()}
    code = (
        "import sys, pathgate\n"
        "assert 'deepagents' not in sys.modules\n"
        "try:\n"
        "    import pathgate.deepagents\n"
        "except ImportError as e:\n"
        "    print('IMPORTERROR', e.name, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    if "IMPORTERROR" not in out.stdout:
        pytest.skip("deepagents is importable here; the ImportError path cannot be shown")
    assert "IMPORTERROR deepagents" in out.stdout and "pip install deepagents" in out.stdout


def test_core_glob_basename_rules(fs):
    """_fs_glob(basename=True): deepagents' glob rules, in the core walk."""
    repo, r = fs["repo"], fs["resolver"]
    (repo / ".github" / "w").mkdir(parents=True)
    (repo / ".github" / "w" / "ci.yml").write_text("x")
    glob = pathgate._core._fs_glob
    paths = lambda found: [e["path"] for e in found]  # noqa: E731
    assert paths(glob(r, "*.yml", "root:repo")) == []
    assert paths(glob(r, "*.yml", "root:repo", basename=True)) == ["root:repo/.github/w/ci.yml"]
    assert paths(glob(r, "**/*.yml", "root:repo", basename=True)) == []
    assert paths(glob(r, "/*.txt", "root:repo", basename=True)) == ["root:repo/a.txt"]
    assert sorted(paths(glob(r, "/*.txt", "root:repo"))) == ["root:repo/a.txt", "root:repo/dir/b.txt"]
    assert Backend(r).glob("*.yml", "root:repo").matches == []  # Backend keeps its own rules


# ------------------------------------------------------ one rule for paths


def test_relative_text_without_a_session_is_relative_to_the_first_base(tree):
    """A Backend over a Resolver works as a new Session does: relative text
    is relative to the first root (or the first mod), as in execute, the
    command line and Lua."""
    r = pathgate.Resolver(roots={"repo": tree["repo"], "game": tree["game"]},
                          mods={"Some Mod": tree["mod"]})
    b = Backend(r)
    assert b.read("README.md").file_data["content"] == "readme"
    assert b.write("t.txt", "x").path == "root:repo/t.txt"
    assert (tree["repo"] / "t.txt").read_text() == "x"
    assert [e["path"] for e in b.ls(".").entries][:2] == ["root:repo/README.md", "root:repo/common/"]
    assert b.edit("t.txt", "x", "y").path == "root:repo/t.txt"
    assert b.stat("common/traits").type == "directory"
    assert b.read("../game/common/x.txt").kind == "invalid_path"  # never above the base
    assert b.read("root:game/common/x.txt").error is None
    # the same answers as a Session at its start
    s = Backend(pathgate.Session(r))
    assert s.read("README.md") == b.read("README.md")
    assert s.ls("common").entries == b.ls("common").entries
    with pathgate.resolved(r, "common/traits/00_traits.txt") as res:
        assert str(res.ref) == "root:repo/common/traits/00_traits.txt"
    with pathgate.resolved(b, "README.md") as res:
        assert b.read(res).file_data["content"] == "readme"
    # only mods: the first mod
    only_mods = Backend(pathgate.Resolver(mods={"Some Mod": tree["mod"]}))
    assert only_mods.ls("common").entries[0]["path"] == "mod:Some Mod/common/m.txt"
    assert len(r) == 0


def test_read_reports_the_final_line_break_and_why_not_text(fs):
    b, repo = fs["backend"], fs["repo"]
    r = b.read("root:repo/a.txt")
    assert r.file_data["content"] == "alpha\nbeta" and r.final_newline and r.not_text is None
    (repo / "open.txt").write_text("alpha\nbeta")
    assert not b.read("root:repo/open.txt").final_newline
    assert b.read("root:repo/open.txt", limit=1).final_newline  # the window's last line has one
    (repo / "nul.txt").write_bytes(b"a\0b")
    r = b.read("root:repo/nul.txt")
    assert (r.not_text, r.file_data["encoding"], r.start_line) == ("nul_byte", "base64", None)
    (repo / "latin1.txt").write_bytes(b"caf\xe9\n")
    assert b.read("root:repo/latin1.txt").not_text == "invalid_utf8"


def test_every_public_backend_method_says_what_it_does():
    names = [n for n in dir(Backend) if not n.startswith("_")]
    assert {"read", "mkdir", "head", "grep_iter", "resolved", "execute"} <= set(names)
    for name in names:
        doc = getattr(Backend, name).__doc__
        assert doc and len(doc.split()) >= 3, name
