"""Contained command execution: deepagents' sandbox protocol for Backend.

``Backend`` mixes in :class:`SandboxMixin`, which adds ``execute``,
``aexecute`` and ``id``, so a Backend satisfies deepagents'
``SandboxBackendProtocol``. A command runs as ``/bin/sh -c <command>`` in
its own user, mount, PID, IPC, UTS and network namespaces, seeing a view of
the bases instead of the host: the roots and mods at
``/pathgate/root/<key>`` and ``/pathgate/mod/<Name>`` (the file operations
accept those paths back; ``/root:<key>`` and ``/mod:<Name>`` name the same
directories), the system directories a shell needs read-only, a small
``/etc`` made for it, a private ``/tmp`` (``TMPDIR``) and a private home
(``HOME``, or a writable base's directory with ``home=``). The kernel
confines it further (Landlock, no_new_privs, seccomp, no capabilities, a
memory and pids cgroup where one can be had, resource limits); its network
is its own loopback unless the host's is allowed. Its working directory is
the session's cwd (or the first root for a Resolver). When a protection is
missing (no user namespaces, no Landlock) the command is refused unless
weaker protection is explicitly allowed (``allow_unconfined``);
``ExecuteResponse.protections`` says what ran. See docs/exec.md.

The GIL is released while the command runs; ``aexecute`` runs it in a
worker thread.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import _core
from ._core import Error, Resolver, Session

__all__ = ["ExecuteResponse", "SandboxMixin", "exec_capabilities", "execute", "landlock_abi"]

#: Names of the protections a result may report, by their C bit (the one
#: table both front ends read: bindings/result_fields.h).
PROTECTIONS: dict[str, int] = dict(_core._protections)


def _protections(bits: int) -> frozenset[str]:
    return frozenset(name for name, bit in PROTECTIONS.items() if bits & bit)


@dataclass
class ExecuteResponse:
    """Result of a command (deepagents' field names, plus three extras).

    ``output`` is stdout and stderr merged in order (UTF-8, undecodable bytes
    replaced), at most ``output_cap`` bytes of it; ``truncated`` says more
    was written. ``exit_code`` is the shell's status, 128+N after signal N,
    124 after the timeout (``timed_out``), and None when the command could
    not be run at all (``output`` then holds the reason). ``landlock_abi``
    is the Landlock ABI enforced (0: unconfined or not run);
    ``protections`` the names (see ``PROTECTIONS``) of what confined it;
    ``quarantined`` the canonical addresses of links the command left at
    protected names, moved into the quarantine when it ended (docs/exec.md
    "Planted links"; ``pathgate quarantine list`` shows them).
    ``kind`` and ``error`` are those of every other result: both None when
    the command ran to its end (whatever its exit status); otherwise
    ``kind`` is the core's error name (``unsupported``, ``invalid_path``,
    ``not_a_directory``, ``policy_denied``, ...) of a command that could
    not be run, or ``timeout`` for one killed at its timeout, and ``error``
    the message (also at the start of ``output`` for a command not run).
    """

    output: str
    exit_code: int | None = None
    truncated: bool = False
    timed_out: bool = False
    landlock_abi: int = 0
    protections: frozenset[str] = frozenset()
    kind: str | None = None
    error: str | None = None
    quarantined: tuple[str, ...] = ()


def landlock_abi() -> int:
    """The Landlock ABI a command would run under now (0: the kernel has none)."""
    return _core._landlock_abi()


def exec_capabilities() -> frozenset[str]:
    """What this build's commands can get: the names (see ``PROTECTIONS``)
    of every protection the sandbox can apply here, the Landlock ones as far
    as the kernel goes. Empty when this build has no commands (the POSIX
    backend, Windows): then every ``execute`` raises ``pathgate.Error``
    with ``.kind == "unsupported"``. A result's ``protections`` say what
    one command actually got."""
    return _protections(_core._exec_capabilities())


def execute(
    target: Resolver | Session,
    command: str,
    *,
    timeout: float | None = None,
    cwd: str | None = None,
    output_cap: int | None = None,
    allow_network: bool = False,
    allow_unconfined: bool = False,
    env: Mapping[str, str] | None = None,
    max_processes: int | None = None,
    max_memory: int | None = None,
    max_cpu_seconds: int | None = None,
    max_file_size: int | None = None,
    tmp_size: int | None = None,
    home: str | None = None,
    allow_domains: Sequence[str] | None = None,
    toolchains: Sequence[str | os.PathLike[str]] | None = None,
    toolchains_at_host_path: bool = False,
    id_range: str | tuple[int, int] | None = None,
) -> ExecuteResponse:
    """Runs ``command`` contained to ``target``'s roots and mods.

    ``timeout`` is in seconds (default 120), ``cwd`` a canonical address of a
    directory (default: the session's cwd, or the resolver's first root),
    ``output_cap`` in bytes (default 100,000), ``env`` entries are added to
    (or replace) the minimal default environment. ``allow_unconfined`` allows
    weaker protection than the full set (see docs/exec.md). The limits
    (None = default, docs/exec.md): ``max_processes`` (512),
    ``max_memory`` (bytes; 4 GiB), ``max_cpu_seconds``
    (600), ``max_file_size`` (bytes; 1 GiB), ``tmp_size`` (bytes of the
    private /tmp and home; 256 MiB). ``home`` is the address of a directory
    in a writable base to be the home (caches such as npm's and pip's then
    last from one command to the next; default: a private, empty one).
    ``allow_domains`` is the network allowlist (docs/exec.md "Network"):
    host names, ``*.`` wildcards and IP literals, each with an optional
    ``:port``; the command reaches those only, through a proxy on the host
    (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` are
    set), every decision an audit event (``Resolver(..., audit=fn)``).
    None = no allowlist; it excludes ``allow_network``.
    ``toolchains`` are host directories (a venv, ``~/.pyenv``, a node
    installation; docs/exec.md "Toolchains of the host") shown read-only
    at ``/pathgate/tool/<last component>``, each one's ``bin`` first in
    ``PATH``; with ``toolchains_at_host_path`` at their own host paths
    instead (where a venv's absolute paths work, and which commands then
    learn). Each is checked as a root is: not ``/``, not a home directory
    nor an ancestor of one.
    ``id_range`` (a root caller only; docs/exec.md "Ownership changes
    inside") is the range of host ids the command's ids 1..65533 map to,
    as an ``/etc/subuid`` entry ``root:first:count`` gives them:
    ``(first, count)``, ``"none"`` (only id 0: chown to another id fails),
    or None: root's own ``/etc/subuid``/``/etc/subgid`` entry, else the
    dedicated range from 2130706432. A range that holds a user's or group's
    id or another ``/etc/subuid`` range is refused.
    Raises ``pathgate.Error`` (``.kind``:
    ``unsupported``, ``invalid_path``, ``not_a_directory``, ...) when the
    command cannot be run.
    """
    return _execute(target, command, timeout=timeout, cwd=cwd, output_cap=output_cap,
                    allow_network=allow_network, allow_unconfined=allow_unconfined,
                    env=env, max_processes=max_processes, max_memory=max_memory,
                    max_cpu_seconds=max_cpu_seconds, max_file_size=max_file_size,
                    tmp_size=tmp_size, home=home,
                    allow_domains=_domains(allow_domains),
                    toolchains=_toolchains(toolchains),
                    toolchains_at_host_path=bool(toolchains_at_host_path),
                    id_range=_id_range(id_range))


def _id_range(value: str | tuple[int, int] | None) -> str | tuple[int, int] | None:
    """id_range as None, "none" or a (first, count) tuple of ints."""
    if value is None or value == "none":
        return value
    if (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        first, count = value
        if 0 <= first <= 0xFFFFFFFE and 2 <= count <= 0xFFFFFFFF:
            return (first, count)
    raise ValueError('id_range must be None, "none" or (first, count) with count >= 2')


def _domains(value: Sequence[str] | None) -> list[str] | None:
    """allow_domains as a list (a lone str is a mistake, not its characters)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)):
        raise TypeError("allow_domains must be a list of str")
    return list(value)


def _toolchains(value: Sequence[str | os.PathLike[str]] | None) -> list[str] | None:
    """toolchains as a list of str (a lone path is a mistake, not its characters)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError("toolchains must be a list of paths")
    out = []
    for item in value:
        path = os.fspath(item)
        if not isinstance(path, str):
            raise TypeError("toolchains must be a list of str paths")
        out.append(path)
    return out


def _execute(target: Resolver | Session, command: str, **kwargs: Any) -> ExecuteResponse:
    output, code, truncated, timed_out, abi, prot, quarantined = _core._execute(
        target, command, **kwargs)
    seconds = kwargs.get("timeout")
    return ExecuteResponse(output=output, exit_code=code, truncated=truncated,
                           timed_out=timed_out, landlock_abi=abi,
                           protections=_protections(prot),
                           kind="timeout" if timed_out else None,
                           error=(f"the command was killed after its timeout of "
                                  f"{seconds if seconds is not None else 120} seconds"
                                  if timed_out else None),
                           quarantined=tuple(quarantined))


class SandboxMixin:
    """``execute``/``aexecute``/``id`` for a class holding ``_owner`` (a
    Resolver or Session), i.e. pathgate.Backend."""

    __slots__ = ("_sandbox_id", "_exec_options")

    _owner: Resolver | Session
    _sandbox_id: str
    _exec_options: dict[str, Any]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        self = super().__new__(cls)
        # Set here, once, so that `id` is stable and race-free without
        # touching the subclass's __init__.
        self._sandbox_id = f"pathgate-{uuid.uuid4().hex}"
        self._exec_options = {}
        return self

    @property
    def id(self) -> str:
        """A stable identifier of this backend (the sandbox protocol's ``id``)."""
        return self._sandbox_id

    def configure_execute(
        self,
        *,
        allow_network: bool = False,
        allow_unconfined: bool = False,
        output_cap: int | None = None,
        env: Mapping[str, str] | None = None,
        max_processes: int | None = None,
        max_memory: int | None = None,
        max_cpu_seconds: int | None = None,
        max_file_size: int | None = None,
        tmp_size: int | None = None,
        home: str | None = None,
        allow_domains: Sequence[str] | None = None,
        toolchains: Sequence[str | os.PathLike[str]] | None = None,
        toolchains_at_host_path: bool = False,
        id_range: str | tuple[int, int] | None = None,
    ) -> None:
        """Options of every later ``execute`` on this backend (defaults:
        no network, refuse to run with weaker protection, 100,000 bytes
        kept, the minimal environment, the default limits of ``execute``,
        a private home, no network allowlist, no toolchain). A malformed
        ``allow_domains`` entry raises ``pathgate.Error`` (a ``ValueError``,
        kind ``invalid_argument``) here, not at every later command; so does a
        toolchain that is not an existing directory, is ``/``, a home or an
        ancestor of one, or (at its host path) meets the view's own
        entries."""
        domains = _domains(allow_domains)
        if domains is not None:
            _core._check_allow_domains(domains)
        ids = _id_range(id_range)
        tools = _toolchains(toolchains)
        if tools:
            _core._check_toolchains(tools, bool(toolchains_at_host_path), home is not None)
        self._exec_options = {
            "allow_network": bool(allow_network),
            "allow_unconfined": bool(allow_unconfined),
            "output_cap": output_cap,
            "env": dict(env) if env is not None else None,
            "max_processes": max_processes,
            "max_memory": max_memory,
            "max_cpu_seconds": max_cpu_seconds,
            "max_file_size": max_file_size,
            "tmp_size": tmp_size,
            "home": home,
            "allow_domains": domains,
            "toolchains": tools,
            "toolchains_at_host_path": bool(toolchains_at_host_path),
            "id_range": ids,
        }

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Runs ``command`` in the backend's working directory, contained.

        A command that cannot be run (a protection missing, an invalid
        working directory) is a result with ``exit_code=None`` and the reason as
        ``output``, like the other Backend failures; misuse raises."""
        try:
            return execute(self._owner, command, timeout=timeout, **self._exec_options)
        except Error as exc:
            return ExecuteResponse(output=f"Error: {exc}", exit_code=None, kind=exc.kind,
                                   error=str(exc))

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """``execute`` in a worker thread."""
        return await asyncio.to_thread(self.execute, command, timeout=timeout)
