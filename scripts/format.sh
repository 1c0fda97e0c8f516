#!/usr/bin/env bash
# scripts/format.sh [--check] [--advisory] [FILE...]
# clang-format (clang-format-14, as CI has it) over the C sources: every
# tracked *.c / *.h under core/, bindings/, tests/, fuzz/, bench/ and
# examples/, or the FILEs given. Style: .clang-format (and
# bindings/python/.clang-format for the CPython binding's braces).
#   (no flag)    rewrite the files in place
#   --check      change nothing; list the files that differ and exit 1 if any
#   --advisory   with --check: report the count, but exit 0
set -euo pipefail
cd "$(dirname "$0")/.."

check=0 advisory=0
files=()
for arg in "$@"; do
  case $arg in
    --check) check=1 ;;
    --advisory) advisory=1 ;;
    -*) echo "format.sh: unknown option $arg" >&2; exit 2 ;;
    *) files+=("$arg") ;;
  esac
done

cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
  echo "format.sh: clang-format not found (apt-get install clang-format-14)" >&2
  exit 2
fi
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(git ls-files -- 'core/*.[ch]' 'bindings/*.[ch]' 'tests/*.[ch]' 'fuzz/*.[ch]' \
                                       'bench/*.[ch]' 'examples/*.[ch]')
fi

if [ $check -eq 0 ]; then
  echo "format.sh: formatting ${#files[@]} files"
  "$cf" -i --style=file "${files[@]}"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  if ! "$cf" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -eq 0 ]; then
  echo "format.sh: all ${#files[@]} files formatted"
  exit 0
fi
echo "format.sh: ${#bad[@]} of ${#files[@]} files differ from .clang-format (run scripts/format.sh)"
if [ $advisory -eq 1 ]; then
  echo "format.sh: advisory only, not failing (--check without --advisory lists them)"
  exit 0
fi
printf '  %s\n' "${bad[@]}"
exit 1
