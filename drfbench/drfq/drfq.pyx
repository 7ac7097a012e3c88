"""The DRFQ middlebox simulator (drfbench.drfq): a pipeline of resources, per-flow queues,
backlogged, open-loop and TCP-like sources, and the schedulers drfq (memoryless DRFQ),
drfq-dovetail, fq, bottleneck and fifo, in one event loop without the GIL.

drfbench/drfq/literal.py is the same simulator written literally: the specification (its
docstring states the model, the virtual times and every choice made where the paper is
silent), against which this kernel is tested decision by decision. It scans every flow per
decision and every packet in the middlebox for the virtual time; here:

  flows' queues  one pool of slots, flow i's ring at qoff[i] .. qoff[i] + qcap[i] - 1
                 (one slot for a backlogged flow, `buffer` otherwise), holding each
                 queued packet's index k and its start and finish tags (D each)
  scheduler      a 4-ary min-heap of (key, flow) entries, one per flow with a packet
                 waiting, ordered by key then flow: the literal's min((key, i)) over the
                 queues. Only its top ever changes (the dispatched flow's key grows, or
                 it leaves; a flow whose queue was empty joins), so it needs no positions
                 (_heap.pxd's indexed heap keeps them, and orders by key indirectly) nor
                 lazy deletion (its 4-ary heap breaks ties in any order); the entries
                 hold their keys' bits (keys are >= 0: the bits order them), compared
                 with the flow as one 128-bit integer; a node's 4 children fill one cache
                 line, and 4 infinite sentinels after the last entry spare the size
                 checks, as there; the top sinks bottom-up (sift_down)
  arrivals       the same heap of the open-loop flows by (next arrival, flow)
  middlebox      the packets dispatched and not departed, in dispatch order (the pipeline
                 is FIFO), a ring of at least m + (m - 1) x stage_buffer places (a power
                 of two): a packet's place is its dispatch number modulo that; stage
                 buffer j is the run of scount[j] numbers from sfirst[j]
  virtual time   per tag dimension, a monotone deque of the start tags in the middlebox
                 (the sliding window's maximum: a newer, larger tag retires the older,
                 smaller ones), whose front is the literal's max over the middlebox
  timers         TCP's acknowledgements and loss notices, a FIFO: one rtt for every
                 flow, so they fall due in the order they were made (grown with realloc)

The pipeline advances in the literal's passes, less the last pass of an instant when it
cannot move anything: a pass that put no packet in front of an idle resource already
visited, and began no packet of cost 0, leaves nothing for another.

Floating point follows the literal operation by operation (no build fuses a product into a
later sum: drfbench/_variants.py's -ffp-contract=off).
"""
import numpy as np

from libc.math cimport INFINITY, log
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memmove
from libc.stdint cimport INT64_MAX, int8_t, uint64_t, uintptr_t
from _common cimport int64_t, int32_t
from _platform cimport LINE

cdef enum:
    DRFQ = 0               # the order of drfbench.drfq.model.METHODS
    DOVETAIL = 1
    FQ = 2
    BOTTLENECK = 3
    FIFO = 4
    BACKLOGGED = 0         # the order of SOURCES
    CONSTANT = 1
    POISSON = 2
    TCP = 3
    IDLE = 0               # a resource's state; DONE: finished, held
    SERVING = 1
    DONE = 2
    ACK = 0
    LOSS = 1
    HEAP_EXTRA = 8         # a heap's entries besides its capacity (line offset, sentinels)

cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL
cdef double UNIT = 1.0 / 4503599627370496.0      # 2^-52


cdef inline uint64_t mix(uint64_t x) noexcept nogil:
    """SplitMix64's finalizer (model.mix)."""
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef inline double uniform(uint64_t seed, uint64_t stream, uint64_t flow, uint64_t k) noexcept nogil:
    """model.uniform: a number in (0, 1) hashed from four integers."""
    cdef uint64_t h = mix(seed + GOLDEN * (stream + 1))
    h = mix(h + GOLDEN * (flow + 1))
    h = mix(h + GOLDEN * (k + 1))
    return (<double>(h >> 12) + 0.5) * UNIT


cdef struct Item:
    uint64_t key                # the key's bits: ordered as the keys, which are >= 0
    int64_t flow


cdef struct Heap:
    Item* item
    Py_ssize_t size


cdef inline uint64_t bits(double x) noexcept nogil:
    """The bits of x: for x >= 0 (never -0.0: every key is a sum or quotient of
    non-negative numbers starting from +0.0), in the order of the values."""
    cdef uint64_t b
    memcpy(&b, &x, sizeof(double))
    return b


cdef inline double value(uint64_t b) noexcept nogil:
    cdef double x
    memcpy(&x, &b, sizeof(double))
    return x


cdef extern from *:
    """
    /* (key bits, flow) pairs in lexicographic order: one 128-bit comparison (two
       instructions on x86-64 and aarch64), else two 64-bit ones. */
    static inline int drfq_before(unsigned long long ka, unsigned long long fa,
                                  unsigned long long kb, unsigned long long fb) {
    #ifdef __SIZEOF_INT128__
        return (((unsigned __int128)ka << 64) | fa) < (((unsigned __int128)kb << 64) | fb);
    #else
        return (ka < kb) | ((ka == kb) & (fa < fb));
    #endif
    }
    """
    bint pair_before "drfq_before" (uint64_t ka, uint64_t fa, uint64_t kb, uint64_t fb) noexcept nogil


cdef inline bint before(const Item* a, const Item* b) noexcept nogil:
    """a comes first: a smaller key, or an equal key and a lower flow (flows are >= 0)."""
    return pair_before(a.key, <uint64_t>a.flow, b.key, <uint64_t>b.flow)


cdef inline void heap_seal(Item* e) noexcept nogil:
    e.key = bits(INFINITY)
    e.flow = INT64_MAX


cdef inline void sift_down(Heap* h, Item moving) noexcept nogil:
    """Put `moving` in the top's place and restore the order, bottom-up (Floyd's): the
    hole at the top goes down along the smaller children to a leaf, then `moving` goes
    up from there. A new key here is the dispatched flow's grown one, or the last
    entry's: it belongs near the bottom, so this saves the comparison with it on the way
    down (the order is total, so the top is the same whatever the layout)."""
    cdef Item* e = h.item
    cdef Py_ssize_t pos = 0, child, a, b
    while True:
        child = 4 * pos + 1
        if child >= h.size:
            break
        a = child + before(&e[child + 1], &e[child])
        b = child + 2 + before(&e[child + 3], &e[child + 2])
        child = b if before(&e[b], &e[a]) else a
        e[pos] = e[child]
        pos = child
    while pos > 0:
        child = (pos - 1) // 4             # the parent
        if not before(&moving, &e[child]):
            break
        e[pos] = e[child]
        pos = child
    e[pos] = moving


cdef inline void heap_push(Heap* h, double key, int64_t flow) noexcept nogil:
    cdef Item moving
    cdef Py_ssize_t pos = h.size, parent
    moving.key = bits(key)
    moving.flow = flow
    h.size += 1
    heap_seal(&h.item[h.size + 3])
    while pos > 0:
        parent = (pos - 1) // 4
        if not before(&moving, &h.item[parent]):
            break
        h.item[pos] = h.item[parent]
        pos = parent
    h.item[pos] = moving


cdef inline void heap_pop(Heap* h) noexcept nogil:
    cdef Item last
    h.size -= 1
    last = h.item[h.size]
    heap_seal(&h.item[h.size])
    if h.size > 0:
        sift_down(h, last)


cdef inline void heap_retop(Heap* h, double key) noexcept nogil:
    """The top's key grew to `key`."""
    cdef Item top = h.item[0]
    top.key = bits(key)
    sift_down(h, top)


def _heap_space(Py_ssize_t capacity):
    """Room for a heap of `capacity` entries, all sentinels, and the offset (in entries)
    that puts entry 1 on a cache line's start."""
    space = np.zeros(2 * (capacity + HEAP_EXTRA))
    space[0::2] = np.inf                        # the bits of INFINITY
    space.view(np.int64)[1::2] = INT64_MAX
    cdef double[::1] v = space
    cdef uintptr_t at = <uintptr_t>&v[0]
    return space, ((LINE - (at + sizeof(Item)) % LINE) % LINE) // sizeof(Item)


cdef struct Sim:
    Py_ssize_t n, m, K, D, mask     # mask: the middlebox ring's places - 1
    int sched, dist, resource, bottleneck
    uint64_t seed
    double duration, interval, rtt
    int64_t stage_cap, bins, boundary
    const double* base          # (n, K, m) costs
    const double* w
    const int8_t* kind
    const double* rate
    # flows' queues and tags
    int64_t* qoff
    int64_t* qcap
    int64_t* qhead
    int64_t* qlen
    int64_t* slot_k
    double* slot_S              # (slots, D)
    double* slot_F
    double* last_finish         # (n, D)
    double* max_finish          # (D,)
    double enqueued
    Heap ready
    Heap arrivals
    # TCP
    double* cwnd
    double* ssthresh
    int64_t* outstanding
    int64_t* recover
    double* tm_time
    int64_t* tm_flow
    int64_t* tm_k
    int64_t* tm_kind
    Py_ssize_t tm_head, tm_len, tm_cap
    # the middlebox
    int64_t* rflow
    double* rcost               # (ring places, m)
    int64_t nd                  # packets dispatched so far: the next one's number
    int64_t* state
    int64_t* held
    double* start
    double* end
    double* since
    int64_t* sfirst
    int64_t* scount
    int64_t* dq_seq             # (D, ring places)
    double* dq_val
    int64_t* dq_head
    int64_t* dq_len
    double* used
    double* scratch             # (m,): one packet's costs
    # outputs
    int64_t* served
    int64_t* dispatched
    int64_t* arrived
    int64_t* dropped
    double* work                # (n, m)
    double* busy
    double* blocked
    int32_t* series             # (bins, n)
    int64_t* choices
    int64_t nchoices
    double* log_t
    int64_t* log_f
    int64_t log_cap, nlog
    bint failed                 # a realloc failed


cdef inline double packet_cost(const Sim* s, Py_ssize_t i, int64_t k, Py_ssize_t j) noexcept nogil:
    """Seconds packet k of flow i needs on resource j (Flows.packet_cost)."""
    cdef double base = s.base[(i * s.K + (k % s.K if s.K > 1 else 0)) * s.m + j]
    cdef double u
    if s.dist == 0:
        return base
    u = uniform(s.seed, 1 + j, i, k)
    return base * (0.5 + u if s.dist == 1 else -log(u))


cdef inline double virtual_time(const Sim* s, Py_ssize_t d) noexcept nogil:
    """V in tag dimension d: the deque's front, or the largest finish tag dispatched."""
    if s.dq_len[d] > 0:
        return s.dq_val[d * (s.mask + 1) + s.dq_head[d]]
    return s.max_finish[d]


cdef inline double slot_key(const Sim* s, int64_t slot) noexcept nogil:
    """A queued packet's key: its start tag, the largest of them (dovetailing), or FIFO's
    arrival number (kept in slot_S)."""
    cdef double k = s.slot_S[slot * s.D]
    cdef Py_ssize_t d
    for d in range(1, s.D):
        if s.slot_S[slot * s.D + d] > k:
            k = s.slot_S[slot * s.D + d]
    return k


cdef inline bint grow(void** array, size_t size) noexcept nogil:
    """realloc *array to `size` bytes; False, *array left as it was, if that fails."""
    cdef void* p = realloc(array[0], size)
    if p != NULL:
        array[0] = p
    return p != NULL


cdef void timer_push(Sim* s, double when, int kind, Py_ssize_t i, int64_t k) noexcept nogil:
    """Append a TCP event (when, kind, flow, k) to the FIFO, making room if needed."""
    cdef Py_ssize_t cap, at
    if s.tm_head + s.tm_len == s.tm_cap:
        if s.tm_head > 0:
            memmove(s.tm_time, s.tm_time + s.tm_head, s.tm_len * sizeof(double))
            memmove(s.tm_flow, s.tm_flow + s.tm_head, s.tm_len * sizeof(int64_t))
            memmove(s.tm_k, s.tm_k + s.tm_head, s.tm_len * sizeof(int64_t))
            memmove(s.tm_kind, s.tm_kind + s.tm_head, s.tm_len * sizeof(int64_t))
            s.tm_head = 0
        if s.tm_len == s.tm_cap:
            cap = 2 * s.tm_cap
            if not (grow(<void**>&s.tm_time, cap * sizeof(double))
                    and grow(<void**>&s.tm_flow, cap * sizeof(int64_t))
                    and grow(<void**>&s.tm_k, cap * sizeof(int64_t))
                    and grow(<void**>&s.tm_kind, cap * sizeof(int64_t))):
                s.failed = True
                return
            s.tm_cap = cap
    at = s.tm_head + s.tm_len
    s.tm_time[at] = when
    s.tm_kind[at] = kind
    s.tm_flow[at] = i
    s.tm_k[at] = k
    s.tm_len += 1


cdef bint arrive(Sim* s, Py_ssize_t i, double t) noexcept nogil:
    """Middlebox.arrive: packet arrived[i] of flow i, dropped or tagged and queued. True
    if it is its flow's new head (the caller puts the flow in the scheduler's heap)."""
    cdef int64_t k = s.arrived[i], slot
    cdef Py_ssize_t d, j
    cdef double S, F, c, x
    s.arrived[i] += 1
    if s.qlen[i] >= s.qcap[i]:
        s.dropped[i] += 1
        if s.kind[i] == TCP:
            timer_push(s, t + s.rtt, LOSS, i, k)
        return False
    slot = s.qhead[i] + s.qlen[i]
    if slot >= s.qcap[i]:
        slot -= s.qcap[i]
    slot += s.qoff[i]
    s.slot_k[slot] = k
    if s.sched == FIFO:
        s.slot_S[slot] = s.enqueued
    else:
        if s.sched == DRFQ:
            c = packet_cost(s, i, k, 0)
            for j in range(1, s.m):
                x = packet_cost(s, i, k, j)
                if x > c:
                    c = x
        elif s.sched == DOVETAIL:
            for j in range(s.m):
                s.scratch[j] = packet_cost(s, i, k, j)
        else:
            c = packet_cost(s, i, k, s.resource if s.sched == FQ else s.bottleneck)
        for d in range(s.D):
            S = virtual_time(s, d)
            if s.last_finish[i * s.D + d] > S:
                S = s.last_finish[i * s.D + d]
            if s.sched == DOVETAIL:
                c = s.scratch[d]
            F = S + c / s.w[i]
            s.slot_S[slot * s.D + d] = S
            s.slot_F[slot * s.D + d] = F
            s.last_finish[i * s.D + d] = F
    s.enqueued += 1
    s.qlen[i] += 1
    return s.qlen[i] == 1


cdef inline void enter(Sim* s, Py_ssize_t i, double t) noexcept nogil:
    """A source's packet arrives; a new head puts its flow in the scheduler's heap."""
    if arrive(s, i, t):
        heap_push(&s.ready, slot_key(s, s.qoff[i] + s.qhead[i]), i)


cdef void send(Sim* s, Py_ssize_t i, double t) noexcept nogil:
    """TCP: send while fewer than cwnd packets are outstanding."""
    while s.outstanding[i] + 1 <= s.cwnd[i]:
        s.outstanding[i] += 1
        enter(s, i, t)


cdef int64_t dispatch(Sim* s, double t) noexcept nogil:
    """Middlebox.dispatch: the head packet with the smallest key enters; its number."""
    cdef Py_ssize_t i = s.ready.item[0].flow, d, j, ring = s.mask + 1
    cdef int64_t slot = s.qoff[i] + s.qhead[i], seq = s.nd, r = s.nd & s.mask, back
    cdef int64_t k = s.slot_k[slot]
    cdef double S
    s.rflow[r] = i
    for j in range(s.m):
        s.rcost[r * s.m + j] = packet_cost(s, i, k, j)
    if s.sched != FIFO:
        for d in range(s.D):
            if s.slot_F[slot * s.D + d] > s.max_finish[d]:
                s.max_finish[d] = s.slot_F[slot * s.D + d]
            S = s.slot_S[slot * s.D + d]
            while s.dq_len[d] > 0:
                back = d * ring + ((s.dq_head[d] + s.dq_len[d] - 1) & s.mask)
                if s.dq_val[back] > S:
                    break
                s.dq_len[d] -= 1
            back = d * ring + ((s.dq_head[d] + s.dq_len[d]) & s.mask)
            s.dq_seq[back] = seq
            s.dq_val[back] = S
            s.dq_len[d] += 1
    s.nd += 1
    s.dispatched[i] += 1
    if s.nlog < s.log_cap:
        s.log_t[s.nlog] = t
        s.log_f[s.nlog] = i
    s.nlog += 1
    s.qhead[i] += 1
    if s.qhead[i] == s.qcap[i]:
        s.qhead[i] = 0
    s.qlen[i] -= 1
    if s.kind[i] == BACKLOGGED:
        arrive(s, i, t)
    if s.qlen[i] > 0:
        heap_retop(&s.ready, slot_key(s, s.qoff[i] + s.qhead[i]))
    else:
        heap_pop(&s.ready)
    return seq


cdef void redecide(Sim* s, double t) noexcept nogil:
    """Middlebox.redecide: the resource busiest since the last re-decision."""
    cdef Py_ssize_t j, b = 0
    cdef double used, delta, best = 0.0
    for j in range(s.m):
        used = s.busy[j] + (t - s.start[j] if s.state[j] == SERVING else 0.0)
        delta = used - s.used[j]
        if j == 0 or delta > best:
            best = delta
            b = j
        s.used[j] = used
    s.bottleneck = b
    s.choices[s.nchoices] = b
    s.nchoices += 1
    s.boundary += 1


cdef inline bint begin(Sim* s, Py_ssize_t j, int64_t seq, double t) noexcept nogil:
    """Resource j takes packet number seq at t; True if it is done with it at once."""
    cdef double c = s.rcost[(seq & s.mask) * s.m + j]
    s.held[j] = seq
    if c > 0:
        s.state[j] = SERVING
        s.start[j] = t
        s.end[j] = t + c
        return False
    s.state[j] = DONE
    s.since[j] = t
    return True


cdef inline void complete(Sim* s, Py_ssize_t j, double t) noexcept nogil:
    cdef int64_t r = s.held[j] & s.mask
    cdef double c = s.rcost[r * s.m + j]
    s.busy[j] += c
    s.work[s.rflow[r] * s.m + j] += c
    s.state[j] = DONE
    s.end[j] = INFINITY
    s.since[j] = t


cdef inline int64_t release(Sim* s, Py_ssize_t j, double t) noexcept nogil:
    s.blocked[j] += t - s.since[j]
    s.state[j] = IDLE
    return s.held[j]


cdef void depart(Sim* s, int64_t seq, double t) noexcept nogil:
    """The oldest packet in the middlebox leaves after the last resource."""
    cdef int64_t r = seq & s.mask, b
    cdef Py_ssize_t i = s.rflow[r], d
    s.served[i] += 1
    if s.bins:
        b = <int64_t>(t * s.bins / s.duration)
        s.series[(b if b < s.bins - 1 else s.bins - 1) * s.n + i] += 1
    if s.kind[i] == TCP:
        timer_push(s, t + s.rtt, ACK, i, 0)      # k: the lost packet's (LOSS only)
    for d in range(s.D):
        if s.dq_len[d] > 0 and s.dq_seq[d * (s.mask + 1) + s.dq_head[d]] == seq:
            s.dq_head[d] = (s.dq_head[d] + 1) & s.mask
            s.dq_len[d] -= 1


cdef void advance(Sim* s, double t) noexcept nogil:
    """Middlebox.advance: passes from the last resource to the first until one would
    move nothing (see the module docstring for the pass left out)."""
    cdef bint again = True
    cdef Py_ssize_t j
    cdef int64_t seq
    while again:
        again = False
        for j in range(s.m - 1, -1, -1):
            if s.state[j] == DONE:
                if j == s.m - 1:
                    depart(s, release(s, j, t), t)
                elif s.scount[j + 1] < s.stage_cap:
                    seq = release(s, j, t)
                    if s.scount[j + 1] == 0:
                        s.sfirst[j + 1] = seq
                    s.scount[j + 1] += 1
                    if s.state[j + 1] == IDLE:
                        again = True            # resource j + 1 was visited: next pass
            if s.state[j] == IDLE:
                if j > 0:
                    if s.scount[j] > 0:
                        seq = s.sfirst[j]
                        s.sfirst[j] += 1
                        s.scount[j] -= 1
                        again |= begin(s, j, seq, t)
                elif s.ready.size > 0:
                    again |= begin(s, 0, dispatch(s, t), t)


cdef void instant(Sim* s, double t) noexcept nogil:
    """Middlebox.instant: every event at t, in the literal's order, then the pipeline."""
    cdef Py_ssize_t j, i
    cdef int64_t k
    if s.sched == BOTTLENECK and s.boundary * s.interval == t:
        redecide(s, t)
    for j in range(s.m):
        if s.end[j] == t:
            complete(s, j, t)
    while s.tm_len > 0 and s.tm_time[s.tm_head] == t:
        i = s.tm_flow[s.tm_head]
        k = s.tm_k[s.tm_head]
        s.outstanding[i] -= 1
        if s.tm_kind[s.tm_head] == ACK:
            if s.cwnd[i] < s.ssthresh[i]:
                s.cwnd[i] += 1.0
            else:
                s.cwnd[i] += 1.0 / s.cwnd[i]
        elif k >= s.recover[i]:
            s.ssthresh[i] = s.cwnd[i] / 2.0 if s.cwnd[i] / 2.0 >= 2.0 else 2.0
            s.cwnd[i] = s.ssthresh[i]
            s.recover[i] = s.arrived[i]
        s.tm_head += 1
        s.tm_len -= 1
        send(s, i, t)
    while s.arrivals.size > 0 and value(s.arrivals.item[0].key) == t:
        i = s.arrivals.item[0].flow
        enter(s, i, t)
        k = s.arrived[i]
        if s.kind[i] == CONSTANT:
            heap_retop(&s.arrivals, k / s.rate[i])
        else:
            heap_retop(&s.arrivals, t + -log(uniform(s.seed, 0, i, k)) / s.rate[i])
    advance(s, t)


cdef void run_loop(Sim* s) noexcept nogil:
    """Middlebox.run: start the sources, then instant after instant until the duration."""
    cdef Py_ssize_t i, j
    cdef double t, T = s.duration
    for i in range(s.n):
        if s.kind[i] == BACKLOGGED:
            enter(s, i, 0.0)
        elif s.kind[i] == TCP:
            send(s, i, 0.0)
    instant(s, 0.0)
    while not s.failed:
        t = s.boundary * s.interval if s.sched == BOTTLENECK else INFINITY
        for j in range(s.m):
            if s.end[j] < t:
                t = s.end[j]
        if s.tm_len > 0 and s.tm_time[s.tm_head] < t:
            t = s.tm_time[s.tm_head]
        if s.arrivals.size > 0 and value(s.arrivals.item[0].key) < t:
            t = value(s.arrivals.item[0].key)
        if t >= T:
            break
        instant(s, t)
    for j in range(s.m):
        if s.state[j] == SERVING:
            s.busy[j] += T - s.start[j]
            s.work[s.rflow[s.held[j] & s.mask] * s.m + j] += T - s.start[j]
        elif s.state[j] == DONE:
            s.blocked[j] += T - s.since[j]


def simulate(const double[:, :, ::1] costs, const double[::1] weights, const int8_t[::1] kind,
             const double[::1] rates, uint64_t seed, int packet_costs, int scheduler,
             int resource, double duration, double interval, double rtt, int64_t buffer,
             int64_t stage_buffer, int64_t initial_window, int64_t[::1] served,
             int64_t[::1] dispatched, int64_t[::1] arrived, int64_t[::1] dropped,
             double[:, ::1] work, double[::1] busy, double[::1] blocked, int32_t[:, ::1] series,
             int64_t[::1] choices, double[::1] log_t, int64_t[::1] log_f):
    """One run (see drfbench.drfq.literal for the model): costs (n, K, m), weights, kind
    (indices into SOURCES), rates (NaN for none), seed, packet_costs and scheduler
    (indices into PACKET_COSTS and METHODS), the settings; the outputs, zeroed, are
    filled: served ... blocked as named, series (bins, n) departures per bin, choices the
    bottleneck's re-decisions (room for all), log_t and log_f the first len(log_t)
    dispatches. Returns (re-decisions made, dispatches made)."""
    cdef Sim s
    cdef Py_ssize_t n = costs.shape[0], m = costs.shape[2], i, slots, ring = 1
    while ring < m + (m - 1) * stage_buffer:
        ring *= 2
    s.n, s.m, s.K = n, m, costs.shape[1]
    s.D = m if scheduler == DOVETAIL else 1
    s.mask = ring - 1
    s.sched, s.dist, s.resource, s.bottleneck = scheduler, packet_costs, resource, resource
    s.seed, s.duration, s.interval, s.rtt = seed, duration, interval, rtt
    s.stage_cap, s.bins, s.boundary = stage_buffer, series.shape[0], 1
    s.base, s.w, s.kind, s.rate = &costs[0, 0, 0], &weights[0], &kind[0], &rates[0]

    qcap = np.where(np.asarray(kind) == BACKLOGGED, 1, buffer).astype(np.int64)
    qoff = np.cumsum(qcap) - qcap                  # each ring starts where the last ended
    slots = int(qcap.sum())
    ready_space, ready_at = _heap_space(n)
    arrival_space, arrival_at = _heap_space(n)
    arrays = dict(qhead=np.zeros(n, np.int64), qlen=np.zeros(n, np.int64),
                  slot_k=np.zeros(slots, np.int64), slot_S=np.zeros(slots * s.D),
                  slot_F=np.zeros(slots * s.D), last_finish=np.zeros(n * s.D),
                  max_finish=np.zeros(s.D), cwnd=np.full(n, float(initial_window)),
                  ssthresh=np.full(n, np.inf), outstanding=np.zeros(n, np.int64),
                  recover=np.zeros(n, np.int64), rflow=np.zeros(ring, np.int64),
                  rcost=np.zeros(ring * m),
                  state=np.zeros(m, np.int64), held=np.zeros(m, np.int64), start=np.zeros(m),
                  end=np.full(m, np.inf), since=np.zeros(m), sfirst=np.zeros(m, np.int64),
                  scount=np.zeros(m, np.int64), dq_seq=np.zeros(s.D * ring, np.int64),
                  dq_val=np.zeros(s.D * ring), dq_head=np.zeros(s.D, np.int64),
                  dq_len=np.zeros(s.D, np.int64), used=np.zeros(m), scratch=np.zeros(m))
    cdef int64_t[::1] qcap_v = qcap, qoff_v = qoff, qhead = arrays["qhead"], qlen = arrays["qlen"]
    cdef int64_t[::1] slot_k = arrays["slot_k"]
    cdef double[::1] slot_S = arrays["slot_S"], slot_F = arrays["slot_F"]
    cdef double[::1] last_finish = arrays["last_finish"], max_finish = arrays["max_finish"]
    cdef double[::1] ready_v = ready_space, arrival_v = arrival_space
    cdef double[::1] cwnd = arrays["cwnd"], ssthresh = arrays["ssthresh"]
    cdef int64_t[::1] outstanding = arrays["outstanding"], recover = arrays["recover"]
    cdef int64_t[::1] rflow = arrays["rflow"], held = arrays["held"]
    cdef double[::1] rcost = arrays["rcost"], start = arrays["start"], end = arrays["end"]
    cdef double[::1] since = arrays["since"], dq_val = arrays["dq_val"], used = arrays["used"]
    cdef double[::1] scratch = arrays["scratch"]
    cdef int64_t[::1] state = arrays["state"]
    cdef int64_t[::1] sfirst = arrays["sfirst"], scount = arrays["scount"]
    cdef int64_t[::1] dq_seq = arrays["dq_seq"], dq_head = arrays["dq_head"], dq_len = arrays["dq_len"]
    s.qcap, s.qoff, s.qhead, s.qlen = &qcap_v[0], &qoff_v[0], &qhead[0], &qlen[0]
    s.slot_k, s.slot_S, s.slot_F = &slot_k[0], &slot_S[0], &slot_F[0]
    s.last_finish, s.max_finish = &last_finish[0], &max_finish[0]
    s.enqueued = 0.0
    s.ready.item, s.ready.size = <Item*>&ready_v[0] + <Py_ssize_t>ready_at, 0
    s.arrivals.item, s.arrivals.size = <Item*>&arrival_v[0] + <Py_ssize_t>arrival_at, 0
    s.cwnd, s.ssthresh, s.outstanding, s.recover = &cwnd[0], &ssthresh[0], &outstanding[0], &recover[0]
    s.rflow, s.rcost, s.nd = &rflow[0], &rcost[0], 0
    s.state, s.held, s.start, s.end, s.since = &state[0], &held[0], &start[0], &end[0], &since[0]
    s.sfirst, s.scount = &sfirst[0], &scount[0]
    s.dq_seq, s.dq_val, s.dq_head, s.dq_len = &dq_seq[0], &dq_val[0], &dq_head[0], &dq_len[0]
    s.used, s.scratch = &used[0], &scratch[0]
    s.served, s.dispatched, s.arrived, s.dropped = &served[0], &dispatched[0], &arrived[0], &dropped[0]
    s.work, s.busy, s.blocked = &work[0, 0], &busy[0], &blocked[0]
    s.series = &series[0, 0] if series.shape[0] else NULL
    s.choices, s.nchoices = &choices[0] if choices.shape[0] else NULL, 0
    s.log_t = &log_t[0] if log_t.shape[0] else NULL
    s.log_f = &log_f[0] if log_f.shape[0] else NULL
    s.log_cap, s.nlog, s.failed = log_t.shape[0], 0, False
    s.tm_cap = n * (initial_window + 1) + 16
    s.tm_head, s.tm_len = 0, 0
    s.tm_time = <double*>malloc(s.tm_cap * sizeof(double))
    s.tm_flow = <int64_t*>malloc(s.tm_cap * sizeof(int64_t))
    s.tm_k = <int64_t*>malloc(s.tm_cap * sizeof(int64_t))
    s.tm_kind = <int64_t*>malloc(s.tm_cap * sizeof(int64_t))
    try:
        if s.tm_time == NULL or s.tm_flow == NULL or s.tm_k == NULL or s.tm_kind == NULL:
            raise MemoryError("drfq: no memory for the TCP timers")
        for i in range(n):
            if kind[i] == CONSTANT:
                heap_push(&s.arrivals, 0.0, i)
            elif kind[i] == POISSON:
                heap_push(&s.arrivals, -log(uniform(seed, 0, i, 0)) / rates[i], i)
        with nogil:
            run_loop(&s)
        if s.failed:
            raise MemoryError("drfq: no memory for the TCP timers")
    finally:
        free(s.tm_time)
        free(s.tm_flow)
        free(s.tm_k)
        free(s.tm_kind)
    return s.nchoices, s.nlog
