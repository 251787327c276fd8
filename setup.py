"""The optional native core: C extensions built by setuptools, if they can be.

pyproject.toml holds the package's metadata; this file only adds the
extension modules.  Every extension is optional: when the compiler is
missing or a compile fails, the build prints a warning and goes on, and the
package runs on its pure-Python engine (twenty48_replay.core.native decides at
run time).  The modules use the limited API, so one wheel (abi3) serves
CPython 3.11 and later.

Environment (read at build time):
  TWENTY48_NATIVE=0        do not build the extensions at all
  TWENTY48_NATIVE=require  a failed compile fails the build (CI, wheels)
  TWENTY48_NATIVE_SANITIZE=1  build with AddressSanitizer + UndefinedBehaviorSanitizer
                              (tests then need LD_PRELOAD=$(gcc -print-file-name=libasan.so))
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = "twenty48_replay/_native"
SHARED_SOURCES = [f"{NATIVE}/t48_rows.c", f"{NATIVE}/t48_sha256.c"]
LIMITED_API = "0x030B0000"  # CPython 3.11: the oldest Python this package supports
MODE = os.environ.get("TWENTY48_NATIVE", "").strip().lower()
SANITIZE = os.environ.get("TWENTY48_NATIVE_SANITIZE", "").strip() == "1"
#: Flags for gcc and clang (MSVC gets its defaults).
UNIX_FLAGS = ["-std=c11", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]
SANITIZER_FLAGS = [
    "-fsanitize=address,undefined",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=undefined",
    "-g",
]


def native_extension(name: str, sources: list[str]) -> Extension:
    """One optional C extension module of the package, with the shared C sources."""
    return Extension(
        name,
        sources=[*sources, *SHARED_SOURCES],
        include_dirs=[NATIVE],
        define_macros=[("Py_LIMITED_API", LIMITED_API)],
        py_limited_api=True,
    )


EXTENSIONS = [
    native_extension("twenty48_replay._core", [f"{NATIVE}/t48_core.c"]),
    native_extension(
        "twenty48_replay._solver",
        [f"{NATIVE}/t48_solver.c", f"{NATIVE}/t48_solver_core.c", f"{NATIVE}/t48_ntuple.c"],
    ),
]


class OptionalBuildExt(build_ext):
    """build_ext that skips an extension it cannot build, unless TWENTY48_NATIVE=require."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler at all: DistutilsPlatformError and friends
            self._skipped("the native core", exc)

    def build_extension(self, ext: Extension) -> None:
        if self.compiler.compiler_type != "msvc":
            ext.extra_compile_args = [*UNIX_FLAGS, *(SANITIZER_FLAGS if SANITIZE else [])]
            ext.extra_link_args = list(SANITIZER_FLAGS if SANITIZE else [])
        try:
            super().build_extension(ext)
        except Exception as exc:  # a compile or link error: CCompilerError, OSError, ...
            # A module left by an earlier build (build/lib, or in place) must not ship
            # in place of the one that failed: the package would run old code.
            stale = self.get_ext_fullpath(ext.name)
            if os.path.exists(stale):
                os.remove(stale)
            self._skipped(ext.name, exc)

    def _skipped(self, what: str, exc: Exception) -> None:
        if MODE == "require":
            raise exc
        print(
            f"warning: {what} was not built ({type(exc).__name__}: {exc}); "
            "twenty48-replay will use its pure-Python engine",
            file=sys.stderr,
        )


options: dict[str, Any] = {}
if MODE != "0":
    options = {
        "ext_modules": EXTENSIONS,
        "cmdclass": {"build_ext": OptionalBuildExt},
        "options": {"bdist_wheel": {"py_limited_api": "cp311"}},
    }
setup(**options)
