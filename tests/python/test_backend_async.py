"""The async twins of pathgate.Backend (als, aread, ...): same answers as the
sync methods, and many of them at once on one backend."""

import asyncio

import pytest

import pathgate
from pathgate import Backend, FileDownloadResponse, FileUploadResponse, Session


@pytest.fixture
def backend(tmp_path):
    repo = tmp_path / "repo"
    outside = tmp_path / "outside"
    (repo / "dir").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET needle\n")
    (repo / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (repo / "empty.txt").write_text("")
    (repo / "dir" / "x.py").write_text("needle = 1\n")
    (repo / "link_out").symlink_to(outside / "secret.txt")
    (repo / "dangling_out").symlink_to("../outside/newfile")
    return Backend(pathgate.Resolver(roots={"repo": repo})), repo, outside


def run(coro):
    return asyncio.run(coro)


def test_async_twins_answer_like_the_sync_methods(backend):
    b, repo, outside = backend
    assert run(b.als("root:repo")) == b.ls("root:repo")
    assert run(b.aread("root:repo/a.txt", 1, 1)) == b.read("root:repo/a.txt", 1, 1)
    assert run(b.aread("root:repo/empty.txt")).file_data["content"] == (
        "System reminder: File exists but has empty contents")
    assert run(b.aread("root:repo/link_out")).error == "Invalid path / not found"
    assert run(b.awrite("root:repo/n/w.txt", "w")).path == "root:repo/n/w.txt"
    assert run(b.awrite("root:repo/dangling_out", "w")).error == "Invalid path / not found"
    assert not (outside / "newfile").exists()
    res = run(b.aedit("root:repo/a.txt", "beta", "BETA"))
    assert (res.path, res.occurrences) == ("root:repo/a.txt", 1)
    assert run(b.aedit("root:repo/a.txt", "a", "4")).error.startswith("String 'a' appears 4 times")
    assert run(b.aedit("root:repo/a.txt", "a", "4", True)).occurrences == 4
    assert run(b.agrep("needle")) == b.grep("needle")
    assert run(b.agrep("needle", max_count=0)).truncated is True
    assert run(b.agrep("needle", "root:repo", "*.py")).matches[0]["path"] == "root:repo/dir/x.py"
    assert run(b.aglob("**/*.py")) == b.glob("**/*.py")
    assert run(b.aupload_files([("root:repo/u.bin", b"\0"), ("root:repo/dir", b"x")])) == [
        FileUploadResponse("root:repo/u.bin", None), FileUploadResponse("root:repo/dir", "is_directory")]
    assert run(b.adownload_files(["root:repo/u.bin", "root:repo/nope"])) == [
        FileDownloadResponse("root:repo/u.bin", b"\0", None),
        FileDownloadResponse("root:repo/nope", None, "file_not_found")]
    assert run(b.adelete("root:repo/n")).path == "root:repo/n"
    assert not (repo / "n").exists()
    assert (outside / "secret.txt").read_text() == "SECRET needle\n"


def test_many_at_once(backend):
    b, repo, _ = backend

    async def main():
        writes = await asyncio.gather(*(b.awrite(f"root:repo/many/{i}.txt", f"{i}\n") for i in range(40)))
        assert all(w.error is None for w in writes)
        reads = await asyncio.gather(*(b.aread(f"root:repo/many/{i}.txt") for i in range(40)))
        assert [r.file_data["content"] for r in reads] == [str(i) for i in range(40)]
        greps, globs = await asyncio.gather(b.agrep("1", "root:repo/many"), b.aglob("many/*.txt"))
        return greps, globs

    greps, globs = run(main())
    assert len(globs.matches) == 40
    assert sorted(m["text"] for m in greps.matches) == sorted(str(i) for i in range(40) if "1" in str(i))


def test_async_with_a_session(backend):
    b, repo, _ = backend
    s = Session(b.resolver)
    s.push("dir")
    sb = Backend(s)
    assert run(sb.aread("x.py")).file_data["content"] == "needle = 1"
    assert [m["path"] for m in run(sb.aglob("*")).matches] == ["root:repo/dir/x.py"]
