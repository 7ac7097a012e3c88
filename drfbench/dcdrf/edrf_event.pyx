"""Exact EDRF as an event-driven water-filling process: drfbench's own allocator.

EDRF and DC-DRF (Kash, O'Shea and Volos, SoCC'18, Algorithms 1 and 2) raise all active
tenants together in a level y; resource r's residual is s_r(y) = 1 - sum_i rho_i d_ir
min(y, z_i). A round ends at y_t, the least level at which a live residual reaches 0
(Algorithm 2 lines 13-14); every live resource whose residual is at most epsilon +
ROUNDING_SLACK is exhausted (line 16) and the active tenants demanding one leave with
z_i = y_t (line 18). Algorithm 1 pays O(nnz) a round, Algorithm 2 O(N + R); here a round
costs only what changes in it:

  transposition  resource -> tenant lists: a counting sort of each fixed block of at most
                 65536 tenants (16-bit ids), blocks in parallel, whose counting pass also
                 gives the scales and the block's partial mu (transpose_block).
  state[r]       unreached_r and mu_r, the summed rates of r's active tenants, so that
                 s_r(y) = unreached_r - mu_r * y; a leaver updates only its resources.
  lazy heaps     4-ary min-heaps (_heap.pxd) of resources keyed by the level at which the
                 residual falls to 0 (zero key) or to the threshold (threshold key). mu
                 only falls, so keys only grow: a heap's key is a lower bound, recomputed
                 when it reaches the top (fresh_top). Departures never touch the heaps.
  one or two     with epsilon > 0 a zero-key heap gives y_t and a threshold heap the
                 exhausted resources; at epsilon = 0 the threshold heap alone gives both
                 (run_rounds), halving the heap work of the common, exact case.

Each (tenant, resource) pair is touched a constant number of times (twice in the
transposition, then once each in a row walk, a column walk and the allocation): cost
O(nnz + (rounds + stale entries) log R). Memory, not arithmetic, sets the pace, so rows,
lists and heap levels are requested ahead (prefetch). Threads: the transposition is split
over them; the event loop runs on one (a round takes microseconds and needs the last
one's state) while a second takes the page faults of a new output (touch_pages), and the
allocation is written after it, on every thread (write_allocation). Determinism: the
split changes neither scales, transposition nor allocation, the initial mu is summed in
fixed block order and the loop is serial, so the result is the same bits for any thread
count. Measurements and what was tried: docs/edrf-event-history.md.
"""
import threading

import numpy as np

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport INFINITY
from libc.stdint cimport uint16_t, uint32_t, uint64_t
from libc.string cimport memset
from _common cimport (floating, int32_t, int64_t, uint8_t, now, ROUNDING_SLACK,
                      prefetch_span, row_scale, write_allocation)
from _platform cimport LINE, load_acquire, prefetch, prefetch_write, store_release
from _heap cimport Entry, Heap, HEAP_EXTRA, heap_build, heap_init, pop, push, sift_down

cdef enum:
    PHASES = 5             # entries written to the optional `phases` array
    BLOCKS = 16            # fixed tenant blocks of the transposition and initial mu
    BLOCK_TENANTS = 65536  # at most this many tenants per block: 16-bit relative ids
    PREFETCH_AHEAD = 8     # leaving tenants' rows are requested this many rows ahead
    SCATTER_AHEAD = 128    # the transposition's stores are requested this many ahead


cdef struct Progress:
    # Set by the event loop when it ends, read by touch_pages: a cache line of its own.
    long long ended
    char pad[LINE - 8]


cdef struct Resource:
    # 16 bytes: a row walk updates one line per resource, and at paper scale the
    # state (1.6 MB) nearly fits a core's L2.
    double unreached       # 1 - sum over departed tenants of rho_i d_ir z_i
    double mu              # summed rho_i d_ir of the active tenants demanding r


cdef struct Events:
    # What the event loop reads and writes, besides the demands (all IN/OUT pointers).
    Resource* state
    const double* scale
    const int64_t* segment     # resource r's tenants in block b: first[b] +
    const uint16_t* tlist      #   tlist[segment[b * R + r]:segment[b * R + r + 1]]
    const Py_ssize_t* first    # first[b]: the first tenant of block b (blocks + 1 entries)
    Py_ssize_t blocks
    uint64_t* active           # tenant i still in S_t: bit i (is_active)
    uint8_t* done              # resource exhausted
    int32_t* exhausted         # this round's exhausted resources
    Entry* candidates          # this round's popped threshold-heap entries
    int32_t* leaving           # this round's leaving tenants, in order
    Progress* progress
    double* level
    Heap zero                  # used only when epsilon > 0
    Heap thresh
    bint two_heaps
    double threshold           # epsilon + ROUNDING_SLACK
    Py_ssize_t n_tenants
    Py_ssize_t n_resources
    long long n_active
    long long rounds           # OUT: rounds run
    bint timed_out             # OUT: stopped by max_rounds or the deadline
    double loop_end            # OUT: now() when the loop ended


cdef inline bint is_active(const uint64_t* active, Py_ssize_t i) noexcept nogil:
    """Tenant i is still in S_t. One bit a tenant: the collection's random look-ups stay
    in the L1 or L2 cache (125 KB at 1M tenants)."""
    return (active[i >> 6] >> (i & 63)) & 1


cdef inline void deactivate(uint64_t* active, Py_ssize_t i) noexcept nogil:
    """Tenant i leaves S_t."""
    active[i >> 6] = active[i >> 6] & ~((<uint64_t>1) << (i & 63))


cdef inline double level_at(const Resource* s, double value) noexcept nogil:
    """The level at which r's residual unreached - mu * y falls to `value`: a lower bound
    of every later answer, since mu only falls. Infinite once mu has reached 0 (by
    rounding, when no active tenant demands r any more)."""
    if s.mu <= 0.0:
        return INFINITY
    return (s.unreached - value) / s.mu


cdef inline float residue_of(double mu) noexcept nogil:
    """A heap entry's payload, its residue: a millionth of the resource's initial mu,
    `mu`; a mu at most this may be all that rounding left of a resource no active
    tenant demands. Subtracting every rate from mu leaves about (tenants on the list)
    * 1e-16 * mu of rounding, far below; a live resource whose mu has fallen this low
    costs one walk of its list when it comes out least (fresh_top)."""
    return <float>(mu * 1e-6)


cdef bint demanded(const Events* ev, int32_t q) noexcept nogil:
    """Whether an active tenant demands resource q (a walk of q's list)."""
    cdef Py_ssize_t b
    cdef int64_t p
    for b in range(ev.blocks):
        for p in range(ev.segment[b * ev.n_resources + q],
                       ev.segment[b * ev.n_resources + q + 1]):
            if is_active(ev.active, ev.first[b] + ev.tlist[p]):
                return True
    return False


cdef inline bint fresh_top(Heap* h, const Events* ev, double value) noexcept nogil:
    """Bring an up-to-date entry of a live resource to h's top (False when there is
    none): an entry whose key has grown sinks. A resource no active tenant demands any
    more has mu = 0 up to rounding, so its key turns infinite or huge and it sinks out
    of the way, never to come up while live resources remain; should it come out least
    all the same (mu at most the entry's residue), its list is checked and it is
    dropped."""
    cdef const Resource* s
    cdef double key
    while h.size > 0:
        s = &ev.state[h.entry[0].item]
        key = level_at(s, value)
        if key > h.entry[0].key:
            h.entry[0].key = key
            sift_down(h, 0)
        elif s.mu <= h.entry[0].payload and not demanded(ev, h.entry[0].item):
            pop(h)
        else:
            h.entry[0].key = key
            return True
    return False


cdef inline void prefetch_row(const floating* data, const int32_t* cols, const int64_t* ptr,
                              int32_t i) noexcept nogil:
    """Request every cache line of tenant i's row (values and column indices)."""
    prefetch_span(&data[ptr[i]], &data[ptr[i + 1]])
    prefetch_span(&cols[ptr[i]], &cols[ptr[i + 1]])


cdef inline Py_ssize_t first_tenant(Py_ssize_t b, Py_ssize_t n_tenants,
                                     Py_ssize_t blocks) noexcept nogil:
    """The first tenant of fixed block b (of `blocks`)."""
    return <Py_ssize_t>(<int64_t>b * n_tenants // blocks)


cdef inline Py_ssize_t block_count(Py_ssize_t n_tenants) noexcept nogil:
    """BLOCKS, or more when needed to keep every block within BLOCK_TENANTS tenants
    (their ids relative to the block fit 16 bits). Depends on n_tenants only."""
    return max(<Py_ssize_t>BLOCKS, (n_tenants + BLOCK_TENANTS - 1) // BLOCK_TENANTS)


cdef inline void apply_leavers(const floating* D, const int32_t* cols, const int64_t* ptr,
                               const double* scale, Resource* state, const int32_t* leaving,
                               Py_ssize_t n_leaving, double y) noexcept nogil:
    """Line 17 for the tenants leaving[0:n_leaving] at level y, in order: for every
    resource r a leaver demands, unreached -= rate * y and mu -= rate. Each row's cache
    lines are requested PREFETCH_AHEAD rows ahead (about 4x faster than waiting for
    each line)."""
    cdef Py_ssize_t j
    cdef int64_t k
    cdef int32_t i
    cdef double f, rate
    cdef Resource* s
    for j in range(min(n_leaving, <Py_ssize_t>PREFETCH_AHEAD)):
        prefetch_row(D, cols, ptr, leaving[j])
    for j in range(n_leaving):
        if j + PREFETCH_AHEAD < n_leaving:
            prefetch_row(D, cols, ptr, leaving[j + PREFETCH_AHEAD])
        i = leaving[j]
        f = scale[i]
        for k in range(ptr[i], ptr[i + 1]):
            s = &state[cols[k]]
            rate = D[k] * f
            s.unreached = s.unreached - rate * y
            s.mu = s.mu - rate


cdef void run_rounds(const floating* D, const int32_t* cols, const int64_t* ptr,
                     Events* ev, double t_start, double deadline,
                     long long max_rounds) noexcept nogil:
    """The rounds, until no tenant is active or a stop. Writes ev.level (z per tenant),
    ev.rounds and ev.timed_out, and sets ev.progress.ended once it ends. One round:
      1. y_t, the least zero key (line 13), and the candidates: every live resource
         whose threshold key is <= y_t, popped from the threshold heap.
      2. A candidate whose residual at y_t is <= epsilon + ROUNDING_SLACK is exhausted
         (line 16); the others (below y_t by rounding only) go back into the heap. The
         resource that set y_t is exhausted in any case: its residual is 0 up to
         rounding, and so every round exhausts a resource and the loop ends.
      3. The still-active tenants of the exhausted resources leave with z_i = y_t (line
         18) and their rows are walked once to update state (line 17).
      4. Lines 19-21: stop on max_rounds or the deadline, freezing the active tenants.
    One heap (epsilon = 0): the two keys differ by only ROUNDING_SLACK / mu_r, so pop
    the threshold heap's fresh entries in order while their threshold key is <= the
    least zero key seen so far; every resource whose zero key could be the minimum has a
    threshold key below it, so the popped set holds the minimum and every candidate.
    A function of its own so that its pointers are locals: the caller's variables are
    shared with OpenMP regions (their address is taken) and extensions are built with
    -fno-strict-aliasing, so they would be reloaded after every store."""
    cdef Resource* state = ev.state
    cdef Resource* s
    cdef const double* scale = ev.scale
    cdef const int64_t* segment = ev.segment
    cdef const uint16_t* tlist = ev.tlist
    cdef const Py_ssize_t* first = ev.first
    cdef Py_ssize_t blocks = ev.blocks, R = ev.n_resources
    cdef uint64_t* active = ev.active
    cdef uint8_t* done = ev.done
    cdef int32_t* exhausted = ev.exhausted
    cdef Entry* candidates = ev.candidates
    cdef int32_t* leaving = ev.leaving
    cdef double* level = ev.level
    cdef Heap* zero = &ev.zero
    cdef Heap* thresh = &ev.thresh
    cdef bint two_heaps = ev.two_heaps
    cdef double threshold = ev.threshold
    cdef long long n_active = ev.n_active, rounds = 0
    cdef Py_ssize_t i, j, b, base, n_candidates, n_exhausted, n_leaving
    cdef int64_t p
    cdef int32_t q, top
    cdef double y, key

    while n_active > 0:
        # Line 13: y = the least zero key; candidates = threshold keys <= y.
        top = -1
        y = INFINITY
        if two_heaps:
            if not fresh_top(zero, ev, 0.0):
                break     # unreachable: an active tenant's resources are live
            top = zero.entry[0].item
            y = zero.entry[0].key
        n_candidates = 0
        while fresh_top(thresh, ev, threshold) and thresh.entry[0].key <= y:
            candidates[n_candidates] = thresh.entry[0]
            n_candidates = n_candidates + 1
            q = thresh.entry[0].item
            pop(thresh)
            if not two_heaps:
                key = level_at(&state[q], 0.0)
                if top < 0 or key < y:
                    y = key
                    top = q
        if top < 0:
            break         # unreachable, as above
        # Line 16: exhausted = candidates with residual <= epsilon at y, and top.
        n_exhausted = 0
        for j in range(n_candidates):
            q = candidates[j].item
            s = &state[q]
            if q == top or s.unreached - s.mu * y <= threshold:
                done[q] = 1
                exhausted[n_exhausted] = q
                n_exhausted = n_exhausted + 1
            else:         # below y by rounding only, or popped (one heap) before
                push(thresh, candidates[j])   # y was known: back for later rounds
        if not done[top]:
            done[top] = 1
            exhausted[n_exhausted] = top
            n_exhausted = n_exhausted + 1
        # Line 18: the active tenants of the exhausted resources leave at y.
        rounds = rounds + 1
        for j in range(n_exhausted):     # each block's segment of each exhausted
            for b in range(blocks):      # resource lies apart: request them all
                prefetch(&segment[b * R + exhausted[j]])
        for j in range(n_exhausted):
            for b in range(blocks):
                prefetch_span(&tlist[segment[b * R + exhausted[j]]],
                              &tlist[segment[b * R + exhausted[j] + 1]])
        n_leaving = 0
        for j in range(n_exhausted):
            q = exhausted[j]
            for b in range(blocks):
                base = first[b]
                for p in range(segment[b * R + q], segment[b * R + q + 1]):
                    i = base + tlist[p]
                    if is_active(active, i):
                        deactivate(active, i)
                        level[i] = y
                        leaving[n_leaving] = <int32_t>i
                        n_leaving = n_leaving + 1
                        prefetch(&ptr[i])
                        prefetch(&scale[i])
        n_active = n_active - n_leaving
        # The resource atop the heap is likely exhausted next: request its segments.
        if thresh.size > 0:
            for b in range(blocks):
                prefetch(&segment[b * R + thresh.entry[0].item])
        apply_leavers(D, cols, ptr, scale, state, leaving, n_leaving, y)     # line 17
        if n_active > 0 and (rounds >= max_rounds or
                             (deadline < INFINITY and now() - t_start > deadline)):
            ev.timed_out = True
            break
    if n_active > 0:    # lines 19-21: a stop freezes the active tenants at y_t
        for i in range(ev.n_tenants):
            if is_active(active, i):
                level[i] = y if ev.timed_out else 0.0    # (0: unreachable breaks)
    ev.n_active = n_active
    ev.rounds = rounds
    ev.loop_end = now()
    store_release(&ev.progress.ended, 1)


cdef void touch_pages(floating* allocation, Py_ssize_t nnz,
                      const Progress* progress) noexcept nogil:
    """Beside the event loop, until it ends: a store into each 4 KiB page of the
    allocation (OUT, all of it written again afterwards by write_allocation), so that a
    new output's page faults (4 KiB pages: dcdrf.demands.output_array) are taken while
    the loop runs. The allocation used to be written whole beside the loop, each
    leaver's row once its level was final; its reads and writes slowed the loop, which
    runs at the pace of its own cache misses (docs/edrf-event-history.md)."""
    cdef Py_ssize_t k = 0, pages = 0, step = 4096 // sizeof(floating)
    while k < nnz:
        if pages % 64 == 0 and load_acquire(&progress.ended):
            break
        allocation[k] = 0
        k = k + step
        pages = pages + 1


cdef void event_thread(const floating* D, const int32_t* cols, const int64_t* ptr,
                       Events* ev, double t_start, double deadline, long long max_rounds,
                       floating* allocation, int tid) noexcept nogil:
    """Thread 0 runs the event loop, thread 1 (if the team has one) takes the
    allocation's page faults beside it."""
    if tid == 0:
        run_rounds(D, cols, ptr, ev, t_start, deadline, max_rounds)
    elif tid == 1:
        touch_pages(allocation, ptr[ev.n_tenants], ev.progress)


cdef void tally_block(const floating* data, const int32_t* indices,
                      const int64_t* indptr, const double* weights, Py_ssize_t i_begin,
                      Py_ssize_t i_end, Py_ssize_t R, double* scale, double* level,
                      double* partial_mu, uint32_t* tally) noexcept nogil:
    """Tenants [i_begin, i_end): scale[i] = row_scale(..., i) (OUT) and level[i] = 0
    (OUT), and per resource the block's partial mu and tenant count (OUT:
    partial_mu[0:R], tally[0:R], zeroed here, by the thread that fills them)."""
    cdef Py_ssize_t i
    cdef int64_t k
    cdef double f
    memset(partial_mu, 0, R * sizeof(double))
    memset(tally, 0, R * sizeof(uint32_t))
    for i in range(i_begin, i_end):
        f = row_scale(data, indptr, weights, i)
        scale[i] = f
        level[i] = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            tally[indices[k]] += 1
            partial_mu[indices[k]] += data[k] * f


cdef void scatter_block(const int32_t* indices, const int64_t* indptr,
                        Py_ssize_t i_begin, Py_ssize_t i_end, uint32_t* cursor,
                        uint16_t* tenants) noexcept nogil:
    """Tenants [i_begin, i_end) into their resources' lists, as ids relative to
    i_begin, at tenants[cursor[r]] (cursors relative to the block's region, 4 bytes
    each so that they stay in the L1 or L2 cache).
    The stores go to as many places as there are resources, too many for the L1 cache;
    each destination is requested (for writing) SCATTER_AHEAD non-zeros in advance,
    which about halves the time of this pass."""
    cdef Py_ssize_t i
    cdef int64_t k, last = indptr[i_end]
    cdef uint32_t* c
    for i in range(i_begin, i_end):
        for k in range(indptr[i], indptr[i + 1]):
            if k + SCATTER_AHEAD < last:
                prefetch_write(&tenants[cursor[indices[k + SCATTER_AHEAD]]])
            c = &cursor[indices[k]]
            tenants[c[0]] = <uint16_t>(i - i_begin)
            c[0] = c[0] + 1


cdef void transpose_block(const floating* data, const int32_t* indices,
                          const int64_t* indptr, const double* weights, Py_ssize_t i_begin,
                          Py_ssize_t i_end, Py_ssize_t R, double* scale, double* level,
                          double* partial_mu, uint32_t* tally, int64_t* segment,
                          uint16_t* tenants) noexcept nogil:
    """One block of the transposition, whole: tally_block, then the place of the
    block's segment of each resource's list (OUT: segment[0:R]; the block's lists lie
    together, resources in order, where its tenants' non-zeros lie in the CSR arrays,
    so no other block is needed and the scatter writes one contiguous region, not a
    line in every resource's stretch), then scatter_block while the block's column
    indices are still in cache. The tally's counts become the cursors, relative to the
    block's first non-zero (less than 2**32 of them: checked by run_edrf_event)."""
    cdef Py_ssize_t r
    cdef int64_t start = indptr[i_begin]
    cdef uint32_t total = 0
    tally_block(data, indices, indptr, weights, i_begin, i_end, R, scale, level, partial_mu,
                tally)
    for r in range(R):
        segment[r] = start + total
        tally[r], total = total, total + tally[r]
    scatter_block(indices, indptr, i_begin, i_end, tally, tenants + start)


cdef long long mark_active(const double* scale, Py_ssize_t n_tenants,
                           uint64_t* active) noexcept nogil:
    """active (OUT): bit i set for every tenant with scale[i] > 0 (not an all-zero row or
    weight). Returns their number."""
    cdef Py_ssize_t w, i
    cdef uint64_t word
    cdef long long n_active = 0
    cdef bint live
    for w in range((n_tenants + 63) // 64):
        word = 0
        for i in range(64 * w, min(64 * w + 64, n_tenants)):
            live = scale[i] > 0.0
            word = word | ((<uint64_t>live) << (i - 64 * w))
            n_active = n_active + live
        active[w] = word
    return n_active


cdef void sum_blocks(const double* partial_mu, const int64_t* segment, Py_ssize_t R,
                     Py_ssize_t blocks, Resource* state, uint8_t* done,
                     int32_t* count) noexcept nogil:
    """After the transposition: per resource r, mu summed over the blocks' partial sums
    in block order (state[r]; r is not done), and the length of its list (count[r]).
    One serial pass: O(R * blocks) is small, and a parallel region costs a time slice
    when the other core is busy."""
    cdef Py_ssize_t b, r
    for r in range(R):
        state[r].unreached = 1.0
        state[r].mu = 0.0
        done[r] = 0
        count[r] = 0
    for b in range(blocks):
        for r in range(R):
            state[r].mu = state[r].mu + partial_mu[b * R + r]
            count[r] = count[r] + <int32_t>(segment[b * R + r + 1] - segment[b * R + r])


cdef void build_heaps(Events* ev, const int32_t* count, Py_ssize_t R) noexcept nogil:
    """Every resource some tenant demands (count: each list's length), keyed by its
    level of exhaustion."""
    cdef Py_ssize_t r
    ev.zero.size = 0      # (ev.zero has no space unless two_heaps)
    ev.thresh.size = 0
    for r in range(R):
        if count[r] > 0:
            if ev.two_heaps:
                ev.zero.entry[ev.zero.size].key = level_at(&ev.state[r], 0.0)
                ev.zero.entry[ev.zero.size].item = <int32_t>r
                ev.zero.entry[ev.zero.size].payload = residue_of(ev.state[r].mu)
                ev.zero.size = ev.zero.size + 1
            ev.thresh.entry[ev.thresh.size].key = level_at(&ev.state[r], ev.threshold)
            ev.thresh.entry[ev.thresh.size].item = <int32_t>r
            ev.thresh.entry[ev.thresh.size].payload = residue_of(ev.state[r].mu)
            ev.thresh.size = ev.thresh.size + 1
    heap_build(&ev.thresh)
    if ev.two_heaps:
        heap_build(&ev.zero)


# Scratch buffers kept between calls (see scratch), and the lock of the call using them.
_WORKSPACE = {}
_WORKSPACE_LOCK = threading.Lock()


def scratch(dict workspace, str name, Py_ssize_t count, dtype):
    """`count` items of `dtype`, LINE-aligned, uninitialized, from workspace[name], a
    byte buffer replaced by a larger one when too small and otherwise kept.

    The module's workspace keeps edrf_event's scratch (about 60 MB at 1M x 100K) from
    one call to the next: memory new to the process costs a page fault per page at
    first touch (on a virtual machine, several microseconds each), which the scratch
    would otherwise pay on every call whose outputs the caller keeps."""
    cdef Py_ssize_t nbytes = count * np.dtype(dtype).itemsize
    buffer = workspace.get(name)
    if buffer is None or buffer.shape[0] < nbytes + LINE:
        buffer = workspace[name] = np.empty(nbytes + LINE, dtype=np.uint8)
    cdef Py_ssize_t offset = (-buffer.ctypes.data) % LINE
    return buffer[offset:offset + nbytes].view(dtype)


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
    each phase (transposition, sums, heaps, events, allocation), for profiling.
    The scratch buffers are the module's workspace, kept between calls, or new ones
    for a call made while another uses it (from another Python thread).
    """
    cdef double t_start = now()
    if indptr.shape[0] <= 1:
        return 0, False, now() - t_start
    workspace = _WORKSPACE if _WORKSPACE_LOCK.acquire(blocking=False) else {}
    try:
        return run_edrf_event(data, indices, indptr, n_resources, weights, epsilon,
                              deadline, max_rounds, n_threads, allocation, level, phases,
                              workspace, t_start)
    finally:
        if workspace is _WORKSPACE:
            _WORKSPACE_LOCK.release()


cdef tuple run_edrf_event(const floating[::1] data, const int32_t[::1] indices,
                          const int64_t[::1] indptr, Py_ssize_t n_resources,
                          const double[::1] weights, double epsilon, double deadline,
                          long long max_rounds, int n_threads, floating[::1] allocation,
                          double[::1] level, double[::1] phases, dict workspace,
                          double t_start):
    """edrf_event for n_tenants > 0, with its scratch buffers from `workspace`."""
    cdef Py_ssize_t n_tenants = indptr.shape[0] - 1
    cdef Py_ssize_t R = n_resources, nnz = data.shape[0]
    cdef Py_ssize_t blocks = block_count(n_tenants)
    cdef Py_ssize_t R1 = R if R > 0 else 1
    cdef Py_ssize_t b, j
    cdef long long n_active = 0
    cdef double stamp[PHASES]
    cdef Events ev
    cdef double[::1] scale = scratch(workspace, "scale", n_tenants, np.float64)
    cdef int64_t[::1] segment = scratch(workspace, "segment", R * blocks + 1, np.int64)
    cdef Py_ssize_t[::1] first = scratch(workspace, "first", blocks + 1, np.intp)
    cdef uint64_t[::1] active = scratch(workspace, "active", (n_tenants + 63) // 64, np.uint64)
    cdef uint8_t[::1] done = scratch(workspace, "done", R1, np.uint8)
    cdef int32_t[::1] count = scratch(workspace, "count", R1, np.int32)
    cdef int32_t[::1] leaving = scratch(workspace, "leaving", n_tenants, np.int32)
    cdef uint16_t[::1] tenant_lists = scratch(workspace, "tenant lists", nnz, np.uint16)
    cdef uint8_t[::1] progress_bytes = scratch(workspace, "progress", sizeof(Progress),
                                               np.uint8)
    cdef int32_t[::1] exhausted = scratch(workspace, "exhausted", R1, np.int32)
    cdef double[::1] partial_mu = scratch(workspace, "partial mu", blocks * R1, np.float64)
    cdef uint32_t[::1] tally = scratch(workspace, "tally", blocks * R1, np.uint32)
    cdef uint8_t[::1] state_bytes = scratch(workspace, "state", R1 * sizeof(Resource),
                                            np.uint8)
    cdef uint8_t[::1] candidate_bytes = scratch(workspace, "candidates",
                                                R1 * sizeof(Entry), np.uint8)
    cdef uint8_t[::1] zero_bytes = scratch(workspace, "zero heap",
                                           (R1 + HEAP_EXTRA) * sizeof(Entry) * (epsilon > 0.0),
                                           np.uint8)
    cdef uint8_t[::1] thresh_bytes = scratch(workspace, "threshold heap",
                                             (R1 + HEAP_EXTRA) * sizeof(Entry), np.uint8)
    cdef const floating* D = &data[0] if nnz else NULL
    cdef const int32_t* cols = &indices[0] if nnz else NULL
    cdef const int64_t* ptr = &indptr[0]
    # The transposition: one 16-bit tenant id per non-zero.
    cdef uint16_t* tlist = &tenant_lists[0] if nnz else NULL
    cdef floating* A = &allocation[0] if nnz else NULL

    cdef Resource* state = <Resource*>&state_bytes[0]
    heap_init(&ev.thresh, <Entry*>&thresh_bytes[0])
    heap_init(&ev.zero, <Entry*>&zero_bytes[0] if epsilon > 0.0 else NULL)
    ev.exhausted = &exhausted[0]
    ev.candidates = <Entry*>&candidate_bytes[0]
    for b in range(blocks + 1):
        first[b] = first_tenant(b, n_tenants, blocks)
    for b in range(blocks):       # the transposition's 4-byte cursors (transpose_block)
        if indptr[first[b + 1]] - indptr[first[b]] >= (<int64_t>1) << 32:
            raise ValueError(f"edrf-event: tenants {first[b]}..{first[b + 1] - 1} demand "
                             f"2**32 or more (tenant, resource) pairs; at most "
                             f"{BLOCK_TENANTS} tenants at a time may")
    with nogil:
        # Transposition: scales, partial mu and each block's lists, block by block;
        # tenants end up ascending within each resource's list whatever the thread count.
        segment[blocks * R] = nnz
        for b in prange(blocks, schedule='dynamic', num_threads=n_threads):
            transpose_block(D, cols, ptr, &weights[0], first[b], first[b + 1], R, &scale[0],
                            &level[0], &partial_mu[b * R], &tally[b * R], &segment[b * R],
                            tlist)
        stamp[0] = now()
        sum_blocks(&partial_mu[0], &segment[0], R, blocks, state, &done[0], &count[0])
        n_active = mark_active(&scale[0], n_tenants, &active[0])
        stamp[1] = now()

        ev.state = state
        ev.scale = &scale[0]
        ev.segment = &segment[0]
        ev.tlist = tlist
        ev.first = &first[0]
        ev.blocks = blocks
        ev.active = &active[0]
        ev.done = &done[0]
        ev.leaving = &leaving[0]
        ev.progress = <Progress*>&progress_bytes[0]
        memset(ev.progress, 0, sizeof(Progress))
        ev.level = &level[0]
        ev.two_heaps = epsilon > 0.0
        ev.threshold = epsilon + ROUNDING_SLACK
        ev.n_tenants = n_tenants
        ev.n_resources = R
        ev.n_active = n_active
        ev.rounds = 0
        ev.timed_out = False
        build_heaps(&ev, &count[0], R)
        stamp[2] = now()
        with parallel(num_threads=min(n_threads, 2)):    # the loop and touch_pages
            event_thread(D, cols, ptr, &ev, t_start, deadline, max_rounds, A, threadid())
        stamp[3] = ev.loop_end
        write_allocation(D, ptr, &scale[0], &level[0], n_tenants, A, n_threads)
        stamp[4] = now()
    if phases is not None:
        for j in range(min(PHASES, phases.shape[0])):
            phases[j] = stamp[j] - t_start
    return ev.rounds, bool(ev.timed_out), now() - t_start
