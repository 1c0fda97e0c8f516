-- LuaRocks package of the Lua 5.4 front end of pathgate.
--   luarocks --lua-version=5.4 make lua/pathgate-scm-1.rockspec        (from a checkout)
-- A release's rockspec is made from this one, so that the version has one
-- spelling (core/include/pathgate/common.h):
--   luarocks new_version lua/pathgate-scm-1.rockspec X.Y.Z-1 file://pathgate-X.Y.Z.tar.gz
-- then `luarocks --lua-version=5.4 install pathgate-X.Y.Z-1.rockspec` in the directory
-- holding the release tarball (the sdist, the same file pip installs from;
-- tests/install/lua_rock.sh does exactly this).
-- It runs the project's own CMake (core + module only) and installs nothing
-- but the module: pathgate.so into the tree's Lua C module directory.
rockspec_format = "3.0"
package = "pathgate"
version = "scm-1"

-- The project has no public host yet: `make` builds the checkout it is run
-- from; a release's rockspec points at the release tarball instead.
source = {
  url = "file://pathgate.tar.gz",
}

description = {
  summary = "Kernel-enforced path containment for LLM agents and game tooling",
  detailed = [[
pathgate resolves the paths an agent names (canonical addresses such as
root:repo/common/x.txt, file:// URIs, raw Windows or POSIX paths) strictly
inside configured roots, with containment enforced by openat2(RESOLVE_BENEATH),
and hands back opaque references that never reveal a host path. This rock is
the Lua 5.4 front end (require "pathgate") over the C library. Linux only.
]],
  license = "MIT",
  labels = { "filesystem", "security", "paths", "uri" },
}

supported_platforms = { "linux" }

dependencies = {
  "lua >= 5.4, < 5.5",
}

external_dependencies = {
  URIPARSER = { header = "uriparser/Uri.h", library = "uriparser" },
  UUID = { header = "uuid/uuid.h", library = "uuid" },
  PCRE2 = { header = "pcre2.h", library = "pcre2-8" },
}

build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    PATHGATE_BUILD_PYTHON = "OFF",
    PATHGATE_BUILD_TESTS = "OFF",
    PATHGATE_BUILD_BENCH = "OFF",
    PATHGATE_BUILD_LUA = "ON",
    PATHGATE_WERROR = "OFF",
    PATHGATE_LUA_INCLUDE_DIR = "$(LUA_INCDIR)",
  },
  -- The project's install target also installs the C library, headers and
  -- CMake/pkg-config files; a rock must install only the module, so the
  -- CMake install pass is skipped and the module copied from the build tree.
  install_pass = false,
  install = {
    lib = { pathgate = "build.luarocks/lua/pathgate.so" },
  },
}
