"""Build drfbench's Cython kernels.

Every ``kernels/*.pyx`` becomes ``drfbench._kernels.<name>``, compiled with OpenMP when
the compiler has it. Cython directives are set once here for the whole build.

Environment switches:
  DRFBENCH_DEBUG=1      bounds checking and wraparound back on, -O0 -g (for tests/debugging)
  DRFBENCH_NO_OPENMP=1  build without OpenMP even if the compiler has it
Nothing built by default uses -march=native: the default build targets the baseline x86-64
(or aarch64) instruction set so that it runs on any machine of that architecture.
"""
import os
import sys
import tempfile
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("DRFBENCH_DEBUG", "0") == "1"
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}
OPT_FLAGS = ["-O0", "-g"] if DEBUG else ["-O3"]


def compiler_has_openmp(compiler):
    """Compile and link a tiny OpenMP program; True if that works."""
    if os.environ.get("DRFBENCH_NO_OPENMP", "0") == "1":
        return False
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "omp_check.c")
        src.write_text("#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n")
        try:
            objs = compiler.compile([str(src)], output_dir=tmp, extra_postargs=["-fopenmp"])
            compiler.link_executable(objs, str(Path(tmp, "omp_check")), extra_postargs=["-fopenmp"])
        except Exception:  # any compile or link failure means: no usable OpenMP
            return False
    return True


class BuildExt(build_ext):
    """Adds OpenMP flags when available, and says loudly when it is not."""

    def build_extensions(self):
        openmp = compiler_has_openmp(self.compiler)
        if not openmp:
            bar = "!" * 78
            print(f"\n{bar}\n drfbench: the C compiler has no usable OpenMP; the kernels are built\n"
                  f" SINGLE-THREADED. drfbench.show_config() reports 'openmp: False'.\n{bar}\n",
                  file=sys.stderr)
        for ext in self.extensions:
            ext.extra_compile_args = OPT_FLAGS + (["-fopenmp"] if openmp else [])
            ext.extra_link_args = ["-fopenmp"] if openmp else []
        super().build_extensions()


extensions = [
    Extension(
        f"drfbench._kernels.{pyx.stem}",
        [str(pyx)],
        include_dirs=[numpy.get_include(), "kernels"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")],
    )
    for pyx in sorted(Path("kernels").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES, include_path=["kernels"],
                          build_dir="build/cython"),
    cmdclass={"build_ext": BuildExt},
)
