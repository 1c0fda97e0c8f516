#!/usr/bin/env bash
# tests/mcp/run.sh [TEST_FILE] - a Node test of `pathgate mcp` through the
# official TypeScript SDK client (pinned in package.json, installed by
# install.sh): TEST_FILE in this directory, default mcp.test.mjs. The test
# of the documented client configurations (clients.test.mjs) also gets the
# pinned clients (install.sh clients: mcp-remote, Claude Code).
# Environment: PATHGATE_PYTHON (the interpreter), PYTHONPATH (the built
# package), PATHGATE_MCP_PRELOAD (LD_PRELOAD for the server only, ASan).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PATHGATE_MCP_NODE_DIR=$(bash "$here/install.sh")
export PATHGATE_MCP_NODE_DIR
if [ "${1:-}" = clients.test.mjs ]; then
  PATHGATE_MCP_CLIENTS_DIR=$(bash "$here/install.sh" clients)
  export PATHGATE_MCP_CLIENTS_DIR
fi
exec node --test --test-reporter=spec "$here/${1:-mcp.test.mjs}"
