#!/usr/bin/env bash
# tests/mcp/install.sh [clients] - installs the pinned MCP clients
# (package.json and package-lock.json here; with `clients`, those of
# clients/: mcp-remote and Claude Code) into an ignored folder, once per
# lock file: $PATHGATE_MCP_NODE_DIR, default <source>/.mcp-node (see
# .gitignore; `clients` go into its clients/), with npm's cache inside it.
# Prints the folder. Needs the npm registry the first time only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${PATHGATE_MCP_NODE_DIR:-$here/../../.mcp-node}
src=$here
probe=@modelcontextprotocol/sdk
if [ "${1:-}" = clients ]; then
  dir=$dir/clients
  src=$here/clients
  probe=mcp-remote
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stamp="$dir/.installed-lock"
if [ ! -d "$dir/node_modules/$probe" ] || ! cmp -s "$src/package-lock.json" "$stamp"; then
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm_config_cache="$dir/.npm-cache" npm ci --no-audit --no-fund --loglevel=error >&2)
  cp "$src/package-lock.json" "$stamp"
fi
echo "$dir"
