"""PathgateBackend itself: the path mapping both ways, which reading wins,
the owners it takes, and the FilesystemBackend behaviours it matches."""

from __future__ import annotations

import asyncio
import base64
import threading
import time

import pytest

from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON

if not HAVE_THIRD_PARTY:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from deepagents.backends import filesystem as fs_module  # noqa: E402
from deepagents.backends import protocol as da  # noqa: E402
from deepagents.backends.utils import validate_path  # noqa: E402

import pathgate  # noqa: E402
from pathgate.deepagents import PathgateBackend  # noqa: E402


@pytest.fixture
def tree(tmp_path):
    repo, docs, mod = tmp_path / "repo", tmp_path / "docs", tmp_path / "mods" / "My Mod"
    for d in (repo / "src", docs, mod / "common"):
        d.mkdir(parents=True)
    (repo / "a.txt").write_text("alpha\nbeta\n")
    (repo / "src" / "x.py").write_text("x = 1\n")
    (docs / "guide.md").write_text("host docs\n")
    (mod / "common" / "t.txt").write_text("mod\n")
    resolver = pathgate.Resolver(roots={"repo": repo, "docs": docs}, mods={"MyMod": mod})
    return {"tmp": tmp_path, "repo": repo, "docs": docs, "mod": mod, "resolver": resolver,
            "backend": PathgateBackend(pathgate.Session(resolver))}


def test_path_mapping_in(tree):
    b, docs = tree["backend"], tree["docs"]
    table = {
        "/": "root:repo",
        "/a.txt": "root:repo/a.txt",
        "/src/x.py": "root:repo/src/x.py",
        "a.txt": "a.txt",  # relative: the session resolves it against its cwd
        "root:docs/guide.md": "root:docs/guide.md",
        "/root:docs/guide.md": "root:docs/guide.md",
        "/mod:MyMod/common/t.txt": "mod:MyMod/common/t.txt",
        "/ROOT_DOCS:/guide.md": "ROOT_DOCS:/guide.md",
        "/ROOT_DOCS:": "ROOT_DOCS:/",
        "/file:" + str(docs / "guide.md"): "file:" + str(docs / "guide.md"),
        str(docs / "guide.md"): str(docs / "guide.md"),  # host path inside a base
        "/notes:2024.txt": "root:repo/notes:2024.txt",  # a name with ':' is a name
    }
    for agent, expected in table.items():
        assert b.to_pathgate(agent) == expected, agent


def test_what_validate_path_makes_of_each_spelling_reads_back(tree):
    b, docs = tree["backend"], tree["docs"]
    for sent in ("root:docs/guide.md", "ROOT_DOCS:/guide.md", f"file://{docs}/guide.md", str(docs / "guide.md")):
        r = b.read(validate_path(sent))
        assert r.error is None and r.file_data["content"] == "host docs\n", sent
    assert b.ls(validate_path("ROOT_DOCS:/")).entries[0]["path"] == "/root:docs/guide.md"


def test_path_mapping_out_survives_validate_path(tree):
    b = tree["backend"]
    for address, agent in {"root:repo": "/", "root:repo/a.txt": "/a.txt", "root:repo/src/": "/src/",
                           "root:docs/guide.md": "/root:docs/guide.md",
                           "mod:MyMod/common/t.txt": "/mod:MyMod/common/t.txt"}.items():
        assert b.to_agent(address) == agent
        if not agent.endswith("/") or agent == "/":
            assert validate_path(agent) == agent
        assert b.to_pathgate(agent).rstrip("/") == address.rstrip("/")


def test_a_host_path_wins_over_the_virtual_reading(tree):
    """/<host dir of docs>/guide.md could also name a file under the home
    root at that relative path: the host path wins."""
    b, docs, repo = tree["backend"], tree["docs"], tree["repo"]
    shadow = repo / str(docs).lstrip("/") / "guide.md"
    shadow.parent.mkdir(parents=True)
    shadow.write_text("virtual shadow\n")
    assert b.read(str(docs / "guide.md")).file_data["content"] == "host docs\n"
    # a host-looking path outside every base is virtual (and here missing)
    assert b.read("/etc/passwd").error == "File '/etc/passwd' not found"


def test_traversal_in_a_virtual_path_raises_as_filesystem_backend(tree):
    b = tree["backend"]
    for call in (lambda: b.read("/../a.txt"), lambda: b.ls("/src/../.."), lambda: b.write("../x", "x"),
                 lambda: b.glob("../*", "/")):
        with pytest.raises(ValueError, match="traversal"):
            call()
    assert b.grep("alpha", "/../").matches == []
    assert b.download_files(["/../a.txt"])[0].error == "invalid_path"
    # in a canonical address `..` is the core's business: inside the base it is fine
    assert b.read("root:repo/src/../a.txt").error is None
    assert b.read("root:repo/../docs/guide.md").kind == "invalid_path"


def test_owner_forms(tree):
    r = tree["resolver"]
    only = PathgateBackend(r)  # a Resolver: "/" and relative text name the first root
    assert only.home == "root:repo"
    assert only.read("a.txt").file_data["content"] == "alpha\nbeta\n"
    assert only.read("/a.txt").error is None
    modded = PathgateBackend(pathgate.Session(r, "mod:MyMod"))  # a mod as the home
    assert [e["path"] for e in modded.ls("/").entries] == ["/common/"]
    assert modded.read("/common/t.txt").file_data["content"] == "mod\n"
    assert modded.glob("*.txt", "/root:repo").matches[0]["path"] == "/root:repo/a.txt"
    session = pathgate.Session(r)
    follows = PathgateBackend(session)  # "/" follows the session's home through cd
    assert follows.home == "root:repo" and follows.read("/a.txt").error is None
    session.cd("root:docs")
    assert follows.home == "root:docs"
    assert follows.read("/guide.md").file_data["content"] == "host docs\n"
    assert [m["path"] for m in follows.glob("*.txt", "/root:repo").matches] == ["/root:repo/a.txt"]
    assert follows.ls("/").entries[0]["path"] == "/guide.md"
    explicit = PathgateBackend(r, home="root:docs")
    assert explicit.read("/guide.md").error is None
    with pytest.raises(TypeError):
        PathgateBackend("not a resolver")  # type: ignore[arg-type]


def test_results_are_deepagents_classes_with_kind(tree):
    b = tree["backend"]
    cases = [
        (b.ls("/missing"), da.LsResult, "not_found", "Path '/missing': path_not_found"),
        (b.ls("/a.txt"), da.LsResult, "not_a_directory", "Path '/a.txt': not_a_directory"),
        (b.read("/missing"), da.ReadResult, "not_found", "File '/missing' not found"),
        (b.read("/a.txt", offset=50), da.ReadResult, "out_of_range", "Line offset 50 exceeds file length (2 lines)"),
        (b.edit("/a.txt", "zz", "y"), da.EditResult, "edit_failed", "Error: String not found in file: 'zz'"),
        (b.edit("/missing", "a", "b"), da.EditResult, "not_found", "Error: File '/missing' not found"),
        (b.delete("/missing"), da.DeleteResult, "not_found", "Error: '/missing' not found"),
        (b.write("/root:nope/x", "x"), da.WriteResult, "invalid_path", None),
    ]
    for result, cls, kind, error in cases:
        assert isinstance(result, cls) and result.kind == kind, result
        if error is not None:
            assert result.error == error
        assert str(tree["tmp"]) not in result.error


def test_read_matches_filesystem_backend(tree, monkeypatch):
    b, repo = tree["backend"], tree["repo"]
    (repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (repo / "empty.txt").write_bytes(b"")
    (repo / "latin1.txt").write_bytes(b"caf\xe9\n")
    (repo / "clip.png").write_bytes(b"\x89PNG\r\n")
    (repo / "clip.mp4").write_bytes(b"abcd")
    assert b.read("/a.txt").file_data["content"] == "alpha\nbeta\n"  # the final \n is kept
    assert b.read("/a.txt", limit=1).file_data["content"] == "alpha\n"
    assert b.read("/crlf.txt").file_data["content"] == "one\ntwo\n"
    assert b.read("/empty.txt", limit=0).file_data["content"].startswith("System reminder")
    assert b.read("/a.txt", limit=0).no_lines_requested
    png = b.read("/clip.png", limit=0)
    assert png.file_data == {"content": base64.b64encode(b"\x89PNG\r\n").decode(), "encoding": "base64"}
    bad = b.read("/latin1.txt")
    assert bad.kind == "invalid_utf8" and "not UTF-8" in bad.error and "download_files" in bad.error
    monkeypatch.setattr(fs_module, "MAX_VIDEO_INPUT_BYTES", 3)
    assert b.read("/clip.mp4").error == "Video file exceeds maximum input size of 3 bytes"


def test_edit_matches_filesystem_backend(tree):
    b, repo = tree["backend"], tree["repo"]
    (repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    # CRLF in the strings reads as "\n" (as read shows the file) ...
    assert b.edit("/crlf.txt", "one\r\ntwo", "1\r\n2").occurrences == 1
    # ... and, unlike FilesystemBackend (which rewrites the file with LF),
    # the file keeps its line endings (docs/deepagents.md)
    assert (repo / "crlf.txt").read_bytes() == b"1\r\n2\r\n"
    assert b.edit("/crlf.txt", "1\n2\n", "x\n").occurrences == 1
    assert (repo / "crlf.txt").read_bytes() == b"x\r\n"
    (repo / "nofinal.txt").write_text("last")
    hint = b.edit("/nofinal.txt", "last\n", "x\n")
    assert hint.kind == "edit_failed" and "does not end with a newline" in hint.error
    # deepagents' own words for a missing and an ambiguous string
    (repo / "twice.txt").write_text("ab ab\n")
    assert b.edit("/twice.txt", "zz", "y").error == "Error: String not found in file: 'zz'"
    many = b.edit("/twice.txt", "ab", "y")
    # (the core says only "appears 2 times"; the advice is this adapter's)
    assert many.kind == "edit_ambiguous" and many.error == (
        "Error: String 'ab' appears 2 times in file. Use replace_all=True to replace all instances, "
        "or provide a more specific string with surrounding context.")
    assert b.edit("/twice.txt", "ab", "y", replace_all=True).occurrences == 2
    assert (repo / "twice.txt").read_text() == "y y\n"
    # a byte-level edit of a file that is not UTF-8 keeps its other bytes
    (repo / "latin1.txt").write_bytes(b"caf\xe9 old\n")
    assert b.edit("/latin1.txt", "old", "new").occurrences == 1
    assert (repo / "latin1.txt").read_bytes() == b"caf\xe9 new\n"


def test_read_through_the_core_keeps_the_protocol(tree, monkeypatch):
    """read goes through pathgate.Backend.read (the core's window) and gives
    deepagents' FileData: the window's last line break kept, the reminder
    for an empty file before limit is looked at, media by extension."""
    b, repo = tree["backend"], tree["repo"]
    (repo / "three.txt").write_text("one\ntwo\nthree")
    assert b.read("/three.txt").file_data["content"] == "one\ntwo\nthree"
    r = b.read("/three.txt", offset=1, limit=1)
    assert (r.file_data["content"], r.start_line, r.end_line, r.next_offset, r.total_lines) == (
        "two\n", 2, 2, 2, 3)
    assert b.read("/three.txt", offset=3).error == "Line offset 3 exceeds file length (3 lines)"
    assert b.read("/three.txt", offset=99, limit=0).no_lines_requested
    (repo / "blank.txt").write_text("  \n")
    assert b.read("/blank.txt", limit=0).file_data["content"].startswith("System reminder")
    (repo / "nul.txt").write_bytes(b"a\0b\n")
    assert b.read("/nul.txt").kind == "nul_byte"
    # a media file by its name, whatever its bytes; without deepagents' private helpers
    from deepagents.backends import utils as du
    monkeypatch.setattr(du, "_get_backend_read_file_type", None, raising=False)
    monkeypatch.setattr(du, "slice_read_response", None)
    (repo / "pic.png").write_text("not really a png\n")
    assert b.read("/pic.png").file_data == {"content": base64.b64encode(b"not really a png\n").decode(),
                                            "encoding": "base64"}
    assert b.read("/src/x.py").file_data["content"] == "x = 1\n"


def test_media_extensions_are_deepagents_own():
    from deepagents.backends import utils as du

    from pathgate.deepagents import MEDIA_EXTENSIONS

    theirs = dict(du._EXTENSION_TO_FILE_TYPE)
    theirs.update(dict.fromkeys(du._VIDEO_EXTRA_EXTENSIONS, "video"))
    assert MEDIA_EXTENSIONS == theirs


def test_concurrent_edits_lose_nothing(tree):
    """Two agents editing one file at once: every edit is kept. (An edit
    that downloads, replaces and writes back loses the other's changes made
    in between; the core's edit runs under the directory's edit lock and
    commits only what it read.)"""
    b, repo = tree["backend"], tree["repo"]
    (repo / "count.txt").write_text("a=0\nb=0\n")
    rounds, failures = 40, []

    def editor(name: str) -> None:
        for i in range(rounds):
            r = b.edit("/count.txt", f"{name}={i}\n", f"{name}={i + 1}\n")
            if r.error is not None:
                failures.append((name, i, r.error))
                return

    threads = [threading.Thread(target=editor, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert (repo / "count.txt").read_text() == f"a={rounds}\nb={rounds}\n"


def test_glob_rules_and_budget(tree, monkeypatch):
    b, repo = tree["backend"], tree["repo"]
    (repo / ".github" / "w").mkdir(parents=True)
    (repo / ".github" / "w" / "ci.yml").write_text("x")
    (repo / "top.py").write_text("x")
    paths = lambda r: [m["path"] for m in r.matches]  # noqa: E731
    assert paths(b.glob("*.yml", "/")) == ["/.github/w/ci.yml"]
    assert paths(b.glob("**/*.yml", "/")) == []
    assert paths(b.glob("/*.py", "/")) == ["/top.py"]
    assert paths(b.glob("*.py", "/")) == ["/src/x.py", "/top.py"]
    assert b.glob("*.py", "/missing").matches == []
    real = pathgate._core._fs_glob

    def slow_walk(*args, **kwargs):  # a walk that outlasts the budget
        time.sleep(0.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(pathgate._core, "_fs_glob", slow_walk)
    hurried = PathgateBackend(pathgate.Session(tree["resolver"]), glob_timeout=0.05)
    r = hurried.glob("**/*.py", "/")
    assert r.truncated and r.matches == [] and r.error is None


def test_grep_context_and_anchored_include(tree):
    b, repo = tree["backend"], tree["repo"]
    (repo / "src" / "deep.py").write_text("before\nneedle\nafter\n")
    (repo / "needle.py").write_text("needle\n")
    r = b.grep("needle", "/", "/*.py")
    assert [m["path"] for m in r.matches] == ["/needle.py"]
    r = b.grep("needle", "/src", context_lines=1)
    assert r.matches == [{"path": "/src/deep.py", "line": 2, "text": "needle",
                          "context_before": [{"line": 1, "text": "before"}],
                          "context_after": [{"line": 3, "text": "after"}]}]
    r = asyncio.run(b.agrep("needle", "/src", context_lines=1))
    assert r.matches[0]["context_after"] == [{"line": 3, "text": "after"}]
    with pytest.raises(ValueError):
        b.grep("x", context_lines=-1)
    assert b.grep("needle", "/missing").matches == []


@pytest.mark.skipif(pathgate.landlock_abi() == 0, reason="the kernel has no Landlock")
def test_execute_shows_bases_in_the_agent_spelling(tree):
    b = tree["backend"]
    # the command sees the view (/pathgate/root/docs, /root:docs); a host path
    # it prints is masked too
    r = b.execute(f"pwd; echo {tree['docs']}/guide.md; ls /root:docs")
    assert r.exit_code == 0
    assert r.output.splitlines() == ["/", "/root:docs/guide.md", "guide.md"]
    with pytest.raises(ValueError):
        b.execute("true", timeout=0)


def test_hostile_input_is_a_clear_refusal_and_changes_nothing(tree):
    b, repo = tree["backend"], tree["repo"]
    before = sorted(p.name for p in repo.rglob("*"))
    for path in ("/a\0b", "/\udcff", "/" + "x" * 10000, "root:repo/\0", "/root:nope/x"):
        for result in (b.ls(path), b.read(path), b.write(path, "x"), b.edit(path, "a", "b"), b.delete(path)):
            assert result.kind == "invalid_path", (path[:20], result)
            assert str(tree["tmp"]) not in result.error
        assert b.glob("*", path).matches == [] and b.grep("x", path).matches == []
        assert b.download_files([path])[0].error == "invalid_path"
        assert b.upload_files([(path, b"x")])[0].error == "invalid_path"
    for bad in (None, 5, b"/a.txt"):
        with pytest.raises(TypeError):
            b.read(bad)  # type: ignore[arg-type]
    assert b.glob("\udcff").kind == "invalid_utf8"
    assert sorted(p.name for p in repo.rglob("*")) == before
