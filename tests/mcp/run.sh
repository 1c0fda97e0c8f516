#!/usr/bin/env bash
# tests/mcp/run.sh [TEST_FILE] - a Node test of `pathgate mcp` through the
# official TypeScript SDK client (pinned in package.json, installed by
# install.sh): TEST_FILE in this directory, default mcp.test.mjs.
# Environment: PATHGATE_PYTHON (the interpreter), PYTHONPATH (the built
# package), PATHGATE_MCP_PRELOAD (LD_PRELOAD for the server only, ASan).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PATHGATE_MCP_NODE_DIR=$(bash "$here/install.sh")
export PATHGATE_MCP_NODE_DIR
exec node --test --test-reporter=spec "$here/${1:-mcp.test.mjs}"
