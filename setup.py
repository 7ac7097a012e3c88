"""Build drfbench's Cython kernels.

Every ``kernels/*.pyx`` is translated to C once and compiled into one extension package
per vector-width variant (faiss's pattern), with OpenMP when the compiler has it:

  drfbench._kernels          generic: the architecture's baseline ISA (SSE2 on x86-64)
  drfbench._kernels_scalar   no auto-vectorization (the paper's "scalar")
  drfbench._kernels_avx2     256-bit AVX2 + FMA (x86-64 only)
  drfbench._kernels_avx512   512-bit AVX-512 F/VL/BW/DQ (x86-64 only)

The variants, their packages, CPU flags and compile flags are drfbench/_variants.py's
table, which drfbench._isa also reads to pick one at run time from the CPU's features.
Cython directives are set once here for the whole build.

Environment switches:
  DRFBENCH_DEBUG=1      bounds checking and wraparound back on, -O0 -g (for tests/debugging)
  DRFBENCH_NO_OPENMP=1  build without OpenMP even if the compiler has it
  DRFBENCH_VARIANTS=generic,avx2   build only these variants (default: all the platform has)
Nothing built by default uses -march=native: the default build targets the baseline x86-64
(or aarch64) instruction set so that it runs on any machine of that architecture.
"""
import importlib.util
import os
import platform
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


def load_variants():
    """drfbench/_variants.py, loaded by its path: drfbench cannot be imported before its
    kernels are built."""
    spec = importlib.util.spec_from_file_location("drfbench_variants", "drfbench/_variants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_variants = load_variants()
OPT_FLAGS = list(_variants.DEBUG_FLAGS if DEBUG else _variants.OPT_FLAGS)
X86 = platform.machine().lower() in ("x86_64", "amd64")
_wanted = os.environ.get("DRFBENCH_VARIANTS")
VARIANTS = {name: variant for name, variant in _variants.VARIANTS.items()
            if (X86 or not variant.x86_only)
            and (_wanted is None or name in _wanted.split(",") or name == "generic")}


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
    """Adds the OpenMP flags when available, and says loudly when it is not."""

    def build_extensions(self):
        openmp = compiler_has_openmp(self.compiler)
        if not openmp:
            bar = "!" * 78
            print(f"\n{bar}\n drfbench: the C compiler has no usable OpenMP; the kernels are built\n"
                  f" SINGLE-THREADED. drfbench.show_config() reports 'openmp: False'.\n{bar}\n",
                  file=sys.stderr)
        for ext in self.extensions:     # their variant's flags are set (see extensions)
            ext.extra_compile_args = ext.extra_compile_args + (["-fopenmp"] if openmp else [])
            ext.extra_link_args = ["-fopenmp"] if openmp else []
        self.parallel = self.parallel or os.cpu_count()
        super().build_extensions()


# Cython translates each .pyx to C once; every variant compiles that same C with its flags.
generic = cythonize(
    [Extension(f"{VARIANTS['generic'].package}.{pyx.stem}", [str(pyx)],
               include_dirs=[numpy.get_include(), "kernels"],
               define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")])
     for pyx in sorted(Path("kernels").glob("*.pyx"))],
    compiler_directives=DIRECTIVES, include_path=["kernels"], build_dir="build/cython")
extensions = [
    Extension(f"{variant.package}.{ext.name.rpartition('.')[2]}", ext.sources,
              include_dirs=ext.include_dirs, define_macros=ext.define_macros,
              extra_compile_args=OPT_FLAGS + list(variant.compile_flags))
    for variant in VARIANTS.values() for ext in generic
]

setup(
    packages=["drfbench"] + [variant.package for variant in VARIANTS.values()],
    ext_modules=extensions,
    cmdclass={"build_ext": BuildExt},
)
