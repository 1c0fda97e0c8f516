"""Builds pathgate._core through CMake (the one build description).

pyproject.toml holds the metadata; this file only teaches setuptools'
build_ext to run

    cmake -S . -B <build_temp> -DPython3_EXECUTABLE=<this python>
          -DCMAKE_LIBRARY_OUTPUT_DIRECTORY=<where setuptools wants the .so> ...
    cmake --build <build_temp> --target pathgate_python

so there is no second list of sources or flags. The module targets the
stable ABI (Py_LIMITED_API 3.11): the file is _core.abi3.so and the wheel is
tagged cp311-abi3. Works offline: pip install --no-build-isolation [-e] .
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
CMAKE_TARGET = "pathgate_python"

# The Python package is not built for Windows (docs/windows.md): no Windows
# CPython is at hand to test it, and an untested .pyd is not shipped. The C
# library and the Lua module are the Windows front ends.
WINDOWS_UNSUPPORTED = (
    "pathgate: the Python package does not support Windows yet; on Windows use the C library "
    "or the Lua module (docs/windows.md: the release zip of scripts/windows.sh)"
)
if sys.platform == "win32" or os.environ.get("PATHGATE_PRETEND_WINDOWS") == "1":
    sys.exit(WINDOWS_UNSUPPORTED)


def version() -> str:
    """The one version of the project: PATHGATE_VERSION_* in common.h."""
    text = (ROOT / "core" / "include" / "pathgate" / "common.h").read_text()
    parts = [re.search(rf"^#define PATHGATE_VERSION_{p} (\d+)$", text, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise RuntimeError("PATHGATE_VERSION_* not found in core/include/pathgate/common.h")
    return ".".join(m.group(1) for m in parts if m)


class CMakeExtension(Extension):
    def __init__(self, name: str, target: str) -> None:
        super().__init__(name, sources=[], py_limited_api=True)
        self.target = target


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, CMakeExtension):
            return super().build_extension(ext)
        fullpath = Path(self.get_ext_fullpath(ext.name)).resolve()
        build_temp = Path(self.build_temp).resolve() / "cmake"
        config = "Debug" if self.debug else "Release"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_temp),
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DCMAKE_LIBRARY_OUTPUT_DIRECTORY={fullpath.parent}",
            f"-DCMAKE_BUILD_TYPE={config}",
            "-DPATHGATE_BUILD_TESTS=OFF",
            "-DPATHGATE_BUILD_LUA=OFF",
            "-DPATHGATE_BUILD_BENCH=OFF",
        ]
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        build = ["cmake", "--build", str(build_temp), "--target", ext.target, "-j", jobs]
        subprocess.run(configure, check=True)
        subprocess.run(build, check=True)
        if not fullpath.exists():
            raise RuntimeError(f"CMake did not produce {fullpath.name}")


setup(
    version=version(),
    ext_modules=[CMakeExtension("pathgate._core", CMAKE_TARGET)],
    cmdclass={"build_ext": CMakeBuild},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
