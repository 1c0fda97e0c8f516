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
from .tools import ConnectionTools, build_tools, quick_predicate, tool_handlers

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
        quick=quick_predicate(tools),
    )


def serve_command(args: argparse.Namespace) -> int:
    """The `pathgate mcp` subcommand: configuration as the rest of the
    command (cli.load_config), then serve stdin/stdout until end of input."""
    from ..cli import load_config, make_resolver

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="pathgate mcp: %(levelname)s %(message)s")
    # The command's one configuration path: the same sources, the same
    # refusal of a configuration writable through its own sandbox.
    cfg = load_config(args)
    resolver = make_resolver(args, cfg)
    allow_execute = bool(getattr(args, "allow_execute", False)) or cfg.allow_execute
    # stdout carries protocol messages only: keep the real one for them and
    # point fd 1 (and sys.stdout) at stderr for anything else
    sys.stdout.flush()
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    conn = make_connection(resolver, sys.stdin.buffer, proto,
                           allow_execute=allow_execute)
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
