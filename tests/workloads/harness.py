"""Runs a workload inside a contained command and outside it, and compares.

A workload (workloads.py) is a tree made by a setup function and a list of
shell steps. The tree is made once, copied twice, and each step runs

- INSIDE: ``pathgate.Backend.execute`` (the Python front end) or the C API
  (``pathgate_exec_run`` through the ``wl_exec`` driver), with the copy
  ``in/work`` configured as the root ``work``;
- OUTSIDE: ``subprocess.run(["/bin/sh", "-c", step])`` in the copy
  ``out/work``, stdout and stderr on one pipe as pathgate merges them,
  stdin ``/dev/null``, the output cut at the same cap.

Both answers are normalised (see :class:`PathMap`) and must be equal: exit
status, output, and the ``truncated`` flag. The environment outside is the
one the view gave the command (probed with ``env -0``), its paths
translated, so both sides run the same ``PATH``, ``LANG``, ``HOME``... and
the workload's own variables.

Two kinds of failure are kept apart:

- :class:`ViewMismatch`: the inside differs from the outside. This is what
  a known gap of the view (known_gaps.py) is expected to raise.
- :class:`WorkloadError`: the workload itself is broken (a tool missing, a
  step that fails outside, a setup error). Never an expected failure.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: Bytes of output kept, inside (configured) and outside (cut the same way).
OUTPUT_CAP = 100_000
#: The root's key: the view shows the tree wherever pathgate mounts it.
ROOT_KEY = "work"
#: Seconds a step may take on either side (a loaded CI machine).
STEP_TIMEOUT = 300
#: Variables the shell manages itself: not carried from the view's
#: environment to the outside one.
SHELL_VARIABLES = frozenset({"PWD", "OLDPWD", "SHLVL", "_"})


class ViewMismatch(AssertionError):
    """The command answered differently inside the view than outside."""


class WorkloadError(Exception):
    """The workload could not be run as written (never a view gap)."""


@dataclass(frozen=True)
class Step:
    """One command of a workload. ``expect`` is its exit status OUTSIDE
    (checked, so a workload that silently stopped working fails);
    ``volatile`` are regular expressions of text that differs from run to
    run (timings), replaced by ``<V>`` on both sides."""

    command: str
    expect: int = 0
    volatile: tuple[str, ...] = ()


@dataclass(frozen=True)
class Workload:
    name: str
    area: str
    doc: str
    steps: tuple[Step, ...]
    tools: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    setup: Callable[[Path, Mapping[str, str]], None] | None = None
    c_api: bool = False  # also run through the C API driver
    read_only: bool = False  # the root is read-only inside (PATHGATE_BASE_READ_ONLY)


@dataclass(frozen=True)
class Result:
    output: str
    exit_code: int | None
    truncated: bool


def _decode(raw: bytes) -> str:
    # As the Python binding decodes (docs/exec.md: bytes as written,
    # decoded with `replace`).
    return raw.decode("utf-8", "replace")


# ----------------------------------------------------------------- sides


class PythonInside:
    """``pathgate.Backend.execute`` on a resolver whose first root is the tree."""

    api = "py"

    def __init__(self, root: Path, env: Mapping[str, str],
                 presets: Sequence[str] = (), read_only: bool = False) -> None:
        import pathgate

        self._backend = pathgate.Backend(pathgate.Resolver(
            roots={ROOT_KEY: root}, presets=list(presets),
            read_only=[ROOT_KEY] if read_only else None))
        self._backend.configure_execute(env=dict(env), output_cap=OUTPUT_CAP)

    def run(self, command: str) -> Result:
        res = self._backend.execute(command, timeout=STEP_TIMEOUT)
        return Result(res.output, res.exit_code, res.truncated)


class CInside:
    """``pathgate_exec_run`` through the ``wl_exec`` driver (wl_exec.c)."""

    api = "c"

    def __init__(self, root: Path, env: Mapping[str, str], driver: str) -> None:
        self._argv = [driver, ROOT_KEY, str(root), str(OUTPUT_CAP), str(STEP_TIMEOUT * 1000)]
        for key, value in env.items():
            self._argv += ["-e", f"{key}={value}"]
        self._argv.append("--")

    def run(self, command: str) -> Result:
        proc = subprocess.run(self._argv + [command], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=STEP_TIMEOUT + 60)
        status = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        if proc.returncode == 2 and status:
            # pathgate refused: a result, as Backend.execute makes it
            return Result(f"Error: {status[-1]}", None, False)
        match = re.fullmatch(r"exit=(-?\d+) truncated=([01]) timed_out=[01] protections=\d+",
                             status[-1] if status else "")
        if proc.returncode != 0 or match is None:
            raise WorkloadError(f"wl_exec failed (status {proc.returncode}): {proc.stderr!r}")
        return Result(_decode(proc.stdout), int(match[1]), match[2] == "1")


class Outside:
    """A plain ``/bin/sh -c`` in the other copy of the tree."""

    def __init__(self, root: Path, env: Mapping[str, str]) -> None:
        self._root = root
        self._env = dict(env)

    def run(self, command: str) -> Result:
        proc = subprocess.Popen(["/bin/sh", "-c", command], cwd=self._root, env=self._env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            raw, _ = proc.communicate(timeout=STEP_TIMEOUT)
            code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raw, _ = proc.communicate()
            code = 124
        return Result(_decode(raw[:OUTPUT_CAP]), code, len(raw) > OUTPUT_CAP)


# ----------------------------------------------------------- normalising


# A path is replaced only where it is a whole path (or a prefix of one
# ending at `/`): not inside a longer name (`/tmp` in `/usr/tmp` or `/tmpx`).
_BEFORE = r"(?<![\w.~-])"
_AFTER = r"(?![\w.~-])"


def normalise(text: str, pairs: Sequence[tuple[str, str]]) -> str:
    """Replaces each path of ``pairs`` (path, placeholder) in ``text`` by its
    placeholder, in one pass (a replacement is never replaced again), the
    longest path first where several match, only at path boundaries."""
    table = {path: placeholder for path, placeholder in pairs if path}
    if not table:
        return text
    alternatives = "|".join(re.escape(p) for p in sorted(table, key=len, reverse=True))
    return re.sub(f"{_BEFORE}(?:{alternatives}){_AFTER}", lambda m: table[m[0]], text)


@dataclass
class PathMap:
    """What a path is called on each side.

    Built from what pathgate reports, never assumed: ``view_root`` is what
    ``pwd -P`` prints inside the root (today ``/root:work``; the view may
    spell it otherwise; ``pwd -L``, the ``PWD`` pathgate gives the command,
    is added as a second spelling where it differs), ``HOME`` and
    ``TMPDIR`` are what the view's environment says. Each view path has a twin outside: the outside copy
    of the tree, or a fresh directory for a path the view keeps elsewhere
    (a private ``/tmp``), removed by :meth:`close`. Inside, the view paths and the host path of the
    inside copy become placeholders (``<ROOT>``, ``<HOME>``, ``<TMP>``);
    outside, their twins do.
    """

    host_in: Path
    host_out: Path
    view_root: str
    twin_dir: str = "/tmp"
    entries: list[tuple[str, str, str]] = field(default_factory=list)  # placeholder, view, outside
    twins: list[str] = field(default_factory=list)  # directories made for view paths (removed)

    def __post_init__(self) -> None:
        self.entries.append(("<ROOT>", self.view_root, str(self.host_out)))

    def outside_path(self, view_path: str) -> str:
        """The outside twin of a view path (made on first use)."""
        for _, view, out in sorted(self.entries, key=lambda e: -len(e[1])):
            if view_path == view or view_path.startswith(view.rstrip("/") + "/"):
                return out + view_path[len(view):]
        # Short, directly in /tmp: a twin of the view's /tmp holds Unix
        # sockets (multiprocessing), whose paths must stay under 108 bytes.
        twin = tempfile.mkdtemp(prefix="pathgate-wl-", dir=self.twin_dir)
        self.twins.append(twin)
        return twin

    def close(self) -> None:
        for twin in self.twins:
            shutil.rmtree(twin, ignore_errors=True)

    def add(self, placeholder: str, view_path: str, outside: str | None = None) -> None:
        """Names ``view_path`` ``placeholder``; its twin is ``outside`` (by
        default found or made by :meth:`outside_path`)."""
        if view_path and all(view_path != view for _, view, _ in self.entries):
            twin = outside if outside is not None else self.outside_path(view_path)
            self.entries.append((placeholder, view_path, twin))

    def translate(self, value: str) -> str:
        """A value of the view's environment, its view paths made outside ones."""
        return normalise(value, [(view, out) for _, view, out in self.entries])

    def inside(self, text: str) -> str:
        pairs = [(view, ph) for ph, view, _ in self.entries]
        pairs.append((str(self.host_in), "<ROOT>"))
        return normalise(text, pairs)

    def outside(self, text: str) -> str:
        return normalise(text, [(out, ph) for ph, _, out in self.entries])


# --------------------------------------------------------------- running


def _setup_env(scratch: Path) -> dict[str, str]:
    home = scratch / "setup-home"
    home.mkdir()
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
            "npm_config_update_notifier": "false", "npm_config_fund": "false",
            "npm_config_audit": "false"}


PROBE = "pwd -P && pwd -L && env -0"


def _probe(inside: PythonInside | CInside) -> tuple[str, str, dict[str, str]]:
    """The view's spelling of the root (physical, and the logical one the
    command is given as PWD, if it differs) and the command's environment."""
    res = inside.run(PROBE)
    if res.exit_code != 0 or res.output.count("\n") < 2:
        raise WorkloadError(f"the probe `{PROBE}` failed inside: {res}")
    pwd, logical, rest = res.output.split("\n", 2)
    env = {}
    for entry in rest.split("\0"):
        if "=" in entry:
            key, _, value = entry.partition("=")
            env[key] = value
    return pwd, logical, env


def _describe(side: str, r: Result) -> str:
    return f"{side}: exit {r.exit_code}, truncated {r.truncated}, {len(r.output)} chars"


def _diff(inside: str, outside: str, limit: int = 60) -> str:
    lines = list(difflib.unified_diff(outside.splitlines(), inside.splitlines(),
                                      "outside", "inside", lineterm="", n=2))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)


def run_workload(workload: Workload, scratch: Path, api: str = "py",
                 driver: str | None = None) -> None:
    """Runs every step of ``workload`` inside and outside; raises
    ViewMismatch at the first step that differs, WorkloadError when the
    workload itself cannot run."""
    seed = scratch / "seed" / ROOT_KEY
    host_in = scratch / "in" / ROOT_KEY
    host_out = scratch / "out" / ROOT_KEY
    seed.mkdir(parents=True)
    if workload.setup is not None:
        try:
            workload.setup(seed, _setup_env(scratch))
        except (OSError, subprocess.CalledProcessError) as exc:
            raise WorkloadError(f"setup of {workload.name} failed: {exc}") from exc
    for copy in (host_in, host_out):
        copy.parent.mkdir()
        shutil.copytree(seed, copy, symlinks=True)

    if api == "py":
        inside: PythonInside | CInside = PythonInside(host_in, workload.env,
                                                      read_only=workload.read_only)
    elif api == "py-vcs":  # the policy's presets in the view (docs/exec.md "Policy in commands")
        inside = PythonInside(host_in, workload.env, presets=("vcs", "secrets", "agent-config"))
    elif api == "c":
        if not driver or not os.access(driver, os.X_OK):
            raise WorkloadError(f"the C API driver wl_exec is missing ({driver!r}): build it")
        inside = CInside(host_in, workload.env, driver)
    else:
        raise ValueError(api)

    view_root, logical_root, view_env = _probe(inside)
    paths = PathMap(host_in, host_out, view_root)
    paths.add("<ROOT>", logical_root, str(host_out))
    try:
        _compare(workload, api, inside, paths, view_env)
    finally:
        paths.close()


def _compare(workload: Workload, api: str, inside: PythonInside | CInside, paths: PathMap,
             view_env: Mapping[str, str]) -> None:
    paths.add("<HOME>", view_env.get("HOME", ""))
    paths.add("<TMP>", view_env.get("TMPDIR", ""))
    out_env = {k: paths.translate(v) for k, v in view_env.items() if k not in SHELL_VARIABLES}
    outside = Outside(paths.host_out, out_env)

    missing = [t for t in workload.tools if shutil.which(t, path=out_env.get("PATH", "")) is None]
    if missing:
        raise WorkloadError(f"{workload.name} needs {', '.join(missing)}, not installed "
                            "(scripts/setup.sh installs every tool of this suite)")

    # After the first mismatch the inside's tree has diverged, so later
    # steps run outside only: each still has to exit as the workload says,
    # so a workload broken in a later step fails even while a view gap
    # hides it (an expected failure is ViewMismatch and nothing else).
    mismatch: ViewMismatch | None = None
    for number, step in enumerate(workload.steps, 1):
        out = outside.run(step.command)
        if out.exit_code != step.expect:
            raise WorkloadError(
                f"step {number} of {workload.name} exits {out.exit_code} OUTSIDE, not "
                f"{step.expect}: the workload is broken\n$ {step.command}\n{out.output}")
        if mismatch is not None:
            continue
        ins = inside.run(step.command)
        got, want = paths.inside(ins.output), paths.outside(out.output)
        for pattern in step.volatile:
            got, want = re.sub(pattern, "<V>", got), re.sub(pattern, "<V>", want)
        if (ins.exit_code, ins.truncated, got) != (out.exit_code, out.truncated, want):
            mismatch = ViewMismatch(
                f"{workload.name} ({api}), step {number}: inside differs from outside\n"
                f"$ {step.command}\n{_describe('inside', ins)}\n{_describe('outside', out)}\n"
                f"--- inside output (normalised) ---\n{got[:3000]}\n"
                f"--- diff ---\n{_diff(got, want)}")
    if mismatch is not None:
        raise mismatch
