#!/usr/bin/env bash
# scripts/setup.sh [BUILD_DIR [CMAKE_ARGS...]]
# The one set-up path: installs the Debian packages pathgate needs (when run
# as root; otherwise prints the exact apt-get line and stops), then
# configures and builds BUILD_DIR (default: build). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake make gcc clang pkg-config liburiparser-dev libcmocka-dev uuid-dev
          lua5.4 liblua5.4-dev lua-busted python3 python3-venv python3-dev python3-setuptools
          python3-pytest python3-pytest-asyncio python3-hypothesis python3-mypy python3-wheel
          luarocks clang-format-14 libclang-rt-14-dev libpcre2-dev git ripgrep curl uidmap)
# git and ripgrep are run by tests/workloads (with gcc, make, cmake,
# python3-venv and node/npm, listed for the other suites); ripgrep also
# makes deepagents' ripgrep-gated tests run. curl is a client in
# tests/c/test_netproxy_bridge.c (through the network allowlist's proxy).

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node and npm for the MCP test (tests/mcp) and tests/workloads: Debian's,
# unless a node with its own npm (e.g. NodeSource's nodejs) is there already.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # waits for another apt (e.g. a second setup started alongside)
    apt_wait=(-o DPkg::Lock::Timeout=900)
    apt-get "${apt_wait[@]}" update -qq
    apt-get "${apt_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}" </dev/null
  else
    echo "setup: missing packages; run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

build=${1:-build}
shift || true
cmake -S . -B "$build" -DPython3_EXECUTABLE=/usr/bin/python3 "$@" >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)"
