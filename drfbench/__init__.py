"""drfbench: multi-resource fair allocation (DRF, EDRF, DC-DRF) at public-cloud scale.

    import drfbench
    res = drfbench.allocate(demands, method="dcdrf", epsilon=1e-3)
    res.allocation, res.level, res.rounds, res.elapsed, res.timed_out
    drfbench.methods()
"""
__version__ = "0.1.0"

from ._config import config, show_config
from .api import AllocationResult, Method, allocate, method_info, methods, register

__all__ = ["AllocationResult", "Method", "allocate", "config", "method_info", "methods", "register", "show_config"]
