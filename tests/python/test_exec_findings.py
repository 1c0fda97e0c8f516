"""The reproduced escapes of contained commands (issue 16), through
pathgate.execute / Backend.execute: metadata outside, setuid files,
keyrings and SysV IPC, weak Landlock ABIs, prlimit on other processes,
probing outside, host paths shown, resource exhaustion, a read-only base
nested in a writable root. Run as root and, where the uid matters, as an
unprivileged user (uid 65534 through setpriv). Each test checks that the
attempt failed and that nothing outside changed."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import pathgate
from pathgate import Backend

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or pathgate.landlock_abi() < 1 or shutil.which("setpriv") is None,
    reason="needs root (to create the unprivileged user's tree), Landlock and setpriv")

NOBODY = 65534
SECRET = "outside secret\n"


@pytest.fixture
def world():
    """A root (repo, world-writable), a read-only mod nested in it
    (repo/vendor/game) and an outside directory with a root-owned and a
    nobody-owned secret, in a directory every user can traverse."""
    top = Path(tempfile.mkdtemp(prefix="pathgate-findings-", dir="/tmp"))
    os.chmod(top, 0o755)
    repo = top / "repo"
    game = repo / "vendor" / "game"
    outside = top / "outside"
    game.mkdir(parents=True)
    outside.mkdir()
    os.chmod(repo, 0o777)
    (game / "data.txt").write_text("game data\n")
    os.chmod(game / "data.txt", 0o666)
    (outside / "secret.txt").write_text(SECRET)
    os.chmod(outside / "secret.txt", 0o600)
    (outside / "id_test").write_text(SECRET)
    os.chmod(outside / "id_test", 0o600)
    os.chown(outside / "id_test", NOBODY, NOBODY)
    yield {"top": top, "repo": repo, "game": game, "outside": outside}
    shutil.rmtree(top)


def _resolver(world):
    return pathgate.Resolver(roots={"repo": world["repo"]}, mods={"Game": world["game"]},
                             read_only=["Game"])


_CHILD = r"""
import json, sys
import pathgate
a = json.loads(sys.argv[1])
r = pathgate.Resolver(roots={"repo": a["repo"]}, mods={"Game": a["game"]}, read_only=["Game"])
if a["opts"].pop("ignore_sigchld", False):  # a host that has the kernel reap its children
    import signal
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
res = pathgate.sandbox._execute(r, a["cmd"], timeout=20, **a["opts"])
print(json.dumps({"output": res.output, "exit_code": res.exit_code,
                  "timed_out": res.timed_out, "protections": sorted(res.protections)}))
"""


def run(world, cmd: str, unprivileged: bool = False, **opts) -> dict:
    """Runs cmd against the world's resolver, as root or as uid 65534
    (opts may include the internal test knobs, and ignore_sigchld: the
    caller's process ignores SIGCHLD, so it runs in a process of its own)."""
    if not unprivileged and not opts.get("ignore_sigchld"):
        res = pathgate.sandbox._execute(_resolver(world), cmd, timeout=20, **opts)
        return {"output": res.output, "exit_code": res.exit_code, "timed_out": res.timed_out,
                "protections": sorted(res.protections)}
    # the caller's environment (a sanitizer build needs its LD_PRELOAD and
    # options), with the module found where this process found it
    env = dict(os.environ, PYTHONPATH=str(Path(pathgate.__file__).resolve().parent.parent))
    arg = json.dumps({"repo": str(world["repo"]), "game": str(world["game"]), "cmd": cmd,
                      "opts": opts})
    as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    out = subprocess.run(
        (as_nobody if unprivileged else []) + [sys.executable, "-c", _CHILD, arg],
        capture_output=True, text=True, env=env, cwd="/", timeout=60, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("unprivileged", [False, True])
def test_a_caller_that_ignores_sigchld_keeps_the_exit_status(world, unprivileged):
    """A host process that ignores SIGCHLD (so the kernel reaps its
    children) still gets each command's own exit status: the command's
    init waits for the shell with SIGCHLD back at its default (without it
    a caller other than root got 127 for every command)."""
    for cmd, code in (("echo hi; exit 3", 3), ("true", 0), ("kill -9 $$", 128 + 9)):
        res = run(world, cmd, unprivileged, ignore_sigchld=True)
        assert res["exit_code"] == code, (cmd, res)
        assert res["output"] == ("hi\n" if code == 3 else ""), (cmd, res)


def _snapshot(path: Path):
    st = os.lstat(path)
    return (st.st_mode, st.st_uid, st.st_gid, st.st_size, st.st_mtime_ns, os.listxattr(path),
            path.read_text())


@pytest.mark.parametrize("unprivileged", [False, True])
def test_outside_mode_time_xattr_owner_content_unchanged(world, unprivileged):
    target = world["outside"] / ("id_test" if unprivileged else "secret.txt")
    before = _snapshot(target)
    res = run(world,
              f"chmod 0666 '{target}'; chmod 4755 '{target}'; touch -d 2000-01-01 '{target}'; "
              f"chown 0 '{target}'; truncate -s 0 '{target}'; "
              f"python3 -c 'import os,sys; os.setxattr(sys.argv[1], \"user.x\", b\"1\")' "
              f"'{target}' 2>/dev/null; echo end", unprivileged)
    assert res["output"].endswith("end\n")
    assert _snapshot(target) == before


@pytest.mark.parametrize("unprivileged", [False, True])
def test_no_setuid_or_setgid_file_can_be_made(world, unprivileged):
    res = run(world,
              "cp /usr/bin/python3 p3; chmod 4755 p3; chmod u+s p3; chmod g+s p3; "
              "install -m 6755 /bin/true t2; mkdir -m 2755 d1; "
              "python3 -c 'import os; os.close(os.open(\"t3\", os.O_CREAT|os.O_WRONLY, 0o4755))'; "
              "echo end", unprivileged)
    assert res["output"].endswith("end\n")
    for p in world["repo"].iterdir():
        assert not os.lstat(p).st_mode & (stat.S_ISUID | stat.S_ISGID), p


def test_host_keyring_and_sysv_ipc_are_unreachable(world):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    key = 0x50480000 | (os.getpid() & 0xFFFF)
    shm = libc.shmget(key, 4096, 0o1000 | 0o2000 | 0o600)  # IPC_CREAT | IPC_EXCL
    assert shm >= 0
    libc.shmat.restype = ctypes.c_void_p
    addr = libc.shmat(shm, None, 0)
    ctypes.memmove(addr, b"host shm secret\0", 16)
    try:
        script = (
            "import ctypes\n"
            "l = ctypes.CDLL(None, use_errno=True)\n"
            f"print('shm', l.shmget({key}, 0, 0), ctypes.get_errno())\n"
            "print('keyctl', l.syscall(250, 0, -3, 0), ctypes.get_errno())\n"
            "print('add_key', l.syscall(248, b'user', b'k', b'v', 1, -3), ctypes.get_errno())\n")
        for unprivileged in (False, True):
            res = run(world, f"ipcs -m; python3 -c \"{script}\"", unprivileged)
            assert f"0x{key:08x}" not in res["output"]
            # ENOENT: its own IPC namespace; EPERM: no System V IPC at all
            # (where no memory cgroup would count what it holds)
            errno = 2 if "memory_limit" in res["protections"] else 1
            assert f"shm -1 {errno}\n" in res["output"]
            assert "keyctl -1 1\n" in res["output"] and "add_key -1 1\n" in res["output"]
        assert ctypes.string_at(addr, 15) == b"host shm secret"
    finally:
        libc.shmdt(ctypes.c_void_p(addr))
        libc.shmctl(shm, 0, None)  # IPC_RMID


def test_weak_landlock_abi_is_refused_without_namespaces(world):
    with pytest.raises(pathgate.Error) as exc:
        pathgate.sandbox._core._execute(_resolver(world), "touch ran", _test_abi_cap=2,
                                        _test_no_namespaces=True)
    assert exc.value.kind == "unsupported" and "/" not in str(exc.value)
    assert not (world["repo"] / "ran").exists()
    out = pathgate.sandbox._core._execute(_resolver(world), "touch ran", _test_abi_cap=2,
                                          _test_no_namespaces=True, allow_unconfined=True)
    assert out[1] == 0 and out[4] == 2
    names = pathgate.sandbox._protections(out[5])
    assert "landlock" in names and not names & {"landlock_truncate", "landlock_scope",
                                                "namespaces"}
    assert (world["repo"] / "ran").exists()


@pytest.mark.parametrize("unprivileged", [False, True])
def test_other_processes_are_not_signalled_truncated_or_relimited(world, unprivileged):
    victim = subprocess.Popen(["sleep", "30"])
    limits = Path(f"/proc/{victim.pid}/limits").read_text()
    before = _snapshot(world["outside"] / "secret.txt")
    try:
        res = run(world,
                  f"truncate -s 0 '{world['outside']}/secret.txt'; kill -9 {victim.pid}; "
                  f"kill -9 -1; prlimit --pid {victim.pid} --nofile=3:3; "
                  f"prlimit --pid {os.getpid()} --cpu=1:1; prlimit --pid 1 --nofile=3:3; "
                  "echo prl=$?", unprivileged, _test_abi_cap=2)
        assert "prl=1\n" in res["output"] and "namespaces" in res["protections"]
        assert victim.poll() is None
        assert Path(f"/proc/{victim.pid}/limits").read_text() == limits
        assert _snapshot(world["outside"] / "secret.txt") == before
    finally:
        victim.kill()
        victim.wait()


@pytest.mark.parametrize("unprivileged", [False, True])
def test_no_probing_outside_and_no_host_path_in_output(world, unprivileged):
    session = pathgate.Session(_resolver(world))
    session.push("vendor")
    res = run(world,
              f"stat -c '%s %U' '{world['outside']}/secret.txt' 2>/dev/null; echo stat=$?; "
              f"ls '{world['outside']}' 2>/dev/null; echo ls=$?; "
              "python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); "
              "fd=l.inotify_init(); print(\"watch\", l.inotify_add_watch(fd, sys.argv[1].encode(), "
              f"0xfff), ctypes.get_errno())' '{world['outside']}'; "
              "pwd; pwd -P; echo \"$PWD|$HOME|$TMPDIR\"; ls -a /tmp; env", unprivileged)
    out = res["output"]
    assert str(world["top"]) not in out
    assert "secret.txt" not in out and "stat=1\n" in out and "ls=2\n" in out
    assert "watch -1 2\n" in out
    home = "/home/nobody" if unprivileged else "/home/root"
    assert (f"/pathgate/root/repo\n/pathgate/root/repo\n/pathgate/root/repo|{home}|/tmp\n"
            ".\n..\n") in out
    # the session's cwd, and a printed path accepted back by the file operations
    b = Backend(session)
    printed = b.execute("echo x > printed.txt; pwd").output.strip()
    assert printed == "/pathgate/root/repo/vendor"
    got = b.read(printed + "/printed.txt")
    assert got.error is None and "x" in str(got.file_data)


@pytest.mark.parametrize("unprivileged", [False, True])
def test_fork_bomb_memory_hog_and_endless_writer_end(world, unprivileged):
    limits = {"max_processes": 64, "max_memory": 256 << 20, "max_file_size": 1 << 20,
              "tmp_size": 512 << 10}
    t0 = time.monotonic()
    marker = f"100.{os.getpid()}"  # this run's own: another run of the suite has its own
    res = run(world, f"sleep {marker} & b() {{ b | b & }}; b; sleep 1; sleep 1", unprivileged,
              **limits)
    assert time.monotonic() - t0 < 15 and not res["timed_out"]
    if unprivileged or "pid_limit" in res["protections"]:
        assert "Cannot fork" in res["output"]
    res = run(world,
              "python3 -c 'bytearray(1 << 30)' 2>/dev/null; echo py=$?; yes > big; echo big=$?; "
              "yes > /tmp/big; echo tmp=$?", unprivileged, **limits)
    # a memory cgroup kills it (SIGKILL); RLIMIT_AS makes it fail (MemoryError)
    assert ("py=137\n" if "memory_limit" in res["protections"] else "py=1\n") in res["output"]
    assert "big=153\n" in res["output"] and "tmp=1\n" in res["output"]
    assert (world["repo"] / "big").stat().st_size == 1 << 20
    (world["repo"] / "big").unlink()
    assert not os.path.exists("/tmp/big")
    for entry in os.listdir("/proc"):  # nothing of the command is left
        if entry.isdigit():
            try:
                assert marker.encode() not in Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                pass


@pytest.mark.parametrize("unprivileged", [False, True])
def test_nested_read_only_base_stays_unwritten_by_commands(world, unprivileged):
    res = run(world,
              "echo x > vendor/game/data.txt; echo x > vendor/game/new.txt; "
              "rm -f vendor/game/data.txt; echo y > /mod:Game/data.txt; "
              "cat /root:repo/vendor/game/data.txt", unprivileged)
    assert "Read-only file system" in res["output"]
    assert res["output"].endswith("game data\n")
    assert (world["game"] / "data.txt").read_text() == "game data\n"
    assert not (world["game"] / "new.txt").exists()


# --- 1b. a root caller's command runs as the host's uid 65534 ---------------


def test_root_command_is_unprivileged_on_the_host_and_owns_no_root_file(world):
    """uid 0 inside, 65534 outside; in a base owned by uid 1000 it acts as
    that owner; root's files (in the base, in the read-only mod, in the
    view's system part) are not its own: no chmod, chown or write."""
    repo = world["repo"]
    os.chown(repo, 1000, 1000)
    rootowned = repo / "rootowned.txt"
    rootowned.write_text(SECRET)
    os.chmod(rootowned, 0o644)
    before = _snapshot(rootowned)
    data_before = _snapshot(world["game"] / "data.txt")
    res = run(world,
              "id -u; id -g; stat -c %u:%g /usr/bin/env rootowned.txt /mod:Game/data.txt .; "
              "chmod 0666 rootowned.txt || echo chmod-refused; "
              "chown 1000 rootowned.txt || echo chown-refused; "
              "(echo x >> rootowned.txt) 2>/dev/null || echo write-refused; "
              "chmod 0600 /mod:Game/data.txt || echo ro-chmod-refused; "
              "(echo x >> /mod:Game/data.txt) 2>/dev/null || echo ro-write-refused; "
              "chmod 0600 /usr/bin/env /etc/passwd || echo sys-chmod-refused; "
              "echo made > made.txt && mkdir madedir && echo end")
    assert "unprivileged_uid" in res["protections"]
    out = res["output"]
    assert "0\n0\n65534:65534\n65534:65534\n65534:65534\n0:0\n" in out
    for marker in ("chmod-refused", "chown-refused", "write-refused", "ro-chmod-refused",
                   "ro-write-refused", "sys-chmod-refused"):
        assert marker in out
    assert out.endswith("end\n")
    assert _snapshot(rootowned) == before
    assert _snapshot(world["game"] / "data.txt") == data_before
    assert os.stat("/usr/bin/env").st_mode & 0o777 == 0o755
    for made in (repo / "made.txt", repo / "madedir"):
        st = os.lstat(made)
        assert (st.st_uid, st.st_gid) == (1000, 1000)


def test_files_made_in_a_root_owned_base_stay_roots(world):
    res = run(world, "echo made > made.txt && stat -c %u:%g made.txt")
    assert res["output"] == "0:0\n"
    st = os.lstat(world["repo"] / "made.txt")
    assert (st.st_uid, st.st_gid) == (0, 0)


def _status_ids(pid: str) -> tuple[list[int], int] | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    if fields.get("State", "").strip().startswith("Z"):
        return None  # an earlier command's init, reaped by a later call
    return [int(x) for x in fields["Uid"].split()], int(fields["PPid"])


def test_host_sees_no_uid_0_process_of_the_command(world):
    """Scanned from the host while the command runs: the shell (found by a
    marker in its command line) and its parent, pathgate's init, have uid
    65534 in every field. (The init is this process's child, or a child of
    its keeper: a host-side helper sharing this process's memory, which
    runs no command code and keeps the host's uid.)"""
    import threading

    started = world["repo"] / "started.txt"
    box = {}
    t = threading.Thread(target=lambda: box.setdefault(
        "res", run(world, "echo started > started.txt; sleep 3 # pathgate-uid-marker")))
    t.start()
    deadline = time.monotonic() + 10
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert started.exists()
    parents = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        ids = _status_ids(pid)
        if ids is None:
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"pathgate-uid-marker" in cmdline:
            assert ids[0] == [NOBODY] * 4, (pid, ids)
            parents.append(ids[1])
    assert parents
    init = min(parents)  # the shell's parent (sleep's is the shell)
    ids = _status_ids(str(init))
    assert ids is not None and ids[0] == [NOBODY] * 4, (init, ids)
    t.join()
    assert box["res"]["exit_code"] == 0


def test_without_idmapped_mounts_a_root_caller_is_refused_unless_allowed(world):
    repo = world["repo"]
    os.chown(repo, 1000, 1000)
    with pytest.raises(pathgate.Error) as exc:
        run(world, "echo made > made.txt", _test_no_idmap=True)
    assert exc.value.kind == "unsupported"
    assert "unprivileged uid" in str(exc.value)
    assert not (repo / "made.txt").exists()
    res = run(world, "echo made > made.txt", _test_no_idmap=True, allow_unconfined=True)
    assert "namespaces" in res["protections"]
    assert "unprivileged_uid" not in res["protections"]
    assert os.lstat(repo / "made.txt").st_uid == 0  # the caller's root, documented


def test_an_unprivileged_caller_keeps_its_uid(world):
    res = run(world, "id -u", unprivileged=True)
    assert res["output"] == "65534\n"
    assert "namespaces" in res["protections"]
    assert "unprivileged_uid" not in res["protections"]


def test_backend_reports_unprivileged_uid(world):
    b = Backend(_resolver(world))
    res = b.execute("id -u")
    assert res.output == "0\n" and res.exit_code == 0
    assert "unprivileged_uid" in res.protections


# ============================================================================
# Issue 21: the seven findings of the red team, each as root and as an
# unprivileged caller (uid 65534 through setpriv). The root case runs its
# commands on one resolver, so its prepared view is reused between them.


class _Caller:
    """Runs commands as root on one resolver, or as uid 65534 (a new
    process, and so a new resolver, per command)."""

    def __init__(self, world, unprivileged: bool):
        self.world = world
        self.unprivileged = unprivileged
        self.resolver = None if unprivileged else _resolver(world)

    def __call__(self, cmd: str, **opts) -> dict:
        if self.unprivileged:
            return run(self.world, cmd, True, **opts)
        res = pathgate.sandbox._execute(self.resolver, cmd, timeout=30, **opts)
        return {"output": res.output, "exit_code": res.exit_code, "timed_out": res.timed_out,
                "protections": sorted(res.protections)}


# --- 1c. ownership changes inside (issue 34 item 10) -------------------------

_OWNERSHIP = r"""
import io, os, subprocess, tarfile
open("f", "w").write("x")
try:
    os.chown("f", 1000, 1000)
    st = os.stat("f")
    print("chown", st.st_uid, st.st_gid)
except OSError as e:
    print("chown-errno", e.errno)
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w") as t:
    data = b"#!/bin/sh\necho ran\n"
    ti = tarfile.TarInfo("x/run.sh")
    ti.size, ti.mode, ti.mtime, ti.uid, ti.gid = len(data), 0o755, 1000000000, 1000, 1000
    t.addfile(ti, io.BytesIO(data))
buf.seek(0)
with tarfile.open(fileobj=buf) as t:
    t.extractall("out")
st = os.stat("out/x/run.sh")
print("tar", oct(st.st_mode & 0o777), int(st.st_mtime))
print(subprocess.run(["out/x/run.sh"], capture_output=True, text=True).stdout.strip())
try:
    out = subprocess.run(["id", "-u"], user=1000, group=1000, extra_groups=[],
                         capture_output=True, text=True)
    print("popen", out.stdout.strip())
except OSError as e:
    print("popen-errno", e.errno)
"""


def _ownership(world, unprivileged: bool, **opts) -> str:
    (world["repo"] / "own.py").write_text(_OWNERSHIP)
    res = run(world, "/usr/bin/python3 own.py", unprivileged=unprivileged, **opts)
    assert res["exit_code"] == 0, res["output"]
    return res["output"]


def test_root_command_changes_ownership_within_its_range(world):
    """chown to 1000 works and shows 1000 inside; on the host the file
    belongs to the range's id (first + 1000), never to user 1000;
    tarfile keeps each member's mode and mtime; Popen(user=) works."""
    first = 3000000000
    out = _ownership(world, False, id_range=(first, 65536))
    assert "chown 1000 1000\n" in out
    assert "tar 0o755 1000000000\nran\n" in out
    assert "popen 1000\n" in out
    st = os.lstat(world["repo"] / "f")
    assert (st.st_uid, st.st_gid) == (first + 1000, first + 1000)
    st = os.lstat(world["repo"] / "out" / "x" / "run.sh")
    assert (st.st_uid, st.st_mode & 0o777, int(st.st_mtime)) == (first + 1000, 0o755, 1000000000)


def test_root_command_default_range_is_no_users_id(world):
    """Without id_range: root's /etc/subuid entry, else the dedicated
    range; never an id of /etc/passwd."""
    res = run(world, "touch f && chown 1000:1000 f && stat -c %u:%g f")
    assert "id_range" in res["protections"]
    assert res["output"] == "1000:1000\n"
    st = os.lstat(world["repo"] / "f")
    users = {int(line.split(":")[2]) for line in Path("/etc/passwd").read_text().splitlines()
             if line.count(":") >= 3 and line.split(":")[2].isdigit()}
    assert st.st_uid not in users and st.st_uid > 65535
    assert st.st_gid > 65535


def test_no_id_range_keeps_the_single_mapping(world):
    res = run(world, "/usr/bin/python3 -c 'import os; open(\"f\", \"w\"); os.chown(\"f\", 1000, 1000)'",
              id_range="none")
    assert "Errno 1]" in res["output"]  # EPERM, as on the host without CAP_CHOWN
    assert "id_range" not in res["protections"]
    assert os.lstat(world["repo"] / "f").st_uid == 0


def test_ranges_meeting_users_are_refused(world):
    with pytest.raises(pathgate.Error):
        run(world, "true", id_range=(0, 65536))  # root, nobody, every user
    with pytest.raises(ValueError):
        run(world, "true", id_range=(5, 1))
    with pytest.raises(ValueError):
        pathgate.sandbox.execute(_resolver(world), "true", id_range="all")


# What a command with ownership capabilities tries against what it does not
# own (rootowned.txt: a root-owned file of mode 0600 in the base), and the
# marker each refusal prints.
_ATTACKS = ("cat rootowned.txt || echo read-refused; "
            "chown 0 rootowned.txt || echo chown-refused; "
            "chmod 666 rootowned.txt || echo chmod-refused; "
            "touch -d 2001-01-01 rootowned.txt || echo utime-refused; "
            "chown 1000 /mod:Game/data.txt || echo ro-refused; "
            "chown 1000 /usr/bin/env || echo sys-refused; "
            "mknod dev c 1 3 || echo mknod-refused; "
            "touch s && chmod 4755 s || echo setuid-refused; "
            "unshare -U true || echo userns-refused; "
            "unshare -m true || echo mntns-refused; "
            "cat /proc/1/mountinfo || echo proc-refused; "
            "/usr/bin/python3 -c 'import os; os.setuid(1000); os.setuid(0)' "
            "|| echo no-way-back; echo end")
_ATTACK_MARKERS = ("read-refused", "chown-refused", "chmod-refused", "utime-refused",
                   "ro-refused", "sys-refused", "mknod-refused", "setuid-refused",
                   "userns-refused", "mntns-refused", "proc-refused", "no-way-back")


def _attacks_failed(world, res: dict, rootowned: Path, before) -> None:
    assert "id_range" in res["protections"]
    out = res["output"]
    assert SECRET not in out
    for marker in _ATTACK_MARKERS:
        assert marker in out, marker
    assert out.endswith("end\n")
    assert _snapshot(rootowned) == before
    assert not (world["repo"] / "dev").exists()
    assert not os.lstat(world["repo"] / "s").st_mode & 0o6000


def _rootowned(world) -> Path:
    rootowned = world["repo"] / "rootowned.txt"
    rootowned.write_text(SECRET)
    os.chmod(rootowned, 0o600)
    os.chown(world["repo"], 1000, 1000)
    return rootowned


def test_range_gives_no_power_over_files_it_does_not_own(world):
    """With the range and its capabilities: root's files in the base, the
    read-only mod, the system directories stay out of reach (their owners
    are not mapped); no device node, no setuid bit, no nested namespace."""
    rootowned = _rootowned(world)
    before = _snapshot(rootowned)
    _attacks_failed(world, run(world, _ATTACKS), rootowned, before)


def test_unprivileged_caller_keeps_the_single_mapping(world):
    """As uid 65534: its own uid only, as before; chown to another id and
    Popen(user=) fail with EPERM as on the host (not EINVAL: the seccomp
    filter answers for the kernel); tarfile does not change owners there,
    so mode and mtime are kept."""
    out = _ownership(world, True)
    assert "chown-errno 1\n" in out
    assert "popen-errno 1\n" in out
    assert "tar 0o755 1000000000\nran\n" in out


# --- 1d. a caller other than root with subordinate ids (issue 34 item 10) ---
#
# uid 65534 given entries in /etc/subuid and /etc/subgid by files bound over
# the host's in a mount namespace of the test's own (the host's /etc is never
# edited; newuidmap and newgidmap, setuid root, read the bound files there).

SUB_UID, SUB_GID = 200000, 300000
SUB_ENTRIES = (f"nobody:{SUB_UID}:65536\n", f"nobody:{SUB_GID}:65536\n")
NEWIDMAPS = ("/usr/bin/newuidmap", "/usr/bin/newgidmap")

_SUB_CHILD = r"""
import json, sys
import pathgate
a = json.loads(sys.argv[1])
r = pathgate.Resolver(roots={"repo": a["repo"]}, mods={"Game": a["game"]}, read_only=["Game"])
opts = a["opts"]
if opts.pop("ignore_sigchld", False):  # a host that has the kernel reap its children
    import signal
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
if isinstance(opts.get("id_range"), list):
    opts["id_range"] = tuple(opts["id_range"])
try:
    res = pathgate.sandbox._execute(r, a["cmd"], timeout=20, **opts)
except (pathgate.Error, ValueError) as e:
    print(json.dumps({"error": type(e).__name__, "message": str(e)}))
else:
    print(json.dumps({"output": res.output, "exit_code": res.exit_code,
                      "protections": sorted(res.protections)}))
"""

# Binds argv[1]/subuid and argv[1]/subgid over the host's (or, where the host
# has none, argv[1]/etc, a copy of /etc holding them, over /etc), then runs
# the rest. mount(2) itself: a brand-new Debian root may have no mount(8).
_BIND = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
MS_BIND = 4096
def bind(src, dst):
    if libc.mount(src.encode(), dst.encode(), None, MS_BIND, None) != 0:
        sys.exit(f"bind {src} over {dst}: {os.strerror(ctypes.get_errno())}")
d = sys.argv[1]
if os.path.isdir(d + "/etc"):
    bind(d + "/etc", "/etc")
else:
    bind(d + "/subuid", "/etc/subuid")
    bind(d + "/subgid", "/etc/subgid")
os.execvp(sys.argv[2], sys.argv[2:])
"""


def run_subids(world, cmd: str, entries=SUB_ENTRIES, **opts) -> dict:
    """Runs cmd as uid 65534 with the given /etc/subuid and /etc/subgid."""
    missing = [p for p in NEWIDMAPS if not os.access(p, os.X_OK)]
    if missing or shutil.which("unshare") is None:
        pytest.skip("SKIPPED: a caller's subordinate ids need newuidmap and newgidmap "
                    "(Debian package uidmap) and unshare")
    d = world["top"] / "etc-sub"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    if not (os.path.exists("/etc/subuid") and os.path.exists("/etc/subgid")):
        shutil.copytree("/etc", d / "etc", symlinks=True)
        d = d / "etc"
    for name, text in zip(("subuid", "subgid"), entries):
        (d / name).write_text(text)
        os.chmod(d / name, 0o644)
    d = world["top"] / "etc-sub"
    env = dict(os.environ, PYTHONPATH=str(Path(pathgate.__file__).resolve().parent.parent))
    arg = json.dumps({"repo": str(world["repo"]), "game": str(world["game"]), "cmd": cmd,
                      "opts": opts})
    out = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", sys.executable, "-c", _BIND,
         str(d), "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, "-c", _SUB_CHILD, arg],
        capture_output=True, text=True, env=env, cwd="/", timeout=60, check=True)
    return json.loads(out.stdout)


def test_caller_with_subordinate_ids_changes_ownership_within_them(world):
    """uid 65534 with entries: uid 0 inside is itself (what it creates is
    its own on the host), inside k its entry's first + k - 1 (as rootless
    containers map them): chown to 1000 lands on SUB_UID + 999 and
    SUB_GID + 999, never on user 1000; tarfile keeps owners and modes."""
    (world["repo"] / "own.py").write_text(_OWNERSHIP)
    res = run_subids(world, "id -u; id -g; touch mine; /usr/bin/python3 own.py; "
                     "/usr/bin/python3 -c 'import os; os.setgroups([])' 2>&1 | tail -1")
    assert res["exit_code"] == 0, res
    assert "id_range" in res["protections"]
    out = res["output"]
    assert out.startswith("0\n0\n")
    assert "chown 1000 1000\n" in out
    assert "tar 0o755 1000000000\nran\n" in out
    # no CAP_SETUID / CAP_SETGID for a caller other than root (as on the
    # host), even where control groups bound the command: no Popen(user=),
    # and its supplementary groups cannot be dropped
    assert "popen-errno 1\n" in out
    assert out.endswith("PermissionError: [Errno 1] Operation not permitted\n"), out
    repo = world["repo"]
    assert (os.lstat(repo / "mine").st_uid, os.lstat(repo / "mine").st_gid) == (NOBODY, NOBODY)
    st = os.lstat(repo / "f")
    assert (st.st_uid, st.st_gid) == (SUB_UID + 999, SUB_GID + 999)
    st = os.lstat(repo / "out" / "x" / "run.sh")
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (SUB_UID + 999, SUB_GID + 999, 0o755)


def test_subordinate_ids_give_no_power_over_other_ids(world):
    """Files of host ids outside the mapped range (root, user 1000, an id
    below the entry, its last id, which would be inside 65534) stay as out
    of reach as before; a file of a range id is the command's to change;
    the earlier attacks all fail."""
    repo = world["repo"]
    others = {}
    for name, owner in (("u1000", 1000), ("below", SUB_UID - 1), ("last", SUB_UID + 65535),
                        ("unmapped", SUB_UID + 65533)):
        p = repo / name
        p.write_text(SECRET)
        os.chmod(p, 0o600)
        os.chown(p, owner, owner)
        others[name] = _snapshot(p)
    ranged = repo / "ranged"
    ranged.write_text("ranged\n")
    os.chmod(ranged, 0o600)
    os.chown(ranged, SUB_UID + 41, SUB_GID + 41)
    tries = "".join(f"cat {n}; chown 0:0 {n}; chmod 666 {n}; touch -d 2001-01-01 {n}; "
                    f"echo > {n}; " for n in others)
    res = run_subids(world, tries + "stat -c %u:%g ranged; chown 43:43 ranged && chmod 644 ranged "
                     "&& echo ranged-changed; echo end")
    out = res["output"]
    assert SECRET not in out
    assert "42:42\nranged-changed\nend\n" in out, out
    for name, before in others.items():
        assert _snapshot(repo / name) == before, name
    st = os.lstat(ranged)
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (SUB_UID + 42, SUB_GID + 42, 0o644)
    rootowned = _rootowned(world)
    before = _snapshot(rootowned)
    _attacks_failed(world, run_subids(world, _ATTACKS), rootowned, before)


def test_subordinate_ids_in_a_host_that_ignores_sigchld(world):
    """The helpers' exit status is lost there (the kernel reaps them): the
    maps written are read back instead, and the ids are mapped."""
    res = run_subids(world, "id -u; touch f && chown 1000 f && stat -c %u f", ignore_sigchld=True)
    assert res["output"] == "0\n1000\n", res
    assert res["exit_code"] == 0, res
    assert "id_range" in res["protections"]
    assert os.lstat(world["repo"] / "f").st_uid == SUB_UID + 999


def test_subordinate_ids_not_used_keep_the_single_mapping(world):
    """id_range "none", or no entry of the caller's: its own uid only, as
    before; chown to another id fails with EPERM."""
    cmd = ("id -u; /usr/bin/python3 -c 'import os; open(\"f\", \"w\"); "
           "os.chown(\"f\", 1000, 1000)' 2>&1 | tail -1")
    for kw in ({"id_range": "none"},
               {"entries": ("other:200000:65536\n", "other:300000:65536\n")}):
        res = run_subids(world, cmd, **kw)
        assert res["output"].startswith(f"{NOBODY}\n"), (kw, res)
        assert "Errno 1]" in res["output"], (kw, res)
        assert "id_range" not in res["protections"]
        assert os.lstat(world["repo"] / "f").st_uid == NOBODY
        os.unlink(world["repo"] / "f")


def test_callers_explicit_range_must_lie_in_its_entries(world):
    """An explicit id_range of a caller other than root: inside k is
    FIRST + k for uids and gids alike, so FIRST+1 .. FIRST+COUNT-1 must lie
    inside one of its uid entries and one of its gid entries, else refused
    with a clear error naming no host path."""
    same = (f"nobody:{SUB_UID}:65536\n",) * 2
    res = run_subids(world, "touch f && chown 1000:1000 f && stat -c %u f", entries=same,
                     id_range=(SUB_UID + 99, 1001))
    assert res.get("output") == "1000\n", res
    st = os.lstat(world["repo"] / "f")
    assert (st.st_uid, st.st_gid) == (SUB_UID + 1099, SUB_UID + 1099)
    # SUB_UID + 100.. is no gid of the caller's (its gid entry starts at
    # SUB_GID), SUB_GID + 100.. no uid; past an entry's end; no entry's
    for rng in ((SUB_UID + 99, 1001), (SUB_GID + 99, 1001), (SUB_UID + 65000, 1000),
                (500000, 100)):
        res = run_subids(world, "true", id_range=rng)
        assert res.get("error") == "Error", (rng, res)
        assert "subordinate ids" in res["message"] and "/" not in res["message"].replace(
            "subuid", "").replace("subgid", ""), res


def _game_data(world, game_fd: int) -> str:
    fd = os.open("data.txt", os.O_RDONLY, dir_fd=game_fd)
    try:
        return os.read(fd, 100).decode()
    finally:
        os.close(fd)


_SEQUENCE = r"""
import json, sys
import pathgate
a = json.loads(sys.argv[1])
r = pathgate.Resolver(roots={"repo": a["repo"]}, mods={"Game": a["game"]}, read_only=["Game"])
out = []
for cmd in a["cmds"]:
    res = pathgate.sandbox._execute(r, cmd, timeout=20)
    out.append({"output": res.output, "exit_code": res.exit_code})
print(json.dumps(out))
"""


def run_sequence(world, cmds: list[str], unprivileged: bool) -> list[dict]:
    """Runs the commands one after the other on one resolver (so on one
    prepared view), as root here or as uid 65534 in one child process."""
    if not unprivileged:
        r = _resolver(world)
        out = []
        for cmd in cmds:
            res = pathgate.sandbox._execute(r, cmd, timeout=20)
            out.append({"output": res.output, "exit_code": res.exit_code})
        return out
    env = dict(os.environ, PYTHONPATH=str(Path(pathgate.__file__).resolve().parent.parent))
    arg = json.dumps({"repo": str(world["repo"]), "game": str(world["game"]), "cmds": cmds})
    proc = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, "-c", _SEQUENCE, arg],
        capture_output=True, text=True, env=env, cwd="/", timeout=120, check=True)
    return json.loads(proc.stdout)


@pytest.mark.parametrize("unprivileged", [False, True])
def test_f1_a_moved_nested_read_only_base_stays_read_only(world, unprivileged):
    """Finding 1: `mv vendor vendor2 && mkdir -p decoy/game && ln -s decoy
    vendor`, then writes through vendor2/game: the read-only mod is found
    where it went (by its descriptor), never the decoy; a rename without a
    decoy does not make later commands fail. (A fresh prepared view per
    command is the C suite's case.)"""
    game_fd = os.open(world["game"], os.O_RDONLY | os.O_DIRECTORY)
    try:
        res = run_sequence(world, [
            "true",
            "mv vendor vendor2 && mkdir -p decoy/game && ln -s decoy vendor && echo moved",
            "echo X > vendor2/game/data.txt; echo rc=$?; echo Y > vendor2/game/new.txt; "
            "cat vendor2/game/data.txt",
            "rm -rf decoy vendor && echo no-decoy",
            "echo X > vendor2/game/data.txt; echo rc=$?; echo ok",
        ], unprivileged)
        assert res[1]["output"] == "moved\n"
        out = res[2]["output"]
        assert "Read-only file system" in out and "rc=2\n" in out and out.endswith("game data\n")
        assert res[3]["output"] == "no-decoy\n"
        # without the decoy: later commands run, the base is still read-only
        assert res[4]["exit_code"] == 0 and res[4]["output"].endswith("rc=2\nok\n")
        assert _game_data(world, game_fd) == "game data\n"
        assert "new.txt" not in os.listdir(game_fd)
    finally:
        os.close(game_fd)


_MEMFD_HOG = r"""
import os, sys
try:
    fd = os.memfd_create('hog')
except OSError as e:
    print('memfd refused', e.errno, flush=True); sys.exit(3)
chunk = b'x' * (16 << 20)
for i in range(64):
    os.write(fd, chunk)
    print('MB', (i + 1) * 16, flush=True)
print('held 1024 MB', flush=True)
"""


@pytest.mark.parametrize("unprivileged", [False, True])
def test_f2_memory_and_processes_are_bounded(world, unprivileged):
    """Finding 2: a memfd written far past max_memory (RLIMIT_AS does not
    count it) is stopped: a memory cgroup kills it or refuses the write,
    and where none can be had memfd_create is refused; the processes are
    bounded too."""
    (world["repo"] / "hog.py").write_text(_MEMFD_HOG)
    limits = {"max_memory": 256 << 20, "tmp_size": 16 << 20, "max_processes": 32}
    call = _Caller(world, unprivileged)
    res = call("python3 hog.py; echo rc=$?", **limits)
    out = res["output"]
    assert "held" not in out
    written = [int(line.split()[1]) for line in out.splitlines() if line.startswith("MB ")]
    assert max(written, default=0) <= 256
    if "memory_limit" in res["protections"]:
        # the group's OOM kill, or a write it refuses (in a system call,
        # not a page fault, the charge may fail before the kill)
        assert "rc=137\n" in out or ("Cannot allocate memory" in out and "rc=1\n" in out), out
    else:
        assert "memfd refused" in out
    if not unprivileged:  # root here can make control groups
        assert {"memory_limit", "pid_limit"} <= set(res["protections"])
    res = call("i=0; while [ $i -lt 40 ]; do sleep 5 & i=$((i+1)); done; echo end", **limits)
    assert "Cannot fork" in res["output"]


_INODES = r"""
import os
for name, d in (('tmp', '/tmp'), ('shm', '/dev/shm'), ('home', os.environ['HOME'])):
    n = 0
    try:
        while n < 20000:
            open(os.path.join(d, 'f%d' % n), 'w').close(); n += 1
    except OSError:
        pass
    print(name, n, flush=True)
"""


@pytest.mark.parametrize("unprivileged", [False, True])
def test_f3_private_tmpfs_mounts_have_an_inode_limit(world, unprivileged):
    """Finding 3: with tmp_size 1 MiB, /tmp, /dev/shm and the home take
    about 256 inodes each, not 20,000 (kernel memory is bounded too)."""
    (world["repo"] / "inodes.py").write_text(_INODES)
    res = _Caller(world, unprivileged)("python3 inodes.py", tmp_size=1 << 20)
    counts = dict(line.split() for line in res["output"].splitlines())
    assert set(counts) == {"tmp", "shm", "home"}, res["output"]
    for name, n in counts.items():
        assert 100 <= int(n) <= 300, (name, n)


_NET = r"""
import ctypes, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
unspec = struct.pack('H14x', 0)
libc.connect(a.fileno(), unspec, len(unspec))
addr = struct.pack('H', socket.AF_UNIX) + b'\0' + sys.argv[1].encode()
print('bind', libc.bind(a.fileno(), addr, len(addr)), ctypes.get_errno(), flush=True)
open('bound.txt', 'w').close()
a.settimeout(3)
try:
    print('got', a.recv(100), flush=True)
except OSError:
    print('nothing', flush=True)
peer = struct.pack('H', socket.AF_UNIX) + b'\0' + sys.argv[2].encode()
print('sendto', libc.sendto(b.fileno(), b'from-command', 12, 0, peer, len(peer)), flush=True)
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
socket.create_connection(s.getsockname()); print('lo ok', flush=True)
# (closed first: its port, picked in this namespace, may be the host's)
s.close()
h = socket.socket(); h.settimeout(2)
try:
    h.connect(('127.0.0.1', int(sys.argv[3]))); print('host port reached', flush=True)
except OSError as e:
    print('host port', e.errno, flush=True)
"""


@pytest.mark.parametrize("abi_cap", [None, 5])
@pytest.mark.parametrize("unprivileged", [False, True])
def test_f4_each_command_has_its_own_network_namespace(world, unprivileged, abi_cap):
    """Finding 4: an abstract Unix name bound by a command (socketpair,
    connect(AF_UNSPEC), bind) is not the host's: the host's service can
    take it and receives what is sent to it; a host abstract socket and a
    host TCP port on 127.0.0.1 are not reached (with a Landlock ABI below 6
    too); a server on 127.0.0.1 works inside; allow_network is the
    documented exception."""
    import socket
    import threading

    (world["repo"] / "net.py").write_text(_NET)
    tag = f"{os.getpid()}-{int(unprivileged)}-{abi_cap}"
    own, host = f"pathgate-f4-own-{tag}", f"pathgate-f4-host-{tag}"
    service = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    service.bind("\0" + host)
    service.setblocking(False)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    cmd = f"python3 net.py {own} {host} {tcp.getsockname()[1]}"
    opts = {"_test_abi_cap": abi_cap} if abi_cap else {}
    box: dict = {}
    t = threading.Thread(target=lambda: box.setdefault(
        "res", _Caller(world, unprivileged)(cmd, **opts)))
    t.start()
    deadline = time.monotonic() + 20
    while not (world["repo"] / "bound.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    mine = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    mine.bind("\0" + own)  # not EADDRINUSE: the command's name is not ours
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"host-secret", "\0" + own)
    t.join()
    out = box["res"]["output"]
    assert "bind 0 0\n" in out and "nothing\n" in out and "host-secret" not in out
    assert "lo ok\n" in out and "host port reached" not in out
    assert "network_namespace" in box["res"]["protections"]
    assert mine.recv(100) == b"host-secret"
    with pytest.raises(BlockingIOError):
        service.recv(100)  # nothing came in from the command
    (world["repo"] / "bound.txt").unlink()
    res = _Caller(world, unprivileged)(cmd, allow_network=True, **opts)
    assert "host port reached\n" in res["output"]
    assert "network_namespace" not in res["protections"]
    for s in (mine, service, tcp):
        s.close()


@pytest.mark.parametrize("unprivileged", [False, True])
def test_f6_no_core_file_can_be_written(world, unprivileged):
    """Finding 6: RLIMIT_CORE is 0 (soft and hard): a crash writes no core
    into the root (nor starts a core_pattern helper)."""
    res = _Caller(world, unprivileged)(
        "ulimit -c; ulimit -H -c; ulimit -c unlimited 2>/dev/null && echo raised; "
        "sh -c 'kill -SEGV $$'; ls core* 2>/dev/null; echo end")
    out = res["output"]
    assert out.startswith("0\n0\n") and "raised" not in out and out.endswith("end\n")
    assert not [p for p in os.listdir(world["repo"]) if p.startswith("core")]


@pytest.mark.parametrize("unprivileged", [False, True])
def test_f7_no_kernel_setting_is_written(world, unprivileged):
    """Finding 7: pid_max is not written, neither the host's nor the
    command's PID namespace's (read here without Landlock, which hides
    /proc); processes are counted by the pids cgroup where one can be had."""
    before = Path("/proc/sys/kernel/pid_max").read_text()
    res = _Caller(world, unprivileged)("cat /proc/sys/kernel/pid_max", max_processes=20,
                                       _test_no_landlock=True, allow_unconfined=True)
    assert Path("/proc/sys/kernel/pid_max").read_text() == before
    assert "namespaces" in res["protections"]
    assert int(res["output"]) != 20 + 300  # what main wrote into the command's namespace
    assert ("pid_limit" in res["protections"]) == (not unprivileged)


def _cli(args: list[str], env: dict[str, str], unprivileged: bool) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "HOME")}
    environ["PYTHONPATH"] = str(Path(pathgate.__file__).resolve().parent.parent)
    environ.update(env)
    prefix = (["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
              if unprivileged else [])
    return subprocess.run([*prefix, sys.executable, "-m", "pathgate", *args], cwd="/",
                          capture_output=True, text=True, env=environ, timeout=60)


@pytest.mark.parametrize("unprivileged", [False, True])
def test_f5_no_user_configuration_location_is_writable_whatever_the_environment(
        world, unprivileged):
    """Finding 5: a session started with XDG_CONFIG_HOME set elsewhere and a
    writable root at $HOME must be refused: a later run without
    XDG_CONFIG_HOME reads ~/.config/pathgate/config.toml. So must a
    writable root holding the account's home directory's (root here:
    /root), whatever HOME says."""
    home = world["top"] / "home"
    xdg = world["top"] / "xdg"
    home.mkdir()
    xdg.mkdir()
    os.chmod(home, 0o777)
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)}
    proc = _cli(["--root", f"home={home}", "ls", "root:home"], env, unprivileged)
    location = str(home / ".config" / "pathgate" / "config.toml")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert location in proc.stderr and "root 'home'" in proc.stderr
    assert not (home / ".config").exists()
    # read-only, the base may hold it
    proc = _cli(["--root", f"home={home}", "--read-only", "home", "ls", "root:home"], env,
                unprivileged)
    assert proc.returncode == 0, proc.stderr
    if not unprivileged:
        import pwd

        account_home = pwd.getpwuid(os.getuid()).pw_dir
        proc = _cli(["--root", f"acct={account_home}", "ls", "root:acct"],
                    {"HOME": str(home)}, unprivileged)
        assert proc.returncode == 2 and "config.toml" in proc.stderr, proc.stdout
        assert proc.stdout == ""


_HELD = r"""
import ctypes, os, errno
l = ctypes.CDLL(None, use_errno=True)
def call(name, nr, *args):
    r = l.syscall(nr, *args)
    print(name, 'ok' if r >= 0 else errno.errorcode.get(ctypes.get_errno(), '?'), flush=True)
call('mount', 165, b'tmpfs', b'/tmp', b'tmpfs', 0, None)
call('umount', 166, b'/pathgate/root/repo', 2)
call('pivot_root', 155, b'/tmp', b'/tmp')
call('open_tree', 428, -100, b'/pathgate/root/repo', 1)
call('fsopen', 430, b'tmpfs', 0)
call('unshare_user', 272, 0x10000000)
call('unshare_mount', 272, 0x00020000)
call('unshare_net', 272, 0x40000000)
fd = os.open('/proc/1/ns/mnt', os.O_RDONLY) if os.path.exists('/proc/1/ns/mnt') else -1
call('setns', 308, fd, 0)
call('ptrace_attach_init', 101, 16, 1, 0, 0)
pfd = l.syscall(434, 1, 0)  # pidfd_open(1) is a handle only; what it may do:
for fd in range(3):
    call('pidfd_getfd_init_%d' % fd, 438, pfd, fd, 0)
call('pidfd_send_signal_init', 424, pfd, 9, None, 0)
buf = ctypes.create_string_buffer(8)
class iov(ctypes.Structure):
    _fields_ = [('b', ctypes.c_void_p), ('n', ctypes.c_size_t)]
a = iov(ctypes.addressof(buf), 8); b = iov(0x10000, 8)
call('process_vm_readv_init', 310, 1, ctypes.byref(a), 1, ctypes.byref(b), 1, 0)
call('keyctl', 250, 0, -3, 0)
call('io_uring_setup', 425, 4, ctypes.create_string_buffer(120))
call('bpf', 321, 0, ctypes.create_string_buffer(72), 72)
call('perf_event_open', 298, ctypes.create_string_buffer(128), 0, -1, -1, 0)
call('kill_init', 62, 1, 9)
print('end', flush=True)
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86_64 system call numbers")
@pytest.mark.parametrize("unprivileged", [False, True])
def test_what_held_still_holds(world, unprivileged):
    """The red team's attempts that held (issue 21) still fail with the
    prepared view, the keeper and the joiner: mounting, unmounting,
    pivot_root, open_tree, fsopen, new user/mount/network namespaces,
    setns, ptrace, a pidfd's descriptors and signals, and process_vm_readv
    on pid 1 (pathgate's init),
    keyctl, io_uring, bpf, perf, and killing pid 1."""
    (world["repo"] / "held.py").write_text(_HELD)
    res = _Caller(world, unprivileged)("python3 held.py")
    got = dict(line.split() for line in res["output"].splitlines() if " " in line)
    assert "end" in res["output"], res["output"]
    for name, outcome in got.items():
        assert outcome != "ok", (name, res["output"])
    assert res["exit_code"] == 0
