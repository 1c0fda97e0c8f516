#!/usr/bin/env bash
# tests/install/lua_rock.sh SOURCE_DIR: `luarocks make` of the rockspec into
# a local tree with Lua 5.4, then `require "pathgate"` from that tree.
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rockspec=$(ls "$src"/lua/pathgate-*.rockspec)

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

# The rockspec's source is the release tarball (the sdist): install from it.
(cd "$src" && /usr/bin/python3 setup.py -q egg_info --egg-base "$tmp" sdist -d "$tmp/dist") >"$tmp/sdist.log" 2>&1 \
  || { cat "$tmp/sdist.log"; exit 1; }
cp "$rockspec" "$tmp/dist/"
(cd "$tmp/dist" && luarocks --lua-version 5.4 --tree "$tmp/tree2" install "$(basename "$rockspec")") \
  >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
module2=$(find "$tmp/tree2" -name pathgate.so)
lua5.4 -e "package.cpath = '$(dirname "$module2")/?.so'" -e 'assert(require "pathgate".Resolver)'
echo "rock: installed from the release tarball as well"
