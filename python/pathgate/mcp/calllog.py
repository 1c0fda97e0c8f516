"""The call log of ``pathgate mcp``: one line per tool call on stderr, with
the session, the tool, the canonical address it worked on, the outcome and
the duration; JSON lines on request (``--log-format json``, which makes
every other log line JSON too). Nothing here goes to the client, and no
line names a host path: addresses are canonical, and a path that did not
resolve is logged without its text.

A tool names the address it works on with :func:`note` (the first one
noted is logged); the dispatcher opens and closes the record around the
call (:meth:`CallLog.call`).
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
import typing as _t
from typing import Any

__all__ = ["CallLog", "JsonFormatter", "note"]

_local = threading.local()


class _Record:
    __slots__ = ("address",)

    def __init__(self) -> None:
        self.address: str | None = None


def note(address: str) -> None:
    """The canonical address the current call works on (the first noted
    is the one logged)."""
    rec = getattr(_local, "record", None)
    if rec is not None and rec.address is None:
        rec.address = address


def _now() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


class CallLog:
    """Writes the call lines to a text stream (stderr), one write each."""

    def __init__(self, stream: _t.TextIO | _t.Any = None, *, json_lines: bool = False) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self.json_lines = json_lines
        self._lock = threading.Lock()
        self.calls = 0

    def begin(self) -> _Record:
        rec = _Record()
        _local.record = rec
        return rec

    def end(self, rec: _Record, *, session: str, tool: str, outcome: str, kind: str | None,
            started: float) -> None:
        _local.record = None
        ms = (time.perf_counter() - started) * 1000
        self.write(session=session, tool=tool, address=rec.address, outcome=outcome, kind=kind,
                   duration_ms=round(ms, 3))

    def write(self, **fields: Any) -> None:
        if self.json_lines:
            line = json.dumps({"time": _now(), "event": "call", **fields}, ensure_ascii=False,
                              separators=(",", ":"))
        else:
            parts = [f"{k}={_text(v)}" for k, v in fields.items() if v is not None]
            line = "pathgate mcp: call " + " ".join(parts)
        with self._lock:
            self.calls += 1
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (OSError, ValueError):
                pass


def _text(value: Any) -> str:
    s = str(value)
    # an address may hold spaces or quotes: quote it then, as JSON does
    if not s or any(c.isspace() or c in "\"=\\" for c in s) or not s.isprintable():
        return json.dumps(s, ensure_ascii=False)
    return s


class JsonFormatter(logging.Formatter):
    """Every other log record as one JSON line (with --log-format json)."""

    def format(self, record: logging.LogRecord) -> str:
        d: dict[str, Any] = {"time": _now(), "event": "log", "level": record.levelname.lower(),
                             "message": record.getMessage()}
        if record.exc_info:
            d["exception"] = self.formatException(record.exc_info)
        return json.dumps(d, ensure_ascii=False, separators=(",", ":"))
