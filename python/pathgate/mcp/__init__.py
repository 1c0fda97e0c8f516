"""``pathgate mcp``: an MCP filesystem server whose every file operation is
contained by the kernel (see docs/mcp.md), over stdio or Streamable HTTP.

:mod:`.protocol` is the JSON-RPC layer (standard library only),
:mod:`.tools` the tools, :mod:`.limits` their caps, :mod:`.roots` the
client's roots, :mod:`.calllog` the call log, :mod:`.http` the HTTP
transport and :mod:`.service` the process around them. One resolver (and
so one token registry) serves the process; each connection (stdio) or MCP
session (HTTP) gets its own Session (home root, cwd stack).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import typing as _t
from typing import Any

from .calllog import CallLog, JsonFormatter, LogWriter, WriterHandler, discard
from .limits import Limits, parse_size
from .protocol import Connection, Tracker
from .service import INSTRUCTIONS, Server

__all__ = ["INSTRUCTIONS", "add_arguments", "make_connection", "serve_command"]

log = logging.getLogger("pathgate.mcp")

TOKEN_ENV = "PATHGATE_MCP_TOKEN"


def make_connection(resolver: Any, rfile: _t.IO[bytes], wfile: _t.IO[bytes], *,
                    allow_execute: bool = False, workers: int = 16, limits: Limits | None = None,
                    call_log: CallLog | None = None, tracker: Tracker | None = None) -> Connection:
    """A Connection serving the tools over one resolver, with its own
    Session (what ``pathgate mcp`` serves on stdio)."""
    server = Server(resolver, allow_execute=allow_execute, limits=limits,
                    call_log=call_log or CallLog(discard))
    if tracker is not None:
        server.tracker = tracker
    return server.stdio(rfile, wfile, workers=workers)


# ------------------------------------------------------------------ options


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"not a positive integer: {text!r}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `pathgate mcp` beyond the configuration's."""
    p.add_argument("--http", metavar="HOST:PORT",
                   help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST "
                        "defaults to 127.0.0.1; port 0 picks a free one; an address that is not "
                        "loopback needs a token)")
    p.add_argument("--unix", metavar="PATH",
                   help="serve Streamable HTTP on a Unix socket at PATH (mode 0600)")
    p.add_argument("--token-file", metavar="FILE",
                   help="HTTP: require 'Authorization: Bearer <token>', the token read from FILE "
                        f"(default: the environment variable {TOKEN_ENV}, when set)")
    p.add_argument("--allow-origin", action="append", metavar="ORIGIN",
                   help="HTTP: an Origin a browser may send (repeatable); requests with any other "
                        "Origin are refused")
    p.add_argument("--allow-host", action="append", metavar="HOST[:PORT]",
                   help="HTTP: a Host the server answers to (repeatable), e.g. the name a TLS "
                        "reverse proxy forwards; requests naming any other Host (or an Origin "
                        "other than these hosts' and --allow-origin's) are refused")
    p.add_argument("--max-sessions", type=_positive, default=64, metavar="N",
                   help="HTTP: sessions open at once (default: 64)")
    p.add_argument("--session-idle", type=_positive, default=1800, metavar="SECONDS",
                   help="HTTP: end a session unused this long (default: 1800)")
    d = Limits()
    p.add_argument("--max-read", type=_size, default=d.max_read, metavar="BYTES",
                   help="bytes one call reads from files; a larger file or window answers that it "
                        "is too large (default: 8M)")
    p.add_argument("--max-answer", type=_size, default=d.max_answer, metavar="BYTES",
                   help="bytes of text a listing, tree, search or grep answers before it is cut "
                        "short with a notice (default: 8M)")
    p.add_argument("--max-items", type=_positive, default=d.max_items, metavar="N",
                   help=f"items an answer lists before it is cut short with a notice (default: {d.max_items})")
    p.add_argument("--max-timeout", type=_positive, default=d.max_timeout, metavar="SECONDS",
                   help=f"the longest timeout execute accepts (default: {d.max_timeout})")
    p.add_argument("--shutdown-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="on SIGTERM or the end of input, how long calls in flight may take to "
                        "finish (running commands are killed at once; default: 10)")
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="stderr: one line per call, as text or as JSON lines (default: text)")


def _split_hostport(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    if not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--http expects HOST:PORT, not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def _token(args: argparse.Namespace) -> str | None:
    path = getattr(args, "token_file", None)
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                token = f.read().strip()
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"--token-file {path}: cannot be read ({getattr(e, 'strerror', None) or e})") from None
        if not token:
            raise ValueError(f"--token-file {path}: is empty")
        try:
            if os.stat(path).st_mode & 0o077:
                log.warning("--token-file %s can be read by other users", path)
        except OSError:
            pass
        return token
    token = os.environ.get(TOKEN_ENV, "").strip()
    return token or None


# ------------------------------------------------------------------ serving


def serve_command(args: argparse.Namespace) -> int:
    """The `pathgate mcp` subcommand: configuration as the rest of the
    command (cli.load_config); serves stdio (the default) or HTTP until the
    end of input, SIGTERM or SIGINT, then shuts down (bounded)."""
    from ..cli import UsageError, load_config, make_resolver

    json_logs = getattr(args, "log_format", "text") == "json"
    writer = LogWriter(sys.stderr)
    handler = WriterHandler(writer)
    handler.setFormatter(JsonFormatter() if json_logs
                         else logging.Formatter("pathgate mcp: %(levelname)s %(message)s"))
    root = logging.getLogger("pathgate")
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    root.propagate = False

    limits = Limits(max_read=args.max_read, max_answer=args.max_answer, max_items=args.max_items,
                    max_timeout=args.max_timeout)
    http, unix = getattr(args, "http", None), getattr(args, "unix", None)
    try:
        token = _token(args) if (http or unix) else None
        hostport = _split_hostport(http) if http else None
    except ValueError as e:
        raise UsageError(str(e)) from None
    if http or unix:
        from .http import parse_host

        for h in getattr(args, "allow_host", None) or ():
            try:
                parse_host(h)
            except ValueError as e:
                raise UsageError(f"--allow-host: {e}") from None
    if hostport is not None and token is None:
        from .http import is_loopback

        if not is_loopback(hostport[0]):
            raise UsageError(f"--http {http}: an address that is not loopback needs a token "
                             f"(--token-file FILE or {TOKEN_ENV})")
    # The command's one configuration path: the same sources, the same
    # refusal of a configuration writable through its own sandbox.
    cfg = load_config(args)
    resolver = make_resolver(args, cfg)
    allow_execute = bool(getattr(args, "allow_execute", False)) or cfg.allow_execute
    server = Server(resolver, allow_execute=allow_execute, limits=limits,
                    execute_options=cfg.execute_options(),
                    call_log=CallLog(writer.put, json_lines=json_logs),
                    shutdown_timeout=max(0.0, args.shutdown_timeout))

    stop = threading.Event()
    reason: list[str] = []

    def on_signal(signum: int, frame: Any) -> None:
        reason.append(signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if http or unix:
        transport = _serve_http(server, args, hostport, unix, token)
        while not stop.wait(3600):
            pass
        transport.close()
    else:
        _serve_stdio(server, stop, reason)
        while not stop.wait(3600):
            pass
    finished = server.shutdown(reason[0] if reason else "end of input")
    # The log lines get a second. Over a stderr nobody reads, the writer
    # thread stays blocked in its write, holding the stream's lock: a flush
    # from here would wait for ever, so only a writer that is done is
    # followed by one (for anything written to stderr directly).
    if writer.flush(1.0):
        sys.stderr.flush()
    # The threads still reading stdin or waiting on a connection are not
    # waited for (they hold nothing): leave at once.
    os._exit(0 if finished else 1)


def _serve_stdio(server: Server, stop: threading.Event, reason: list[str]) -> None:
    # stdout carries protocol messages only: keep the real one for them and
    # point fd 1 (and sys.stdout) at stderr for anything else
    sys.stdout.flush()
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    conn = server.stdio(sys.stdin.buffer, proto)

    def reader() -> None:
        try:
            conn.serve()
        finally:
            stop.set()

    conn.on_eof = stop.set
    threading.Thread(target=reader, name="pathgate-mcp-0", daemon=True).start()


def _serve_http(server: Server, args: argparse.Namespace, hostport: tuple[str, int] | None,
                unix: str | None, token: str | None) -> Any:
    from ..cli import UsageError
    from .http import HttpTransport

    transport = HttpTransport(server, token=token, allowed_origins=args.allow_origin or (),
                              allowed_hosts=getattr(args, "allow_host", None) or (),
                              max_sessions=args.max_sessions, idle_timeout=float(args.session_idle))
    try:
        if hostport is not None:
            host, port = transport.listen_tcp(*hostport)
            shown = f"[{host}]" if ":" in host else host
            log.info("listening on http://%s:%d/mcp%s", shown, port,
                        " (bearer token required)" if token else "")
        if unix:
            transport.listen_unix(unix)
            log.info("listening on unix:%s (path /mcp)%s", unix,
                        " (bearer token required)" if token else "")
    except OSError as e:
        transport.close()
        raise UsageError(f"cannot listen: {e.strerror or e}") from None
    transport.start()
    return transport
