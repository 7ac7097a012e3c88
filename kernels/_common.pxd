# Shared helpers for every kernel: the fused value type, index types, the OpenMP
# shim and a monotonic wall clock usable without the GIL.
from libc.stdint cimport int32_t, int64_t, uint8_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef extern from "_platform.h" nogil:
    const int DRFBENCH_OPENMP
    int omp_get_max_threads()
    int omp_get_thread_num()
    const double ROUNDING_SLACK "DRFBENCH_ROUNDING_SLACK"

ctypedef fused floating:
    float
    double


cdef inline double now() noexcept nogil:
    """Seconds on the monotonic clock (the kernels' own timer)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec
