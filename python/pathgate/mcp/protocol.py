"""MCP's JSON-RPC 2.0, with the standard library only: one :class:`Peer` per
MCP session, whatever carries its messages, and :class:`Connection`, a Peer
over newline-delimited stdio.

A Peer parses one message at a time (:meth:`Peer.accept`) and answers
through the ``out`` it was handed with it: a function taking the chunks of
one whole message (bytes), so that the transport frames it (a line on
stdio; a JSON body or a server-sent event over HTTP, see :mod:`.http`).
``initialize``, ``ping`` and the notifications are handled here; every
other request goes to a handler from the ``handlers`` mapping, which
answers a result dict or an :class:`Encoded` one, or raises
:class:`RpcError`; any other exception is logged and answered as an
internal error without its text. A Peer also sends requests of its own to
the client (:meth:`Peer.ask`, e.g. ``roots/list``) and routes the client's
responses back to them.

On stdio, ``workers`` threads take turns reading (leader/followers, see
:meth:`Connection.serve`), so requests are answered concurrently, by the
thread that read them (answers may come out of order, each with its
request's id); a request the ``quick`` predicate calls quick is answered
before reading on when no other input is waiting.

What the spec asks and this does:

- a line that is not JSON: ``-32700`` (id null); a batch (a JSON array) or
  a message that is not a request, notification or response: ``-32600``;
  an unknown method: ``-32601``; params that are not an object: ``-32602``.
- ``notifications/cancelled`` for a request in flight: its answer is not
  sent; ``initialize`` cannot be cancelled. Other notifications go to the
  ``notifications`` handlers, or are ignored; responses go to the request
  of ours they answer, or are ignored.
- ``initialize`` answers the client's protocol version when supported,
  else the latest this server speaks.
- once the :class:`Tracker` is stopping (the server shuts down), a new
  request is answered ``-32000`` "Server is shutting down"; the requests
  accepted before are counted until they are answered.
"""

from __future__ import annotations

import base64
import codecs
import itertools
import json
import logging
import os
import select
import threading
import collections.abc as _abc
import typing as _t
from typing import Any

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "LATEST_PROTOCOL_VERSION",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "SHUTTING_DOWN",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "Base64",
    "Connection",
    "Encoded",
    "Out",
    "Peer",
    "Request",
    "RpcError",
    "Text",
    "Tracker",
    "json_str",
    "json_text",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# An implementation-defined server error (JSON-RPC reserves -32000..-32099).
SHUTTING_DOWN = -32000

# What the official SDKs negotiate (newest first).
SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07")
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]
# Longest message read; a longer one is skipped and answered -32700.
MAX_LINE = 64 << 20
# Texts longer than this are escaped and written a piece at a time.
CHUNK = 1 << 16

log = logging.getLogger("pathgate.mcp")


class RpcError(Exception):
    """A JSON-RPC error answer: code, message and optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


# The chunks of one whole message, framed by the transport.
Out = _abc.Callable[[_abc.Iterable[bytes]], None]


class Request:
    """One request in flight: its id, method, params, where its answer goes
    (``out``), and ``cancelled`` (set when the client cancelled it: its
    answer is not sent)."""

    __slots__ = ("id", "method", "params", "cancelled", "out", "peer")

    def __init__(self, id: str | int, method: str, params: dict[str, Any], out: Out | None = None,
                 peer: Peer | None = None) -> None:
        self.id = id
        self.method = method
        self.params = params
        self.cancelled = False
        self.out = out
        self.peer = peer


class Text:
    """Bytes (and strings) answered as one JSON string of their text (bytes
    as UTF-8, what is not replaced by U+FFFD), escaped and encoded a piece
    at a time when written, so that a long text is held once, as the bytes
    read."""

    __slots__ = ("pieces",)

    def __init__(self, *pieces: bytes | str) -> None:
        self.pieces = pieces

    def chunks(self) -> _abc.Iterator[bytes]:
        pieces = self.pieces
        if len(pieces) == 1 and isinstance(pieces[0], bytes) and len(pieces[0]) <= CHUNK:
            yield _utf8(json_str(pieces[0].decode("utf-8", "replace")))
            return
        yield b'"'
        for piece in pieces:
            if isinstance(piece, str):
                yield _utf8(_str_utf8(piece)[1:-1])
                continue
            view = memoryview(piece)
            decode = codecs.getincrementaldecoder("utf-8")("replace").decode
            for i in range(0, len(piece), CHUNK):
                text = decode(view[i:i + CHUNK], i + CHUNK >= len(piece))
                if text:
                    yield _str_utf8(text)[1:-1].encode("utf-8")
        yield b'"'


class Base64(Text):
    """Bytes answered as a JSON string of their base64, encoded a piece at a
    time when written."""

    __slots__ = ()

    def __init__(self, data: bytes) -> None:
        super().__init__(data)

    def chunks(self) -> _abc.Iterator[bytes]:
        data = self.pieces[0]
        assert isinstance(data, bytes)
        step = CHUNK - CHUNK % 3  # whole 3-byte groups: the pieces join up
        yield b'"'
        view = memoryview(data)
        for i in range(0, len(data), step):
            yield base64.b64encode(view[i:i + step])
        yield b'"'


Part = _t.Union[str, Text]


class Encoded:
    """A result already in JSON text, in parts: strings of JSON text and
    :class:`Text` values (a handler answers one instead of a dict, e.g. to
    write a long text it holds once, twice)."""

    __slots__ = ("parts",)

    def __init__(self, *parts: Part) -> None:
        self.parts = parts

    @property
    def json(self) -> str:
        """The whole JSON text (for tests and small results)."""
        return b"".join(self.chunks()).decode("utf-8")

    def chunks(self) -> _abc.Iterator[bytes]:
        for part in self.parts:
            if isinstance(part, str):
                yield _utf8(part)
            else:
                yield from part.chunks()


Handler = _abc.Callable[[dict[str, Any], Request], "dict[str, Any] | Encoded"]
Notify = _abc.Callable[[dict[str, Any]], None]
Quick = _abc.Callable[[str, dict[str, Any]], bool]

# One encoder for every answer (json.dumps with options builds one per call).
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_decode = json.JSONDecoder().decode
_str_ascii: _abc.Callable[[str], str] = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]
_str_utf8: _abc.Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def json_text(value: Any) -> str:
    """A value as compact JSON text (what the answers' encoder writes)."""
    return _encode(value)


def json_str(text: str) -> str:
    """A string as JSON text, quoted (what the answers' encoder writes)."""
    quoted: str = _str_ascii(text) if text.isascii() else _str_utf8(text)
    return quoted


def _utf8(text: str) -> bytes:
    """JSON text as UTF-8. A lone surrogate (which UTF-8 cannot carry) can
    only stand inside a JSON string, where its \\u escape means the same."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def _only_ping(method: str, params: dict[str, Any]) -> bool:
    return method == "ping"


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class Tracker:
    """Counts the requests being handled across peers, so that a shutdown
    can wait for them (bounded) and tell how many were left."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self.active = 0
        self.stopping = False

    def begin(self) -> bool:
        """False once stopping: the request is not to be started."""
        with self._lock:
            if self.stopping:
                return False
            self.active += 1
            return True

    def end(self) -> None:
        with self._lock:
            self.active -= 1
            if self.stopping and not self.active:
                self._idle.set()

    def stop(self) -> None:
        with self._lock:
            self.stopping = True
            if not self.active:
                self._idle.set()

    def wait_idle(self, timeout: float) -> bool:
        """After stop(): waits (at most timeout) until no request is left."""
        return self._idle.wait(timeout)


class _Asked:
    """A request of ours waiting for the client's response."""

    __slots__ = ("done", "result", "error")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: dict[str, Any] | None = None


class Peer:
    """One MCP session's protocol state, whatever transport carries it."""

    def __init__(
        self,
        handlers: _abc.Mapping[str, Handler],
        *,
        server_info: _abc.Mapping[str, Any],
        capabilities: _abc.Mapping[str, Any],
        instructions: str | None = None,
        quick: Quick | None = None,
        notifications: _abc.Mapping[str, Notify] | None = None,
        tracker: Tracker | None = None,
    ) -> None:
        self._handlers = dict(handlers)
        self._notifications = dict(notifications or {})
        self._server_info = dict(server_info)
        self._capabilities = dict(capabilities)
        self._instructions = instructions
        # (method, params) -> True for a request known to finish at once
        # (no waiting, bounded work): answered before reading on when no
        # other input is waiting. Default: ping only.
        self._quick = quick or _only_ping
        self._tracker = tracker or Tracker()
        self._inflight: dict[str | int, Request] = {}
        self._inflight_lock = threading.Lock()
        self._asked: dict[str, _Asked] = {}
        self._ask_ids = itertools.count(1)
        self.protocol_version: str | None = None
        self.client_info: dict[str, Any] | None = None
        self.client_capabilities: dict[str, Any] = {}

    # ------------------------------------------------------------ output

    @staticmethod
    def _message(message: dict[str, Any]) -> list[bytes]:
        return [_utf8(_encode(message))]

    def _send_error(self, out: Out, id: Any, code: int, message: str, data: Any = None) -> None:
        err: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        out(self._message({"jsonrpc": "2.0", "id": id, "error": err}))

    def _send_result(self, out: Out, id: str | int, result: dict[str, Any] | Encoded) -> None:
        if isinstance(result, Encoded):
            rid = str(id) if type(id) is int else _encode(id)
            head = '{"jsonrpc":"2.0","id":' + rid + ',"result":'
            out(itertools.chain((_utf8(head),), result.chunks(), (b"}",)))
        else:
            out(self._message({"jsonrpc": "2.0", "id": id, "result": result}))

    # ------------------------------------------------------------- input

    def accept(self, line: bytes, out: Out) -> Request | None:
        """Parses one message: answers what is malformed (through out),
        handles a notification or a response, and registers and returns a
        request (to be handled with :meth:`run`)."""
        line = line.strip()
        if not line:
            return None
        try:
            msg = _decode(line.decode("utf-8"))  # str: no encoding detection
        except (ValueError, UnicodeDecodeError, RecursionError):  # also nesting too deep
            self._send_error(out, None, PARSE_ERROR, "Parse error")
            return None
        if isinstance(msg, list):
            self._send_error(out, None, INVALID_REQUEST, "Invalid Request: batches are not supported")
            return None
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            rid = msg.get("id") if isinstance(msg, dict) and _valid_id(msg.get("id")) else None
            self._send_error(out, rid, INVALID_REQUEST, "Invalid Request")
            return None
        method = msg.get("method")
        if method is None:
            if "id" in msg and ("result" in msg or "error" in msg):
                self._response(msg)
                return None
            self._send_error(out, msg.get("id") if _valid_id(msg.get("id")) else None,
                             INVALID_REQUEST, "Invalid Request")
            return None
        if not isinstance(method, str):
            self._send_error(out, msg.get("id") if _valid_id(msg.get("id")) else None,
                             INVALID_REQUEST, "Invalid Request: method must be a string")
            return None
        params = msg.get("params", {})
        if "id" not in msg:
            if isinstance(params, dict):
                self._notification(method, params)
            return None
        rid = msg["id"]
        if not _valid_id(rid):
            self._send_error(out, None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
            return None
        if params is None:
            params = {}
        if not isinstance(params, dict):
            self._send_error(out, rid, INVALID_PARAMS, "Invalid params: params must be an object")
            return None
        if not self._tracker.begin():  # counted from here until run() ends
            self._send_error(out, rid, SHUTTING_DOWN, "Server is shutting down")
            return None
        req = Request(rid, method, params, out, self)
        with self._inflight_lock:
            self._inflight[rid] = req
        return req

    def quick(self, req: Request) -> bool:
        try:
            return self._quick(req.method, req.params)
        except Exception:
            log.exception("internal error in the quick predicate")
            return False

    def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            if isinstance(rid, (str, int)) and _valid_id(rid):
                with self._inflight_lock:
                    req = self._inflight.get(rid)
                if req is not None and req.method != "initialize":
                    req.cancelled = True
                    log.info("request %r cancelled", rid)
            return
        handler = self._notifications.get(method)
        if handler is not None:
            try:
                handler(params)
            except Exception:
                log.exception("internal error in %s", method)
        # notifications/initialized and any other notification: nothing to do

    def _response(self, msg: dict[str, Any]) -> None:
        rid = msg.get("id")
        asked = self._asked.pop(rid, None) if isinstance(rid, str) else None
        if asked is None:
            return  # not a request of ours (or answered already): ignored
        if "error" in msg:
            err = msg.get("error")
            asked.error = err if isinstance(err, dict) else {"code": INTERNAL_ERROR, "message": "error"}
        else:
            asked.result = msg.get("result")
        asked.done.set()

    # ---------------------------------------------------- our own requests

    def ask(self, method: str, params: dict[str, Any], out: Out, timeout: float) -> Any:
        """Sends a request of ours to the client through out and waits (at
        most timeout seconds) for its result. RpcError for an error
        response, TimeoutError when none came."""
        rid = f"pathgate-{next(self._ask_ids)}"
        asked = _Asked()
        self._asked[rid] = asked
        # a transport whose answer is one response (HTTP) sends messages
        # before the answer through `interim` (server-sent events)
        send = getattr(out, "interim", out)
        try:
            send(self._message({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))
            if not asked.done.wait(timeout):
                raise TimeoutError(f"no answer to {method} within {timeout:g} s")
        finally:
            self._asked.pop(rid, None)
        if asked.error is not None:
            raise RpcError(int(asked.error.get("code", INTERNAL_ERROR)), str(asked.error.get("message", "")))
        return asked.result

    # ---------------------------------------------------------- dispatch

    def run(self, req: Request) -> None:
        """Handles a request from accept and answers it through its out."""
        out = req.out
        assert out is not None
        try:
            if req.cancelled:
                return
            try:
                result = self._dispatch(req)
            except RpcError as e:
                if not req.cancelled:
                    self._send_error(out, req.id, e.code, e.message, e.data)
                return
            except Exception:
                log.exception("internal error in %s", req.method)
                if not req.cancelled:
                    self._send_error(out, req.id, INTERNAL_ERROR, "Internal error")
                return
            if not req.cancelled:
                try:
                    self._send_result(out, req.id, result)
                except (TypeError, ValueError, RecursionError):  # a result JSON cannot carry: a bug
                    log.exception("unserialisable result of %s", req.method)
                    self._send_error(out, req.id, INTERNAL_ERROR, "Internal error")
        except OSError:
            log.warning("client went away")
        finally:
            self._tracker.end()
            with self._inflight_lock:
                if self._inflight.get(req.id) is req:
                    del self._inflight[req.id]

    def handle_line(self, line: bytes, out: Out) -> None:
        """One message, handled on the calling thread."""
        req = self.accept(line, out)
        if req is not None:
            self.run(req)

    def _dispatch(self, req: Request) -> dict[str, Any] | Encoded:
        if req.method == "initialize":
            return self._initialize(req.params)
        if req.method == "ping":
            return {}
        handler = self._handlers.get(req.method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {req.method}")
        return handler(req.params, req)

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: protocolVersion must be a string")
        version = asked if asked in SUPPORTED_PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION
        self.protocol_version = version
        info = params.get("clientInfo")
        self.client_info = info if isinstance(info, dict) else None
        caps = params.get("capabilities")
        self.client_capabilities = caps if isinstance(caps, dict) else {}
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self._capabilities,
            "serverInfo": self._server_info,
        }
        if self._instructions:
            result["instructions"] = self._instructions
        return result


class _Lines:
    """Lines of a binary stream. Over a file descriptor it reads the
    descriptor itself (the stream must not have been read from), so that
    :meth:`pending` can tell whether more input is already waiting; any
    other stream is read with ``readline`` and always has input pending."""

    def __init__(self, f: _t.IO[bytes]) -> None:
        self._f = f
        self._buf = bytearray()
        self._fd: int | None = None
        self._poll: Any = None
        try:
            fd = f.fileno()
            poll = select.poll()
            poll.register(fd, select.POLLIN)
        except (AttributeError, OSError, ValueError):
            return
        self._fd, self._poll = fd, poll

    def readline(self) -> tuple[bytes, bool]:
        """(line, overlong): b"" at end of input; an overlong line (longer
        than MAX_LINE) is skipped and answered (b"", True)."""
        limit = MAX_LINE
        if self._fd is None:
            line = self._f.readline(limit)
            if len(line) >= limit and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of it
                    line = self._f.readline(limit)
                return b"", True
            return line, False
        buf = self._buf
        skipping = False
        start = 0  # where to look for the newline
        while True:
            nl = buf.find(b"\n", start)
            if nl >= 0:
                line = bytes(buf[:nl + 1])
                del buf[:nl + 1]
                if skipping or nl + 1 > limit:
                    return b"", True
                return line, False
            if len(buf) > limit:  # no newline yet: drop what was read, skip to the next
                skipping = True
                del buf[:]
            start = len(buf)
            data = os.read(self._fd, 1 << 16)
            if not data:
                line = bytes(buf)
                del buf[:]
                if skipping or len(line) > limit:
                    return b"", True
                return line, False
            buf += data

    def pending(self) -> bool:
        """More input has arrived (or may: unknown for a stream without a
        descriptor, and an end of input counts too)."""
        return self._fd is None or bool(self._buf) or bool(self._poll.poll(0))


class Connection(Peer):
    """One client over a pair of binary streams: newline-delimited JSON."""

    def __init__(
        self,
        rfile: _t.IO[bytes],
        wfile: _t.IO[bytes],
        handlers: _abc.Mapping[str, Handler],
        *,
        server_info: _abc.Mapping[str, Any],
        capabilities: _abc.Mapping[str, Any],
        instructions: str | None = None,
        workers: int = 16,
        quick: Quick | None = None,
        notifications: _abc.Mapping[str, Notify] | None = None,
        tracker: Tracker | None = None,
    ) -> None:
        super().__init__(handlers, server_info=server_info, capabilities=capabilities,
                         instructions=instructions, quick=quick, notifications=notifications,
                         tracker=tracker)
        self._rfile = rfile
        self._wfile = wfile
        self._workers = workers
        self._write_lock = threading.Lock()
        self._wfd: int | None = None
        try:  # a descriptor: one write(2) per answer, past the stream's buffer
            wfile.flush()
            self._wfd = wfile.fileno()
        except (AttributeError, OSError, ValueError):
            self._wfd = None
        self._eof = False
        # called once, by the thread that sees the end of input
        self.on_eof: _abc.Callable[[], None] | None = None

    # ------------------------------------------------------------ output

    def write_message(self, chunks: _abc.Iterable[bytes]) -> None:
        """One message as one line: small ones in one write(2), long ones a
        piece at a time, under the write lock (messages never interleave)."""
        with self._write_lock:
            batch: list[bytes] = []
            size = 0
            for chunk in chunks:
                batch.append(chunk)
                size += len(chunk)
                if size >= CHUNK:
                    self._write(b"".join(batch))
                    batch, size = [], 0
            batch.append(b"\n")
            self._write(b"".join(batch))

    def _write(self, data: bytes) -> None:
        fd = self._wfd
        if fd is None:
            self._wfile.write(data)
            self._wfile.flush()
            return
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    # ------------------------------------------------------------- input

    def serve(self) -> None:
        """Reads until end of input, then waits for the requests in flight.

        Leader/followers: `workers` threads take turns reading. The one
        holding the read lock reads and parses messages (registering a
        request, or handling a notification, under the lock, so a
        cancellation is never seen before its request). A quick request
        (the `quick` predicate) with no other input waiting is answered
        right there, still holding the lock, and the thread reads on: a
        client that waits for each answer costs no thread switch at all.
        Any other request, or any request while more input is waiting,
        makes the thread hand the lock on and handle the request itself. So
        no request waits for a hand-over to another thread, up to `workers`
        requests run at once, and a request that can take long never holds
        up the reading."""
        self._eof = False
        self._read_lock = threading.Lock()
        self._lines = _Lines(self._rfile)
        threads = [threading.Thread(target=self._loop, name=f"pathgate-mcp-{i}", daemon=True)
                   for i in range(1, self._workers)]
        for t in threads:
            t.start()
        try:
            self._loop()
        finally:
            for t in threads:
                t.join()

    def _loop(self) -> None:
        while True:
            with self._read_lock:
                req = self._lead()
            if req is None:
                return
            self.run(req)

    def _lead(self) -> Request | None:
        """Reads (holding the read lock) until a request to hand on: that
        request, or None at the end of input."""
        lines, out = self._lines, self.write_message
        while not self._eof:
            try:
                line, overlong = lines.readline()
            except (OSError, ValueError):
                line, overlong = b"", False
            if overlong:
                try:
                    self._send_error(out, None, PARSE_ERROR, "Parse error: message too long")
                except OSError:
                    self._eof = True
                continue
            if not line:
                self._eof = True
                if self.on_eof is not None:
                    self.on_eof()
                break
            try:
                req = self.accept(line, out)
            except OSError:  # the client is gone: stop reading
                self._eof = True
                break
            except Exception:  # a bug: answer it, keep serving
                log.exception("internal error reading a message")
                try:
                    self._send_error(out, None, INTERNAL_ERROR, "Internal error")
                except OSError:
                    self._eof = True
                continue
            if req is None:
                continue
            if not self.quick(req) or lines.pending():
                return req
            self.run(req)
        return None

    def handle_line(self, line: bytes, out: Out | None = None) -> None:
        """One message, handled on the calling thread (answered on the
        connection's output unless out is given)."""
        super().handle_line(line, out or self.write_message)
