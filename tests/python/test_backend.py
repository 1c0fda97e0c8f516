"""pathgate.Backend: the deepagents backend protocol over contained file
operations (docs/spec.md section 7), on a real tree."""

import base64
import inspect
import os
import threading

import pytest

import pathgate
from pathgate import (
    Backend,
    DeleteResult,
    EditResult,
    FileDownloadResponse,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    Session,
    WriteResult,
    convert_file_data,
)

REMINDER = "System reminder: File exists but has empty contents"


@pytest.fixture
def fs(tmp_path):
    """repo and ro (roots), a mod, and an outside directory. (Read-only bases
    are covered by the C suites: the Python Resolver has no flag for them.)"""
    repo = tmp_path / "repo"
    ro = tmp_path / "ro"
    mod = tmp_path / "mods" / "My Mod"
    outside = tmp_path / "outside"
    for d in (repo / "dir" / "sub", repo / ".hidden", ro, mod / "common", outside):
        d.mkdir(parents=True)
    (outside / "secret.txt").write_text("SECRET needle\n")
    (ro / "f.txt").write_text("read only\n")
    (mod / "common" / "t.txt").write_text("mod text\n")
    (repo / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (repo / "nofinal.txt").write_bytes(b"x\ny")
    (repo / "empty.txt").write_bytes(b"")
    (repo / "bin.dat").write_bytes(b"\0\1\xff")
    (repo / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 10001)))
    (repo / "name with space.txt").write_text("spaced\n")
    (repo / "ünïcödé.txt").write_text("unicode\n")
    (repo / "dir" / "sub" / "deep.txt").write_text("deep needle\n")
    (repo / "dir" / "x.py").write_text("print('needle')\n")
    (repo / ".hidden" / "secret.txt").write_text("hidden needle\n")
    os.mkfifo(repo / "fifo")
    (repo / "link_in").symlink_to("a.txt")
    (repo / "link_out").symlink_to("../outside/secret.txt")
    (repo / "link_out_dir").symlink_to(outside)
    (repo / "dangling_out").symlink_to("../outside/newfile")
    resolver = pathgate.Resolver(
        roots={"repo": repo, "ro": ro}, mods={"My Mod": mod}
    )
    return {"tmp": tmp_path, "repo": repo, "ro": ro, "mod": mod, "outside": outside,
            "resolver": resolver, "backend": Backend(resolver)}


def no_host_path(fs, text):
    assert str(fs["tmp"]) not in (text or "")


# ----------------------------------------------------------------- shape


def test_protocol_names_and_parameters():
    params = {
        "ls": ["path"],
        "read": ["file_path", "offset", "limit"],
        "write": ["file_path", "content"],
        "edit": ["file_path", "old_string", "new_string", "replace_all"],
        "delete": ["file_path"],
        "grep": ["pattern", "path", "glob", "max_count", "regex", "ignore_case"],
        "glob": ["pattern", "path"],
        "upload_files": ["files"],
        "download_files": ["paths"],
    }
    # pathgate's extra parameters come after the protocol's, keyword-only
    extra = {"ls": ["metadata", "limit"], "grep": ["threads", "max_file_size", "all_bases"], "glob": ["basename"]}
    for name, expected in params.items():
        for method in (name, "a" + name):
            sig = inspect.signature(getattr(Backend, method))
            more = extra.get(name, []) if method == name else []
            assert list(sig.parameters)[1:] == expected + more, method
            assert all(sig.parameters[p].kind is inspect.Parameter.KEYWORD_ONLY for p in more)
        assert inspect.iscoroutinefunction(getattr(Backend, "a" + name))
    grep = inspect.signature(Backend.grep).parameters
    for name in ("max_count", "regex", "ignore_case"):
        assert grep[name].kind is inspect.Parameter.KEYWORD_ONLY
    assert inspect.signature(Backend.read).parameters["limit"].default == 2000
    with pytest.raises(TypeError):
        Backend("root:repo")


# -------------------------------------------------------------------- ls


def test_ls(fs):
    b = fs["backend"]
    res = b.ls("root:repo")
    assert isinstance(res, LsResult) and res.error is None
    paths = [e["path"] for e in res.entries]
    assert paths == sorted(paths)
    assert paths == [
        "root:repo/.hidden/", "root:repo/a.txt", "root:repo/big.txt", "root:repo/bin.dat",
        "root:repo/crlf.txt", "root:repo/dir/", "root:repo/empty.txt", "root:repo/link_in",
        "root:repo/name with space.txt", "root:repo/nofinal.txt", "root:repo/ünïcödé.txt",
    ]
    a = res.entries[1]
    assert a["is_dir"] is False and a["size"] == 17
    assert a["modified_at"].endswith("+00:00")
    assert res.entries[0]["is_dir"] is True and res.entries[0]["size"] == 0
    assert [e["path"] for e in b.ls("mod:My Mod").entries] == ["mod:My Mod/common/"]
    assert [e["path"] for e in b.ls(str(fs["repo"] / "dir")).entries] == [
        "root:repo/dir/sub/", "root:repo/dir/x.py"]
    assert b.ls("root:repo/nope").error == "Directory 'root:repo/nope' not found"
    assert b.ls("root:repo/a.txt").error == "'root:repo/a.txt' is not a directory"
    for bad in ("root:repo/link_out_dir", str(fs["outside"]), "root:repo/../outside", "../outside"):
        res = b.ls(bad)
        assert res.error == "Invalid path / not found" and res.entries is None
    # relative text is relative to the first base (docs/fs.md)
    assert b.ls("nope").error == "Directory 'root:repo/nope' not found"
    assert len(fs["resolver"]) == 0  # nothing minted is kept


# ------------------------------------------------------------------ read


def test_read(fs):
    b = fs["backend"]
    res = b.read("root:repo/a.txt")
    assert isinstance(res, ReadResult) and res.error is None
    assert res.file_data["content"] == "alpha\nbeta\ngamma"
    assert res.file_data["encoding"] == "utf-8"
    assert (res.total_lines, res.start_line, res.end_line, res.next_offset) == (3, 1, 3, None)
    res = b.read("root:repo/a.txt", offset=1, limit=1)
    assert res.file_data["content"] == "beta"
    assert (res.start_line, res.end_line, res.next_offset) == (2, 2, 2)
    assert b.read("root:repo/a.txt", -3, 1).file_data["content"] == "alpha"
    assert b.read("root:repo/crlf.txt").file_data["content"] == "one\ntwo\nthree"
    assert b.read("root:repo/nofinal.txt", 1).file_data["content"] == "y"
    big = b.read("root:repo/big.txt")
    assert (big.total_lines, big.end_line, big.next_offset) == (10000, 2000, 2000)
    assert big.file_data["content"].splitlines()[-1] == "line 2000"
    last = b.read("root:repo/big.txt", offset=big.next_offset * 5 - 1, limit=5)
    assert last.file_data["content"] == "line 10000" and last.next_offset is None
    assert b.read("root:repo/name with space.txt").file_data["content"] == "spaced"
    assert b.read("root:repo/ünïcödé.txt").file_data["content"] == "unicode"
    assert b.read("root:repo/link_in", 0, 1).file_data["content"] == "alpha"
    assert b.read("ROOT_REPO:/dir/x.py").file_data["content"] == "print('needle')"
    assert b.read((fs["repo"] / "a.txt").as_uri()).file_data["content"].startswith("alpha")


def test_read_special_files_and_errors(fs):
    b = fs["backend"]
    empty = b.read("root:repo/empty.txt")
    assert empty.file_data["content"] == REMINDER and empty.start_line is None
    binary = b.read("root:repo/bin.dat")
    assert binary.file_data == {"content": "AAH/", "encoding": "base64",
                                "modified_at": binary.file_data["modified_at"]}
    assert base64.b64decode(binary.file_data["content"]) == b"\0\1\xff"
    none = b.read("root:repo/missing", limit=0)
    assert none.no_lines_requested and none.file_data["content"] == "" and none.error is None
    assert b.read("root:repo/a.txt", offset=3).error == "Line offset 3 exceeds file length (3 lines)"
    assert b.read("root:repo/missing").error == "File 'root:repo/missing' not found"
    assert b.read("root:repo/dir").error == "'root:repo/dir' is a directory"
    assert b.read("root:repo/fifo").error == "'root:repo/fifo' is not a regular file"
    for bad in ("root:repo/link_out", "root:repo/link_out_dir/secret.txt", "root:repo/dangling_out",
                str(fs["outside"] / "secret.txt"), "../outside/secret.txt", "root:repo/a\0b"):
        res = b.read(bad)
        assert res.error == "Invalid path / not found" and res.file_data is None
    with pytest.raises(TypeError):
        b.read(1)


# ---------------------------------------------------------------- write


def test_write(fs):
    b = fs["backend"]
    res = b.write("root:repo/new/deeper/n.txt", "hello\n")
    assert res == WriteResult(path="root:repo/new/deeper/n.txt")
    assert (fs["repo"] / "new" / "deeper" / "n.txt").read_text() == "hello\n"
    assert b.write("root:repo/a.txt", "replaced").error is None
    assert (fs["repo"] / "a.txt").read_text() == "replaced"
    assert b.write("mod:My Mod/é x.txt", "").path == "mod:My Mod/é x.txt"
    # legacy FileData (v1: lines) and v2 (str + encoding) are converted
    assert b.write("root:repo/v1.txt", {"content": ["a", "b"]}).error is None
    assert (fs["repo"] / "v1.txt").read_text() == "a\nb"
    assert b.write("root:repo/v2.bin", {"content": "AAH/", "encoding": "base64"}).error is None
    assert (fs["repo"] / "v2.bin").read_bytes() == b"\0\1\xff"
    assert b.write("root:repo/v2.bin", {"content": "!!", "encoding": "base64"}).error
    # refusals
    assert b.write("root:repo/dir", "x").error == "'root:repo/dir' is a directory"
    assert b.write("root:repo/fifo", "x").error == "'root:repo/fifo' is not a regular file"
    assert b.write("root:repo/a.txt/x", "x").error == (
        "Cannot write 'root:repo/a.txt/x': a parent is not a directory")
    for bad in ("root:repo/dangling_out", "root:repo/link_out", "root:repo/link_out_dir/n"):
        assert b.write(bad, "x").error == "Invalid path / not found"
    assert not (fs["outside"] / "newfile").exists()
    assert not (fs["outside"] / "n").exists()
    assert (fs["outside"] / "secret.txt").read_text() == "SECRET needle\n"
    # an inside symlink is replaced by the file; its target keeps its content
    assert b.write("root:repo/link_in", "own").error is None
    assert not (fs["repo"] / "link_in").is_symlink()
    assert (fs["repo"] / "a.txt").read_text() == "replaced"
    assert not [p for p in fs["repo"].rglob(".pathgate-*")]


def test_edit(fs):
    b = fs["backend"]
    assert b.edit("root:repo/a.txt", "beta", "BETA") == EditResult(path="root:repo/a.txt", occurrences=1)
    assert (fs["repo"] / "a.txt").read_text() == "alpha\nBETA\ngamma\n"
    res = b.edit("root:repo/a.txt", "a", "4")
    # the core names the problem; deepagents' advice is its adapter's
    assert res.error == "String 'a' appears 4 times in file." and res.kind == "edit_ambiguous"
    assert res.path is None and res.occurrences is None
    assert b.edit("root:repo/a.txt", "a", "4", replace_all=True).occurrences == 4
    assert b.edit("root:repo/a.txt", "zeta", "x").error == "String not found in file: 'zeta'"
    assert b.edit("root:repo/a.txt", "", "x").error == "old_string must not be empty"
    assert b.edit("root:repo/crlf.txt", "one\ntwo", "1\n2").error is None
    assert (fs["repo"] / "crlf.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"
    assert b.edit("root:repo/missing", "a", "b").error == "File 'root:repo/missing' not found"
    assert b.edit("root:repo/link_out", "SECRET", "x").error == "Invalid path / not found"
    assert (fs["outside"] / "secret.txt").read_text() == "SECRET needle\n"


def test_delete(fs):
    b = fs["backend"]
    assert b.delete("root:repo/a.txt") == DeleteResult(path="root:repo/a.txt")
    assert not (fs["repo"] / "a.txt").exists()
    assert b.delete("root:repo/a.txt").error == "File 'root:repo/a.txt' not found"
    assert b.delete("root:repo/dir").error is None
    assert not (fs["repo"] / "dir").exists()
    assert b.delete("root:repo/link_out_dir").error == "Invalid path / not found"
    assert b.delete("root:repo").error == "Permission denied: 'root:repo'"
    assert (fs["outside"] / "secret.txt").exists()


# ----------------------------------------------------------- grep, glob


def test_grep(fs):
    b = fs["backend"]
    res = b.grep("needle")
    assert isinstance(res, GrepResult) and res.error is None and res.truncated is False
    assert res.matches == [
        {"path": "root:repo/.hidden/secret.txt", "line": 1, "text": "hidden needle"},
        {"path": "root:repo/dir/sub/deep.txt", "line": 1, "text": "deep needle"},
        {"path": "root:repo/dir/x.py", "line": 1, "text": "print('needle')"},
    ]  # never the outside file behind link_out / link_out_dir
    assert [m["path"] for m in b.grep("needle", glob="*.py").matches] == ["root:repo/dir/x.py"]
    assert len(b.grep("needle", glob="*.txt").matches) == 1  # dot-dirs need an explicit dot
    assert len(b.grep("needle", "root:repo/dir", "sub/*").matches) == 1
    assert b.grep("o", "root:repo/crlf.txt").matches == [
        {"path": "root:repo/crlf.txt", "line": 1, "text": "one"},
        {"path": "root:repo/crlf.txt", "line": 2, "text": "two"}]
    assert b.grep("line 9999", "root:repo/big.txt").matches[0]["line"] == 9999
    assert b.grep("NEEDLE").matches == [] and b.grep("n.edle").matches == []
    assert b.grep("\x01").matches == []  # binary files are skipped
    capped = b.grep("needle", max_count=2)
    assert len(capped.matches) == 2 and capped.truncated is True
    exact = b.grep("needle", max_count=3)
    assert len(exact.matches) == 3 and exact.truncated is False
    assert b.grep("x", "root:repo/nope").error == "Directory 'root:repo/nope' not found"
    assert b.grep("x", "root:repo/link_out_dir").error == "Invalid path / not found"
    assert b.grep("a\nb").error == "grep pattern must not contain a line break"
    with pytest.raises(ValueError):
        b.grep("x", max_count=-1)


def test_glob(fs):
    b = fs["backend"]
    res = b.glob("*.txt")
    assert isinstance(res, GlobResult) and res.error is None
    paths = [m["path"] for m in res.matches]
    assert paths == [
        "root:repo/a.txt", "root:repo/big.txt", "root:repo/crlf.txt", "root:repo/dir/sub/deep.txt",
        "root:repo/empty.txt", "root:repo/name with space.txt", "root:repo/nofinal.txt",
        "root:repo/ünïcödé.txt"]
    assert all(m == {"path": m["path"], "is_dir": False} for m in res.matches)  # paths only
    meta = Backend(fs["resolver"], glob_metadata=True).glob("a.txt").matches
    assert meta == [{"path": "root:repo/a.txt", "is_dir": False, "size": 17,
                     "modified_at": meta[0]["modified_at"]}]
    assert meta[0]["modified_at"].endswith("+00:00")
    assert [m["path"] for m in b.glob("**/*.py").matches] == ["root:repo/dir/x.py"]
    assert [m["path"] for m in b.glob(".hidden/*").matches] == ["root:repo/.hidden/secret.txt"]
    assert [m["path"] for m in b.glob("{a,b*}.{txt,dat}").matches] == [
        "root:repo/a.txt", "root:repo/big.txt", "root:repo/bin.dat"]
    assert [m["path"] for m in b.glob("[!a-m]*.txt").matches] == [
        "root:repo/name with space.txt", "root:repo/nofinal.txt", "root:repo/ünïcödé.txt"]
    assert [m["path"] for m in b.glob("?.txt").matches] == ["root:repo/a.txt"]
    assert [m["path"] for m in b.glob("*", "root:repo/dir/sub").matches] == ["root:repo/dir/sub/deep.txt"]
    everything = [m["path"] for m in b.glob("**/*").matches]
    assert "root:repo/link_in" in everything
    assert not [p for p in everything if "out" in p or "fifo" in p]
    assert b.glob("*", "root:repo/a.txt").error == "'root:repo/a.txt' is not a directory"
    assert b.glob("").error == "glob pattern is empty"


# ---------------------------------------------------- upload / download


def test_upload_and_download(fs):
    b = fs["backend"]
    up = b.upload_files([
        ("root:repo/up/one.bin", b"\0\1\2"),
        ("root:repo/dir", b"x"),
        ("root:repo/dangling_out", b"x"),
        ("nowhere:x", b"x"),
        ("root:repo/a.txt", bytearray(b"new a")),
    ])
    assert up == [
        FileUploadResponse("root:repo/up/one.bin", None),
        FileUploadResponse("root:repo/dir", "is_directory"),
        FileUploadResponse("root:repo/dangling_out", "invalid_path"),
        FileUploadResponse("nowhere:x", "invalid_path"),
        FileUploadResponse("root:repo/a.txt", None),
    ]
    assert not (fs["outside"] / "newfile").exists()
    down = b.download_files(["root:repo/up/one.bin", "root:repo/missing", "root:repo/dir",
                             "root:repo/link_out", "root:repo/a.txt"])
    assert down == [
        FileDownloadResponse("root:repo/up/one.bin", b"\0\1\2", None),
        FileDownloadResponse("root:repo/missing", None, "file_not_found"),
        FileDownloadResponse("root:repo/dir", None, "is_directory"),
        FileDownloadResponse("root:repo/link_out", None, "invalid_path"),
        FileDownloadResponse("root:repo/a.txt", b"new a", None),
    ]
    assert b.upload_files([]) == [] and b.download_files([]) == []
    with pytest.raises(TypeError):
        b.upload_files([("root:repo/x", 12)])


# -------------------------------------------------------------- session


def test_session_backend_resolves_against_the_cwd(fs):
    s = Session(fs["resolver"])
    s.push("dir")
    b = Backend(s)
    assert b.session is s and b.resolver is fs["resolver"]
    assert [e["path"] for e in b.ls("sub").entries] == ["root:repo/dir/sub/deep.txt"]
    assert b.read("x.py").file_data["content"] == "print('needle')"
    assert b.read("../a.txt").file_data["content"].startswith("alpha")
    assert b.read("../../outside/secret.txt").error == "Invalid path / not found"
    assert b.write("made.txt", "m").path == "root:repo/dir/made.txt"
    assert len(b.grep("needle").matches) == 2  # below the cwd only
    assert [m["path"] for m in b.glob("*.py").matches] == ["root:repo/dir/x.py"]
    assert len(fs["resolver"]) == 0


# ----------------------------------------------------- FileData, threads


def test_convert_file_data():
    assert convert_file_data({"content": ["a", "b"], "created_at": "t"}) == {
        "content": "a\nb", "encoding": "utf-8", "created_at": "t"}
    assert convert_file_data({"content": "x", "encoding": "base64", "modified_at": "m"}) == {
        "content": "x", "encoding": "base64", "modified_at": "m"}
    assert convert_file_data({"content": "x"}) == {"content": "x", "encoding": "utf-8"}
    with pytest.raises(TypeError):
        convert_file_data({"nope": 1})
    with pytest.raises(ValueError):
        convert_file_data({"content": "x", "encoding": "latin-1"})


def test_errors_never_name_a_host_path(fs):
    b = fs["backend"]
    host = str(fs["repo"])
    results = [b.read(host + "/missing"), b.read(host + "/dir"), b.ls(host + "/a.txt"),
               b.write(host + "/dir", "x"), b.edit(host + "/a.txt", "zz", "y"),
               b.grep("x", host + "/nope"), b.glob("*", host + "/a.txt"), b.delete(host + "/nope"),
               b.read(str(fs["outside"]))]
    for r in results:
        assert r.error
        no_host_path(fs, r.error)


def test_threads_share_one_backend(fs):
    b = fs["backend"]
    errors = []

    def work(i):
        try:
            for k in range(30):
                name = f"root:repo/t{i}/f{k}.txt"
                assert b.write(name, f"{i} {k}\n").error is None
                assert b.read(name).file_data["content"] == f"{i} {k}"
                assert len(b.grep("needle", "root:repo/dir").matches) == 2
        except AssertionError as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(b.glob("t*/*.txt").matches) == 180
