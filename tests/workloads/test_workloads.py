"""Each workload inside a contained command and outside it, compared
(harness.py). Test ids are `<api>-<workload>`: `py` runs it through
pathgate.Backend.execute, `c` through pathgate_exec_run (wl_exec.c).

A workload listed in known_gaps.KNOWN_VIEW_GAPS is a strict expected
failure: it must fail with harness.ViewMismatch, and passing fails the test.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import PathMap, ViewMismatch, normalise, run_workload
from known_gaps import KNOWN_VIEW_GAPS
from workloads import BY_NAME, WORKLOADS

CALLER = "root" if os.geteuid() == 0 else "nobody"


def known_gap(name: str, caller: str = CALLER) -> str | None:
    """The documented reason `name` fails in today's view for this caller."""
    return KNOWN_VIEW_GAPS.get(f"{name}@{caller}") or KNOWN_VIEW_GAPS.get(name)


# git under the vcs, secrets and agent-config presets: the same output as
# outside (hooks, config and .gitmodules read-only; the pointers git writes
# validated when each command ends; what these workloads write stays
# writable). git_submodule writes .git/config: not here.
VCS_WORKLOADS = ("git_basics", "git_stash", "git_worktree", "git_everyday")


def _cases():
    for workload in WORKLOADS:
        apis = ("py", "c") if workload.c_api else ("py",)
        if workload.name in VCS_WORKLOADS or os.environ.get("PATHGATE_WORKLOADS_PRESETS") == "all":
            apis += ("py-vcs",)
        for api in apis:
            reason = known_gap(workload.name)
            marks = [pytest.mark.xfail(strict=True, raises=ViewMismatch,
                                       reason=f"known view gap: {reason}")] if reason else []
            yield pytest.param(api, workload, id=f"{api}-{workload.name}", marks=marks)


@pytest.mark.parametrize("api, workload", _cases())
def test_workload(api, workload, tmp_path):
    run_workload(workload, tmp_path, api, os.environ.get("PATHGATE_WORKLOADS_DRIVER"))


# ------------------------------------------------- the suite's own rules


def test_known_gaps_name_workloads_and_say_why():
    for key, reason in KNOWN_VIEW_GAPS.items():
        name, _, caller = key.partition("@")
        assert name in BY_NAME, f"KNOWN_VIEW_GAPS names no workload: {key}"
        assert caller in ("", "root", "nobody"), f"unknown caller in {key}"
        assert reason.strip(), f"KNOWN_VIEW_GAPS[{key!r}] gives no reason"


def test_docs_table_lists_every_workload():
    """docs/exec.md "## Workloads" has one row per workload, and a row says
    "pass" exactly when no gap is known for either caller."""
    doc = Path(__file__).resolve().parents[2] / "docs" / "exec.md"
    section = doc.read_text().split("\n## Workloads\n", 1)
    assert len(section) == 2, "docs/exec.md has no '## Workloads' section"
    rows = {}
    for line in section[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 3:
            rows[cells[0].strip("`")] = cells[2]
    assert sorted(rows) == sorted(BY_NAME)
    for name, status in rows.items():
        gap = known_gap(name, "root") or known_gap(name, "nobody")
        assert status.startswith("pass") == (gap is None), f"{name}: table says {status!r}"


def test_normalise_replaces_whole_paths_only():
    pairs = [("/tmp", "<HOME>"), ("/root:work", "<ROOT>"), ("/tmp/x/in/work", "<ROOT>")]
    assert normalise("cd /root:work/src; ls /tmp /tmp/a", pairs) == "cd <ROOT>/src; ls <HOME> <HOME>/a"
    assert normalise("/tmp/x/in/work/f", pairs) == "<ROOT>/f"
    assert normalise("/usr/tmp /tmpfs /tmp.x '/tmp'", pairs) == "/usr/tmp /tmpfs /tmp.x '<HOME>'"
    assert normalise("PATH=/root:work/bin:/tmp:/bin", pairs) == "PATH=<ROOT>/bin:<HOME>:/bin"
    assert normalise("file:///root:work/a.js", pairs) == "file://<ROOT>/a.js"


def test_path_map_derives_outside_twins(tmp_path):
    host_in, host_out = tmp_path / "in", tmp_path / "out"
    paths = PathMap(host_in, host_out, "/view/work", twin_dir=str(tmp_path))
    paths.add("<HOME>", "/tmp")
    paths.add("<TMP>", "/tmp")  # the same directory: one twin
    paths.add("<CACHE>", "/view/work/.cache")  # inside the root: inside its twin
    paths.add("<ROOT>", "/alias/work", str(host_out))  # a second spelling of the root
    home = paths.outside_path("/tmp")
    assert Path(home).is_dir() and Path(home).parent == tmp_path
    assert paths.outside_path("/view/work/.cache") == f"{host_out}/.cache"
    assert paths.translate("/view/work/bin:/tmp:/usr/bin") == f"{host_out}/bin:{home}:/usr/bin"
    assert paths.inside(f"/tmp/a {host_in}/b /view/work/.cache/c /alias/work/d") == (
        "<HOME>/a <ROOT>/b <CACHE>/c <ROOT>/d")
    assert paths.translate("/alias/work/x") == f"{host_out}/x"
    assert paths.outside(f"{home}/a {host_out}/b") == "<HOME>/a <ROOT>/b"
    paths.close()
    assert not Path(home).exists()
