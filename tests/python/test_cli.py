"""The pathgate command: every subcommand, plain and --json, config sources,
exit statuses, and no host path on stderr unless asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pathgate import cli


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "common" / "traits").mkdir(parents=True)
    (repo / "common" / "traits" / "00_traits.txt").write_text("brave = yes\ncraven = no\n")
    (repo / "notes.md").write_text("alpha\nbeta\ngamma\n")
    mod = tmp_path / "mods" / "Some Mod"
    (mod / "common").mkdir(parents=True)
    (mod / "common" / "x.txt").write_text("brave mod\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    (repo / "escape").symlink_to(tmp_path / "outside.txt")
    return tmp_path


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None,
        monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    if stdin is not None and monkeypatch is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def flags(tree: Path) -> list[str]:
    return ["--root", f"repo={tree / 'repo'}", "--mod", f"Some Mod={tree / 'mods' / 'Some Mod'}"]


def assert_no_host_path(text: str, tree: Path) -> None:
    assert str(tree) not in text
    assert os.path.realpath(tree) not in text


# ------------------------------------------------------------------ resolve


def test_resolve_plain_and_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*flags(tree), "resolve", "root:repo/common/traits/00_traits.txt"], capsys)
    assert code == 0, err
    assert out.split("\t")[0] == "root:repo/common/traits/00_traits.txt"
    assert "exists" in out
    assert_no_host_path(out + err, tree)

    code, out, err = run([*flags(tree), "--json", "resolve", "ROOT_REPO:/common//./traits/00_traits.txt"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["ok"] is True
    assert data["address"] == "root:repo/common/traits/00_traits.txt"
    assert data["root_category"] == "repo"
    assert data["relative_path"] == "common/traits/00_traits.txt"
    assert data["exists"] is True
    assert "host_path" not in data


def test_resolve_mod_relative_and_host_forms(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host = tree / "mods" / "Some Mod" / "common" / "x.txt"
    code, out, _ = run([*flags(tree), "--json", "resolve", "mod:Some Mod:/common/x.txt",
                        host.as_uri(), str(host), "notes.md"], capsys)
    assert code == 0
    data = json.loads(out)
    assert [d["address"] for d in data] == ["mod:Some Mod/common/x.txt"] * 3 + ["root:repo/notes.md"]
    assert data[0]["root_category"] is None


def test_resolve_failures_exit_1_without_host_path(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for text, reason in (("root:repo/../outside.txt", "escapes_root"), ("root:nope/x", "unknown_root"),
                         ("root:repo/missing.txt", "not_found"), ("root:repo/escape", "escapes_root"),
                         (str(tree / "outside.txt"), "outside_bases")):
        code, out, err = run([*flags(tree), "resolve", text], capsys)
        assert code == 1, text
        assert out == ""
        assert "Invalid path / not found" in err and reason in err, (text, err)
        assert_no_host_path(err, tree)
        code, out, err = run([*flags(tree), "--json", "resolve", text], capsys)
        assert code == 1
        data = json.loads(out)
        assert data["ok"] is False and data["error_message"] == "Invalid path / not found"
        assert data["reason"] == reason


def test_resolve_no_require_exists_and_host_path_on_request(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([*flags(tree), "--json", "resolve", "--no-require-exists", "root:repo/new/file.txt"], capsys)
    assert code == 0
    assert json.loads(out)["exists"] is False
    code, out, _ = run([*flags(tree), "--json", "resolve", "--host-path", "root:repo/notes.md"], capsys)
    assert code == 0
    assert Path(json.loads(out)["host_path"]).samefile(tree / "repo" / "notes.md")


# -------------------------------------------------------------- uri/native


def test_uri_and_native(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["uri", r"C:\Users\me\My Mod\x.txt"], capsys)
    assert (code, out) == (0, "file:///C:/Users/me/My%20Mod/x.txt\n")
    code, out, _ = run(["--json", "uri", r"\\server\share\a#b", "--convention", "windows"], capsys)
    assert json.loads(out) == {"uri": "file://server/share/a%23b", "convention": "windows", "is_opaque": False}
    code, out, _ = run(["native", "file:///C:/Users/me/My%20Mod/x.txt"], capsys)
    assert (code, out) == (0, "C:\\Users\\me\\My Mod\\x.txt\n")
    code, out, _ = run(["native", "--json", "file:///srv/a%20b"], capsys)
    assert json.loads(out) == {"native": "/srv/a b", "convention": "posix"}


def test_uri_and_native_failures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["uri", "relative/path"], capsys)
    assert (code, out) == (1, "")
    assert "not_absolute" in err
    code, out, err = run(["native", "http://example.com/x"], capsys)
    assert code == 1 and "unsupported_scheme" in err
    code, out, err = run(["native", "file://server/share/x", "--convention", "posix"], capsys)
    assert code == 1 and "incompatible_convention" in err


# ------------------------------------------------------------ configuration


def test_config_file_relative_dirs_and_default_file(tree: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tree / "pathgate.toml"
    cfg.write_text('max_tokens = 5\n[roots]\nrepo = "repo"\n[mods]\n"Some Mod" = "mods/Some Mod"\n')
    code, out, _ = run(["--config", str(cfg), "--json", "resolve", "mod:Some Mod/common/x.txt"], capsys)
    assert code == 0 and json.loads(out)["address"] == "mod:Some Mod/common/x.txt"
    # found as ./pathgate.toml, and max_tokens applies per process run
    monkeypatch.chdir(tree)
    code, out, _ = run(["--json", "resolve", *["root:repo/notes.md"] * 6], capsys)
    assert code == 1
    data = json.loads(out)
    assert [d["ok"] for d in data] == [True] * 5 + [False]
    assert data[5]["error_message"] == "Visibility registry capacity exceeded \u2014 restart server"


def test_default_root_is_current_directory(tree: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "repo")
    code, out, _ = run(["--json", "resolve", "root:repo/notes.md", "common"], capsys)
    assert code == 0
    assert [d["address"] for d in json.loads(out)] == ["root:repo/notes.md", "root:repo/common"]


@pytest.mark.parametrize("argv, fragment", [
    (["--root", "nodir", "resolve", "x"], "--root expects NAME=DIR"),
    (["--root", "Bad=/tmp", "resolve", "x"], "root key"),
    (["--config", "/nonexistent/pathgate.toml", "resolve", "x"], "config file not found"),
])
def test_usage_errors_exit_2(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert fragment in err
    assert "/nonexistent" not in err and "/tmp" not in err


def test_bad_toml_and_missing_dir(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tree / "bad.toml"
    cfg.write_text("[roots\n")
    code, _, err = run(["--config", str(cfg), "resolve", "x"], capsys)
    assert code == 2 and "not valid TOML" in err
    assert_no_host_path(err, tree)
    code, _, err = run(["--root", f"repo={tree / 'missing'}", "resolve", "root:repo"], capsys)
    assert code == 2 and "repo" in err
    assert_no_host_path(err, tree)


def test_argparse_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["frobnicate"]) == 2
    assert cli.main([]) == 2


def test_python_dash_m_entry_point(tree: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pathgate", *flags(tree), "resolve", "root:repo/../x"],
                          capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Invalid path / not found" in proc.stderr
    assert str(tree) not in proc.stderr


# --------------------------------------------------------- file operations


def test_ls_plain_and_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*flags(tree), "ls", "root:repo"], capsys)
    assert code == 0, err
    paths = [line.split("\t")[0] for line in out.splitlines()]
    assert paths == ["root:repo/common/", "root:repo/notes.md"]  # the outward symlink is not listed
    code, out, _ = run([*flags(tree), "ls", "--json"], capsys)  # default: the home root
    entries = json.loads(out)
    assert [e["path"] for e in entries] == paths
    assert entries[1]["is_dir"] is False and entries[1]["size"] == len("alpha\nbeta\ngamma\n")
    assert_no_host_path(out, tree)


def test_read_window_plain_and_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([*flags(tree), "read", "root:repo/notes.md", "--offset", "1", "--limit", "1"], capsys)
    assert code == 0
    assert "beta" in out and "alpha" not in out and "gamma" not in out
    code, out, _ = run([*flags(tree), "--json", "read", "root:repo/notes.md"], capsys)
    data = json.loads(out)
    assert data["error"] is None and data["total_lines"] == 3
    assert "gamma" in data["file_data"]["content"]


def test_grep_and_glob(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([*flags(tree), "grep", "brave"], capsys)
    assert (code, out) == (0, "root:repo/common/traits/00_traits.txt:1:brave = yes\n")
    code, out, _ = run([*flags(tree), "--json", "grep", "brave", "mod:Some Mod"], capsys)
    data = json.loads(out)
    assert data["matches"] == [{"path": "mod:Some Mod/common/x.txt", "line": 1, "text": "brave mod"}]
    code, out, err = run([*flags(tree), "grep", "a", "--max-count", "1"], capsys)
    assert code == 0 and len(out.splitlines()) == 1 and "truncated" in err
    code, out, _ = run([*flags(tree), "glob", "*.txt"], capsys)
    assert (code, out) == (0, "root:repo/common/traits/00_traits.txt\n")
    code, out, _ = run([*flags(tree), "--json", "glob", "**/*.md", "root:repo"], capsys)
    assert [m["path"] for m in json.loads(out)["matches"]] == ["root:repo/notes.md"]


def test_write_from_stdin_and_edit(tree: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run([*flags(tree), "write", "root:repo/new/dir/file.txt"], capsys,
                         stdin="one\ntwo two\n", monkeypatch=monkeypatch)
    assert code == 0, err
    assert (tree / "repo" / "new" / "dir" / "file.txt").read_text() == "one\ntwo two\n"
    assert out == "wrote root:repo/new/dir/file.txt\n"
    code, out, err = run([*flags(tree), "edit", "root:repo/new/dir/file.txt", "two", "2"], capsys)
    assert code == 1 and "appears 2 times" in err, err
    code, out, _ = run([*flags(tree), "--json", "edit", "root:repo/new/dir/file.txt", "two", "2",
                        "--replace-all"], capsys)
    assert code == 0 and json.loads(out)["occurrences"] == 2
    assert (tree / "repo" / "new" / "dir" / "file.txt").read_text() == "one\n2 2\n"


def test_file_operation_failures_exit_1_without_host_path(tree: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    outside = (tree / "outside.txt").read_text()
    cases = [
        ["read", "root:repo/escape"],
        ["read", "root:repo/../outside.txt"],
        ["read", "root:repo/missing.txt"],
        ["ls", "root:nope"],
        ["edit", "root:repo/notes.md", "absent", "x"],
        ["grep", "x", str(tree / "outside.txt")],
    ]
    for argv in cases:
        code, out, err = run([*flags(tree), *argv], capsys)
        assert code == 1, argv
        assert out == "" and err.startswith(f"pathgate: {argv[0]}: "), (argv, err)
        assert_no_host_path(err, tree)
    code, _, err = run([*flags(tree), "write", "root:repo/escape"], capsys, stdin="pwned",
                       monkeypatch=monkeypatch)
    assert code == 1
    assert (tree / "outside.txt").read_text() == outside


def test_package_exports_match_its_modules() -> None:
    import pathgate
    from pathgate import backend, sandbox

    for name in [*backend.__all__, *sandbox.__all__]:
        assert name in pathgate.__all__ and getattr(pathgate, name) is getattr(
            backend if name in backend.__all__ else sandbox, name)
