"""Install the Python package (python/cutile2triton) with the C library built
by `make`, and the `cutile2triton` command. Offline from a clone:

    pip install --no-build-isolation .
"""

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
VERSION = next(line.split('"')[1] for line in (HERE / "include" / "cutile2triton.h").read_text().splitlines()
               if line.startswith("#define C2T_VERSION"))


class BuildWithLibrary(build_py):
    """Build libcutile2triton.so with make and put it inside the package."""

    def run(self):
        subprocess.run(["make", "-C", str(HERE), "build/libcutile2triton.so"], check=True)
        super().run()
        shutil.copy(HERE / "build" / "libcutile2triton.so", Path(self.build_lib) / "cutile2triton")


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    name="cutile2triton",
    version=VERSION,
    description="Convert cuTile Python GPU kernels into Triton kernels",
    package_dir={"": "python"},
    packages=["cutile2triton"],
    python_requires=">=3.9",
    cmdclass={"build_py": BuildWithLibrary},
    distclass=BinaryDistribution,
    entry_points={
        # the `cutile2triton` command: the same tool as build/cutile2triton, run by the library
        "console_scripts": ["cutile2triton = cutile2triton._native:console_main"],
        # --print-record in any pytest session; a clone's own tests block this one
        # (pytest.ini) and load the clone's copy (conftest.py)
        "pytest11": ["cutile2triton = cutile2triton.pytest_plugin"],
    },
)
