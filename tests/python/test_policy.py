"""The policy layer through the Python doors (docs/policy.md): Resolver(...,
deny_read, deny_write, presets, audit), restrict and policy_check,
pathgate.Backend, the command line (flags, configuration keys,
--audit-log) and `pathgate mcp`. A `**/.env` file cannot be read, listed,
grepped, globbed, copied or moved; `.git/hooks/pre-commit` cannot be
written; the audit log lists every refusal."""

from __future__ import annotations

import gc
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import pathgate
from pathgate import cli

EVENT_KEYS = {"time", "door", "operation", "role", "address", "outcome", "reason", "rule",
              "source", "count", "host_path", "ip"}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for rel, text in {
        ".env": "SECRET=1\n",
        "app/.env": "APP_SECRET=1\n",
        "app/main.txt": "hello\nreads APP_SECRET\n",
        "secrets/key.txt": "KEY\n",
        ".git/hooks/pre-commit": "#!/bin/sh\n",
        ".git/config": "[core]\n",
        ".git/index": "idx\n",
        "notes.txt": "notes\n",
    }.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / "innocent").symlink_to(".env")
    return repo


def make(repo: Path, events: list[dict[str, Any]], **kw: Any) -> pathgate.Resolver:
    return pathgate.Resolver(roots={"repo": repo}, deny_read=["**/.env", "secrets/"],
                             presets=["vcs"], audit=events.append, **kw)


def refusals(events: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(e["operation"], e["address"], e["reason"]) for e in events if e["outcome"] == "denied"}


# ------------------------------------------------------------ the Resolver


def test_every_operation_hides_and_protects(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    r = make(repo, events)
    b = pathgate.Backend(r)
    for spelling in ("root:repo/.env", "ROOT_REPO:/app/.env", f"file://{repo}/.env",
                     str(repo / "app" / ".ENV"), "root:repo/innocent", "root:repo/secrets/key.txt"):
        res = r.resolve(spelling, require_exists=False)
        assert not res.ok and res.reason == "denied", spelling
        assert res.error_message == "Invalid path / not found"
        rr = b.read(spelling)
        assert rr.error == "Invalid path / not found" and rr.kind == "invalid_path"
    assert b.write("root:repo/.env", "x").kind == "invalid_path"
    assert b.edit("root:repo/app/.env", "APP", "X").kind == "invalid_path"
    assert b.delete("root:repo/.env").kind == "invalid_path"
    [down] = b.download_files(["root:repo/.env"])
    assert down.error == "invalid_path" and down.content is None
    assert b.move("root:repo/.env", "root:repo/stolen.txt").kind == "invalid_path"
    # holds a hidden file: goes nowhere
    assert b.move("root:repo/app", "root:repo/app2").kind == "policy_denied"
    assert not (repo / "stolen.txt").exists() and (repo / "app" / ".env").exists()
    # listings leave it out and say so
    ls = b.ls("root:repo")
    paths = [x["path"] for x in ls.entries or []]
    assert "root:repo/.env" not in paths and "root:repo/innocent" not in paths
    assert "root:repo/secrets/" not in paths and "root:repo/notes.txt" in paths
    assert ls.incomplete and "policy" in (ls.notice or "")
    assert b.glob("**/.env").matches == []
    g = b.grep("SECRET", "root:repo")
    assert [m["path"] for m in g.matches or []] == ["root:repo/app/main.txt"]
    # the vcs preset: hooks and config read, never changed
    assert b.read("root:repo/.git/hooks/pre-commit").error is None
    w = b.write("root:repo/.git/hooks/pre-commit", "evil")
    assert w.kind == "policy_denied" and "Protected by policy" in (w.error or "")
    assert b.write("root:repo/.git/hooks/post-merge", "evil").kind == "policy_denied"
    [up] = b.upload_files([("root:repo/.git/config", b"evil")])
    assert up.error == "permission_denied"
    assert b.write("root:repo/.git/index", "idx2").error is None
    assert (repo / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\n"
    assert not (repo / ".git" / "hooks" / "post-merge").exists()

    # one event per decision, the host path only there
    for ev in events:
        assert set(ev) == EVENT_KEYS and ev["door"] == "python"
        assert isinstance(ev["time"], float) and ev["time"] > 1.6e9
    denied = refusals(events)
    for op in ("read", "write", "edit", "delete", "download", "move", "resolve"):
        assert any(d[0] == op and d[2] == "deny_read" for d in denied), op
    assert ("write", "root:repo/.git/hooks/pre-commit", "deny_write") in denied
    assert ("upload", "root:repo/.git/config", "deny_write") in denied
    hidden = [e for e in events if e["outcome"] == "hidden"]
    assert any(e["operation"] == "ls" and e["count"] == 3 for e in hidden)
    ev = next(e for e in events if e["operation"] == "write" and e["reason"] == "deny_write")
    assert ev["rule"] == "**/.git/hooks/" and ev["source"] == "preset:vcs"
    assert ev["host_path"] == str(repo / ".git" / "hooks" / "pre-commit")
    for res in (ls, g, w):
        assert str(repo) not in repr(res)


def test_arguments_are_checked(repo: Path) -> None:
    with pytest.raises(TypeError):
        pathgate.Resolver(roots={"repo": repo}, deny_read=".env")  # a str is not a list
    with pytest.raises(TypeError):
        pathgate.Resolver(roots={"repo": repo}, deny_write=[1])
    with pytest.raises(TypeError):
        pathgate.Resolver(roots={"repo": repo}, audit="log.txt")
    with pytest.raises(ValueError):
        pathgate.Resolver(roots={"repo": repo}, deny_read=["a\0b"])
    for kw in ({"deny_read": ["root:nope/x"]}, {"presets": ["vsc"]}, {"deny_write": ["a/../b"]},
               {"deny_read": ["[x"]}):
        with pytest.raises(pathgate.Error) as e:
            pathgate.Resolver(roots={"repo": repo}, **kw)
        assert e.value.kind == "invalid_config"
        assert str(repo) not in str(e.value)
    with pytest.raises(TypeError):
        pathgate.Resolver({"repo": repo}, None, 10, None, [".env"])  # keyword-only
    r = pathgate.Resolver(roots={"repo": repo}, deny_read=(), presets=None, audit=None)
    assert r.resolve("root:repo/.env").ok


def test_restrict_and_policy_check(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    r = make(repo, events, audit_door="agent-x")
    assert r.policy_check("root:repo/app/.env") == {"denied": "read", "rule": "**/.env",
                                                    "source": "deny_read"}
    assert r.policy_check(f"{repo}/.git/hooks/x") == {"denied": "write", "rule": "**/.git/hooks/",
                                                      "source": "preset:vcs"}
    assert r.policy_check("root:repo/innocent")["denied"] == "read"
    assert r.policy_check("root:repo/notes.txt") == {"denied": None, "rule": None, "source": None}
    with pytest.raises(pathgate.Error) as e:
        r.policy_check("root:nope/x")
    assert e.value.kind == "invalid_path"
    b = pathgate.Backend(r)
    assert b.write("root:repo/notes.txt", "n").error is None
    r.restrict(deny_write=["notes.txt"], deny_read=["!**/.env"], source="host")
    assert b.write("root:repo/notes.txt", "n").kind == "policy_denied"
    assert b.read("root:repo/.env").kind == "invalid_path"  # an exception elsewhere changes nothing
    with pytest.raises(pathgate.Error):
        r.restrict(presets=["nope"])
    with pytest.raises(TypeError):
        r.restrict("x")  # keyword-only
    with pytest.raises(TypeError):
        r.restrict(deny_read="x")
    ev = [e for e in events if e["operation"] == "write" and e["outcome"] == "denied"][-1]
    assert ev["source"] == "host" and ev["door"] == "agent-x"


def test_a_failing_audit_callable_is_reported_not_raised(repo: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))

    def boom(event: dict[str, Any]) -> None:
        raise RuntimeError("audit sink down")

    r = pathgate.Resolver(roots={"repo": repo}, deny_read=[".env"], audit=boom)
    assert pathgate.Backend(r).read("root:repo/.env").kind == "invalid_path"
    assert seen and isinstance(seen[0], RuntimeError)


def test_an_audit_callable_holding_its_resolver_is_collected(repo: Path) -> None:
    gone = threading.Event()

    class Sink:
        resolver: Any = None

        def __call__(self, event: dict[str, Any]) -> None:
            pass

        def __del__(self) -> None:
            gone.set()

    sink = Sink()
    sink.resolver = pathgate.Resolver(roots={"repo": repo}, deny_read=[".env"], audit=sink)
    del sink
    gc.collect()
    assert gone.is_set()


def test_threads_share_a_resolver_and_its_audit(repo: Path) -> None:
    events: list[dict[str, Any]] = []
    lock = threading.Lock()

    def sink(e: dict[str, Any]) -> None:
        with lock:
            events.append(e)

    r = pathgate.Resolver(roots={"repo": repo}, deny_read=["**/.env"], audit=sink)
    b = pathgate.Backend(r)

    def work() -> None:
        for _ in range(50):
            assert b.read("root:repo/app/.env").kind == "invalid_path"

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len([e for e in events if e["outcome"] == "denied"]) == 200


# ------------------------------------------------------- the command line


def cli_run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_flags_and_the_audit_log(repo: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "audit.jsonl"
    base = ["--root", f"repo={repo}", "--preset", "secrets", "--preset", "vcs",
            "--deny-read", "secrets/", "--audit-log", str(log)]
    code, out, err = cli_run([*base, "read", "root:repo/.env"], capsys)
    assert code == 1 and "Invalid path / not found" in err and "SECRET" not in out
    code, out, err = cli_run([*base, "ls", "root:repo"], capsys)
    assert code == 0 and ".env" not in out and "secrets" not in out and "notes.txt" in out
    code, out, err = cli_run([*base, "grep", "SECRET", "root:repo"], capsys)
    assert "root:repo/.env" not in out
    code, out, err = cli_run([*base, "glob", "**/.env"], capsys)
    assert ".env" not in out
    code, out, err = cli_run([*base, "--json", "delete", "root:repo/.git/hooks/pre-commit"], capsys)
    assert code == 1 and json.loads(out)["kind"] == "policy_denied"
    assert (repo / ".git" / "hooks" / "pre-commit").exists()
    code, out, err = cli_run([*base, "resolve", "root:repo/app/.env"], capsys)
    assert code == 1
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert all(set(x) == EVENT_KEYS and x["door"] == "cli" for x in lines)
    assert all(x["time"].endswith("+00:00") for x in lines)
    got = refusals(lines)
    assert ("read", "root:repo/.env", "deny_read") in got
    assert ("delete", "root:repo/.git/hooks/pre-commit", "deny_write") in got
    assert ("resolve", "root:repo/app/.env", "deny_read") in got
    assert any(x["outcome"] == "hidden" and x["operation"] == "ls" for x in lines)
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    # the stdout of a refused run names no host path
    assert str(repo) not in out


def test_cli_configuration_keys(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"new\n")))
    conf = tmp_path / "conf" / "pathgate.toml"
    conf.parent.mkdir()
    conf.write_text(f'deny_read = ["**/.env"]\ndeny_write = ["notes.txt"]\npresets = ["vcs"]\n'
                    f'audit_log = "audit.jsonl"\n[roots]\nrepo = "{repo}"\n')
    code, out, err = cli_run(["--config", str(conf), "read", "root:repo/.env"], capsys)
    assert code == 1
    code, out, err = cli_run(["--config", str(conf), "--deny-write", "app/", "write",
                              "root:repo/app/new.txt"], capsys)
    assert code == 1 and "Protected by policy" in err  # flags add to the file's lists
    code, out, err = cli_run(["--config", str(conf), "edit", "root:repo/notes.txt", "notes", "x"],
                             capsys)
    assert code == 1 and "Protected by policy" in err
    log = [json.loads(x) for x in (tmp_path / "conf" / "audit.jsonl").read_text().splitlines()]
    assert {("read", "root:repo/.env"), ("write", "root:repo/app/new.txt"),
            ("edit", "root:repo/notes.txt")} <= {(x["operation"], x["address"]) for x in log
                                                 if x["outcome"] == "denied"}
    for bad, word in (('deny_read = ".env"', "deny_read must be a list"),
                      ('presets = ["nope"]', "unknown preset 'nope'"),
                      ("audit_log = 3", "audit_log must be a file name")):
        conf.write_text(f'{bad}\n[roots]\nrepo = "{repo}"\n')
        code, out, err = cli_run(["--config", str(conf), "ls"], capsys)
        assert code == 2 and word in err, err


def test_cli_refuses_an_audit_log_the_sandbox_could_rewrite(repo: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    code, out, err = cli_run(["--root", f"repo={repo}", "--audit-log", str(repo / "audit.jsonl"),
                              "ls"], capsys)
    assert code == 2 and "the audit log" in err and "writable root 'repo'" in err
    assert not (repo / "audit.jsonl").exists()
    code, out, err = cli_run(["--root", f"repo={repo}", "--preset", "nope", "ls"], capsys)
    assert code == 2


def test_cli_execute_applies_the_preset(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli_run(["--root", f"repo={repo}", "--preset", "secrets", "execute",
                              "cat app/main.txt; cat .env"], capsys)
    assert code == 1 and "SECRET=1" not in out + err and "reads APP_SECRET" in out


# ----------------------------------------------------------- pathgate mcp


def test_mcp_server_applies_the_policy_and_logs_every_refusal(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "mcp-audit.jsonl"

    def call(i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": args}}

    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        call(1, "read_text_file", {"path": "root:repo/.env"}),
        call(2, "list_directory", {"path": "root:repo"}),
        call(3, "search_files", {"path": "root:repo", "pattern": "**/.env"}),
        call(4, "grep", {"pattern": "SECRET", "path": "root:repo"}),
        call(5, "move_file", {"source": "root:repo/app/.env", "destination": "root:repo/x.txt"}),
        call(6, "write_file", {"path": "root:repo/.git/hooks/pre-commit", "content": "evil"}),
        call(7, "read_text_file", {"path": "root:repo/app/main.txt"}),
        call(8, "directory_tree", {"path": "root:repo"}),
        call(9, "read_text_file", {"path": "innocent"}),
    ]
    data = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.run([sys.executable, "-m", "pathgate", "--root", f"repo={repo}", "--preset",
                        "secrets", "--preset", "vcs", "--audit-log", str(log), "mcp"],
                       input=data, capture_output=True, env=env, timeout=120, check=True)
    a = {x["id"]: x for x in map(json.loads, p.stdout.splitlines())}
    text = {i: a[i]["result"]["content"][0]["text"] for i in range(1, 10)}
    assert a[1]["result"]["isError"] and text[1] == "Invalid path / not found"
    assert ".env" not in text[2] and "notes.txt" in text[2]
    assert text[3] == "No matches found"
    assert "root:repo/.env" not in text[4]
    assert a[5]["result"]["isError"] and a[6]["result"]["isError"]
    assert "Protected by policy" in text[6]
    assert text[7].startswith("hello")
    assert ".env" not in text[8]
    assert a[9]["result"]["isError"]
    assert str(tmp_path).encode() not in p.stdout
    events = [json.loads(x) for x in log.read_text().splitlines()]
    assert events and all(e["door"] == "mcp" for e in events)
    got = refusals(events)
    assert ("read", "root:repo/.env", "deny_read") in got or \
        any(d[1] == "root:repo/.env" for d in got)
    assert any(d[1] == "root:repo/app/.env" for d in got)  # the move
    assert any(d[1] == "root:repo/.git/hooks/pre-commit" and d[2] == "deny_write" for d in got)
    assert any(d[1] == "root:repo/innocent" for d in got)
    assert (repo / "app" / ".env").exists() and not (repo / "x.txt").exists()
