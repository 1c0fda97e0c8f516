"""The Streamable HTTP transport of MCP (protocol 2025-06-18 and later) at
the endpoint ``/mcp``, over TCP (``--http HOST:PORT``) or a Unix socket
(``--unix PATH``).

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
- Admission (:meth:`Endpoint.admit`), decided on the request's head alone,
  before any byte of its body is read: an ``Origin`` that is not allowed
  ``403``; a ``Host`` that is not allowed ``403`` (on a loopback listener,
  or whenever hosts were allowed explicitly); with a token, a request
  without ``Authorization: Bearer <token>`` (constant time) ``401``.

:class:`Endpoint` is all of the above, once: it serves a request whose
head was admitted and whose body was read, answering through a
:class:`Writer`. Two fronts feed it:

- :class:`HttpTransport` (what ``pathgate mcp --http`` runs): listening
  sockets and one thread per connection, blocking reads and writes, the
  head parsed by :mod:`.httphead`. A call runs on its connection's thread:
  no event loop and no hop to a pool. The guards: a connection must
  deliver a complete request head within ``HEADER_TIMEOUT`` seconds (from
  its opening, or from the first byte of a later request); until it was
  admitted once it reads at most ``PRE_AUTH_READ`` bytes at a time and
  holds at most ``MAX_HEAD`` of a head; a refusal is written and the
  connection closed before any of the body is read; at most
  ``MAX_PENDING`` connections wait for admission at once (a new one closes
  the oldest), apart from the ``MAX_CONNECTIONS`` admitted ones, which
  unadmitted ones never take; malformed framing is a ``400`` (one log
  line, no traceback).
- :class:`McpApp`, an ASGI application for hosting the endpoint in an
  ASGI server of one's own: it admits on the head, reads the body, and
  runs the request in a worker thread.
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
import struct
import threading
import time
import collections.abc as _abc
import typing as _t
from typing import Any

from . import protocol
from .httphead import MAX_HEAD, HeadError, parse_head
from .protocol import INVALID_REQUEST, SHUTTING_DOWN, SUPPORTED_PROTOCOL_VERSIONS, Peer
from .service import Server
from .tools import ConnectionTools

__all__ = ["Endpoint", "HttpTransport", "McpApp", "Writer", "is_loopback", "parse_host"]

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
# Bytes read at a time once admitted (socket.recv allocates this much
# for each read: more costs a mapping of memory per read).
READ = 64 * 1024
# Seconds a kept-alive admitted connection may wait for its next request
# (and a read or write of an admitted one may block).
KEEP_ALIVE_TIMEOUT = 300
# Answers longer than this are sent in chunks as they are made.
LONG_ANSWER = 1 << 20
# Threads of the ASGI front running requests.
WORKERS = 256

_LOOPBACK_NAMES = frozenset(("localhost", "127.0.0.1", "::1"))
_JSON = (b"content-type", b"application/json")
_SSE = ((b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"))
_REASONS = {100: b"Continue", 200: b"OK", 202: b"Accepted", 400: b"Bad Request",
            401: b"Unauthorized", 403: b"Forbidden", 404: b"Not Found",
            405: b"Method Not Allowed", 406: b"Not Acceptable", 408: b"Request Timeout",
            411: b"Length Required", 413: b"Content Too Large", 415: b"Unsupported Media Type",
            417: b"Expectation Failed", 431: b"Request Header Fields Too Large",
            500: b"Internal Server Error", 503: b"Service Unavailable"}

Headers = _abc.Sequence[tuple[bytes, bytes]]


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


class Writer(_t.Protocol):
    """Where the answer to one request goes (blocking; called on the
    thread serving the request): a whole answer (:meth:`respond`), or one
    of unknown length (:meth:`start`, :meth:`write` each piece,
    :meth:`end`)."""

    def respond(self, status: int, headers: Headers, body: bytes, *, close: bool = False) -> None: ...

    def start(self, status: int, headers: Headers) -> None: ...

    def write(self, data: bytes) -> None: ...

    def end(self) -> None: ...


def _error(w: Writer, status: int, message: str, *, code: int = INVALID_REQUEST,
           headers: Headers = (), close: bool = False) -> None:
    """A status with a JSON-RPC error (no id) as its body."""
    w.respond(status, (*headers, _JSON), _error_body(message, code), close=close)


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
    """Where one POSTed request's answer goes (the ``out`` of its Peer): a
    JSON body, or, once the server sent a message of its own first
    (``interim``), an event stream. The answer is collected (its first
    LONG_ANSWER bytes) and sent by :meth:`finish`; a longer one is written
    a piece at a time as it is made, as fast as the client reads it."""

    __slots__ = ("w", "status", "headers", "streaming", "sent", "done", "body")

    def __init__(self, w: Writer, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        self.w = w
        self.status = status
        self.headers = headers
        self.streaming = False
        self.sent = False  # an answer was given (it may wait for finish)
        self.done = False  # the response is complete
        self.body: list[bytes] = []

    def _event(self, chunks: _abc.Iterable[bytes]) -> None:
        if not self.streaming:
            self.streaming = True
            self.w.start(200, (*_SSE, *self.headers))
        self.w.write(b"event: message\ndata: " + b"".join(chunks) + b"\n\n")

    def interim(self, chunks: _abc.Iterable[bytes]) -> None:
        self._event(chunks)

    def __call__(self, chunks: _abc.Iterable[bytes]) -> None:
        self.sent = True
        if self.streaming:  # the last event, and the stream's end
            self._event(chunks)
            self.w.end()
            self.done = True
            return
        it = iter(chunks)
        size = 0
        for chunk in it:
            self.body.append(chunk)
            size += len(chunk)
            if size > LONG_ANSWER:
                break
        else:
            return  # finish() sends it
        body, self.body = b"".join(self.body), []
        self.w.start(self.status, (_JSON, *self.headers))
        self.w.write(body)
        for piece in _batches(it):
            self.w.write(piece)
        self.w.end()
        self.done = True

    def finish(self) -> None:
        """After the request was handled: sends what was not sent yet (the
        collected answer, 202 for a request not answered, the end of an
        event stream whose last event was not sent)."""
        if self.done:
            return
        self.done = True
        if self.streaming:
            self.w.end()
        elif not self.sent:
            self.w.respond(202, self.headers, b"")
        else:
            body = self.body[0] if len(self.body) == 1 else b"".join(self.body)
            self.body = []
            self.w.respond(self.status, (_JSON, *self.headers), body)


class Endpoint:
    """The MCP endpoint: admission, sessions, and the requests of every
    front (see the module's docstring)."""

    def __init__(self, server: Server, *, token: str | None = None,
                 allowed_origins: _abc.Iterable[str] = (),
                 allowed_hosts: _abc.Iterable[str] = (), max_sessions: int = 64,
                 idle_timeout: float = 1800.0) -> None:
        self.server = server
        self._token = token.encode("utf-8") if token else None
        self._origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)
        self._hosts = tuple(parse_host(h) for h in allowed_hosts)
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._labels = 0
        self.closing = False
        # Host values seen (and whether on a loopback listener): allowed?
        # (a client sends the same one each time; 64 at most are kept)
        self._host_verdicts: dict[tuple[str, bool], bool] = {}

    # ---------------------------------------------------------- admission

    def _host_allowed(self, value: str, loopback: bool) -> bool:
        key = (value, loopback)
        known = self._host_verdicts.get(key)
        if known is None:
            known = self._host_verdict(value, loopback)
            if len(self._host_verdicts) >= 64:
                self._host_verdicts.clear()
            self._host_verdicts[key] = known
        return known

    def _host_verdict(self, value: str, loopback: bool) -> bool:
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

    def admit(self, h: _abc.Mapping[str, str], loopback: bool) -> Refusal | None:
        """None when a request with these headers (lower-case names, as
        :class:`~.httphead.Head` has them) may be served, else its refusal:
        Origin, Host (checked on a loopback listener, and on any listener
        once hosts were allowed explicitly), then the token."""
        origin = h.get("origin")
        if origin is not None and not self._origin_allowed(origin):
            return Refusal(403, "Forbidden: Origin not allowed")
        if (loopback or self._hosts) and not self._host_allowed(h.get("host", ""), loopback):
            return Refusal(403, "Forbidden: Host not allowed")
        if self._token is not None:
            scheme, _, credential = h.get("authorization", "").partition(" ")
            given = credential.strip().encode("latin-1") if scheme.lower() == "bearer" else b""
            if not hmac.compare_digest(given, self._token):
                return Refusal(401, "Unauthorized", ((b"www-authenticate", b'Bearer realm="pathgate"'),))
        return None

    # -------------------------------------------------------------- serve

    def serve(self, method: str, path: str, h: _abc.Mapping[str, str], body: bytes,
              w: Writer) -> None:
        """Serves one admitted request whose body was read (at most
        protocol.MAX_LINE bytes), on the calling thread, answering through
        w. OSError when the client went away."""
        if path != ENDPOINT:
            _error(w, 404, f"Not Found: the endpoint is {ENDPOINT}")
            return
        version = h.get("mcp-protocol-version")
        if version is not None and version not in SUPPORTED_PROTOCOL_VERSIONS:
            _error(w, 400, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
            return
        if method == "POST":
            self._post(h, body, w)
        elif method == "DELETE":
            self._delete(h, w)
        else:
            _error(w, 405, "Method Not Allowed", headers=((b"allow", b"POST, DELETE"),))

    def _post(self, h: _abc.Mapping[str, str], body: bytes, w: Writer) -> None:
        ctype = h.get("content-type", "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            _error(w, 415, "Unsupported Media Type: send application/json")
            return
        accept = h.get("accept", "*/*").lower()
        if not any(t in accept for t in ("application/json", "text/event-stream", "*/*", "application/*")):
            _error(w, 406, "Not Acceptable: accept application/json and text/event-stream")
            return
        sid = h.get("mcp-session-id")
        headers: list[tuple[bytes, bytes]] = []
        if sid is None:
            if not _is_initialize(body):
                _error(w, 400, "Bad Request: Mcp-Session-Id header is required")
                return
            session = self._open()
            if session is None:
                _error(w, 503, "Too many sessions", code=SHUTTING_DOWN)
                return
            headers.append((b"mcp-session-id", session.id.encode("ascii")))
        else:
            session = self._find(sid)
            if session is None:
                _error(w, 404, "Not Found: no such session (initialize a new one)")
                return
        try:
            peer = session.peer
            reply = _Reply(w, 400, headers)  # what accept answers is an error
            r = peer.accept(body, reply)
            if r is not None:
                reply.status = 200
                peer.run(r)
            reply.finish()
        finally:
            self._release(session)

    def _delete(self, h: _abc.Mapping[str, str], w: Writer) -> None:
        sid = h.get("mcp-session-id")
        if sid is None:
            _error(w, 400, "Bad Request: Mcp-Session-Id header is required")
            return
        with self._lock:
            session = self._sessions.pop(sid, None)
        if session is None:
            _error(w, 404, "Not Found: no such session")
            return
        self._end(session, "ended by the client")
        w.respond(200, (), b"")

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


def _status_line(status: int) -> bytes:
    return b"HTTP/1.1 %d %s\r\n" % (status, _REASONS.get(status, b"Status"))


# ---------------------------------------------------------- socket front


class _Late(Exception):
    """A request's head did not arrive within HEADER_TIMEOUT."""


class _Conn:
    """One accepted connection: its socket, whether it was admitted once,
    whether it waits for its next request (``idle``: closed at shutdown)."""

    __slots__ = ("sock", "admitted", "idle")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.admitted = False
        self.idle = False


class _SockWriter:
    """The answer to one request on a connection (see :class:`Writer`):
    written at once with blocking sends. An answer of unknown length is
    chunked (HTTP/1.1) or ends with the connection (HTTP/1.0)."""

    __slots__ = ("sock", "keep_alive", "chunked", "close")

    def __init__(self, sock: socket.socket, keep_alive: bool, version: int) -> None:
        self.sock = sock
        self.keep_alive = keep_alive
        self.chunked = version == 1
        self.close = not keep_alive  # the connection ends after this answer

    def _head(self, status: int, headers: Headers, close: bool) -> list[bytes]:
        out = [_status_line(status)]
        for k, v in headers:
            out += (k, b": ", v, b"\r\n")
        if close or self.close:
            self.close = True
            out.append(b"connection: close\r\n")
        return out

    def respond(self, status: int, headers: Headers, body: bytes, *, close: bool = False) -> None:
        out = self._head(status, headers, close)
        out += (b"content-length: %d\r\n\r\n" % len(body), body)
        self.sock.sendall(b"".join(out))

    def start(self, status: int, headers: Headers) -> None:
        if not self.chunked:
            self.close = True
        out = self._head(status, headers, False)
        out.append(b"transfer-encoding: chunked\r\n\r\n" if self.chunked else b"\r\n")
        self.sock.sendall(b"".join(out))

    def write(self, data: bytes) -> None:
        if not data:
            return
        self.sock.sendall(b"%x\r\n%b\r\n" % (len(data), data) if self.chunked else data)

    def end(self) -> None:
        if self.chunked:
            self.sock.sendall(b"0\r\n\r\n")


def _refuse(sock: socket.socket, status: int, message: str, headers: Headers = ()) -> None:
    """Answers status and ends the connection (what the client sent after
    the head is not read)."""
    w = _SockWriter(sock, False, 1)
    try:
        _error(w, status, message, headers=headers, close=True)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _shut(sock: socket.socket) -> None:
    """Wakes the thread blocked on sock, which then closes it."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _set_timeouts(sock: socket.socket, seconds: float) -> None:
    """Kernel timeouts on blocking reads and writes (EAGAIN when over)."""
    tv = struct.pack("@ll", int(seconds), 0)  # a struct timeval
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    except OSError:
        pass


class HttpTransport:
    """Serves the sessions of a Server over HTTP on one or more listening
    sockets (TCP or Unix), until :meth:`close`: an :class:`Endpoint`, a
    thread accepting on each listener and one thread per connection."""

    def __init__(self, server: Server, *, token: str | None = None,
                 allowed_origins: _abc.Iterable[str] = (), allowed_hosts: _abc.Iterable[str] = (),
                 max_sessions: int = 64, idle_timeout: float = 1800.0) -> None:
        self.endpoint = Endpoint(server, token=token, allowed_origins=allowed_origins,
                                 allowed_hosts=allowed_hosts, max_sessions=max_sessions,
                                 idle_timeout=idle_timeout)
        self.idle_timeout = idle_timeout
        self._sockets: list[socket.socket] = []
        self._unix_paths: list[str] = []
        self._lock = threading.Lock()
        self._pending: dict[_Conn, None] = {}  # oldest first
        self._admitted: set[_Conn] = set()
        self._closing = threading.Event()
        self.refused = 0

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
        """Accepts on every listener (a thread each) and ends idle sessions
        (one more thread)."""
        for sock in self._sockets:
            threading.Thread(target=self._accept, args=(sock,), name="pathgate-mcp-http-accept",
                             daemon=True).start()
        threading.Thread(target=self._reap, name="pathgate-mcp-reaper", daemon=True).start()

    def _reap(self) -> None:
        while not self._closing.wait(min(30.0, max(0.5, self.idle_timeout / 4))):
            self.endpoint.reap()

    @property
    def session_count(self) -> int:
        return self.endpoint.session_count

    # ------------------------------------------------------- connections

    def _accept(self, listener: socket.socket) -> None:
        inet = listener.family in (socket.AF_INET, socket.AF_INET6)
        loopback = inet and is_loopback(str(listener.getsockname()[0]))
        while not self._closing.is_set():
            try:
                sock, _ = listener.accept()
            except OSError as e:
                if self._closing.is_set():
                    return
                if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    log.warning("HTTP: cannot accept: %s", e.strerror)
                    time.sleep(0.1)
                continue
            if inet:
                try:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                except OSError:
                    pass
            conn = _Conn(sock)
            with self._lock:
                if self._closing.is_set():
                    sock.close()
                    return
                pending = self._pending
                pending[conn] = None
                while len(pending) > MAX_PENDING:  # the oldest waiting one goes
                    oldest = next(iter(pending))
                    del pending[oldest]
                    _shut(oldest.sock)
            try:
                threading.Thread(target=self._connection, args=(conn, loopback),
                                 name="pathgate-mcp-http", daemon=True).start()
            except RuntimeError:  # no thread to be had
                with self._lock:
                    self._pending.pop(conn, None)
                sock.close()

    def _connection(self, conn: _Conn, loopback: bool) -> None:
        try:
            self._serve(conn, loopback)
        except _Late:
            self.refused += 1
            _refuse(conn.sock, 408, "Request Timeout: the request's head took too long")
        except HeadError as e:
            self.refused += 1
            log.info("HTTP: malformed request refused (%d): %s", e.status, e.message)
            _refuse(conn.sock, e.status, e.message)
        except OSError:
            pass  # the client went away (or the connection was closed)
        except Exception:
            log.exception("internal error in the HTTP transport")
        finally:
            with self._lock:
                self._pending.pop(conn, None)
                self._admitted.discard(conn)
            conn.sock.close()

    def _recv(self, conn: _Conn, deadline: float | None) -> bytes:
        """The next bytes of a request's head (b"" at the end): before the
        connection's admission PRE_AUTH_READ at most, under the head's
        deadline (None: the first byte of a next request is awaited, under
        the kernel's keep-alive timeout)."""
        sock = conn.sock
        size = READ if conn.admitted else PRE_AUTH_READ
        if deadline is None:
            return sock.recv(size)
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Late
        sock.settimeout(left)
        try:
            return sock.recv(size)
        except socket.timeout:
            raise _Late from None
        finally:
            sock.settimeout(None)

    def _serve(self, conn: _Conn, loopback: bool) -> None:
        sock = conn.sock
        buf = b""
        deadline: float | None = time.monotonic() + HEADER_TIMEOUT
        while True:
            # the head
            end = buf.find(b"\r\n\r\n")
            while end < 0:
                if len(buf) > MAX_HEAD + 3:
                    raise HeadError(431, "Request Header Fields Too Large")
                conn.idle = not buf
                if conn.idle and self._closing.is_set():
                    return
                data = self._recv(conn, deadline)
                conn.idle = False
                if not data:
                    return
                if deadline is None:
                    deadline = time.monotonic() + HEADER_TIMEOUT
                buf += data
                end = buf.find(b"\r\n\r\n", max(0, len(buf) - len(data) - 3))
            head = parse_head(buf[:end])
            buf = buf[end + 4:]
            refusal = self.endpoint.admit(head.headers, loopback)
            if refusal is not None:
                self.refused += 1
                _refuse(sock, refusal.status, refusal.message, refusal.headers)
                return
            if not conn.admitted:
                with self._lock:
                    full = len(self._admitted) >= MAX_CONNECTIONS
                    if not full:
                        conn.admitted = True
                        self._pending.pop(conn, None)
                        self._admitted.add(conn)
                if full:
                    self.refused += 1
                    _refuse(sock, 503, "Too many connections")
                    return
                _set_timeouts(sock, KEEP_ALIVE_TIMEOUT)
            # the body
            if head.length > protocol.MAX_LINE:
                _refuse(sock, 413, f"Payload Too Large: at most {protocol.MAX_LINE} bytes")
                return
            if head.expect_continue and len(buf) < head.length:
                sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            body, buf = self._body(sock, buf, head.length)
            w = _SockWriter(sock, head.keep_alive and not self._closing.is_set(), head.version)
            self.endpoint.serve(head.method, head.path, head.headers, body, w)
            if w.close or self._closing.is_set():
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            deadline = None if not buf else time.monotonic() + HEADER_TIMEOUT

    @staticmethod
    def _body(sock: socket.socket, buf: bytes, length: int) -> tuple[bytes, bytes]:
        """A body of length bytes (what buf holds of it first) and what
        follows it in buf (a pipelined request). Nothing after the body is
        read."""
        if len(buf) >= length:
            return buf[:length], buf[length:]
        body = bytearray(length)
        body[:len(buf)] = buf
        view = memoryview(body)
        got = len(buf)
        while got < length:
            n = sock.recv_into(view[got:], min(READ, length - got))
            if not n:
                raise OSError(errno.ECONNRESET, "client went away")
            got += n
        return bytes(body), b""

    # -------------------------------------------------------------- close

    def close(self) -> None:
        """Stops accepting, closes the connections waiting for a request
        (the others once their answer is written) and removes the Unix
        sockets (the sessions end with the Server's shutdown)."""
        self._closing.set()
        for sock in self._sockets:
            _shut(sock)
            sock.close()
        with self._lock:
            idle = [c for c in (*self._pending, *self._admitted) if c.idle or not c.admitted]
        for c in idle:
            _shut(c.sock)
        for path in self._unix_paths:
            try:
                os.unlink(path)
            except OSError:
                pass
        self.endpoint.close()


# ------------------------------------------------------------ ASGI front

Scope = _abc.MutableMapping[str, Any]
Receive = _abc.Callable[[], _abc.Awaitable[dict[str, Any]]]
Send = _abc.Callable[[dict[str, Any]], _abc.Coroutine[Any, Any, None]]


def _header_map(raw: _abc.Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return headers


class _AsgiWriter:
    """A :class:`Writer` on a worker thread, each message handed to the
    ASGI server's event loop and waited for."""

    __slots__ = ("send", "loop")

    def __init__(self, send: Send, loop: asyncio.AbstractEventLoop) -> None:
        self.send = send
        self.loop = loop

    def _do(self, msg: dict[str, Any]) -> None:
        asyncio.run_coroutine_threadsafe(self.send(msg), self.loop).result()

    def respond(self, status: int, headers: Headers, body: bytes, *, close: bool = False) -> None:
        h = [*headers, (b"content-length", b"%d" % len(body))]
        if close:
            h.append((b"connection", b"close"))
        self._do({"type": "http.response.start", "status": status, "headers": h})
        self._do({"type": "http.response.body", "body": body})

    def start(self, status: int, headers: Headers) -> None:
        self._do({"type": "http.response.start", "status": status, "headers": list(headers)})

    def write(self, data: bytes) -> None:
        self._do({"type": "http.response.body", "body": data, "more_body": True})

    def end(self) -> None:
        self._do({"type": "http.response.body", "body": b""})


async def _asgi_error(send: Send, status: int, message: str, headers: Headers = ()) -> None:
    body = _error_body(message)
    await send({"type": "http.response.start", "status": status,
                "headers": [*headers, _JSON, (b"content-length", b"%d" % len(body)),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class McpApp:
    """The MCP endpoint as an ASGI application, for an ASGI server of one's
    own: each request is admitted on its head (before its body is read),
    then its body is read and the request served by the same
    :class:`Endpoint` as ``pathgate mcp --http``, on a worker thread."""

    def __init__(self, server: Server, *, token: str | None = None,
                 allowed_origins: _abc.Iterable[str] = (),
                 allowed_hosts: _abc.Iterable[str] = (), max_sessions: int = 64,
                 idle_timeout: float = 1800.0, workers: int = WORKERS) -> None:
        self.endpoint = Endpoint(server, token=token, allowed_origins=allowed_origins,
                                 allowed_hosts=allowed_hosts, max_sessions=max_sessions,
                                 idle_timeout=idle_timeout)
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="pathgate-mcp-asgi")

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
        h = _header_map(scope["headers"])
        refusal = self.endpoint.admit(h, loopback)
        if refusal is not None:
            await _asgi_error(send, refusal.status, refusal.message, refusal.headers)
            return
        try:
            body = await self._body(h, receive)
        except OSError:
            return  # the client went away
        if body is None:
            await _asgi_error(send, 413, f"Payload Too Large: at most {protocol.MAX_LINE} bytes")
            return
        w = _AsgiWriter(send, asyncio.get_running_loop())
        try:
            await asyncio.get_running_loop().run_in_executor(
                self._pool, self.endpoint.serve, scope["method"], scope["path"], h, body, w)
        except OSError:
            pass  # the client went away

    @staticmethod
    async def _body(h: dict[str, str], receive: Receive) -> bytes | None:
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
                return b"".join(parts)

    @property
    def session_count(self) -> int:
        return self.endpoint.session_count

    def close(self) -> None:
        self.endpoint.close()
        self._pool.shutdown(wait=False)
