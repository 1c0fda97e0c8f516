"""`pathgate mcp` as a process: a stderr nobody reads never stalls a call
(the log is written by a thread of its own, and dropped past its queue),
the options are checked before anything is served, and the caps apply to
what one connection asks (the Node tests in tests/mcp cover HTTP, roots,
the notices and the shutdown through the official SDK)."""

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from pathgate.mcp.limits import Limits, parse_size


def _env():
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _server(tree, *extra, stderr=subprocess.PIPE):
    return subprocess.Popen([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp", *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=_env(),
                            cwd=tree["tmp"])


def _line(i, method, params):
    return (json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()


def test_an_unread_stderr_never_stalls_a_call(tree):
    # 3000 calls log about 300 KB, far more than a pipe holds: nobody reads it
    p = _server(tree)
    calls = b"".join(_line(i, "tools/call", {"name": "read_text_file", "arguments": {"path": "README.md"}})
                     for i in range(1, 3001))
    started = time.monotonic()
    # write everything (from a thread: the answers must be read meanwhile),
    # read every answer, never touch stderr
    assert p.stdin and p.stdout
    stdin = p.stdin

    def feed():
        stdin.write(_line(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}))
        stdin.write(calls)
        stdin.flush()

    writer = threading.Thread(target=feed)
    writer.start()
    answers = [json.loads(p.stdout.readline()) for _ in range(3001)]
    writer.join()
    assert time.monotonic() - started < 60
    assert all(a["result"]["content"][0]["text"] == "readme\n" for a in answers if a["id"])
    p.stdin.close()
    # the end is not held up either (the log lines still waiting are given
    # a second, then left: nobody reads them)
    assert p.wait(30) == 0
    assert p.stderr
    err = p.stderr.read().decode()
    assert "call session=stdio tool=read_text_file address=root:repo/README.md outcome=ok" in err


@pytest.mark.parametrize("args, message", [
    (["--http", "nonsense"], "--http expects HOST:PORT"),
    (["--http", "10.1.2.3:0"], "not loopback needs a token"),
    (["--max-read", "0"], "not a positive size"),
    (["--max-read", "8X"], "not a size"),
    (["--max-items", "-1"], "not a positive integer"),
    (["--http", "127.0.0.1:0", "--token-file", "/nonexistent/token"], "cannot be read"),
])
def test_options_are_checked_before_serving(tree, args, message):
    p = subprocess.run([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp", *args],
                       capture_output=True, text=True, env=_env(), timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert p.stdout == ""


def test_an_empty_token_file_is_refused(tree):
    token = tree["tmp"] / "token"
    token.write_text("  \n")
    p = subprocess.run([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp", "--http",
                        "127.0.0.1:0", "--token-file", str(token)], capture_output=True, text=True,
                       env=_env(), timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and "is empty" in p.stderr


def test_sizes_and_limits():
    assert parse_size("8M") == 8 << 20 and parse_size("64k") == 65536 and parse_size("1G") == 1 << 30
    assert parse_size(" 4096 ") == 4096
    for bad in ("", "M", "-1", "1.5M", "8T", "0"):
        with pytest.raises(ValueError):
            parse_size(bad)
    with pytest.raises(ValueError):
        Limits(max_items=0)
    with pytest.raises(ValueError):
        Limits(max_read=True)
    limits = Limits(max_items=3, max_answer=100)
    assert "at most 3 per answer" in limits.items_notice(3, "entries")
    assert "at most 100 bytes" in limits.answer_notice(2, "entries")


def test_caps_over_one_connection(tree):
    from pathgate import Resolver
    from pathgate.mcp import make_connection
    import io

    repo = tree["repo"]
    (repo / "big.txt").write_bytes(b"x" * 5000 + b"\n" + b"y" * 10 + b"\n")
    for i in range(7):
        (repo / "docs" / f"d{i}.txt").write_text(f"doc {i} needle\n")
    r = Resolver(roots={"repo": repo})
    lines = [
        _line(1, "tools/call", {"name": "read_text_file", "arguments": {"path": "big.txt"}}),
        _line(2, "tools/call", {"name": "read_text_file", "arguments": {"path": "big.txt", "tail": 1}}),
        _line(3, "tools/call", {"name": "read_text_file", "arguments": {"path": "big.txt", "head": 1}}),
        _line(4, "tools/call", {"name": "grep", "arguments": {"pattern": "needle", "path": "docs"}}),
        _line(5, "tools/call", {"name": "read_multiple_files", "arguments": {
            "paths": ["docs/d0.txt", "big.txt", "missing.txt", "docs/d1.txt"]}}),
        _line(6, "tools/call", {"name": "list_directory_with_sizes", "arguments": {"path": "docs"}}),
    ]
    out = io.BytesIO()
    make_connection(r, io.BytesIO(b"".join(lines)), out, workers=1,
                    limits=Limits(max_read=1000, max_items=3)).serve()
    a = {x["id"]: x["result"] for x in map(json.loads, out.getvalue().splitlines())}
    too_large = "File 'root:repo/big.txt' is larger than the 1000-byte size cap"
    assert a[1] == {"content": [{"type": "text", "text": too_large}], "isError": True}
    assert a[2]["content"][0]["text"] == "y" * 10 + "\n"
    assert a[3]["content"][0]["text"] == too_large
    g = a[4]["structuredContent"]
    assert [m["path"] for m in g["matches"]] == [f"root:repo/docs/d{i}.txt" for i in range(3)]
    assert g["truncated"] is True and "only the first 3 matches" in g["notice"]
    assert a[4]["content"][0]["text"].startswith("root:repo/docs/d0.txt:1:doc 0 needle\n")
    files = a[5]["structuredContent"]["files"]
    assert files[0] == {"path": "root:repo/docs/d0.txt", "content": "doc 0 needle\n"}
    assert files[1] == {"index": 1, "error": too_large}
    assert files[2]["index"] == 2 and "not found" in files[2]["error"]
    assert len(files) == 3 and "only the first 3 files" in a[5]["structuredContent"]["notice"]
    sized = a[6]["structuredContent"]
    assert len(sized["entries"]) == 3 and sized["truncated"] is True
    assert "Total: 3 files, 0 directories" in a[6]["content"][0]["text"]
    assert len(r) == 0


def test_the_edit_tools_under_client_roots_and_caps(tree):
    """apply_patch and the text editor tools go through the connection's
    address check like every tool: every path a patch names, and the
    editor's path, must lie inside the client's roots; a file over the read
    cap is refused; nothing outside is written."""
    from pathgate import Resolver
    from pathgate.mcp.tools import ConnectionTools, ToolError, build_tools

    repo = tree["repo"]
    (repo / "docs" / "d.txt").write_text("one\ntwo\n")
    (repo / "docs" / "big.txt").write_text("z\n" * 600)
    r = Resolver(roots={"repo": repo})
    limits = Limits(max_read=1000)
    state = ConnectionTools(r, allow_execute=False, limits=limits)
    state.scope.apply([{"uri": (repo / "docs").as_uri()}])  # the client narrows to docs
    assert state.session.pwd() == "root:repo/docs"
    tools = {t.name: t.run for t in build_tools(allow_execute=False, limits=limits)}

    def call(name, **args):
        try:
            return tools[name](state, args)
        except ToolError as e:
            return e

    def text(answer):
        return json.loads(answer.json if hasattr(answer, "json") else json.dumps(answer))

    def patch(*lines):
        return "\n".join(("*** Begin Patch", *lines, "*** End Patch"))

    outside = [
        patch("*** Update File: root:repo/README.md", "@@", "-readme", "+changed"),
        patch("*** Add File: new.txt", "+n", "*** Update File: ../README.md", "@@", "-readme", "+x"),
        patch("*** Update File: d.txt", "*** Move to: ../moved.txt", "@@", "-one", "+1"),
        patch("  *** Delete File:  ../README.md"),  # a header is read trimmed
    ]
    for p in outside:
        e = call("apply_patch", input=p)
        assert isinstance(e, ToolError) and (str(e), e.kind) == ("Invalid path / not found",
                                                                 "outside_client_roots"), p
    assert (repo / "README.md").read_text() == "readme\n"
    assert not (repo / "docs" / "new.txt").exists() and not (repo / "moved.txt").exists()
    assert (repo / "docs" / "d.txt").read_text() == "one\ntwo\n"
    ok = call("apply_patch", input=patch("*** Add File: new.txt", "+n", "*** Update File: d.txt",
                                         "@@", "-one", "+1"))
    assert "A root:repo/docs/new.txt\nM root:repo/docs/d.txt" in text(ok)["content"][0]["text"]
    big = call("apply_patch", input=patch("*** Update File: big.txt", "@@", "-z", "+y"))
    assert str(big) == ("Failed to read file to update root:repo/docs/big.txt: File "
                        "'root:repo/docs/big.txt' is larger than the 1000-byte size cap")
    for tool in ("str_replace_based_edit_tool", "str_replace_editor"):
        e = call(tool, command="view", path="../README.md")
        assert isinstance(e, ToolError) and e.kind == "outside_client_roots"
        e = call(tool, command="str_replace", path="root:repo/README.md", old_str="readme", new_str="x")
        assert isinstance(e, ToolError) and e.kind == "outside_client_roots"
        assert str(call(tool, command="view", path="big.txt")) == (  # in the reference's words
            "Ran into File 'root:repo/docs/big.txt' is larger than the 1000-byte size cap while "
            "trying to read root:repo/docs/big.txt")
        view = text(call(tool, command="view", path="d.txt"))["content"][0]["text"]
        assert view.startswith("Here's the result of running `cat -n` on root:repo/docs/d.txt:")
    assert (repo / "README.md").read_text() == "readme\n"
    assert len(r) == 0


def test_patch_paths_reads_every_path_the_core_may_take():
    from pathgate.mcp.edit_tools import patch_paths

    p = ("*** Begin Patch\r\n  *** Add File: a b.txt \r\n+*** Delete File: not-a-header\r\n"
         "*** Update File: u.txt\n*** Move to: m.txt  \n@@\n context\n"
         " *** Delete File: ctx\n\u3000*** Delete File: d.txt\n*** End Patch")
    # trimmed as a header; "Move to" both as read (untrimmed) and trimmed;
    # a context line that looks like a header too (more is checked, never less)
    assert patch_paths(p) == ["a b.txt", "u.txt", "m.txt", "m.txt  ", "ctx", "d.txt"]
