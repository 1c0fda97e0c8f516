"""The Streamable HTTP transport of MCP (protocol 2025-06-18 and later) at
the endpoint ``/mcp``, over TCP (``--http HOST:PORT``) or a Unix socket
(``--unix PATH``): :class:`McpApp`, an ASGI application, served by uvicorn
with h11 (the ``pathgate[http]`` extra; Debian: ``python3-uvicorn``,
``python3-h11``) through :class:`HttpTransport`.

- ``POST /mcp`` carries one JSON-RPC message. A request is answered with
  ``application/json`` (one JSON object); when the server must ask the
  client something first (``roots/list``), the answer becomes a
  ``text/event-stream`` whose events are that request and then the
  response. A notification or a response is answered ``202 Accepted``. A
  message that cannot be taken: ``400`` with a JSON-RPC error (no id).
- Sessions: ``initialize`` (without ``Mcp-Session-Id``) opens one: a
  pathgate Session of its own, its id in the ``Mcp-Session-Id`` header of
  the answer (192 random bits). Every later request carries it: missing
  ``400``, unknown or ended ``404``. ``DELETE /mcp`` ends it. A session
  idle longer than ``idle_timeout`` is ended; at most ``max_sessions`` live
  at once (then ``503``).
- ``MCP-Protocol-Version`` (when sent) must be a version this server
  speaks, else ``400``. ``GET /mcp``: ``405``.
- Admission (:meth:`McpApp.admit`), decided on the request's head alone,
  before any byte of its body is read: an ``Origin`` that is not allowed
  ``403``; a ``Host`` that is not allowed ``403`` (on a loopback listener,
  or whenever hosts were allowed explicitly); with a token, a request
  without ``Authorization: Bearer <token>`` (constant time) ``401``.

What the connection layer (:class:`_GuardedH11Protocol`, a subclass of
uvicorn's h11 protocol) adds to uvicorn 0.17.6, which has no deadline on
a request's head: a connection must deliver a complete request head within
``HEADER_TIMEOUT`` seconds; until it was admitted once it reads at most
``PRE_AUTH_READ`` bytes at a time, is admitted or refused on its head
(h11 holds at most 16 KiB of an incomplete head), and a refusal closes it
before its body is buffered; at most ``MAX_PENDING`` connections wait for
admission at once (a new one closes the oldest), apart from the
``MAX_CONNECTIONS`` admitted ones, which unadmitted ones never take;
malformed framing is a ``400`` (one log line, no traceback).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import hmac
import ipaddress
import json
import logging
import os
import secrets
import socket
import stat
import threading
import time
import collections.abc as _abc
import typing as _t
from typing import Any

import h11
from uvicorn import Config as _UvConfig
from uvicorn import Server as _UvServer
from uvicorn.protocols.http.h11_impl import H11Protocol as _H11Protocol

from . import protocol
from .protocol import INVALID_REQUEST, SHUTTING_DOWN, SUPPORTED_PROTOCOL_VERSIONS, Peer
from .service import Server
from .tools import ConnectionTools

__all__ = ["HttpTransport", "McpApp", "is_loopback", "parse_host"]

log = logging.getLogger("pathgate.mcp")

ENDPOINT = "/mcp"
# Admitted connections at once (then 503): authenticated clients' capacity,
# which connections not yet admitted never take.
MAX_CONNECTIONS = 256
# Connections waiting for admission at once; one more closes the oldest.
MAX_PENDING = 64
# Seconds a connection has to deliver a request's complete head (from its
# opening, or from the first byte of a later request).
HEADER_TIMEOUT = 10.0
# Bytes read at a time before a connection's first admission.
PRE_AUTH_READ = 4096
# Seconds a kept-alive admitted connection may wait for its next request.
KEEP_ALIVE_TIMEOUT = 300
# Answers longer than this are sent in chunks as they are made.
LONG_ANSWER = 1 << 20
# Threads running calls that are not quick (and every call while the
# client's roots are to be asked).
WORKERS = 256

_LOOPBACK_NAMES = frozenset(("localhost", "127.0.0.1", "::1"))
_JSON = (b"content-type", b"application/json")

Scope = _abc.MutableMapping[str, Any]
Receive = _abc.Callable[[], _abc.Awaitable[dict[str, Any]]]
Send = _abc.Callable[[dict[str, Any]], _abc.Coroutine[Any, Any, None]]


def is_loopback(host: str) -> bool:
    """A host name or address that only this machine can reach."""
    h = host.strip("[]").lower()
    if h == "localhost" or h.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def parse_host(value: str) -> tuple[str, int | None]:
    """A Host header's (or ``--allow-host``'s) name and port (None when
    absent). ValueError when it is not ``NAME[:PORT]`` or ``[V6][:PORT]``."""
    v = value.strip().lower()
    if v.startswith("["):
        end = v.find("]")
        if end < 0:
            raise ValueError(f"not HOST[:PORT]: {value!r}")
        name, rest = v[1:end], v[end + 1:]
        if rest and not rest.startswith(":"):
            raise ValueError(f"not HOST[:PORT]: {value!r}")
        port_text = rest[1:] if rest else None
    elif v.count(":") > 1:
        name, port_text = v, None  # a bare IPv6 address
    else:
        name, sep, port_text = v.partition(":")
        port_text = port_text if sep else None
    if not name or any(c.isspace() or c in "/?#@" for c in name):
        raise ValueError(f"not HOST[:PORT]: {value!r}")
    if port_text is None:
        return name, None
    if not (port_text.isascii() and port_text.isdigit()) or not 0 < int(port_text) < 65536:
        raise ValueError(f"not a port in {value!r}")
    return name, int(port_text)


_DEFAULT_PORTS = {"http": 80, "https": 443}


class _Session:
    __slots__ = ("id", "label", "peer", "state", "last", "busy", "closed")

    def __init__(self, sid: str, label: str, peer: Peer, state: ConnectionTools) -> None:
        self.id = sid
        self.label = label
        self.peer = peer
        self.state = state
        self.last = time.monotonic()
        self.busy = 0
        self.closed = False


class Refusal(_t.NamedTuple):
    status: int
    message: str
    headers: tuple[tuple[bytes, bytes], ...] = ()


def _error_body(message: str, code: int = INVALID_REQUEST) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}},
                      separators=(",", ":")).encode()


async def _respond(send: Send, status: int, body: bytes = b"",
                   headers: _abc.Iterable[tuple[bytes, bytes]] = (), *, json_body: bool = False,
                   close: bool = False) -> None:
    h = list(headers)
    if json_body:
        h.append(_JSON)
    h.append((b"content-length", b"%d" % len(body)))
    if close:
        h.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": h})
    await send({"type": "http.response.body", "body": body})


async def _error(send: Send, status: int, message: str, *, code: int = INVALID_REQUEST,
                 headers: _abc.Iterable[tuple[bytes, bytes]] = (), close: bool = False) -> None:
    """A status with a JSON-RPC error (no id) as its body."""
    await _respond(send, status, _error_body(message, code), headers, json_body=True, close=close)


def _batches(chunks: _abc.Iterable[bytes], size: int = 1 << 16) -> _abc.Iterator[bytes]:
    batch: list[bytes] = []
    n = 0
    for c in chunks:
        if not c:
            continue
        batch.append(c)
        n += len(c)
        if n >= size:
            yield b"".join(batch)
            batch, n = [], 0
    if batch:
        yield b"".join(batch)


class _Reply:
    """Where one POSTed request's answer goes: a JSON body, or, once the
    server sent a message of its own first (``interim``), an event stream.

    The answer is collected (its first LONG_ANSWER bytes; the rest is left
    to iterate) and sent by :meth:`flush` on the event loop once the call
    returned, whether it ran there (a quick call) or in a worker. A worker
    writes itself only what cannot wait for the call's end: an event stream
    (the server asked the client first) and a long answer, each piece
    handed to the event loop and waited for, so it goes out as fast as the
    client reads it, and no faster."""

    def __init__(self, send: Send, status: int, headers: list[tuple[bytes, bytes]],
                 loop: asyncio.AbstractEventLoop | None) -> None:
        self.send = send
        self.status = status
        self.headers = headers
        self.loop = loop  # None: inline
        self.streaming = False
        self.sent = False  # an answer was given (it may wait for flush)
        self.done = False  # the response is complete
        self.body: list[bytes] = []
        self.rest: _abc.Iterator[bytes] | None = None

    # --------------------------------------------------------- threaded

    def _wait(self, coro: _abc.Coroutine[Any, Any, None]) -> None:
        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    async def _event(self, chunks: list[bytes], end: bool) -> None:
        if not self.streaming:
            self.streaming = True
            await self.send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"),
                *self.headers]})
        await self.send({"type": "http.response.body", "more_body": True,
                         "body": b"event: message\ndata: " + b"".join(chunks) + b"\n\n"})
        if end:
            await self.send({"type": "http.response.body", "body": b""})

    def interim(self, chunks: _abc.Iterable[bytes]) -> None:
        if self.loop is None:
            raise OSError(errno.EPIPE, "a quick call cannot ask the client")
        self._wait(self._event(list(chunks), False))

    def __call__(self, chunks: _abc.Iterable[bytes]) -> None:
        self.sent = True
        if self.streaming:  # threaded: the last event, and the stream's end
            self._wait(self._event(list(chunks), True))
            self.done = True
            return
        it = iter(chunks)
        size = 0
        for chunk in it:
            self.body.append(chunk)
            size += len(chunk)
            if size > LONG_ANSWER:
                self.rest = it
                break
        if self.loop is None or self.rest is None:
            return  # flush() sends it, on the event loop, after the call
        # threaded and long: its pieces are made here and written as the
        # client reads them
        rest, self.rest = self.rest, None
        body, self.body = b"".join(self.body), []
        self._wait(self.send({"type": "http.response.start", "status": self.status,
                              "headers": [_JSON, *self.headers]}))  # no length: chunked
        self._wait(self.send({"type": "http.response.body", "body": body, "more_body": True}))
        for chunk in _batches(rest):
            self._wait(self.send({"type": "http.response.body", "body": chunk, "more_body": True}))
        self._wait(self.send({"type": "http.response.body", "body": b""}))
        self.done = True

    def finish(self) -> None:
        """After a threaded request was handled: an event stream whose last
        event was not sent (cancelled) is ended here; anything else is left
        to :meth:`flush`."""
        if self.streaming and not self.done:
            self.sent = True
            self._wait(self.send({"type": "http.response.body", "body": b""}))
            self.done = True

    # ----------------------------------------------------------- either

    async def flush(self) -> None:
        """On the event loop, after the call: sends what was not sent yet
        (the collected answer, or 202 for a request not answered)."""
        if self.done:
            return
        self.done = True
        if not self.sent:
            self.sent = True
            await _respond(self.send, 202, b"", self.headers)
            return
        body, self.body = b"".join(self.body), []
        if self.rest is None:
            await _respond(self.send, self.status, body, self.headers, json_body=True)
            return
        rest, self.rest = self.rest, None
        await self.send({"type": "http.response.start", "status": self.status,
                         "headers": [_JSON, *self.headers]})  # no length: chunked
        await self.send({"type": "http.response.body", "body": body, "more_body": True})
        for chunk in _batches(rest):
            await self.send({"type": "http.response.body", "body": chunk, "more_body": True})
        await self.send({"type": "http.response.body", "body": b""})


def _header_map(raw: _abc.Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return headers


class McpApp:
    """The MCP endpoint as an ASGI application. Any ASGI server can host it
    (``__call__`` admits each request on its head, then serves it);
    :class:`HttpTransport` serves it with uvicorn and admits each request in
    the connection layer already, before its body is read."""

    def __init__(self, server: Server, *, token: str | None = None,
                 allowed_origins: _abc.Iterable[str] = (),
                 allowed_hosts: _abc.Iterable[str] = (), max_sessions: int = 64,
                 idle_timeout: float = 1800.0, workers: int = WORKERS) -> None:
        self.server = server
        self._token = token.encode("utf-8") if token else None
        self._origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)
        self._hosts = tuple(parse_host(h) for h in allowed_hosts)
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._labels = 0
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="pathgate-mcp-http")
        self.closing = False

    # ---------------------------------------------------------- admission

    def _host_allowed(self, value: str, loopback: bool) -> bool:
        try:
            name, port = parse_host(value)
        except ValueError:
            return False
        if loopback and name in _LOOPBACK_NAMES:
            return True
        return any(name == h and (p is None or p == port or (port is None and p in (80, 443)))
                   for h, p in self._hosts)

    def _origin_allowed(self, origin: str) -> bool:
        o = origin.rstrip("/").lower()
        if o in self._origins:
            return True
        scheme, sep, rest = o.partition("://")
        if not sep or scheme not in _DEFAULT_PORTS or not self._hosts:
            return False
        try:
            name, port = parse_host(rest)
        except ValueError:
            return False
        port = port if port is not None else _DEFAULT_PORTS[scheme]
        return any(name == h and (p is None or p == port) for h, p in self._hosts)

    def admit(self, raw: _abc.Iterable[tuple[bytes, bytes]], loopback: bool) -> Refusal | None:
        """None when a request with these headers may be served, else its
        refusal: Origin, Host (checked on a loopback listener, and on any
        listener once hosts were allowed explicitly), then the token."""
        origin = host = auth = None
        for name, value in raw:
            n = name.lower()
            if n == b"origin":
                origin = value
            elif n == b"host":
                host = value
            elif n == b"authorization":
                auth = value
        if origin is not None and not self._origin_allowed(origin.decode("latin-1")):
            return Refusal(403, "Forbidden: Origin not allowed")
        if (loopback or self._hosts) and not self._host_allowed((host or b"").decode("latin-1"), loopback):
            return Refusal(403, "Forbidden: Host not allowed")
        if self._token is not None:
            scheme, _, credential = (auth or b"").partition(b" ")
            given = credential.strip() if scheme.lower() == b"bearer" else b""
            if not hmac.compare_digest(given, self._token):
                return Refusal(401, "Unauthorized", ((b"www-authenticate", b'Bearer realm="pathgate"'),))
        return None

    # ---------------------------------------------------------------- ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        server = scope.get("server")
        loopback = server is not None and is_loopback(str(server[0]))
        refusal = self.admit(scope["headers"], loopback)
        if refusal is not None:
            await _error(send, refusal.status, refusal.message, headers=refusal.headers, close=True)
            return
        await self.admitted(scope, receive, send)

    async def admitted(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serves a request already admitted."""
        try:
            if scope["path"] != ENDPOINT:
                await _error(send, 404, f"Not Found: the endpoint is {ENDPOINT}")
                return
            h = _header_map(scope["headers"])
            version = h.get("mcp-protocol-version")
            if version is not None and version not in SUPPORTED_PROTOCOL_VERSIONS:
                await _error(send, 400, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
                return
            method = scope["method"]
            if method == "POST":
                await self._post(h, receive, send)
            elif method == "DELETE":
                await self._delete(h, send)
            else:
                await _error(send, 405, "Method Not Allowed", headers=((b"allow", b"POST, DELETE"),))
        except Exception:
            log.exception("internal error in the HTTP transport")
            raise

    async def _body(self, h: dict[str, str], receive: Receive) -> bytes | None:
        """The request's body, None when longer than the longest message."""
        length = h.get("content-length")
        if length is not None and (not length.isascii() or not length.isdigit()
                                   or int(length) > protocol.MAX_LINE):
            return None
        parts: list[bytes] = []
        size = 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":
                raise OSError(errno.ECONNRESET, "client went away")
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > protocol.MAX_LINE:
                return None
            parts.append(chunk)
            if not msg.get("more_body", False):
                return parts[0] if len(parts) == 1 else b"".join(parts)

    async def _post(self, h: dict[str, str], receive: Receive, send: Send) -> None:
        ctype = h.get("content-type", "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            await _error(send, 415, "Unsupported Media Type: send application/json")
            return
        accept = h.get("accept", "*/*").lower()
        if not any(t in accept for t in ("application/json", "text/event-stream", "*/*", "application/*")):
            await _error(send, 406, "Not Acceptable: accept application/json and text/event-stream")
            return
        try:
            body = await self._body(h, receive)
        except OSError:
            return
        if body is None:
            await _error(send, 413, f"Payload Too Large: at most {protocol.MAX_LINE} bytes", close=True)
            return
        sid = h.get("mcp-session-id")
        headers: list[tuple[bytes, bytes]] = []
        if sid is None:
            if not _is_initialize(body):
                await _error(send, 400, "Bad Request: Mcp-Session-Id header is required")
                return
            session = self._open()
            if session is None:
                await _error(send, 503, "Too many sessions", code=SHUTTING_DOWN)
                return
            headers.append((b"mcp-session-id", session.id.encode("ascii")))
        else:
            session = self._find(sid)
            if session is None:
                await _error(send, 404, "Not Found: no such session (initialize a new one)")
                return
        try:
            peer = session.peer
            if len(body) <= LONG_ANSWER:
                reply = _Reply(send, 400, headers, None)  # what accept answers is an error
                r = peer.accept(body, reply)
                if r is not None:
                    reply.status = 200
                    if not peer.quick(r):
                        await self._threaded(peer, r, reply)
                        return
                    peer.run(r)
                await reply.flush()
                return
            # a long message is parsed off the event loop too
            reply = _Reply(send, 400, headers, asyncio.get_running_loop())
            await asyncio.get_running_loop().run_in_executor(self._pool, self._accept_run, peer, body,
                                                             reply)
            await reply.flush()
        finally:
            self._release(session)

    async def _threaded(self, peer: Peer, req: protocol.Request, reply: _Reply) -> None:
        loop = asyncio.get_running_loop()
        reply.loop = loop
        await loop.run_in_executor(self._pool, self._run, peer, req, reply)
        await reply.flush()

    @staticmethod
    def _run(peer: Peer, req: protocol.Request, reply: _Reply) -> None:
        peer.run(req)
        reply.finish()

    @staticmethod
    def _accept_run(peer: Peer, body: bytes, reply: _Reply) -> None:
        r = peer.accept(body, reply)
        if r is not None:
            reply.status = 200
            peer.run(r)
        reply.finish()

    async def _delete(self, h: dict[str, str], send: Send) -> None:
        sid = h.get("mcp-session-id")
        if sid is None:
            await _error(send, 400, "Bad Request: Mcp-Session-Id header is required")
            return
        with self._lock:
            session = self._sessions.pop(sid, None)
        if session is None:
            await _error(send, 404, "Not Found: no such session")
            return
        self._end(session, "ended by the client")
        await _respond(send, 200)

    # ----------------------------------------------------------- sessions

    def _open(self) -> _Session | None:
        with self._lock:
            if self.closing:
                return None
            if len(self._sessions) >= self.max_sessions:
                self._reap_locked(time.monotonic())
            if len(self._sessions) >= self.max_sessions:
                return None
            self._labels += 1
            label = f"http-{self._labels}"
        peer, state = self.server.open(label)
        session = _Session(secrets.token_urlsafe(24), label, peer, state)
        session.busy = 1
        with self._lock:
            self._sessions[session.id] = session
        return session

    def _find(self, sid: str) -> _Session | None:
        with self._lock:
            session = self._sessions.get(sid)
            if session is not None:
                session.busy += 1
            return session

    def _release(self, session: _Session) -> None:
        with self._lock:
            session.busy -= 1
            session.last = time.monotonic()

    def _end(self, session: _Session, why: str) -> None:
        if session.closed:
            return
        session.closed = True
        log.info("session %s: %s", session.label, why)
        self.server.close(session.label)

    def _reap_locked(self, now: float) -> list[_Session]:
        idle = [s for s in self._sessions.values()
                if not s.busy and now - s.last > self.idle_timeout]
        for s in idle:
            del self._sessions[s.id]
        for s in idle:
            threading.Thread(target=self._end, args=(s, "idle too long"), daemon=True).start()
        return idle

    def reap(self) -> None:
        with self._lock:
            self._reap_locked(time.monotonic())

    @property
    def session_count(self) -> int:
        with self._lock:
            return len(self._sessions)

    def close(self) -> None:
        with self._lock:
            self.closing = True
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            s.closed = True


def _is_initialize(body: bytes) -> bool:
    try:
        msg = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(msg, dict) and msg.get("method") == "initialize" and "id" in msg


# ------------------------------------------------------- connection layer


_REASONS = {400: b"Bad Request", 401: b"Unauthorized", 403: b"Forbidden", 408: b"Request Timeout",
            431: b"Request Header Fields Too Large", 503: b"Service Unavailable"}


class _Guard:
    """What the connections of one transport share: those waiting for
    admission (oldest first) and those admitted."""

    def __init__(self, app: McpApp) -> None:
        self.app = app
        self.pending: dict[_GuardedH11Protocol, None] = {}
        self.admitted: set[_GuardedH11Protocol] = set()
        self.refused = 0


class _QuietLogger:
    """uvicorn's logger for a connection: one line, never a traceback."""

    def warning(self, msg: str, *args: Any, **kw: Any) -> None:
        log.info("HTTP: %s", msg % args if args else msg)

    info = debug = warning

    def error(self, msg: str, *args: Any, **kw: Any) -> None:
        log.error("HTTP: %s", msg % args if args else msg)

    def log(self, level: int, msg: str, *args: Any, **kw: Any) -> None:
        pass

    level = logging.INFO


class _Corked:
    """A transport whose writes within one turn of the event loop go out
    as one (uvicorn writes a response's head and body apart: two segments,
    and two wake-ups of the client, for one answer)."""

    __slots__ = ("_transport", "_loop", "_buf")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._buf: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._buf:
            self._loop.call_soon(self.flush)
        self._buf.append(data)

    def flush(self) -> None:
        buf, self._buf = self._buf, []
        if buf and not self._transport.is_closing():
            self._transport.write(b"".join(buf))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _GuardedH11Protocol(_H11Protocol):  # type: ignore[misc]
    """uvicorn's h11 protocol with a deadline on each request's head and
    admission before any body is read (see the module's docstring)."""

    guard: _Guard

    def __init__(self, config: Any, server_state: Any, _loop: Any = None) -> None:
        super().__init__(config, server_state, _loop)
        self.logger = _QuietLogger()
        self.app = self.guard.app.admitted
        self._next = self.conn.next_event
        self.conn.next_event = self._next_event
        self._timer: asyncio.TimerHandle | None = None
        self._raw: Any = None
        self._admitted = False
        self._loopback = False

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._raw = transport
        super().connection_made(_Corked(transport, self.loop))
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            self._loopback = is_loopback(str(sock.getsockname()[0]))
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        if hasattr(transport, "max_size"):
            transport.max_size = PRE_AUTH_READ  # the read size until admitted
        pending = self.guard.pending
        pending[self] = None
        while len(pending) > MAX_PENDING:  # the oldest waiting one goes
            oldest = next(iter(pending))
            del pending[oldest]
            oldest.transport.close()
        self._start_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        self.guard.pending.pop(self, None)
        self.guard.admitted.discard(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._timer is None and (self.cycle is None or self.cycle.response_complete):
            self._start_timer()  # a new request begins: its head has a deadline
        super().data_received(data)

    def _start_timer(self) -> None:
        self._stop_timer()
        self._timer = self.loop.call_later(HEADER_TIMEOUT, self._late)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _late(self) -> None:
        self._timer = None
        if not self.transport.is_closing():
            self._refuse(408, "Request Timeout: the request's head took too long")

    def _refuse(self, status: int, message: str,
                headers: _abc.Iterable[tuple[bytes, bytes]] = ()) -> None:
        """Answers status and closes the connection (whatever state h11
        is in: the bytes are written here)."""
        self.guard.refused += 1
        body = _error_body(message)
        head = [b"HTTP/1.1 %d %s" % (status, _REASONS.get(status, b"Error")),
                b"content-type: application/json", b"content-length: %d" % len(body),
                b"connection: close"]
        head += [k + b": " + v for k, v in headers]
        try:
            self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        finally:
            self.transport.close()

    def _next_event(self) -> Any:
        try:
            event = self._next()
        except h11.RemoteProtocolError as e:
            status = e.error_status_hint if e.error_status_hint in _REASONS else 400
            log.info("HTTP: malformed request refused (%d): %s", status, e)
            self._refuse(status, f"Bad Request: malformed HTTP ({e})")
            return h11.NEED_DATA
        if type(event) is h11.Request:
            self._stop_timer()
            refusal = self.guard.app.admit(event.headers, self._loopback)
            if refusal is not None:
                self._refuse(refusal.status, refusal.message, refusal.headers)
                return h11.NEED_DATA
            if not self._admitted:
                guard = self.guard
                if len(guard.admitted) >= MAX_CONNECTIONS:
                    self._refuse(503, "Too many connections")
                    return h11.NEED_DATA
                self._admitted = True
                guard.pending.pop(self, None)
                guard.admitted.add(self)
                if hasattr(self._raw, "max_size"):
                    self._raw.max_size = 256 * 1024  # asyncio's own
        return event


class HttpTransport:
    """Serves the sessions of a Server over HTTP on one or more listening
    sockets (TCP or Unix), until :meth:`close`: :class:`McpApp` on uvicorn,
    in an event loop of its own thread."""

    def __init__(self, server: Server, *, token: str | None = None,
                 allowed_origins: _abc.Iterable[str] = (), allowed_hosts: _abc.Iterable[str] = (),
                 max_sessions: int = 64, idle_timeout: float = 1800.0) -> None:
        self.app = McpApp(server, token=token, allowed_origins=allowed_origins,
                          allowed_hosts=allowed_hosts, max_sessions=max_sessions,
                          idle_timeout=idle_timeout)
        self.guard = _Guard(self.app)
        self.idle_timeout = idle_timeout
        self._sockets: list[socket.socket] = []
        self._unix_paths: list[str] = []
        self._uv: Any = None
        self._closing = threading.Event()

    # ------------------------------------------------------------ listen

    def listen_tcp(self, host: str, port: int) -> tuple[str, int]:
        """Binds HOST:PORT; the address bound (port 0: an ephemeral one)."""
        h = host.strip("[]")
        family = socket.AF_INET6 if ":" in h else socket.AF_INET
        if h == "localhost":
            h, family = "127.0.0.1", socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((h, port))
        sock.listen(128)
        self._sockets.append(sock)
        name = sock.getsockname()
        return name[0], name[1]

    def listen_unix(self, path: str) -> None:
        """Binds a Unix socket at path (mode 0600); a stale socket there is
        replaced, anything else refused."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISSOCK(st.st_mode):
                raise OSError(errno.EEXIST, f"{path} exists and is not a socket")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(path)
            except OSError:
                os.unlink(path)  # nobody listens: stale
            else:
                raise OSError(errno.EADDRINUSE, f"{path} is in use")
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(path)
        finally:
            os.umask(old)
        sock.listen(128)
        self._sockets.append(sock)
        self._unix_paths.append(path)

    def start(self) -> None:
        """Serves every listener (uvicorn, in a thread of its own) and ends
        idle sessions (one more thread)."""
        guard = self.guard
        protocol_class = type("GuardedH11Protocol", (_GuardedH11Protocol,), {"guard": guard})
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        config = _UvConfig(self.app.admitted, http=protocol_class, ws="none", lifespan="off",
                           loop="asyncio", interface="asgi3", log_config=None, access_log=False,
                           proxy_headers=False, server_header=False, date_header=False,
                           timeout_keep_alive=KEEP_ALIVE_TIMEOUT, backlog=128)
        self._uv = _UvServer(config)
        threading.Thread(target=self._run, name="pathgate-mcp-http-loop", daemon=True).start()
        threading.Thread(target=self._reap, name="pathgate-mcp-reaper", daemon=True).start()

    def _run(self) -> None:
        try:
            asyncio.run(self._uv.serve(sockets=self._sockets))
        except Exception:
            log.exception("internal error in the HTTP transport")

    def _reap(self) -> None:
        while not self._closing.wait(min(30.0, max(0.5, self.idle_timeout / 4))):
            self.app.reap()

    @property
    def session_count(self) -> int:
        return self.app.session_count

    # -------------------------------------------------------------- close

    def close(self) -> None:
        """Stops accepting, closes the connections as their answers end and
        removes the Unix sockets (the sessions end with the Server's
        shutdown)."""
        self._closing.set()
        if self._uv is not None:
            self._uv.should_exit = True
        else:
            for sock in self._sockets:
                sock.close()
        for path in self._unix_paths:
            try:
                os.unlink(path)
            except OSError:
                pass
        self.app.close()

