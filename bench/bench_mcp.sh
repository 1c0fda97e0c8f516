#!/usr/bin/env bash
# bench/bench_mcp.sh - the MCP latency table: pathgate mcp vs the reference
# server through the same SDK client (bench_mcp.mjs). Uses the build tree
# (BUILD, default build) and the pinned clients of tests/mcp.
#   bash bench/bench_mcp.sh            ROUNDS=5 CALLS=200 by default
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
PATHGATE_MCP_NODE_DIR=$(bash tests/mcp/install.sh)
export PATHGATE_MCP_NODE_DIR
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
export PATHGATE_PYTHON=${PATHGATE_PYTHON:-/usr/bin/python3}
exec node bench/bench_mcp.mjs
