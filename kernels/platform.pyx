"""What the kernels were built with: OpenMP or not, and the default thread count."""
from _platform cimport DRFBENCH_OPENMP, omp_get_max_threads


def openmp_enabled():
    """True if the kernels were compiled with OpenMP."""
    return bool(DRFBENCH_OPENMP)


def default_threads():
    """OpenMP's default team size (respects OMP_NUM_THREADS); 1 without OpenMP."""
    return omp_get_max_threads()
