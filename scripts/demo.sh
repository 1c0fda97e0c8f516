#!/usr/bin/env bash
# scripts/demo.sh - the main job on its embedded default: sets pathgate up
# (scripts/setup.sh), then runs the pathgate command against this repository
# with no configuration, so root:repo is the repository itself.
set -euo pipefail
cd "$(dirname "$0")/.."
# PATHGATE_BUILD_DIR (used by the test suite) names an existing build to use instead.
build=${PATHGATE_BUILD_DIR:-}
if [ -z "$build" ]; then
  build=build
  # The set-up output goes to build.setup.log (ignored by git, like
  # setup.sh's build.configure.log); on failure it is shown.
  echo "demo: setting up and building into $build/ (log: $build.setup.log)" >&2
  bash scripts/setup.sh "$build" >"$build.setup.log" 2>&1 || { cat "$build.setup.log"; exit 1; }
fi
echo "demo: running $build/bin/pathgate on this repository as root:repo" >&2

pg() {
  printf '$ pathgate'; printf ' %q' "$@"; echo
  local rc=0
  "$build/bin/pathgate" "$@" || rc=$?
  [ "$rc" -eq 0 ] || printf '(exit status %d)\n' "$rc"
  echo
}

# Four spellings of files in the repository, each answered by its one canonical address.
pg resolve root:repo/README.md ROOT_REPO:/core/include/pathgate/../pathgate/pathgate.h \
  "$PWD/docs/design.md" "file://$PWD/scripts/demo.sh"
# An escape attempt: refused with the one agent-visible message; exit status 1.
pg resolve 'root:repo/../../etc/passwd'
pg ls root:repo/core
pg glob '*.h' root:repo/core/include
pg grep --max-count 3 'Invalid path / not found' root:repo/core/include
pg read --limit 4 root:repo/docs/design.md
# Paths of other systems, converted without touching any filesystem.
pg uri 'C:\Users\modder\Documents\Paradox Interactive\Crusader Kings III\mod\my_mod.mod'
pg uri '\\fileserver\mods\Some Mod\descriptor.mod'
pg native --convention windows 'file://fileserver/mods/Some%20Mod/descriptor.mod'
