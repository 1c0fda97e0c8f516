#!/usr/bin/env bash
# tests/mcp/install.sh - installs the pinned MCP clients (package.json and
# package-lock.json here) into an ignored folder, once per lock file:
# $PATHGATE_MCP_NODE_DIR, default <source>/.mcp-node (see .gitignore), with
# npm's cache inside it. Prints the folder. Needs the npm registry the
# first time only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${PATHGATE_MCP_NODE_DIR:-$here/../../.mcp-node}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stamp="$dir/.installed-lock"
if [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ] || ! cmp -s "$here/package-lock.json" "$stamp"; then
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  (cd "$dir" && npm_config_cache="$dir/.npm-cache" npm ci --no-audit --no-fund --loglevel=error >&2)
  cp "$here/package-lock.json" "$stamp"
fi
echo "$dir"
