"""Commands that behave as they do on the host (issue 34, items 4, 5, 11-15):
through Backend.execute and pathgate.execute, the door where each was found.

Each test fails on the code before the change: `ls /` was denied, there was
no /dev/ptmx, git refused a read-only root's repository ("dubious
ownership"), /proc held nothing readable, and a result never said which
limit killed the command, that a command was not in the view, or that the
network was off."""

import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

import pathgate
from pathgate import Backend

confined = pytest.mark.skipif(pathgate.landlock_abi() < 1, reason="no Landlock on this kernel")


@pytest.fixture
def backend(resolver):
    return Backend(resolver)


def _no_host_path(res, tree):
    for key in ("tmp", "repo", "game", "mod", "outside"):
        assert str(tree[key]) not in res.output


# ------------------------------------------------------------ 12. ls /


@confined
def test_ls_root_lists_the_view_and_proc_files_stay_refused(backend, tree):
    res = backend.execute("ls /; /usr/bin/python3 -c 'import os; print(sorted(os.listdir(\"/\")))'")
    assert res.exit_code == 0, res.output
    names = res.output.splitlines()
    for name in ("pathgate", "usr", "etc", "tmp", "proc", "root:repo"):
        assert name in names
    assert "'pathgate'" in res.output
    # /proc's directories may be listed, its process files stay refused
    res = backend.execute("ls /proc >/dev/null && echo listed; cat /proc/self/mountinfo; "
                          "cat /proc/1/status; cat /proc/self/environ; echo end")
    assert "listed\n" in res.output
    assert res.output.count("Permission denied") == 3, res.output
    _no_host_path(res, tree)


# ---------------------------------------------------------------- 11. pty


@confined
def test_a_command_has_its_own_ptys(backend):
    res = backend.execute(
        "/usr/bin/python3 -c 'import os, pty\n"
        "m, s = os.openpty(); print(os.ttyname(s), os.isatty(s))\n"
        "os.write(m, b\"ping\\n\"); print(os.read(s, 5))'; ls /dev/pts; readlink /dev/ptmx")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("/dev/pts/0 True\nb'ping\\n'\n"), res.output
    assert "ptmx\n" in res.output and res.output.endswith("pts/ptmx\n")
    if shutil.which("script"):
        res = backend.execute("script -qec 'tty' /dev/null")
        assert res.exit_code == 0 and "/dev/pts/" in res.output, res.output


@confined
def test_ptys_are_not_shared_between_commands(resolver):
    """Each command mounts its own devpts: another command's terminal is
    not in its /dev/pts."""
    import threading

    b = Backend(resolver)
    first = {}
    t = threading.Thread(target=lambda: first.setdefault("r", b.execute(
        "/usr/bin/python3 -c 'import os, time; m, s = os.openpty(); time.sleep(2)'")))
    t.start()
    try:
        res = b.execute("sleep 0.5; ls /dev/pts")
        assert res.output == "ptmx\n", res.output
    finally:
        t.join()


# ------------------------------------------------------- 13. git, read-only


@confined
@pytest.mark.skipif(shutil.which("git") is None, reason="SKIPPED: git is not installed")
def test_git_reads_a_repository_of_a_read_only_root(tree):
    repo = tree["game"] / "mods" / "proj"
    repo.mkdir(parents=True)
    (repo / "a.txt").write_text("a\n")
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@x", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": str(tree["tmp"])}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    r = pathgate.Resolver(roots={"repo": tree["repo"], "game": tree["game"]}, read_only=["game"])
    res = pathgate.execute(r, "cd /pathgate/root/game/mods/proj && git status --short && "
                              "git log --format=%s && git diff HEAD --stat && "
                              "git clone -q . /tmp/c && git -C /tmp/c log --format=%s")
    assert res.exit_code == 0, res.output
    assert res.output == "first\nfirst\n"


# ---------------------------------------------------------- 14. /proc


@confined
def test_system_information_is_readable(backend, tree):
    res = backend.execute("for f in cpuinfo meminfo stat loadavg uptime; do "
                          "test -s /proc/$f && echo $f; done; free -b | head -n 1; "
                          "uptime >/dev/null && echo uptime-ok")
    assert res.exit_code == 0, res.output
    assert res.output.startswith("cpuinfo\nmeminfo\nstat\nloadavg\nuptime\n"), res.output
    assert "total" in res.output and "uptime-ok" in res.output
    _no_host_path(res, tree)
    if shutil.which("node"):
        res = backend.execute("node -e 'console.log(require(\"os\").cpus().length)'")
        assert res.exit_code == 0 and int(res.output) == os.cpu_count(), res.output


@confined
def test_a_refused_proc_file_is_explained(backend):
    res = backend.execute("cat /proc/self/status")
    assert res.exit_code == 1
    assert "pathgate: a command's /proc holds only cpuinfo" in res.output


@confined
@pytest.mark.skipif(shutil.which("ps") is None or shutil.which("top") is None,
                    reason="needs procps (ps, top)")
def test_ps_and_top_fail_at_once_and_say_why(backend):
    """ps and top (a known gap: /proc's process files stay refused) fail
    at once with the note, even where a pipeline hides their status."""
    for cmd, code in (("ps -o comm= -p $$", 47), ("top -bn1 | head -n 3", 0)):
        res = backend.execute(cmd)
        assert res.exit_code == code, res.output
        assert "pathgate: a command's /proc holds only cpuinfo" in res.output, cmd


# ----------------------------------------------------------- 15. limits


@confined
def test_the_file_size_limit_that_killed_is_named(resolver):
    res = pathgate.execute(resolver, "truncate -s 2G big")
    assert res.exit_code == 153
    assert ("pathgate: killed by SIGXFSZ (exit 153): a file reached the file-size limit, "
            "max_file_size = 1 GiB; raise it with the max_file_size option") in res.output
    res = pathgate.execute(resolver, "rm -f big; head -c 10000 /dev/zero > small",
                           max_file_size=4096)
    assert res.exit_code == 153 and "max_file_size = 4096 bytes" in res.output, res.output


@confined
def test_the_cpu_limit_that_killed_is_named(resolver):
    res = pathgate.execute(resolver, "/usr/bin/python3 -c 'while True: pass'",
                           max_cpu_seconds=1, timeout=60)
    assert res.exit_code == 152, res.output  # SIGXCPU first (the hard limit is 1 s later)
    assert "max_cpu_seconds = 1; raise it with the max_cpu_seconds option" in res.output
    # a process that ignores SIGXCPU is killed at the hard limit
    res = pathgate.execute(resolver, "/usr/bin/python3 -c 'import signal\n"
                           "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True: pass'",
                           max_cpu_seconds=1, timeout=60)
    assert res.exit_code == 137 and not res.timed_out


def test_a_timeout_adds_no_line(backend):
    """A timeout is the result's timed_out (every door reports it)."""
    res = backend.execute("sleep 5", timeout=1)
    assert res.timed_out and res.exit_code == 124 and res.output == ""


# ------------------------------------------------ 4. command not found


@confined
def test_a_command_not_found_says_what_the_view_holds(backend):
    res = backend.execute("python -m pytest")
    assert res.exit_code == 127
    assert "pathgate: a command was not found. The view holds the host's /usr" in res.output
    assert "python3 -m venv .venv" in res.output
    # nothing added to a command that found what it ran
    assert backend.execute("exit 127").output == ""


# ----------------------------------------------------------- 5. network


@confined
def test_the_network_off_fails_fast_and_says_so(backend, resolver):
    res = backend.execute("getent hosts example.com || echo 'example.com: Temporary failure in "
                          "name resolution' >&2; exit 2")
    assert "pathgate: the network is off for commands" in res.output
    assert "allow_domains=[...]" in res.output
    # npm and pip are told not to retry a name that cannot resolve ...
    env = backend.execute("env").output.splitlines()
    assert "npm_config_fetch_retries=0" in env and "PIP_RETRIES=0" in env
    # ... unless the caller says otherwise
    env = pathgate.execute(resolver, "env", env={"PIP_RETRIES": "3"}).output.splitlines()
    assert "PIP_RETRIES=3" in env and "PIP_RETRIES=0" not in env
    # a command that does not use the network gets no note
    assert backend.execute("echo fine").output == "fine\n"


@confined
@pytest.mark.skipif(shutil.which("curl") is None, reason="SKIPPED: curl is not installed")
def test_the_allowlist_refusals_are_in_the_result(resolver):
    res = pathgate.execute(resolver, "curl -sS https://not-listed.example.org/ -o /dev/null; "
                           "curl -sS http://other.example.net/x -o /dev/null",
                           allow_domains=["example.com"])
    assert "CONNECT tunnel failed, response 403" in res.output, res.output
    assert ("pathgate: the network allowlist refused: not-listed.example.org:443 (not_listed), "
            "other.example.net:80 (not_listed); only the hosts of allow_domains are "
            "reachable") in res.output
    env = pathgate.execute(resolver, "env", allow_domains=["example.com"]).output
    assert "npm_config_fetch_retries" not in env


@confined
def test_a_venv_shown_as_a_read_only_root_runs(tree):
    """docs/exec.md "Toolchains of the host": a host venv configured as a
    read-only root, its bin first in PATH."""
    venv = tree["tmp"] / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    r = pathgate.Resolver(roots={"repo": tree["repo"], "venv": venv}, read_only=["venv"])
    res = pathgate.execute(r, "python -c 'import sys; print(sys.prefix)'; touch "
                              "/pathgate/root/venv/x 2>/dev/null || echo read-only",
                           env={"PATH": "/pathgate/root/venv/bin:/usr/bin:/bin"})
    assert res.output == "/pathgate/root/venv\nread-only\n", res.output


# ------------------------------------------ 4. toolchains of the host


def _venv(parent):
    venv = parent / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    return venv


@confined
def test_a_host_venv_at_the_default_place_runs_and_hides_its_path(tree, backend):
    """toolchains=[venv]: read-only at /pathgate/tool/venv, its bin first
    in PATH; `python -m pytest` works and nothing names the host path."""
    venv = _venv(tree["tmp"])
    backend.configure_execute(toolchains=[venv])
    res = backend.execute(
        "python -m pytest --version; python -c 'import sys; print(sys.prefix)'; "
        "cd /pathgate/tool/venv && pwd -P; readlink -f bin; echo $PATH; "
        "touch /pathgate/tool/venv/x 2>/dev/null || echo read-only")
    assert res.exit_code == 0, res.output
    assert "pytest " in res.output
    lines = res.output.splitlines()
    assert lines[-5:] == ["/pathgate/tool/venv", "/pathgate/tool/venv", "/pathgate/tool/venv/bin",
                          "/pathgate/tool/venv/bin:/usr/local/bin:/usr/bin:/bin", "read-only"], lines
    assert str(venv) not in res.output and str(tree["tmp"]) not in res.output
    assert not (venv / "x").exists()


@confined
def test_a_host_venv_at_its_host_path_runs_pytest(resolver, tree):
    """toolchains_at_host_path=True: the operator's choice shows the venv
    where it is on the host, so its absolute paths work; never writable.
    /tmp is the view's own: the venv is made beneath the working
    directory."""
    try:
        parent = pathlib.Path(tempfile.mkdtemp(prefix="pathgate-venv-", dir=os.getcwd()))
    except OSError:
        pytest.skip("SKIPPED: the working directory is not writable")
    if str(parent).startswith("/tmp/"):
        shutil.rmtree(parent)
        pytest.skip("SKIPPED: the working directory lies in /tmp, the view's own")
    try:
        venv = _venv(parent)
        res = pathgate.execute(
            resolver, "python -m pytest --version && python -c 'import sys; print(sys.prefix)' && "
                      f"cd {venv} && pwd -P; (echo x > {venv}/new) 2>/dev/null || echo read-only; "
                      "ls /pathgate",
            toolchains=[str(venv)], toolchains_at_host_path=True)
        assert res.exit_code == 0, res.output
        assert "pytest " in res.output
        assert f"\n{venv}\n{venv}\nread-only\n" in res.output, res.output
        assert "tool" not in res.output.splitlines()
        assert not (venv / "new").exists()
    finally:
        shutil.rmtree(parent)


@confined
def test_toolchains_are_checked_when_configured(backend, tree):
    """/, a home and an ancestor of one, what is not a directory: refused at
    configure_execute, naming the entry's index, never its path."""
    home = os.path.expanduser("~")
    for bad in (["/"], [home], [str(tree["tmp"] / "none")], ["relative"]):
        with pytest.raises(pathgate.Error) as exc:
            backend.configure_execute(toolchains=bad)
        assert exc.value.kind == "invalid_argument"
        assert "toolchains[0]" in str(exc.value)
        assert home not in str(exc.value) and str(tree["tmp"]) not in str(exc.value)
    with pytest.raises(TypeError):
        backend.configure_execute(toolchains="/usr")
    # the host's /tmp is the view's own: not at its host path
    with pytest.raises(pathgate.Error, match="view's own entries"):
        backend.configure_execute(toolchains=["/usr/lib"], toolchains_at_host_path=True)
    # and through pathgate.execute, before anything runs
    with pytest.raises(pathgate.Error, match="filesystem root"):
        pathgate.execute(backend._owner, "touch ran", toolchains=["/"])
    assert not (tree["repo"] / "ran").exists()
