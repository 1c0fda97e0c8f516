#!/usr/bin/env bash
# scripts/windows.sh - cross-builds pathgate for 64-bit Windows with
# mingw-w64 and runs every suite that applies under wine (docs/windows.md).
#
#   bash scripts/windows.sh            # deps (once), build, tests, release zip
#
# Steps:
#   1. installs what is missing (mingw-w64, wine64, wine) when run as root;
#   2. builds uriparser, PCRE2, cmocka and Lua 5.4 for Windows from their
#      source tarballs into build-windows/deps (once; a stamp remembers);
#   3. configures pathgate with cmake/mingw-w64-x86_64.cmake, builds the
#      library (libpathgate.dll + import library), the Lua module
#      (pathgate.dll), the C examples and the tests, and installs the library
#      into build-windows/prefix;
#   4. runs the suites under wine (CMAKE_CROSSCOMPILING_EMULATOR) in a
#      scratch WINEPREFIX, ending with ctest's summary line;
#   5. packs build-windows/pathgate-<version>-windows-x86_64.zip.
#
# The source tarballs (lua-5.4.8, uriparser-0.9.8, cmocka-1.1.5,
# pcre2-10.42) are taken from PATHGATE_WINDOWS_SOURCES, by default
# ../shared/third_party/src relative to the repository; without them the
# script skips with a SKIPPED line and exits 0. Elsewhere those libraries
# come from MSYS2 or vcpkg.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=${PATHGATE_WINDOWS_BUILD:-build-windows}
src=${PATHGATE_WINDOWS_SOURCES:-../shared/third_party/src}
jobs=${PATHGATE_JOBS:-2}
triple=x86_64-w64-mingw32
start=$(date +%s)

versions=(lua-5.4.8 uriparser-0.9.8 cmocka-1.1.5 pcre2-10.42)
for v in "${versions[@]}"; do
  if [ ! -f "$src/$v.tar.gz" ]; then
    echo "SKIPPED: Windows cross-build: $src/$v.tar.gz is absent (set PATHGATE_WINDOWS_SOURCES to the folder of the lua, uriparser, cmocka and pcre2 source tarballs)"
    exit 0
  fi
done
src=$(cd "$src" && pwd)

# ------------------------------------------------------------ 1. tools
need=()
command -v $triple-gcc >/dev/null || need+=(mingw-w64)
command -v wine64 >/dev/null || command -v wine >/dev/null || need+=(wine64 wine)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt_wait=(-o DPkg::Lock::Timeout=900) # waits for another apt
    apt-get "${apt_wait[@]}" update -qq
    apt-get "${apt_wait[@]}" install -y -qq --no-install-recommends "${need[@]}" </dev/null >/dev/null
  else
    echo "SKIPPED: Windows cross-build: missing ${need[*]} (run as root, or apt-get install ${need[*]})"
    exit 0
  fi
fi
wine_bin=$(command -v wine64 || command -v wine)
# Debian's wine64 lives in /usr/lib/wine; the wrapper is enough.
[ -x /usr/lib/wine/wine64 ] && wine_bin=/usr/lib/wine/wine64

mkdir -p "$out"
out=$(cd "$out" && pwd)
deps=$out/deps
toolchain=$root/cmake/mingw-w64-x86_64.cmake
export PATHGATE_WINDOWS_DEPS=$deps/prefix
# pkg-config sees the Windows builds only, never the build machine's .pc files.
export PKG_CONFIG_LIBDIR=$deps/prefix/lib/pkgconfig PKG_CONFIG_PATH=

# ------------------------------------------------------------ 2. deps
stamp=$deps/prefix/.built-${versions[*]// /-}-3
if [ ! -f "$stamp" ]; then
  echo "== Windows builds of ${versions[*]} (once, into $out/deps)"
  rm -rf "$deps"
  mkdir -p "$deps/src" "$deps/prefix/bin" "$deps/prefix/lib" "$deps/prefix/include"
  for v in "${versions[@]}"; do tar -xzf "$src/$v.tar.gz" -C "$deps/src"; done
  dep_cmake() { # name, then cmake options
    local name=$1; shift
    cmake -S "$deps/src/$name" -B "$deps/build/$name" -G "Unix Makefiles" \
      -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$deps/prefix" -DCMAKE_INSTALL_LIBDIR=lib "$@" >"$deps/$name.log" 2>&1 \
      && cmake --build "$deps/build/$name" -j"$jobs" >>"$deps/$name.log" 2>&1 \
      && cmake --install "$deps/build/$name" >>"$deps/$name.log" 2>&1 \
      || { echo "FAILED: building $name for Windows; the log:"; tail -n 30 "$deps/$name.log"; exit 1; }
  }
  # Static uriparser and PCRE2 (linked into libpathgate.dll); cmocka as a
  # DLL (its headers assume one), copied next to the test programs.
  dep_cmake uriparser-0.9.8 -DURIPARSER_SHARED_LIBS=OFF -DURIPARSER_BUILD_DOCS=OFF \
    -DURIPARSER_BUILD_TESTS=OFF -DURIPARSER_BUILD_TOOLS=OFF -DURIPARSER_BUILD_WCHAR_T=OFF
  dep_cmake pcre2-10.42 -DBUILD_SHARED_LIBS=OFF -DPCRE2_BUILD_PCRE2_8=ON -DPCRE2_BUILD_PCRE2_16=OFF \
    -DPCRE2_BUILD_PCRE2_32=OFF -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF -DPCRE2_SUPPORT_JIT=OFF
  dep_cmake cmocka-1.1.5 -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF -DCMAKE_C_FLAGS=-D__USE_MINGW_ANSI_STDIO=1
  # Lua: the repository layout (sources at the top, no makefile for
  # mingw): every .c but the programs and the test harness makes lua54.dll.
  (
    cd "$deps/src/lua-5.4.8"
    core=$(ls ./*.c | grep -Ev '/(lua|luac|onelua|ltests)\.c$')
    # shellcheck disable=SC2086
    $triple-gcc -O2 -std=gnu99 -DLUA_BUILD_AS_DLL -DLUA_COMPAT_5_3 -shared -static-libgcc \
      -o "$deps/prefix/bin/lua54.dll" $core -Wl,--out-implib,"$deps/prefix/lib/liblua54.dll.a"
    $triple-gcc -O2 -std=gnu99 -static-libgcc -o "$deps/prefix/bin/lua.exe" lua.c \
      -L"$deps/prefix/lib" -llua54
    cp lua.h luaconf.h lualib.h lauxlib.h "$deps/prefix/include/"
  ) >"$deps/lua.log" 2>&1 || { echo "FAILED: building Lua for Windows; the log:"; tail -n 30 "$deps/lua.log"; exit 1; }
  touch "$stamp"
fi

# ------------------------------------------------------------ 3. pathgate
echo "== cross-build (mingw-w64, $out)"
export WINEPREFIX=$out/wineprefix-$$
export WINEDEBUG=-all
rm -rf "$out"/wineprefix-*
wineserver_bin=$(command -v wineserver || echo /usr/lib/wine/wineserver64)
# Stops this prefix's wine server only (never another run's), then drops it.
# (each step may fail, e.g. no server left to stop: the exit status stays the suites')
trap '"$wineserver_bin" -k >/dev/null 2>&1 || true; "$wineserver_bin" -w >/dev/null 2>&1 || true; rm -rf "$WINEPREFIX" || true' EXIT
cmake -S . -B "$out" -G "Unix Makefiles" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DCMAKE_CROSSCOMPILING_EMULATOR="$wine_bin" -DPATHGATE_WERROR=ON \
  -DPATHGATE_BUILD_PYTHON=OFF -DPATHGATE_BUILD_BENCH=OFF \
  -DPATHGATE_LUA_INCLUDE_DIR="$deps/prefix/include" \
  -DCMAKE_INSTALL_PREFIX="$out/prefix" >"$out/configure.log" 2>&1 \
  || { echo "FAILED: configuring the Windows build; the log:"; tail -n 30 "$out/configure.log"; exit 1; }
cmake --build "$out" -j"$jobs" >"$out/build.log" 2>&1 \
  || { echo "FAILED: the Windows build; the log:"; grep -E 'error|warning' "$out/build.log" | head -n 40; exit 1; }
rm -rf "$out/prefix"
cmake --install "$out" >/dev/null

# ------------------------------------------------------------ 4. suites under wine
echo "== suites under wine ($("$wine_bin" --version 2>/dev/null || echo wine))"
# The first start creates the prefix (about 15 s); do it once, outside the
# suites' timeouts.
"$wine_bin" cmd /c exit >/dev/null 2>&1 || true
# The test programs find their DLLs (libpathgate.dll, cmocka.dll, lua54.dll,
# mingw's libwinpthread-1.dll, which only the test support needs) on WINEPATH.
winpath() { printf 'Z:%s' "${1//\//\\}"; }
export WINEPATH="$(winpath "$out");$(winpath "$deps/prefix/bin");$(winpath /usr/$triple/lib)"
status=0
ctest --test-dir "$out" --output-on-failure --no-tests=error -j"$jobs" | tee "$out/ctest.out" || status=$?

# The cost of containment, as ratios measured in one run (not a test).
if [ "$status" = 0 ] && [ -z "${PATHGATE_WINDOWS_NO_BENCH:-}" ]; then
  "$wine_bin" "$out/tests/windows/bench_open.exe" "$out/tests/windows/tree" 2>/dev/null || true
fi

# ------------------------------------------------------------ 5. release zip
if [ "$status" = 0 ]; then
  version=$(for part in MAJOR MINOR PATCH; do
    sed -n "s/^#define PATHGATE_VERSION_$part \([0-9]*\)$/\1/p" core/include/pathgate/common.h; done | paste -sd.)
  name=pathgate-$version-windows-x86_64
  stage=$out/release/$name
  rm -rf "$out/release" && mkdir -p "$stage/bin" "$stage/lib" "$stage/lua"
  cp "$out"/prefix/bin/libpathgate*.dll "$stage/bin/"
  cp "$out"/prefix/lib/libpathgate*.dll.a "$stage/lib/"
  cp -r "$out/prefix/include" "$stage/"
  cp "$out/lua/pathgate.dll" "$stage/lua/"
  $triple-strip --strip-debug "$stage"/bin/*.dll "$stage"/lua/*.dll
  cp LICENSE "$stage/"
  cp docs/windows.md "$stage/README-windows.md"
  # Every DLL in the zip needs only Windows' own DLLs (and lua54.dll for
  # the module): no mingw runtime to ship.
  for dll in "$stage"/bin/*.dll "$stage"/lua/*.dll; do
    extra=$($triple-objdump -p "$dll" | sed -n 's/^\s*DLL Name: //p' |
      grep -viE '^(kernel32|msvcrt|ntdll|bcrypt|advapi32|ws2_32|lua54|api-ms-win-.*)\.dll$' || true)
    if [ -n "$extra" ]; then
      echo "FAILED: $(basename "$dll") needs $extra, which the zip does not ship"
      exit 1
    fi
  done
  (cd "$out/release" && rm -f "../$name.zip" && /usr/bin/python3 -m zipfile -c "../$name.zip" "$name")
  echo "release: $out/$name.zip ($(du -k "$out/$name.zip" | cut -f1) KiB); Windows build and suites took $(($(date +%s) - start)) s"
fi
grep -E 'tests passed, [0-9]+ tests failed' "$out/ctest.out" | tail -n 1
exit "$status"
