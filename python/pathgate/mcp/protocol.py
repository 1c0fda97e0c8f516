"""MCP's JSON-RPC 2.0 over newline-delimited stdio, with the standard library
only.

One :class:`Connection` reads messages from a binary stream, one JSON value
per line, and writes answers to another, one per line; nothing else is ever
written there (logs go to stderr through :mod:`logging`). ``initialize``,
``ping`` and the notifications are handled here; every other request goes to
a handler from the ``handlers`` mapping. ``workers`` threads take turns
reading (leader/followers, see :meth:`Connection.serve`), so requests are
answered concurrently, by the thread that read them (answers may come out of
order, each with its request's id); a request the ``quick`` predicate calls
quick is answered before reading on when no other input is waiting. A
handler answers a result dict or raises :class:`RpcError`; any other
exception is logged and answered as an internal error without its text.

What the spec asks and this does:

- a line that is not JSON: ``-32700`` (id null); a batch (a JSON array) or
  a message that is not a request, notification or response: ``-32600``;
  an unknown method: ``-32601``; params that are not an object: ``-32602``.
- ``notifications/cancelled`` for a request in flight: its answer is not
  sent; ``initialize`` cannot be cancelled. Other notifications and responses are ignored.
- ``initialize`` answers the client's protocol version when supported,
  else the latest this server speaks.
"""

from __future__ import annotations

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
    "SUPPORTED_PROTOCOL_VERSIONS",
    "json_str",
    "json_text",
    "Connection",
    "Encoded",
    "Request",
    "RpcError",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# What the official SDKs negotiate (newest first).
SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07")
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]
# Longest message line read; a longer one is skipped and answered -32700.
MAX_LINE = 64 << 20

log = logging.getLogger("pathgate.mcp")


class RpcError(Exception):
    """A JSON-RPC error answer: code, message and optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class Request:
    """One request in flight: its id, method, params, and ``cancelled``
    (set when the client cancelled it: its answer is not sent)."""

    __slots__ = ("id", "method", "params", "cancelled")

    def __init__(self, id: str | int, method: str, params: dict[str, Any]) -> None:
        self.id = id
        self.method = method
        self.params = params
        self.cancelled = False


class Encoded:
    """A result already in JSON text (a handler may answer one instead of a
    dict, e.g. to write a long text it holds twice only once encoded)."""

    __slots__ = ("json",)

    def __init__(self, json_text: str) -> None:
        self.json = json_text


Handler = _abc.Callable[[dict[str, Any], Request], "dict[str, Any] | Encoded"]
Quick = _abc.Callable[[str, dict[str, Any]], bool]

# One encoder for every answer (json.dumps with options builds one per call).
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_encode_ascii = json.JSONEncoder(separators=(",", ":")).encode
_decode = json.JSONDecoder().decode
_str_ascii: _abc.Callable[[str], str] = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]
_str_utf8: _abc.Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def json_text(value: Any) -> str:
    """A value as compact JSON text (what the answers' encoder writes)."""
    return _encode(value)


def json_str(text: str) -> str:
    """A string as JSON text, quoted (what the answers' encoder writes)."""
    return _str_ascii(text) if text.isascii() else _str_utf8(text)


def _only_ping(method: str, params: dict[str, Any]) -> bool:
    return method == "ping"


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


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class Connection:
    """One client over a pair of binary streams."""

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
    ) -> None:
        self._rfile = rfile
        self._wfile = wfile
        self._handlers = dict(handlers)
        self._server_info = dict(server_info)
        self._capabilities = dict(capabilities)
        self._instructions = instructions
        self._workers = workers
        # (method, params) -> True for a request known to finish at once
        # (no waiting, bounded work): answered before reading on when no
        # other input is waiting. Default: ping only.
        self._quick = quick or _only_ping
        self._write_lock = threading.Lock()
        self._wfd: int | None = None
        try:  # a descriptor: one write(2) per answer, past the stream's buffer
            wfile.flush()
            self._wfd = wfile.fileno()
        except (AttributeError, OSError, ValueError):
            self._wfd = None
        self._inflight: dict[str | int, Request] = {}
        self._inflight_lock = threading.Lock()
        self.protocol_version: str | None = None
        self.client_info: dict[str, Any] | None = None

    # ------------------------------------------------------------ output

    def _send(self, message: dict[str, Any]) -> None:
        try:
            data = (_encode(message) + "\n").encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: JSON's \u escapes carry it
            data = (_encode_ascii(message) + "\n").encode("ascii")
        self._write(data)

    def _send_encoded(self, id: str | int, result: str) -> None:
        rid = str(id) if type(id) is int else _encode(id)
        text = '{"jsonrpc":"2.0","id":' + rid + ',"result":' + result + "}\n"
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: JSON's \u escapes carry it
            data = (_encode_ascii(json.loads(text)) + "\n").encode("ascii")
        self._write(data)

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            fd = self._wfd
            if fd is None:
                self._wfile.write(data)
                self._wfile.flush()
                return
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]

    def _send_error(self, id: Any, code: int, message: str, data: Any = None) -> None:
        err: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        self._send({"jsonrpc": "2.0", "id": id, "error": err})

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
        threads = [threading.Thread(target=self._loop, name=f"pathgate-mcp-{i}")
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
            self._run(req)

    def _lead(self) -> Request | None:
        """Reads (holding the read lock) until a request to hand on: that
        request, or None at the end of input."""
        lines, quick = self._lines, self._quick
        while not self._eof:
            try:
                line, overlong = lines.readline()
            except (OSError, ValueError):
                line, overlong = b"", False
            if overlong:
                try:
                    self._send_error(None, PARSE_ERROR, "Parse error: message too long")
                except OSError:
                    self._eof = True
                continue
            if not line:
                self._eof = True
                break
            try:
                req = self._accept(line.strip())
            except OSError:  # the client is gone: stop reading
                self._eof = True
                break
            except Exception:  # a bug: answer it, keep serving
                log.exception("internal error reading a message")
                try:
                    self._send_error(None, INTERNAL_ERROR, "Internal error")
                except OSError:
                    self._eof = True
                continue
            if req is None:
                continue
            try:
                inline = quick(req.method, req.params) and not lines.pending()
            except Exception:
                log.exception("internal error in the quick predicate")
                inline = False
            if not inline:
                return req
            self._run(req)
        return None

    def handle_line(self, line: bytes) -> None:
        """One message, handled on the calling thread."""
        req = self._accept(line.strip())
        if req is not None:
            self._run(req)

    def _accept(self, line: bytes) -> Request | None:
        """Parses one message: answers what is malformed, handles a
        notification, and registers and returns a request."""
        if not line:
            return None
        try:
            msg = _decode(line.decode("utf-8"))  # str: no encoding detection
        except (ValueError, UnicodeDecodeError, RecursionError):  # also nesting too deep
            self._send_error(None, PARSE_ERROR, "Parse error")
            return None
        if isinstance(msg, list):
            self._send_error(None, INVALID_REQUEST, "Invalid Request: batches are not supported")
            return None
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            rid = msg.get("id") if isinstance(msg, dict) and _valid_id(msg.get("id")) else None
            self._send_error(rid, INVALID_REQUEST, "Invalid Request")
            return None
        method = msg.get("method")
        if method is None:
            if "id" in msg and ("result" in msg or "error" in msg):
                return None  # a response: this server sends no requests
            self._send_error(msg.get("id") if _valid_id(msg.get("id")) else None,
                             INVALID_REQUEST, "Invalid Request")
            return None
        if not isinstance(method, str):
            self._send_error(msg.get("id") if _valid_id(msg.get("id")) else None,
                             INVALID_REQUEST, "Invalid Request: method must be a string")
            return None
        params = msg.get("params", {})
        if "id" not in msg:
            if isinstance(params, dict):
                self._notification(method, params)
            return None
        rid = msg["id"]
        if not _valid_id(rid):
            self._send_error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
            return None
        if params is None:
            params = {}
        if not isinstance(params, dict):
            self._send_error(rid, INVALID_PARAMS, "Invalid params: params must be an object")
            return None
        req = Request(rid, method, params)
        with self._inflight_lock:
            self._inflight[rid] = req
        return req

    def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            if isinstance(rid, (str, int)) and _valid_id(rid):
                with self._inflight_lock:
                    req = self._inflight.get(rid)
                if req is not None and req.method != "initialize":
                    req.cancelled = True
                    log.info("request %r cancelled", rid)
        # notifications/initialized and any other notification: nothing to do

    # ---------------------------------------------------------- dispatch

    def _run(self, req: Request) -> None:
        try:
            if req.cancelled:
                return
            try:
                result = self._dispatch(req)
            except RpcError as e:
                if not req.cancelled:
                    self._send_error(req.id, e.code, e.message, e.data)
                return
            except Exception:
                log.exception("internal error in %s", req.method)
                if not req.cancelled:
                    self._send_error(req.id, INTERNAL_ERROR, "Internal error")
                return
            if not req.cancelled:
                try:
                    if isinstance(result, Encoded):
                        self._send_encoded(req.id, result.json)
                    else:
                        self._send({"jsonrpc": "2.0", "id": req.id, "result": result})
                except (TypeError, ValueError, RecursionError):  # a result JSON cannot carry: a bug
                    log.exception("unserialisable result of %s", req.method)
                    self._send_error(req.id, INTERNAL_ERROR, "Internal error")
        except OSError:
            log.warning("client went away")
        finally:
            with self._inflight_lock:
                if self._inflight.get(req.id) is req:
                    del self._inflight[req.id]

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
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self._capabilities,
            "serverInfo": self._server_info,
        }
        if self._instructions:
            result["instructions"] = self._instructions
        return result
