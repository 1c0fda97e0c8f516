"""deepagents' own FilesystemBackend suites, run against PathgateBackend.

The plugin (pathgate_deepagents_plugin.py) substitutes PathgateBackend
wherever those tests build FilesystemBackend(root_dir=X, virtual_mode=True)
and lists every excluded test with its reason. Every other substituted test
must pass.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON, THIRD_PARTY, third_party_env

if not HAVE_THIRD_PARTY:
    pytest.skip(SKIP_REASON, allow_module_level=True)

SUITES = [
    "test_filesystem_backend.py",
    "test_filesystem_backend_async.py",
    "test_glob_semantics.py",
    "test_composite_backend.py",
    "test_composite_backend_async.py",
]
SUMMARY = re.compile(
    r"pathgate-deepagents \[PathgateBackend\]: (\d+)/(\d+) substituted tests passed, (\d+) failed, "
    r"(\d+) excluded")


def test_deepagents_backend_suites_pass_against_pathgate(tmp_path):
    backends = THIRD_PARTY / "deepagents" / "tests" / "unit_tests" / "backends"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "pathgate_deepagents_plugin",
           "-o", "cache_dir=" + str(tmp_path), *[str(backends / s) for s in SUITES]]
    proc = subprocess.run(cmd, cwd=tmp_path, env=third_party_env(), capture_output=True, text=True,
                          timeout=600)
    out = proc.stdout + proc.stderr
    m = SUMMARY.search(out)
    assert m, out[-4000:]
    passed, total, failed, excluded = map(int, m.groups())
    print(m.group(0))
    assert failed == 0 and proc.returncode == 0, out[-6000:]
    # the suites are pinned: if far fewer tests are substituted, the plugin
    # has stopped reaching them
    assert passed == total and total >= 120, m.group(0)
    assert excluded <= 80, m.group(0)
