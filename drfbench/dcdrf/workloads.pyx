# Demand-profile generator kernels for drfbench.dcdrf.workloads (DC-DRF paper, Table 3).
#
# Every random number comes from a counter-based generator: splitmix64 keyed by
# (seed, stream, index). A tenant's row is therefore a pure function of
# (seed, tenant, n_resources, profile): rows are filled in parallel, in any order, and
# the result is bit-identical whatever the thread count. The Python wrapper
# (drfbench/workloads.py) validates everything; these kernels trust their input.
from cython.parallel cimport prange, parallel, threadid
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset
from _common cimport floating, int32_t, int64_t, uint8_t

import numpy as np

# Stream identifiers: one independent family of keys per kind of quantity.
cdef enum:
    STREAM_CAPACITY = 1
    STREAM_LENGTH = 2
    STREAM_ROW = 3
    STREAM_WEIGHT = 4

cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL      # 2^64 / golden ratio (odd)
cdef double INV_2_53 = 1.0 / 9007199254740992.0   # 2^-53


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """splitmix64's finaliser: a bijection of 64-bit words with good avalanche."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t stream_key(uint64_t seed, uint64_t stream, uint64_t index) noexcept nogil:
    """Start state of the generator for item `index` of `stream` under `seed`.

    For fixed (seed, stream) the map index -> key is a bijection, so distinct items get
    distinct starting states."""
    return mix64(mix64(mix64(seed) + stream) + index * GOLDEN)


cdef inline uint64_t next64(uint64_t* state) noexcept nogil:
    """Next 64-bit output of the splitmix64 sequence (IN/OUT: state)."""
    state[0] += GOLDEN
    return mix64(state[0])


cdef inline double next_unit(uint64_t* state) noexcept nogil:
    """Uniform double in [0, 1) with 53 random bits."""
    return <double>(next64(state) >> 11) * INV_2_53


cdef inline int64_t next_below(uint64_t* state, int64_t n) noexcept nogil:
    """Uniform integer in [0, n), n >= 1 (bias below n * 2^-53)."""
    cdef int64_t r = <int64_t>(next_unit(state) * <double>n)
    if r >= n:             # guard against rounding up at the very top of [0, 1)
        r = n - 1
    return r


def capacities(uint64_t seed, int64_t low, int64_t high, double[::1] out):
    """out[r] = integer uniform on [low, high], from stream STREAM_CAPACITY (OUT: out)."""
    cdef int64_t r, n = out.shape[0]
    cdef uint64_t s
    with nogil:
        for r in range(n):
            s = stream_key(seed, STREAM_CAPACITY, r)
            out[r] = <double>(low + next_below(&s, high - low + 1))


def uniform_reals(uint64_t seed, double low, double high, double[::1] out):
    """out[i] = real uniform on [low, high), from stream STREAM_WEIGHT (OUT: out)."""
    cdef int64_t i, n = out.shape[0]
    cdef uint64_t s
    with nogil:
        for i in range(n):
            s = stream_key(seed, STREAM_WEIGHT, i)
            out[i] = low + (high - low) * next_unit(&s)


cdef inline int64_t draw_length(uint64_t* state, const uint64_t* thresholds,
                                int64_t n_thresholds) noexcept nogil:
    """Inverse-CDF draw: the smallest j with x < thresholds[j] (n_thresholds if none)."""
    cdef uint64_t x = next64(state)
    cdef int64_t lo = 0, hi = n_thresholds, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < thresholds[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def row_lengths(uint64_t seed, const uint64_t[::1] thresholds, int64_t min_length,
                int64_t max_length, int64_t[::1] indptr, int threads):
    """Fill a CSR row pointer from per-tenant demand-vector lengths (OUT: indptr).

    Tenant i's length is min_length + j, j drawn by inverse CDF from `thresholds`
    (a 64-bit fixed-point CDF over min_length .. min_length + len(thresholds)),
    then capped at max_length. indptr has n_tenants + 1 entries; returns nnz."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t nt = thresholds.shape[0]
    cdef int64_t i, k
    cdef uint64_t s
    with nogil:
        indptr[0] = 0
        for i in prange(n, schedule='static', num_threads=threads):
            s = stream_key(seed, STREAM_LENGTH, i)
            k = min_length + draw_length(&s, &thresholds[0], nt)
            if k > max_length:
                k = max_length
            indptr[i + 1] = k
        for i in range(n):
            indptr[i + 1] += indptr[i]
    return indptr[n]


cdef inline int64_t draw_distinct(uint64_t* state, int64_t lo, int64_t size, int64_t want,
                                  uint8_t* mark, int32_t* idx, int64_t m) noexcept nogil:
    """Append `want` resources from [lo, lo + size) not yet marked to idx[m:], marking them.

    Rejection sampling; the caller guarantees enough unmarked resources in the range
    (ranges hold at least twice the 128 a row can demand, or the whole datacenter)."""
    cdef int64_t r, end = m + want
    while m < end:
        r = lo + next_below(state, size)
        if not mark[r]:
            mark[r] = 1
            idx[m] = <int32_t>r
            m += 1
    return m


cdef inline int bucket_shift(int64_t size) noexcept nogil:
    """Smallest shift with (size - 1) >> shift < 128: sort_small's bucket width."""
    cdef int shift = 0
    while ((size - 1) >> shift) >= 128:
        shift += 1
    return shift


cdef inline void sort_small(int32_t* a, int64_t n, int32_t lo, int shift) noexcept nogil:
    """Sort n <= 128 resource indices from [lo, lo + (128 << shift)) ascending (IN/OUT: a).

    One counting-sort pass on the top bits (bucket (r - lo) >> shift) leaves every
    element in its bucket; an insertion sort then only fixes order within buckets,
    which is cheap because the indices were drawn uniformly over the range."""
    cdef int32_t tmp[128]
    cdef int32_t count[129]
    cdef int64_t i, j, b
    cdef int32_t v
    if n > 16:
        memset(count, 0, sizeof(count))
        for i in range(n):
            count[((a[i] - lo) >> shift) + 1] += 1
        for b in range(128):
            count[b + 1] += count[b]
        for i in range(n):
            v = a[i]
            b = (v - lo) >> shift
            tmp[count[b]] = v
            count[b] += 1
        memcpy(a, tmp, n * sizeof(int32_t))
    for i in range(1, n):
        v = a[i]
        j = i
        while j > 0 and a[j - 1] > v:
            a[j] = a[j - 1]
            j -= 1
        a[j] = v


cdef inline void merge_runs(const int32_t* a, int64_t na, const int32_t* b, int64_t nb,
                            int32_t* out) noexcept nogil:
    """Merge sorted a[0:na] and b[0:nb] (all distinct) into out[0:na + nb] (OUT: out)."""
    cdef int64_t i = 0, j = 0, m = 0
    while i < na and j < nb:
        if a[i] < b[j]:
            out[m] = a[i]
            i += 1
        else:
            out[m] = b[j]
            j += 1
        m += 1
    while i < na:
        out[m] = a[i]
        i += 1
        m += 1
    while j < nb:
        out[m] = b[j]
        j += 1
        m += 1


cdef inline void fill_row(uint64_t key, int locality, int64_t k, int64_t n_resources,
                          int shift_dc, int shift_cluster, const int64_t* cluster_start,
                          int64_t n_clusters, const double* capacity, uint8_t* mark,
                          int32_t* idx, floating* val) noexcept nogil:
    """One tenant's row: k distinct sorted resources and their demand fractions.

    IN: key (the row's generator state), locality (0, 1, 2), k, the bucket shifts of
    sort_small for the whole datacenter and for one cluster, the cluster boundaries,
    the capacities. OUT: idx[0:k], val[0:k]. mark (all zero on entry) is left all zero.
    Draw order: PodA, PodB, DC shares, each sorted on its own, then merged."""
    cdef uint64_t s = key
    cdef int64_t k_a = 0, k_b = 0, k_dc, j, a, b
    cdef int32_t run[128]
    cdef int32_t run2[128]
    cdef double c
    if locality >= 1:
        k_a = (k + 1) // 2                 # round(0.5 k), halves rounded up
    if locality == 2:
        k_b = (3 * k + 5) // 10            # round(0.3 k), halves rounded up
    k_dc = k - k_a - k_b
    if locality >= 1:
        a = next_below(&s, n_clusters)     # PodA
        draw_distinct(&s, cluster_start[a], cluster_start[a + 1] - cluster_start[a],
                      k_a, mark, idx, 0)
        sort_small(idx, k_a, <int32_t>cluster_start[a], shift_cluster)
        if locality == 2:
            if n_clusters > 1:             # PodB: uniform over the other clusters
                b = next_below(&s, n_clusters - 1)
                if b >= a:
                    b += 1
            else:
                b = a
            draw_distinct(&s, cluster_start[b], cluster_start[b + 1] - cluster_start[b],
                          k_b, mark, idx, k_a)
            sort_small(idx + k_a, k_b, <int32_t>cluster_start[b], shift_cluster)
    draw_distinct(&s, 0, n_resources, k_dc, mark, idx, k_a + k_b)
    sort_small(idx + k_a + k_b, k_dc, 0, shift_dc)
    for j in range(k):
        mark[idx[j]] = 0
    if locality == 1:
        memcpy(run, idx, k * sizeof(int32_t))
        merge_runs(run, k_a, run + k_a, k_dc, idx)
    elif locality == 2:
        memcpy(run, idx, k * sizeof(int32_t))
        merge_runs(run, k_a, run + k_a, k_b, run2)
        merge_runs(run2, k_a + k_b, run + k_a + k_b, k_dc, idx)
    for j in range(k):                     # value uniform on [1, C[r]], stored as value / C[r]
        c = capacity[idx[j]]
        val[j] = <floating>(<double>(1 + next_below(&s, <int64_t>c)) / c)


def fill_rows(uint64_t seed, int locality, const int64_t[::1] indptr,
              const int64_t[::1] cluster_start, const double[::1] capacity,
              int32_t[::1] indices, floating[::1] data, int threads):
    """Fill every row of a CSR demand matrix whose row pointer is already set.

    IN: indptr (n_tenants + 1), cluster_start (n_clusters + 1 boundaries of contiguous
    clusters), capacity (n_resources). OUT: indices, data (nnz each)."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t n_resources = capacity.shape[0]
    cdef int64_t n_clusters = cluster_start.shape[0] - 1
    cdef uint8_t[:, ::1] marks = np.zeros((threads, n_resources), dtype=np.uint8)
    cdef int64_t i, start, widest = 0
    for i in range(n_clusters):
        widest = max(widest, cluster_start[i + 1] - cluster_start[i])
    cdef int shift_dc = bucket_shift(n_resources), shift_cluster = bucket_shift(widest)
    if n == 0 or indptr[n] == 0:
        return
    with nogil, parallel(num_threads=threads):
        for i in prange(n, schedule='static'):
            start = indptr[i]
            fill_row(stream_key(seed, STREAM_ROW, i), locality, indptr[i + 1] - start,
                     n_resources, shift_dc, shift_cluster, &cluster_start[0], n_clusters,
                     &capacity[0], &marks[threadid(), 0], &indices[start], &data[start])
