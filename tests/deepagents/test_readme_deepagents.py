"""README's "Quick start: with deepagents" block runs, from the repository
root, as the README says (the pinned deepagents copy on PYTHONPATH)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON, SOURCE, third_party_env

if not HAVE_THIRD_PARTY:
    pytest.skip(SKIP_REASON, allow_module_level=True)

README = (SOURCE / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python deepagents\n(.*?)^```", README, re.S | re.M)


def test_readme_has_the_deepagents_quick_start():
    assert "## Quick start: with deepagents" in README
    assert len(BLOCKS) == 1


def test_deepagents_quick_start_runs(tmp_path):
    script = tmp_path / "agent_quickstart.py"
    script.write_text(BLOCKS[0])
    proc = subprocess.run([sys.executable, str(script)], cwd=SOURCE, env=third_party_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "'# pathgate\\n'"
    assert lines[1].startswith("/root:docs/") and lines[1].endswith(" None")
    assert lines[2] == "None"
    assert lines[3].startswith("permission_denied ")
    assert lines[4] == "Cannot list '/root:repo/../..': Invalid path / not found"
    assert lines[5] in ("0", "None")
    assert str(SOURCE) not in proc.stdout
