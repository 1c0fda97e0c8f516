"""The call log of ``pathgate mcp``: one line per tool call on stderr, with
the session, the tool, the canonical address it worked on, the outcome and
the duration; JSON lines on request (``--log-format json``, which makes
every other log line JSON too). Nothing here goes to the client, and no
line names a host path: addresses are canonical, and a path that did not
resolve is logged without its text.

A tool names the address it works on with :func:`note` (the first one
noted is logged); the dispatcher opens and closes the record around the
call (:meth:`CallLog.begin`, :meth:`CallLog.end`). ``pathgate mcp`` writes
every line through a :class:`LogWriter`, a thread of its own, so that a
stderr nobody reads never stalls a call.
"""

from __future__ import annotations

import collections
import json
import logging
import re
import sys
import threading
import time
import typing as _t
from typing import Any

__all__ = ["CallLog", "JsonFormatter", "LogWriter", "WriterHandler", "discard", "note"]

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


class LogWriter:
    """Writes log lines to a text stream from a thread of its own, so that
    whoever logs never waits for the stream: a client that pipes the
    server's stderr and does not read it cannot stall a call. A line costs
    the caller an append: the thread, woken by the first line after a
    quiet spell, writes what gathered every ``interval`` seconds until
    nothing is left (no thread switch per line). Past ``capacity`` lines
    waiting, lines are dropped, and the next write says how many."""

    def __init__(self, stream: _t.TextIO | _t.Any, capacity: int = 10_000, interval: float = 0.02) -> None:
        self._stream = stream
        self._capacity = capacity
        self._interval = interval
        self._lines: collections.deque[str] = collections.deque()
        self._cond = threading.Condition()
        self._idle = True  # the thread waits for a first line
        self._busy = False
        self.dropped = 0
        self._thread: threading.Thread | None = None

    def put(self, line: str) -> None:
        lines = self._lines
        if len(lines) >= self._capacity:
            self.dropped += 1  # (a count under races: close enough)
            return
        lines.append(line)  # deque.append: thread-safe
        if self._idle:
            with self._cond:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="pathgate-mcp-log", daemon=True)
                    self._thread.start()
                self._idle = False
                self._cond.notify_all()

    def _run(self) -> None:
        lines = self._lines
        while True:
            with self._cond:
                if not lines:
                    self._idle = True
                    self._busy = False
                    self._cond.notify_all()  # (flush waits for this)
                    self._cond.wait_for(lambda: not self._idle)
                self._busy = True
            time.sleep(self._interval)  # let lines gather
            batch = []
            while lines:
                batch.append(lines.popleft())
            dropped, self.dropped = self.dropped, 0
            if dropped:
                batch.append(f"pathgate mcp: WARNING {dropped} log line(s) dropped: stderr was not read\n")
            try:
                self._stream.write("".join(batch))
                self._stream.flush()
            except (OSError, ValueError):
                pass

    def flush(self, timeout: float) -> bool:
        """Waits (at most timeout) until every line was written."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._lines and not self._busy, timeout)


class CallLog:
    """One line per call, handed to ``write`` (default: straight to
    stderr; ``pathgate mcp`` hands them to a :class:`LogWriter`)."""

    def __init__(self, write: _t.Callable[[str], None] | None = None, *, json_lines: bool = False) -> None:
        self._write = write or _stderr
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
        ms = round((time.perf_counter() - started) * 1000, 3)
        if self.json_lines:
            self.write(session=session, tool=tool, address=rec.address, outcome=outcome, kind=kind,
                       duration_ms=ms)
            return
        # the common case written at once: the session, outcome and kind
        # are the server's own words; the tool and address are quoted when
        # they must be
        address = rec.address
        line = (f"pathgate mcp: call session={session} tool={_text(tool)}"
                + ("" if address is None else f" address={_text(address)}")
                + f" outcome={outcome}" + ("" if kind is None else f" kind={kind}")
                + f" duration_ms={ms}\n")
        with self._lock:
            self.calls += 1
        self._write(line)

    def write(self, **fields: Any) -> None:
        if self.json_lines:
            line = json.dumps({"time": _now(), "event": "call", **fields}, ensure_ascii=False,
                              separators=(",", ":"))
        else:
            parts = [f"{k}={_text(v)}" for k, v in fields.items() if v is not None]
            line = "pathgate mcp: call " + " ".join(parts)
        with self._lock:
            self.calls += 1
        self._write(line + "\n")


def _stderr(line: str) -> None:
    try:
        sys.stderr.write(line)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def discard(line: str) -> None:
    """A CallLog sink that keeps nothing (library use)."""


class WriterHandler(logging.Handler):
    """The other log records, formatted, through the same LogWriter."""

    def __init__(self, writer: LogWriter) -> None:
        super().__init__()
        self._writer = writer

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._writer.put(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


_PLAIN = re.compile(r"[^\s\"=\\]+")


def _text(value: Any) -> str:
    s = value if isinstance(value, str) else str(value)
    # an address (or a tool name a client made up) may hold spaces, quotes
    # or control characters: quoted then, as JSON does
    if _PLAIN.fullmatch(s) and s.isprintable():
        return s
    return json.dumps(s, ensure_ascii=False)


class JsonFormatter(logging.Formatter):
    """Every other log record as one JSON line (with --log-format json)."""

    def format(self, record: logging.LogRecord) -> str:
        d: dict[str, Any] = {"time": _now(), "event": "log", "level": record.levelname.lower(),
                             "message": record.getMessage()}
        if record.exc_info:
            d["exception"] = self.formatException(record.exc_info)
        return json.dumps(d, ensure_ascii=False, separators=(",", ":"))
