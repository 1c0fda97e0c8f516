#!/usr/bin/env bash
# scripts/test.sh - installs what is missing, builds, and runs every suite:
#   1. C, Python and Lua suites under AddressSanitizer + UndefinedBehaviorSanitizer,
#      then the clang-format check (scripts/format.sh --check)
#   2. the threaded C suites under ThreadSanitizer
#   3. the libFuzzer targets for a bounded time (clang)
#   4. the Release configuration (-O3), built whole, with its C suites
#   5. the POSIX backend (-DPATHGATE_OS=posix), as root and as nobody
#   6. the Windows cross-build (mingw-w64) and its suites under wine
#      (scripts/windows.sh; skipped with a SKIPPED line without the
#      Windows source tarballs)
#   7. every suite on the plain build, and the install checks (tests/install:
#      C prefix with pkg-config/find_package, Python sdist -> wheel -> venv,
#      Lua rock); its ctest summary is the last line.
# Every build here is a development build: warnings are errors
# (PATHGATE_WERROR=ON; a user's default build leaves it off).
# A suite that cannot run on this machine (the deepagents interoperability
# suite without its pinned third-party copies) is reported by ctest as
# skipped, and its reason is printed after the stage's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI=${CI:-}

run_ctest() { # BUILD_DIR [ctest args...]
  local dir=$1; shift
  local status=0
  ctest --test-dir "$dir" --output-on-failure --no-tests=error "$@" | tee "$dir/ctest.out" \
    || status=$?
  if grep -q '(Skipped)' "$dir/ctest.out"; then
    echo "skipped, and why:"
    grep -h '^SKIPPED: ' "$dir/Testing/Temporary/LastTest.log" | sort -u | sed 's/^/  /'
    grep -E 'tests passed, [0-9]+ tests failed' "$dir/ctest.out" | tail -n 1
  fi
  return "$status"
}

echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
bash scripts/setup.sh build-asan -DPATHGATE_WERROR=ON -DPATHGATE_SANITIZE=address,undefined -DPATHGATE_BUILD_BENCH=OFF
run_ctest build-asan -LE 'fuzz|bench|install'

# The style check: every C file as .clang-format says (scripts/format.sh
# rewrites them).
echo "== clang-format"
bash scripts/format.sh --check

echo "== ThreadSanitizer (threaded suites)"
bash scripts/setup.sh build-tsan -DPATHGATE_WERROR=ON -DPATHGATE_SANITIZE=thread -DPATHGATE_BUILD_PYTHON=OFF \
  -DPATHGATE_BUILD_LUA=OFF -DPATHGATE_BUILD_BENCH=OFF
run_ctest build-tsan -L threads

if [ -d fuzz ]; then
  echo "== libFuzzer (bounded)"
  CC=clang bash scripts/setup.sh build-fuzz -DPATHGATE_WERROR=ON -DPATHGATE_BUILD_FUZZ=ON -DPATHGATE_BUILD_PYTHON=OFF \
    -DPATHGATE_BUILD_LUA=OFF -DPATHGATE_BUILD_BENCH=OFF -DPATHGATE_BUILD_TESTS=ON
  run_ctest build-fuzz -L fuzz
fi

echo "== Release (-O3): the whole build, and the C suites"
bash scripts/setup.sh build-release -DPATHGATE_WERROR=ON -DCMAKE_BUILD_TYPE=Release
run_ctest build-release -L c

# The portable POSIX backend (os/posix, docs/os.md) on Linux: every suite
# that does not need commands (those report as skipped, by name), as root
# and then as an unprivileged user, since root hides the permission
# differences (mode-000 files, search-only directories). The unprivileged
# run builds a copy of the tree in a directory that user owns. No
# sanitizers, no benchmarks: a second build kept short.
echo "== POSIX backend (-DPATHGATE_OS=posix)"
posix_args=(-DPATHGATE_WERROR=ON -DPATHGATE_OS=posix -DPATHGATE_BUILD_BENCH=OFF)
bash scripts/setup.sh build-posix "${posix_args[@]}"
# readme builds its own default (Linux) copy: the last stage runs it
run_ctest build-posix -LE 'fuzz|bench|install' -E '^readme$'
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
  echo "== POSIX backend as nobody"
  posix_copy=$(mktemp -d /tmp/pathgate-posix.XXXXXX)
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$posix_copy"
  chown -R nobody "$posix_copy"
  chmod 755 "$posix_copy"
  as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
                  env HOME="$posix_copy" "$@"; }
  (cd "$posix_copy" && as_nobody bash scripts/setup.sh build-posix "${posix_args[@]}" >/dev/null \
     && as_nobody bash -c "$(declare -f run_ctest); run_ctest build-posix -LE 'fuzz|bench|install' -E '^readme\$'") \
    || { rm -rf "$posix_copy"; exit 1; }
  rm -rf "$posix_copy"
fi

echo "== Windows: cross-build with mingw-w64, suites under wine"
bash scripts/windows.sh

echo "== all suites"
bash scripts/setup.sh build -DPATHGATE_WERROR=ON
run_ctest build -LE 'fuzz|bench'
