#!/usr/bin/env bash
# tests/install/lua_rock.sh SOURCE_DIR: `luarocks make` of the rockspec into
# a local tree with Lua 5.4, then `require "pathgate"` from that tree.
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rockspec=$src/lua/pathgate-scm-1.rockspec

(cd "$src" && luarocks --lua-version 5.4 --tree "$tmp/tree" make "$rockspec") >"$tmp/make.log" 2>&1 \
  || { cat "$tmp/make.log"; exit 1; }
module=$(find "$tmp/tree" -name pathgate.so)
test -n "$module"
find "$tmp/tree" -name LICENSE | grep -q . || { echo "the rock does not ship LICENSE"; exit 1; }

mkdir -p "$tmp/work/docs" && echo hello >"$tmp/work/docs/a.txt"
cd "$tmp/work"
lua5.4 -e "package.cpath = '$(dirname "$module")/?.so'" -e '
  local pathgate = require "pathgate"
  local r = pathgate.Resolver{roots = {repo = "."}}
  local res = r:resolve("ROOT_REPO:/docs/a.txt")
  assert(res.ok and tostring(res.ref) == "root:repo/docs/a.txt")
  assert(not r:resolve("root:repo/../../etc/passwd").ok)
  print("rock: require and resolve ok")'

# A release: the sdist is the tarball, and its rockspec is made from the scm
# one with the version the module itself reports (common.h is its only
# spelling). Install from them as a user of the release would.
version=$(lua5.4 -e "package.cpath = '$(dirname "$module")/?.so'" -e 'io.write(require "pathgate".version)')
(cd "$src" && /usr/bin/python3 setup.py -q egg_info --egg-base "$tmp" sdist -d "$tmp/dist") >"$tmp/sdist.log" 2>&1 \
  || { cat "$tmp/sdist.log"; exit 1; }
test -f "$tmp/dist/pathgate-$version.tar.gz" || { echo "the sdist is not pathgate-$version.tar.gz"; ls "$tmp/dist"; exit 1; }
cp "$rockspec" "$tmp/dist/"
(cd "$tmp/dist" && luarocks new_version "$(basename "$rockspec")" "$version-1" "file://pathgate-$version.tar.gz" \
  && luarocks --lua-version 5.4 --tree "$tmp/tree2" install "pathgate-$version-1.rockspec") \
  >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
module2=$(find "$tmp/tree2" -name pathgate.so)
lua5.4 -e "package.cpath = '$(dirname "$module2")/?.so'" -e "assert(require 'pathgate'.version == '$version')"
echo "rock: release $version installed from the release tarball as well"
