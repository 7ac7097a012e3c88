"""drfbench: multi-resource fair allocation (the DRF family) at public-cloud scale.

    import drfbench
    res = drfbench.allocate(demands, method="dcdrf", epsilon=1e-3)
    res.allocation, res.level, res.rounds, res.elapsed, res.timed_out
    drfbench.methods()                 # every registered method; methods(family="drf")

Importing drfbench loads no compiled kernel (and so no OpenMP runtime): they load on
first use, after a measuring job has set OpenMP's environment. Nor does it import any
family: `allocate` and `AllocationResult`, those of the divisible-demands kind
(drfbench.dcdrf.demands), are imported by name on first use, as the registry imports
implementations.
"""
from ._version import __version__
from ._config import config, show_config
from . import api
from .api import Method, families, method_info, methods, register, run

_BY_NAME = {"allocate": "dcdrf.demands:allocate",
            "AllocationResult": "dcdrf.demands:AllocationResult"}

__all__ = ["AllocationResult", "Method", "allocate", "config", "families", "method_info",
           "methods", "register", "run", "show_config"]


def __getattr__(name):
    if name in _BY_NAME:
        return api.function(_BY_NAME[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
