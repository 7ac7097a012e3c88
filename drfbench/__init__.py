"""drfbench: multi-resource fair allocation (the DRF family) at public-cloud scale.

    import drfbench
    res = drfbench.allocate(demands, method="dcdrf", epsilon=1e-3)
    res.allocation, res.level, res.rounds, res.elapsed, res.timed_out
    drfbench.methods()                 # every registered method; methods(family="drf")

Importing drfbench loads no compiled kernel (and so no OpenMP runtime): they load on
first use, after a measuring job has set OpenMP's environment.
"""
from ._version import __version__
from ._config import config, show_config
from .api import AllocationResult, Method, allocate, families, method_info, methods, register, run

__all__ = ["AllocationResult", "Method", "allocate", "config", "families", "method_info",
           "methods", "register", "run", "show_config"]
