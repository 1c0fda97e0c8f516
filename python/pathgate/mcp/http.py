"""The Streamable HTTP transport of MCP (protocol 2025-06-18 and later) at
the endpoint ``/mcp``, over TCP (``--http HOST:PORT``) or a Unix socket
(``--unix PATH``), with the standard library only.

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
  speaks, else ``400``. ``GET /mcp``: ``405`` (no stream of server-initiated
  messages is offered).
- Security, before anything else: an ``Origin`` header that is not one of
  the allowed origins ``403`` (the specification's defence against DNS
  rebinding); on a loopback address a ``Host`` that is not a loopback
  name ``403`` too; with a token, a request without ``Authorization:
  Bearer <token>`` (compared in constant time) ``401``. Listening on an
  address that is not loopback needs a token (see __init__.py).
- Connections are kept alive (HTTP/1.1), one thread each, at most
  ``MAX_CONNECTIONS`` at once (then ``503``); headers at most 16 KiB, a
  body at most the protocol's longest message.
"""

from __future__ import annotations

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

from . import protocol
from .protocol import INVALID_REQUEST, SHUTTING_DOWN, SUPPORTED_PROTOCOL_VERSIONS, Peer
from .service import Server
from .tools import ConnectionTools

__all__ = ["HttpTransport", "is_loopback"]

log = logging.getLogger("pathgate.mcp")

ENDPOINT = "/mcp"
MAX_HEADER = 16 << 10
MAX_CONNECTIONS = 256
# How long a kept-alive connection may wait for its next request.
KEEP_ALIVE_TIMEOUT = 300.0

_REASONS = {200: "OK", 202: "Accepted", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
            411: "Length Required", 413: "Payload Too Large", 415: "Unsupported Media Type",
            431: "Request Header Fields Too Large", 500: "Internal Server Error",
            501: "Not Implemented", 503: "Service Unavailable"}
_LOOPBACK_NAMES = frozenset(("localhost", "127.0.0.1", "::1"))


def is_loopback(host: str) -> bool:
    """A host name or address that only this machine can reach."""
    h = host.strip("[]").lower()
    if h == "localhost" or h.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def _host_name(value: str) -> str:
    """The name of a Host header, without its port."""
    v = value.strip().lower()
    if v.startswith("["):
        return v[1:v.find("]")] if "]" in v else v
    return v.rsplit(":", 1)[0] if v.count(":") == 1 else v


class _Closed(Exception):
    """The connection is to be closed."""


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


class _Request:
    __slots__ = ("method", "target", "headers", "body", "keep_alive")

    def __init__(self, method: str, target: str, headers: dict[str, str], body: bytes,
                 keep_alive: bool) -> None:
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.keep_alive = keep_alive


class _Conn:
    """One client connection: requests in, responses out, in turn."""

    def __init__(self, sock: socket.socket, transport: HttpTransport, tcp: bool) -> None:
        self.sock = sock
        self.transport = transport
        self.tcp = tcp
        self.buf = bytearray()
        self.lock = threading.Lock()

    # ------------------------------------------------------------ input

    def _fill(self) -> None:
        data = self.sock.recv(1 << 16)
        if not data:
            raise _Closed()
        self.buf += data

    def read_request(self) -> _Request | None:
        """The next request, or None when the client closed between them."""
        buf = self.buf
        while True:
            end = buf.find(b"\r\n\r\n")
            if end >= 0:
                break
            if len(buf) > MAX_HEADER:
                self.respond(431, b"", close=True)
                raise _Closed()
            try:
                self._fill()
            except _Closed:
                if buf.strip():
                    raise
                return None
        head = bytes(buf[:end]).decode("latin-1")
        del buf[:end + 4]
        lines = head.split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            self.respond(400, b"", close=True)
            raise _Closed()
        method, target, version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep or not name or name != name.strip():
                self.respond(400, b"", close=True)
                raise _Closed()
            key = name.lower()
            value = value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        conn = headers.get("connection", "").lower()
        keep_alive = "close" not in conn if version == "HTTP/1.1" else "keep-alive" in conn
        if "transfer-encoding" in headers:
            self.respond(501, b"", close=True)  # request bodies come with a Content-Length
            raise _Closed()
        length_text = headers.get("content-length", "0" if method in ("GET", "DELETE") else "")
        if not length_text.isdigit():
            self.respond(411, b"", close=True)
            raise _Closed()
        length = int(length_text)
        if length > protocol.MAX_LINE:
            self.respond(413, b"", close=True)
            raise _Closed()
        if headers.get("expect", "").lower() == "100-continue" and length > len(buf):
            self._send(b"HTTP/1.1 100 Continue\r\n\r\n")
        while len(buf) < length:
            self._fill()
        body = bytes(buf[:length])
        del buf[:length]
        return _Request(method, target, headers, body, keep_alive)

    # ----------------------------------------------------------- output

    def _send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def respond(self, status: int, body: bytes, *, content_type: str | None = None,
                headers: _abc.Mapping[str, str] | None = None, close: bool = False) -> None:
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
        if content_type:
            lines.append(f"Content-Type: {content_type}")
        for k, v in (headers or {}).items():
            lines.append(f"{k}: {v}")
        lines.append(f"Content-Length: {len(body)}")
        if close:
            lines.append("Connection: close")
        self._send(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)

    def error(self, status: int, message: str, *, code: int = INVALID_REQUEST,
              headers: _abc.Mapping[str, str] | None = None, close: bool = False) -> None:
        """A status with a JSON-RPC error (no id) as its body."""
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}},
                          separators=(",", ":")).encode()
        self.respond(status, body, content_type="application/json", headers=headers, close=close)


class _Reply:
    """Where one POSTed request's answer goes: a JSON body, or, once the
    server sent a message of its own first (``interim``), an event
    stream."""

    def __init__(self, conn: _Conn, status: int, headers: dict[str, str]) -> None:
        self.conn = conn
        self.status = status
        self.headers = headers
        self.streaming = False
        self.sent = False

    def _chunk(self, data: bytes) -> None:
        self.conn._send(b"%x\r\n%s\r\n" % (len(data), data))

    def _event(self, chunks: _abc.Iterable[bytes]) -> None:
        if not self.streaming:
            head = ["HTTP/1.1 200 OK", "Content-Type: text/event-stream", "Cache-Control: no-cache",
                    "Transfer-Encoding: chunked"] + [f"{k}: {v}" for k, v in self.headers.items()]
            self.conn._send(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
            self.streaming = True
        self._chunk(b"event: message\ndata: ")
        for chunk in _batches(chunks):
            self._chunk(chunk)
        self._chunk(b"\n\n")

    def interim(self, chunks: _abc.Iterable[bytes]) -> None:
        with self.conn.lock:
            self._event(chunks)

    def __call__(self, chunks: _abc.Iterable[bytes]) -> None:
        with self.conn.lock:
            self.sent = True
            if self.streaming:
                self._event(chunks)
                self.conn._send(b"0\r\n\r\n")
                return
            parts = []
            size = 0
            it = iter(chunks)
            for chunk in it:
                parts.append(chunk)
                size += len(chunk)
                if size > 1 << 20:  # long: sent in chunks as it is made
                    self._long(parts, it)
                    return
            self.conn.respond(self.status, b"".join(parts), content_type="application/json",
                              headers=self.headers)

    def _long(self, first: list[bytes], rest: _abc.Iterator[bytes]) -> None:
        head = [f"HTTP/1.1 {self.status} {_REASONS.get(self.status, 'Status')}",
                "Content-Type: application/json", "Transfer-Encoding: chunked"] + \
            [f"{k}: {v}" for k, v in self.headers.items()]
        self.conn._send(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        self._chunk(b"".join(first))
        for chunk in _batches(rest):
            self._chunk(chunk)
        self.conn._send(b"0\r\n\r\n")

    def finish(self) -> None:
        """After the request was handled: a request whose answer was not
        sent (cancelled) still ends its response."""
        with self.conn.lock:
            if self.sent:
                return
            self.sent = True
            if self.streaming:
                self.conn._send(b"0\r\n\r\n")
            else:
                self.conn.respond(202, b"", headers=self.headers)


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


class HttpTransport:
    """Serves the sessions of a Server over HTTP on one or more listening
    sockets (TCP or Unix), until :meth:`close`."""

    def __init__(self, server: Server, *, token: str | None = None,
                 allowed_origins: _abc.Iterable[str] = (), max_sessions: int = 64,
                 idle_timeout: float = 1800.0) -> None:
        self.server = server
        self._token = token.encode("utf-8") if token else None
        self._origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._labels = 0
        self._listeners: list[tuple[socket.socket, bool, bool]] = []  # (socket, tcp, loopback)
        self._unix_paths: list[str] = []
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._conns: set[socket.socket] = set()
        self._closing = False

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
        self._listeners.append((sock, True, is_loopback(h)))
        return sock.getsockname()[0], sock.getsockname()[1]

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
        self._listeners.append((sock, False, True))
        self._unix_paths.append(path)

    def start(self) -> None:
        """Accepts on every listener (a thread each) and ends idle
        sessions (one more)."""
        for sock, tcp, loopback in self._listeners:
            threading.Thread(target=self._accept, args=(sock, tcp, loopback),
                             name="pathgate-mcp-accept", daemon=True).start()
        threading.Thread(target=self._reap, name="pathgate-mcp-reaper", daemon=True).start()

    def _accept(self, sock: socket.socket, tcp: bool, loopback: bool) -> None:
        while not self._closing:
            try:
                client, _ = sock.accept()
            except OSError:
                if self._closing:
                    return
                time.sleep(0.05)  # e.g. EMFILE: let others finish
                continue
            if not self._slots.acquire(blocking=False):
                try:
                    _Conn(client, self, tcp).error(503, "Too many connections", code=SHUTTING_DOWN,
                                                   close=True)
                except OSError:
                    pass
                client.close()
                continue
            if tcp:
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._conns.add(client)
            threading.Thread(target=self._serve, args=(client, tcp, loopback),
                             name="pathgate-mcp-http", daemon=True).start()

    # -------------------------------------------------------------- serve

    def _serve(self, client: socket.socket, tcp: bool, loopback: bool) -> None:
        conn = _Conn(client, self, tcp)
        client.settimeout(KEEP_ALIVE_TIMEOUT)
        try:
            while not self._closing:
                req = conn.read_request()
                if req is None:
                    break
                self._handle(conn, req, tcp and loopback)
                if not req.keep_alive:
                    break
        except (_Closed, OSError):
            pass
        except Exception:
            log.exception("internal error in the HTTP transport")
        finally:
            with self._lock:
                self._conns.discard(client)
            try:
                client.close()
            finally:
                self._slots.release()

    def _authorised(self, headers: dict[str, str]) -> bool:
        if self._token is None:
            return True
        value = headers.get("authorization", "")
        scheme, _, credential = value.partition(" ")
        given = credential.strip().encode("utf-8", "replace") if scheme.lower() == "bearer" else b""
        return hmac.compare_digest(given, self._token)

    def _handle(self, conn: _Conn, req: _Request, check_host: bool) -> None:
        h = req.headers
        origin = h.get("origin")
        if origin is not None and origin.rstrip("/").lower() not in self._origins:
            conn.error(403, "Forbidden: Origin not allowed")
            return
        if check_host and _host_name(h.get("host", "")) not in _LOOPBACK_NAMES:
            conn.error(403, "Forbidden: Host not allowed")
            return
        if not self._authorised(h):
            conn.error(401, "Unauthorized", headers={"WWW-Authenticate": 'Bearer realm="pathgate"'})
            return
        path = req.target.split("?", 1)[0]
        if path != ENDPOINT:
            conn.error(404, f"Not Found: the endpoint is {ENDPOINT}")
            return
        version = h.get("mcp-protocol-version")
        if version is not None and version not in SUPPORTED_PROTOCOL_VERSIONS:
            conn.error(400, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")
            return
        if req.method == "POST":
            self._post(conn, req)
        elif req.method == "DELETE":
            self._delete(conn, req)
        else:
            conn.error(405, "Method Not Allowed", headers={"Allow": "POST, DELETE"})

    def _post(self, conn: _Conn, req: _Request) -> None:
        h = req.headers
        ctype = h.get("content-type", "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            conn.error(415, "Unsupported Media Type: send application/json")
            return
        accept = h.get("accept", "*/*").lower()
        if not any(t in accept for t in ("application/json", "text/event-stream", "*/*", "application/*")):
            conn.error(406, "Not Acceptable: accept application/json and text/event-stream")
            return
        sid = h.get("mcp-session-id")
        headers: dict[str, str] = {}
        if sid is None:
            if not _is_initialize(req.body):
                conn.error(400, "Bad Request: Mcp-Session-Id header is required")
                return
            session = self._open()
            if session is None:
                conn.error(503, "Too many sessions", code=SHUTTING_DOWN)
                return
            headers["Mcp-Session-Id"] = session.id
        else:
            session = self._find(sid)
            if session is None:
                conn.error(404, "Not Found: no such session (initialize a new one)")
                return
        try:
            reply = _Reply(conn, 400, headers)  # what accept answers is an error
            r = session.peer.accept(req.body, reply)
            if r is None:
                if not reply.sent:
                    conn.respond(202, b"", headers=headers)
                return
            reply.status = 200
            session.peer.run(r)
            reply.finish()
        finally:
            self._release(session)

    def _delete(self, conn: _Conn, req: _Request) -> None:
        sid = req.headers.get("mcp-session-id")
        if sid is None:
            conn.error(400, "Bad Request: Mcp-Session-Id header is required")
            return
        with self._lock:
            session = self._sessions.pop(sid, None)
        if session is None:
            conn.error(404, "Not Found: no such session")
            return
        self._end(session, "ended by the client")
        conn.respond(200, b"")

    # ----------------------------------------------------------- sessions

    def _open(self) -> _Session | None:
        with self._lock:
            if self._closing:
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

    def _reap(self) -> None:
        while not self._closing:
            time.sleep(min(30.0, max(0.5, self.idle_timeout / 4)))
            with self._lock:
                self._reap_locked(time.monotonic())

    @property
    def session_count(self) -> int:
        with self._lock:
            return len(self._sessions)

    # -------------------------------------------------------------- close

    def close(self) -> None:
        """Stops accepting, closes every connection and removes the Unix
        sockets (the sessions end with the Server's shutdown)."""
        self._closing = True
        for sock, _, _ in self._listeners:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        for path in self._unix_paths:
            try:
                os.unlink(path)
            except OSError:
                pass
        with self._lock:
            conns = list(self._conns)
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RD)  # idle keep-alive readers wake up; answers still go out
            except OSError:
                pass
        for s in sessions:
            s.closed = True


def _is_initialize(body: bytes) -> bool:
    try:
        msg = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(msg, dict) and msg.get("method") == "initialize" and "id" in msg

