#!/bin/sh
# modder.sh WINE LUA_EXE EXAMPLE MODULE_DIR - the modder's example
# (examples/lua/ck3_mod_tool.lua) run by the Windows lua.exe under wine, on
# a synthetic game and two mods in the wine prefix's drive C, every folder
# given as a `C:\...` path. Checks its answers (the overridden files, the
# trait definitions found by regex, a window of a large file, the merged
# patch written through a handle, the game refusing a write) and that a
# mod's directory link out of its mod changes nothing (wine shows a Unix
# symlink to a directory as a reparse point; docs/windows.md).
set -eu
wine=$1 lua=$2 example=$3 module_dir=$4
: "${WINEPREFIX:?modder.sh runs under scripts/windows.sh (WINEPREFIX)}"
top=$WINEPREFIX/drive_c/pathgate-modder
rm -rf "$top"
game=$top/game out=$top/out a="$top/mods/Better Traits" b=$top/mods/Localized
mkdir -p "$game/common/traits" "$game/localization/english" "$a/common/traits" \
  "$b/localization/english" "$b/common/traits" "$out" "$top/outside"
traits='brave = {
	category = personality
	diplomacy = 1
}

craven = {
	category = personality
	intrigue = 1
}'
printf '%s\n' "$traits" >"$game/common/traits/00_traits.txt"
{
  echo 'l_english:'
  i=1
  while [ $i -le 5000 ]; do echo " trait_$i:0 \"Trait number $i\""; i=$((i + 1)); done
} >"$game/localization/english/traits_l_english.yml"
# mod A overrides the game's traits file and adds one of its own
printf 'brave = {\n\tcategory = personality\n\tdiplomacy = 2\n}\n' >"$a/common/traits/00_traits.txt"
printf '  zealous = { # comment\n\tpiety = 1\n}\nnot_a_trait\n' >"$a/common/traits/a_traits.txt"
# mod B overrides the localization and redefines brave (B wins: last)
printf 'l_english:\n' >"$b/localization/english/traits_l_english.yml"
printf 'brave = {\n\tprowess = 3\n}\n' >"$b/common/traits/b_traits.txt"
# a hostile link in mod B, out of every base
printf 'stolen = {\n}\n' >"$top/outside/zz_stolen.txt"
ln -s ../../../../outside "$b/common/traits/zz_steal"

winpath() { printf 'Z:%s' "$(printf '%s' "$1" | tr / '\\')"; }
got=$(LUA_CPATH="$(winpath "$module_dir")\\?.dll" "$wine" "$lua" "$(winpath "$example")" \
  'C:\pathgate-modder\game' 'C:\pathgate-modder\out' 'C:\pathgate-modder\mods\Better Traits' \
  'C:\pathgate-modder\mods\Localized' 2>&1 | tr -d '\r') || { printf "%s\n" "$got"; echo "FAILED: the example exited non-zero"; exit 1; }
printf "%s\n" "$got"
tab=$(printf '\t')
want="override${tab}Better Traits${tab}common/traits/00_traits.txt
override${tab}Localized${tab}localization/english/traits_l_english.yml
trait${tab}brave${tab}root:game/common/traits/00_traits.txt:1
trait${tab}craven${tab}root:game/common/traits/00_traits.txt:6
trait${tab}brave${tab}mod:Better Traits/common/traits/00_traits.txt:1
trait${tab}zealous${tab}mod:Better Traits/common/traits/a_traits.txt:1
trait${tab}brave${tab}mod:Localized/common/traits/b_traits.txt:1
window${tab}1000${tab} trait_999:0 \"Trait number 999\"
window${tab}1001${tab} trait_1000:0 \"Trait number 1000\"
window${tab}1002${tab} trait_1001:0 \"Trait number 1001\"
window${tab}1003${tab} trait_1002:0 \"Trait number 1002\"
window${tab}1004${tab} trait_1003:0 \"Trait number 1003\"
patch${tab}root:out/common/traits/zz_merged_traits.txt${tab}2
game write${tab}permission_denied${tab}Permission denied: 'root:game/common/traits/00_traits.txt'"
if [ "$got" != "$want" ]; then
  echo "FAILED: the example's output differs; expected:"
  printf "%s\n" "$want"
  exit 1
fi
patch=$(cat "$out/common/traits/zz_merged_traits.txt")
want_patch='# merged by ck3_mod_tool.lua: the last mod defining a trait wins
# from mod:Localized/common/traits/b_traits.txt:1
brave = {
	prowess = 3
}
# from mod:Better Traits/common/traits/a_traits.txt:1
  zealous = { # comment
	piety = 1
}'
if [ "$patch" != "$want_patch" ]; then
  echo "FAILED: the merged patch differs:"
  printf "%s\n" "$patch"
  exit 1
fi
[ "$(cat "$game/common/traits/00_traits.txt")" = "$traits" ] || { echo "FAILED: the game changed"; exit 1; }
[ "$(ls -A "$out/common/traits")" = zz_merged_traits.txt ] || { echo "FAILED: stray files in the output mod"; exit 1; }
case $got in *pathgate-modder*|*'C:\'*|*drive_c*) echo "FAILED: a host path in the output"; exit 1 ;; esac
rm -rf "$top"
echo "modder example: all answers as expected"
