"""The kernels' vector-width variants, the one table of them (faiss's pattern).

setup.py compiles every kernels/*.pyx once per variant, into the variant's package, with
OPT_FLAGS and the variant's compile flags; drfbench._isa picks at run time a variant whose
CPU flags (as /proc/cpuinfo names them) the machine has. setup.py loads this file by its
path, before drfbench can be imported, so it imports nothing from drfbench.
"""
from typing import NamedTuple


class Variant(NamedTuple):
    package: str                    # extension package its kernels are built into
    cpu_flags: tuple[str, ...]      # CPU features it needs
    compile_flags: tuple[str, ...]  # added to OPT_FLAGS (or DEBUG_FLAGS) by setup.py
    x86_only: bool = False          # built on x86-64 only


OPT_FLAGS = ("-O3",)
DEBUG_FLAGS = ("-O0", "-g")        # DRFBENCH_DEBUG=1 builds

# Nothing here is -march=native: a build runs on any machine that has the variant's flags.
VARIANTS = {
    "scalar": Variant("drfbench._kernels_scalar", (),
                      ("-fno-tree-vectorize", "-fno-tree-slp-vectorize")),   # the paper's "scalar"
    "generic": Variant("drfbench._kernels", (), ()),     # the architecture's baseline (SSE2)
    "avx2": Variant("drfbench._kernels_avx2", ("avx2", "fma"), ("-mavx2", "-mfma"), x86_only=True),
    "avx512": Variant("drfbench._kernels_avx512",
                      ("avx512f", "avx512vl", "avx512bw", "avx512dq", "avx2", "fma"),
                      ("-mavx512f", "-mavx512vl", "-mavx512bw", "-mavx512dq", "-mavx2", "-mfma",
                       "-mprefer-vector-width=512"), x86_only=True),
}


def flags_string(name):
    """The variant's optimized compile flags as one string (what result rows record)."""
    return " ".join(OPT_FLAGS + VARIANTS[name].compile_flags)
