# Cross-compiling for 64-bit Windows with Debian's mingw-w64 (GCC, win32
# threads). scripts/windows.sh passes this file together with
# PATHGATE_WINDOWS_DEPS (the prefix holding the Windows builds of
# uriparser, PCRE2, cmocka and Lua) and, for the tests,
# CMAKE_CROSSCOMPILING_EMULATOR (wine).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(PATHGATE_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${PATHGATE_MINGW_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${PATHGATE_MINGW_TRIPLE}-g++)
set(CMAKE_RC_COMPILER ${PATHGATE_MINGW_TRIPLE}-windres)
set(CMAKE_AR ${PATHGATE_MINGW_TRIPLE}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${PATHGATE_MINGW_TRIPLE}-ranlib CACHE FILEPATH "")

# Look for libraries and headers only in the mingw sysroot and the deps
# prefix, never in the build machine's /usr.
set(CMAKE_FIND_ROOT_PATH /usr/${PATHGATE_MINGW_TRIPLE})
if(DEFINED ENV{PATHGATE_WINDOWS_DEPS})
  list(APPEND CMAKE_FIND_ROOT_PATH $ENV{PATHGATE_WINDOWS_DEPS})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# No mingw runtime DLL to ship: libgcc is linked statically (wine, like a
# modder's machine, has no libgcc_s_seh-1.dll; without it a program exits
# 53 and prints nothing).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static-libgcc")
