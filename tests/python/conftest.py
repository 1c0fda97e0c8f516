"""Shared fixtures and the hypothesis profiles of the Python suite.

CI=true (or 1/yes) selects the deterministic "ci" profile (derandomize=True,
database=None) so that a CI run is reproducible; otherwise "dev" (random,
with the example database). Deadlines are off: the same tests run under
AddressSanitizer, where timing means nothing.
"""

import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(
    "ci" if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes") else "dev"
)

DATA_DIR = pathlib.Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def tree(tmp_path):
    """Two roots and a mod with a few files, plus a file outside them all.

    Returns a dict with the host directories (for assertions that the host
    path never leaks) and the outside file.
    """
    repo = tmp_path / "repo"
    game = tmp_path / "game"
    mod = tmp_path / "mods" / "Some Mod"
    outside = tmp_path / "outside"
    for d in (repo / "common" / "traits", repo / "docs", game / "common", mod / "common", outside):
        d.mkdir(parents=True)
    (repo / "common" / "traits" / "00_traits.txt").write_text("traits\n")
    (repo / "README.md").write_text("readme\n")
    (game / "common" / "x.txt").write_text("x\n")
    (mod / "common" / "m.txt").write_text("m\n")
    (outside / "secret.txt").write_text("secret\n")
    (repo / "escape").symlink_to(outside)
    (repo / "inner").symlink_to("docs")  # relative: stays inside
    return {"tmp": tmp_path, "repo": repo, "game": game, "mod": mod, "outside": outside}


@pytest.fixture
def resolver(tree):
    import pathgate

    return pathgate.Resolver(
        roots={"repo": tree["repo"], "game": str(tree["game"])},
        mods={"Some Mod": tree["mod"]},
    )


def mcp_stdio(argv, requests, *, env=None, timeout=120):
    """Runs ``python -m pathgate <argv>`` (a ``pathgate mcp`` command line),
    sends the JSON-RPC requests, reads one answer per request that has an
    id, and only then closes its input: the end of input starts the
    server's shutdown, which kills the commands still running (docs/mcp.md,
    "Shutdown"), so a test that closed it at once would race its own
    ``execute`` calls. The answers by id."""
    import json
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-m", "pathgate", *argv], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(b"".join(json.dumps(x).encode() + b"\n" for x in requests))
        p.stdin.flush()
        answers = {}
        while len(answers) < sum("id" in x for x in requests):
            line = p.stdout.readline()
            assert line, "pathgate mcp ended before answering"
            msg = json.loads(line)
            if "id" in msg:
                answers[msg["id"]] = msg
        p.stdin.close()
        assert p.wait(timeout) == 0
        return answers
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


# The OS backend this build was made with (tests/python/CMakeLists.txt
# exports it). A build without commands (-DPATHGATE_OS=posix) skips, by
# name, the modules that run commands; POSIX_SKIPS lists the single tests
# that need what POSIX lacks (docs/os.md says why for each).
OS_BACKEND = os.environ.get("PATHGATE_OS_BACKEND", "linux")
NEEDS_COMMANDS = ("test_execute.py", "test_execute_net.py", "test_exec_findings.py",
                  "test_exec_planted.py", "test_execute_host.py",
                  "test_exec_policy.py", "test_cli_execute_applies_the_preset",
                  # single tests of other modules that run a command
                  "test_a_command_cannot_leave_a_pointer_behind",
                  "test_hook_managers_files_are_protected", "test_everyday_git_inside_execute",
                  "test_git_config_refusal_names_the_preset_and_the_file",
                  "test_history_preset_hides_objects",
                  "test_tracked_hidden_file_refusal_names_the_preset",
                  "test_the_hooks_directory_core_hookspath_names",
                  "test_stdio_stop_counts_no_command_when_none_runs",
                  "test_execute_description_names_the_toolchains")
POSIX_SKIPS: dict[str, str] = {}


def pytest_collection_modifyitems(config, items):
    if OS_BACKEND != "posix":
        return
    for item in items:
        name = item.nodeid.split("::")[0].rsplit("/", 1)[-1]
        if name in NEEDS_COMMANDS or getattr(item, "originalname", item.name) in NEEDS_COMMANDS:
            item.add_marker(pytest.mark.skip(
                reason=f"needs commands, which this build (PATHGATE_OS={OS_BACKEND}) has none of"))
        elif item.name in POSIX_SKIPS:
            item.add_marker(pytest.mark.skip(reason="POSIX backend: " + POSIX_SKIPS[item.name]))
