"""Hierarchical schedulers over a cluster of machines: H-DRF (Bhattacharya et al., SoCC'13,
the slides' Algorithm: UpdateS and Alloc) and its rivals, one task launch per decision.

drfbench/hdrf/literal.py is the same algorithm written literally in Python (every share
recomputed from scratch at every decision, every fit tested against every machine): the
specification, against which this kernel is tested decision by decision, bit for bit.
The wrapper drfbench/hdrf/tasks.py validates the tree and the machines; this class
trusts them.

The tree is flat arrays in breadth-first order (a parent's id below its children's,
siblings' ids consecutive): parent, first_child, next_sibling. Per node: its usage vector U (the slides' U_i,
"scaled" for H-DRF), its key (its dominant share s_i over its weight), whether its subtree
can still place a task (`open`: not blocked) and whether it still has tasks (`demanding`).

The pieces: the policies, each one's rule in one place (its UpdateS a row of the
POLICIES table, its Alloc one method in TreeScheduler's "the policies" section: _hdrf,
_naive, _capacity, _capacity_pareto; flattening is STATIC on the flattened tree);
Machines (the machines' usage, the fit hints and the witnesses: which shapes fit
somewhere, the open-set's changes); OpenSets, the open-set cache (the inner nodes' shares
kept per open-set, the log of changes, the dirty rows); and TreeScheduler, which holds
the tree, the leaves' rows and the tournaments, keeps the open-set, and runs UpdateS
(through the cache) and the policy's Alloc.

Incremental shares, per open-set. A node's state (U, key, open, demanding) depends on its
subtree's leaves, each of which has a row of its own (U = running x demand, key = running x
unit, whether it has tasks), and on the open-set: the task shapes that fit somewhere now,
a leaf being open if it has tasks and its shape is in the set. A launch, a release or new tasks change one leaf's row; placing on machine k
can take shapes out of the open-set, a release on k put shapes in. While a cluster fills,
the open-set stays the same; at a full cluster it changes at every decision (a release
lets in the shapes that fit the freed room, the launches that fill it take them out), but
the sets met repeat (the residual rooms of a full cluster do: scripts/bench_hdrf.py's run
meets 128), and between two decisions under one set only a few leaves change.

So the inner nodes' states are kept per open-set met (a hash table of their bitsets),
up to `sets` of them (the least recently used one is overwritten); the leaves' rows are
kept once. Each changed leaf is appended to a log; before a decision, the kept set of the
open-set now is brought up to date: the leaves changed since it was last used mark their
parents dirty (a bitmap), and the dirty nodes are recomputed from their children
bottom-up, in decreasing id order (a parent's id is below its children's), each at most
once: the paths and their siblings, not the tree. A set not kept starts as
a copy of the current one, with the leaves of the shapes in one set and not the other
marked too. A set that more leaves changed for than the log holds (4 I entries, I the
inner nodes) has every inner node recomputed instead. Recomputing a node from its
children does exactly what a full recompute does, so the two agree bit for bit
(`incremental=False` recomputes every leaf and inner node at every decision: the
baseline). For H-DRF a change of Y changes every leaf's share: every kept set is then
recomputed in full when next used. A decision with no leaf open (no shape in the set
that a leaf with tasks has) launches nothing under any policy, and needs no shares.

Choosing a child, in O(log) of the children. A wide node's leaf children (TOURNAMENT or
more) are grouped by shape; per group a tournament (each slot the winner of the two
below: the lower key, ties the lower id, a scan's first) over its leaves with tasks
(variant 0) and, for the capacity modes, over those within their own guarantee and not
excluded (variant 1); per node, tournaments of its groups' winners (tops): TOP_OPEN
(variant 0, a group only while its shape is in the open-set), TOP_DEMANDING (variant 0,
every group), TOP_WITHIN (variant 1, open). A leaf's change replays its slots; a shape
entering or leaving the open-set, its groups' (one per wide node with leaves of that
shape), not its leaves'. At a node, Alloc takes its top's winner against the children it
scans (a wide node's inner children, whose rows are per open-set; every child of another
node), and its flags are its tops' and those children's. (Tournaments at every node cost
more at a full cluster, where shapes enter and leave the open-set at every decision, than
a scan of a few children.) The root's key and U decide nothing (Alloc compares children;
the guarantees stop below the root): they are summed only for `keys` and `node_usage`. A
node below it still sums its children's U in their order (the transcription's sum; for
H-DRF rescaled by f), O(children x m).

Memory: a leaf's row (key, then U) is indexed by its node id, so that a node's children's
rows are contiguous; a set's rows are indexed by inner node (in id order, so the same
holds for inner children). Dirty nodes are visited in address order, the next one's rows
requested (prefetched) while one is recomputed.

Blocked leaves, exactly. A leaf is open if it has tasks and its task fits on some machine
now, which depends on its task's shape alone: the distinct demand vectors (shapes) are
tracked, not the leaves. Each shape that fits somewhere watches one machine where it fits
(its witness, the last such machine, while launches go to the first); placing on k
re-tests only k's watchers, finding each a new witness or none (stuck); a release on k
tests the stuck shapes against k. A shape that starts or stops fitting changes the
open-set. Machines sit in a segment tree holding, per resource, the most room among its
machines, so that the first and the last machine where a task fits are found without a
scan. At a full cluster its per-resource maxima prune little (every machine has a little
room of some resource), but there a shape fits nowhere but on the machines released
since it last fitted nowhere (room only grows by releases, and each release tested the
stuck shapes): while those are among the last RELEASES releases, they alone are tested.

Fit: used[k, r] + d[r] <= cap[k, r] * (1 + FIT_SLACK), as drfbench/drf/drf.pyx; a machine that
empties has its usage reset to exactly zero. No build fuses a product into a multiply-add
the literal version does not do (drfbench/_variants.py's -ffp-contract=off).
"""
import numpy as np

cimport cython
from libc.math cimport INFINITY
from libc.stdint cimport uint64_t
from libc.string cimport memcmp, memcpy
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from _common cimport int32_t, int64_t, uint8_t
from _platform cimport LINE, prefetch

cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil     # trailing zero bits (x != 0)
    int __builtin_clzll(unsigned long long x) nogil     # leading zero bits (x != 0)

cdef double FIT_SLACK = 1e-12        # as drfbench/drf/drf.pyx and drfbench.sim
cdef double EXHAUSTED = 1e-9         # a resource with at most this x its total free is used up
cdef double PRUNE = 1e-9             # segment tree pruning margin, x the largest capacity
cdef Py_ssize_t RELEASES = 64        # the last releases' machines, kept for the fit tests
SET_MEMORY = 64 * 2**20              # sets=0: as many kept sets as this many bytes hold,
MAX_SETS = 1024                      # at most this many
TOURNAMENT = 64                      # a row with this many leaf children or more picks
                                     # among them by tournament, not by a scan

cdef enum:
    OPEN = 1                         # a node's flags: not blocked,
    DEMANDING = 2                    # has tasks
    INNER = -2                       # wants[n] of an inner node

cdef enum:
    TOP_OPEN = 0                     # the rows' tournaments of groups: open leaves,
    TOP_DEMANDING = 1                # leaves with tasks,
    TOP_WITHIN = 2                   # open leaves within their own guarantees (capacity)

cdef enum:
    HDRF = 0
    STATIC = 1
    NAIVE = 2
    CAPACITY = 3
    CAPACITY_PARETO = 4

MODES = {"hdrf": HDRF, "static": STATIC, "naive": NAIVE, "capacity": CAPACITY,
         "capacity-pareto": CAPACITY_PARETO}


cdef struct Policy:
    # UpdateS: a node's U is the sum of its children's, the open (non-blocked) children
    # first rescaled so that each has f, the lowest key among them (slide "Re-scaling
    # Consumption Vectors", "Ignore Blocked Nodes"; blocked children count as they are),
    # else the plain sum
    bint rescale
    # the dominant shares are over Y, the resources not used up cluster-wide, else over
    # every resource
    bint over_y
    # Alloc keeps every node within its guarantees: the leaves' TOP_WITHIN tournaments
    bint guarantees

# Each mode's UpdateS (its Alloc: TreeScheduler's "the policies" section)
cdef Policy POLICIES[5]
POLICIES[HDRF] = Policy(rescale=True, over_y=True, guarantees=False)
POLICIES[STATIC] = Policy(rescale=False, over_y=False, guarantees=False)
POLICIES[NAIVE] = Policy(rescale=False, over_y=False, guarantees=False)
POLICIES[CAPACITY] = Policy(rescale=False, over_y=False, guarantees=True)
POLICIES[CAPACITY_PARETO] = Policy(rescale=False, over_y=False, guarantees=True)


cdef inline uint64_t mix(uint64_t x) noexcept nogil:
    """splitmix64's finalizer: a shape's random-looking 64-bit code (Zobrist hashing)."""
    x = (x ^ (x >> 30)) * <uint64_t>0xbf58476d1ce4e5b9
    x = (x ^ (x >> 27)) * <uint64_t>0x94d049bb133111eb
    return x ^ (x >> 31)


@cython.final
cdef class Machines:
    """Machines(capacity, shapes): the machines, and where each task shape fits.

      capacity (M, m) float64: cap[k, r]
      shapes   (S, m) float64: the distinct demand vectors
    Its interface to the scheduler: fits(s, k); fits_somewhere(s) (shape s has a
    witness); first_fit(s), the machine a task of shape s launches on; take(k, d) and
    free(k, d), a task of demand d placed on or gone from machine k, each returning how
    many shapes it gave a new witness or none, listed in `changed` (the open-set's
    changes). Usage: `used` and `tasks_on` per machine; a segment tree of room
    (cap * (1 + FIT_SLACK) - used) maxima; per shape, its fit hints and its witness
    (watch lists per machine), or stuck.
    """
    cdef Py_ssize_t M, m, S, P
    cdef double[:, ::1] cap, used, room, shapes
    cdef int64_t[::1] tasks_on
    cdef double[::1] margin
    cdef int64_t[::1] witness, watch_next, watch_prev, watch_head
    cdef int64_t[::1] stuck, stuck_pos
    cdef int64_t[::1] first_hint, last_hint    # per shape: no fit below / above
    cdef int64_t[::1] since                    # per shape: fits only on released[since:]
    cdef int64_t[::1] released                 # the machines of the last RELEASES releases
    cdef long long n_released
    cdef Py_ssize_t n_stuck
    cdef int64_t[::1] changed                  # the shapes the last take or free moved

    def __init__(self, const double[:, ::1] capacity, const double[:, ::1] shapes):
        cdef Py_ssize_t k, s
        self.M, self.m, self.S = capacity.shape[0], capacity.shape[1], shapes.shape[0]
        self.shapes = np.array(shapes)
        self.cap = np.array(capacity)
        self.used = np.zeros((self.M, self.m))
        self.tasks_on = np.zeros(self.M, dtype=np.int64)
        self.margin = PRUNE * np.asarray(capacity).max(axis=0)
        self.P = 1
        while self.P < self.M:
            self.P *= 2
        self.room = np.full((2 * self.P, self.m), -INFINITY)
        for k in range(self.M):
            self._set_room(k)
        self.witness = np.full(self.S, -1, dtype=np.int64)
        self.watch_next = np.full(self.S, -1, dtype=np.int64)
        self.watch_prev = np.full(self.S, -1, dtype=np.int64)
        self.watch_head = np.full(self.M, -1, dtype=np.int64)
        self.stuck = np.zeros(self.S, dtype=np.int64)
        self.stuck_pos = np.full(self.S, -1, dtype=np.int64)
        self.first_hint = np.zeros(self.S, dtype=np.int64)
        self.last_hint = np.full(self.S, self.M - 1, dtype=np.int64)
        self.since = np.full(self.S, -1, dtype=np.int64)
        self.released = np.zeros(RELEASES, dtype=np.int64)
        self.n_released = 0
        self.n_stuck = 0
        self.changed = np.zeros(self.S, dtype=np.int64)
        for s in range(self.S):
            self._place_witness(s, self.last_fit(s))

    cdef inline bint fits_somewhere(self, Py_ssize_t s) noexcept nogil:
        """Shape s fits on some machine now (it has a witness)."""
        return self.witness[s] >= 0

    cdef Py_ssize_t take(self, Py_ssize_t k, const double* d) noexcept nogil:
        """A task of demand d placed on machine k; then k's watchers re-tested, each one
        that no longer fits there given a new witness or none (in `changed`: returns how
        many)."""
        cdef Py_ssize_t r, n = 0
        cdef int64_t w, after
        for r in range(self.m):
            self.used[k, r] = self.used[k, r] + d[r]
        self.tasks_on[k] += 1
        self._set_room(k)
        w = self.watch_head[k]
        while w >= 0:
            after = self.watch_next[w]
            if not self.fits(w, k):
                self._unwatch(w)
                self._place_witness(w, self.last_fit(w))
                self.changed[n] = w
                n += 1
            w = after
        return n

    cdef Py_ssize_t free(self, Py_ssize_t k, const double* d) noexcept nogil:
        """A task of demand d on machine k finished (a machine that empties has its usage
        reset to exactly zero); the stuck shapes that fit on k now watch it (in
        `changed`: returns how many)."""
        cdef Py_ssize_t r, s, n = 0
        cdef int64_t j
        self.tasks_on[k] -= 1
        for r in range(self.m):
            if self.tasks_on[k] == 0:
                self.used[k, r] = 0.0
            else:
                self.used[k, r] = max(0.0, self.used[k, r] - d[r])
        self._set_room(k)
        for s in range(self.S):                 # k may fit any shape now
            self.first_hint[s] = min(self.first_hint[s], k)
            self.last_hint[s] = max(self.last_hint[s], k)
        self.released[self.n_released % RELEASES] = k
        self.n_released += 1
        s = 0
        while s < self.n_stuck:                 # the stuck shapes that fit on k now: there
            j = self.stuck[s]                   # alone (each release since they stuck
            if self.fits(j, k):                 # tested them)
                self._place_witness(j, k)       # moves the last stuck shape to s
                self.since[j] = self.n_released - 1
                self.changed[n] = j
                n += 1
            else:
                s += 1
        return n

    # -- fit, the segment tree ------------------------------------------------------------

    cdef inline bint fits(self, Py_ssize_t s, Py_ssize_t k) noexcept nogil:
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
        skipped; the machine itself is tested exactly (fits)."""
        cdef Py_ssize_t r, half, found
        if left > hi or left + width <= lo:
            return -1
        for r in range(self.m):
            if self.shapes[s, r] > self.room[x, r] + self.margin[r]:
                return -1
        if width == 1:
            return left if self.fits(s, left) else -1
        half = width // 2
        found = self._machine(s, 2 * x + last, left + half * last, half, last, lo, hi)
        if found >= 0:
            return found
        return self._machine(s, 2 * x + 1 - last, left + half * (1 - last), half, last, lo, hi)

    cdef Py_ssize_t _released_fit(self, Py_ssize_t s, bint last) noexcept nogil:
        """The first (or last) machine where shape s fits among those released since
        since[s] (outside them it fits nowhere), or -1."""
        cdef long long e
        cdef Py_ssize_t k, best = -1
        for e in range(self.since[s], self.n_released):
            k = self.released[e % RELEASES]
            if (best < 0 or (k > best if last else k < best)) and self.fits(s, k):
                best = k
        return best

    cdef bint _few_released(self, Py_ssize_t s) noexcept nogil:
        """Shape s fits only on machines among the last RELEASES releases'."""
        return self.since[s] >= 0 and self.n_released - self.since[s] <= RELEASES

    cdef Py_ssize_t first_fit(self, Py_ssize_t s) noexcept nogil:
        """The first machine where shape s fits (-1: none). No machine below
        first_hint[s] fits it: launches only take room, and a release on k lowers the
        hint to k; so a fill searches each machine about once per shape. At a full
        cluster, where the segment tree's per-resource maxima prune little, a shape that
        fitted nowhere since a few releases ago is tested on their machines alone."""
        if self._few_released(s):
            self.first_hint[s] = self._released_fit(s, False)
        else:
            self.first_hint[s] = self._machine(s, 1, 0, self.P, False, self.first_hint[s],
                                               self.M - 1)
        return self.first_hint[s]

    cdef Py_ssize_t last_fit(self, Py_ssize_t s) noexcept nogil:
        """The last machine where shape s fits (-1: none); none above last_hint[s] does."""
        if self._few_released(s):
            self.last_hint[s] = self._released_fit(s, True)
        else:
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
        """Shape i fits on machine k, or nowhere (k = -1): watch k or be stuck. A stuck
        shape fits only where a later release makes room (since[i])."""
        if k >= 0:
            self._unstick(i)
            self._watch(i, k)
        else:
            self.since[i] = self.n_released
            if self.stuck_pos[i] < 0:
                self.stuck[self.n_stuck] = i
                self.stuck_pos[i] = self.n_stuck
                self.n_stuck += 1


@cython.final
cdef class OpenSets:
    """OpenSets(rows, m, sets, bits, hash): the open-set cache, the kept sets.

      rows     the inner nodes: per set, each one's row (key, then U: m + 1 doubles) and
               flags, rows in id order (a parent's row below its children's)
      sets     the most open-sets kept (>= 1; 0: as many as SET_MEMORY bytes hold, at
               most MAX_SETS); each takes `set_bytes`
      bits, hash  the open-set now (a bitset of shapes, its hash): the first set's key
    Its interface to the scheduler: switch(bits, hash, keep) makes the open-set's kept
    set current (`rec`, `flags`: its rows), found by its hash or made from the current
    one; log(j) notes a change under row j; replay(extra) marks the rows logged since the
    current set was synced, pop(j) takes the highest marked row (bottom-up), synced()
    stamps the current set up to date; stale() makes every set be recomputed in full.
    """
    cdef Py_ssize_t I, m, W, R
    cdef readonly Py_ssize_t sets              # the most open-sets kept
    cdef readonly Py_ssize_t set_bytes         # memory per kept set
    cdef readonly Py_ssize_t n_sets            # kept now
    cdef readonly long long built              # kept sets made for an open-set not kept
    cdef readonly long long reused             # switches to an open-set kept
    cdef Py_ssize_t cur
    cdef double* rec                           # the current set's rows and flags
    cdef uint8_t* flags
    # per set: every inner node's key and U (a row as the leaves'), flags; its key (bits,
    # hash); the log position it reflects (-1: none); its last use (LRU), hash chains
    cdef double[:, :, ::1] set_rec
    cdef uint8_t[:, ::1] set_flags
    cdef uint64_t[:, ::1] set_bits
    cdef uint64_t[::1] set_hash
    cdef int64_t[::1] set_synced
    cdef int64_t[::1] set_used, set_next, buckets
    cdef long long clock
    cdef uint64_t[::1] delta                   # shapes in a new set xor its source's
    cdef int64_t[::1] log                      # the rows above changed leaves (a ring of R)
    cdef long long changes
    cdef uint64_t[::1] marks, marked           # dirty rows: a bit each, and a bit per 64
                                               # of those words that are not zero

    def __init__(self, Py_ssize_t rows, Py_ssize_t m, Py_ssize_t sets,
                 const uint64_t[::1] bits, uint64_t hash):
        cdef Py_ssize_t buckets = 1
        if sets < 0:
            raise ValueError(f"sets must be >= 1, or 0 for as many as {SET_MEMORY} bytes hold; "
                             f"got {sets}")
        self.I, self.m, self.W = rows, m, bits.shape[0]
        self.R = 4 * rows
        # per kept set: U, key, open and demanding per inner node; its bits; its hash,
        # log position, clock, chain link and (at most) two hash buckets
        self.set_bytes = rows * (8 * (m + 1) + 1) + 8 * self.W + 8 * 6
        self.sets = sets if sets > 0 else max(1, min(MAX_SETS, SET_MEMORY // self.set_bytes))
        self.set_rec = np.empty((self.sets, rows, m + 1))
        self.set_flags = np.empty((self.sets, rows), dtype=np.uint8)
        self.set_bits = np.zeros((self.sets, self.W), dtype=np.uint64)
        self.set_hash = np.zeros(self.sets, dtype=np.uint64)
        self.set_synced = np.full(self.sets, -1, dtype=np.int64)
        self.set_used = np.zeros(self.sets, dtype=np.int64)
        self.set_next = np.full(self.sets, -1, dtype=np.int64)
        while buckets < 2 * self.sets:
            buckets *= 2
        self.buckets = np.full(buckets, -1, dtype=np.int64)
        self.delta = np.zeros(self.W, dtype=np.uint64)
        self.log = np.zeros(self.R, dtype=np.int64)
        self.marks = np.zeros((rows + 63) // 64, dtype=np.uint64)
        self.marked = np.zeros((rows + 4095) // 4096, dtype=np.uint64)
        self.n_sets = 1                        # the first kept set: the open-set now
        self._key(0, &bits[0], hash)
        self._point(0)

    cdef void _point(self, Py_ssize_t v) noexcept nogil:
        """Kept set v is the current one."""
        self.cur = v
        self.rec = &self.set_rec[v, 0, 0]
        self.flags = &self.set_flags[v, 0]

    cdef void _key(self, Py_ssize_t v, const uint64_t* bits, uint64_t hash) noexcept nogil:
        """Kept set v is for open-set `bits`: its bits, its hash chain."""
        cdef Py_ssize_t w
        cdef int64_t b = hash & (self.buckets.shape[0] - 1)
        for w in range(self.W):
            self.set_bits[v, w] = bits[w]
        self.set_hash[v] = hash
        self.set_next[v] = self.buckets[b]
        self.buckets[b] = v

    cdef void _unkey(self, Py_ssize_t v) noexcept nogil:
        """Kept set v leaves its hash chain."""
        cdef int64_t b = self.set_hash[v] & (self.buckets.shape[0] - 1), p = -1, x
        x = self.buckets[b]
        while x != v:
            p = x
            x = self.set_next[x]
        if p < 0:
            self.buckets[b] = self.set_next[v]
        else:
            self.set_next[p] = self.set_next[v]

    cdef bint _is(self, Py_ssize_t v, const uint64_t* bits, uint64_t hash) noexcept nogil:
        """Kept set v is for open-set `bits`."""
        return self.set_hash[v] == hash and memcmp(
            &self.set_bits[v, 0], bits, self.W * sizeof(uint64_t)) == 0

    cdef Py_ssize_t _victim(self, bint keep) noexcept nogil:
        """The slot for an open-set not kept: a free one, else the least recently used
        (the current one itself with sets=1, or if not `keep`: the baseline keeps
        nothing)."""
        cdef Py_ssize_t v, best = self.cur
        if not keep:
            self._unkey(best)
            return best
        if self.n_sets < self.sets:
            self.n_sets += 1
            return self.n_sets - 1
        for v in range(self.n_sets):
            if v != self.cur and (best == self.cur or self.set_used[v] < self.set_used[best]):
                best = v
        self._unkey(best)
        return best

    cdef bint switch(self, const uint64_t* bits, uint64_t hash, bint keep) noexcept nogil:
        """Make the kept set of open-set `bits` current: found by its hash, or made from
        the current one (copied; `delta` then holds the shapes in one and not the other,
        whose leaves are to be recomputed, and it returns True)."""
        cdef Py_ssize_t v, src = self.cur, w
        if self._is(src, bits, hash):
            return False
        v = self.buckets[hash & (self.buckets.shape[0] - 1)]
        while v >= 0 and not self._is(v, bits, hash):
            v = self.set_next[v]
        if v >= 0:
            self.reused += 1
            self._point(v)
            return False
        self.built += 1
        for w in range(self.W):
            self.delta[w] = self.set_bits[src, w] ^ bits[w]
        v = self._victim(keep)
        if v != src:
            memcpy(&self.set_rec[v, 0, 0], &self.set_rec[src, 0, 0],
                   self.I * (self.m + 1) * sizeof(double))
            memcpy(&self.set_flags[v, 0], &self.set_flags[src, 0], self.I)
            self.set_synced[v] = self.set_synced[src]
        self._key(v, bits, hash)
        self._point(v)
        return True

    cdef inline void log_change(self, int64_t j) noexcept nogil:
        """A leaf under inner row j changed."""
        self.log[self.changes % self.R] = j
        self.changes += 1

    cdef void stale(self) noexcept nogil:
        """Every kept set is recomputed in full when next used (every leaf changed)."""
        cdef Py_ssize_t v
        for v in range(self.n_sets):
            self.set_synced[v] = -1

    cdef bint replay(self, long long extra) noexcept nogil:
        """Mark the rows logged since the current set was last synced; False (none marked)
        if it never was, or if those and `extra` more rows to mark are more than the log
        holds: then every row is to be recomputed."""
        cdef long long e, start = self.set_synced[self.cur]
        if start < 0 or self.changes - start + extra > self.R:
            return False
        for e in range(start, self.changes):
            self.mark(self.log[e % self.R])
        return True

    cdef void synced(self) noexcept nogil:
        """The current set reflects every change logged so far; it was used now."""
        self.set_synced[self.cur] = self.changes
        self.clock += 1
        self.set_used[self.cur] = self.clock

    cdef inline void mark(self, Py_ssize_t j) noexcept nogil:
        """Inner row j is dirty."""
        self.marks[j >> 6] |= (<uint64_t>1) << (j & 63)
        self.marked[j >> 12] |= (<uint64_t>1) << ((j >> 6) & 63)

    cdef Py_ssize_t pop(self, Py_ssize_t j) noexcept nogil:
        """The highest dirty row at or below row j's group of 4096 rows, made clean, or
        -1."""
        cdef Py_ssize_t g = j >> 12, w
        while g >= 0:
            if self.marked[g] == 0:
                g -= 1
                continue
            w = 64 * g + 63 - __builtin_clzll(self.marked[g])
            if self.marks[w]:
                j = 64 * w + 63 - __builtin_clzll(self.marks[w])
                self.marks[w] &= ~((<uint64_t>1) << (j & 63))
                return j
            self.marked[g] &= ~((<uint64_t>1) << (w & 63))    # its word was emptied
        return -1


cdef class TreeScheduler:
    """TreeScheduler(parent, first_child, next_sibling, weight, guarantee, leaves, demand,
                     shape, shapes, queued, capacity, mode, incremental=True, sets=0)

      parent, first_child, next_sibling  (N,) int64: the tree, breadth-first (IN)
      weight, guarantee  (N,) float64: w_i > 0; guaranteed fraction of the cluster (IN)
      leaves   (L,) int64: the leaves' node ids, leaf i is user i (IN)
      demand   (L, m) float64: one task's resources per leaf (IN)
      shape    (L,) int64: leaf i's task shape, its row in `shapes` (IN)
      shapes   (S, m) float64: the distinct demand vectors (IN)
      queued   (L,) int64: tasks waiting per leaf, -1 for an unbounded queue (IN)
      capacity (M, m) float64: cap[k, r] (IN)
      mode     a value of MODES
      sets     the most open-sets whose inner nodes' shares are kept (>= 1; 0: as many as
               SET_MEMORY bytes hold, at most MAX_SETS); each takes `set_bytes`
    A policy for drfbench.sim: schedule(), release(leaf, machine), add_tasks(leaf, count).
    """
    cdef Py_ssize_t N, L, S, m, M, I, W
    cdef int mode
    cdef Policy policy                         # POLICIES[mode]
    cdef public bint incremental               # may change at any time: same shares
    cdef readonly long long decisions          # descents: launches and failed attempts
    cdef readonly long long recomputed         # leaf rows and inner nodes recomputed
    # the tree
    cdef int64_t[::1] parent, first_child, next_sibling, leaf_node, node_leaf
    cdef int64_t[::1] inner_node, inner_row    # inner nodes in id order; node -> row, -1
    # per inner row: its first child (a node id), its children, its first inner child's
    # row (-1: none), its inner children, its parent's row, its depth; per leaf: its
    # parent's row
    cdef int64_t[::1] row_first, n_children, kid_row, kid_inner, up_row, leaf_up
    cdef double[::1] weight, guarantee
    cdef double[:, ::1] demand
    cdef int64_t[::1] shape, shape_ptr, shape_leaves     # leaves by shape (CSR)
    # a wide row's (TOURNAMENT leaf children or more) leaf children in groups of one
    # shape (-1: a leaf of another row), each group a tournament per variant
    # (0: the leaves with tasks; 1, capacity: those not excluded and within their own
    # guarantees), whose winners play a tournament per row, per top (TOP_*); a
    # tournament of width w is 2w slots, entries at w.., its winner (a leaf node, -1:
    # none) at 1
    cdef int64_t[::1] group_of, group_pos               # per leaf
    cdef int64_t[::1] group_row, group_shape, group_at, group_width, group_slot
    cdef int64_t[::1] top_at, top_width                 # per inner row
    cdef int64_t[::1] scan_ptr, scan_node      # per row, the children it scans (CSR): all
                                               # of them, or a wide row's inner children
    cdef int64_t[::1] shape_gptr, shape_groups          # groups by shape (CSR)
    cdef int64_t[:, ::1] games, tops
    cdef Py_ssize_t V, T
    cdef uint8_t[::1] excluded                 # capacity's search: leaves out of reach
    cdef int64_t[::1] excl
    cdef Py_ssize_t n_excl
    # the machines, where each shape fits; the cluster's resources, in use
    cdef Machines machines
    cdef double[::1] total, consumed
    cdef long long running_all
    # leaves: their own rows, shared by every kept set
    cdef int64_t[::1] queue, running_, launched_
    cdef double[::1] unit                      # one task's weighted dominant share over Y
    cdef double[:, ::1] leaf_rec               # per leaf node: key, then U (m)
    cdef int32_t[::1] wants                    # per node: a leaf's shape if it has tasks,
                                               # else -1; INNER
    cdef uint8_t[::1] in_y
    cdef bint units_stale                      # Y changed: every unit and leaf row
    # the open-set now: the shapes that fit somewhere
    cdef uint8_t[::1] in_set
    cdef uint64_t[::1] bits, code              # the set as a bitset; per shape, its code
    cdef uint64_t hash                         # the codes of its shapes, xor-ed
    cdef bint moved                            # changed since the last settle
    cdef int64_t[::1] wanted                   # per shape: its leaves with tasks
    cdef uint8_t[::1] live                     # per shape: in the set, and wanted
    cdef Py_ssize_t n_live                     # 0: no leaf is open
    # the inner nodes' rows and flags per open-set met, the log of changes, dirty rows
    cdef OpenSets kept
    cdef double* crec                          # its current set's rows and flags (kept.rec,
    cdef uint8_t* cflags                       # kept.flags: _settle sets them)
    cdef long long n_delta                     # leaves with tasks of the shapes in delta
    cdef double** child_rec                    # _inner's: its children's rows, flags,
    cdef uint8_t* child_flags                  # rescaling factors
    cdef double* child_factor
    cdef int64_t[::1] scratch                  # capacity's depth-first search: children

    def __init__(self, const int64_t[::1] parent, const int64_t[::1] first_child,
                 const int64_t[::1] next_sibling, const double[::1] weight,
                 const double[::1] guarantee,
                 const int64_t[::1] leaves, const double[:, ::1] demand,
                 const int64_t[::1] shape, const double[:, ::1] shapes,
                 const int64_t[::1] queued, const double[:, ::1] capacity, int mode,
                 bint incremental=True, Py_ssize_t sets=0):
        cdef Py_ssize_t i, k
        self.N = parent.shape[0]
        self.L = leaves.shape[0]
        self.S = shapes.shape[0]
        self.m = demand.shape[1]
        self.M = capacity.shape[0]
        if not 0 <= mode < len(MODES):
            raise ValueError(f"mode must be a value of MODES, got {mode}")
        self.mode = mode
        self.policy = POLICIES[mode]
        self.incremental = incremental
        self.decisions = 0
        self.recomputed = 0
        self.parent = np.array(parent)
        self.first_child = np.array(first_child)
        self.next_sibling = np.array(next_sibling)
        self.weight = np.array(weight)
        self.guarantee = np.array(guarantee)
        self.leaf_node = np.array(leaves)
        self.node_leaf = np.full(self.N, -1, dtype=np.int64)
        for i in range(self.L):
            self.node_leaf[leaves[i]] = i
        self.inner_node = np.flatnonzero(np.asarray(self.node_leaf) < 0)
        self.I = self.inner_node.shape[0]
        self.inner_row = np.full(self.N, -1, dtype=np.int64)
        np.asarray(self.inner_row)[self.inner_node] = np.arange(self.I)
        siblings = np.flatnonzero(np.asarray(next_sibling) >= 0)
        if (np.asarray(next_sibling)[siblings] != siblings + 1).any():
            raise ValueError("the tree must be numbered breadth-first: a node's next sibling "
                             "is the next id")
        inner, rows, up = np.asarray(self.inner_node), np.asarray(self.inner_row), \
            np.asarray(parent)[1:]
        kids = rows[1:] >= 0                   # the inner nodes but the root
        first_kid = np.full(self.N, self.I, dtype=np.int64)
        np.minimum.at(first_kid, up[kids], rows[1:][kids])
        self.row_first = np.asarray(first_child)[inner]
        self.n_children = np.bincount(up, minlength=self.N)[inner]
        self.kid_row = np.where(first_kid[inner] < self.I, first_kid[inner], -1)
        self.kid_inner = np.bincount(up[kids], minlength=self.N)[inner]
        self.up_row = rows[np.maximum(np.asarray(parent)[inner], 0)]
        self.leaf_up = rows[np.asarray(parent)[np.asarray(leaves)]]
        self.demand = np.array(demand)
        self.shape = np.array(shape)
        self.shape_leaves = np.argsort(shape, kind="stable")
        self.shape_ptr = np.searchsorted(np.asarray(shape)[self.shape_leaves],
                                         np.arange(self.S + 1))
        self._groups()
        self.machines = Machines(capacity, shapes)
        self.total = np.asarray(capacity).sum(axis=0)     # as drfbench/drf/drf.pyx
        self.consumed = np.zeros(self.m)
        self.running_all = 0
        self.queue = np.array(queued)
        self.running_ = np.zeros(self.L, dtype=np.int64)
        self.launched_ = np.zeros(self.L, dtype=np.int64)
        self.unit = np.zeros(self.L)
        self.leaf_rec = np.zeros((self.N, self.m + 1))
        self.wants = np.full(self.N, INNER, dtype=np.int32)
        np.asarray(self.wants)[leaves] = np.where(np.asarray(queued) != 0, shape, -1)
        self.in_y = np.zeros(self.m, dtype=np.uint8)
        self.wanted = np.bincount(np.asarray(shape)[np.asarray(queued) != 0],
                                  minlength=self.S).astype(np.int64)
        self.in_set = np.zeros(self.S, dtype=np.uint8)
        self.live = np.zeros(self.S, dtype=np.uint8)
        self.W = (self.S + 63) // 64
        self.bits = np.zeros(self.W, dtype=np.uint64)
        self.code = np.zeros(self.S, dtype=np.uint64)
        for i in range(self.S):
            self.code[i] = mix(<uint64_t>i + <uint64_t>0x9e3779b97f4a7c15)
        self.hash = 0
        self.n_live = 0
        self.n_delta = 0
        self.scratch = np.zeros(self.N, dtype=np.int64)
        k = np.bincount(np.asarray(parent)[1:], minlength=1).max() if self.N > 1 else 1
        self.child_rec = <double**>PyMem_Malloc(k * sizeof(double*))
        self.child_flags = <uint8_t*>PyMem_Malloc(k)
        self.child_factor = <double*>PyMem_Malloc(k * sizeof(double))
        if self.child_rec == NULL or self.child_flags == NULL or self.child_factor == NULL:
            raise MemoryError()
        self._resources_left()
        for i in range(self.S):                # (the tournaments are played in _units)
            self._update_set(i)
        self.units_stale = True
        self.kept = OpenSets(self.I, self.m, sets, self.bits, self.hash)
        self._settle()

    def __dealloc__(self):
        PyMem_Free(self.child_rec)
        PyMem_Free(self.child_flags)
        PyMem_Free(self.child_factor)

    def _groups(self):
        """The wide rows' leaf children grouped by shape (by row, shape, node id), the
        tournaments' slots, every entry -1 (played in _units), and the rows' scan lists."""
        up = np.asarray(self.leaf_up)
        wide = np.bincount(up, minlength=self.I) >= TOURNAMENT
        mine = np.flatnonzero(wide[up])                     # the leaves in groups
        rows, shape = up[mine], np.asarray(self.shape)[mine]
        order = np.lexsort((np.asarray(self.leaf_node)[mine], shape, rows))
        rows, shape, mine = rows[order], shape[order], mine[order]
        new = np.ones(len(mine), dtype=bool)
        new[1:] = np.diff(rows) != 0
        new[1:] |= np.diff(shape) != 0
        starts = np.flatnonzero(new)
        group = np.cumsum(new) - 1
        self.group_of = np.full(self.L, -1, dtype=np.int64)
        self.group_pos = np.zeros(self.L, dtype=np.int64)
        np.asarray(self.group_of)[mine] = group
        np.asarray(self.group_pos)[mine] = np.arange(len(mine)) - starts[group]
        self.group_row, self.group_shape = rows[starts], shape[starts]
        width = self._widths(np.diff(np.append(starts, len(mine))))
        self.group_width = width
        self.group_at = np.cumsum(2 * width) - 2 * width
        first = np.searchsorted(rows[starts], np.arange(self.I))
        self.group_slot = np.arange(len(starts)) - first[rows[starts]]
        width = self._widths(np.bincount(rows[starts], minlength=self.I))
        self.top_width = width
        self.top_at = np.cumsum(2 * width) - 2 * width
        self.shape_groups = np.argsort(shape[starts], kind="stable")
        self.shape_gptr = np.searchsorted(shape[starts][self.shape_groups],
                                          np.arange(self.S + 1))
        self.V, self.T = (2, 3) if self.policy.guarantees else (1, 2)
        self.games = np.full((self.V, int(2 * np.sum(self.group_width))), -1, dtype=np.int64)
        self.tops = np.full((self.T, int(2 * np.sum(width))), -1, dtype=np.int64)
        self.excluded = np.zeros(self.L, dtype=np.uint8)
        self.excl = np.zeros(self.L, dtype=np.int64)
        self.n_excl = 0
        rows = np.asarray(self.inner_row)[np.asarray(self.parent)[1:]]
        scanned = np.flatnonzero(~(wide[rows] & (np.asarray(self.node_leaf)[1:] >= 0)))
        self.scan_node = scanned + 1                        # in id order: by row
        self.scan_ptr = np.searchsorted(rows[scanned], np.arange(self.I + 1))

    @staticmethod
    def _widths(sizes):
        """The tournaments' widths: the powers of two at least `sizes` (and 1)."""
        return 1 << np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)

    # -- the open-set and the log ---------------------------------------------------------

    cdef void _update_set(self, Py_ssize_t s) noexcept nogil:
        """Shape s is in the open-set if it fits somewhere; live if a leaf with tasks has
        it too. (Whether a leaf has tasks is its own row's: were the set only the live
        shapes, tasks arriving and running out would make it change as often.)"""
        cdef uint8_t inside = self.machines.fits_somewhere(s)
        cdef uint8_t live = inside and self.wanted[s] > 0
        cdef Py_ssize_t a
        if inside != self.in_set[s]:
            self.in_set[s] = inside
            self.bits[s >> 6] ^= (<uint64_t>1) << (s & 63)
            self.hash ^= self.code[s]
            self.moved = True
            for a in range(self.shape_gptr[s], self.shape_gptr[s + 1]):
                self._advance(self.shape_groups[a])
        if live != self.live[s]:
            self.live[s] = live
            self.n_live += 1 if live else -1

    cdef void _leaf(self, Py_ssize_t i) noexcept nogil:
        """Leaf i's row: key = running x unit, U = running x demand (UpdateS at a leaf)."""
        cdef Py_ssize_t r
        cdef double tasks = <double>self.running_[i]
        cdef int64_t n = self.leaf_node[i]
        self.leaf_rec[n, 0] = tasks * self.unit[i]
        for r in range(self.m):
            self.leaf_rec[n, 1 + r] = tasks * self.demand[i, r]
        self.recomputed += 1

    cdef void _changed(self, Py_ssize_t i) noexcept nogil:
        """Leaf i's running tasks, or whether it has tasks, changed: its row, its entries,
        and the log."""
        self._leaf(i)
        self._enter(i)
        self.kept.log_change(self.leaf_up[i])

    cdef void _has_tasks(self, Py_ssize_t i, bint before) noexcept nogil:
        """Leaf i's queue changed: if it started or stopped having tasks, its shape's count."""
        cdef bint now = self.queue[i] != 0
        if now != before:
            self.wants[self.leaf_node[i]] = self.shape[i] if now else -1
            self.wanted[self.shape[i]] += 1 if now else -1
            self._update_set(self.shape[i])

    # -- the leaves' tournaments -------------------------------------------------------------

    cdef inline bint _ahead(self, int64_t a, double key_a, int64_t b,
                            double key_b) noexcept nogil:
        """Node a (key key_a) is chosen before node b: a lower key, ties the lower id (a
        scan's first); -1 never is."""
        return a >= 0 and (b < 0 or key_a < key_b or (key_a == key_b and a < b))

    cdef inline double _key_of(self, int64_t n) noexcept nogil:
        return self.leaf_rec[n, 0] if n >= 0 else 0.0

    cdef void _match(self, int64_t* game, Py_ssize_t x) noexcept nogil:
        """Slot x of a tournament: the winner of its two slots below."""
        cdef int64_t a = game[2 * x], b = game[2 * x + 1]
        game[x] = a if self._ahead(a, self._key_of(a), b, self._key_of(b)) else b

    cdef void _play(self, int64_t* game, Py_ssize_t width, Py_ssize_t x,
                    int64_t entry) noexcept nogil:
        """Entry x of a tournament of `width` is now `entry`: the matches above it again."""
        x += width
        game[x] = entry
        x >>= 1
        while x >= 1:
            self._match(game, x)
            x >>= 1

    cdef int64_t _entry(self, Py_ssize_t i, Py_ssize_t v) noexcept nogil:
        """Leaf i's entry in variant v of its group: its node if it has tasks (v = 1: and
        is not excluded, and its next task stays within its own guarantee), else -1."""
        if self.queue[i] == 0 or (v == 1 and (self.excluded[i] or not self._local_ok(i))):
            return -1
        return self.leaf_node[i]

    cdef int64_t _winner(self, Py_ssize_t g, Py_ssize_t t) noexcept nogil:
        """Group g's entry in its row's top t: its winner of variant 1 (TOP_WITHIN) or 0,
        if its shape is in the open-set (but for TOP_DEMANDING)."""
        if t != TOP_DEMANDING and not self.in_set[self.group_shape[g]]:
            return -1
        return self.games[1 if t == TOP_WITHIN else 0, self.group_at[g] + 1]

    cdef void _enter(self, Py_ssize_t i) noexcept nogil:
        """Leaf i's row, tasks or exclusion changed: its entries, then its group's."""
        cdef Py_ssize_t g = self.group_of[i], v
        if g < 0:
            return
        for v in range(self.V):
            self._play(&self.games[v, self.group_at[g]], self.group_width[g],
                       self.group_pos[i], self._entry(i, v))
        self._advance(g)

    cdef void _advance(self, Py_ssize_t g) noexcept nogil:
        """Group g's winners into its row's tops."""
        cdef Py_ssize_t t, j = self.group_row[g]
        for t in range(self.T):
            self._play(&self.tops[t, self.top_at[j]], self.top_width[j], self.group_slot[g],
                       self._winner(g, t))

    cdef void _play_all(self) noexcept nogil:
        """Every tournament from scratch (every leaf's key changed)."""
        cdef Py_ssize_t i, g, j, v, t, x, G = self.group_row.shape[0]
        cdef int64_t* game
        for v in range(self.V):
            for i in range(self.L):
                g = self.group_of[i]
                if g >= 0:
                    self.games[v, self.group_at[g] + self.group_width[g] +
                               self.group_pos[i]] = self._entry(i, v)
            for g in range(G):
                game = &self.games[v, self.group_at[g]]
                for x in range(self.group_width[g] - 1, 0, -1):
                    self._match(game, x)
        for t in range(self.T):
            for g in range(G):
                j = self.group_row[g]
                self.tops[t, self.top_at[j] + self.top_width[j] + self.group_slot[g]] = \
                    self._winner(g, t)
            for j in range(self.I):
                game = &self.tops[t, self.top_at[j]]
                for x in range(self.top_width[j] - 1, 0, -1):
                    self._match(game, x)

    # -- shares ---------------------------------------------------------------------------

    cdef void _resources_left(self) noexcept nogil:
        """Y, the resources not used up cluster-wide (policy.over_y: H-DRF); every
        resource otherwise. A change of Y (H-DRF) changes every leaf's unit, so every
        share."""
        cdef Py_ssize_t r
        cdef uint8_t left
        for r in range(self.m):
            left = self.total[r] > 0.0 and (not self.policy.over_y or
                                             self.total[r] - self.consumed[r] >
                                             EXHAUSTED * self.total[r])
            if left != self.in_y[r]:
                self.in_y[r] = left
                self.units_stale = True

    cdef void _units(self) noexcept nogil:
        """unit[i]: one task's dominant share over Y, over its weight (as drfbench/drf/drf.pyx);
        and every leaf's row."""
        cdef Py_ssize_t i, r
        cdef double dom
        for i in range(self.L):
            dom = 0.0
            for r in range(self.m):
                if self.in_y[r] and self.demand[i, r] / self.total[r] > dom:
                    dom = self.demand[i, r] / self.total[r]
            self.unit[i] = dom / self.weight[self.leaf_node[i]]
            self._leaf(i)
        self._play_all()

    cdef inline double* _child(self, int64_t c, uint8_t* flags) noexcept nogil:
        """Node c's row in the current set (key, then U) and its flags (OUT)."""
        cdef int32_t s = self.wants[c]
        cdef int64_t j
        if s != INNER:                 # a leaf: open if it has tasks and its shape fits
            flags[0] = 0 if s < 0 else DEMANDING | self.in_set[s]
            return &self.leaf_rec[c, 0]
        j = self.inner_row[c]
        flags[0] = self.cflags[j]
        return self.crec + j * (self.m + 1)

    cdef void _inner(self, Py_ssize_t j) noexcept nogil:
        """UpdateS at inner node j (a row), from its children (slides, "Algorithm"): its
        flags from its tops and its other children's flags; its key and U
        (_sum) but at the root, whose are never consulted (Alloc compares children, the
        guarantees stop below the root), and so summed only when asked for."""
        cdef Py_ssize_t a
        cdef uint8_t flags = 0, child
        if self.tops[TOP_OPEN, self.top_at[j] + 1] >= 0:
            flags |= OPEN
        if self.tops[TOP_DEMANDING, self.top_at[j] + 1] >= 0:
            flags |= DEMANDING
        for a in range(self.scan_ptr[j], self.scan_ptr[j + 1]):
            self._child(self.scan_node[a], &child)
            flags |= child
        self.cflags[j] = flags
        if j > 0:
            self._sum(j)
        self.recomputed += 1

    cdef void _sum(self, Py_ssize_t j) noexcept nogil:
        """Inner row j's U and key from its children's, in their order (H-DRF: the open
        ones rescaled to f, the lowest key among them), as the transcription."""
        cdef Py_ssize_t r, a, count = self.n_children[j]
        cdef int64_t n = self.inner_node[j], first = self.row_first[j]
        cdef double f = INFINITY, total, s = 0.0
        cdef double* row = self.crec + j * (self.m + 1)
        cdef double* child
        for a in range(count):         # f: the lowest key among the open children
            child = self._child(first + a, &self.child_flags[a])
            self.child_rec[a] = child
            if self.child_flags[a] & OPEN and child[0] < f:
                f = child[0]
        for a in range(count):
            child = self.child_rec[a]
            self.child_factor[a] = 1.0
            if self.policy.rescale and self.child_flags[a] & OPEN and child[0] > 0.0:
                self.child_factor[a] = f / child[0]
        for r in range(self.m):        # summed in the children's order, as the reference
            total = 0.0
            for a in range(count):
                total = total + self.child_rec[a][1 + r] * self.child_factor[a]
            row[1 + r] = total
        for r in range(self.m):
            if self.in_y[r] and row[1 + r] / self.total[r] > s:
                s = row[1 + r] / self.total[r]
        row[0] = s / self.weight[n]

    cdef void _prefetch(self, Py_ssize_t j) noexcept nogil:
        """Request inner row j's own row and its children's (flags, leaf rows, inner
        rows), to be recomputed next: the dirty nodes lie anywhere in memory."""
        cdef int64_t first = self.row_first[j], kid = self.kid_row[j]
        cdef Py_ssize_t width = (self.m + 1) * sizeof(double)
        prefetch(self.crec + j * (self.m + 1))
        prefetch(&self.wants[first])
        if j > 0 and self.kid_inner[j] < self.n_children[j]:     # (the root sums nothing)
            self._prefetch_span(<char*>&self.leaf_rec[first, 0], self.n_children[j] * width)
        if kid >= 0:
            self._prefetch_span(<char*>(self.crec + kid * (self.m + 1)),
                                self.kid_inner[j] * width)
            prefetch(self.cflags + kid)

    cdef inline void _prefetch_span(self, char* start, Py_ssize_t size) noexcept nogil:
        cdef Py_ssize_t b = 0
        while b < size:
            prefetch(start + b)
            b += LINE

    # -- UpdateS ---------------------------------------------------------------------------

    cdef void _settle(self) noexcept nogil:
        """UpdateS for the open-set now: its kept set brought up to date, the nodes under
        the leaves changed since it was last used recomputed (or every inner node)."""
        cdef Py_ssize_t j, after, w, s, a
        cdef uint64_t word
        cdef bint full = not self.incremental
        if self.units_stale or full:
            self._units()
            if self.units_stale:
                self.kept.stale()
            self.units_stale = False
        self.n_delta = 0
        if self.moved and self.kept.switch(&self.bits[0], self.hash, self.incremental):
            for w in range(self.W):
                word = self.kept.delta[w]
                while word:
                    self.n_delta += self.wanted[64 * w + __builtin_ctzll(word)]
                    word &= word - 1
        self.moved = False
        self.crec = self.kept.rec
        self.cflags = self.kept.flags
        if full or not self.kept.replay(self.n_delta):
            for j in range(self.I - 1, -1, -1):     # breadth-first ids: children first
                self._inner(j)
        else:
            for w in range(self.W if self.n_delta else 0):
                word = self.kept.delta[w]
                while word:
                    s = 64 * w + __builtin_ctzll(word)
                    for a in range(self.shape_ptr[s], self.shape_ptr[s + 1]):
                        if self.queue[self.shape_leaves[a]] != 0:
                            self.kept.mark(self.leaf_up[self.shape_leaves[a]])
                    word &= word - 1
            j = self.kept.pop(self.I - 1)       # bottom-up: a parent's row is below
            while j >= 0:                       # its children's
                if j > 0:
                    self.kept.mark(self.up_row[j])
                after = self.kept.pop(j)
                if after >= 0:
                    self._prefetch(after)
                self._inner(j)
                j = after
        self.kept.synced()

    # -- Alloc ----------------------------------------------------------------------------

    cdef int64_t _lowest_child(self, Py_ssize_t n, bint naive) noexcept nogil:
        """The eligible child of n (open; naive: demanding) with the lowest key (ties: the
        first), or -1: its top's winner against the children it scans."""
        cdef Py_ssize_t j = self.inner_row[n], a
        cdef int64_t best = self.tops[TOP_DEMANDING if naive else TOP_OPEN, self.top_at[j] + 1]
        cdef int64_t c
        cdef uint8_t want = DEMANDING if naive else OPEN, flags
        cdef double best_key = self._key_of(best), key
        for a in range(self.scan_ptr[j], self.scan_ptr[j + 1]):
            c = self.scan_node[a]
            key = self._child(c, &flags)[0]
            if flags & want and self._ahead(c, key, best, best_key):
                best = c
                best_key = key
        return best

    cdef Py_ssize_t _descend(self, bint naive) noexcept nogil:
        """Alloc: from the root to a leaf, each time the eligible child with the lowest key."""
        cdef int64_t n = 0
        if not self.cflags[0] & (DEMANDING if naive else OPEN):
            return -1
        while self.node_leaf[n] < 0:
            n = self._lowest_child(n, naive)
        return self.node_leaf[n]

    cdef bint _local_ok(self, Py_ssize_t i) noexcept nogil:
        """One more task of leaf i keeps the leaf within its guaranteed fraction of each
        resource."""
        cdef Py_ssize_t r
        cdef int64_t n = self.leaf_node[i]
        for r in range(self.m):
            if self.leaf_rec[n, 1 + r] + self.demand[i, r] > \
                    self.guarantee[n] * self.total[r] * (1.0 + FIT_SLACK):
                return False
        return True

    cdef bint _path_within(self, int64_t a, Py_ssize_t i) noexcept nogil:
        """One more task of leaf i (-1: none) keeps inner node a and its ancestors below
        the root within their guaranteed fractions. None: no leaf below a can launch
        within the guarantees (demands are >= 0)."""
        cdef Py_ssize_t r
        cdef double* U
        while a > 0:
            U = self.crec + self.inner_row[a] * (self.m + 1) + 1
            for r in range(self.m):
                if U[r] + (self.demand[i, r] if i >= 0 else 0.0) > \
                        self.guarantee[a] * self.total[r] * (1.0 + FIT_SLACK):
                    return False
            a = self.parent[a]
        return True

    cdef bint _within_guarantees(self, Py_ssize_t i) noexcept nogil:
        """One more task of leaf i keeps every node on its path within its guaranteed
        fraction of each resource (the capacity scheduler's limit)."""
        return self._local_ok(i) and self._path_within(self.parent[self.leaf_node[i]], i)

    cdef Py_ssize_t _search(self, Py_ssize_t n, Py_ssize_t top) noexcept nogil:
        """Capacity: depth-first below n, open children in key order (ties: the first),
        the first leaf whose next task stays within the guarantees, or -1. The children
        it scans are sorted in scratch[top:]; a wide row's leaf children come from its
        TOP_WITHIN tournament (only those within their own guarantees), in key order, one
        whose path is not within theirs excluded until the search returns."""
        cdef Py_ssize_t count = 0, a = 0, b, j, mark = self.n_excl
        cdef Py_ssize_t found = -1
        cdef int64_t c, w
        cdef double key
        cdef uint8_t flags
        cdef bint leaves
        if self.node_leaf[n] >= 0:
            return self.node_leaf[n] if self._within_guarantees(self.node_leaf[n]) else -1
        j = self.inner_row[n]
        leaves = self._path_within(n, -1)
        for a in range(self.scan_ptr[j], self.scan_ptr[j + 1]):
            c = self.scan_node[a]
            key = self._child(c, &flags)[0]
            if flags & OPEN:
                b = top + count               # insertion: stable, by key
                while b > top and self._child(self.scratch[b - 1], &flags)[0] > key:
                    self.scratch[b] = self.scratch[b - 1]
                    b -= 1
                self.scratch[b] = c
                count += 1
        a = 0
        while True:
            w = self.tops[TOP_WITHIN, self.top_at[j] + 1] if leaves else -1
            c = self.scratch[top + a] if a < count else -1
            if c < 0 and w < 0:
                found = -1
                break
            if c >= 0 and not self._ahead(w, self._key_of(w), c, self._child(c, &flags)[0]):
                found = self._search(c, top + count)
                if found >= 0:
                    break
                a += 1
            else:
                found = self.node_leaf[w]
                if self._path_within(n, found):
                    break
                self.excluded[found] = 1
                self.excl[self.n_excl] = found
                self.n_excl += 1
                self._enter(found)
        while self.n_excl > mark:
            self.n_excl -= 1
            self.excluded[self.excl[self.n_excl]] = 0
            self._enter(self.excl[self.n_excl])
        return found

    # -- the policies: Alloc (their UpdateS: POLICIES) -------------------------------------

    cdef Py_ssize_t _choose(self) noexcept nogil:
        """The leaf whose task launches next under the policy, or -1 (nothing launches)."""
        if self.mode == NAIVE:
            return self._naive()
        if self.mode == CAPACITY:
            return self._capacity()
        if self.mode == CAPACITY_PARETO:
            return self._capacity_pareto()
        return self._hdrf()

    cdef Py_ssize_t _hdrf(self) noexcept nogil:
        """H-DRF, and static H-DRF (flatten: static on the flattened tree): from the root,
        the open child with the lowest key (slides' Alloc; "Static H-DRF": top-down
        equalize)."""
        return self._descend(False)

    cdef Py_ssize_t _naive(self) noexcept nogil:
        """Naive H-DRF: from the root, the child with the lowest key among those that still
        have tasks, whether or not they can place one; a task that fits nowhere is waited
        for (nothing else launches): Hadoop's reservation of a node."""
        cdef Py_ssize_t i = self._descend(True)
        return i if i >= 0 and self.machines.fits_somewhere(self.shape[i]) else -1

    cdef Py_ssize_t _capacity(self) noexcept nogil:
        """Capacity: static H-DRF's order, but a task launches only if every node on its
        path then holds at most its guaranteed fraction of each resource; depth-first, so
        the next lowest is tried when one cannot launch."""
        return self._search(0, 0) if self.cflags[0] & OPEN else -1

    cdef Py_ssize_t _capacity_pareto(self) noexcept nogil:
        """Capacity-Pareto: capacity's choice, then, when nothing fits within the
        guarantees, static H-DRF's (idle capacity filled)."""
        cdef Py_ssize_t i = self._capacity()
        return i if i >= 0 else self._hdrf()

    # -- events ---------------------------------------------------------------------------

    cdef void _launch(self, Py_ssize_t i, Py_ssize_t k) noexcept nogil:
        """A task of leaf i on machine k; then the shapes that no longer fit there."""
        cdef Py_ssize_t r, x
        for r in range(self.m):
            self.consumed[r] = self.consumed[r] + self.demand[i, r]
        self.running_all += 1
        self.running_[i] += 1
        self.launched_[i] += 1
        if self.queue[i] > 0:
            self.queue[i] -= 1
            self._has_tasks(i, True)
        self._changed(i)
        for x in range(self.machines.take(k, &self.demand[i, 0])):
            self._update_set(self.machines.changed[x])
        self._resources_left()

    def schedule(self, long long max_tasks=-1):
        """Launch tasks until the policy launches nothing more (or max_tasks, if >= 0).
        Returns (leaves, machines): int32 arrays, one entry per launch, in order.
        Each decision: UpdateS (_settle), then Alloc (_choose); with nothing open, no
        policy launches, and only the baseline recomputes the shares."""
        out_leaves = np.empty(64, dtype=np.int32)
        out_machines = np.empty(64, dtype=np.int32)
        cdef int[::1] leaves = out_leaves, machines = out_machines
        cdef Py_ssize_t count = 0, size = 64, i, k
        while max_tasks < 0 or count < max_tasks:
            self.decisions += 1
            if self.n_live == 0 and self.incremental:
                break
            self._settle()
            i = self._choose()
            if i < 0:
                break
            k = self.machines.first_fit(self.shape[i])
            self._launch(i, k)
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
        cdef Py_ssize_t r, x
        cdef int64_t i = leaf, k = machine
        if not 0 <= leaf < self.L:
            raise IndexError(f"leaf {leaf} out of range [0, {self.L})")
        if not 0 <= machine < self.M:
            raise IndexError(f"machine {machine} out of range [0, {self.M})")
        if self.running_[i] <= 0 or self.machines.tasks_on[k] <= 0:
            raise ValueError(f"leaf {leaf} has no task running on machine {machine}")
        self.running_[i] -= 1
        self.running_all -= 1
        for r in range(self.m):
            if self.running_all == 0:
                self.consumed[r] = 0.0
            else:
                self.consumed[r] = max(0.0, self.consumed[r] - self.demand[i, r])
        self._changed(i)
        for x in range(self.machines.free(k, &self.demand[i, 0])):
            self._update_set(self.machines.changed[x])
        self._resources_left()

    def add_tasks(self, Py_ssize_t leaf, long long count):
        """Queue `count` more tasks for `leaf` (count -1: make its queue unbounded)."""
        cdef int64_t i = leaf
        cdef bint before
        if not 0 <= leaf < self.L:
            raise IndexError(f"leaf {leaf} out of range [0, {self.L})")
        if count < -1:
            raise ValueError(f"count must be >= 0, or -1 for an unbounded queue; got {count}")
        if count == 0 or self.queue[i] < 0:
            return
        before = self.queue[i] != 0
        self.queue[i] = -1 if count == -1 else self.queue[i] + count
        if not before:                          # its open and demanding flags change
            self._has_tasks(i, before)
            self._changed(i)

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
        return np.asarray(self.machines.used).copy()

    def _nodes(self, leaf_values, inner_values):
        """One array over every node from the leaves' values and the inner nodes'."""
        leaf_values, inner_values = np.asarray(leaf_values), np.asarray(inner_values)
        out = np.empty((self.N,) + leaf_values.shape[1:], dtype=leaf_values.dtype)
        out[np.asarray(self.leaf_node)] = leaf_values
        out[np.asarray(self.inner_node)] = inner_values
        return out

    @property
    def keys(self):
        """Each node's key, its dominant share over its weight, now (a copy; H-DRF: of
        its rescaled usage, over Y)."""
        self._settle()
        self._sum(0)
        return self._nodes(np.asarray(self.leaf_rec)[self.leaf_node, 0],
                           np.asarray(self.kept.set_rec[self.kept.cur])[:, 0])

    @property
    def node_usage(self):
        """Each node's usage vector U, (N, m), now (a copy; H-DRF: rescaled)."""
        self._settle()
        self._sum(0)
        return self._nodes(np.asarray(self.leaf_rec)[self.leaf_node, 1:],
                           np.asarray(self.kept.set_rec[self.kept.cur])[:, 1:])

    @property
    def blocked(self):
        """Each node's blocked flag: no task in its subtree can be placed now (a copy)."""
        self._settle()
        leaf_open = (np.asarray(self.queue) != 0) & \
            (np.asarray(self.machines.witness)[np.asarray(self.shape)] >= 0)
        return self._nodes(~leaf_open,
                           (np.asarray(self.kept.set_flags[self.kept.cur]) & OPEN) == 0)

    @property
    def exhausted(self):
        """Per resource: used up cluster-wide, left out of H-DRF's shares (not Y)."""
        return (np.asarray(self.in_y) == 0) & (np.asarray(self.total) > 0)

    @property
    def sets_kept(self):
        """Open-sets whose shares are kept now (at most `sets`)."""
        return self.kept.n_sets

    @property
    def sets(self):
        """The most open-sets whose shares are kept."""
        return self.kept.sets

    @property
    def set_bytes(self):
        """Memory per kept set, in bytes."""
        return self.kept.set_bytes

    @property
    def sets_built(self):
        """Kept sets made for an open-set not kept."""
        return self.kept.built

    @property
    def sets_reused(self):
        """Switches to an open-set kept."""
        return self.kept.reused
