"""Hierarchical schedulers over a cluster of machines: H-DRF (Bhattacharya et al., SoCC'13,
the slides' Algorithm: UpdateS and Alloc) and its rivals, one task launch per decision.

drfbench/hdrf/literal.py is the same algorithm written literally in Python (every share
recomputed from scratch at every decision, every fit tested against every machine): the
specification, against which this kernel is tested decision by decision, bit for bit.
The wrapper drfbench/hdrf/tasks.py validates the tree and the machines; this class
trusts them.

The tree is flat arrays in breadth-first order (a parent's id below its children's):
parent, first_child, next_sibling, depth. Per node: its usage vector U (the slides' U_i,
"scaled" for H-DRF), its key (its dominant share s_i over its weight), whether its subtree
can still place a task (`open`: not blocked) and whether it still has tasks (`demanding`).

Modes (the policy; flattening is STATIC on the flattened tree):
  HDRF      UpdateS: a node's U is the sum of its children's, the open (non-blocked)
            children first rescaled so that each has the lowest key among them, f (slide
            "Re-scaling Consumption Vectors", "Ignore Blocked Nodes"); blocked children
            count as they are; dominant shares over Y, the resources not used up
            cluster-wide. Alloc: from the root, the open child with the lowest key.
  STATIC    U the plain sum of the children's usage (no rescaling), shares over every
            resource; Alloc as H-DRF's (slide "Static H-DRF": top-down equalize).
  NAIVE     STATIC's shares; Alloc takes the lowest key among children that still have
            tasks, whether or not they can place one; a task that fits nowhere is waited
            for (nothing else launches): Hadoop's reservation of a node.
  CAPACITY  STATIC's order, but a task launches only if every node on its path then holds
            at most its guaranteed fraction of each resource; depth-first, so the next
            lowest is tried when one cannot launch. CAPACITY_PARETO: the same, then, when
            nothing fits within the guarantees, STATIC's choice (idle capacity filled).

Incremental shares. A launch, a release or new tasks change one leaf; placing on machine k
can block the leaves that fitted only there, a release on k can unblock leaves that fit on
k now. Each changed leaf marks its path dirty, and the dirty nodes are recomputed from
their children bottom-up, by depth: the path and its siblings, not the tree. Recomputing
a node from its children does exactly what a full recompute does, so the two agree bit
for bit (`incremental=False` recomputes every node after every change: the baseline).
For H-DRF a change of Y changes every leaf's share, and recomputes everything.

Blocked leaves, exactly. A leaf is open if it has tasks and its task fits on some machine
now, which depends on its task's shape alone: the distinct demand vectors (shapes) are
tracked, not the leaves. Each shape that fits somewhere watches one machine where it fits
(its witness, the last such machine, while launches go to the first); placing on k
re-tests only k's watchers, finding each a new witness or none (stuck); a release on k
tests the stuck shapes against k. A shape that changes marks its leaves that have tasks.
Machines sit in a segment tree holding, per resource, the most room among its machines,
so that the first and the last machine where a task fits are found without a scan.

Fit: used[k, r] + d[r] <= cap[k, r] * (1 + FIT_SLACK), as kernels/drf.pyx; a machine that
empties has its usage reset to exactly zero. Products that are summed pass through
`opaque`, so that no build fuses them into multiply-adds the literal version does not do.
"""
import numpy as np

from libc.math cimport INFINITY
from _common cimport int64_t, uint8_t
from _platform cimport opaque

cdef double FIT_SLACK = 1e-12        # as kernels/drf.pyx and drfbench.sim
cdef double EXHAUSTED = 1e-9         # a resource with at most this x its total free is used up
cdef double PRUNE = 1e-9             # segment tree pruning margin, x the largest capacity

cdef enum:
    HDRF = 0
    STATIC = 1
    NAIVE = 2
    CAPACITY = 3
    CAPACITY_PARETO = 4

MODES = {"hdrf": HDRF, "static": STATIC, "naive": NAIVE, "capacity": CAPACITY,
         "capacity-pareto": CAPACITY_PARETO}


cdef class TreeScheduler:
    """TreeScheduler(parent, first_child, next_sibling, depth, weight, guarantee, leaves,
                     demand, shape, shapes, queued, capacity, mode, incremental=True)

      parent, first_child, next_sibling, depth  (N,) int64: the tree, breadth-first (IN)
      weight, guarantee  (N,) float64: w_i > 0; guaranteed fraction of the cluster (IN)
      leaves   (L,) int64: the leaves' node ids, leaf i is user i (IN)
      demand   (L, m) float64: one task's resources per leaf (IN)
      shape    (L,) int64: leaf i's task shape, its row in `shapes` (IN)
      shapes   (S, m) float64: the distinct demand vectors (IN)
      queued   (L,) int64: tasks waiting per leaf, -1 for an unbounded queue (IN)
      capacity (M, m) float64: cap[k, r] (IN)
      mode     a value of MODES
    A policy for drfbench.sim: schedule(), release(leaf, machine), add_tasks(leaf, count).
    """
    cdef Py_ssize_t N, L, S, m, M, P, max_depth
    cdef int mode
    cdef public bint incremental               # may change at any time: same shares
    cdef readonly long long decisions          # descents: launches and failed attempts
    cdef readonly long long recomputed         # nodes recomputed from their children
    # the tree
    cdef int64_t[::1] parent, first_child, next_sibling, depth, leaf_node, node_leaf
    cdef double[::1] weight, guarantee
    cdef double[:, ::1] demand, shapes
    cdef int64_t[::1] shape, shape_ptr, shape_leaves     # leaves by shape (CSR)
    # machines: usage, and a segment tree of room (cap * (1 + FIT_SLACK) - used) maxima
    cdef double[:, ::1] cap, used, room
    cdef int64_t[::1] tasks_on
    cdef double[::1] total, consumed, margin
    cdef long long running_all
    # leaves
    cdef int64_t[::1] queue, running_, launched_
    cdef double[::1] unit                      # one task's weighted dominant share over Y
    # shapes: a witness machine each (watch lists per machine), or stuck (fit nowhere)
    cdef int64_t[::1] witness, watch_next, watch_prev, watch_head
    cdef int64_t[::1] stuck, stuck_pos
    cdef int64_t[::1] first_hint, last_hint    # per shape: no fit below / above
    cdef Py_ssize_t n_stuck
    # nodes
    cdef double[:, ::1] U
    cdef double[::1] key
    cdef uint8_t[::1] open_, demanding, in_y
    cdef uint8_t[::1] dirty
    cdef int64_t[::1] dirty_next, dirty_head
    cdef bint everything                       # recompute every node at the next settle
    cdef Py_ssize_t n_marked                   # marks since the last settle
    cdef int64_t[::1] scratch                  # capacity's depth-first search: children

    def __init__(self, const int64_t[::1] parent, const int64_t[::1] first_child,
                 const int64_t[::1] next_sibling, const int64_t[::1] depth,
                 const double[::1] weight, const double[::1] guarantee,
                 const int64_t[::1] leaves, const double[:, ::1] demand,
                 const int64_t[::1] shape, const double[:, ::1] shapes,
                 const int64_t[::1] queued, const double[:, ::1] capacity, int mode,
                 bint incremental=True):
        cdef Py_ssize_t i, k
        self.N = parent.shape[0]
        self.L = leaves.shape[0]
        self.S = shapes.shape[0]
        self.m = demand.shape[1]
        self.M = capacity.shape[0]
        self.mode = mode
        self.incremental = incremental
        self.decisions = 0
        self.recomputed = 0
        self.parent = np.array(parent)
        self.first_child = np.array(first_child)
        self.next_sibling = np.array(next_sibling)
        self.depth = np.array(depth)
        self.max_depth = max(np.asarray(depth).max(), 0)
        self.weight = np.array(weight)
        self.guarantee = np.array(guarantee)
        self.leaf_node = np.array(leaves)
        self.node_leaf = np.full(self.N, -1, dtype=np.int64)
        for i in range(self.L):
            self.node_leaf[leaves[i]] = i
        self.demand = np.array(demand)
        self.shapes = np.array(shapes)
        self.shape = np.array(shape)
        self.shape_leaves = np.argsort(shape, kind="stable")
        self.shape_ptr = np.searchsorted(np.asarray(shape)[self.shape_leaves],
                                         np.arange(self.S + 1))
        self.cap = np.array(capacity)
        self.used = np.zeros((self.M, self.m))
        self.tasks_on = np.zeros(self.M, dtype=np.int64)
        self.total = np.asarray(capacity).sum(axis=0)     # as kernels/drf.pyx
        self.consumed = np.zeros(self.m)
        self.margin = PRUNE * np.asarray(capacity).max(axis=0)
        self.running_all = 0
        self.P = 1
        while self.P < self.M:
            self.P *= 2
        self.room = np.full((2 * self.P, self.m), -INFINITY)
        for k in range(self.M):
            self._set_room(k)
        self.queue = np.array(queued)
        self.running_ = np.zeros(self.L, dtype=np.int64)
        self.launched_ = np.zeros(self.L, dtype=np.int64)
        self.unit = np.zeros(self.L)
        self.witness = np.full(self.S, -1, dtype=np.int64)
        self.watch_next = np.full(self.S, -1, dtype=np.int64)
        self.watch_prev = np.full(self.S, -1, dtype=np.int64)
        self.watch_head = np.full(self.M, -1, dtype=np.int64)
        self.stuck = np.zeros(self.S, dtype=np.int64)
        self.stuck_pos = np.full(self.S, -1, dtype=np.int64)
        self.first_hint = np.zeros(self.S, dtype=np.int64)
        self.last_hint = np.full(self.S, self.M - 1, dtype=np.int64)
        self.n_stuck = 0
        self.U = np.zeros((self.N, self.m))
        self.key = np.zeros(self.N)
        self.open_ = np.zeros(self.N, dtype=np.uint8)
        self.demanding = np.zeros(self.N, dtype=np.uint8)
        self.in_y = np.zeros(self.m, dtype=np.uint8)
        self.dirty = np.zeros(self.N, dtype=np.uint8)
        self.dirty_next = np.full(self.N, -1, dtype=np.int64)
        self.dirty_head = np.full(self.max_depth + 1, -1, dtype=np.int64)
        self.scratch = np.zeros(self.N, dtype=np.int64)
        self.n_marked = 0
        self._resources_left()
        for i in range(self.S):
            self._place_witness(i, self._last_fit(i))
        self.everything = True
        self._settle()

    # -- machines: fit, the segment tree --------------------------------------------------

    cdef bint _fits(self, Py_ssize_t s, Py_ssize_t k) noexcept nogil:
        """A task of shape s fits on machine k."""
        cdef Py_ssize_t r
        for r in range(self.m):
            if self.used[k, r] + self.shapes[s, r] > self.cap[k, r] * (1.0 + FIT_SLACK):
                return False
        return True

    cdef void _set_room(self, Py_ssize_t k) noexcept nogil:
        """Machine k's room into the segment tree, and the maxima above it."""
        cdef Py_ssize_t x = self.P + k, r
        for r in range(self.m):
            self.room[x, r] = self.cap[k, r] * (1.0 + FIT_SLACK) - self.used[k, r]
        x = x // 2
        while x >= 1:
            for r in range(self.m):
                self.room[x, r] = max(self.room[2 * x, r], self.room[2 * x + 1, r])
            x = x // 2

    cdef Py_ssize_t _machine(self, Py_ssize_t s, Py_ssize_t x, Py_ssize_t left,
                             Py_ssize_t width, bint last, Py_ssize_t lo,
                             Py_ssize_t hi) noexcept nogil:
        """The first (or last) machine in [lo, hi] under segment-tree node x (machines
        left .. left + width - 1) where a task of shape s fits, or -1. A subtree whose
        room is short of the task on some resource (by more than the rounding margin) is
        skipped; the machine itself is tested exactly (_fits)."""
        cdef Py_ssize_t r, half, found
        if left > hi or left + width <= lo:
            return -1
        for r in range(self.m):
            if self.shapes[s, r] > self.room[x, r] + self.margin[r]:
                return -1
        if width == 1:
            return left if self._fits(s, left) else -1
        half = width // 2
        found = self._machine(s, 2 * x + last, left + half * last, half, last, lo, hi)
        if found >= 0:
            return found
        return self._machine(s, 2 * x + 1 - last, left + half * (1 - last), half, last, lo, hi)

    cdef Py_ssize_t _first_fit(self, Py_ssize_t s) noexcept nogil:
        """The first machine where shape s fits (-1: none). No machine below
        first_hint[s] fits it: launches only take room, and a release on k lowers the
        hint to k; so a fill searches each machine about once per shape."""
        self.first_hint[s] = self._machine(s, 1, 0, self.P, False, self.first_hint[s], self.M - 1)
        return self.first_hint[s]

    cdef Py_ssize_t _last_fit(self, Py_ssize_t s) noexcept nogil:
        """The last machine where shape s fits (-1: none); none above last_hint[s] does."""
        self.last_hint[s] = self._machine(s, 1, 0, self.P, True, 0, self.last_hint[s])
        return self.last_hint[s]

    # -- witnesses: which shapes fit somewhere ---------------------------------------------

    cdef void _watch(self, Py_ssize_t i, Py_ssize_t k) noexcept nogil:
        cdef int64_t head = self.watch_head[k]
        self.witness[i] = k
        self.watch_prev[i] = -1
        self.watch_next[i] = head
        if head >= 0:
            self.watch_prev[head] = i
        self.watch_head[k] = i

    cdef void _unwatch(self, Py_ssize_t i) noexcept nogil:
        cdef int64_t k = self.witness[i], p = self.watch_prev[i], n = self.watch_next[i]
        if k < 0:
            return
        if p >= 0:
            self.watch_next[p] = n
        else:
            self.watch_head[k] = n
        if n >= 0:
            self.watch_prev[n] = p
        self.witness[i] = -1

    cdef void _unstick(self, Py_ssize_t i) noexcept nogil:
        cdef int64_t p = self.stuck_pos[i], last
        if p < 0:
            return
        self.n_stuck -= 1
        last = self.stuck[self.n_stuck]
        self.stuck[p] = last
        self.stuck_pos[last] = p
        self.stuck_pos[i] = -1

    cdef void _place_witness(self, Py_ssize_t i, Py_ssize_t k) noexcept nogil:
        """Shape i fits on machine k, or nowhere (k = -1): watch k or be stuck."""
        if k >= 0:
            self._unstick(i)
            self._watch(i, k)
        elif self.stuck_pos[i] < 0:
            self.stuck[self.n_stuck] = i
            self.stuck_pos[i] = self.n_stuck
            self.n_stuck += 1

    cdef void _mark_shape(self, Py_ssize_t s) noexcept nogil:
        """Shape s started or stopped fitting somewhere: its leaves with tasks changed."""
        cdef Py_ssize_t a, i
        for a in range(self.shape_ptr[s], self.shape_ptr[s + 1]):
            i = self.shape_leaves[a]
            if self.queue[i] != 0:
                self._mark(self.leaf_node[i])

    # -- shares ---------------------------------------------------------------------------

    cdef void _resources_left(self) noexcept nogil:
        """Y, the resources not used up cluster-wide (H-DRF); every resource otherwise.
        A change of Y (H-DRF) recomputes every share at the next settle."""
        cdef Py_ssize_t r
        cdef uint8_t left
        for r in range(self.m):
            left = self.total[r] > 0.0 and (
                self.mode != HDRF or self.total[r] - self.consumed[r] > EXHAUSTED * self.total[r])
            if left != self.in_y[r]:
                self.in_y[r] = left
                self.everything = True

    cdef void _units(self) noexcept nogil:
        """unit[i]: one task's dominant share over Y, over its weight (as kernels/drf.pyx)."""
        cdef Py_ssize_t i, r
        cdef double dom
        for i in range(self.L):
            dom = 0.0
            for r in range(self.m):
                if self.in_y[r] and self.demand[i, r] / self.total[r] > dom:
                    dom = self.demand[i, r] / self.total[r]
            self.unit[i] = dom / self.weight[self.leaf_node[i]]

    cdef void _leaf(self, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i = self.node_leaf[n], r
        cdef double tasks = <double>self.running_[i]
        for r in range(self.m):
            self.U[n, r] = tasks * self.demand[i, r]
        self.key[n] = tasks * self.unit[i]
        self.demanding[n] = self.queue[i] != 0
        self.open_[n] = self.queue[i] != 0 and self.witness[self.shape[i]] >= 0

    cdef void _inner(self, Py_ssize_t n) noexcept nogil:
        """UpdateS at node n, from its children (slides, "Algorithm")."""
        cdef Py_ssize_t r
        cdef int64_t c
        cdef double f = INFINITY, factor, s = 0.0
        cdef uint8_t is_open = 0, has_tasks = 0
        if self.mode == HDRF:          # f: the lowest key among the open children
            c = self.first_child[n]
            while c >= 0:
                if self.open_[c] and self.key[c] < f:
                    f = self.key[c]
                c = self.next_sibling[c]
        for r in range(self.m):
            self.U[n, r] = 0.0
        c = self.first_child[n]
        while c >= 0:
            factor = 1.0
            if self.mode == HDRF and self.open_[c] and self.key[c] > 0.0:
                factor = f / self.key[c]
            for r in range(self.m):
                self.U[n, r] = self.U[n, r] + opaque(self.U[c, r] * factor)
            is_open |= self.open_[c]
            has_tasks |= self.demanding[c]
            c = self.next_sibling[c]
        for r in range(self.m):
            if self.in_y[r] and self.U[n, r] / self.total[r] > s:
                s = self.U[n, r] / self.total[r]
        self.key[n] = s / self.weight[n]
        self.open_[n] = is_open
        self.demanding[n] = has_tasks

    cdef void _update(self, Py_ssize_t n) noexcept nogil:
        self.recomputed += 1
        if self.node_leaf[n] >= 0:
            self._leaf(n)
        else:
            self._inner(n)

    cdef void _push(self, Py_ssize_t n) noexcept nogil:
        """Node n onto its depth's dirty list (once)."""
        cdef int64_t d = self.depth[n]
        if not self.dirty[n]:
            self.dirty[n] = 1
            self.dirty_next[n] = self.dirty_head[d]
            self.dirty_head[d] = n

    cdef void _mark(self, Py_ssize_t n) noexcept nogil:
        """Node n changed: recompute it and its ancestors at the next settle. Once the
        dirty paths may reach a quarter of the nodes, everything is recomputed instead:
        one sweep in id order costs less than following the lists, and gives the same
        numbers."""
        if self.everything:
            return
        if not self.incremental:
            self.everything = True
            return
        self._push(n)
        self.n_marked += 1
        if self.n_marked * (self.max_depth + 1) > self.N // 4:
            self.everything = True

    cdef void _settle(self) noexcept nogil:
        """Bring every share up to date: the dirty nodes bottom-up, or everything."""
        cdef Py_ssize_t n, d
        self.n_marked = 0
        if self.everything:
            self.everything = False
            self._units()
            for n in range(self.N - 1, -1, -1):      # breadth-first ids: children first
                self._update(n)
                self.dirty[n] = 0
            for d in range(self.max_depth + 1):
                self.dirty_head[d] = -1
            return
        for d in range(self.max_depth, -1, -1):
            while self.dirty_head[d] >= 0:
                n = self.dirty_head[d]
                self.dirty_head[d] = self.dirty_next[n]
                self.dirty[n] = 0
                self._update(n)
                if n > 0:
                    self._push(self.parent[n])

    # -- Alloc ----------------------------------------------------------------------------

    cdef int64_t _lowest_child(self, Py_ssize_t n, const uint8_t[::1] eligible) noexcept nogil:
        """The eligible child of n with the lowest key (ties: the first), or -1."""
        cdef int64_t c = self.first_child[n], best = -1
        while c >= 0:
            if eligible[c] and (best < 0 or self.key[c] < self.key[best]):
                best = c
            c = self.next_sibling[c]
        return best

    cdef Py_ssize_t _descend(self, const uint8_t[::1] eligible) noexcept nogil:
        """Alloc: from the root to a leaf, each time the eligible child with the lowest key."""
        cdef int64_t n = 0
        if not eligible[0]:
            return -1
        while self.node_leaf[n] < 0:
            n = self._lowest_child(n, eligible)
        return self.node_leaf[n]

    cdef bint _within_guarantees(self, Py_ssize_t i) noexcept nogil:
        """One more task of leaf i keeps every node on its path within its guaranteed
        fraction of each resource (the capacity scheduler's limit)."""
        cdef int64_t a = self.leaf_node[i]
        cdef Py_ssize_t r
        while a > 0:
            for r in range(self.m):
                if self.U[a, r] + self.demand[i, r] > \
                        self.guarantee[a] * self.total[r] * (1.0 + FIT_SLACK):
                    return False
            a = self.parent[a]
        return True

    cdef Py_ssize_t _search(self, Py_ssize_t n, Py_ssize_t top) noexcept nogil:
        """Capacity: depth-first below n, open children in key order (ties: the first),
        the first leaf whose next task stays within the guarantees, or -1. The children
        are sorted in scratch[top:]."""
        cdef Py_ssize_t count = 0, a, b, found
        cdef int64_t c
        if self.node_leaf[n] >= 0:
            return self.node_leaf[n] if self._within_guarantees(self.node_leaf[n]) else -1
        c = self.first_child[n]
        while c >= 0:
            if self.open_[c]:
                b = top + count               # insertion: stable, by key
                while b > top and self.key[self.scratch[b - 1]] > self.key[c]:
                    self.scratch[b] = self.scratch[b - 1]
                    b -= 1
                self.scratch[b] = c
                count += 1
            c = self.next_sibling[c]
        for a in range(top, top + count):
            found = self._search(self.scratch[a], top + count)
            if found >= 0:
                return found
        return -1

    cdef Py_ssize_t _choose(self) noexcept nogil:
        """The leaf whose task launches next, or -1 (nothing launches)."""
        cdef Py_ssize_t i
        if self.mode == NAIVE:
            i = self._descend(self.demanding)
            return i if i >= 0 and self.witness[self.shape[i]] >= 0 else -1
        if self.mode == CAPACITY or self.mode == CAPACITY_PARETO:
            i = self._search(0, 0) if self.open_[0] else -1
            if i >= 0 or self.mode == CAPACITY:
                return i
        return self._descend(self.open_)

    # -- events ---------------------------------------------------------------------------

    cdef void _launch(self, Py_ssize_t i, Py_ssize_t k) noexcept nogil:
        """A task of leaf i on machine k; then re-test k's watchers."""
        cdef Py_ssize_t r
        cdef int64_t w, after
        for r in range(self.m):
            self.used[k, r] = self.used[k, r] + self.demand[i, r]
            self.consumed[r] = self.consumed[r] + self.demand[i, r]
        self.tasks_on[k] += 1
        self.running_all += 1
        self._set_room(k)
        self.running_[i] += 1
        self.launched_[i] += 1
        if self.queue[i] > 0:
            self.queue[i] -= 1
        self._mark(self.leaf_node[i])
        w = self.watch_head[k]
        while w >= 0:
            after = self.watch_next[w]
            if not self._fits(w, k):
                self._unwatch(w)
                self._place_witness(w, self._last_fit(w))
                if self.witness[w] < 0:
                    self._mark_shape(w)
            w = after
        self._resources_left()

    def schedule(self, long long max_tasks=-1):
        """Launch tasks until the policy launches nothing more (or max_tasks, if >= 0).
        Returns (leaves, machines): int32 arrays, one entry per launch, in order."""
        out_leaves = np.empty(64, dtype=np.int32)
        out_machines = np.empty(64, dtype=np.int32)
        cdef int[::1] leaves = out_leaves, machines = out_machines
        cdef Py_ssize_t count = 0, size = 64, i, k
        self._settle()
        while max_tasks < 0 or count < max_tasks:
            self.decisions += 1
            i = self._choose()
            if i < 0:
                break
            k = self._first_fit(self.shape[i])
            self._launch(i, k)
            self._settle()
            if count == size:
                size *= 2
                out_leaves = np.resize(out_leaves, size)
                out_machines = np.resize(out_machines, size)
                leaves = out_leaves
                machines = out_machines
            leaves[count] = i
            machines[count] = k
            count += 1
        return out_leaves[:count].copy(), out_machines[:count].copy()

    def release(self, Py_ssize_t leaf, Py_ssize_t machine):
        """A task of `leaf` running on `machine` finished: free its resources."""
        cdef Py_ssize_t r, s
        cdef int64_t i = leaf, k = machine, j
        if not 0 <= leaf < self.L:
            raise IndexError(f"leaf {leaf} out of range [0, {self.L})")
        if not 0 <= machine < self.M:
            raise IndexError(f"machine {machine} out of range [0, {self.M})")
        if self.running_[i] <= 0 or self.tasks_on[k] <= 0:
            raise ValueError(f"leaf {leaf} has no task running on machine {machine}")
        self.running_[i] -= 1
        self.tasks_on[k] -= 1
        self.running_all -= 1
        for r in range(self.m):
            if self.tasks_on[k] == 0:
                self.used[k, r] = 0.0
            else:
                self.used[k, r] = max(0.0, self.used[k, r] - self.demand[i, r])
            if self.running_all == 0:
                self.consumed[r] = 0.0
            else:
                self.consumed[r] = max(0.0, self.consumed[r] - self.demand[i, r])
        self._set_room(k)
        self._mark(self.leaf_node[i])
        for s in range(self.S):                 # k may fit any shape now
            self.first_hint[s] = min(self.first_hint[s], k)
            self.last_hint[s] = max(self.last_hint[s], k)
        s = 0
        while s < self.n_stuck:                 # the stuck shapes that fit on k now
            j = self.stuck[s]
            if self._fits(j, k):
                self._place_witness(j, k)       # moves the last stuck shape to s
                self._mark_shape(j)
            else:
                s += 1
        self._resources_left()

    def add_tasks(self, Py_ssize_t leaf, long long count):
        """Queue `count` more tasks for `leaf` (count -1: make its queue unbounded)."""
        cdef int64_t i = leaf
        if not 0 <= leaf < self.L:
            raise IndexError(f"leaf {leaf} out of range [0, {self.L})")
        if count < -1:
            raise ValueError(f"count must be >= 0, or -1 for an unbounded queue; got {count}")
        if count == 0 or self.queue[i] < 0:
            return
        self.queue[i] = -1 if count == -1 else self.queue[i] + count
        self._mark(self.leaf_node[i])

    @property
    def running(self):
        """Tasks running per leaf (a copy)."""
        return np.asarray(self.running_).copy()

    @property
    def launched(self):
        """Tasks launched per leaf since the start (a copy)."""
        return np.asarray(self.launched_).copy()

    @property
    def usage(self):
        """Resources in use per machine, (M, m) (a copy)."""
        return np.asarray(self.used).copy()

    @property
    def keys(self):
        """Each node's key, its dominant share over its weight, as the last decision saw
        it (a copy; H-DRF: of its rescaled usage, over Y)."""
        return np.asarray(self.key).copy()

    @property
    def node_usage(self):
        """Each node's usage vector U, (N, m) (a copy; H-DRF: rescaled)."""
        return np.asarray(self.U).copy()

    @property
    def blocked(self):
        """Each node's blocked flag: no task in its subtree can be placed now (a copy)."""
        return np.asarray(self.open_) == 0

    @property
    def exhausted(self):
        """Per resource: used up cluster-wide, left out of H-DRF's shares (not Y)."""
        return (np.asarray(self.in_y) == 0) & (np.asarray(self.total) > 0)
