"""Contained command execution: deepagents' sandbox protocol for Backend.

``Backend`` mixes in :class:`SandboxMixin`, which adds ``execute``,
``aexecute`` and ``id``, so a Backend satisfies deepagents'
``SandboxBackendProtocol``. A command runs as ``/bin/sh -c <command>`` in a
child confined by the kernel (Landlock, no_new_privs, seccomp, no
capabilities): it reads and writes beneath the resolver's roots and mods,
reads the system directories a shell needs, has a private temporary
directory as ``HOME``/``TMPDIR``, and has no network unless allowed. Its
working directory is the session's cwd (or the first root for a Resolver).
Without Landlock in the kernel the command is refused unless unconfined
execution is explicitly allowed. See docs/exec.md.

The GIL is released while the command runs; ``aexecute`` runs it in a
worker thread.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _core
from ._core import Error, Resolver, Session

__all__ = ["ExecuteResponse", "SandboxMixin", "execute", "landlock_abi"]


@dataclass
class ExecuteResponse:
    """Result of a command (deepagents' field names, plus two extras).

    ``output`` is stdout and stderr merged in order (UTF-8, undecodable bytes
    replaced), at most ``output_cap`` bytes of it; ``truncated`` says more
    was written. ``exit_code`` is the shell's status, 128+N after signal N,
    124 after the timeout (``timed_out``), and None when the command could
    not be run at all (``output`` then holds the reason). ``landlock_abi``
    is the Landlock ABI enforced (0: unconfined or not run).
    """

    output: str
    exit_code: int | None = None
    truncated: bool = False
    timed_out: bool = False
    landlock_abi: int = 0


def landlock_abi() -> int:
    """The Landlock ABI a command would run under now (0: the kernel has none)."""
    return _core._landlock_abi()


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
) -> ExecuteResponse:
    """Runs ``command`` contained to ``target``'s roots and mods.

    ``timeout`` is in seconds (default 120), ``cwd`` a canonical address of a
    directory (default: the session's cwd, or the resolver's first root),
    ``output_cap`` in bytes (default 100,000), ``env`` entries are added to
    (or replace) the minimal default environment. Raises ``pathgate.Error``
    (``.kind``: ``unsupported``, ``invalid_path``, ``not_a_directory``, ...)
    when the command cannot be run.
    """
    output, code, truncated, timed_out, abi = _core._execute(
        target, command, cwd=cwd, timeout=timeout, output_cap=output_cap,
        allow_network=allow_network, allow_unconfined=allow_unconfined, env=env)
    return ExecuteResponse(output=output, exit_code=code, truncated=truncated,
                           timed_out=timed_out, landlock_abi=abi)


class SandboxMixin:
    """``execute``/``aexecute``/``id`` for a class holding ``_owner`` (a
    Resolver or Session), i.e. pathgate.Backend."""

    __slots__ = ("_sandbox_id", "_exec_options")

    _owner: Resolver | Session

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
    ) -> None:
        """Options of every later ``execute`` on this backend (defaults:
        no network, refuse to run without Landlock, 100,000 bytes kept,
        the minimal environment)."""
        self._exec_options = {
            "allow_network": bool(allow_network),
            "allow_unconfined": bool(allow_unconfined),
            "output_cap": output_cap,
            "env": dict(env) if env is not None else None,
        }

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Runs ``command`` in the backend's working directory, contained.

        A command that cannot be run (no Landlock, an invalid working
        directory) is a result with ``exit_code=None`` and the reason as
        ``output``, like the other Backend failures; misuse raises."""
        try:
            return execute(self._owner, command, timeout=timeout, **self._exec_options)
        except Error as exc:
            return ExecuteResponse(output=f"Error: {exc}", exit_code=None)

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        return await asyncio.to_thread(self.execute, command, timeout=timeout)
