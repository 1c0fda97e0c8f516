#!/usr/bin/env bash
# scripts/test.sh - installs what is missing, builds, and runs every suite:
#   1. C, Python and Lua suites under AddressSanitizer + UndefinedBehaviorSanitizer,
#      then the clang-format check (scripts/format.sh --check)
#   2. the threaded C suites under ThreadSanitizer
#   3. the libFuzzer targets for a bounded time (clang)
#   4. the Release configuration (-O3), built whole, with its C suites
#   5. the Windows cross-build (mingw-w64) and its suites under wine
#      (scripts/windows.sh; skipped with a SKIPPED line without the
#      Windows source tarballs)
#   6. every suite on the plain build, and the install checks (tests/install:
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

echo "== Windows: cross-build with mingw-w64, suites under wine"
bash scripts/windows.sh

echo "== all suites"
bash scripts/setup.sh build -DPATHGATE_WERROR=ON
run_ctest build -LE 'fuzz|bench'
