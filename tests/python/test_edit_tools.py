"""The edit tools models are trained on, from Python: Backend.apply_patch
over the shared cases of tests/data/apply_patch (Codex's 23 scenarios, the
cases of its unit tests, pathgate's own) and Backend.text_editor over
tests/data/editor (expectations from Anthropic's reference
implementation); the MCP tools (apply_patch, str_replace_based_edit_tool,
str_replace_editor, and edit_file's reference matching); the command line's
apply-patch."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import pathgate
from pathgate import Backend, Resolver, Session

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def snapshot(root: pathlib.Path) -> dict[str, object]:
    """Every entry below root: "dir", ("link", target) or the bytes."""
    out: dict[str, object] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p))
        elif p.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = p.read_bytes()
    return out


def case_keys(path: pathlib.Path) -> dict[str, str]:
    keys: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line and not line.startswith("#") and ":" in line:
                k, _, v = line.partition(":")
                keys[k.strip()] = v.strip()
    return keys


class World:
    """Root t (the case's tree), the read-only root ro and a directory
    outside every root; a session whose cwd is root:t."""

    def __init__(self, tmp: pathlib.Path) -> None:
        self.t, self.ro, self.out = tmp / "t", tmp / "ro", tmp / "outside"
        for d in (self.t, self.ro, self.out):
            d.mkdir()
        (self.ro / "ro.txt").write_text("read only\n")
        (self.out / "secret.txt").write_text("secret\n")
        self.resolver = Resolver(roots={"t": self.t, "ro": self.ro}, read_only=["ro"])
        self.session = Session(self.resolver)
        self.backend = Backend(self.session)

    def untouched(self) -> bool:
        return (snapshot(self.ro) == {"ro.txt": b"read only\n"}
                and snapshot(self.out) == {"secret.txt": b"secret\n"})


def case_dirs(group: str) -> list[pathlib.Path]:
    return sorted(p for p in (DATA / group).iterdir() if p.is_dir())


# ------------------------------------------------------------ apply_patch

PATCH_GROUPS = {"apply_patch/codex": 23, "apply_patch/codex_unit": 52, "apply_patch/pathgate": 19}


def test_patch_case_counts():
    assert {g: len(case_dirs(g)) for g in PATCH_GROUPS} == PATCH_GROUPS


@pytest.mark.parametrize("case", [d for g in PATCH_GROUPS for d in case_dirs(g)],
                         ids=lambda d: f"{d.parent.name}/{d.name}")
def test_patch_case(case, tmp_path):
    w = World(tmp_path)
    if (case / "input").exists():
        shutil.copytree(case / "input", w.t, dirs_exist_ok=True)
    keys = case_keys(case / "case.txt")
    if "link" in keys:
        name, target = keys["link"].split(" ", 1)
        (w.t / name).symlink_to(target)
    if "cwd" in keys:
        w.session.push(keys["cwd"])
    patch = (case / "patch.txt").read_bytes().decode()
    patch = patch.replace("{ROOT}", str(w.t)).replace("{RO}", str(w.ro)).replace("{OUT}", str(w.out))
    r = w.backend.apply_patch(patch, atomic=keys.get("mode") != "file_by_file")
    assert (r.kind or "ok") == keys.get("kind", "ok"), r
    if (case / "message.txt").exists():
        want = (case / "message.txt").read_text()
        assert (r.error if r.kind else r.output) == want
    if r.kind is None:
        assert r.error is None and len(r.output.splitlines()) == len(r.files) + 1
    else:
        assert r.output == ""
    want_tree = snapshot(case / "expected") if (case / "expected").exists() else {}
    assert snapshot(w.t) == want_tree
    assert w.untouched()
    # no host path in anything answered
    assert str(tmp_path) not in repr(r)


def test_patch_result_files_and_moves(tmp_path):
    w = World(tmp_path)
    (w.t / "a.txt").write_text("a\n")
    r = w.backend.apply_patch("*** Begin Patch\n*** Update File: a.txt\n*** Move to: b/a.txt\n@@\n-a\n+A\n"
                              "*** Add File: c.txt\n+c\n*** End Patch")
    assert r.files == [{"change": "A", "path": "root:t/c.txt", "from": None},
                       {"change": "M", "path": "root:t/b/a.txt", "from": "root:t/a.txt"}]
    assert isinstance(r, pathgate.PatchResult)


def test_patch_async_and_misuse(tmp_path):
    import asyncio

    w = World(tmp_path)
    r = asyncio.run(w.backend.aapply_patch("*** Begin Patch\n*** Add File: x\n+x\n*** End Patch"))
    assert r.error is None and (w.t / "x").read_text() == "x\n"
    with pytest.raises(TypeError):
        w.backend.apply_patch(b"*** Begin Patch")  # type: ignore[arg-type]
    r = w.backend.apply_patch("*** Begin Patch\n*** Add File: ../outside/new.txt\n+x\n*** End Patch")
    assert (r.kind, r.error) == ("invalid_path", pathgate.INVALID_PATH_MESSAGE)
    assert not (w.out / "new.txt").exists()


# ----------------------------------------------------------- text editor

EDITOR_CASES = case_dirs("editor")


def test_editor_case_count():
    assert len(EDITOR_CASES) == 62


@pytest.mark.parametrize("case", EDITOR_CASES, ids=lambda d: d.name)
def test_editor_case(case, tmp_path):
    w = World(tmp_path)
    if (case / "input").exists():
        shutil.copytree(case / "input", w.t, dirs_exist_ok=True)
    step = 1
    while (case / f"{step}.cmd").exists():
        keys = case_keys(case / f"{step}.cmd")
        args: dict[str, object] = {}
        for name in ("old_str", "new_str", "file_text"):
            if (case / f"{step}.{name}").exists():
                args[name] = (case / f"{step}.{name}").read_bytes().decode()
        if "tool" in keys:
            args["tool"] = keys["tool"]
        if "insert_line" in keys:
            args["insert_line"] = int(keys["insert_line"])
        if "max_characters" in keys:
            args["max_characters"] = int(keys["max_characters"])
        if "view_range" in keys:
            vr = keys["view_range"]
            args["view_range"] = ["1", "2"] if vr == "invalid" else [int(v) for v in vr.split()]
        r = w.backend.text_editor(keys["command"], keys["path"], **args)
        if (case / f"{step}.output").exists():
            assert (r.error, r.kind) == (None, None)
            assert r.output == (case / f"{step}.output").read_bytes().decode()
        else:
            assert r.output is None
            assert r.error == (case / f"{step}.error").read_bytes().decode()
            assert r.kind == keys["kind"]
        step += 1
    assert step > 1
    want = case / "expected" if (case / "expected").exists() else case / "input"
    assert snapshot(w.t) == (snapshot(want) if want.exists() else {})
    assert w.untouched()


def test_editor_history_per_backend_and_misuse(tmp_path):
    w = World(tmp_path)
    (w.t / "h.txt").write_text("one\n")
    r = w.backend.text_editor("str_replace", "h.txt", old_str="one", new_str="two", tool="str_replace_editor")
    assert r.error is None
    other = Backend(Session(w.resolver))
    assert other.text_editor("undo_edit", "h.txt", tool="str_replace_editor").kind == "edit_failed"
    r = w.backend.text_editor("undo_edit", "h.txt", tool="str_replace_editor")
    assert r.error is None and (w.t / "h.txt").read_text() == "one\n"
    with pytest.raises(TypeError):
        w.backend.text_editor("view", "h.txt", bogus=1)
    with pytest.raises(ValueError):
        w.backend.text_editor("view", "h.txt", tool="vim")
    with pytest.raises(TypeError):
        w.backend.text_editor("insert", "h.txt", insert_line="1", new_str="x")
    # a view_range that is not a list of two integers is the reference's message
    for bad in ("1,2", [1.0, 2.0], (1, 2, 3)):
        r = w.backend.text_editor("view", "h.txt", view_range=bad)
        assert r.error == "Invalid `view_range`. It should be a list of two integers."
    assert w.backend.text_editor("view", "h.txt", view_range=[]).error is None  # falsy: ignored


# ------------------------------------------------------------------- MCP


def mcp(resolver: Resolver, calls: list[tuple[str, dict[str, object]]]) -> list[dict[str, object]]:
    import io

    from pathgate.mcp import make_connection

    lines = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": n, "arguments": a}}) for i, (n, a) in enumerate(calls, 1)]
    out = io.BytesIO()
    make_connection(resolver, io.BytesIO(("\n".join(lines) + "\n").encode()), out, workers=1).serve()
    answers = {m["id"]: m for m in map(json.loads, out.getvalue().splitlines())}
    return [answers[i] for i in range(1, len(calls) + 1)]


def test_mcp_apply_patch_and_editor(tmp_path):
    w = World(tmp_path)
    (w.t / "a.txt").write_text("alpha\nbeta\n")
    a = mcp(w.resolver, [
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-beta\n+BETA\n*** End Patch"}),
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-nope\n+x\n*** End Patch"}),
        ("str_replace_based_edit_tool", {"command": "view", "path": "a.txt", "view_range": [2, 2]}),
        ("str_replace_editor", {"command": "str_replace", "path": "a.txt", "old_str": "alpha", "new_str": "ALPHA"}),
        ("str_replace_editor", {"command": "undo_edit", "path": "root:t/a.txt"}),
        ("str_replace_based_edit_tool", {"command": "undo_edit", "path": "a.txt"}),
        ("str_replace_based_edit_tool", {"command": "view", "path": "../outside/secret.txt"}),
        ("str_replace_based_edit_tool", {"command": "view", "path": "a.txt", "max_characters": 3}),
    ])
    ok = a[0]["result"]
    assert ok["content"][0]["text"] == "Success. Updated the following files:\nM root:t/a.txt\n"
    assert ok["structuredContent"]["files"] == [{"change": "M", "path": "root:t/a.txt", "from": None}]
    assert a[1]["result"]["isError"] is True
    assert a[1]["result"]["content"][0]["text"] == "Failed to find expected lines in root:t/a.txt:\nnope"
    assert a[2]["result"]["content"][0]["text"] == \
        "Here's the result of running `cat -n` on root:t/a.txt:\n     2\tBETA\n"
    assert "has been edited" in a[3]["result"]["content"][0]["text"]
    assert a[4]["result"]["content"][0]["text"].startswith("Last edit to root:t/a.txt undone successfully.")
    assert a[5]["result"]["isError"] is True
    assert "Unrecognized command undo_edit" in a[5]["result"]["content"][0]["text"]
    assert a[6]["result"]["content"][0]["text"] == pathgate.INVALID_PATH_MESSAGE
    assert "     1\talp<response clipped>" in a[7]["result"]["content"][0]["text"]
    assert (w.t / "a.txt").read_text() == "alpha\nBETA\n"
    assert w.untouched()
    assert str(tmp_path) not in json.dumps(a)


def test_mcp_edit_file_matches_as_the_reference_server(tmp_path):
    """edit_file: first exact occurrence, else lines equal once trimmed,
    the new text re-indented to the file's (as
    @modelcontextprotocol/server-filesystem's applyFileEdits)."""
    w = World(tmp_path)
    (w.t / "p.py").write_text("def f():\n    if x:\n        return 1\n    return 2\n")
    (w.t / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    (w.t / "d.txt").write_text("x\nx\n")
    a = mcp(w.resolver, [
        ("edit_file", {"path": "p.py", "edits": [{"oldText": "if x:\n    return 1", "newText": "if y:\n    return 3\n  pass"}]}),
        ("edit_file", {"path": "w.txt", "edits": [{"oldText": "two\r\n", "newText": "2\n"}]}),
        ("edit_file", {"path": "d.txt", "edits": [{"oldText": "x", "newText": "y"}]}),
        ("edit_file", {"path": "d.txt", "edits": [{"oldText": "zzz", "newText": "y"}]}),
    ])
    # the first new line takes the file's indentation, the next ones theirs
    # relative to the old text's line at the same index (a line beyond it is kept)
    assert (w.t / "p.py").read_text() == "def f():\n    if y:\n    return 3\n  pass\n    return 2\n"
    assert (w.t / "w.txt").read_bytes() == b"one\r\n2\r\n"  # the file's line endings kept
    assert (w.t / "d.txt").read_text() == "y\nx\n"  # the first occurrence
    assert a[3]["result"]["isError"] is True
    assert a[3]["result"]["content"][0]["text"] == "Could not find exact match for edit:\nzzz"



def test_core_edits_lenient_option_and_default(tmp_path):
    """The matching of edit_file is an option of the core's edits
    (lenient=True); without it the edits keep their exact semantics."""
    w = World(tmp_path)
    (w.t / "p.py").write_text("def f():\n    if x:\n        return 1\n")
    edits = [("if x:\n    return 1", "if y:\n    return 2")]
    with pytest.raises(pathgate.Error):
        pathgate._core._fs_edits(w.session, "p.py", edits)
    address, diff = pathgate._core._fs_edits(w.session, "p.py", edits, True, lenient=True)
    assert address == "root:t/p.py" and "+    if y:" in diff
    assert (w.t / "p.py").read_text() == "def f():\n    if x:\n        return 1\n"  # dry run
    pathgate._core._fs_edits(w.session, "p.py", edits, lenient=True)
    assert (w.t / "p.py").read_text() == "def f():\n    if y:\n    return 2\n"

# ------------------------------------------------------------ the command


def test_cli_apply_patch(tmp_path):
    w = World(tmp_path)
    (w.t / "a.txt").write_text("a\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    base = [sys.executable, "-m", "pathgate", "--root", f"t={w.t}"]
    p = subprocess.run(base + ["apply-patch"], input=b"*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n",
                       capture_output=True, env=env, timeout=60)
    assert (p.returncode, p.stdout) == (0, b"Success. Updated the following files:\nM root:t/a.txt\n")
    p = subprocess.run(base + ["apply-patch", "--json"], input=b"*** Begin Patch\n*** Delete File: nope\n*** End Patch\n",
                       capture_output=True, env=env, timeout=60)
    assert p.returncode == 1
    assert json.loads(p.stdout) == {"ok": False, "error": "Failed to delete file root:t/nope", "kind": "not_found"}
    p = subprocess.run(base + ["apply-patch", "--file-by-file",
                               "*** Begin Patch\n*** Add File: n.txt\n+n\n*** Delete File: nope\n*** End Patch"],
                       capture_output=True, env=env, timeout=60)
    assert p.returncode == 1 and b"Failed to delete file root:t/nope" in p.stderr
    assert (w.t / "n.txt").read_text() == "n\n"  # Codex's behaviour: the hunk before stays
    assert str(tmp_path).encode() not in p.stdout + p.stderr
