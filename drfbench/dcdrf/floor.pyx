"""The one-pass floors: the least work of an allocator on a demand matrix, which
benchmarks report allocators as multiples of. stream_sum reads every non-zero once, in
order; scatter_sum adds every non-zero into its resource's sum, the mu_r that exact EDRF
needs for every resource before its first round (Algorithm 1 line 13)."""
import numpy as np

from cython.parallel cimport prange
from libc.string cimport memset
from _common cimport floating, int32_t, now

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


cdef void add_by_column(const floating* x, const int32_t* columns, Py_ssize_t begin,
                        Py_ssize_t end, Py_ssize_t n_columns, double* sums) noexcept nogil:
    """sums[0:n_columns] (OUT) = the values x[begin:end] added by their columns."""
    cdef Py_ssize_t k
    memset(sums, 0, n_columns * sizeof(double))
    for k in range(begin, end):
        sums[columns[k]] += x[k]


def scatter_sum(const floating[::1] data, const int32_t[::1] indices, Py_ssize_t n_columns,
                int n_threads):
    """Sum the values by column in one parallel pass (IN: the non-zeros' data and column
    indices, columns < n_columns): each thread adds an equal share of the non-zeros into
    its own partial sums, which are then added in thread order. Returns (the column
    sums, elapsed seconds)."""
    cdef Py_ssize_t n = data.shape[0], width = max(n_columns, 1), t, c
    partial_array = np.empty((n_threads, width))
    sums_array = np.zeros(width)
    cdef double[:, ::1] partial = partial_array
    cdef double[::1] sums = sums_array
    cdef double t_start = now()
    with nogil:
        if n > 0:
            for t in prange(n_threads, schedule='static', num_threads=n_threads):
                add_by_column(&data[0], &indices[0], n * t // n_threads,
                              n * (t + 1) // n_threads, n_columns, &partial[t, 0])
            for t in range(n_threads):
                for c in range(n_columns):
                    sums[c] += partial[t, c]
    return sums_array[:n_columns], now() - t_start
