"""Online task schedulers over a cluster of machines: DRF and slot-based fair sharing.

The online DRF scheduler of Ghodsi et al. (NSDI'11) as the cs262a lecture states it:
"whenever there are available resources and tasks to run, schedule a task to the user with
the smallest dominant share", with a binary heap, O(log n) per decision. The same loop with
a different share and a different fit test is the Hadoop fair scheduler the lecture compares
DRF with: every machine has k slots, a task takes one slot whatever it demands, and the user
with the fewest slots (per weight) gets the next free one.

Each user i has one task shape d_i (absolute amounts, d_i[r] of resource r per task), a
weight w_i > 0 and a queue of tasks waiting (a count, or -1 for an infinite queue).

  DRF     share_i = running_i * max_r (d_ir / C_r) / w_i, C the cluster's total capacity;
          a task fits on machine k if used[k] + d_i <= cap[k] on every resource.
  slots   share_i = running_i / (k * M) / w_i; a task fits on a machine with a free slot,
          whatever its resources (machines may be oversubscribed: the caller decides what
          that costs: the cluster simulator drfbench.sim time-shares them).

Choices where the lecture is silent:
  - ties in share go to the lower user index (deterministic);
  - a task goes to the first machine, in index order, where it fits (first fit);
  - a user whose next task fits on no machine is set aside ("blocked") and skipped until
    some task is released, since nothing can fit before then; schedule() stops when every
    user is blocked or has an empty queue;
  - fit is tested with a relative slack of 1e-12 of the capacity, and a machine that
    becomes empty has its usage reset to exactly zero, so rounding does not accumulate.

Everything is float64: the state is small (users x resources), unlike the allocators'.
"""
import numpy as np

from libc.math cimport INFINITY
from _common cimport int32_t, int64_t, uint8_t
from _heap cimport IndexedHeap, iheap_remove, iheap_sift_down, iheap_sift_up, iheap_update

cdef double FIT_SLACK = 1e-12


cdef class TaskScheduler:
    """State of an online scheduler: see the module docstring.

    TaskScheduler(demands, capacity, weights, queued, slots=0)
      demands   (n, m) float64: d_ir, resource r per task of user i (IN)
      capacity  (M, m) float64: cap[k, r], resource r of machine k (IN)
      weights   (n,)   float64: w_i > 0 (IN)
      queued    (n,)   int64: tasks waiting per user, -1 for an infinite queue (IN)
      slots     0 for DRF, k > 0 for the slot scheduler with k slots per machine
    The Python wrapper (drfbench.drf) validates all of these; this class trusts them.
    """
    cdef double[:, ::1] demand          # d_ir
    cdef double[:, ::1] cap             # cap[k, r]
    cdef double[:, ::1] used            # used[k, r]
    cdef int64_t[::1] tasks_on          # tasks running on machine k
    cdef double[::1] unit               # share added by one task of user i
    cdef int64_t[::1] queue             # waiting tasks (-1: infinite)
    cdef int64_t[::1] running_          # running tasks per user
    cdef int64_t[::1] launched_         # tasks ever launched per user
    cdef double[::1] share              # running_[i] * unit[i], the heap's key
    cdef int64_t[::1] heap, pos         # the users' indexed heap (_heap.pxd), by
    cdef IndexedHeap ready              # (share, index): ties to the lower index
    cdef uint8_t[::1] blocked           # set aside until the next release
    cdef Py_ssize_t n, m, M
    cdef int slots
    cdef bint released                  # a release happened since the last schedule()
    cdef readonly long long decisions   # heap decisions taken, launches and set-asides

    def __init__(self, const double[:, ::1] demands, const double[:, ::1] capacity,
                 const double[::1] weights, const int64_t[::1] queued, int slots=0):
        cdef Py_ssize_t i, r
        cdef double dom, total
        self.n = demands.shape[0]
        self.m = demands.shape[1]
        self.M = capacity.shape[0]
        self.slots = slots
        self.demand = np.array(demands, dtype=np.float64)
        self.cap = np.array(capacity, dtype=np.float64)
        self.used = np.zeros((self.M, self.m), dtype=np.float64)
        self.tasks_on = np.zeros(self.M, dtype=np.int64)
        self.unit = np.zeros(self.n, dtype=np.float64)
        self.queue = np.array(queued, dtype=np.int64)
        self.running_ = np.zeros(self.n, dtype=np.int64)
        self.launched_ = np.zeros(self.n, dtype=np.int64)
        self.share = np.zeros(max(self.n, 1), dtype=np.float64)
        self.heap = np.zeros(max(self.n, 1), dtype=np.int64)
        self.pos = np.full(max(self.n, 1), -1, dtype=np.int64)
        self.ready.heap = &self.heap[0]
        self.ready.pos = &self.pos[0]
        self.ready.key = &self.share[0]
        self.ready.tie = NULL
        self.ready.size = 0
        self.blocked = np.zeros(self.n, dtype=np.uint8)
        self.released = False
        self.decisions = 0
        totals = np.asarray(capacity).sum(axis=0)
        for i in range(self.n):
            if slots > 0:
                self.unit[i] = 1.0 / (slots * self.M) / weights[i]
            else:
                dom = 0.0
                for r in range(self.m):
                    total = totals[r]
                    if total > 0.0 and demands[i, r] / total > dom:
                        dom = demands[i, r] / total
                self.unit[i] = dom / weights[i]
            if self.queue[i] != 0:
                self._push(i)

    # -- the heap ------------------------------------------------------------------------

    cdef void _push(self, int64_t i) noexcept nogil:
        """User i into the heap, if it is not in it."""
        if self.pos[i] < 0:
            iheap_update(&self.ready, i)

    cdef void _pop_top(self) noexcept nogil:
        iheap_remove(&self.ready, self.heap[0])

    # -- decisions -----------------------------------------------------------------------

    cdef Py_ssize_t _machine_for(self, int32_t i) noexcept nogil:
        """First machine where a task of user i fits, or -1."""
        cdef Py_ssize_t k, r
        cdef bint fits
        for k in range(self.M):
            if self.slots > 0:
                if self.tasks_on[k] < self.slots:
                    return k
                continue
            fits = True
            for r in range(self.m):
                if self.used[k, r] + self.demand[i, r] > self.cap[k, r] * (1.0 + FIT_SLACK):
                    fits = False
                    break
            if fits:
                return k
        return -1

    cdef void _unblock_all(self) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(self.n):
            if self.blocked[i]:
                self.blocked[i] = 0
                if self.queue[i] != 0:
                    self._push(i)

    def schedule(self, long long max_tasks=-1):
        """Launch tasks until no waiting task fits (or max_tasks have been launched, if
        max_tasks >= 0). Returns (users, machines): int32 arrays, one entry per launched
        task, in launch order."""
        out_users = np.empty(64, dtype=np.int32)
        out_machines = np.empty(64, dtype=np.int32)
        cdef int32_t[::1] users = out_users, machines = out_machines
        cdef Py_ssize_t count = 0, k, r, cap_out = 64
        cdef int32_t i
        if self.released:
            self.released = False
            self._unblock_all()
        while self.ready.size > 0 and (max_tasks < 0 or count < max_tasks):
            i = self.heap[0]
            self.decisions += 1
            k = self._machine_for(i)
            if k < 0:                       # fits nowhere until something is released
                self._pop_top()
                self.blocked[i] = 1
                continue
            for r in range(self.m):
                self.used[k, r] = self.used[k, r] + self.demand[i, r]
            self.tasks_on[k] += 1
            self.running_[i] += 1
            self.share[i] = self.running_[i] * self.unit[i]
            self.launched_[i] += 1
            if self.queue[i] > 0:
                self.queue[i] -= 1
            if self.queue[i] == 0:
                self._pop_top()
            else:
                iheap_sift_down(&self.ready, 0)     # its share grew: it can only move down
            if count == cap_out:
                cap_out = 2 * cap_out
                out_users = np.resize(out_users, cap_out)
                out_machines = np.resize(out_machines, cap_out)
                users = out_users
                machines = out_machines
            users[count] = i
            machines[count] = <int32_t>k
            count += 1
        return out_users[:count].copy(), out_machines[:count].copy()

    def release(self, Py_ssize_t user, Py_ssize_t machine):
        """A task of `user` running on `machine` finished: free its resources (and slot)."""
        cdef Py_ssize_t r
        if not 0 <= user < self.n:
            raise IndexError(f"user {user} out of range [0, {self.n})")
        if not 0 <= machine < self.M:
            raise IndexError(f"machine {machine} out of range [0, {self.M})")
        if self.running_[user] <= 0 or self.tasks_on[machine] <= 0:
            raise ValueError(f"user {user} has no task running on machine {machine}")
        self.running_[user] -= 1
        self.share[user] = self.running_[user] * self.unit[user]
        self.tasks_on[machine] -= 1
        for r in range(self.m):
            if self.tasks_on[machine] == 0:
                self.used[machine, r] = 0.0
            else:
                self.used[machine, r] = max(0.0, self.used[machine, r] - self.demand[user, r])
        if self.pos[user] >= 0:                     # its share shrank: it can only move up
            iheap_sift_up(&self.ready, self.pos[user])
        self.released = True

    def add_tasks(self, Py_ssize_t user, long long count):
        """Queue `count` more tasks for `user` (count -1: make its queue infinite)."""
        if not 0 <= user < self.n:
            raise IndexError(f"user {user} out of range [0, {self.n})")
        if count < -1:
            raise ValueError(f"count must be >= 0, or -1 for an infinite queue; got {count}")
        if count == -1:
            self.queue[user] = -1
        elif self.queue[user] >= 0:
            self.queue[user] += count
        if self.queue[user] != 0 and not self.blocked[user]:
            self._push(user)

    @property
    def running(self):
        """Tasks running per user (a copy)."""
        return np.asarray(self.running_).copy()

    @property
    def launched(self):
        """Tasks launched per user since the start (a copy)."""
        return np.asarray(self.launched_).copy()

    @property
    def queued(self):
        """Tasks waiting per user, -1 for an infinite queue (a copy)."""
        return np.asarray(self.queue).copy()

    @property
    def usage(self):
        """Resources in use per machine, (M, m) (a copy)."""
        return np.asarray(self.used).copy()

    @property
    def tasks_per_machine(self):
        """Tasks running per machine, (M,) (a copy)."""
        return np.asarray(self.tasks_on).copy()

    @property
    def shares(self):
        """Each user's (weighted) dominant share, or slot share, now."""
        return np.asarray(self.running_) * np.asarray(self.unit)
