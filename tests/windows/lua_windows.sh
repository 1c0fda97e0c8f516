#!/bin/sh
# lua_windows.sh WINE LUA_EXE MODULE_DIR SPEC... - runs Lua specs with the
# Windows lua.exe under wine (tests/windows/spec_runner.lua), after making
# their tree in the wine prefix's drive C (wine cannot make symlinks, so
# the tree is made here): C:\pathgate-lua-NAME\repo with a file, a trait, a
# .env, and dirlink -> ..\outside (a directory link out of the base, which
# wine shows as a reparse point); C:\pathgate-lua-NAME\mods\Some Mod; outside
# (NAME: the first spec's). The specs find it through PATHGATE_WINDOWS_TMP.
set -eu
wine=$1 lua=$2 module_dir=$3
shift 3
: "${WINEPREFIX:?lua_windows.sh runs under scripts/windows.sh (WINEPREFIX)}"
# One folder per run (ctest runs several at once): named after the first spec.
name=$(basename "$1" .lua)
top=$WINEPREFIX/drive_c/pathgate-lua-$name
rm -rf "$top"
mkdir -p "$top/repo/common/traits" "$top/mods/Some Mod" "$top/outside"
printf 'brave = {\n\tdiplomacy = 1\n}\n' >"$top/repo/common/traits/00_traits.txt"
printf 'readme\n' >"$top/repo/readme.txt"
printf 'SECRET=1\n' >"$top/repo/.env"
printf 'name="Some Mod"\n' >"$top/mods/Some Mod/descriptor.mod"
printf 'secret\n' >"$top/outside/secret.txt"
ln -s ../outside "$top/repo/dirlink"
winpath() { printf 'Z:%s' "$(printf '%s' "$1" | tr / '\\')"; }
# The specs of tests/lua make their own trees under $top (helpers.lua): files
# and folders with Lua and cmd.exe, links and removals by /bin/sh, which
# cmd.exe starts only through a name ending in .exe; wine does not wait for
# it, so helpers.lua polls for a marker file the script writes last.
ln -s /bin/sh "$top/sh.exe"
here=$(cd "$(dirname "$0")" && pwd)
specs=
for s in "$@"; do specs="$specs $(winpath "$s")"; done
status=0
# shellcheck disable=SC2086
PATHGATE_WINDOWS_TMP="C:\\pathgate-lua-$name" PATHGATE_WINDOWS_TMP_HOST=$top \
  PATHGATE_WINDOWS_SH="C:\\pathgate-lua-$name\\sh.exe" PATHGATE_LUA="$(winpath "$lua")" LUA_CPATH="$(winpath "$module_dir")\\?.dll" \
  LUA_PATH="$(winpath "$here")\\?.lua;$(winpath "$here/../lua")\\?.lua" \
  "$wine" "$lua" "$(winpath "$here/spec_runner.lua")" $specs 2>&1 | tr -d '\r' || status=$?
rm -rf "$top"
exit $status
