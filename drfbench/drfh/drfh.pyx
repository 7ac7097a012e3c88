"""Discrete DRFH schedulers (Wang, Liang, Li, "Dominant Resource Fairness in Cloud Computing
Systems with Heterogeneous Servers", Sec. V-B) and the slot scheduler they are compared with
(Sec. VI), as policies of the cluster simulator drfbench.sim.

Every task has its own demand vector d (absolute units, one entry per resource); each user's
tasks wait in a FIFO queue (trace order). Whenever there is a scheduling opportunity:

  first-fit  the user with the lowest global dominant share (max_r of its running tasks'
             demands over the pool's total of r, over its weight) launches its next task
             on the first server, in index order, where it fits;
  best-fit   the same user, on the server l where it fits minimizing Eq. 9's fitness
             H(d, l) = sum_r |p_r - q_lr|, p the task's normalized demand (d_r / C_r, then
             divided by its sum) and q_l the server's normalized residual (its free
             resources over C_r, then divided by their sum); ties to the lower index;
  slots      k slots per maximum-size server, scaled to each server (slots[l]); a task
             takes one slot whatever it demands (the simulator time-shares an
             oversubscribed server); the user with the fewest running tasks over its
             weight goes first, to the first server with a free slot.

Choices where the paper is silent: ties in share go to the lower user index; a user whose
next task fits on no server is set aside ("blocked") until a task finishes on a server
where it then fits (placements only take room away); fit is used + d <= cap * (1 + 1e-12)
on every resource, and a server that empties has its usage reset to exactly zero.

The server index. Servers are the leaves of a segment tree whose nodes hold, per resource,
the most room (cap * (1 + FIT_SLACK) - used) among their servers, the box (least and
greatest q_lr per resource) of their servers' normalized residuals, and their least server
index. A search descends depth-first, nearer box first, and skips a node where some
resource's room is short of the task's demand, or whose box's L1 distance to p (a lower
bound of H on every server inside, also in floating point: the same differences, rounded
monotonically, summed in the same order) exceeds the best H found, or equals it with no
lower server index inside. So it returns exactly the server a literal scan returns. For
best-fit the leaves are kept in Z-order of q (re-sorted after every M/4 updates), so
that servers with similar residual shapes share subtrees; first-fit and slots keep index order,
and their search is a leftmost descent. A user set aside because its task fitted nowhere
can only fit, later, on a server where a task finished since: the servers released are
logged, and such a user's next decision tests those alone (the log restarts whenever a
schedule() ends with every user set aside or idle, as the simulator's calls do after
almost every event). Most decisions in a full cluster are of this kind. With `index=False` the literal scan runs instead:
best-fit's scores in parallel (prange), then the first least one; first-fit and slots stop
at the first server that fits.

drfbench/drfh/schedulers.py has the wrappers and the literal NumPy transcription that tests
this kernel decision by decision.
"""
import numpy as np

from libc.math cimport INFINITY, fabs
from cython.parallel cimport prange
from _common cimport int64_t, uint8_t
from _heap cimport IndexedHeap, iheap_remove, iheap_sift_down, iheap_sift_up, iheap_update

cdef double FIT_SLACK = 1e-12        # as drfbench/drf/drf.pyx and drfbench.sim
cdef double PRUNE = 1e-9             # room pruning margin, x the largest capacity

cdef enum:
    FIRST_FIT = 0
    BEST_FIT = 1
    SLOTS = 2

MODES = {"drfh-first-fit": FIRST_FIT, "drfh-best-fit": BEST_FIT, "drfh-slots": SLOTS}  # by registered name
NOTHING = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))   # no launch
NOTHING[0].flags.writeable = NOTHING[1].flags.writeable = False


def _z_order(q):
    """Each row's place on the Z-order (Morton) curve through the unit cube of its q: the
    coordinates' bits interleaved, so that servers near in every q_lr lie near on the
    leaves and the tree's boxes stay small in every resource."""
    bits = max(1, min(16, 63 // q.shape[1]))
    cells = np.minimum(q * (1 << bits), (1 << bits) - 1).astype(np.uint64)
    key = np.zeros(q.shape[0], dtype=np.uint64)
    for b in range(bits - 1, -1, -1):
        for r in range(q.shape[1]):
            key = (key << np.uint64(1)) | ((cells[:, r] >> np.uint64(b)) & np.uint64(1))
    return key


cdef class DRFHScheduler:
    """DRFHScheduler(capacity, demands, order, start, weights, slots, mode, index=True,
                     threads=1)

      capacity (M, m) float64: cap[k, r] (IN)
      demands  (N, m) float64: the trace's demand vectors, by trace row (IN)
      order    (S,) int64: the schedulable trace rows grouped by user, trace order within
               a user (IN); start (n + 1,) int64: user u's rows are order[start[u]:start[u+1]]
      weights  (n,) float64: w_u > 0 (IN)
      slots    (M,) int64: slots per server (mode slots; ignored otherwise) (IN)
      mode     a value of MODES; index: search the server index (False: literal scan);
      threads  threads of the literal best-fit scan
    A drfbench.sim.TaskPolicy: add_tasks(user, count), schedule(),
    release_task(task, user, machine). The wrapper validates everything; this trusts it.
    """
    cdef Py_ssize_t n, m, M, P, mt
    cdef int mode, threads
    cdef public bint index                     # False: the literal scan from now on
    cdef double[:, ::1] cap, limit, used, demand, q, uused
    cdef double[::1] total, weight, key, margin, scores, need, p
    cdef int64_t[::1] tasks_on, slots_, order, start, arrived, launched_, running_
    cdef int64_t[::1] heap, pos
    cdef IndexedHeap ready
    cdef uint8_t[::1] blocked
    cdef int64_t[::1] blocked_list
    cdef Py_ssize_t n_blocked
    # servers released since the last schedule() that ended with every user set aside or
    # idle; mark[u]: the log's length when u was set aside (-1: u needs a full search)
    cdef int64_t[::1] relog, mark
    cdef Py_ssize_t n_log
    cdef object out_u, out_k                   # schedule()'s buffers (copied out)
    # the tree: leaf P + j holds server perm[j] (-1: none); place[k] = j
    cdef int64_t[::1] perm, place, tmin
    cdef double[:, ::1] troom, tlo, thi
    cdef long long updates
    cdef double all_slots                      # slots in the cluster (at least 1)
    cdef readonly long long decisions          # heap decisions: launches and set-asides
    cdef readonly long long visited            # tree nodes (or servers) examined

    def __init__(self, const double[:, ::1] capacity, const double[:, ::1] demands,
                 const int64_t[::1] order, const int64_t[::1] start,
                 const double[::1] weights, const int64_t[::1] slots, int mode,
                 bint index=True, int threads=1):
        cdef Py_ssize_t k, r, u
        self.M, self.m = capacity.shape[0], capacity.shape[1]
        self.n = weights.shape[0]
        self.mode, self.index, self.threads = mode, index, max(1, threads)
        self.cap = np.array(capacity, dtype=np.float64)
        self.limit = np.asarray(self.cap) * (1.0 + FIT_SLACK)
        self.used = np.zeros((self.M, self.m))
        self.demand = np.array(demands, dtype=np.float64)
        self.total = np.asarray(self.cap).sum(axis=0)
        self.q = np.zeros((self.M, self.m))
        self.uused = np.zeros((self.n, self.m))
        self.weight = np.array(weights, dtype=np.float64)
        self.key = np.zeros(max(self.n, 1))
        self.tasks_on = np.zeros(self.M, dtype=np.int64)
        self.slots_ = np.array(slots, dtype=np.int64)
        self.all_slots = max(1.0, float(np.asarray(self.slots_).sum()))
        self.order = np.array(order, dtype=np.int64)
        self.start = np.array(start, dtype=np.int64)
        self.arrived = np.zeros(self.n, dtype=np.int64)
        self.launched_ = np.zeros(self.n, dtype=np.int64)
        self.running_ = np.zeros(self.n, dtype=np.int64)
        self.heap = np.zeros(max(self.n, 1), dtype=np.int64)
        self.pos = np.full(max(self.n, 1), -1, dtype=np.int64)
        self.ready.heap = &self.heap[0]
        self.ready.pos = &self.pos[0]
        self.ready.key = &self.key[0]
        self.ready.tie = NULL
        self.ready.size = 0
        self.blocked = np.zeros(self.n, dtype=np.uint8)
        self.blocked_list = np.zeros(max(self.n, 1), dtype=np.int64)
        self.n_blocked = 0
        self.relog = np.zeros(1024, dtype=np.int64)
        self.mark = np.full(max(self.n, 1), -1, dtype=np.int64)
        self.n_log = 0
        self.out_u = np.empty(64, dtype=np.int64)
        self.out_k = np.empty(64, dtype=np.int64)
        self.scores = np.zeros(max(self.M, 1))
        self.p = np.zeros(self.m)
        self.mt = 1 if mode == SLOTS else self.m
        self.need = np.ones(self.mt)
        self.margin = np.zeros(self.mt)
        if mode != SLOTS:
            self.margin = PRUNE * np.asarray(self.cap).max(axis=0)
        self.P = 1
        while self.P < max(self.M, 1):
            self.P *= 2
        self.perm = np.full(self.P, -1, dtype=np.int64)
        self.place = np.zeros(max(self.M, 1), dtype=np.int64)
        self.tmin = np.zeros(2 * self.P, dtype=np.int64)
        self.troom = np.zeros((2 * self.P, self.mt))
        self.tlo = np.zeros((2 * self.P, self.m))
        self.thi = np.zeros((2 * self.P, self.m))
        self.decisions = self.visited = self.updates = 0
        for k in range(self.M):
            self._normalize(k)
        self._build()

    # -- the server index -----------------------------------------------------------------

    cdef void _normalize(self, Py_ssize_t k) noexcept nogil:
        """q[k]: server k's free resources over the pool's totals, divided by their sum."""
        cdef Py_ssize_t r
        cdef double s = 0.0, v
        for r in range(self.m):
            v = self.cap[k, r] - self.used[k, r]
            v = v / self.total[r] if self.total[r] > 0.0 and v > 0.0 else 0.0
            self.q[k, r] = v
            s = s + v
        for r in range(self.m):
            self.q[k, r] = self.q[k, r] / s if s > 0.0 else 0.0

    cdef inline double _room(self, Py_ssize_t k, Py_ssize_t r) noexcept nogil:
        if self.mode == SLOTS:
            return <double>(self.slots_[k] - self.tasks_on[k])
        return self.limit[k, r] - self.used[k, r]

    cdef void _leaf(self, Py_ssize_t j) noexcept nogil:
        """Set leaf P + j from its server."""
        cdef Py_ssize_t node = self.P + j, r
        cdef int64_t k = self.perm[j]
        if k < 0:
            self.tmin[node] = self.M
            for r in range(self.mt):
                self.troom[node, r] = -INFINITY
            for r in range(self.m):
                self.tlo[node, r] = INFINITY
                self.thi[node, r] = -INFINITY
            return
        self.tmin[node] = k
        for r in range(self.mt):
            self.troom[node, r] = self._room(k, r)
        for r in range(self.m):
            self.tlo[node, r] = self.q[k, r]
            self.thi[node, r] = self.q[k, r]

    cdef void _pull(self, Py_ssize_t node) noexcept nogil:
        """Node from its two children."""
        cdef Py_ssize_t a = 2 * node, b = 2 * node + 1, r
        self.tmin[node] = min(self.tmin[a], self.tmin[b])
        for r in range(self.mt):
            self.troom[node, r] = max(self.troom[a, r], self.troom[b, r])
        for r in range(self.m):
            self.tlo[node, r] = min(self.tlo[a, r], self.tlo[b, r])
            self.thi[node, r] = max(self.thi[a, r], self.thi[b, r])

    cdef void _build(self):
        """Lay the servers on the leaves (best-fit: in Z-order of q, then index) and fill
        every node."""
        cdef Py_ssize_t j, node
        qa = np.asarray(self.q)
        if self.mode == BEST_FIT and self.M:
            ranked = np.lexsort((np.arange(self.M), _z_order(qa)))
        else:
            ranked = np.arange(self.M)
        self.perm[:] = -1
        for j in range(self.M):
            self.perm[j] = ranked[j]
            self.place[ranked[j]] = j
        for j in range(self.P):
            self._leaf(j)
        for node in range(self.P - 1, 0, -1):
            self._pull(node)
        self.updates = 0

    cdef void _changed(self, Py_ssize_t k):
        """Server k's usage changed: its q and its path in the tree."""
        cdef Py_ssize_t node
        self._normalize(k)
        if not self.index:                     # (the tree is not kept: no way back)
            return
        self.updates += 1
        if self.mode == BEST_FIT and 4 * self.updates >= self.M:
            self._build()
            return
        node = self.P + self.place[k]
        self._leaf(self.place[k])
        node //= 2
        while node >= 1:
            self._pull(node)
            node //= 2

    cdef inline bint _fits(self, Py_ssize_t k, int64_t t) noexcept nogil:
        cdef Py_ssize_t r
        if self.mode == SLOTS:
            return self.tasks_on[k] < self.slots_[k]
        for r in range(self.m):
            if self.used[k, r] + self.demand[t, r] > self.limit[k, r]:
                return False
        return True

    cdef inline double _score(self, Py_ssize_t k) noexcept nogil:
        """Eq. 9: sum_r |p_r - q_kr| (the task's p in self.p)."""
        cdef Py_ssize_t r
        cdef double h = 0.0
        for r in range(self.m):
            h = h + fabs(self.p[r] - self.q[k, r])
        return h

    cdef inline double _bound(self, Py_ssize_t node) noexcept nogil:
        """The box's L1 distance to p: at most H of every server under node."""
        cdef Py_ssize_t r
        cdef double b = 0.0, x
        for r in range(self.m):
            x = self.p[r]
            if x < self.tlo[node, r]:
                b = b + (self.tlo[node, r] - x)
            elif x > self.thi[node, r]:
                b = b + (x - self.thi[node, r])
        return b

    cdef void _search(self, Py_ssize_t node, int64_t t, double lb, double* best,
                      Py_ssize_t* where) noexcept nogil:
        cdef Py_ssize_t r, k, a, b
        cdef double h, la, lb2
        self.visited += 1
        if lb > best[0] or (lb == best[0] and self.tmin[node] > where[0]):
            return
        for r in range(self.mt):
            if self.need[r] > self.troom[node, r] + self.margin[r]:
                return
        if node >= self.P:
            k = self.perm[node - self.P]
            if k >= 0 and self._fits(k, t):
                h = self._score(k) if self.mode == BEST_FIT else 0.0
                if h < best[0] or (h == best[0] and k < where[0]):
                    best[0] = h
                    where[0] = k
            return
        a, b = 2 * node, 2 * node + 1
        if self.mode == BEST_FIT:
            la, lb2 = self._bound(a), self._bound(b)
            if lb2 < la:
                self._search(b, t, lb2, best, where)
                self._search(a, t, la, best, where)
                return
            self._search(a, t, la, best, where)
            self._search(b, t, lb2, best, where)
        else:
            self._search(a, t, 0.0, best, where)
            self._search(b, t, 0.0, best, where)

    cdef Py_ssize_t _scan(self, int64_t t) noexcept nogil:
        """The literal scan: every server, in index order."""
        cdef Py_ssize_t k, best_k = -1
        cdef double best = INFINITY
        if self.mode != BEST_FIT:
            for k in range(self.M):
                self.visited += 1
                if self._fits(k, t):
                    return k
            return -1
        for k in prange(self.M, schedule='static', num_threads=self.threads):
            self.scores[k] = self._score(k) if self._fits(k, t) else INFINITY
        self.visited += self.M
        for k in range(self.M):
            if self.scores[k] < best:
                best = self.scores[k]
                best_k = k
        return best_k

    cdef Py_ssize_t _server_for(self, int64_t t, int64_t since) noexcept nogil:
        """The server task t goes to, or -1 if it fits nowhere now. since >= 0: t fitted
        nowhere when the release log was that long, so only the servers released since
        can take it: those alone are tested (the same choice as a full search)."""
        cdef Py_ssize_t r, j, k, where = self.M
        cdef double s = 0.0, best = INFINITY, h
        if self.mode == BEST_FIT:
            for r in range(self.m):
                self.p[r] = self.demand[t, r] / self.total[r] if self.total[r] > 0.0 else 0.0
                s = s + self.p[r]
            for r in range(self.m):
                self.p[r] = self.p[r] / s if s > 0.0 else 0.0
        if self.mode != SLOTS:
            for r in range(self.m):
                self.need[r] = self.demand[t, r]
        if not self.index:
            return self._scan(t)
        if since >= 0:
            for j in range(since, self.n_log):
                k = self.relog[j]
                self.visited += 1
                if self._fits(k, t):
                    h = self._score(k) if self.mode == BEST_FIT else 0.0
                    if h < best or (h == best and k < where):
                        best = h
                        where = k
            return where if where < self.M else -1
        self._search(1, t, self._bound(1) if self.mode == BEST_FIT else 0.0, &best, &where)
        return where if where < self.M else -1

    # -- users --------------------------------------------------------------------------

    cdef void _set_key(self, Py_ssize_t u) noexcept nogil:
        """u's key: its global dominant share over its weight (slots: tasks / all slots)."""
        cdef Py_ssize_t r
        cdef double s = 0.0, v
        if self.mode == SLOTS:
            self.key[u] = self.running_[u] / self.all_slots / self.weight[u]
            return
        for r in range(self.m):
            if self.total[r] > 0.0:
                v = self.uused[u, r] / self.total[r]
                if v > s:
                    s = v
        self.key[u] = s / self.weight[u]

    cdef inline bint _waiting(self, Py_ssize_t u) noexcept nogil:
        return self.launched_[u] < self.arrived[u]

    def schedule(self):
        """Launch tasks until no waiting task can start. Returns (users, machines), int64
        arrays in launch order."""
        out_u, out_k = self.out_u, self.out_k
        cdef int64_t[::1] us = out_u, ks = out_k
        cdef Py_ssize_t count = 0, size = out_u.shape[0], k, r, u, j
        cdef int64_t t
        while self.ready.size > 0:
            u = self.heap[0]
            t = self.order[self.start[u] + self.launched_[u]]
            self.decisions += 1
            k = self._server_for(t, self.mark[u])
            if k < 0:
                if self.mode == SLOTS:          # no free slot anywhere: nobody can start
                    break
                iheap_remove(&self.ready, u)
                self.blocked[u] = 1
                self.mark[u] = self.n_log
                self.blocked_list[self.n_blocked] = u
                self.n_blocked += 1
                continue
            for r in range(self.m):
                self.used[k, r] = self.used[k, r] + self.demand[t, r]
                self.uused[u, r] = self.uused[u, r] + self.demand[t, r]
            self.tasks_on[k] += 1
            self._changed(k)
            self.running_[u] += 1
            self.launched_[u] += 1
            self.mark[u] = -1                   # its next task: a full search
            self._set_key(u)
            if self._waiting(u):
                iheap_sift_down(&self.ready, 0)     # its share grew: it can only move down
            else:
                iheap_remove(&self.ready, u)
            if count == size:
                size *= 2
                self.out_u = out_u = np.resize(out_u, size)
                self.out_k = out_k = np.resize(out_k, size)
                us, ks = out_u, out_k
            us[count] = u
            ks[count] = k
            count += 1
        if self.ready.size == 0:                # everyone set aside or idle: a fresh log
            self.n_log = 0
            for j in range(self.n_blocked):
                self.mark[self.blocked_list[j]] = 0
        if count == 0:
            return NOTHING
        return out_u[:count].copy(), out_k[:count].copy()

    def release_task(self, int64_t task, Py_ssize_t user, Py_ssize_t machine):
        """Task `task` (a trace row) of `user` finished on `machine`: free what it held,
        and take back the set-aside users whose next task fits on `machine` now."""
        cdef Py_ssize_t r, j, u
        cdef int64_t head
        if not (0 <= user < self.n and 0 <= machine < self.M and
                0 <= task < self.demand.shape[0]):
            raise IndexError(f"release_task({task}, {user}, {machine}) out of range")
        if self.running_[user] <= 0 or self.tasks_on[machine] <= 0:
            raise ValueError(f"user {user} has no task running on machine {machine}")
        self.tasks_on[machine] -= 1
        self.running_[user] -= 1
        for r in range(self.m):
            if self.tasks_on[machine] == 0:
                self.used[machine, r] = 0.0
            else:
                self.used[machine, r] = max(0.0, self.used[machine, r] - self.demand[task, r])
            if self.running_[user] == 0:
                self.uused[user, r] = 0.0
            else:
                self.uused[user, r] = max(0.0, self.uused[user, r] - self.demand[task, r])
        self._changed(machine)
        if self.mode != SLOTS:
            if self.n_log == self.relog.shape[0]:
                self.relog = np.resize(np.asarray(self.relog), 2 * self.n_log)
            self.relog[self.n_log] = machine
            self.n_log += 1
        self._set_key(user)
        if self.pos[user] >= 0:                     # its share shrank: it can only move up
            iheap_sift_up(&self.ready, self.pos[user])
        j = 0
        while j < self.n_blocked:
            u = self.blocked_list[j]
            head = self.order[self.start[u] + self.launched_[u]]
            if self._fits(machine, head):
                self.blocked[u] = 0
                self.n_blocked -= 1
                self.blocked_list[j] = self.blocked_list[self.n_blocked]
                iheap_update(&self.ready, u)
            else:
                j += 1

    def release(self, user, machine):
        raise TypeError("DRFHScheduler needs to know which task finished: the simulator calls "
                        "release_task(task, user, machine)")

    def add_tasks(self, Py_ssize_t user, long long count):
        """`count` more of `user`'s tasks (its next ones in trace order) are waiting."""
        if not 0 <= user < self.n:
            raise IndexError(f"user {user} out of range [0, {self.n})")
        if count < 0 or self.arrived[user] + count > self.start[user + 1] - self.start[user]:
            raise ValueError(f"user {user}: {count} more tasks than the trace holds")
        self.arrived[user] += count
        if self._waiting(user) and not self.blocked[user] and self.pos[user] < 0:
            self.mark[user] = -1
            self._set_key(user)
            iheap_update(&self.ready, user)

    @property
    def running(self):
        """Tasks running per user (a copy)."""
        return np.asarray(self.running_).copy()

    @property
    def launched(self):
        """Tasks launched per user (a copy)."""
        return np.asarray(self.launched_).copy()

    @property
    def usage(self):
        """Resources in use per server, (M, m) (a copy)."""
        return np.asarray(self.used).copy()

    @property
    def tasks_per_server(self):
        """Tasks running per server (a copy)."""
        return np.asarray(self.tasks_on).copy()

    @property
    def shares(self):
        """Each user's key: global dominant share over its weight (slots: its tasks over
        all slots, over its weight)."""
        return np.asarray(self.key)[:self.n].copy()
