"""The man page and bash completion are generated from the command's help
(scripts/gen_cli_docs.py) and checked in: they must be current, the man
page must render cleanly, and the completion must complete."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

SOURCE = Path(os.environ.get("PATHGATE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
# man, troff and bash are not ours: never run them with the sanitizer runtime preloaded.
PLAIN_ENV = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", SOURCE / "scripts" / "gen_cli_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_in_files_are_current() -> None:
    gen = generator()
    assert (SOURCE / "docs" / "pathgate.1").read_text() == gen.render_man(), \
        "docs/pathgate.1 is stale: run scripts/gen_cli_docs.py"
    assert (SOURCE / "docs" / "pathgate.bash").read_text() == gen.render_bash(), \
        "docs/pathgate.bash is stale: run scripts/gen_cli_docs.py"


def test_man_page_documents_every_subcommand_and_option() -> None:
    page = (SOURCE / "docs" / "pathgate.1").read_text()
    for word in ("resolve", "uri", "native", "ls", "read", "grep", "glob", "write", "edit", "delete", "execute"):
        assert f".SS {word}\n" in page
    for option in ("read\\-only", "config", "cwd", "json", "version", "replace\\-all", "offset", "timeout"):
        assert f"\\fB\\-\\-{option}\\fR" in page


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_man_page_renders_without_warnings() -> None:
    proc = subprocess.run(["man", "--warnings", "-l", str(SOURCE / "docs" / "pathgate.1")],
                          capture_output=True, text=True, env={**PLAIN_ENV, "MANWIDTH": "80"},
                          timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "EXIT STATUS" in proc.stdout and "pathgate.toml" not in proc.stdout.split("FILES")[-1]


def complete(line: str) -> list[str]:
    script = (f'source "{SOURCE / "docs" / "pathgate.bash"}"\n'
              f"line={line!r}\n"
              'read -ra COMP_WORDS <<<"$line"\n'
              '[[ "$line" == *" " ]] && COMP_WORDS+=("")\n'
              "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
              "_pathgate\n"
              'printf "%s\\n" "${COMPREPLY[@]}"\n')
    proc = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, text=True, env=PLAIN_ENV,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [w for w in proc.stdout.split("\n") if w]


def test_bash_completion_completes() -> None:
    assert complete("pathgate re") == ["resolve", "read"]
    assert complete("pathgate --root repo=. e") == ["edit", "execute"]
    assert complete("pathgate --json read --o") == ["--offset"]
    assert complete("pathgate edit --re") == ["--replace-all", "--read-only"]
    assert complete("pathgate native --convention ") == ["posix", "windows"]
    assert complete("pathgate --cwd ") == []
