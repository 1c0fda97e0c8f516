"""The life of a ``pathgate mcp`` process: one resolver and tool table for
every session, the sessions themselves, and the shutdown.

A :class:`Server` makes the per-session state (:meth:`Server.open`: a
:class:`~.tools.ConnectionTools` with its own Session, and the handlers of
its Peer) for whatever transport carries the session (stdio, or one HTTP
session per ``Mcp-Session-Id``), and closes it (:meth:`Server.close`).

Shutdown (:meth:`Server.shutdown`, on SIGTERM, SIGINT or the end of
input): new requests are refused (``-32000`` "Server is shutting down"),
running commands are killed at once (their processes and their private
temporary directories go with them: the execute call returns and cleans
up), the calls still in flight get ``shutdown_timeout`` seconds to finish
(walks stop early), and the sessions are closed. Nothing the server made
is left behind: writes are atomic (a temporary file renamed, or removed),
the Unix socket is removed.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import typing as _t
from typing import Any

from .. import Resolver
from .calllog import CallLog
from .limits import Limits
from .protocol import Connection, Peer, Tracker
from .tools import ConnectionTools, Running, Tool, build_tools, quick_predicate, tool_handlers

__all__ = ["INSTRUCTIONS", "Server", "kill_commands"]

log = logging.getLogger("pathgate.mcp")

INSTRUCTIONS = (
    "Files are named by canonical addresses: root:<key>/<path> for a configured root and "
    "mod:<Name>/<path> for a mod (list_allowed_directories lists them). Relative paths resolve "
    "against the current directory (cwd_get, cwd_push, cwd_pop). Nothing outside the roots can "
    "be reached."
)


def _server_info() -> dict[str, Any]:
    from .. import __version__

    return {"name": "pathgate", "title": "pathgate", "version": __version__}


def kill_commands() -> int:
    """Kills (SIGKILL) every child process of this process: the commands
    of execute, each the first process of its own PID namespace (so all of
    its processes end with it). The number signalled."""
    killed = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 0
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids = [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            continue
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    return killed


class Server:
    """What every session of one process shares."""

    def __init__(self, resolver: Resolver, *, allow_execute: bool = False, limits: Limits | None = None,
                 call_log: CallLog | None = None, shutdown_timeout: float = 10.0,
                 execute_options: dict[str, Any] | None = None) -> None:
        self.resolver = resolver
        self.allow_execute = allow_execute
        # Backend.configure_execute's arguments (the network allowlist, the
        # toolchains); None: the defaults
        self.execute_options = execute_options
        self.limits = limits or Limits()
        self.call_log = call_log or CallLog()
        self.shutdown_timeout = shutdown_timeout
        self.tracker = Tracker()
        self.running = Running()  # the commands running now
        opts = execute_options or {}
        self.tools: list[Tool] = build_tools(allow_execute=allow_execute, limits=self.limits,
                                             allow_domains=opts.get("allow_domains"),
                                             toolchains=opts.get("toolchains"),
                                             toolchains_at_host_path=bool(
                                                 opts.get("toolchains_at_host_path")))
        self._lock = threading.Lock()
        self._sessions: dict[str, ConnectionTools] = {}
        self.stopped = threading.Event()

    # ---------------------------------------------------------- sessions

    def peer_arguments(self, state: ConnectionTools, peer_ref: list[Peer]) -> dict[str, Any]:
        """The keyword arguments of a Peer serving state (peer_ref gets the
        Peer once made, for the notification handlers)."""

        def initialized(params: dict[str, Any]) -> None:
            if peer_ref:
                state.scope.client_capabilities(peer_ref[0].client_capabilities)

        return {
            "handlers": tool_handlers(self.tools, state, self.call_log),
            "server_info": _server_info(),
            "capabilities": {"tools": {"listChanged": False}},
            "instructions": INSTRUCTIONS,
            "quick": quick_predicate(self.tools, state),
            "notifications": {"notifications/initialized": initialized,
                              "notifications/roots/list_changed": state.scope.changed},
            "tracker": self.tracker,
        }

    def open(self, label: str) -> tuple[Peer, ConnectionTools]:
        """A new session: its state and a Peer serving it."""
        state = ConnectionTools(self.resolver, allow_execute=self.allow_execute, limits=self.limits,
                                label=label, execute_options=self.execute_options,
                                running=self.running)
        ref: list[Peer] = []
        peer = Peer(**self.peer_arguments(state, ref))
        ref.append(peer)
        self._add(label, state)
        return peer, state

    def stdio(self, rfile: _t.IO[bytes], wfile: _t.IO[bytes], *, workers: int = 16,
              label: str = "stdio") -> Connection:
        """The one session of stdio: a Connection over the two streams."""
        state = ConnectionTools(self.resolver, allow_execute=self.allow_execute, limits=self.limits,
                                label=label, execute_options=self.execute_options,
                                running=self.running)
        ref: list[Peer] = []
        kw = self.peer_arguments(state, ref)
        handlers = kw.pop("handlers")
        conn = Connection(rfile, wfile, handlers, workers=workers, **kw)
        ref.append(conn)
        self._add(label, state)
        return conn

    def _add(self, label: str, state: ConnectionTools) -> None:
        with self._lock:
            self._sessions[label] = state
        log.info("session %s opened", label)

    def close(self, label: str) -> None:
        """Ends a session: its Session (and its directory stack) go."""
        with self._lock:
            state = self._sessions.pop(label, None)
        if state is not None:
            log.info("session %s closed (tokens live: %d)", label, len(self.resolver))

    @property
    def session_count(self) -> int:
        with self._lock:
            return len(self._sessions)

    # ---------------------------------------------------------- shutdown

    def shutdown(self, reason: str) -> bool:
        """Refuses new requests, kills running commands, waits (at most
        shutdown_timeout) for the calls in flight, closes every session.
        True when every call finished."""
        started = time.monotonic()
        self.tracker.stop()
        # what is reported killed: the commands running now (execute calls
        # in flight) that were signalled; a child of this process that is
        # no command (e.g. a namespace kept for reuse) goes too, uncounted
        killed = min(self.running.count, kill_commands())
        deadline = started + self.shutdown_timeout
        finished = self.tracker.wait_idle(max(0.0, deadline - time.monotonic()))
        # a command started while the first kill ran
        if not finished or kill_commands():
            finished = self.tracker.wait_idle(max(0.0, deadline - time.monotonic()))
        with self._lock:
            labels = list(self._sessions)
        for label in labels:
            self.close(label)
        log.info("stopped (%s) after %.2f s: %d call(s) logged, %d command(s) killed, %s, "
                 "tokens live: %d", reason, time.monotonic() - started, self.call_log.calls,
                 killed, "every call finished" if finished
                 else f"{self.tracker.active} call(s) abandoned", len(self.resolver))
        self.stopped.set()
        return finished
