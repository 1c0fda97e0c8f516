"""Client roots: a client that offers MCP roots (``roots`` in its
capabilities) narrows what its session may reach, never widens it.

The server asks ``roots/list`` before the first tool call of the session,
and again after ``notifications/roots/list_changed``. Each root (a
``file://`` URI) is resolved like any path: one that names an existing
directory inside a configured root or mod is kept (as its canonical
address); any other (outside every base, missing, not a directory, not a
``file:`` URI) is ignored and logged. When at least one is kept, every path
a tool is given must lie below one of them, checked on the resolved host
location with its symlinks followed (so a symlink inside a client root
that leads elsewhere in the base is refused); the session's directory moves
into the first of them when it lies outside. When none is kept (or the
client sent none, or did not answer in time) the operator's configuration
stands alone: client roots are a narrowing the client asks for, and the
configured bases stay the boundary the kernel enforces either way.

Limits of the narrowing (the bases are not narrowed for the kernel):
walks below a client root (grep, search_files, directory_tree) read a file
reached through a symlink that leads elsewhere inside the same base, as
they do anywhere; ``execute`` runs in a directory inside the client roots
but its command sees every configured base.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from .. import Resolver, Session
from .protocol import Out, Peer, RpcError

__all__ = ["Scope"]

log = logging.getLogger("pathgate.mcp")

# How long a tool call waits for the client's roots/list answer.
ASK_TIMEOUT = 5.0


class Scope:
    """One session's client roots: None (the operator's configuration), or
    the kept roots as (canonical address, host directory with symlinks
    resolved)."""

    def __init__(self, resolver: Resolver, session: Session, label: str = "") -> None:
        self._resolver = resolver
        self._session = session
        self._label = label
        self.allowed: tuple[tuple[str, str], ...] | None = None
        self.stale = False  # roots must be (re)asked before the next call
        self._offered = False
        self._lock = threading.Lock()

    @property
    def addresses(self) -> tuple[str, ...] | None:
        return None if self.allowed is None else tuple(a for a, _ in self.allowed)

    # ---------------------------------------------------------- protocol

    def client_capabilities(self, capabilities: dict[str, Any]) -> None:
        """After initialize: a client offering roots is asked for them."""
        self._offered = isinstance(capabilities.get("roots"), dict)
        self.stale = self._offered

    def changed(self, params: dict[str, Any]) -> None:
        """notifications/roots/list_changed."""
        if self._offered:
            self.stale = True

    def refresh(self, peer: Peer, out: Out, timeout: float = ASK_TIMEOUT) -> None:
        """Asks the client for its roots when they are not known (cheap
        otherwise). A failed or late answer leaves the scope as it was."""
        if not self.stale:
            return
        with self._lock:
            if not self.stale:
                return
            self.stale = False
            try:
                result = peer.ask("roots/list", {}, out, timeout)
            except (TimeoutError, RpcError) as e:
                log.warning("session %s: roots/list failed (%s): the scope stays as it was",
                            self._label, e)
                return
            roots = result.get("roots") if isinstance(result, dict) else None
            self.apply(roots if isinstance(roots, list) else [])

    # ------------------------------------------------------------ scope

    def apply(self, roots: list[Any]) -> None:
        """Keeps the client roots that lie inside a configured base."""
        kept: list[tuple[str, str]] = []
        for root in roots:
            uri = root.get("uri") if isinstance(root, dict) else None
            found = self._directory(uri) if isinstance(uri, str) and uri.startswith("file:") else None
            if found is None:
                log.warning("session %s: client root %r ignored: not a directory inside a "
                            "configured root or mod", self._label, uri)
                continue
            if found not in kept:
                kept.append(found)
        if not kept:
            if roots:
                log.warning("session %s: no client root lies inside the configuration: it stands "
                            "as configured", self._label)
            self.allowed = None
            return
        self.allowed = tuple(kept)
        log.info("session %s: narrowed to %s", self._label, ", ".join(a for a, _ in kept))
        if not self.contains_address(self._session.pwd()):
            self._session.push(kept[0][0])

    def _directory(self, uri: str) -> tuple[str, str] | None:
        res = self._session.resolve(uri, require_exists=True)
        if not res.ok or res.ref is None:
            return None
        try:
            host = self._resolver.host_path(res.ref)
            address = str(res.ref)
        finally:
            self._resolver.release(res.ref)
        if host is None or not os.path.isdir(host):
            return None
        return address.rstrip("/"), os.path.realpath(host)

    def contains(self, ref: Any) -> bool:
        """Whether a resolved ref lies below a kept root (always, when no
        narrowing applies)."""
        allowed = self.allowed
        if allowed is None:
            return True
        host = self._resolver.host_path(ref)
        if host is None:
            return False
        real = os.path.realpath(host)
        return any(real == d or real.startswith(d.rstrip("/") + "/") for _, d in allowed)

    def contains_address(self, address: str) -> bool:
        if self.allowed is None:
            return True
        res = self._session.resolve(address, require_exists=False)
        if not res.ok or res.ref is None:
            return False
        try:
            return self.contains(res.ref)
        finally:
            self._resolver.release(res.ref)

