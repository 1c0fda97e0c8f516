#!/usr/bin/env bash
# tests/install/c.sh BUILD_DIR: installs the C library from BUILD_DIR into a
# temporary prefix (not the configured one), then builds and runs a consumer
# program twice: with pkg-config and with CMake's find_package.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/share/doc/pathgate/LICENSE"
pc=$(find "$tmp/prefix" -name pathgate.pc)
grep -q '^prefix=${pcfiledir}/' "$pc"

cd "$tmp"
libdir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=libdir pathgate)
# shellcheck disable=SC2046
cc "$here/consumer/consumer.c" -o consumer-pc -Wall -Wextra -Werror \
  $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs pathgate) -Wl,-rpath,"$libdir"
./consumer-pc | tee out-pc
grep -q 'ROOT_REPO:/ -> root:repo$' out-pc

cmake -S "$here/consumer" -B cmake-build -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build cmake-build >/dev/null
./cmake-build/consumer | tee out-cmake
grep -q 'root:repo/../../etc/passwd -> Invalid path / not found$' out-cmake
echo "install: pkg-config and find_package consumers built and ran from $tmp/prefix"
