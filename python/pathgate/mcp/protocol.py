"""MCP's JSON-RPC 2.0 over newline-delimited stdio, with the standard library
only.

One :class:`Connection` reads messages from a binary stream, one JSON value
per line, and writes answers to another, one per line; nothing else is ever
written there (logs go to stderr through :mod:`logging`). ``initialize``,
``ping`` and the notifications are handled here; every other request goes to
a handler from the ``handlers`` mapping. ``workers`` threads take turns
reading (leader/followers, see :meth:`Connection.serve`), so requests are
answered concurrently, by the thread that read them (answers may come out of
order, each with its request's id). A handler answers a result dict or raises
:class:`RpcError`; any other exception is logged and answered as an internal
error without its text.

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
    "Connection",
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
    """One request in flight: its id, method, params and cancellation."""

    __slots__ = ("id", "method", "params", "cancelled")

    def __init__(self, id: str | int, method: str, params: dict[str, Any]) -> None:
        self.id = id
        self.method = method
        self.params = params
        self.cancelled = threading.Event()


Handler = _abc.Callable[[dict[str, Any], Request], dict[str, Any]]


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
    ) -> None:
        self._rfile = rfile
        self._wfile = wfile
        self._handlers = dict(handlers)
        self._server_info = dict(server_info)
        self._capabilities = dict(capabilities)
        self._instructions = instructions
        self._workers = workers
        self._write_lock = threading.Lock()
        self._inflight: dict[str | int, Request] = {}
        self._inflight_lock = threading.Lock()
        self.protocol_version: str | None = None
        self.client_info: dict[str, Any] | None = None

    # ------------------------------------------------------------ output

    def _send(self, message: dict[str, Any]) -> None:
        try:
            data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: JSON's \u escapes carry it
            data = json.dumps(message, separators=(",", ":")).encode("ascii")
        with self._write_lock:
            self._wfile.write(data + b"\n")
            self._wfile.flush()

    def _send_error(self, id: Any, code: int, message: str, data: Any = None) -> None:
        err: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        self._send({"jsonrpc": "2.0", "id": id, "error": err})

    # ------------------------------------------------------------- input

    def serve(self) -> None:
        """Reads until end of input, then waits for the requests in flight.

        Leader/followers: `workers` threads take turns reading. The one
        holding the read lock reads and parses one message (registering a
        request, or handling a notification, under the lock, so a
        cancellation is never seen before its request), hands the lock on,
        and handles the request itself. So no request waits for a hand-over
        to another thread, and up to `workers` requests run at once."""
        self._eof = False
        self._read_lock = threading.Lock()
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
                if self._eof:
                    return
                try:
                    line = self._rfile.readline(MAX_LINE)
                except (OSError, ValueError):
                    line = b""
                if not line:
                    self._eof = True
                    return
                if len(line) >= MAX_LINE and not line.endswith(b"\n"):
                    while line and not line.endswith(b"\n"):  # skip the rest of it
                        line = self._rfile.readline(MAX_LINE)
                    self._send_error(None, PARSE_ERROR, "Parse error: message too long")
                    continue
                try:
                    req = self._accept(line.strip())
                except OSError:  # the client is gone: stop reading
                    self._eof = True
                    return
                except Exception:  # a bug: answer it, keep serving
                    log.exception("internal error reading a message")
                    req = None
                    try:
                        self._send_error(None, INTERNAL_ERROR, "Internal error")
                    except OSError:
                        self._eof = True
                        return
            if req is not None:
                self._run(req)

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
            msg = json.loads(line)
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
                    req.cancelled.set()
                    log.info("request %r cancelled", rid)
        # notifications/initialized and any other notification: nothing to do

    # ---------------------------------------------------------- dispatch

    def _run(self, req: Request) -> None:
        try:
            if req.cancelled.is_set():
                return
            try:
                result = self._dispatch(req)
            except RpcError as e:
                if not req.cancelled.is_set():
                    self._send_error(req.id, e.code, e.message, e.data)
                return
            except Exception:
                log.exception("internal error in %s", req.method)
                if not req.cancelled.is_set():
                    self._send_error(req.id, INTERNAL_ERROR, "Internal error")
                return
            if not req.cancelled.is_set():
                try:
                    self._send({"jsonrpc": "2.0", "id": req.id, "result": result})
                except (TypeError, ValueError):  # a result JSON cannot carry: a bug
                    log.exception("unserialisable result of %s", req.method)
                    self._send_error(req.id, INTERNAL_ERROR, "Internal error")
        except OSError:
            log.warning("client went away")
        finally:
            with self._inflight_lock:
                if self._inflight.get(req.id) is req:
                    del self._inflight[req.id]

    def _dispatch(self, req: Request) -> dict[str, Any]:
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
