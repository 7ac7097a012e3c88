"""The one-pass floor: the least work any exact allocator must do on a demand matrix —
one streaming read of every non-zero. Benchmarks report allocators as multiples of it."""
from cython.parallel cimport prange
from _common cimport floating, now

cdef enum:
    BLOCK = 4096    # values per parallel work item
    LANES = 8       # independent accumulators, so the compiler can vectorize the sum


cdef double block_sum(const floating* x, Py_ssize_t n) noexcept nogil:
    """Sum of x[0:n] in LANES independent double accumulators."""
    cdef double acc[LANES]
    cdef double total = 0.0
    cdef Py_ssize_t i = 0, j
    for j in range(LANES):
        acc[j] = 0.0
    while i + LANES <= n:
        for j in range(LANES):
            acc[j] += x[i + j]
        i += LANES
    for j in range(LANES):
        total += acc[j]
    while i < n:
        total += x[i]
        i += 1
    return total


def stream_sum(const floating[::1] data, int n_threads):
    """Sum every value in one parallel pass with double accumulators (IN: data).
    Returns (sum, elapsed seconds)."""
    cdef double t_start = now(), total = 0.0
    cdef Py_ssize_t n = data.shape[0], b
    with nogil:
        for b in prange((n + BLOCK - 1) // BLOCK, schedule='static', num_threads=n_threads):
            total += block_sum(&data[b * BLOCK], min(BLOCK, n - b * BLOCK))
    return total, now() - t_start
