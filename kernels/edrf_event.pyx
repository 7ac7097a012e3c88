"""Exact EDRF as an event-driven water-filling process: drfbench's own allocator.

Algorithm 1 (EDRF) and Algorithm 2 (DC-DRF) of Kash, O'Shea and Volos (SoCC'18) raise all
active tenants together in a level y; resource r's residual is

    s_r(y) = 1 - sum_i rho_i d_ir min(y, z_i),

and a round ends at y_t, the smallest level at which a live resource's residual reaches 0
(Algorithm 2, lines 13-14). Then every live resource whose residual is at most
epsilon + ROUNDING_SLACK is exhausted (line 16) and every active tenant that demands one
leaves with z_i = y_t (line 18). Algorithm 1 pays O(nnz) per round, Algorithm 2
O(N + R) per round. Here a round costs only what changes in it:

  transposition  resource -> tenants (CSR of tenant ids, tenants ascending within each
                 resource): one counting sort, in BLOCKS fixed blocks of tenants run in
                 parallel; the same pass computes the scales and the initial mu.
  state[r]       residual, mu, and the level `since` at which the residual was last
                 brought up to date: s_r(y) = residual - mu * (y - since) for y >= since.
                 Only resources a leaving tenant demands are touched.
  two lazy heaps the zero heap holds, per live resource, the level at which its
                 residual reaches 0; the threshold heap the level at which it reaches
                 epsilon + ROUNDING_SLACK. A tenant leaving only lowers mu, so both keys
                 only grow: a key in a heap is a lower bound of the true one. An update
                 marks the resource stale in both heaps instead of moving it; when a stale
                 entry reaches the top its key is recomputed and it sinks (lazy deletion).
                 Resources no active tenant demands are dropped when they reach the top.

One round:
  1. y_t = the zero heap's top, once the top is fresh (line 13). Its resource is always
     exhausted (line 16 would give residual ~0 up to rounding; forcing it makes every
     round exhaust at least one resource, so the loop terminates whatever the rounding).
  2. Every resource whose threshold key is <= y_t is popped from the threshold heap and
     tested: residual at y_t <= epsilon + ROUNDING_SLACK means exhausted (line 16); a
     fresh entry that fails the test only by rounding is pushed back afterwards.
  3. For each exhausted resource, each of its still-active tenants leaves with
     z_i = y_t (line 18), and its CSR row is walked once: every resource it demands is
     brought up to level y_t (residual -= mu * (y_t - since)) before mu -= rho_i d_ir
     (line 17), so the order of the leavers does not change any residual at y_t.
  4. Lines 19-21: stop on max_rounds or the deadline, freezing the active tenants at y_t.

Why two heaps rather than one: with epsilon = 0 the two keys differ by
ROUNDING_SLACK / mu_r and a single heap would do, but with epsilon > 0 the resources that
will be exhausted in round t (threshold key <= y_t) are not the ones near the minimum of
the zero key, and no single key orders both questions. A single heap on the threshold
key would have to pop, test and push back every resource whose threshold key lies below
the minimal zero key, many per round at large epsilon; a single heap on the zero key
cannot find resources within epsilon of exhaustion at all. Two heaps cost
O(log R) per exhausted resource and per stale entry that reaches a top, for either
epsilon.

Each (tenant, resource) pair is touched a constant number of times: once in each pass of
the transposition, once when the tenant leaves (row walk), at most once when the
resource is exhausted (column walk, each resource is exhausted at most once), and once
when the allocation is written. Cost O(nnz + (rounds + stale pops) log R).

Determinism: the scales, the transposition and the allocation do not depend on the
partition of the work; the initial mu is summed per resource over BLOCKS fixed blocks of
tenants, block by block; the event loop is serial. So the result is bit for bit the same
for any thread count.
"""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, calloc, free
from _common cimport (floating, int32_t, int64_t, uint8_t, now, ROUNDING_SLACK,
                      write_allocation)

cdef enum:
    PHASES = 6             # entries written to the optional `phases` array
    BLOCKS = 16            # fixed tenant blocks of the transposition and initial mu
    PREFETCH_AHEAD = 4     # leaving tenants' rows requested this far ahead
    LINE = 64              # cache line bytes


cdef extern from *:
    void prefetch "__builtin_prefetch" (const void*) nogil


cdef inline void prefetch_row(const floating* data, const int32_t* cols, const int64_t* ptr,
                              int32_t i) noexcept nogil:
    """Ask for every cache line of tenant i's row (values and column indices)."""
    cdef int64_t k, begin = ptr[i], end = ptr[i + 1]
    k = begin
    while k < end:
        prefetch(&data[k])
        k = k + <int64_t>(LINE // sizeof(floating))
    k = begin
    while k < end:
        prefetch(&cols[k])
        k = k + LINE // 4
    if end > begin:
        prefetch(&data[end - 1])
        prefetch(&cols[end - 1])


cdef struct Resource:
    double unreached       # 1 - sum over departed tenants of rho_i d_ir z_i
    double mu              # summed rho_i d_ir of the active tenants demanding r
    int64_t users          # active tenants demanding r (0: r is no longer live)


cdef struct Tally:
    double mu              # a block's partial sum of rho_i d_ir for one resource
    int64_t count          # a block's tenants demanding the resource, then its cursor


cdef struct Entry:
    double key
    int32_t item


cdef struct Heap:
    Entry* entry
    Py_ssize_t size


cdef inline void sift_down(Heap* h, Py_ssize_t pos) noexcept nogil:
    """Restore the min-heap order below pos (the entry at pos may be too large)."""
    cdef Entry moving = h.entry[pos]
    cdef Py_ssize_t child, n = h.size
    while True:
        child = 2 * pos + 1
        if child >= n:
            break
        if child + 1 < n and h.entry[child + 1].key < h.entry[child].key:
            child = child + 1
        if h.entry[child].key >= moving.key:
            break
        h.entry[pos] = h.entry[child]
        pos = child
    h.entry[pos] = moving


cdef inline void push(Heap* h, double key, int32_t item) noexcept nogil:
    cdef Py_ssize_t pos = h.size, parent
    h.size = h.size + 1
    while pos > 0:
        parent = (pos - 1) // 2
        if h.entry[parent].key <= key:
            break
        h.entry[pos] = h.entry[parent]
        pos = parent
    h.entry[pos].key = key
    h.entry[pos].item = item


cdef inline void pop(Heap* h) noexcept nogil:
    h.size = h.size - 1
    if h.size > 0:
        h.entry[0] = h.entry[h.size]
        sift_down(h, 0)


cdef inline double level_at(const Resource* s, double value) noexcept nogil:
    """The level at which r's residual unreached - mu * y falls to `value`: a lower
    bound of every later answer, since mu only falls. Infinite if mu has reached 0
    by rounding."""
    if s.mu <= 0.0:
        return INFINITY
    return (s.unreached - value) / s.mu


cdef void tally_block(const floating* data, const int32_t* indices, const int64_t* indptr,
                      const double* weights, Py_ssize_t i_begin, Py_ssize_t i_end,
                      double* scale, Tally* tally) noexcept nogil:
    """Tenants [i_begin, i_end): scale[i] = w_i / max_r D_ir (OUT; 0 for an all-zero
    row, as tenant_scales), and per resource the block's tenant count and partial mu."""
    cdef Py_ssize_t i
    cdef int64_t k
    cdef double peak, f
    cdef Tally* t
    for i in range(i_begin, i_end):
        peak = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            if data[k] > peak:
                peak = data[k]
        f = weights[i] / peak if peak > 0.0 else 0.0
        scale[i] = f
        for k in range(indptr[i], indptr[i + 1]):
            t = &tally[indices[k]]
            t.count = t.count + 1
            t.mu = t.mu + data[k] * f


cdef void scatter_block(const int32_t* indices, const int64_t* indptr,
                        Py_ssize_t i_begin, Py_ssize_t i_end, Tally* cursor,
                        int32_t* tenants) noexcept nogil:
    """Tenants [i_begin, i_end) into their resources' lists, at the block's cursors."""
    cdef Py_ssize_t i
    cdef int64_t k
    cdef Tally* c
    for i in range(i_begin, i_end):
        for k in range(indptr[i], indptr[i + 1]):
            c = &cursor[indices[k]]
            tenants[c.count] = <int32_t>i
            c.count = c.count + 1


cdef void reduce_tallies(Tally* tally, Py_ssize_t R, Py_ssize_t r, Resource* state,
                         int64_t* counts) noexcept nogil:
    """Resource r: mu and users summed over the blocks in block order; each block's
    count becomes its offset within r's list."""
    cdef Py_ssize_t b
    cdef int64_t total = 0, c
    cdef double mu = 0.0
    for b in range(BLOCKS):
        c = tally[b * R + r].count
        tally[b * R + r].count = total
        total = total + c
        mu = mu + tally[b * R + r].mu
    counts[r] = total
    state[r].unreached = 1.0
    state[r].mu = mu
    state[r].users = total


def edrf_event(const floating[::1] data, const int32_t[::1] indices,
               const int64_t[::1] indptr, Py_ssize_t n_resources,
               const double[::1] weights, double epsilon, double deadline,
               long long max_rounds, int n_threads, floating[::1] allocation,
               double[::1] level, double[::1] phases=None):
    """Exact EDRF (epsilon = 0) or DC-DRF's rounds at tolerance epsilon, event-driven,
    on canonical CSR demands (IN: data, indices, indptr, weights).

    Stops when no tenant is active, or, checked after each round while tenants remain,
    once `rounds` reaches max_rounds or `deadline` seconds have passed since the call
    began; then the active tenants get z_i = y_t (Algorithm 2 lines 19-21). Writes
    allocation (OUT, same layout as data: rho_i d_ir z_i) and level (OUT, z per tenant).
    Returns (rounds, timed_out, elapsed seconds), rounds counted as Algorithm 1 does.
    phases (OUT, optional, length >= PHASES): seconds since the start at the end of
    each phase (tally, offsets, scatter, heaps, events, allocation), for profiling.
    """
    cdef double t_start = now()
    cdef Py_ssize_t n_tenants = indptr.shape[0] - 1
    cdef Py_ssize_t R = n_resources, nnz = data.shape[0]
    cdef Py_ssize_t b, r, i, j, n_exhausted, n_deferred, n_leaving
    cdef int64_t k, p
    cdef int32_t q, top
    cdef double threshold = epsilon + ROUNDING_SLACK
    cdef double y = 0.0, f, f_k, key
    cdef long long rounds = 0, n_active = 0
    cdef bint timed_out = False
    cdef Resource* s
    cdef Heap zero, thresh
    cdef double stamp[PHASES]

    if n_tenants == 0:
        return 0, False, now() - t_start
    scale_arr = np.empty(n_tenants, dtype=np.float64)
    start_arr = np.empty(R + 1, dtype=np.int64)
    active_arr = np.empty(n_tenants, dtype=np.uint8)
    done_arr = np.zeros(R, dtype=np.uint8)
    leaving_arr = np.empty(n_tenants, dtype=np.int32)
    cdef int32_t[::1] leaving = leaving_arr
    cdef double[::1] scale = scale_arr
    cdef int64_t[::1] start = start_arr
    cdef uint8_t[::1] active = active_arr, done = done_arr
    cdef const floating* D = &data[0] if nnz else NULL
    cdef const int32_t* cols = &indices[0] if nnz else NULL
    cdef const int64_t* ptr = &indptr[0]
    cdef int64_t* tstart = &start[0]
    # The transposition (one int32 tenant id per non-zero) lives in the allocation's
    # own buffer, at least as large: it is dead before the allocation is written.
    cdef int32_t* tlist = <int32_t*>&allocation[0] if nnz else NULL

    cdef Py_ssize_t R1 = R if R > 0 else 1
    cdef Tally* tally = <Tally*>calloc(BLOCKS * R1, sizeof(Tally))
    cdef Resource* state = <Resource*>malloc(R1 * sizeof(Resource))
    zero.entry = <Entry*>malloc(R1 * sizeof(Entry))
    thresh.entry = <Entry*>malloc(R1 * sizeof(Entry))
    cdef int32_t* exhausted = <int32_t*>malloc(R1 * sizeof(int32_t))
    cdef Entry* deferred = <Entry*>malloc(R1 * sizeof(Entry))
    try:
        if (tally == NULL or state == NULL or zero.entry == NULL or thresh.entry == NULL
                or exhausted == NULL or deferred == NULL):
            raise MemoryError("edrf_event: cannot allocate its per-resource buffers")
        with nogil:
            # Transposition, pass 1: scales, counts and partial mu per fixed block.
            for b in prange(BLOCKS, schedule='dynamic', num_threads=n_threads):
                tally_block(D, cols, ptr, &weights[0], b * n_tenants // BLOCKS,
                            (b + 1) * n_tenants // BLOCKS, &scale[0], &tally[b * R])
            stamp[0] = now()
            for r in prange(R, schedule='static', num_threads=n_threads):
                reduce_tallies(tally, R, r, state, tstart + 1)
            tstart[0] = 0
            for r in range(R):
                tstart[r + 1] = tstart[r + 1] + tstart[r]
            for r in prange(R, schedule='static', num_threads=n_threads):
                for b in range(BLOCKS):
                    tally[b * R + r].count = tally[b * R + r].count + tstart[r]
            stamp[1] = now()
            # Pass 2: each block writes its tenants at its own cursors; tenants end up
            # ascending within each resource's list whatever the thread count.
            for b in prange(BLOCKS, schedule='dynamic', num_threads=n_threads):
                scatter_block(cols, ptr, b * n_tenants // BLOCKS,
                              (b + 1) * n_tenants // BLOCKS, &tally[b * R], tlist)
            stamp[2] = now()

            for i in range(n_tenants):
                level[i] = 0.0
                active[i] = scale[i] > 0.0
                n_active = n_active + active[i]
            zero.size = 0
            thresh.size = 0
            for r in range(R):
                if state[r].users > 0:
                    zero.entry[zero.size].key = level_at(&state[r], 0.0)
                    zero.entry[zero.size].item = <int32_t>r
                    zero.size = zero.size + 1
                    thresh.entry[thresh.size].key = level_at(&state[r], threshold)
                    thresh.entry[thresh.size].item = <int32_t>r
                    thresh.size = thresh.size + 1
            for j in range(zero.size // 2 - 1, -1, -1):
                sift_down(&zero, j)
                sift_down(&thresh, j)
            stamp[3] = now()

            while n_active > 0:
                # Line 13: the lowest level at which a live resource runs out. A key
                # that grew since it was pushed sinks; one that did not is the minimum.
                top = -1
                while zero.size > 0:
                    q = zero.entry[0].item
                    s = &state[q]
                    if s.users == 0:
                        pop(&zero)
                        continue
                    key = level_at(s, 0.0)
                    if key > zero.entry[0].key:
                        zero.entry[0].key = key
                        sift_down(&zero, 0)
                    else:
                        zero.entry[0].key = key
                        top = q
                        break
                if top < 0:       # unreachable: an active tenant's resources are live
                    break
                y = zero.entry[0].key                               # line 14
                # Line 16: every live resource with residual <= epsilon at y.
                n_exhausted = 0
                n_deferred = 0
                while thresh.size > 0 and thresh.entry[0].key <= y:
                    q = thresh.entry[0].item
                    s = &state[q]
                    if s.users == 0:
                        pop(&thresh)
                        continue
                    key = level_at(s, threshold)
                    if key > thresh.entry[0].key:
                        thresh.entry[0].key = key
                        sift_down(&thresh, 0)
                        continue
                    if s.unreached - s.mu * y <= threshold:
                        done[q] = 1
                        exhausted[n_exhausted] = q
                        n_exhausted = n_exhausted + 1
                    else:         # below y by rounding only: back after this round
                        deferred[n_deferred].key = key
                        deferred[n_deferred].item = q
                        n_deferred = n_deferred + 1
                    pop(&thresh)
                for j in range(n_deferred):
                    push(&thresh, deferred[j].key, deferred[j].item)
                if not done[top]:
                    done[top] = 1
                    exhausted[n_exhausted] = top
                    n_exhausted = n_exhausted + 1
                # Line 18: the active tenants of exhausted resources leave at y.
                n_leaving = 0
                for j in range(n_exhausted):
                    r = exhausted[j]
                    for p in range(tstart[r], tstart[r + 1]):
                        i = tlist[p]
                        if active[i]:
                            active[i] = 0
                            level[i] = y
                            leaving[n_leaving] = <int32_t>i
                            n_leaving = n_leaving + 1
                            prefetch(&ptr[i])
                            prefetch(&scale[i])
                n_active = n_active - n_leaving
                # Line 17: their rows leave mu; rows are fetched PREFETCH_AHEAD ahead.
                for j in range(min(n_leaving, PREFETCH_AHEAD)):
                    prefetch_row(D, cols, ptr, leaving[j])
                for j in range(n_leaving):
                    if j + PREFETCH_AHEAD < n_leaving:
                        prefetch_row(D, cols, ptr, leaving[j + PREFETCH_AHEAD])
                    i = leaving[j]
                    f = scale[i]
                    for k in range(ptr[i], ptr[i + 1]):
                        s = &state[cols[k]]
                        f_k = D[k] * f
                        s.unreached = s.unreached - f_k * y
                        s.mu = s.mu - f_k
                        s.users = s.users - 1
                rounds = rounds + 1
                if n_active > 0 and (rounds >= max_rounds or now() - t_start > deadline):
                    timed_out = True                                # lines 19-21
                    for i in range(n_tenants):
                        if active[i]:
                            level[i] = y
                    break
            stamp[4] = now()
            write_allocation(D, ptr, &scale[0], &level[0], n_tenants,
                             &allocation[0] if nnz else NULL, n_threads)
            stamp[5] = now()
    finally:
        free(tally)
        free(state)
        free(zero.entry)
        free(thresh.entry)
        free(exhausted)
        free(deferred)
    if phases is not None:
        for j in range(PHASES):
            phases[j] = stamp[j] - t_start
    return rounds, bool(timed_out), now() - t_start
