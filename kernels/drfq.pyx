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
  scheduler      an indexed binary heap (_heap.pxd) of the flows with a packet waiting,
                 keyed by their head's key, ties to the lower index: the literal's
                 min((key, i)) over the queues
  arrivals       an indexed heap of the open-loop flows by next arrival, ties to the
                 lower index
  middlebox      the packets dispatched and not departed, in dispatch order (the pipeline
                 is FIFO), a ring of m + (m - 1) x stage_buffer places: a packet's place
                 is its dispatch number modulo that; stage buffer j is the run of
                 scount[j] numbers from sfirst[j]
  virtual time   per tag dimension, a monotone deque of the start tags in the middlebox
                 (the sliding window's maximum: a newer, larger tag retires the older,
                 smaller ones), whose front is the literal's max over the middlebox
  timers         TCP's acknowledgements and loss notices, a FIFO: one rtt for every
                 flow, so they fall due in the order they were made (grown with realloc)

Floating point follows the literal operation by operation; a packet's cost is a product
made opaque to the compiler (`opaque`) so that no build fuses it into a later sum.
"""
import numpy as np

from libc.math cimport INFINITY, log
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memmove
from _common cimport int64_t, int32_t
from libc.stdint cimport int8_t, uint64_t
from _heap cimport IndexedHeap, iheap_remove, iheap_update
from _platform cimport opaque

cdef enum:
    DRFQ = 0               # the order of drfbench.drfq.model.SCHEDULERS
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


cdef struct Sim:
    Py_ssize_t n, m, K, D, ring
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
    double* key                 # (n,): the head's key
    double enqueued
    IndexedHeap ready
    double* next_arrival
    IndexedHeap arrivals
    # TCP
    double* cwnd
    double* ssthresh
    int64_t* outstanding
    int64_t* recover
    double* tm_time
    int64_t* tm_flow
    int64_t* tm_k
    int8_t* tm_kind
    Py_ssize_t tm_head, tm_len, tm_cap
    # the middlebox
    int64_t* rflow
    int64_t* rk
    double* rcost               # (ring, m)
    int64_t nd                  # packets dispatched so far: the next one's number
    int8_t* state
    int64_t* held
    double* start
    double* end
    double* since
    int64_t* sfirst
    int64_t* scount
    int64_t* dq_seq             # (D, ring)
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
    cdef double base = s.base[(i * s.K + k % s.K) * s.m + j]
    cdef double u
    if s.dist == 0:
        return base
    u = uniform(s.seed, 1 + j, i, k)
    return opaque(base * (0.5 + u if s.dist == 1 else -log(u)))


cdef inline double virtual_time(const Sim* s, Py_ssize_t d) noexcept nogil:
    """V in tag dimension d: the deque's front, or the largest finish tag dispatched."""
    if s.dq_len[d] > 0:
        return s.dq_val[d * s.ring + s.dq_head[d]]
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


cdef void timer_push(Sim* s, double when, int kind, Py_ssize_t i, int64_t k) noexcept nogil:
    """Append a TCP event (when, kind, flow, k) to the FIFO, making room if needed."""
    cdef Py_ssize_t cap
    cdef void* p
    if s.tm_head + s.tm_len == s.tm_cap:
        if s.tm_head > 0:
            memmove(s.tm_time, s.tm_time + s.tm_head, s.tm_len * sizeof(double))
            memmove(s.tm_flow, s.tm_flow + s.tm_head, s.tm_len * sizeof(int64_t))
            memmove(s.tm_k, s.tm_k + s.tm_head, s.tm_len * sizeof(int64_t))
            memmove(s.tm_kind, s.tm_kind + s.tm_head, s.tm_len * sizeof(int8_t))
            s.tm_head = 0
        if s.tm_len == s.tm_cap:
            cap = 2 * s.tm_cap
            p = realloc(s.tm_time, cap * sizeof(double))
            if p == NULL:
                s.failed = True
                return
            s.tm_time = <double*>p
            p = realloc(s.tm_flow, cap * sizeof(int64_t))
            if p == NULL:
                s.failed = True
                return
            s.tm_flow = <int64_t*>p
            p = realloc(s.tm_k, cap * sizeof(int64_t))
            if p == NULL:
                s.failed = True
                return
            s.tm_k = <int64_t*>p
            p = realloc(s.tm_kind, cap * sizeof(int8_t))
            if p == NULL:
                s.failed = True
                return
            s.tm_kind = <int8_t*>p
            s.tm_cap = cap
    cdef Py_ssize_t at = s.tm_head + s.tm_len
    s.tm_time[at] = when
    s.tm_kind[at] = kind
    s.tm_flow[at] = i
    s.tm_k[at] = k
    s.tm_len += 1


cdef void arrive(Sim* s, Py_ssize_t i, double t) noexcept nogil:
    """Middlebox.arrive: packet arrived[i] of flow i, dropped or tagged and queued."""
    cdef int64_t k = s.arrived[i], slot
    cdef Py_ssize_t d, j
    cdef double S, F, c, x
    s.arrived[i] += 1
    if s.qlen[i] >= s.qcap[i]:
        s.dropped[i] += 1
        if s.kind[i] == TCP:
            timer_push(s, t + s.rtt, LOSS, i, k)
        return
    slot = s.qoff[i] + (s.qhead[i] + s.qlen[i]) % s.qcap[i]
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
    if s.qlen[i] == 0:
        s.key[i] = slot_key(s, slot)
        iheap_update(&s.ready, i)
    s.qlen[i] += 1


cdef void send(Sim* s, Py_ssize_t i, double t) noexcept nogil:
    """TCP: send while fewer than cwnd packets are outstanding."""
    while s.outstanding[i] + 1 <= s.cwnd[i]:
        s.outstanding[i] += 1
        arrive(s, i, t)


cdef int64_t dispatch(Sim* s, double t) noexcept nogil:
    """Middlebox.dispatch: the head packet with the smallest key enters; its number."""
    cdef Py_ssize_t i = s.ready.heap[0], d, j
    cdef int64_t slot = s.qoff[i] + s.qhead[i], seq = s.nd, r = s.nd % s.ring, back
    cdef int64_t k = s.slot_k[slot]
    cdef double S
    s.rflow[r] = i
    s.rk[r] = k
    for j in range(s.m):
        s.rcost[r * s.m + j] = packet_cost(s, i, k, j)
    if s.sched != FIFO:
        for d in range(s.D):
            if s.slot_F[slot * s.D + d] > s.max_finish[d]:
                s.max_finish[d] = s.slot_F[slot * s.D + d]
            S = s.slot_S[slot * s.D + d]
            while s.dq_len[d] > 0:
                back = d * s.ring + (s.dq_head[d] + s.dq_len[d] - 1) % s.ring
                if s.dq_val[back] > S:
                    break
                s.dq_len[d] -= 1
            back = d * s.ring + (s.dq_head[d] + s.dq_len[d]) % s.ring
            s.dq_seq[back] = seq
            s.dq_val[back] = S
            s.dq_len[d] += 1
    s.nd += 1
    s.dispatched[i] += 1
    if s.nlog < s.log_cap:
        s.log_t[s.nlog] = t
        s.log_f[s.nlog] = i
    s.nlog += 1
    s.qhead[i] = (s.qhead[i] + 1) % s.qcap[i]
    s.qlen[i] -= 1
    if s.kind[i] == BACKLOGGED:
        arrive(s, i, t)
    elif s.qlen[i] > 0:
        s.key[i] = slot_key(s, s.qoff[i] + s.qhead[i])
        iheap_update(&s.ready, i)
    else:
        iheap_remove(&s.ready, i)
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


cdef inline void begin(Sim* s, Py_ssize_t j, int64_t seq, double t) noexcept nogil:
    """Resource j takes packet number seq at t."""
    cdef double c = s.rcost[(seq % s.ring) * s.m + j]
    s.held[j] = seq
    if c > 0:
        s.state[j] = SERVING
        s.start[j] = t
        s.end[j] = t + c
    else:
        s.state[j] = DONE
        s.since[j] = t


cdef inline void complete(Sim* s, Py_ssize_t j, double t) noexcept nogil:
    cdef int64_t r = s.held[j] % s.ring
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
    cdef int64_t r = seq % s.ring, b
    cdef Py_ssize_t i = s.rflow[r], d
    s.served[i] += 1
    if s.bins:
        b = <int64_t>(t * s.bins / s.duration)
        s.series[(b if b < s.bins - 1 else s.bins - 1) * s.n + i] += 1
    if s.kind[i] == TCP:
        timer_push(s, t + s.rtt, ACK, i, s.rk[r])
    for d in range(s.D):
        if s.dq_len[d] > 0 and s.dq_seq[d * s.ring + s.dq_head[d]] == seq:
            s.dq_head[d] = (s.dq_head[d] + 1) % s.ring
            s.dq_len[d] -= 1


cdef void advance(Sim* s, double t) noexcept nogil:
    """Middlebox.advance: passes from the last resource to the first until nothing moves."""
    cdef bint moved = True
    cdef Py_ssize_t j
    cdef int64_t seq
    while moved:
        moved = False
        for j in range(s.m - 1, -1, -1):
            if s.state[j] == DONE:
                if j == s.m - 1:
                    depart(s, release(s, j, t), t)
                    moved = True
                elif s.scount[j + 1] < s.stage_cap:
                    seq = release(s, j, t)
                    if s.scount[j + 1] == 0:
                        s.sfirst[j + 1] = seq
                    s.scount[j + 1] += 1
                    moved = True
            if s.state[j] == IDLE:
                if j > 0:
                    if s.scount[j] > 0:
                        seq = s.sfirst[j]
                        s.sfirst[j] += 1
                        s.scount[j] -= 1
                        begin(s, j, seq, t)
                        moved = True
                elif s.ready.size > 0:
                    begin(s, 0, dispatch(s, t), t)
                    moved = True


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
    while s.arrivals.size > 0 and s.next_arrival[s.arrivals.heap[0]] == t:
        i = s.arrivals.heap[0]
        arrive(s, i, t)
        k = s.arrived[i]
        if s.kind[i] == CONSTANT:
            s.next_arrival[i] = k / s.rate[i]
        else:
            s.next_arrival[i] = t + -log(uniform(s.seed, 0, i, k)) / s.rate[i]
        iheap_update(&s.arrivals, i)
    advance(s, t)


cdef void run_loop(Sim* s) noexcept nogil:
    """Middlebox.run: start the sources, then instant after instant until the duration."""
    cdef Py_ssize_t i, j
    cdef double t, T = s.duration
    for i in range(s.n):
        if s.kind[i] == BACKLOGGED:
            arrive(s, i, 0.0)
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
        if s.arrivals.size > 0 and s.next_arrival[s.arrivals.heap[0]] < t:
            t = s.next_arrival[s.arrivals.heap[0]]
        if t >= T:
            break
        instant(s, t)
    for j in range(s.m):
        if s.state[j] == SERVING:
            s.busy[j] += T - s.start[j]
            s.work[s.rflow[s.held[j] % s.ring] * s.m + j] += T - s.start[j]
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
    (indices into PACKET_COSTS and SCHEDULERS), the settings; the outputs, zeroed, are
    filled: served ... blocked as named, series (bins, n) departures per bin, choices the
    bottleneck's re-decisions (room for all), log_t and log_f the first len(log_t)
    dispatches. Returns (re-decisions made, dispatches made)."""
    cdef Sim s
    cdef Py_ssize_t n = costs.shape[0], m = costs.shape[2], i, slots
    s.n, s.m, s.K = n, m, costs.shape[1]
    s.D = m if scheduler == DOVETAIL else 1
    s.ring = m + (m - 1) * stage_buffer
    s.sched, s.dist, s.resource, s.bottleneck = scheduler, packet_costs, resource, resource
    s.seed, s.duration, s.interval, s.rtt = seed, duration, interval, rtt
    s.stage_cap, s.bins, s.boundary = stage_buffer, series.shape[0], 1
    s.base, s.w, s.kind, s.rate = &costs[0, 0, 0], &weights[0], &kind[0], &rates[0]

    qcap = np.where(np.asarray(kind) == BACKLOGGED, 1, buffer).astype(np.int64)
    qoff = np.concatenate([[0], np.cumsum(qcap)[:-1]]).astype(np.int64)
    slots = int(qcap.sum())
    arrays = dict(qhead=np.zeros(n, np.int64), qlen=np.zeros(n, np.int64),
                  slot_k=np.zeros(slots, np.int64), slot_S=np.zeros(slots * s.D),
                  slot_F=np.zeros(slots * s.D), last_finish=np.zeros(n * s.D),
                  max_finish=np.zeros(s.D), key=np.zeros(n), next_arrival=np.zeros(n),
                  heaps=np.zeros(4 * n, np.int64), cwnd=np.full(n, float(initial_window)),
                  ssthresh=np.full(n, np.inf), outstanding=np.zeros(n, np.int64),
                  recover=np.zeros(n, np.int64), rflow=np.zeros(s.ring, np.int64),
                  rk=np.zeros(s.ring, np.int64), rcost=np.zeros(s.ring * m),
                  state=np.zeros(m, np.int8), held=np.zeros(m, np.int64), start=np.zeros(m),
                  end=np.full(m, np.inf), since=np.zeros(m), sfirst=np.zeros(m, np.int64),
                  scount=np.zeros(m, np.int64), dq_seq=np.zeros(s.D * s.ring, np.int64),
                  dq_val=np.zeros(s.D * s.ring), dq_head=np.zeros(s.D, np.int64),
                  dq_len=np.zeros(s.D, np.int64), used=np.zeros(m), scratch=np.zeros(m))
    arrays["heaps"][2 * n:] = -1                    # both heaps' pos: not in the heap
    cdef int64_t[::1] qcap_v = qcap, qoff_v = qoff, qhead = arrays["qhead"], qlen = arrays["qlen"]
    cdef int64_t[::1] slot_k = arrays["slot_k"], heaps = arrays["heaps"]
    cdef double[::1] slot_S = arrays["slot_S"], slot_F = arrays["slot_F"]
    cdef double[::1] last_finish = arrays["last_finish"], max_finish = arrays["max_finish"]
    cdef double[::1] key = arrays["key"], next_arrival = arrays["next_arrival"]
    cdef double[::1] cwnd = arrays["cwnd"], ssthresh = arrays["ssthresh"]
    cdef int64_t[::1] outstanding = arrays["outstanding"], recover = arrays["recover"]
    cdef int64_t[::1] rflow = arrays["rflow"], rk = arrays["rk"], held = arrays["held"]
    cdef double[::1] rcost = arrays["rcost"], start = arrays["start"], end = arrays["end"]
    cdef double[::1] since = arrays["since"], dq_val = arrays["dq_val"], used = arrays["used"]
    cdef double[::1] scratch = arrays["scratch"]
    cdef int8_t[::1] state = arrays["state"]
    cdef int64_t[::1] sfirst = arrays["sfirst"], scount = arrays["scount"]
    cdef int64_t[::1] dq_seq = arrays["dq_seq"], dq_head = arrays["dq_head"], dq_len = arrays["dq_len"]
    s.qcap, s.qoff, s.qhead, s.qlen = &qcap_v[0], &qoff_v[0], &qhead[0], &qlen[0]
    s.slot_k, s.slot_S, s.slot_F = &slot_k[0], &slot_S[0], &slot_F[0]
    s.last_finish, s.max_finish, s.key = &last_finish[0], &max_finish[0], &key[0]
    s.enqueued = 0.0
    s.ready.heap, s.ready.pos, s.ready.key, s.ready.tie, s.ready.size = &heaps[0], &heaps[2 * n], &key[0], NULL, 0
    s.next_arrival = &next_arrival[0]
    s.arrivals.heap, s.arrivals.pos = &heaps[n], &heaps[3 * n]
    s.arrivals.key, s.arrivals.tie, s.arrivals.size = &next_arrival[0], NULL, 0
    s.cwnd, s.ssthresh, s.outstanding, s.recover = &cwnd[0], &ssthresh[0], &outstanding[0], &recover[0]
    s.rflow, s.rk, s.rcost, s.nd = &rflow[0], &rk[0], &rcost[0], 0
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
    s.tm_kind = <int8_t*>malloc(s.tm_cap * sizeof(int8_t))
    try:
        if s.tm_time == NULL or s.tm_flow == NULL or s.tm_k == NULL or s.tm_kind == NULL:
            raise MemoryError("drfq: no memory for the TCP timers")
        for i in range(n):
            if kind[i] == CONSTANT or kind[i] == POISSON:
                next_arrival[i] = 0.0 if kind[i] == CONSTANT else -log(uniform(seed, 0, i, 0)) / rates[i]
                iheap_update(&s.arrivals, i)
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
