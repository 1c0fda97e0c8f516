"""Commands are optional: exec_capabilities() says what this build's
commands get; a build without them (-DPATHGATE_OS=posix) raises
pathgate.Error (kind "unsupported", the one message) for every execute and
runs nothing, even with allow_unconfined. Runs in every build."""

import os

import pytest

import pathgate

MESSAGE = ("commands are not supported by this build of pathgate "
           "(no contained sandbox for this OS); nothing was run")


def test_capabilities_match_the_build():
    caps = pathgate.exec_capabilities()
    assert isinstance(caps, frozenset)
    assert caps <= set(pathgate.sandbox.PROTECTIONS)
    if os.environ.get("PATHGATE_OS_BACKEND", "linux") == "linux":
        assert {"seccomp", "namespaces"} <= caps
        assert ("landlock" in caps) == (pathgate.landlock_abi() >= 1)
    else:
        assert caps == frozenset()
        assert pathgate.landlock_abi() == 0


def test_without_commands_nothing_runs(tmp_path):
    if pathgate.exec_capabilities():
        pytest.skip("this build has commands (test_execute.py covers them)")
    repo = tmp_path / "repo"
    repo.mkdir()
    r = pathgate.Resolver(roots={"repo": str(repo)})
    for target in (r, pathgate.Session(r)):
        with pytest.raises(pathgate.Error) as info:
            pathgate.execute(target, "touch marker", allow_unconfined=True)
        assert info.value.kind == "unsupported"
        assert MESSAGE in str(info.value)
    assert not (repo / "marker").exists()
