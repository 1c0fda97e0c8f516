"""The resolver's policy inside commands (docs/exec.md "Policy in
commands"), through Backend.execute: what matches deny_read is hidden,
what matches deny_write is read-only, found anew at each call, and each
command is an audit event. The C suite (tests/c/test_exec_policy.c) runs
the same cases as uid 65534 too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import pathgate
from conftest import mcp_stdio

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for rel, text in {".env": "SECRET=1\n", "app/.env": "APP_SECRET=1\n", "app/main.txt": "m\n",
                      ".git/hooks/pre-commit": "#!/bin/sh\n", "locked.txt": "keep\n"}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / "innocent").symlink_to(".env")
    return repo


def backend(repo: Path, events: list[dict[str, Any]]) -> pathgate.Backend:
    r = pathgate.Resolver(roots={"repo": repo}, deny_read=["**/.env"], deny_write=["locked.txt"],
                          presets=["vcs", "secrets"], audit=events.append)
    return pathgate.Backend(pathgate.Session(r))


def test_hidden_and_read_only_inside_commands(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    b = backend(repo, events)
    r = b.execute("cat .env app/.env innocent; echo rc=$?; grep -r SECRET . ; echo g=$?; exit 5")
    assert "SECRET=1" not in r.output and "rc=1" in r.output and "g=2" in r.output
    r = b.execute("echo x >> locked.txt; rm -f locked.txt; echo evil > .git/hooks/pre-commit; "
                  "git add app/main.txt && git -c user.name=t -c user.email=t@e commit -qm one && "
                  "git worktree add -q wt && echo git-ok")
    assert "git-ok" in r.output, r.output
    assert (repo / "locked.txt").read_text() == "keep\n"
    assert (repo / ".git/hooks/pre-commit").read_text() == "#!/bin/sh\n"
    assert (repo / "wt" / "app" / "main.txt").exists()
    starts = [e for e in events if e["operation"] == "execute" and e["outcome"] == "allowed"]
    ends = [e for e in events if e["operation"] == "execute" and e["outcome"] == "exited"]
    assert len(starts) == 2 and len(ends) == 2
    assert starts[0]["address"] == "root:repo" and starts[0]["count"] >= 4
    assert starts[0]["protections"] > 0 and "exit_status" not in starts[0]
    assert ends[0]["exit_status"] == 5 and ends[1]["exit_status"] == 0
    assert all("cat" not in str(e.values()) for e in events)  # never the command text


def test_a_file_written_between_two_commands_is_hidden(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    b = backend(repo, events)
    assert b.execute("true").exit_code == 0
    (repo / "late").mkdir()
    (repo / "late" / ".env").write_text("LATE=1\n")  # as a file operation of the host
    r = b.execute("cat late/.env; echo rc=$?")
    assert "LATE=1" not in r.output and "rc=1" in r.output


def test_refusals_are_audited(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    r = pathgate.Resolver(roots={"repo": repo}, presets=["secrets"], audit=events.append)
    with pytest.raises(pathgate.Error):
        pathgate.execute(r, "true", cwd="root:repo/nowhere")
    refused = [e for e in events if e["operation"] == "execute" and e["outcome"] == "denied"]
    assert len(refused) == 1 and refused[0]["reason"] == "invalid_path"


def test_mcp_execute_applies_the_presets(repo: Path, tmp_path: Path) -> None:
    import json
    import os
    import sys
    log = tmp_path / "mcp-audit.jsonl"
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25"}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "execute", "arguments": {
             "command": "cat .env app/.env; echo evil > .git/hooks/pre-commit; cat app/main.txt"}}},
    ]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    a = mcp_stdio(["--root", f"repo={repo}", "--preset", "secrets", "--preset", "vcs",
                   "--audit-log", str(log), "mcp", "--allow-execute"], lines, env=env)
    text = a[1]["result"]["content"][0]["text"]
    assert "SECRET=1" not in text and "m\n" in text, text
    assert (repo / ".git/hooks/pre-commit").read_text() == "#!/bin/sh\n"
    events = [json.loads(x) for x in log.read_text().splitlines()]
    ex = [e for e in events if e["operation"] == "execute"]
    assert {"allowed", "exited"} <= {e["outcome"] for e in ex}
    assert all(e["door"] == "mcp" for e in ex)
    assert str(tmp_path) not in text


def test_no_view_no_command_under_a_policy(repo: Path) -> None:
    """Without namespaces (weaker protection allowed) the masks cannot be
    made: the call is refused rather than run unmasked."""
    events: list[dict[str, Any]] = []
    r = pathgate.Resolver(roots={"repo": repo}, presets=["secrets"], audit=events.append)
    with pytest.raises(pathgate.Error) as exc:
        pathgate.sandbox._core._execute(r, "cat .env > leak", _test_no_namespaces=True,
                                        allow_unconfined=True)
    assert exc.value.kind == "policy_denied" and "/" not in str(exc.value)
    assert not (repo / "leak").exists()
    assert [e["reason"] for e in events if e["outcome"] == "denied"] == ["policy_denied"]
    # the same resolver without a policy runs it (weaker, allowed)
    plain = pathgate.Resolver(roots={"repo": repo})
    out = pathgate.sandbox._core._execute(plain, "true", _test_no_namespaces=True,
                                          allow_unconfined=True)
    assert out[1] == 0
