#!/usr/bin/env bash
# bench/bench_mcp_soak.sh - the soak of `pathgate mcp` as a service
# (bench_mcp_soak.mjs): CALLS mixed calls (default 1,000,000) through CONNS
# connections (default 8) over stdio and over HTTP (TRANSPORTS=stdio,http).
# Uses the build tree (BUILD, default build); prints a table.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
PATHGATE_MCP_NODE_DIR=$(bash tests/mcp/install.sh)
export PATHGATE_MCP_NODE_DIR
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
export PATHGATE_PYTHON=${PATHGATE_PYTHON:-/usr/bin/python3}
exec node bench/bench_mcp_soak.mjs
