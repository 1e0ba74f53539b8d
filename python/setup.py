# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Builds slablab._core for setuptools (pyproject.toml has the metadata).

The extension is the CMake target `_core` of the repository's own project
(python/CMakeLists.txt: python/src/*.cpp linked with libslabctl from tool/), so
this builds it with CMake rather than restating its sources and flags here:

- SLABLAB_CMAKE_BUILD=DIR: DIR is a configured build tree of the repository (`make`
  passes build/); its `_core` target is brought up to date and copied;
- otherwise the project is configured in setuptools' build_temp (tests off, Release)
  for the Python running this, and `_core` built there.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def project_version() -> str:
    m = re.search(r"project\(\s*slablab\s+VERSION\s+([0-9.]+)",
                  (REPO / "CMakeLists.txt").read_text())
    if not m:
        raise SystemExit("setup.py: project(slablab VERSION x.y.z) not in CMakeLists.txt")
    return m.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        tree = os.environ.get("SLABLAB_CMAKE_BUILD")
        if tree:
            build = Path(tree).resolve()
            if not (build / "CMakeCache.txt").exists():
                raise SystemExit(f"setup.py: SLABLAB_CMAKE_BUILD={tree} is not a configured "
                                 "CMake build tree (run make tool)")
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            subprocess.run(["cmake", "-S", str(REPO), "-B", str(build),
                            "-DCMAKE_BUILD_TYPE=Release", "-DSLABLAB_BUILD_TESTS=OFF",
                            f"-DPython_EXECUTABLE={sys.executable}",
                            f"-DPYTHON_EXECUTABLE={sys.executable}"], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "_core", "-j", jobs],
                       check=True)
        built = build / "python" / "slablab" / f"_core{suffix}"
        if not built.exists():
            found = sorted(p.name for p in (build / "python" / "slablab").glob("_core*"))
            raise SystemExit(f"setup.py: {built} not built (found: {found}): the build "
                             f"tree is for another Python than {sys.executable}")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, dest)


setup(
    version=project_version(),
    ext_modules=[Extension("slablab._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
