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


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs with an empty user configuration directory."""
    xdg = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    return xdg


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
    data = json.loads(out)["results"][0]
    assert data["ok"] is True
    assert data["input"] == "ROOT_REPO:/common//./traits/00_traits.txt"
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
    data = json.loads(out)["results"]
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
        top = json.loads(out)
        assert top["ok"] is False and len(top["results"]) == 1
        data = top["results"][0]
        assert data["ok"] is False and data["error_message"] == "Invalid path / not found"
        assert data["reason"] == reason


def test_resolve_no_require_exists_and_host_path_on_request(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([*flags(tree), "--json", "resolve", "--no-require-exists", "root:repo/new/file.txt"], capsys)
    assert code == 0
    assert json.loads(out)["results"][0]["exists"] is False
    code, out, _ = run([*flags(tree), "--json", "resolve", "--host-path", "root:repo/notes.md"], capsys)
    assert code == 0
    assert Path(json.loads(out)["results"][0]["host_path"]).samefile(tree / "repo" / "notes.md")


# -------------------------------------------------------------- uri/native


def test_uri_and_native(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["uri", r"C:\Users\me\My Mod\x.txt"], capsys)
    assert (code, out) == (0, "file:///C:/Users/me/My%20Mod/x.txt\n")
    code, out, _ = run(["--json", "uri", r"\\server\share\a#b", "--convention", "windows"], capsys)
    assert json.loads(out) == {"ok": True, "uri": "file://server/share/a%23b", "convention": "windows",
                                "is_opaque": False}
    code, out, _ = run(["native", "file:///C:/Users/me/My%20Mod/x.txt"], capsys)
    assert (code, out) == (0, "C:\\Users\\me\\My Mod\\x.txt\n")
    code, out, _ = run(["native", "--json", "file:///srv/a%20b"], capsys)
    assert json.loads(out) == {"ok": True, "native": "/srv/a b", "convention": "posix"}


def test_uri_and_native_failures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["uri", "relative/path"], capsys)
    assert (code, out) == (1, "")
    assert "not_absolute" in err
    code, out, err = run(["native", "http://example.com/x"], capsys)
    assert code == 1 and "unsupported_scheme" in err
    code, out, err = run(["native", "file://server/share/x", "--convention", "posix"], capsys)
    assert code == 1 and "incompatible_convention" in err


# ------------------------------------------------------------ configuration


def test_config_file_relative_dirs_and_user_file(tree: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch, no_user_config: Path) -> None:
    cfg = tree / "pathgate.toml"
    cfg.write_text('max_tokens = 5\nread_only = ["Some Mod"]\n[roots]\nrepo = "repo"\n'
                   '[mods]\n"Some Mod" = "mods/Some Mod"\n')
    code, out, _ = run(["--config", str(cfg), "--json", "resolve", "mod:Some Mod/common/x.txt"], capsys)
    assert code == 0 and json.loads(out)["results"][0]["address"] == "mod:Some Mod/common/x.txt"
    # ./pathgate.toml is never read implicitly: here root:repo is the cwd
    monkeypatch.chdir(tree)
    code, out, _ = run(["--json", "resolve", "repo/notes.md", "mod:Some Mod"], capsys)
    assert code == 1
    assert [d["address"] for d in json.loads(out)["results"]] == ["root:repo/repo/notes.md", None]
    # the user configuration is; its max_tokens applies per process run
    user = no_user_config / "pathgate" / "config.toml"
    user.parent.mkdir()
    user.write_text(cfg.read_text().replace('"repo"', f'"{tree / "repo"}"').replace(
        '"mods/Some Mod"', f'"{tree / "mods" / "Some Mod"}"'))
    code, out, _ = run(["--json", "resolve", "mod:Some Mod/common/x.txt"], capsys)
    assert code == 0 and json.loads(out)["results"][0]["address"] == "mod:Some Mod/common/x.txt"
    # each result gives its token back once printed (issue 34): more
    # resolutions than max_tokens in one run never reach the capacity
    code, out, _ = run(["--json", "resolve", *["root:repo/notes.md"] * 6], capsys)
    assert code == 0
    assert [d["ok"] for d in json.loads(out)["results"]] == [True] * 6
    # read_only from the file: the mod is never written
    code, _, err = run(["write", "mod:Some Mod/common/x.txt"], capsys, stdin="x", monkeypatch=monkeypatch)
    assert code == 1 and "Permission denied" in err
    assert (tree / "mods" / "Some Mod" / "common" / "x.txt").read_text() == "brave mod\n"


def test_read_only_flag(tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("repo", "root:repo"):
        code, _, err = run([*flags(tree), "--read-only", name, "write", "root:repo/notes.md"], capsys,
                           stdin="x", monkeypatch=monkeypatch)
        assert code == 1 and "Permission denied: 'root:repo/notes.md'" in err
        code, _, err = run([*flags(tree), "--read-only", name, "delete", "root:repo/notes.md"], capsys)
        assert code == 1 and "Permission denied" in err
    assert (tree / "repo" / "notes.md").read_text() == "alpha\nbeta\ngamma\n"
    code, _, err = run([*flags(tree), "--read-only", "gmae", "ls"], capsys)
    assert code == 2 and "read_only" in err


def test_default_root_is_current_directory(tree: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "repo")
    code, out, _ = run(["--json", "resolve", "root:repo/notes.md", "common"], capsys)
    assert code == 0
    assert [d["address"] for d in json.loads(out)["results"]] == ["root:repo/notes.md", "root:repo/common"]


@pytest.mark.parametrize("argv, fragment", [
    (["--root", "nodir", "resolve", "x"], "--root expects NAME=DIR"),
    (["--root", "Bad=/tmp", "resolve", "x"], "root key"),
    (["--max-tokens", "0", "resolve", "x"], "--max-tokens"),
])
def test_usage_errors_exit_2(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert fragment in err
    assert "/tmp" not in err
    code, out, err = run(["--json", *argv], capsys)
    assert code == 2 and fragment in err
    data = json.loads(out)
    assert data["ok"] is False and fragment in data["error"] and data["kind"] in ("usage", "config")


def test_config_errors_name_the_operators_file(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {"bad.toml": ("[roots\n", "not valid TOML"),
             "unknown.toml": ('readonly = ["x"]\n', "unknown key 'readonly'"),
             "ro.toml": ('read_only = "repo"\n[roots]\nrepo = "repo"\n', "read_only must be a list"),
             "empty.toml": ("", "no root or mod configured"),
             "missing-dir.toml": ('[roots]\nrepo = "nowhere"\n', "root 'repo'")}
    for name, (text, fragment) in cases.items():
        cfg = tree / name
        cfg.write_text(text)
        code, out, err = run(["--config", str(cfg), "resolve", "x"], capsys)
        assert code == 2 and fragment in err, (name, err)
        assert f"config {cfg}:" in err, err
        code, out, err = run(["--json", "--config", str(cfg), "resolve", "x"], capsys)
        assert json.loads(out)["kind"] == "config"
    code, _, err = run(["--config", str(tree / "absent.toml"), "ls"], capsys)
    assert code == 2 and f"config {tree / 'absent.toml'}: file not found" in err
    # the operator's own directory is named: the operator is not the agent
    code, _, err = run(["--root", f"repo={tree / 'missing'}", "resolve", "root:repo"], capsys)
    assert code == 2 and f"root 'repo': the directory {tree / 'missing'} does not exist" in err
    code, _, err = run(["--mod", f"M={tree / 'outside.txt'}", "ls"], capsys)
    assert code == 2 and f"mod 'M': {tree / 'outside.txt'} is not a directory" in err
    (tree / "nodir.toml").write_text('[roots]\nrepo = "nowhere"\n')
    code, _, err = run(["--config", str(tree / "nodir.toml"), "ls"], capsys)
    assert code == 2 and f"config {tree / 'nodir.toml'}: root 'repo': the directory {tree / 'nowhere'}" in err


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
    data = json.loads(out)
    assert data["ok"] is True and data["path"] == "root:repo"
    entries = data["entries"]
    assert [e["path"] for e in entries] == paths
    assert entries[1]["is_dir"] is False and entries[1]["size"] == len("alpha\nbeta\ngamma\n")
    assert_no_host_path(out, tree)


def test_read_window_plain_and_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([*flags(tree), "read", "root:repo/notes.md", "--offset", "1", "--limit", "1"], capsys)
    assert code == 0
    assert "beta" in out and "alpha" not in out and "gamma" not in out
    code, out, _ = run([*flags(tree), "--json", "read", "root:repo/notes.md"], capsys)
    data = json.loads(out)
    assert data == {"ok": True, "path": "root:repo/notes.md", "encoding": "utf-8",
                    "content": "alpha\nbeta\ngamma\n", "window": None}
    code, out, _ = run([*flags(tree), "--json", "read", "root:repo/notes.md", "--offset", "1"], capsys)
    data = json.loads(out)
    assert data["content"] == "beta\ngamma"
    assert data["window"] == {"start_line": 2, "end_line": 3, "total_lines": 3, "next_offset": None}


def test_grep_and_glob(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([*flags(tree), "grep", "brave"], capsys)
    assert (code, out) == (0, "root:repo/common/traits/00_traits.txt:1:brave = yes\n")
    code, out, _ = run([*flags(tree), "--json", "grep", "brave", "mod:Some Mod"], capsys)
    data = json.loads(out)
    assert data == {"ok": True, "truncated": False,
                    "matches": [{"path": "mod:Some Mod/common/x.txt", "line": 1, "text": "brave mod"}]}
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
        assert code == (2 if argv[0] == "grep" else 1), argv
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
