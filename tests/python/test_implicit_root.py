"""Issue 34, item 1: a forgotten --root never serves the whole host.

The implicit root (the current directory, when nothing is configured) is
never `/`, a home directory or an ancestor of one; `pathgate mcp` needs an
explicit root or configuration; an explicit root at `/` is refused by every
door (the C core refuses it, so Resolver, the command and mcp do); and the
advice of every refusal names a directory to serve, never a read-only mark
that keeps serving what was refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pathgate
from pathgate import cli

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}}
READ_SHADOW = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "read_text_file", "arguments": {"path": "etc/passwd"}}}


def run(argv: list[str], cwd: str | Path, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    env["HOME"] = str(home)
    env["PYTHONPATH"] = str(Path(pathgate.__file__).resolve().parents[1])
    return subprocess.run([sys.executable, "-m", "pathgate", *argv], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=env, timeout=60)


def mcp_lines() -> str:
    return "\n".join(json.dumps(m) for m in (INIT, READ_SHADOW)) + "\n"


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home" / "me"
    (h / "project").mkdir(parents=True)
    (h / "project" / "a.txt").write_text("a\n")
    return h


def test_mcp_from_slash_without_root_is_refused_with_root_advice(home: Path) -> None:
    # The report: `cd / && pathgate mcp`, then the advice `--read-only repo`.
    for extra in ([], ["--read-only", "repo"]):
        proc = run(["mcp", *extra], "/", home, stdin=mcp_lines())
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""  # no server answered anything
        assert "--root KEY=DIR" in proc.stderr
        assert "--read-only" not in proc.stderr


def test_mcp_needs_an_explicit_root_even_in_a_project(home: Path) -> None:
    proc = run(["mcp"], home / "project", home, stdin=mcp_lines())
    assert proc.returncode == 2 and "--root KEY=DIR" in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("where", ["/", "home", "ancestor"])
def test_cli_implicit_root_is_never_the_host_or_a_home(home: Path, where: str) -> None:
    cwd = {"/": Path("/"), "home": home, "ancestor": home.parent}[where]
    for argv in (["ls"], ["--read-only", "repo", "read", "root:repo/etc/passwd"]):
        proc = run(argv, cwd, home)
        assert proc.returncode == 2, (argv, proc.stdout)
        assert proc.stdout == ""
        assert "--root KEY=DIR" in proc.stderr and "--read-only" not in proc.stderr
        assert {"/": "the filesystem root", "home": "a home directory",
                "ancestor": "an ancestor of a home directory"}[where] in proc.stderr


def test_cli_implicit_root_in_a_project_below_home_still_works(home: Path) -> None:
    proc = run(["read", "root:repo/a.txt"], home / "project", home)
    assert (proc.returncode, proc.stdout) == (0, "a\n"), proc.stderr


def test_implicit_root_refusal_helper(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(home))
    assert cli.implicit_root_refusal("/") == "the filesystem root"
    assert cli.implicit_root_refusal(str(home)) == "a home directory"
    assert cli.implicit_root_refusal(str(home.parent)) == "an ancestor of a home directory"
    assert cli.implicit_root_refusal(str(home / "project")) is None
    link = home.parent / "link-to-slash"
    link.symlink_to("/")
    assert cli.implicit_root_refusal(str(link)) == "the filesystem root"


def test_implicit_root_refusal_knows_every_account_home(home: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The core's one home check (the toolchains' too): the caller's own
    account and every account of /etc/passwd count, not only $HOME."""
    import pwd

    monkeypatch.setenv("HOME", str(home))
    own = pwd.getpwuid(os.getuid()).pw_dir
    if own not in ("", "/") and os.path.isdir(own):
        assert cli.implicit_root_refusal(own) == "a home directory"
    others = [e.pw_dir for e in pwd.getpwall()
              if e.pw_dir.count("/") >= 2 and os.path.isdir(os.path.dirname(e.pw_dir))
              and os.path.realpath(os.path.dirname(e.pw_dir)) != "/"]
    if not others:
        pytest.skip("SKIPPED: no account in /etc/passwd has a home two levels down")
    assert cli.implicit_root_refusal(os.path.dirname(others[0])) == \
        "an ancestor of a home directory"
    with pytest.raises(ValueError):
        cli.implicit_root_refusal(str(home) + "\0x")
    with pytest.raises(pathgate.Error) as e:
        cli.implicit_root_refusal(str(home / "missing"))
    assert e.value.kind == "io_error" and str(home) not in str(e.value)


@pytest.mark.parametrize("spelling", ["/", "//", "/tmp/..", "link"])
def test_explicit_root_at_slash_is_refused_by_every_door(home: Path, spelling: str) -> None:
    if spelling == "link":
        link = home / "slash"
        link.symlink_to("/")
        spelling = str(link)
    # Python
    with pytest.raises(pathgate.Error) as e:
        pathgate.Resolver(roots={"repo": spelling})
    assert e.value.kind == "invalid_config" and "filesystem root" in str(e.value)
    with pytest.raises(pathgate.Error):
        pathgate.Resolver(roots={"repo": str(home)}, mods={"Host": spelling})
    with pytest.raises(pathgate.Error):
        pathgate.Resolver(roots={"repo": spelling}, read_only=["repo"])
    # the command line and mcp, read-only or not
    for argv in (["--root", f"repo={spelling}", "read", "root:repo/etc/passwd"],
                 ["--root", f"repo={spelling}", "--read-only", "repo", "ls"],
                 ["--root", f"repo={spelling}", "mcp", "--read-only", "repo"]):
        proc = run(argv, home / "project", home, stdin=mcp_lines())
        assert proc.returncode == 2, (argv, proc.stdout)
        assert "root 'repo': the directory is the filesystem root" in proc.stderr
        assert "root:" not in proc.stdout and "passwd" not in proc.stdout


def test_config_file_root_at_slash_is_refused(home: Path) -> None:
    cfg = home / "project" / "pathgate.toml"
    cfg.write_text('read_only = ["host"]\n[roots]\nhost = "/"\n')
    proc = run(["--config", str(cfg), "mcp"], home, home, stdin=mcp_lines())
    assert proc.returncode == 2 and "filesystem root" in proc.stderr and proc.stdout == ""
