"""Handles and the toolkit from Python (issue 26): Backend.open and
pathgate.open give standard io objects, writes are atomic (the old content
survives an exception, a failed flush or an unclosed handle), scandir and
walk are lazy iterators, and exists/copy/link/symlink/readlink/chmod/utime/
remove_tree/lstat/subroot answer in Backend's result style, contained like
every other operation. No message names a host path."""

import csv
import gc
import io
import json
import os
import pathlib
import stat
import warnings

import pytest

import pathgate


@pytest.fixture
def backend(resolver):
    return pathgate.Backend(resolver)


def no_host(text, tree):
    assert str(tree["tmp"]) not in str(text)


# ---------------------------------------------------------------- open


def test_open_reads_as_builtin_open(backend, tree):
    with backend.open("root:repo/README.md") as f:
        assert isinstance(f, io.TextIOWrapper)
        assert f.read() == "readme\n"
        assert f.name == "root:repo/README.md"
        assert f.mode == "r" and f.encoding == "utf-8"
        no_host(repr(f), tree)
    with backend.open(pathlib.PurePosixPath("root:repo/README.md"), "rb") as f:
        assert isinstance(f, io.BufferedReader)
        assert f.read() == b"readme\n"
        f.seek(2)
        assert f.read(3) == b"adm"
    with backend.open("root:repo/README.md", "rb", buffering=0) as f:
        assert isinstance(f, io.FileIO)
    # any library that takes a file object takes it; lines iterate
    (tree["repo"] / "t.csv").write_text("a,b\n1,2\n")
    with backend.open("root:repo/t.csv", newline="") as f:
        assert list(csv.reader(f)) == [["a", "b"], ["1", "2"]]
    with pathgate.open(backend, "root:repo/t.csv") as f:
        assert [line for line in f] == ["a,b\n", "1,2\n"]
    with pathgate.open(backend.resolver, "root:repo/inner/../README.md") as f:
        assert f.read() == "readme\n"


def test_open_failures_are_builtin_errors_without_host_paths(backend, tree):
    cases = [
        ("root:repo/nope", FileNotFoundError, "not_found"),
        ("root:repo/escape/secret.txt", FileNotFoundError, "invalid_path"),
        ("root:repo/../outside/secret.txt", FileNotFoundError, "invalid_path"),
        (str(tree["outside"] / "secret.txt"), FileNotFoundError, "invalid_path"),
        ("root:repo/docs", IsADirectoryError, "is_directory"),
    ]
    for path, exc, kind in cases:
        with pytest.raises(exc) as info:
            backend.open(path)
        assert info.value.kind == kind
        assert str(tree["tmp"]) not in info.value.strerror
    os.mkfifo(tree["repo"] / "fifo")
    with pytest.raises(OSError) as info:
        backend.open("root:repo/fifo")  # refused, not blocked
    assert info.value.kind == "not_regular_file"
    with pytest.raises(ValueError):
        backend.open("root:repo/README.md", "rw")
    with pytest.raises(ValueError):
        backend.open("root:repo/README.md", "rb", encoding="utf-8")
    with pytest.raises(TypeError):
        backend.open(42)


def test_write_takes_the_name_atomically_on_close(backend, tree):
    target = tree["repo"] / "README.md"
    target.chmod(0o640)
    with backend.open("root:repo/README.md", "w") as f:
        f.write("new\n")
        f.flush()
        assert target.read_text() == "readme\n"  # not yet
        assert f.name == "root:repo/README.md"
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tree["repo"].iterdir() if p.name.startswith(".pathgate")] == []
    # json.dump into it, binary, exclusive
    with backend.open("root:repo/data.json", "x") as f:
        json.dump({"a": 1}, f)
    assert json.loads((tree["repo"] / "data.json").read_text()) == {"a": 1}
    with pytest.raises(FileExistsError):
        backend.open("root:repo/data.json", "x")
    with backend.open("root:repo/b.bin", "wb") as f:
        assert isinstance(f, io.BufferedWriter)
        f.write(b"\x00\xff")
    assert (tree["repo"] / "b.bin").read_bytes() == b"\x00\xff"


def test_append_and_update_start_from_the_old_content(backend, tree):
    with backend.open("root:repo/README.md", "a") as f:
        f.write("more\n")
    assert (tree["repo"] / "README.md").read_text() == "readme\nmore\n"
    with backend.open("root:repo/README.md", "r+") as f:
        assert f.read() == "readme\nmore\n"
        f.seek(0)
        f.write("README")
    assert (tree["repo"] / "README.md").read_text() == "README\nmore\n"
    with backend.open("root:repo/new.log", "a+") as f:
        f.write("x")
        f.seek(0)
        assert f.read() == "x"
    with pytest.raises(FileNotFoundError):
        backend.open("root:repo/none.txt", "r+")


def test_an_exception_in_with_leaves_the_old_content(backend, tree):
    with pytest.raises(KeyError):
        with backend.open("root:repo/README.md", "w") as f:
            f.write("half")
            raise KeyError("crash")
    assert (tree["repo"] / "README.md").read_text() == "readme\n"
    with pytest.raises(KeyError):
        with backend.open("root:repo/README.md", "ab") as f:
            f.write(b"half")
            raise KeyError("crash")
    assert (tree["repo"] / "README.md").read_text() == "readme\n"
    assert not any(p.name.startswith(".pathgate") for p in tree["repo"].iterdir())


def test_an_unclosed_handle_is_discarded_with_a_warning(backend, tree):
    f = backend.open("root:repo/README.md", "w")
    f.write("lost")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del f
        gc.collect()
    assert any(issubclass(w.category, ResourceWarning) for w in caught)
    assert (tree["repo"] / "README.md").read_text() == "readme\n"
    assert not any(p.name.startswith(".pathgate") for p in tree["repo"].iterdir())


def test_a_failed_flush_discards(backend, tree):
    f = backend.open("root:repo/README.md", "wb")
    f.write(b"never whole")

    def broken_write(data):
        raise OSError(28, "No space left on device")

    f.raw.write = broken_write  # the disk fills up under the buffer
    with pytest.raises(OSError):
        f.close()
    assert f.closed
    assert (tree["repo"] / "README.md").read_text() == "readme\n"
    assert not any(p.name.startswith(".pathgate") for p in tree["repo"].iterdir())


def test_text_encoding_errors_are_the_callers(backend, tree):
    with backend.open("root:repo/README.md", "w", encoding="ascii") as f:
        f.write("ok")
        with pytest.raises(UnicodeEncodeError):
            f.write("\u00e9")
    assert (tree["repo"] / "README.md").read_text() == "ok"


def test_writes_are_contained_and_respect_read_only(tree):
    r = pathgate.Resolver(roots={"repo": tree["repo"], "game": tree["game"]}, read_only=["game"])
    b = pathgate.Backend(r)
    (tree["repo"] / "to_game").symlink_to("../game/common/x.txt")
    with pytest.raises(PermissionError) as info:
        b.open("root:game/common/x.txt", "w")
    assert info.value.kind == "permission_denied"
    with pytest.raises(FileNotFoundError):  # leads out of root:repo
        b.open("root:repo/to_game", "w")
    with pytest.raises(FileNotFoundError):
        b.open("root:repo/escape/new.txt", "w")
    assert not (tree["outside"] / "new.txt").exists()
    assert (tree["game"] / "common" / "x.txt").read_text() == "x\n"


def test_writing_through_a_symlink_inside_replaces_its_target(backend, tree):
    (tree["repo"] / "docs" / "d.txt").write_text("old")
    (tree["repo"] / "alias").symlink_to("docs/d.txt")
    with backend.open("root:repo/alias", "w") as f:
        f.write("via alias")
    assert (tree["repo"] / "alias").is_symlink()
    assert (tree["repo"] / "docs" / "d.txt").read_text() == "via alias"


# ------------------------------------------------------ scandir, walk


def test_scandir_is_lazy_and_ordered(backend, tree):
    (tree["repo"] / "link_in").symlink_to("README.md")
    with backend.scandir("root:repo") as it:
        entries = list(it)
    names = [e.name for e in entries]
    assert names == sorted(names)
    by = {e.name: e for e in entries}
    assert by["common"].kind == "directory" and by["common"].is_dir()
    assert by["README.md"].path == "root:repo/README.md"
    assert by["README.md"].size == 7
    assert by["link_in"].is_symlink() and by["link_in"].is_file()
    assert not by["link_in"].is_file(follow_symlinks=False)
    assert by["inner"].is_dir()
    assert not by["escape"].is_dir()  # leads out: nothing there for us
    with pytest.raises(pathgate.Error):
        by["escape"].stat()
    assert by["link_in"].stat(follow_symlinks=False)["type"] == "symlink"
    assert os.fspath(by["README.md"]) == "root:repo/README.md"
    assert backend.read(by["README.md"]).file_data["content"] == "readme"
    with pytest.raises(NotADirectoryError):
        backend.scandir("root:repo/README.md")
    with pytest.raises(FileNotFoundError) as info:
        backend.scandir("root:repo/escape")
    assert info.value.kind == "invalid_path"


def test_walk_is_os_walk_over_addresses(backend, tree):
    got = list(backend.walk("root:repo"))
    assert got[0] == ("root:repo", ["common", "docs", "inner"], ["README.md"])
    assert ("root:repo/common/traits", [], ["00_traits.txt"]) in got
    assert [d for d, _, _ in got] == ["root:repo", "root:repo/common", "root:repo/common/traits",
                                      "root:repo/docs"]
    # pruning as with os.walk
    pruned = []
    for d, dirs, files in backend.walk("root:repo"):
        pruned.append(d)
        dirs[:] = [x for x in dirs if x != "common"]
    assert pruned == ["root:repo", "root:repo/docs"]
    # bottom up
    up = [d for d, _, _ in backend.walk("root:repo", topdown=False)]
    assert up == ["root:repo/common/traits", "root:repo/common", "root:repo/docs", "root:repo"]
    # the same tree as os.walk sees it (no symlinks here but inner/escape)
    ref = {os.path.relpath(d, tree["repo"]): (sorted(ds), sorted(fs))
           for d, ds, fs in os.walk(tree["repo"])}
    mine = {d[len("root:repo/"):] or ".": (ds, fs) for d, ds, fs in backend.walk("root:repo")}
    for rel in mine:
        dirs, files = ref[rel]
        assert mine[rel][1] == files
        assert set(mine[rel][0]) <= set(dirs)  # escape (outward) is left out
    with pytest.raises(FileNotFoundError):
        backend.walk("root:repo/nothing")
    # leaving the loop closes it
    it = backend.walk("root:repo")
    next(it)
    it.close()


# ------------------------------------------------------------ the toolkit


def test_exists_isdir_isfile(backend, tree):
    assert backend.exists("root:repo/README.md") and backend.isfile("root:repo/README.md")
    assert backend.isdir("root:repo/inner") and not backend.isfile("root:repo/inner")
    assert backend.exists(pathlib.PurePosixPath("root:repo"))
    for bad in ("root:repo/nope", "root:repo/escape", "root:repo/escape/secret.txt",
                "root:repo/a\x00b", "root:nope/x", "", str(tree["outside"])):
        assert backend.exists(bad) is False
        assert backend.isdir(bad) is False


def test_copy_link_symlink_readlink(backend, tree):
    r = backend.copy("root:game/common/x.txt", "mod:Some Mod/common/x.txt")
    assert r.error is None and r.path == "mod:Some Mod/common/x.txt"
    assert (tree["mod"] / "common" / "x.txt").read_text() == "x\n"
    r = backend.copy("root:repo/README.md", "mod:Some Mod/common/x.txt")
    assert r.kind == "already_exists" and r.path is None
    assert backend.copy("root:repo/README.md", "mod:Some Mod/common/x.txt", replace=True).error is None
    assert (tree["mod"] / "common" / "x.txt").read_text() == "readme\n"
    r = backend.copy("root:repo/escape/secret.txt", "root:repo/s.txt")
    assert r.kind == "invalid_path"
    no_host(r.error, tree)

    assert backend.link("root:repo/README.md", "root:repo/hard").error is None
    assert (tree["repo"] / "hard").stat().st_ino == (tree["repo"] / "README.md").stat().st_ino

    assert backend.symlink("../README.md", "root:repo/docs/up").error is None
    assert backend.readlink("root:repo/docs/up").target == "../README.md"
    r = backend.symlink("../../outside/secret.txt", "root:repo/docs/evil")
    assert r.kind == "invalid_argument"
    assert not (tree["repo"] / "docs" / "evil").exists()
    assert backend.symlink("/etc/passwd", "root:repo/abs").kind == "invalid_argument"
    r = backend.readlink("root:repo/escape")
    assert r.kind == "invalid_path" and r.target is None
    assert backend.readlink("root:repo/README.md").kind == "not_a_symlink"


def test_chmod_utime_lstat_remove_tree(backend, tree):
    assert backend.chmod("root:repo/README.md", 0o600).error is None
    assert stat.S_IMODE((tree["repo"] / "README.md").stat().st_mode) == 0o600
    r = backend.chmod("root:repo/README.md", 0o4755)
    assert r.kind == "invalid_argument"
    assert stat.S_IMODE((tree["repo"] / "README.md").stat().st_mode) == 0o600
    assert backend.utime("root:repo/README.md", (1000.0, 2000.5)).error is None
    st = (tree["repo"] / "README.md").stat()
    assert st.st_atime == 1000.0 and st.st_mtime == 2000.5
    assert backend.utime("root:repo/README.md", ns=(5, 7_000_000_000)).error is None
    assert (tree["repo"] / "README.md").stat().st_mtime_ns == 7_000_000_000
    assert backend.utime("root:repo/README.md").error is None
    with pytest.raises(ValueError):
        backend.utime("root:repo/README.md", (1, 2), ns=(1, 2))
    assert backend.utime("root:repo/escape/secret.txt").kind == "invalid_path"

    r = backend.lstat("root:repo/inner")
    assert isinstance(r, pathgate.StatResult) and type(r) is type(backend.stat("root:repo/inner"))
    assert r.error is None and r.type == "symlink" and r.path == "root:repo/inner"
    assert r.size == len(os.readlink(tree["repo"] / "inner")) and r.mode is not None
    assert backend.stat("root:repo/inner").type == "directory"  # stat follows it
    assert backend.lstat("root:repo/escape").kind == "invalid_path"

    assert backend.remove_tree("root:repo/common").error is None
    assert not (tree["repo"] / "common").exists()
    assert backend.remove_tree("root:repo/common").error is None  # nothing there: fine
    assert backend.remove_tree("root:repo/inner").error is None  # the link itself
    assert (tree["repo"] / "docs").is_dir()
    assert backend.remove_tree("root:repo").kind == "permission_denied"
    assert backend.remove_tree("root:repo/escape/secret.txt").kind == "invalid_path"
    assert (tree["outside"] / "secret.txt").exists()


def test_subroot(backend, tree):
    sub = backend.subroot("root:repo/common")
    assert isinstance(sub, pathgate.Backend)
    assert sub.resolver.roots == ("common",)
    assert sub.read("root:common/traits/00_traits.txt").file_data["content"] == "traits"
    assert sub.read("root:common/../README.md").kind == "invalid_path"
    with sub.open("root:common/traits/new.txt", "w") as f:
        f.write("from the subroot")
    assert (tree["repo"] / "common" / "traits" / "new.txt").read_text() == "from the subroot"
    assert backend.subroot("mod:Some Mod", key="mine").resolver.roots == ("mine",)
    with pytest.raises(pathgate.Error) as info:
        backend.subroot("root:repo/escape")
    assert info.value.kind == "invalid_path"
    with pytest.raises(pathgate.Error):
        backend.subroot("root:repo/README.md")


def test_session_relative_paths(resolver, tree):
    s = pathgate.Session(resolver, "repo")
    s.push("common")
    b = pathgate.Backend(s)
    with b.open("traits/00_traits.txt") as f:
        assert f.read() == "traits\n"
    assert [d for d, _, _ in b.walk()] == ["root:repo/common", "root:repo/common/traits"]
    assert [e.name for e in b.scandir()] == ["traits"]
    assert b.exists("traits") and not b.exists("../../x")


def test_bare_resolver_defaults_to_the_first_base(resolver, tree):
    """Without a Session, relative text (and scandir/walk's default ".")
    names the first base, as in every other operation (docs/fs.md)."""
    b = pathgate.Backend(resolver)
    assert [d for d, _, _ in b.walk()][:2] == ["root:repo", "root:repo/common"]
    assert next(iter(b.walk())) == ("root:repo", ["common", "docs", "inner"], ["README.md"])
    names = [e.name for e in b.scandir()]
    assert names == sorted(os.listdir(tree["repo"]))
    assert [e.path for e in b.scandir("common")] == ["root:repo/common/traits"]
    with b.open("README.md") as f:
        assert f.read() == "readme\n"
    with pathgate.open(resolver, "common/traits/00_traits.txt") as f:
        assert f.read() == "traits\n"
    assert b.isfile("README.md") and b.isdir(".") and not b.exists("x.txt")
    assert b.lstat("inner").type == "symlink" and b.stat("inner").type == "directory"
    # a resolver with mods only: the first mod
    mods_only = pathgate.Backend(pathgate.Resolver(mods={"Some Mod": tree["mod"]}))
    assert next(iter(mods_only.walk()))[:2] == ("mod:Some Mod", ["common"])
    assert [e.path for e in mods_only.scandir()] == ["mod:Some Mod/common"]
    # nothing above the base: ".." from it is refused, not the parent directory
    with pytest.raises(FileNotFoundError) as info:
        list(b.scandir(".."))
    assert info.value.kind == "invalid_path"
