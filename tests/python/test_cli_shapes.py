"""The pathgate command (issue 17, "The command line"): one documented --json
shape per subcommand, failures included; whole reads; one rule for relative
input; --version, delete, execute; grep's exit status; help for every
argument; messages meant for command-line users."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import pathgate
from pathgate import cli


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "common" / "traits").mkdir(parents=True)
    (repo / "common" / "traits" / "x.txt").write_text("brave = yes\n")
    (repo / "long.txt").write_text("".join(f"line {i}\r\n" for i in range(3000)))
    (repo / "latin1.txt").write_bytes(b"caf\xe9\n" * 3)
    (repo / "two.txt").write_text("two two\n")
    return repo


class Run:
    def __init__(self, repo: Path, capsys: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> None:
        self.repo, self.capsys, self.monkeypatch = repo, capsys, monkeypatch

    def __call__(self, *argv: str, stdin: bytes = b"") -> tuple[int, bytes, str]:
        self.monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        code = cli.main(["--root", f"repo={self.repo}", *argv])
        out, err = self.capsys.readouterr()
        return code, out, err.decode()

    def json(self, *argv: str, stdin: bytes = b"") -> tuple[int, dict[str, Any]]:
        code, out, _ = self("--json", *argv, stdin=stdin)
        lines = out.decode().splitlines()
        assert len(lines) == 1, out  # exactly one JSON object per run
        data = json.loads(lines[0])
        assert isinstance(data, dict) and list(data)[0] == "ok"
        return code, data


@pytest.fixture()
def run(repo: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch) -> Run:
    return Run(repo, capsysbinary, monkeypatch)


FAILURE = {"ok", "error", "kind"}


def test_read_gives_the_whole_file_byte_for_byte(run: Run, repo: Path) -> None:
    code, out, err = run("read", "root:repo/long.txt")
    assert (code, err) == (0, "")
    assert out == (repo / "long.txt").read_bytes()  # 3,000 lines, CRLF kept: `read f > copy` copies
    code, out, _ = run("read", "latin1.txt")
    assert (code, out) == (0, (repo / "latin1.txt").read_bytes())
    code, data = run.json("read", "long.txt")
    assert code == 0 and set(data) == {"ok", "path", "encoding", "content", "window"}
    assert data["path"] == "root:repo/long.txt" and data["window"] is None
    assert data["content"] == (repo / "long.txt").read_bytes().decode()
    code, data = run.json("read", "latin1.txt")
    assert data["encoding"] == "base64"


def test_read_window_only_when_asked(run: Run) -> None:
    code, out, _ = run("read", "long.txt", "--offset", "2998")
    assert (code, out) == (0, b"line 2998\nline 2999\n")
    code, data = run.json("read", "long.txt", "--offset", "10", "--limit", "5")
    assert data["window"] == {"start_line": 11, "end_line": 15, "total_lines": 3000, "next_offset": 15}
    assert data["content"].splitlines() == [f"line {i}" for i in range(10, 15)]
    # a window of a file that is not text: refused, nothing printed
    code, out, err = run("read", "latin1.txt", "--limit", "1")
    assert (code, out) == (1, b"") and "not UTF-8 text" in err
    code, data = run.json("read", "long.txt", "--offset", "5000")
    assert code == 1 and set(data) == FAILURE and "exceeds" in data["error"]


def test_one_rule_for_relative_input(run: Run) -> None:
    assert run("resolve", "common/traits/x.txt")[1] .startswith(b"root:repo/common/traits/x.txt\t")
    assert run("read", "common/traits/x.txt")[:2] == (0, b"brave = yes\n")
    assert run("ls", "common")[1].startswith(b"root:repo/common/traits/")
    assert run("grep", "brave", "common")[1] == b"root:repo/common/traits/x.txt:1:brave = yes\n"
    assert run("glob", "*.txt", "common/traits")[1] == b"root:repo/common/traits/x.txt\n"
    # --cwd moves the base of every subcommand alike (resolve --base too)
    for argv in (["--cwd", "root:repo/common", "read", "traits/x.txt"],
                 ["read", "--cwd", "root:repo/common", "traits/x.txt"]):
        assert run(*argv)[:2] == (0, b"brave = yes\n")
    assert run("resolve", "--base", "root:repo/common", "traits/x.txt")[1].startswith(b"root:repo/common/traits/x.txt")
    assert run("--cwd", "root:repo/common", "ls")[1].startswith(b"root:repo/common/traits/")
    code, _, err = run("--cwd", "root:repo/nowhere", "ls")
    assert code == 2 and "--cwd" in err


def test_json_shape_of_every_subcommand(run: Run, repo: Path) -> None:
    cases: list[tuple[list[str], set[str]]] = [
        (["resolve", "root:repo/two.txt"], {"ok", "results"}),
        (["uri", "/a b"], {"ok", "uri", "convention", "is_opaque"}),
        (["native", "file:///a%20b"], {"ok", "native", "convention"}),
        (["ls"], {"ok", "path", "entries"}),
        (["read", "two.txt"], {"ok", "path", "encoding", "content", "window"}),
        (["grep", "two"], {"ok", "matches", "truncated"}),
        (["glob", "*.txt"], {"ok", "matches"}),
        (["edit", "two.txt", "two two", "three"], {"ok", "path", "occurrences"}),
        (["write", "new.txt"], {"ok", "path"}),
        (["delete", "new.txt"], {"ok", "path"}),
    ]
    for argv, keys in cases:
        code, data = run.json(*argv)
        assert code == 0 and data["ok"] is True and set(data) == keys, (argv, data)
    code, data = run.json("resolve", "root:repo/two.txt", "root:repo/../x")
    assert code == 1 and data["ok"] is False
    assert [r["ok"] for r in data["results"]] == [True, False]
    assert set(data["results"][0]) == {"input", "ok", "address", "root_category", "relative_path", "exists",
                                       "error_message", "reason"}
    # every failure: {"ok": false, "error", "kind"}, for every subcommand
    failures: list[tuple[list[str], int, str | None]] = [
        (["uri", "relative"], 1, "not_absolute"),
        (["native", "http://x/y"], 1, "unsupported_scheme"),
        (["ls", "root:repo/nowhere"], 1, None),
        (["read", "root:repo/nowhere"], 1, None),
        (["grep", "x", "root:nope"], 2, None),
        (["glob", "*", "root:nope"], 1, None),
        (["write", "root:repo/../x"], 1, None),
        (["edit", "two.txt", "absent", "x"], 1, None),
        (["delete", "root:repo/nowhere"], 1, None),
        (["frobnicate"], 2, "usage"),
        (["read"], 2, "usage"),
        (["--config", str(repo / "none.toml"), "ls"], 2, "config"),
    ]
    for argv, status, kind in failures:
        code, data = run.json(*argv)
        assert code == status and set(data) == FAILURE and data["ok"] is False, (argv, data)
        assert isinstance(data["error"], str) and data["error"]
        if kind is not None:
            assert data["kind"] == kind, (argv, data)


def test_grep_exit_status_follows_grep(run: Run) -> None:
    assert run("grep", "brave")[0] == 0
    code, out, err = run("grep", "no such text anywhere")
    assert (code, out, err) == (1, b"", "")
    code, data = run.json("grep", "no such text anywhere")
    assert code == 1 and data == {"ok": True, "matches": [], "truncated": False}
    assert run("grep", "x", "root:nope")[0] == 2


def test_delete_is_contained(run: Run, repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("keep")
    (repo / "escape").symlink_to(tmp_path / "outside.txt")
    assert run("delete", "common")[:2] == (0, b"deleted root:repo/common\n")
    assert not (repo / "common").exists()
    code, _, err = run("delete", "root:repo/../outside.txt")
    assert code == 1 and "Invalid path / not found" in err
    code, _, err = run("delete", "root:repo")
    assert code == 1
    assert (tmp_path / "outside.txt").read_text() == "keep"
    assert str(tmp_path) not in err


@pytest.mark.skipif(pathgate.landlock_abi() < 1, reason="no Landlock on this kernel")
def test_execute_is_contained_like_backend_execute(run: Run, repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret")
    code, out, _ = run("execute", "cat two.txt; exit 3")
    assert (code, out) == (3, b"two two\n")
    code, out, _ = run("--cwd", "root:repo/common", "execute", "ls")
    assert (code, out) == (0, b"traits\n")
    code, out, _ = run("execute", f"cat {tmp_path / 'outside.txt'}")
    assert code != 0 and b"secret" not in out
    code, data = run.json("execute", "echo hi")
    assert code == 0 and data["ok"] is True and data["output"] == "hi\n" and data["exit_code"] == 0
    assert set(data) == {"ok", "output", "exit_code", "truncated", "timed_out", "landlock_abi", "quarantined"}
    assert data["quarantined"] == []
    code, data = run.json("execute", "exit 4")
    assert code == 4 and data["ok"] is False and data["exit_code"] == 4
    assert run("execute", "true", "--timeout", "0")[0] == 2
    code, out, err = run("execute", "--timeout", "0.5", "sleep 5; echo late")
    assert (code, out) == (124, b"") and "timed out" in err


def test_edit_speaks_to_command_line_users(run: Run) -> None:
    code, _, err = run("edit", "two.txt", "two", "2")
    assert code == 1 and "appears 2 times" in err
    assert "replace_all=True" not in err and "--replace-all" in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"pathgate {pathgate.__version__}\n"


def _parsers() -> list[argparse.ArgumentParser]:
    parser = cli.build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [parser, *subs.choices.values()]


def test_every_argument_has_help() -> None:
    for p in _parsers():
        for action in p._actions:
            assert action.help and action.help != argparse.SUPPRESS, (p.prog, action.dest)
    subs = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {"resolve", "uri", "native", "ls", "read", "grep", "glob", "write", "edit", "delete",
            "execute"} <= set(subs.choices)
    for choice in subs._choices_actions:
        assert choice.help


def _tool(parent: Path) -> Path:
    tool = parent / "tool"
    (tool / "bin").mkdir(parents=True)
    (tool / "bin" / "hello-tool").write_text("#!/bin/sh\necho hello from tool\n")
    (tool / "bin" / "hello-tool").chmod(0o755)
    return tool


@pytest.mark.skipif(pathgate.landlock_abi() < 1, reason="no Landlock on this kernel")
def test_execute_with_a_toolchain(run: Run, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """--toolchain DIR and the configuration's toolchains (docs/exec.md
    "Toolchains of the host"), for execute and pathgate mcp alike."""
    tool = _tool(tmp_path)
    code, out, _ = run("--toolchain", str(tool), "execute", "hello-tool; cd /pathgate/tool/tool && pwd -P")
    assert (code, out) == (0, b"hello from tool\n/pathgate/tool/tool\n")
    # refused at once, naming the operator's own path
    code, _, err = run("--toolchain", "/", "execute", "true")
    assert code != 0 and "toolchain /: the filesystem root cannot be a toolchain" in err
    # /tmp is the view's own: not at its host path
    code, _, err = run("--toolchain", str(tool), "--toolchains-at-host-path", "execute", "true")
    if str(tool).startswith("/tmp/"):
        assert code != 0 and "view's own entries" in err
    # the configuration file, relative to its directory
    conf = tmp_path / "pathgate.toml"
    conf.write_text('toolchains = ["tool"]\n[roots]\nrepo = "repo"\n')
    assert cli.main(["--config", str(conf), "execute", "hello-tool"]) == 0
    assert capsysbinary.readouterr().out == b"hello from tool\n"
    cfg = cli.load_config(cli.build_parser().parse_args(["--config", str(conf), "mcp"]))
    assert cfg.execute_options() == {"toolchains": [str(tool)], "toolchains_at_host_path": False}
    from pathgate.mcp.service import Server

    server = Server(pathgate.Resolver(roots={"repo": tmp_path / "repo"}), allow_execute=True,
                    execute_options=cfg.execute_options())
    _, state = server.open("test")
    assert state.backend.execute("hello-tool").output == "hello from tool\n"


@pytest.mark.skipif(pathgate.landlock_abi() < 1, reason="no Landlock on this kernel")
def test_execute_with_an_id_range(run: Run, repo: Path, tmp_path: Path) -> None:
    """--id-range FIRST:COUNT|none and the configuration's id_range
    (docs/exec.md "Ownership changes inside")."""
    import os

    code, _, err = run("--id-range", "bad", "execute", "true")
    assert code == 2 and "--id-range must be" in err
    code, _, err = run("--id-range", "0:65536", "execute", "true")  # root, nobody, users
    assert code != 0
    if os.geteuid() == 0:
        assert "id_range" in err
        code, out, _ = run("--id-range", "3000000000:65536", "execute",
                           "touch owned && chown 7:7 owned && stat -c %u:%g owned")
        assert (code, out) == (0, b"7:7\n")
        assert os.lstat(repo / "owned").st_uid == 3000000007
        code, out, _ = run("--id-range", "none", "execute", "touch n && chown 7 n")
        assert code == 1 and b"Operation not permitted" in out
    conf = tmp_path / "pathgate.toml"
    conf.write_text('id_range = [3000000000, 65536]\n[roots]\nrepo = "repo"\n')
    cfg = cli.load_config(cli.build_parser().parse_args(["--config", str(conf), "mcp"]))
    assert cfg.execute_options() == {"id_range": (3000000000, 65536)}
    conf.write_text('id_range = "all"\n[roots]\nrepo = "repo"\n')
    with pytest.raises(cli.ConfigError, match="id_range must be"):
        cli.load_config(cli.build_parser().parse_args(["--config", str(conf), "mcp"]))
