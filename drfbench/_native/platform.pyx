"""What the kernels were built with: OpenMP or not. (The thread count is decided in Python,
drfbench._machine.resolve_threads, and passed to every kernel.)"""
from _platform cimport DRFBENCH_OPENMP


def openmp_enabled():
    """True if the kernels were compiled with OpenMP."""
    return bool(DRFBENCH_OPENMP)
