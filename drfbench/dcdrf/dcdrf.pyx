"""DC-DRF's inner loop: Algorithm 2, lines 5-23, of Kash, O'Shea and Volos (SoCC'18).

One kernel serves the paper's four run-time configurations (section 5.1): DC-DRF
(epsilon > 0, many threads), sDC-DRF (one thread), pEDRF (epsilon = 0, stopped at the
deadline) and pEDRF-1 (one round). The elements of the paper map to arrays here:

  mu[r]        mu_tr, the summed rho_i * d_ir of the active tenants (lines 8, 17)
  residual[r]  s_rt, the fraction of r left (lines 6, 15)
  y            the running sum of the x_t (line 14)
  level[i]     z_i, the y at which tenant i left (lines 18, 21)

Tiling follows Table 2: resource tiles for lines 13, 15 and 17, tenant tiles for line 16.
Line 16 starts from the resources exhausted in the round, not from the tenants: a
resource-to-tenant index (each resource's tenants, in tenant order) marks the tenants
of each such resource, and a tenant tile then moves its marked members to the leavers.
So each non-zero is looked at once in the whole run at line 16, where the paper's test
looks at every live tenant's non-zeros every round (at 100K x 10K, epsilon 1e-3: 6.5M
against 175M lookups); the leavers, their order and every sum are those of the test.
Tiles have a fixed size and every sum runs in a fixed order, so the result is bit for bit
the same for any thread count:
  - the initial mu is summed in MU_BLOCKS fixed blocks of tenants, then over the blocks;
  - line 17 splits resources into one range per thread, and each range subtracts its
    leaving tenants in tenant order;
  - line 13 is a minimum, which does not depend on order.
Each tile keeps its live members packed at its start, so a round costs the live tenants
and resources, the tenant lists of the resources exhausted in it and the leavers' rows,
not the whole matrix.
"""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport INFINITY
from _common cimport (floating, int32_t, int64_t, uint8_t, now, ROUNDING_SLACK,
                      prefetch_span, tenant_scales, write_allocation)

cdef enum:
    TENANT_TILE = 2048      # tenants per tenant tile (line 16)
    RESOURCE_TILE = 1024    # resources per resource tile (lines 13, 15)
    MU_BLOCKS = 16          # fixed blocks for the initial sum of line 8
    PREFETCH_AHEAD = 8      # line 17 requests leavers' rows this many leavers ahead


cdef struct Tiles:
    # Members of tile c are members[c * size : c * size + count[c]], packed and in order.
    int32_t* members
    int32_t* count
    Py_ssize_t size
    Py_ssize_t n_tiles


cdef double live_resources_min(Tiles res, Py_ssize_t c, const double* residual,
                               const double* mu, const int32_t* users) noexcept nogil:
    """Line 13 over tile c: min of s_r / mu_r over live resources; drops resources that
    no active tenant demands any longer (users[r] == 0), packing the rest."""
    cdef Py_ssize_t base = c * res.size, j, kept = 0
    cdef int32_t r
    cdef double best = INFINITY, ratio
    for j in range(res.count[c]):
        r = res.members[base + j]
        if users[r] == 0:
            continue
        res.members[base + kept] = r
        kept = kept + 1
        ratio = residual[r] / mu[r]
        if ratio < best:
            best = ratio
    res.count[c] = <int32_t>kept
    return best


cdef void update_residuals(Tiles res, Py_ssize_t c, double x, double threshold,
                           double* residual, const double* mu, int32_t* exhausted,
                           int32_t* n_exhausted) noexcept nogil:
    """Line 15 over tile c, and the test of line 16 per resource: s_r <= epsilon. The
    resources exhausted this round go to exhausted[], packed at the tile's start."""
    cdef Py_ssize_t base = c * res.size, j, n = 0
    cdef int32_t r
    for j in range(res.count[c]):
        r = res.members[base + j]
        residual[r] = residual[r] - x * mu[r]
        if residual[r] <= threshold:
            exhausted[base + n] = r
            n = n + 1
    n_exhausted[c] = <int32_t>n


cdef inline int64_t first_at_least(const int32_t* indices, int64_t lo, int64_t hi,
                                   int32_t r) noexcept nogil:
    """The first k in [lo, hi) with indices[k] >= r (hi if none), indices[lo:hi] sorted:
    a row's resources (drfbench._validation.demand_matrix), a resource's tenants. No
    search where the first one is: on one thread every range begins at 0."""
    cdef int64_t mid
    if lo < hi and indices[lo] >= r:
        return lo
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if indices[mid] < r:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef void mark_tenants(Tiles res, const int32_t* exhausted, const int32_t* n_exhausted,
                       const int64_t* colptr, const int32_t* rows, int32_t i_begin,
                       int32_t i_end, uint8_t* marked) noexcept nogil:
    """Line 16 for tenants [i_begin, i_end): marks every tenant demanding a resource
    exhausted this round (rows[colptr[r]:colptr[r + 1]]: r's tenants, in order), entering
    each resource's tenants where the range begins."""
    cdef Py_ssize_t c, j
    cdef int32_t r
    cdef int64_t k, end
    for c in range(res.n_tiles):
        for j in range(n_exhausted[c]):
            r = exhausted[c * res.size + j]
            end = colptr[r + 1]
            k = first_at_least(rows, colptr[r], end, i_begin)
            while k < end and rows[k] < i_end:
                marked[rows[k]] = 1
                k = k + 1


cdef void evict_tenants(Tiles ten, Py_ssize_t c, double y, const uint8_t* marked,
                        int32_t* leaving, int32_t* n_leaving, double* level) noexcept nogil:
    """Line 18 over tenant tile c: its marked members leave with z_i = y_t, to
    leaving[] in tenant order; the others stay packed."""
    cdef Py_ssize_t base = c * ten.size, j, kept = 0, left = 0
    cdef int32_t i
    for j in range(ten.count[c]):
        i = ten.members[base + j]
        if marked[i]:
            leaving[base + left] = i
            left = left + 1
            level[i] = y
        else:
            ten.members[base + kept] = i
            kept = kept + 1
    ten.count[c] = <int32_t>kept
    n_leaving[c] = <int32_t>left


cdef inline void prefetch_part(const floating* data, const int32_t* indices,
                               const int64_t* indptr, int32_t i, int32_t r_begin,
                               int32_t r_end, Py_ssize_t R) noexcept nogil:
    """Request the cache lines of tenant i's row that resources [r_begin, r_end) of R
    would take if its non-zeros were spread evenly (the whole row on one thread)."""
    cdef int64_t lo = indptr[i], n = indptr[i + 1] - indptr[i]
    cdef int64_t a = lo + n * r_begin // R, b = lo + (n * r_end + R - 1) // R
    prefetch_span(&data[a], &data[b])
    prefetch_span(&indices[a], &indices[b])


cdef void subtract_leavers(const floating* data, const int64_t* indptr,
                           const int32_t* indices, const double* scale, Tiles ten,
                           const int32_t* leaving, const int32_t* n_leaving,
                           int32_t r_begin, int32_t r_end, Py_ssize_t R,
                           double* mu, int32_t* users) noexcept nogil:
    """Line 17 for resources [r_begin, r_end): mu_r -= rho_i * d_ir for each tenant that
    left this round, in tenant order; users[r] counts the active tenants demanding r.
    Each leaver's row is entered where its range begins (a binary search), so a thread
    walks only its own range's non-zeros, not every leaver's whole row; that part of the
    row is requested PREFETCH_AHEAD leavers ahead, and the next tile's first ones while a
    tile runs (the rows of a round's leavers lie anywhere in the matrix).

    mu_r stops at 0: a tenant whose d_ir lies below the rounding of the sum it was part
    of would leave mu_r below 0 (a negative x at line 13); at 0 the ratio of line 13 is
    infinite, as in drfbench/dcdrf/edrf_event.pyx: r no longer binds. (A comparison, not fmax:
    the same value for the finite, never -0 differences here, without a call per
    non-zero.)"""
    cdef Py_ssize_t c, j
    cdef int32_t i, r
    cdef int64_t k, end
    cdef double left
    for c in range(ten.n_tiles):
        if c == 0:
            for j in range(min(n_leaving[0], <int32_t>PREFETCH_AHEAD)):
                prefetch_part(data, indices, indptr, leaving[j], r_begin, r_end, R)
        if c + 1 < ten.n_tiles:     # the next tile's first leavers, while this one runs
            for j in range(min(n_leaving[c + 1], <int32_t>PREFETCH_AHEAD)):
                prefetch_part(data, indices, indptr, leaving[(c + 1) * ten.size + j],
                              r_begin, r_end, R)
        for j in range(n_leaving[c]):
            if j + PREFETCH_AHEAD < n_leaving[c]:
                prefetch_part(data, indices, indptr, leaving[c * ten.size + j + PREFETCH_AHEAD],
                              r_begin, r_end, R)
            i = leaving[c * ten.size + j]
            end = indptr[i + 1]
            k = first_at_least(indices, indptr[i], end, r_begin)
            while k < end and indices[k] < r_end:
                r = indices[k]
                left = mu[r] - data[k] * scale[i]
                mu[r] = left if left > 0.0 else 0.0
                users[r] = users[r] - 1
                k = k + 1


cdef void index_block(const int64_t* indptr, const int32_t* indices, const double* scale,
                      Py_ssize_t i_begin, Py_ssize_t i_end, const int64_t* colptr,
                      int32_t* cursor, int32_t* rows) noexcept nogil:
    """The resource-to-tenant index for tenants [i_begin, i_end): each one with some
    demand is written into the lists of the resources it demands, at cursor[r] (this
    block's offset into r's list, moved on as it writes)."""
    cdef Py_ssize_t i
    cdef int64_t k
    cdef int32_t r
    for i in range(i_begin, i_end):
        if scale[i] == 0.0:
            continue
        for k in range(indptr[i], indptr[i + 1]):
            r = indices[k]
            rows[colptr[r] + cursor[r]] = <int32_t>i
            cursor[r] = cursor[r] + 1


cdef void sum_demand_block(const floating* data, const int64_t* indptr,
                           const int32_t* indices, const double* scale,
                           Py_ssize_t i_begin, Py_ssize_t i_end, double* mu_part,
                           int32_t* users_part) noexcept nogil:
    """Line 8 for tenants [i_begin, i_end): partial mu and user counts of one block."""
    cdef Py_ssize_t i
    cdef int64_t k
    for i in range(i_begin, i_end):
        if scale[i] == 0.0:
            continue
        for k in range(indptr[i], indptr[i + 1]):
            mu_part[indices[k]] += data[k] * scale[i]
            users_part[indices[k]] += 1


def dcdrf(const floating[::1] data, const int32_t[::1] indices, const int64_t[::1] indptr,
          Py_ssize_t n_resources, const double[::1] weights, double epsilon,
          double deadline, long long max_rounds, int n_threads,
          floating[::1] allocation, double[::1] level):
    """Run Algorithm 2's inner loop on CSR demands (IN: data, indices, indptr, weights).

    Stops when no tenant is active, after max_rounds rounds, or once `deadline` seconds
    have passed since the call began (checked after each round, line 19); on a stop the
    active tenants get z_i = y_t (line 21). Writes allocation (OUT, same layout as data)
    and level (OUT, z per tenant). Returns (rounds, timed_out, elapsed seconds).
    """
    cdef double t_start = now()
    cdef Py_ssize_t n_tenants = indptr.shape[0] - 1
    cdef Py_ssize_t R = n_resources, c, b, r, i, j, c_begin, c_end
    cdef int32_t count
    cdef Py_ssize_t n_ranges = n_threads
    cdef double threshold = epsilon + ROUNDING_SLACK
    cdef double x, y = 0.0
    cdef long long rounds = 0, n_active = 0
    cdef bint timed_out = False

    scale_arr = np.zeros(n_tenants, dtype=np.float64)
    mu_arr = np.zeros(R, dtype=np.float64)
    users_arr = np.zeros(R, dtype=np.int32)
    residual_arr = np.ones(R, dtype=np.float64)
    exhausted_arr = np.empty(R, dtype=np.int32)
    marked_arr = np.zeros(n_tenants, dtype=np.uint8)
    colptr_arr = np.zeros(R + 1, dtype=np.int64)
    tenant_members = np.empty(n_tenants, dtype=np.int32)
    leaving_arr = np.empty(n_tenants, dtype=np.int32)
    resource_members = np.empty(R, dtype=np.int32)
    cdef Tiles ten, res
    ten.size = TENANT_TILE
    ten.n_tiles = (n_tenants + TENANT_TILE - 1) // TENANT_TILE
    res.size = RESOURCE_TILE
    res.n_tiles = (R + RESOURCE_TILE - 1) // RESOURCE_TILE
    ten_count_arr = np.zeros(ten.n_tiles, dtype=np.int32)
    n_leaving_arr = np.zeros(ten.n_tiles, dtype=np.int32)
    res_count_arr = np.zeros(res.n_tiles, dtype=np.int32)
    n_exhausted_arr = np.zeros(res.n_tiles, dtype=np.int32)
    tile_min_arr = np.empty(res.n_tiles, dtype=np.float64)
    mu_parts_arr = np.zeros((MU_BLOCKS, R), dtype=np.float64)
    users_parts_arr = np.zeros((MU_BLOCKS, R), dtype=np.int32)

    cdef double[::1] scale = scale_arr, mu = mu_arr, residual = residual_arr
    cdef double[::1] tile_min = tile_min_arr
    cdef double[:, ::1] mu_parts = mu_parts_arr
    cdef int32_t[:, ::1] users_parts = users_parts_arr
    cdef int32_t[::1] users = users_arr, n_leaving = n_leaving_arr
    cdef int32_t[::1] tmembers = tenant_members, rmembers = resource_members
    cdef int32_t[::1] tcount = ten_count_arr, rcount = res_count_arr, leaving = leaving_arr
    cdef int32_t[::1] exhausted = exhausted_arr, n_exhausted = n_exhausted_arr
    cdef int64_t[::1] colptr = colptr_arr
    cdef uint8_t[::1] marked = marked_arr
    ten.members = &tmembers[0] if n_tenants else NULL
    ten.count = &tcount[0] if ten.n_tiles else NULL
    res.members = &rmembers[0] if R else NULL
    res.count = &rcount[0] if res.n_tiles else NULL
    cdef const floating* D = &data[0] if data.shape[0] else NULL
    cdef const int32_t* cols = &indices[0] if indices.shape[0] else NULL
    cdef double* mu_p = &mu[0] if R else NULL
    cdef int32_t* users_p = &users[0] if R else NULL
    cdef int32_t* leaving_p = &leaving[0] if n_tenants else NULL
    cdef int32_t* n_leaving_p = &n_leaving[0] if ten.n_tiles else NULL
    cdef double* level_p = &level[0] if n_tenants else NULL
    cdef double* scale_p = &scale[0] if n_tenants else NULL
    cdef int32_t* exhausted_p = &exhausted[0] if R else NULL
    cdef int32_t* n_exhausted_p = &n_exhausted[0] if res.n_tiles else NULL
    # Line 16's index lives in the allocation's buffer until line 23 writes the allocation
    # over it (at most one 4-byte tenant id per non-zero, which a float32 or float64 entry
    # holds): no memory of its own, and the buffer's pages are faulted in once, not twice.
    cdef int32_t* rows_p = <int32_t*>&allocation[0] if allocation.shape[0] else NULL
    cdef uint8_t* marked_p = &marked[0] if n_tenants else NULL

    with nogil:
        tenant_scales(D, &indptr[0], &weights[0] if n_tenants else NULL, n_tenants,
                      scale_p, n_threads)
        # Line 8: mu_1r in MU_BLOCKS fixed blocks of tenants, then summed block by block.
        for b in prange(MU_BLOCKS, schedule='static', num_threads=n_threads):
            sum_demand_block(D, &indptr[0], cols, scale_p,
                             b * n_tenants // MU_BLOCKS, (b + 1) * n_tenants // MU_BLOCKS,
                             &mu_parts[b, 0] if R else NULL,
                             &users_parts[b, 0] if R else NULL)
        for r in prange(R, schedule='static', num_threads=n_threads):
            for b in range(MU_BLOCKS):
                mu[r] += mu_parts[b, r]
                count = users_parts[b, r]
                users_parts[b, r] = users[r]     # block b's offset into r's tenants
                users[r] += count
        # The resource-to-tenant index of line 16: r's tenants (those with some demand)
        # are rows[colptr[r]:colptr[r + 1]], in tenant order, each block writing its own.
        for r in range(R):
            colptr[r + 1] = colptr[r] + users[r]
        for b in prange(MU_BLOCKS, schedule='static', num_threads=n_threads):
            index_block(&indptr[0], cols, scale_p,
                        b * n_tenants // MU_BLOCKS, (b + 1) * n_tenants // MU_BLOCKS,
                        &colptr[0], &users_parts[b, 0] if R else NULL, rows_p)
        # S_1: tenants with some demand, and the resources they demand, packed per tile.
        for c in range(ten.n_tiles):
            for i in range(c * TENANT_TILE, min((c + 1) * TENANT_TILE, n_tenants)):
                level[i] = 0.0
                if scale[i] > 0.0:
                    tmembers[c * TENANT_TILE + tcount[c]] = <int32_t>i
                    tcount[c] += 1
            n_active += tcount[c]
        for c in range(res.n_tiles):
            for r in range(c * RESOURCE_TILE, min((c + 1) * RESOURCE_TILE, R)):
                if users[r] > 0:
                    rmembers[c * RESOURCE_TILE + rcount[c]] = <int32_t>r
                    rcount[c] += 1

        while n_active > 0:                                         # line 12
            for c in prange(res.n_tiles, schedule='static', num_threads=n_threads):
                tile_min[c] = live_resources_min(res, c, &residual[0], mu_p, users_p)
            x = INFINITY                                            # line 13
            for c in range(res.n_tiles):
                if tile_min[c] < x:
                    x = tile_min[c]
            y = y + x                                               # line 14
            for c in prange(res.n_tiles, schedule='static', num_threads=n_threads):
                update_residuals(res, c, x, threshold, &residual[0], mu_p,
                                 exhausted_p, n_exhausted_p)        # line 15
            for j in prange(n_ranges, schedule='static', num_threads=n_threads):
                c_begin = j * ten.n_tiles // n_ranges               # lines 16, 18
                c_end = (j + 1) * ten.n_tiles // n_ranges
                mark_tenants(res, exhausted_p, n_exhausted_p, &colptr[0], rows_p,
                             <int32_t>(c_begin * TENANT_TILE),
                             <int32_t>min(c_end * TENANT_TILE, n_tenants), marked_p)
                for c in range(c_begin, c_end):
                    evict_tenants(ten, c, y, marked_p, leaving_p, n_leaving_p, level_p)
            for j in prange(n_ranges, schedule='static', num_threads=n_threads):
                subtract_leavers(D, &indptr[0], cols, scale_p, ten, leaving_p,
                                 n_leaving_p, <int32_t>(j * R // n_ranges),
                                 <int32_t>((j + 1) * R // n_ranges), R, mu_p,
                                 users_p)                           # line 17
            rounds = rounds + 1
            n_active = 0
            for c in range(ten.n_tiles):
                n_active = n_active + tcount[c]
            if n_active > 0 and (rounds >= max_rounds or now() - t_start > deadline):
                timed_out = True                                    # lines 19-21
                for c in range(ten.n_tiles):
                    for j in range(tcount[c]):
                        level[tmembers[c * TENANT_TILE + j]] = y
                break
        write_allocation(D, &indptr[0], scale_p, level_p, n_tenants,
                         &allocation[0] if allocation.shape[0] else NULL, n_threads)
    return rounds, bool(timed_out), now() - t_start
