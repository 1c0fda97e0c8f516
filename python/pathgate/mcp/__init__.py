"""``pathgate mcp``: an MCP filesystem server over stdio whose every file
operation is contained by the kernel (see docs/mcp.md).

:mod:`.protocol` is the JSON-RPC layer (standard library only),
:mod:`.tools` the tools. One resolver (and so one token registry) serves
the process; each connection gets its own Session (home root, cwd stack).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import typing as _t
from typing import Any

from .protocol import Connection
from .tools import ConnectionTools, build_tools, tool_handlers

__all__ = ["make_connection", "serve_command"]

INSTRUCTIONS = (
    "Files are named by canonical addresses: root:<key>/<path> for a configured root and "
    "mod:<Name>/<path> for a mod (list_allowed_directories lists them). Relative paths resolve "
    "against the current directory (cwd_get, cwd_push, cwd_pop). Nothing outside the roots can "
    "be reached."
)


def make_connection(resolver: Any, rfile: _t.IO[bytes], wfile: _t.IO[bytes], *,
                    allow_execute: bool = False, workers: int = 16) -> Connection:
    """A Connection serving the tools over one resolver, with its own Session."""
    from .. import __version__

    state = ConnectionTools(resolver, allow_execute=allow_execute)
    tools = build_tools(allow_execute=allow_execute)
    return Connection(
        rfile, wfile, tool_handlers(tools, state),
        server_info={"name": "pathgate", "title": "pathgate", "version": __version__},
        capabilities={"tools": {"listChanged": False}},
        instructions=INSTRUCTIONS,
        workers=workers,
    )


def serve_command(args: argparse.Namespace) -> int:
    """The `pathgate mcp` subcommand: configuration as the rest of the
    command (cli.load_config), then serve stdin/stdout until end of input."""
    from .. import Error, Resolver
    from ..cli import UsageError, load_config

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="pathgate mcp: %(levelname)s %(message)s")
    roots, mods, max_tokens = load_config(args)
    kwargs: dict[str, Any] = {"roots": roots, "mods": mods}
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    read_only = getattr(args, "read_only", None)
    if read_only:
        kwargs["read_only"] = list(read_only)
    try:
        resolver = Resolver(**kwargs)
    except Error as e:
        raise UsageError(str(e)) from None
    # stdout carries protocol messages only: keep the real one for them and
    # point fd 1 (and sys.stdout) at stderr for anything else
    sys.stdout.flush()
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    conn = make_connection(resolver, sys.stdin.buffer, proto,
                           allow_execute=bool(getattr(args, "allow_execute", False)))
    try:
        conn.serve()
    except KeyboardInterrupt:
        pass
    finally:
        try:
            proto.close()
        except OSError:
            pass
    return 0
