"""The policy in the handles, the toolkit, subroot, apply_patch and the
text editor through pathgate.Backend (docs/policy.md, "What the operations
do"): a `**/.env` file cannot be opened, listed by scandir or walk, copied,
linked, symlinked to or readlink'd; `.git/hooks/pre-commit` cannot be
opened for writing, chmod'ed, removed or be a copy's, link's or symlink's
destination; a subroot keeps the rules; every path of a patch and every
editor command is judged first; each refusal is an audit event."""

from __future__ import annotations

import gc
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pathgate
from pathgate import cli


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for rel, text in {
        ".env": "SECRET=1\n",
        "app/.env": "APP_SECRET=1\n",
        "app/main.txt": "hello\n",
        "secrets/key.txt": "KEY\n",
        ".git/hooks/pre-commit": "#!/bin/sh\n",
        ".git/config": "[core]\n",
        ".git/index": "idx\n",
        "notes.txt": "notes\n",
    }.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / "innocent").symlink_to(".env")
    (repo / "cfglink").symlink_to(".git/config")
    return repo


def make(repo: Path, events: list[dict[str, Any]]) -> pathgate.Resolver:
    return pathgate.Resolver(roots={"repo": repo}, deny_read=["**/.env", "secrets/"],
                             presets=["vcs"], audit=events.append)


def refusals(events: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(e["operation"], e["address"], e["reason"]) for e in events if e["outcome"] == "denied"}


def unchanged(repo: Path) -> None:
    assert (repo / ".env").read_text() == "SECRET=1\n"
    assert (repo / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\n"
    assert (repo / ".git" / "config").read_text() == "[core]\n"
    assert not (repo / "stolen.txt").exists()


def test_handles_and_toolkit(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    b = pathgate.Backend(make(repo, events))
    hidden = ["root:repo/.env", "root:repo/innocent", "root:repo/secrets/key.txt"]
    for p in hidden:
        for mode in ("r", "w", "a", "r+"):
            with pytest.raises(FileNotFoundError):
                b.open(p, mode)
        assert not b.exists(p) and not b.isfile(p)
        assert b.lstat(p).kind == "invalid_path"
        assert b.readlink(p).kind == "invalid_path"
        assert b.chmod(p, 0o600).kind == "invalid_path"
        assert b.utime(p).kind == "invalid_path"
        assert b.remove_tree(p).kind == "invalid_path"
        res = b.copy(p, "root:repo/stolen.txt")
        assert res.kind == "invalid_path" and res.error == "Invalid path / not found"
        assert b.link(p, "root:repo/stolen.txt").kind == "invalid_path"
    assert b.symlink(".env", "root:repo/peek").kind == "invalid_path"
    assert b.symlink("app/../secrets/key.txt", "root:repo/peek").kind == "invalid_path"
    assert b.copy("root:repo/notes.txt", "root:repo/app/.env", replace=True).kind == "invalid_path"
    assert b.remove_tree("root:repo/app").kind == "policy_denied"  # holds app/.env
    with pytest.raises(FileNotFoundError):
        b.scandir("root:repo/secrets")
    # listings leave it out, counted
    with b.scandir("root:repo") as it:
        names = [e.name for e in it]
        assert it.skipped_denied == 3  # .env, innocent, secrets
    assert names == [".git", "app", "cfglink", "notes.txt"]
    seen = [(top, dirs, files) for top, dirs, files in b.walk("root:repo")]
    flat = " ".join(f"{t}/{n}" for t, d, f in seen for n in d + f)
    assert ".env" not in flat.replace(".env.", "") and "secrets" not in flat
    assert "innocent" not in flat and "root:repo/app/main.txt" in flat

    # protected: read, never changed
    guarded = ["root:repo/.git/hooks/pre-commit", "root:repo/.git/config", "root:repo/cfglink"]
    for p in guarded:
        with b.open(p) as f:
            assert f.read()
        for mode in ("w", "a", "r+", "w+"):
            with pytest.raises(PermissionError) as info:
                b.open(p, mode)
            assert "Protected by policy" in str(info.value)
            assert info.value.kind == "policy_denied"  # type: ignore[attr-defined]
        assert b.chmod(p, 0o777).kind == "policy_denied"
        assert b.utime(p).kind == "policy_denied"
        assert b.copy("root:repo/notes.txt", p, replace=True).kind == "policy_denied"
    with pytest.raises(PermissionError):
        b.open("root:repo/.git/hooks/post-merge", "x")
    assert b.link("root:repo/notes.txt", "root:repo/.git/hooks/post-merge").kind == "policy_denied"
    assert b.link("root:repo/.git/hooks/pre-commit", "root:repo/hard").kind == "policy_denied"
    assert b.symlink("../../notes.txt", "root:repo/.git/hooks/post-merge").kind == "policy_denied"
    assert b.remove_tree("root:repo/.git").kind == "policy_denied"
    assert b.remove_tree("root:repo/.git/hooks").kind == "policy_denied"
    assert not (repo / ".git" / "hooks" / "post-merge").exists()
    assert not (repo / "hard").exists()
    unchanged(repo)
    # the rest works as always
    with b.open("root:repo/.git/index", "w") as f:
        f.write("idx2")
    assert (repo / ".git" / "index").read_text() == "idx2"
    assert b.copy("root:repo/.git/hooks/pre-commit", "root:repo/hook-copy").error is None
    assert b.symlink("notes.txt", "root:repo/ok").error is None
    assert b.readlink("root:repo/ok").target == "notes.txt"

    denied = refusals(events)
    for op in ("open", "atomic_open", "exists", "lstat", "readlink", "chmod", "utime",
               "remove_tree", "copy", "link"):
        assert (op, "root:repo/.env", "deny_read") in denied, op
    for op in ("atomic_open", "chmod", "utime", "copy", "link"):
        assert (op, "root:repo/.git/hooks/pre-commit", "deny_write") in denied, op
    assert ("symlink", "root:repo/.env", "deny_read") in denied
    assert ("symlink", "root:repo/.git/hooks/post-merge", "deny_write") in denied
    assert ("remove_tree", "root:repo/.git", "deny_write") in denied
    assert ("scandir", "root:repo/secrets", "deny_read") in denied
    roles = {(e["operation"], e["role"]) for e in events if e["outcome"] == "denied"}
    assert {("copy", "source"), ("copy", "destination"), ("link", "source"),
            ("symlink", "target")} <= roles
    assert any(e["operation"] == "scandir" and e["outcome"] == "hidden" and e["count"] == 3
               for e in events)
    assert any(e["operation"] == "walk" and e["outcome"] == "hidden" for e in events)
    for ev in events:
        assert ev["door"] == "python"


def test_subroot_keeps_rules_and_audit(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    r = make(repo, events)
    b = pathgate.Backend(r)
    git = b.subroot("root:repo/.git", "git")
    app = pathgate.Backend(pathgate.Session(r)).subroot("root:repo/app")
    del b, r
    gc.collect()  # the subroots hold what they need of their parent
    w = git.write("root:git/hooks/pre-commit", "evil")
    assert w.kind == "policy_denied" and "root:git/hooks/pre-commit" in (w.error or "")
    assert git.write("root:git/index", "idx3").error is None
    assert git.read("root:git/config").error is None
    assert app.read("root:app/.env").kind == "invalid_path"
    assert [e["path"] for e in app.ls("root:app").entries or []] == ["root:app/main.txt"]
    unchanged(repo)
    assert ("write", "root:git/hooks/pre-commit", "deny_write") in refusals(events)
    assert ("read", "root:app/.env", "deny_read") in refusals(events)
    check = git.resolver.policy_check("root:git/hooks/x")
    assert check["denied"] == "write" and check["source"] == "preset:vcs"


def test_apply_patch_and_text_editor(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    b = pathgate.Backend(make(repo, events))
    first = "*** Begin Patch\n*** Add File: root:repo/new.txt\n+new\n"
    res = b.apply_patch(first + "*** Update File: root:repo/.env\n@@\n-SECRET=1\n+S=2\n"
                        "*** End Patch\n")
    assert res.kind == "invalid_path" and res.error == "Invalid path / not found"
    res = b.apply_patch(first + "*** Delete File: root:repo/innocent\n*** End Patch\n")
    assert res.kind == "invalid_path"
    res = b.apply_patch(first + "*** Update File: root:repo/.git/hooks/pre-commit\n@@\n"
                        "-#!/bin/sh\n+evil\n*** End Patch\n", atomic=False)
    assert res.kind == "policy_denied" and "Protected by policy" in (res.error or "")
    assert res.files == []  # judged before the first hunk applied
    assert not (repo / "new.txt").exists()
    unchanged(repo)
    assert b.apply_patch(first + "*** End Patch\n").error is None

    assert b.text_editor("view", "root:repo/.env").error == "Invalid path / not found"
    assert b.text_editor("view", "root:repo/innocent").kind == "invalid_path"
    assert b.text_editor("create", "root:repo/app/.env", file_text="x").kind == "invalid_path"
    t = b.text_editor("str_replace", "root:repo/.git/hooks/pre-commit", old_str="#!/bin/sh",
                      new_str="evil")
    assert t.kind == "policy_denied" and "Protected by policy" in (t.error or "")
    assert b.text_editor("insert", "root:repo/cfglink", insert_line=0,
                         new_str="evil").kind == "policy_denied"
    view = b.text_editor("view", "root:repo")
    assert view.output is not None and "root:repo/app/main.txt" in view.output
    assert "secrets" not in view.output and "innocent" not in view.output
    unchanged(repo)
    denied = refusals(events)
    assert ("apply_patch", "root:repo/.env", "deny_read") in denied
    assert ("apply_patch", "root:repo/innocent", "deny_read") in denied
    assert ("apply_patch", "root:repo/.git/hooks/pre-commit", "deny_write") in denied
    assert ("editor_view", "root:repo/.env", "deny_read") in denied
    assert ("editor_create", "root:repo/app/.env", "deny_read") in denied
    assert ("editor_str_replace", "root:repo/.git/hooks/pre-commit", "deny_write") in denied
    assert ("editor_insert", "root:repo/cfglink", "deny_write") in denied


def test_cli_and_mcp_edit_tools_log_every_refusal(repo: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "audit.jsonl"
    base = ["--root", f"repo={repo}", "--preset", "vcs", "--deny-read", "**/.env",
            "--audit-log", str(log)]
    patch = ("*** Begin Patch\n*** Add File: root:repo/new.txt\n+new\n"
             "*** Update File: root:repo/.git/hooks/pre-commit\n@@\n-#!/bin/sh\n+evil\n"
             "*** End Patch\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(patch.encode())))
    code = cli.main([*base, "apply-patch"])
    out, err = capsys.readouterr()
    assert code == 1 and "Protected by policy" in err and not (repo / "new.txt").exists()
    events = [json.loads(x) for x in log.read_text().splitlines()]
    assert ("apply_patch", "root:repo/.git/hooks/pre-commit", "deny_write") in refusals(events)
    assert all(e["door"] == "cli" for e in events)

    mlog = tmp_path / "mcp-audit.jsonl"

    def call(i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": args}}

    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25"}},
        call(1, "apply_patch", {"input": patch}),
        call(2, "str_replace_based_edit_tool", {"command": "view", "path": "root:repo/.env"}),
        call(3, "str_replace_based_edit_tool",
             {"command": "str_replace", "path": "root:repo/cfglink", "old_str": "[core]",
              "new_str": "[evil]"}),
    ]
    data = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.run([sys.executable, "-m", "pathgate", *base[:-1], str(mlog), "mcp"],
                       input=data, capture_output=True, env=env, timeout=120, check=True)
    a = {x["id"]: x for x in map(json.loads, p.stdout.splitlines())}
    text = {i: a[i]["result"]["content"][0]["text"] for i in (1, 2, 3)}
    assert all(a[i]["result"]["isError"] for i in (1, 2, 3))
    assert "Protected by policy" in text[1] and "Invalid path / not found" in text[2]
    assert "Protected by policy" in text[3]
    assert str(tmp_path).encode() not in p.stdout
    unchanged(repo)
    got = refusals([json.loads(x) for x in mlog.read_text().splitlines()])
    assert ("apply_patch", "root:repo/.git/hooks/pre-commit", "deny_write") in got
    # (the server resolves an editor path first, to keep it inside client roots)
    assert {("editor_view", "root:repo/.env", "deny_read"),
            ("resolve", "root:repo/.env", "deny_read")} & got
    assert ("editor_str_replace", "root:repo/cfglink", "deny_write") in got
