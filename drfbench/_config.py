"""Build and machine facts: `show_config()`."""
import os
import sys

import numpy as np
import scipy

from . import _isa
from ._machine import cpu_info, resolve_threads
from ._version import __version__


def config():
    """The facts `show_config` prints. Loads the kernels (to ask whether they were built
    with OpenMP).

    Returns
    -------
    dict
        drfbench's, Python's, NumPy's and SciPy's versions, OpenMP on or off, the default
        threads and OMP_NUM_THREADS, the CPU (model, count, SMT, vector features) and the
        kernel variants it runs, and the one chosen.
    """
    model, vector, smt = cpu_info()
    return {
        "drfbench": __version__,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "openmp": _isa.kernels().platform.openmp_enabled(),
        "default_threads": resolve_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", ""),
        "cpu_model": model,
        "cpu_count": os.cpu_count(),
        "smt": smt,
        "cpu_vector_features": " ".join(vector),
        "kernel_variants": " ".join(_isa.runnable()),
        "kernel_variant": _isa.resolve(),
    }


def show_config(file=None):
    """Print drfbench's version, OpenMP on/off, default threads and the CPU's vector features.

    Parameters
    ----------
    file : file, optional
        Where to print (default: standard output), a line per fact of `config`.
    """
    for key, value in config().items():
        print(f"{key + ':':22s}{value}", file=file or sys.stdout)
