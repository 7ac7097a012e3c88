"""The one-pass floor: the least work any exact allocator must do on a demand matrix —
one streaming read of every non-zero. Benchmarks report allocators as multiples of it."""
from cython.parallel cimport prange
from _common cimport floating, now


def stream_sum(const floating[::1] data, int n_threads):
    """Sum every value in one parallel pass with a double accumulator (IN: data).
    Returns (sum, elapsed seconds)."""
    cdef double t_start = now(), total = 0.0
    cdef Py_ssize_t k
    with nogil:
        for k in prange(data.shape[0], schedule='static', num_threads=n_threads):
            total += data[k]
    return total, now() - t_start
