"""setup.py refuses Windows with one clear message (docs/windows.md): no
untested .pyd is ever built there. PATHGATE_PRETEND_WINDOWS=1 takes the
Windows branch on any host."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(os.environ.get("PATHGATE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


def _run(pretend):
    env = dict(os.environ, PATHGATE_PRETEND_WINDOWS="1" if pretend else "0")
    return subprocess.run([sys.executable, str(ROOT / "setup.py"), "--version"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_windows_build_stops_with_a_clear_message():
    r = _run(True)
    assert r.returncode != 0
    assert "does not support Windows yet" in r.stderr
    assert "Lua module" in r.stderr
    assert r.stdout == ""


def test_other_hosts_are_not_refused():
    r = _run(False)
    assert r.returncode == 0, r.stderr
    assert "Windows" not in r.stderr
