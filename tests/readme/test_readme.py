"""README.md cannot rot: every block marked ``runnable`` runs and succeeds,
every ``install`` block installs what it says, the error table lists exactly
the core's codes, and the main-job demo works.

Runnable blocks run from the repository root, as a reader would run them,
with the documented ``build/`` replaced by the build tree under test and
nothing else added: the Python block runs exactly as the README says to run
it. Install blocks run in a scratch copy of the repository with ``HOME`` set
to a scratch directory, so they install nothing outside the test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("PATHGATE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY = Path(os.environ.get("PATHGATE_BINARY_DIR", SOURCE / "build"))
README = (SOURCE / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+) runnable\n(.*?)^```", re.S | re.M)
BLOCKS = [(m.group(1), m.group(2), README.count("\n", 0, m.start()) + 1) for m in BLOCK.finditer(README)]
INSTALL = re.compile(r"^```sh install\n(.*?)^```", re.S | re.M)
INSTALLS = [(m.group(1), README.count("\n", 0, m.start()) + 1) for m in INSTALL.finditer(README)]
# How the README says to run the Python quick start from the repository root.
PYTHON_RUN = "PYTHONPATH=build/python python3 quickstart.py"


def with_build_dir(code: str) -> str:
    # The README speaks of the default build directory `build/`.
    return re.sub(r'(?<![\w/.-])build/', f"{BINARY}/", code)


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(cmd, cwd=SOURCE, env=env, capture_output=True, text=True, timeout=120, **kwargs)  # type: ignore[call-overload]


def test_readme_has_runnable_blocks_for_every_front_end() -> None:
    assert sorted({lang for lang, _, _ in BLOCKS}) == ["c", "lua", "python", "sh"]


@pytest.mark.parametrize("lang, code, line", BLOCKS, ids=[f"{lang}-line{line}" for lang, _, line in BLOCKS])
def test_runnable_block(lang: str, code: str, line: int, tmp_path: Path) -> None:
    code = with_build_dir(code)
    if lang == "sh":
        proc = run(["bash", "-euo", "pipefail", "-c", code])
    elif lang == "python":
        assert f"`{PYTHON_RUN}`" in README
        (tmp_path / "quickstart.py").write_text(code)
        proc = run(["bash", "-c", with_build_dir(PYTHON_RUN).replace("quickstart.py", str(tmp_path / "quickstart.py"))])
    elif lang == "lua":
        proc = run(["lua5.4", "-e", code])
    elif lang == "c":
        src = tmp_path / "quickstart.c"
        src.write_text(code)
        exe = tmp_path / "quickstart"
        cc = os.environ.get("CC") or shutil.which("cc") or "cc"
        build = run([cc, str(src), f"-I{SOURCE / 'core/include'}", f"-L{BINARY}", "-lpathgate",
                     f"-Wl,-rpath,{BINARY}", "-Wall", "-Wextra", "-Werror", "-o", str(exe)])
        assert build.returncode == 0, build.stderr
        proc = run([str(exe)])
    else:  # pragma: no cover
        pytest.fail(f"no runner for {lang}")
    assert proc.returncode == 0, f"README line {line} ({lang}) failed:\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr


def test_c_quickstart_output_is_what_the_readme_promises(tmp_path: Path) -> None:
    code = next(c for lang, c, _ in BLOCKS if lang == "c")
    src = tmp_path / "q.c"
    src.write_text(code)
    cc = os.environ.get("CC") or "cc"
    assert run([cc, str(src), f"-I{SOURCE / 'core/include'}", f"-L{BINARY}", "-lpathgate",
                f"-Wl,-rpath,{BINARY}", "-o", str(tmp_path / "q")]).returncode == 0
    out = run([str(tmp_path / "q")]).stdout
    assert "ROOT_REPO:/docs/../README.md -> root:repo/README.md (ok)" in out
    assert "root:repo/../../etc/passwd -> Invalid path / not found (escapes_root)" in out


def test_error_table_lists_every_core_code() -> None:
    header = (SOURCE / "core/include/pathgate/common.h").read_text()
    codes = re.findall(r'X\((E[A-Z0-9]+), (-\d+), "([a-z_0-9]+)"', header)
    assert len(codes) >= 30
    rows = re.findall(r"^\| `PATHGATE_(E[A-Z0-9]+)` \| (-\d+) \| `([a-z_0-9]+)` \|", README, re.M)
    assert rows == codes


def test_main_job_demo_runs_on_the_embedded_default() -> None:
    proc = subprocess.run(["bash", "scripts/demo.sh"], cwd=SOURCE, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PATHGATE_BUILD_DIR=str(BINARY)))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for expected in ("root:repo/README.md", "root:repo/core/include/pathgate/pathgate.h",
                     "root:repo/docs/design.md", "root:repo/scripts/demo.sh",
                     "file:///C:/Users/modder/Documents/Paradox%20Interactive/",
                     "file://fileserver/mods/Some%20Mod/descriptor.mod",
                     "\\\\fileserver\\mods\\Some Mod\\descriptor.mod"):
        assert expected in out, expected
    assert "(exit status 1)" in out  # the escape attempt is refused
    # The demo passes host paths in, but prints only canonical addresses back.
    assert str(SOURCE.resolve()) not in out.replace(f"file://{SOURCE}", "").replace(str(SOURCE) + "/docs", "")


def _scratch_copy(dst: Path) -> None:
    """The repository's files as a clone has them (no build trees)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=SOURCE, capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        for name in listed.stdout.decode().split("\0"):
            if name and (SOURCE / name).is_file():
                (dst / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(SOURCE / name, dst / name)
    else:
        shutil.copytree(SOURCE, dst, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("build*", ".git", ".venv", "node_modules", "__pycache__"))


def test_readme_has_an_install_block_per_ecosystem() -> None:
    joined = "\n".join(code for code, _ in INSTALLS)
    assert "pip" in joined and "luarocks" in joined and "pkg-config" in joined


@pytest.mark.parametrize("code, line", INSTALLS, ids=[f"install-line{line}" for _, line in INSTALLS])
def test_install_block(code: str, line: int, tmp_path: Path) -> None:
    tree, home = tmp_path / "tree", tmp_path / "home"
    tree.mkdir()
    home.mkdir()
    _scratch_copy(tree)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HOME"] = str(home)
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"README line {line} (install) failed:\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr


# README's "Quick start: with deepagents" (the ```python deepagents block): run from the
# repository root like the Python quick start, with the pinned copy of deepagents
# (../shared/third_party, as in CI) on PYTHONPATH in place of `pip install deepagents`;
# skipped, saying why, where that copy is absent.
import sys  # noqa: E402

DEEPAGENTS_BLOCKS = re.findall(r"^```python deepagents\n(.*?)^```", README, re.S | re.M)
THIRD_PARTY = Path(os.environ.get("PATHGATE_THIRD_PARTY", SOURCE.parent / "shared" / "third_party"))


def test_deepagents_quick_start(tmp_path: Path) -> None:
    assert "## Quick start: with deepagents" in README and len(DEEPAGENTS_BLOCKS) == 1
    if not (THIRD_PARTY / "deepagents" / "deepagents" / "__init__.py").is_file():
        pytest.skip(f"deepagents' pinned copy not found at {THIRD_PARTY} (set PATHGATE_THIRD_PARTY)")
    script = tmp_path / "agent_quickstart.py"
    script.write_text(DEEPAGENTS_BLOCKS[0])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(THIRD_PARTY / d) for d in ("python-stubs", "python", "deepagents")] + [str(BINARY / "python")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # the interpreter running this test: deepagents needs packages (packaging, typing_extensions)
    # that a bare python3 may lack
    proc = subprocess.run([sys.executable, str(script)], cwd=SOURCE, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "'# pathgate\\n'"
    assert lines[1].startswith("/root:docs/") and lines[1].endswith(" None")
    assert lines[2] == "None"
    assert lines[3].startswith("permission_denied ")
    assert lines[4] == "Cannot list '/root:repo/../..': Invalid path / not found"
    assert lines[5] in ("0", "None")
    assert str(SOURCE) not in proc.stdout
