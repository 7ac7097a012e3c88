# Cython's view of _platform.h, the one place for platform code: whether OpenMP is on,
# prefetches, atomics and the spin-wait pause (see the header for why each is so).

cdef enum:
    LINE = 64              # cache line bytes

cdef extern from "_platform.h" nogil:
    const int DRFBENCH_OPENMP
    const double ROUNDING_SLACK "DRFBENCH_ROUNDING_SLACK"
    # Request the cache line holding p, for reading (into L2) or for writing.
    void prefetch "DRFBENCH_PREFETCH" (const void* p)
    void prefetch_write "DRFBENCH_PREFETCH_W" (const void* p)
    # Release store / acquire load of a counter one thread publishes to another.
    long long load_acquire "drfbench_load" (const long long* p)
    void store_release "drfbench_store" (long long* p, long long v)
    # One step of a spin-wait: pause, or yield the core every 2048 steps (*spins counts).
    void pause "drfbench_pause" (int* spins)
