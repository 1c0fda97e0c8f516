#!/usr/bin/env bash
# scripts/test.sh - installs what is missing, builds, and runs every suite:
#   1. C, Python and Lua suites under AddressSanitizer + UndefinedBehaviorSanitizer,
#      then the clang-format check (scripts/format.sh --check)
#   2. the threaded C suites under ThreadSanitizer
#   3. the libFuzzer targets for a bounded time (clang)
#   4. every suite on the plain build, and the install checks (tests/install:
#      C prefix with pkg-config/find_package, Python sdist -> wheel -> venv,
#      Lua rock); its ctest summary is the last line.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI=${CI:-}

run_ctest() { # BUILD_DIR [ctest args...]
  local dir=$1; shift
  ctest --test-dir "$dir" --output-on-failure --no-tests=error "$@"
}

echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
bash scripts/setup.sh build-asan -DPATHGATE_SANITIZE=address,undefined -DPATHGATE_BUILD_BENCH=OFF
run_ctest build-asan -LE 'fuzz|bench|install'

# The style check: every C file as .clang-format says (scripts/format.sh
# rewrites them).
echo "== clang-format"
bash scripts/format.sh --check

echo "== ThreadSanitizer (threaded suites)"
bash scripts/setup.sh build-tsan -DPATHGATE_SANITIZE=thread -DPATHGATE_BUILD_PYTHON=OFF \
  -DPATHGATE_BUILD_LUA=OFF -DPATHGATE_BUILD_BENCH=OFF
run_ctest build-tsan -L threads

if [ -d fuzz ]; then
  echo "== libFuzzer (bounded)"
  CC=clang bash scripts/setup.sh build-fuzz -DPATHGATE_BUILD_FUZZ=ON -DPATHGATE_BUILD_PYTHON=OFF \
    -DPATHGATE_BUILD_LUA=OFF -DPATHGATE_BUILD_BENCH=OFF -DPATHGATE_BUILD_TESTS=ON
  run_ctest build-fuzz -L fuzz
fi

echo "== all suites"
bash scripts/setup.sh build
run_ctest build -LE 'fuzz|bench'
