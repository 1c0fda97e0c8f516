"""Backend.execute / aexecute / id and pathgate.execute: contained commands
(docs/spec.md section 7b) from Python, including 8 concurrent executions from
threads, each contained, and deepagents' sandbox protocol shape."""

import asyncio
import re
import dataclasses
import os
import socket
import threading
import time

import pytest

import pathgate
from pathgate import Backend, ExecuteResponse

confined = pytest.mark.skipif(pathgate.landlock_abi() < 1, reason="no Landlock on this kernel")


@pytest.fixture
def backend(resolver):
    return Backend(pathgate.Session(resolver))


def _has_arg(arg: str) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if arg.encode() in f.read().split(b"\0"):
                        return True
            except OSError:
                pass
    return False


def _no_process_with_arg(arg: str) -> bool:
    """True when no host process has `arg` as an argument, within 10 s
    (the command's pids are of its own PID namespace)."""
    for _ in range(1000):
        if not _has_arg(arg):
            return True
        time.sleep(0.01)
    return False


# ----------------------------------------------------------- protocol


def test_protocol_shape(backend, resolver):
    assert [f.name for f in dataclasses.fields(ExecuteResponse)][:3] == [
        "output", "exit_code", "truncated"]
    assert isinstance(backend.id, str) and backend.id == backend.id
    assert Backend(resolver).id != backend.id
    assert asyncio.iscoroutinefunction(Backend.aexecute)
    res = backend.execute("echo hello")
    assert res == ExecuteResponse(output="hello\n", exit_code=0, truncated=False,
                                  timed_out=False, landlock_abi=pathgate.landlock_abi(),
                                  protections=res.protections)
    assert {"seccomp", "namespaces", "rlimits"} <= res.protections
    assert asyncio.run(backend.aexecute("exit 3")).exit_code == 3


# ------------------------------------------------------------- inside


@confined
def test_cwd_is_the_sessions_directory_and_files_land_in_the_tree(resolver, tree):
    session = pathgate.Session(resolver)
    session.push("common/traits")
    b = Backend(session)
    res = b.execute("pwd -P; cat 00_traits.txt; echo made > new.txt; rm -f gone.txt")
    # the view's path (/pathgate/root/<key>), never the host's
    assert res.output == "/pathgate/root/repo/common/traits\ntraits\n"
    assert (tree["repo"] / "common" / "traits" / "new.txt").read_text() == "made\n"
    # a Resolver-backed Backend starts in the first root
    assert Backend(resolver).execute("pwd -P").output == "/pathgate/root/repo\n"
    # other bases are reachable at /pathgate/{root,mod}/..., and at the
    # address spellings /root:<key> and /mod:<Name> (symlinks to those)
    res = b.execute("cat '/mod:Some Mod/common/m.txt'; echo g > /root:game/g.txt; "
                    "cat '/pathgate/mod/Some Mod/common/m.txt'")
    assert res.output == "m\nm\n" and (tree["game"] / "g.txt").read_text() == "g\n"
    # and a path the command prints is accepted back by the file operations
    printed = b.execute("cd /root:game && pwd -P").output.strip() + "/g.txt"
    assert printed == "/pathgate/root/game/g.txt"
    got = b.read(printed)
    assert got.error is None and got.file_data is not None and "g" in str(got.file_data)


# ------------------------------------------------------------ outside


@confined
def test_escapes_fail_and_leave_the_outside_untouched(backend, tree):
    secret = tree["outside"] / "secret.txt"
    before = secret.read_bytes()
    marker = f"/tmp/pathgate-py-escape-{os.getpid()}"
    res = backend.execute(
        f"cat '{secret}'; cat escape/secret.txt; echo x > escape/new.txt; "
        f"echo y >> '{secret}'; echo z > {marker}; cd .. && echo w > up.txt; "
        f"ln '{secret}' stolen; echo end")
    assert "secret\n" not in res.output
    assert res.output.endswith("end\n")
    assert secret.read_bytes() == before
    assert not (tree["outside"] / "new.txt").exists()
    assert not os.path.exists(marker)
    assert not (tree["tmp"] / "up.txt").exists()
    assert not (tree["repo"] / "stolen").exists()


@confined
def test_tcp_connect_to_a_loopback_listener_is_denied(backend):
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        srv.setblocking(False)
        port = srv.getsockname()[1]
        res = backend.execute(
            f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'; "
            f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}))' "
            "2>/dev/null || echo py-refused")
        assert "connected" not in res.output
        assert "py-refused" in res.output
        with pytest.raises(BlockingIOError):
            srv.accept()


# ---------------------------------------------------- process lifetime


@confined
def test_timeout_kills_grandchildren(backend, tree):
    res = backend.execute("(sleep 0.6; echo late > marker) & sleep 100.0517 & echo $!; wait",
                          timeout=0.3)
    assert res.exit_code == 124 and res.timed_out
    assert _no_process_with_arg("100.0517")
    time.sleep(0.9)
    assert not (tree["repo"] / "marker").exists()


def test_exit_codes_truncation_and_early_close(backend):
    assert backend.execute("true").exit_code == 0
    assert backend.execute("false").exit_code == 1
    assert backend.execute("exit 42").exit_code == 42
    assert backend.execute("kill -TERM $$").exit_code == 128 + 15
    # orphans are reaped by the namespace's init: zombies do not pile up to
    # the process limit (a pause every 32: a loaded machine may run the
    # init late; one that did not reap would still leave 400 > 64)
    res = pathgate.execute(backend.session,
                           "i=0; while [ $i -lt 400 ]; do (true &); i=$((i+1)); "
                           "[ $((i % 32)) -eq 0 ] && sleep 0.05; done; echo alive",
                           max_processes=64)
    assert res.output == "alive\n" and res.exit_code == 0
    assert backend.execute("exec 1>&- 2>&-; sleep 0.2; exit 7").exit_code == 7
    res = pathgate.execute(backend.session, "head -c 300000 /dev/zero | tr '\\0' x",
                           output_cap=1000, allow_unconfined=True)
    assert res.output == "x" * 1000 and res.truncated and res.exit_code == 0
    # undecodable bytes are replaced, not an exception
    assert backend.execute("printf 'a\\377b'").output == "a\ufffdb"


# ------------------------------------------------------- concurrency


@confined
def test_eight_threads_each_contained(resolver, tree):
    b = Backend(resolver)
    secret = tree["outside"] / "secret.txt"
    results: dict[int, ExecuteResponse] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(i: int) -> None:
        try:
            start.wait()
            results[i] = b.execute(
                f"ls -A $HOME | wc -l > home_{i}; touch $HOME/mine; cat '{secret}' 2>/dev/null; "
                f"echo x 2>/dev/null > /tmp/pathgate-py-thread-{i}; sleep 0.2; printf t{i}; exit {i}")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(8):
        assert results[i].output == f"t{i}", results[i]
        assert results[i].exit_code == i
        assert not os.path.exists(f"/tmp/pathgate-py-thread-{i}")
        # each HOME (a private tmpfs) was empty: none saw another's
        assert (tree["repo"] / f"home_{i}").read_text().strip() == "0"


def test_the_gil_is_released_while_a_command_runs(backend):
    ticks = 0
    done = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.005)

    t = threading.Thread(target=tick)
    t.start()
    backend.configure_execute(allow_unconfined=True)
    backend.execute("sleep 0.3")
    done.set()
    t.join()
    assert ticks > 5


# -------------------------------------------------- refusals and misuse


def test_unconfined_is_refused_unless_allowed(resolver, tree):
    with pytest.raises(pathgate.Error) as info:
        pathgate.sandbox._core._execute(resolver, "echo ran > ran.txt", _test_no_landlock=True)
    assert info.value.kind == "unsupported"
    assert str(tree["tmp"]) not in str(info.value)
    assert not (tree["repo"] / "ran.txt").exists()
    out = pathgate.sandbox._core._execute(resolver, "echo ran > ran.txt", _test_no_landlock=True,
                                          allow_unconfined=True)
    assert out[1] == 0 and out[4] == 0
    assert (tree["repo"] / "ran.txt").exists()


def test_refusals_are_results_on_backend_and_errors_on_execute(backend, resolver, tree):
    with pytest.raises(pathgate.Error) as info:
        pathgate.execute(resolver, "true", cwd="root:repo/escape")
    assert info.value.kind == "invalid_path"
    assert str(info.value) == pathgate.INVALID_PATH_MESSAGE
    with pytest.raises(pathgate.Error) as info:
        pathgate.execute(resolver, "true", cwd="root:repo/README.md")
    assert info.value.kind == "not_a_directory"
    res = backend.execute("echo a\0b")
    assert res.exit_code is None and res.output.startswith("Error: ")
    assert str(tree["tmp"]) not in res.output


def test_environment(backend):
    os.environ["PATHGATE_PY_HOST_SECRET"] = "1"
    try:
        backend.configure_execute(env={"FOO": "bar"}, allow_unconfined=True)
        out = backend.execute('echo "$FOO|$LANG|${PATHGATE_PY_HOST_SECRET-unset}|$PATH"').output
    finally:
        del os.environ["PATHGATE_PY_HOST_SECRET"]
    assert out == "bar|C.UTF-8|unset|/usr/local/bin:/usr/bin:/bin\n"


def test_misuse_raises(backend, resolver):
    with pytest.raises(TypeError):
        backend.execute(b"true")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pathgate.execute(object(), "true")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        backend.execute("true", timeout=0)
    with pytest.raises(ValueError):
        pathgate.execute(resolver, "true", output_cap=0)
    with pytest.raises(TypeError):
        pathgate.execute(resolver, "true", env={"A": 1})  # type: ignore[dict-item]
    with pytest.raises(ValueError):
        pathgate.execute(resolver, "true", env={"A=B": "x"})


# ------------------------------------------- one command after another


_LEAVE_STATE = r"""
import os, socket, subprocess
for d in ("/tmp", "/dev/shm", os.environ["HOME"]):
    open(os.path.join(d, "left-behind"), "w").close()
subprocess.Popen(["sleep", "31.25"], start_new_session=True)
s = socket.socket(); s.bind(("127.0.0.1", PORT)); s.listen()
c = socket.create_connection(("127.0.0.1", PORT))
a, _ = s.accept()
a.close()  # the server side closes first: its end stays in TIME_WAIT
c.close(); s.close()
try:
    socket.socket().bind(("127.0.0.1", PORT))
except OSError as e:
    print("port busy", e.errno)
"""

_LOOK = r"""
import os, re, socket
left = [d for d in ("/tmp", "/dev/shm", os.environ["HOME"]) if os.listdir(d)]
s = socket.socket(); s.bind(("127.0.0.1", PORT))
st = os.statvfs("/tmp")
print(left, st.f_blocks * st.f_frsize)
"""


@confined
@pytest.mark.parametrize("tmp_size", [None, 32 << 20])
def test_each_command_starts_from_a_clean_view(backend, tmp_size):
    """Commands of one resolver one after another (the later ones started
    ahead of time, docs/exec.md "A command's start made ahead"): nothing of
    an earlier one is left in /tmp, /dev/shm, the home, running, or in the
    network namespace (a TCP port in TIME_WAIT is free again), and a
    changed tmp_size is the one mounted."""
    port = 40000 + os.getpid() % 20000
    assert backend.execute("true").exit_code == 0  # the next one is started ahead
    first = backend.execute(f"python3 -c '{_LEAVE_STATE.replace('PORT', str(port))}'")
    assert first.exit_code == 0, first.output
    assert first.output == "port busy 98\n", first.output
    assert _no_process_with_arg("31.25")
    if tmp_size:
        backend.configure_execute(tmp_size=tmp_size)
    for _ in range(3):
        res = backend.execute(f"python3 -c '{_LOOK.replace('PORT', str(port))}'")
        assert res.exit_code == 0, res.output
        left, size = res.output.rsplit(" ", 1)
        assert left == "[]", res.output
        if tmp_size:
            assert int(size) == tmp_size, res.output
        assert "network_namespace" in res.protections


@confined
def test_a_forked_host_runs_its_own_commands(backend):
    """After a fork the child's commands are its own (the parent's
    prepared starts share the parent's memory: never used by the child),
    and the parent's go on."""
    assert backend.execute("true").exit_code == 0  # the next one is started ahead
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            res = backend.execute("echo child")
            os._exit(0 if (res.exit_code, res.output) == (0, "child\n") else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert backend.execute("echo parent").output == "parent\n"


# The protection names come from the one table both front ends read
# (bindings/result_fields.h); they are the names docs/exec.md lists, with
# the bits of pathgate/exec.h, and Lua's pathgate.exec_protections holds
# the same (tests/lua/exec_spec.lua).
def test_protection_names_are_the_documented_ones():
    from pathgate import sandbox

    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "exec.md")).read()
    section = doc.split("### Which protections ran, and refusing weaker ones", 1)[1]
    paragraph = section.split("\n\n", 2)[1]

    options = {"protections", "allow_network", "allow_domains"}
    documented = set(re.findall(r"`([a-z_]+)`", paragraph)) - options
    assert set(sandbox.PROTECTIONS) == documented
    bits = sorted(sandbox.PROTECTIONS.values())
    assert bits == [1 << i for i in range(len(bits))]
    assert sandbox.PROTECTIONS["landlock"] == 0x1
    assert sandbox.PROTECTIONS["network_allowlist"] == 0x400
    assert sandbox._protections(0x1 | 0x8) == frozenset({"landlock", "seccomp"})


# Every kind of option of bindings/exec_opts.h (the table Lua's options
# read too; tests/lua/exec_spec.lua 'raises on misuse'), refused before
# anything runs.
@pytest.mark.parametrize(
    "kw, exc, text",
    [
        ({"cwd": 1}, TypeError, "cwd"),
        ({"home": 1}, TypeError, "home"),
        ({"timeout": 0}, ValueError, "timeout must be > 0 seconds"),
        ({"timeout": 5e6}, ValueError, "timeout must be > 0 seconds"),
        ({"timeout": "1"}, TypeError, "timeout must be a number"),
        ({"output_cap": 0}, ValueError, "output_cap must be > 0"),
        ({"max_memory": 0}, ValueError, "max_memory must be > 0"),
        ({"max_processes": 2**33}, ValueError, "max_processes must be > 0 (at most 4294967295)"),
        ({"tmp_size": 1.5}, TypeError, "tmp_size must be an int or None"),
        ({"_test_abi_cap": 16}, ValueError, "_test_abi_cap must be an int 0..15"),
        ({"env": 5}, TypeError, "env must be a mapping"),
        ({"allow_domains": "x"}, TypeError, "allow_domains must be a list of str"),
    ],
)
def test_option_misuse_is_refused(resolver, kw, exc, text):
    with pytest.raises(exc, match=re.escape(text)):
        pathgate._core._execute(resolver, "true", **kw)
