"""Build and machine facts: `show_config()` and the default thread count."""
import os
import platform
import sys

import numpy as np
import scipy

from ._kernels import platform as _kernel_platform

VECTOR_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512vl", "avx512bw", "avx512dq",
                "asimd", "sve")


def default_threads():
    """Threads a method uses when none are asked for: OpenMP's default team size, which
    honours OMP_NUM_THREADS and otherwise is the number of usable cores (1 without OpenMP)."""
    return _kernel_platform.default_threads()


def cpu_info():
    """(model name, sorted vector features, SMT present or None if unknown) from /proc/cpuinfo."""
    model, flags, siblings, cores = platform.processor() or platform.machine(), set(), None, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "model name" and value:
                    model = value
                elif key in ("flags", "Features"):
                    flags.update(value.split())
                elif key == "siblings":
                    siblings = int(value)
                elif key == "cpu cores":
                    cores = int(value)
                if key == "" and flags:  # first processor block is enough
                    break
    except OSError:
        pass
    smt = None if siblings is None or cores is None else siblings > cores
    return model, sorted(flags.intersection(VECTOR_FLAGS)), smt


def config():
    """The facts `show_config` prints, as a dict (for provenance stamps)."""
    from . import __version__, _isa
    model, vector, smt = cpu_info()
    return {
        "drfbench": __version__,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "openmp": _kernel_platform.openmp_enabled(),
        "default_threads": default_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", ""),
        "cpu_model": model,
        "cpu_count": os.cpu_count(),
        "smt": smt,
        "cpu_vector_features": " ".join(vector),
        "kernel_variants": " ".join(_isa.runnable()),
        "kernel_variant": _isa.resolve(),
    }


def show_config(file=None):
    """Print drfbench's version, OpenMP on/off, default threads and the CPU's vector features."""
    for key, value in config().items():
        print(f"{key + ':':22s}{value}", file=file or sys.stdout)
