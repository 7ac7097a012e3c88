"""The kernels' vector-width variants, the one table of them (faiss's pattern).

setup.py compiles every kernel (drfbench/**/*.pyx) into the package of each variant it
builds (`to_build`: by default the generic one and the widest this CPU runs), with OPT_FLAGS
and the variant's compile flags; drfbench._isa picks at run time a variant whose CPU flags (as /proc/cpuinfo
names them) the machine has. setup.py loads this file by its path, before drfbench can be
imported, so it imports nothing from drfbench.
"""
import platform
from typing import NamedTuple


class Variant(NamedTuple):
    package: str                    # extension package its kernels are built into
    cpu_flags: tuple[str, ...]      # CPU features it needs
    compile_flags: tuple[str, ...]  # added to OPT_FLAGS (or DEBUG_FLAGS) by setup.py
    x86_only: bool = False          # built on x86-64 only


# -ffp-contract=off: no build fuses a*b+c into one multiply-add (GCC does by default
# wherever the target has one: avx2, avx512, aarch64), so every variant rounds each product
# and sum as the source writes it: the variants give the same bits (tests/test_isa.py), and
# a kernel's sums those of its literal version in Python (drfbench.sim, drfq, hdrf).
EXACT_FLAGS = ("-ffp-contract=off",)
OPT_FLAGS = ("-O3",) + EXACT_FLAGS
DEBUG_FLAGS = ("-O0", "-g") + EXACT_FLAGS   # DRFBENCH_DEBUG=1 builds

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


WIDEST_FIRST = ("avx512", "avx2", "generic")   # the default choice, at build and at run time
ENV_VARIABLE = "DRFBENCH_VARIANTS"               # what setup.py builds (see to_build)
KERNELS_VARIABLE = "DRFBENCH_KERNELS"           # which kernels a build in place adds (setup.py)
BUILD_COMMAND = "python -m drfbench.build_variants"


def on_x86():
    """True on x86-64, the only architecture the x86_only variants are built for."""
    return platform.machine().lower() in ("x86_64", "amd64")


def platform_variants():
    """The variants this architecture has, in table order."""
    return [name for name, variant in VARIANTS.items() if on_x86() or not variant.x86_only]


def lacking(name, cpu_flags):
    """The CPU flags variant `name` needs that a CPU with `cpu_flags` lacks (all of them
    off x86-64: the x86 flags name nothing there)."""
    needs = VARIANTS[name].cpu_flags
    return list(needs) if needs and not on_x86() else [f for f in needs if f not in cpu_flags]


def to_build(request, cpu_flags, built_before=()):
    """The variants a build compiles, in table order: always the generic one (the fallback
    every machine of the architecture runs); the ones `request` names (DRFBENCH_VARIANTS:
    comma-separated names, or `all` for every variant of the architecture), else the widest
    one a CPU with `cpu_flags` runs; and `built_before`, those already built in place, so
    that none is left behind, out of date, when a kernel changes."""
    if request is None or not request.strip():
        wanted = {next(v for v in WIDEST_FIRST if not lacking(v, cpu_flags))}
    elif request.strip() == "all":
        wanted = set(platform_variants())
    else:
        wanted = {name.strip() for name in request.split(",") if name.strip()}
        unknown = sorted(wanted - set(VARIANTS))
        if unknown:
            raise ValueError(f"{ENV_VARIABLE}: unknown kernel variant {', '.join(map(repr, unknown))}; "
                             f"choose from {', '.join(VARIANTS)}, or all")
        foreign = sorted(wanted - set(platform_variants()))
        if foreign:
            raise ValueError(f"{ENV_VARIABLE}: {', '.join(foreign)}: x86-64 only, and this machine "
                             f"is {platform.machine()}; choose from {', '.join(platform_variants())}")
    wanted |= {"generic", *built_before}
    return [name for name in VARIANTS if name in wanted]


def flags_string(name):
    """The variant's optimized compile flags as one string (what result rows record)."""
    return " ".join(OPT_FLAGS + VARIANTS[name].compile_flags)
