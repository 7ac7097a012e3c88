"""The event loop of drfbench.sim: machines time-sharing their tasks, completions in time
order, launches asked of a policy (any Python object with schedule(), release(...),
add_tasks(...)), and evictions where it has preempt().

drfbench/sim/literal.py is the same loop in plain Python: the readable specification,
against which this kernel is tested bit for bit. The wrapper drfbench/sim/engine.py
validates the input and builds every array; this class trusts them. Sampling and the
result tables stay in NumPy (the wrapper reads the state through running() and the
array properties): the profile put the time in the per-event bookkeeping below.

State
  machines  cap[k, r]; speed[k]; its running tasks as a doubly linked list in launch
            order (head[k], tail[k], nxt[t], prv[t]).
  events    an indexed binary heap of the busy machines keyed by (next completion time,
            stamp), the stamp counting the keys set so far: completions at equal times
            come out in the order they were scheduled, as in the literal loop's heap of
            version-stamped entries (whose stale entries this heap never holds).
  tasks     struct of arrays, grown on demand (a backlog makes its tasks at launch); a
            running task's completion time due[t], set at launch to start + work / speed
            and moved only when its machine's speed changes (then its remaining work,
            (due - now) x old speed, is due at now + that / new speed). demand[t] holds
            its m demands and, last, its user (as a float): the samples' pass over the
            running tasks reads one row where it would read two arrays.
  pending   trace: each user's schedulable tasks in trace order (CSR by user), with
            counts arrived and launched; the oldest pending task of u is the
            launched[u]-th. Backlog: infinite. Ahead of them, each user's evicted tasks
            in eviction order (a queue linked through nxt, from qhead[u] to qtail[u]).
  evictions (time, task, user, machine, lost work), in order; a task not running has
            due NaN.
  jobs      tasks left per job and finish times; completions (time, user, count).

Completions are events at their due times, exact at any scale: a task whose machine's speed
never changed while it ran ends at start + work, bit for bit (no tolerance, no drift).
Floating point follows the literal loop operation by operation (sums in list order, the same
products and quotients; no build fuses a product into a multiply-add that the literal loop,
in Python, does not do: drfbench/_variants.py's -ffp-contract=off).
"""
import numpy as np

from libc.math cimport INFINITY, NAN, exp
from libc.stdlib cimport qsort
from _common cimport int64_t, uint8_t
from _heap cimport IndexedHeap, iheap_remove, iheap_update
from _platform cimport prefetch


cdef int _by_index(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef enum:
    AHEAD = 8          # machines ahead whose first task the samples' pass prefetches


def _grown(a, Py_ssize_t size, fill):
    """A copy of `a` (1-D or 2-D) with `size` rows, new rows set to `fill`."""
    out = np.full((size,) + a.shape[1:], fill, dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


cdef class EventLoop:
    """EventLoop(capacity, tasks, jobs, n_users, trace=None, backlog=None, resume=False)

      capacity  (M, m) float64 machine capacities
      tasks     dict of the trace's task arrays (empty for a backlog): user, job (int64
                job index), arrival, work (seconds at speed 1), demand (N, m)
      jobs      dict of job arrays: user, left (tasks not finished), submit (float64)
      trace     dict: by_user (schedulable task ids grouped by user, trace order), ptr
                (n + 1), schedulable (uint8 per task); or None
      backlog   dict: demands (n, m), tasks_per_job (n,), duration (n,), jitter, draw (a
                callable returning the next float64 array of N(0, 1) draws); or None
      resume    an evicted task keeps the work it has done (else it restarts)
    run(policy, horizon, record) runs the loop (a policy with preempt() is asked for
    evictions before each schedule()); record(until) is called whenever the
    next sample instant is <= until, takes the samples up to `until` and returns the
    next sample instant. A trace task whose start + work == start (float64 cannot tell
    its end from its start) stops the run where it would launch: `lost` is its row (else
    -1) and the wrapper refuses it.
    """
    cdef readonly Py_ssize_t M, m, n
    cdef readonly long long events
    cdef readonly int64_t lost
    cdef bint is_trace
    cdef double[:, ::1] cap
    cdef double[::1] speed_
    cdef int64_t[::1] head, tail
    cdef int64_t[::1] heap, hpos
    cdef double[::1] key_time
    cdef int64_t[::1] key_stamp
    cdef IndexedHeap busy        # the busy machines by (next completion, stamp)
    cdef int64_t stamp
    cdef int64_t[::1] touched
    cdef uint8_t[::1] is_touched
    cdef Py_ssize_t n_touched
    # tasks
    cdef dict T
    cdef Py_ssize_t size
    cdef double[:, ::1] demand
    cdef double[::1] work, due, start, end, arrival
    cdef int64_t[::1] user, job, machine, nxt, prv
    # jobs and completions
    cdef dict J
    cdef Py_ssize_t n_jobs, n_done
    cdef int64_t[::1] job_user, job_left, finished, done_user, done_count
    cdef double[::1] job_submit, job_finish, done_time
    # trace pending
    cdef int64_t[::1] by_user, ptr, arrived, launched
    cdef uint8_t[::1] schedulable
    cdef Py_ssize_t next_arrival
    # backlog
    cdef double[:, ::1] b_demand
    cdef int64_t[::1] b_tasks, job_of, in_job
    cdef double[::1] b_duration, normals
    cdef double jitter
    cdef Py_ssize_t drawn
    cdef object draw
    # evictions
    cdef bint resume
    cdef int64_t[::1] qhead, qtail, requeued
    cdef dict E
    cdef Py_ssize_t n_evicted

    def __init__(self, capacity, dict tasks, dict jobs, Py_ssize_t n_users, dict trace=None,
                 dict backlog=None, bint resume=False):
        self.cap = np.ascontiguousarray(capacity, dtype=np.float64)
        self.M, self.m = self.cap.shape[0], self.cap.shape[1]
        self.n = n_users
        self.events = 0
        self.lost = -1
        self.speed_ = np.ones(self.M)
        self.head = np.full(self.M, -1, dtype=np.int64)
        self.tail = np.full(self.M, -1, dtype=np.int64)
        self.heap = np.zeros(self.M, dtype=np.int64)
        self.hpos = np.full(self.M, -1, dtype=np.int64)
        self.key_time = np.zeros(self.M)
        self.key_stamp = np.zeros(self.M, dtype=np.int64)
        self.busy.heap = &self.heap[0]
        self.busy.pos = &self.hpos[0]
        self.busy.key = &self.key_time[0]
        self.busy.tie = &self.key_stamp[0]
        self.busy.size = 0
        self.stamp = 0
        self.touched = np.zeros(self.M, dtype=np.int64)
        self.is_touched = np.zeros(self.M, dtype=np.uint8)
        self.n_touched = 0
        N = len(tasks.get("user", ()))
        self.size = N
        self.T = {
            "user": np.array(tasks.get("user", np.empty(0)), dtype=np.int64),
            "job": np.array(tasks.get("job", np.empty(0)), dtype=np.int64),
            "arrival": np.array(tasks.get("arrival", np.empty(0)), dtype=np.float64),
            "work": np.array(tasks.get("work", np.empty(0)), dtype=np.float64),
            "due": np.full(N, NAN),
            "demand": np.empty((N, self.m + 1)),
            "machine": np.full(N, -1, dtype=np.int64),
            "start": np.full(N, NAN), "end": np.full(N, NAN),
            "nxt": np.full(N, -1, dtype=np.int64), "prv": np.full(N, -1, dtype=np.int64),
        }
        self.T["demand"][:, :self.m] = np.reshape(tasks.get("demand", np.empty((0, self.m))),
                                                  (N, self.m))
        self.T["demand"][:, self.m] = self.T["user"]
        self._bind_tasks()
        self.J = {"user": np.array(jobs["user"], dtype=np.int64),
                  "left": np.array(jobs["left"], dtype=np.int64),
                  "submit": np.array(jobs["submit"], dtype=np.float64)}
        self.J["finish"] = np.full(len(self.J["user"]), NAN)
        self.n_jobs = len(self.J["user"])
        self.J["done_time"] = np.zeros(max(self.n_jobs, 64))
        self.J["done_user"] = np.zeros(max(self.n_jobs, 64), dtype=np.int64)
        self.J["done_count"] = np.zeros(max(self.n_jobs, 64), dtype=np.int64)
        self._bind_jobs()
        self.n_done = 0
        self.finished = np.zeros(n_users, dtype=np.int64)
        self.resume = resume
        self.qhead = np.full(n_users, -1, dtype=np.int64)
        self.qtail = np.full(n_users, -1, dtype=np.int64)
        self.requeued = np.zeros(n_users, dtype=np.int64)
        self.E = {"time": np.zeros(0), "task": np.zeros(0, dtype=np.int64),
                  "user": np.zeros(0, dtype=np.int64), "machine": np.zeros(0, dtype=np.int64),
                  "lost": np.zeros(0)}
        self.n_evicted = 0
        self.is_trace = trace is not None
        if self.is_trace:
            self.by_user = np.ascontiguousarray(trace["by_user"], dtype=np.int64)
            self.ptr = np.ascontiguousarray(trace["ptr"], dtype=np.int64)
            self.schedulable = np.ascontiguousarray(trace["schedulable"], dtype=np.uint8)
            self.arrived = np.zeros(n_users, dtype=np.int64)
            self.launched = np.zeros(n_users, dtype=np.int64)
            self.next_arrival = 0
        else:
            self.b_demand = np.ascontiguousarray(backlog["demands"], dtype=np.float64)
            self.b_tasks = np.ascontiguousarray(backlog["tasks_per_job"], dtype=np.int64)
            self.b_duration = np.ascontiguousarray(backlog["duration"], dtype=np.float64)
            self.jitter = backlog["jitter"]
            self.draw = backlog["draw"]
            self.normals = np.empty(0)
            self.drawn = 0
            self.job_of = np.full(n_users, -1, dtype=np.int64)
            self.in_job = np.zeros(n_users, dtype=np.int64)

    cdef void _bind_tasks(self):
        T = self.T
        self.user, self.job, self.machine = T["user"], T["job"], T["machine"]
        self.nxt, self.prv = T["nxt"], T["prv"]
        self.arrival, self.work, self.due = T["arrival"], T["work"], T["due"]
        self.start, self.end, self.demand = T["start"], T["end"], T["demand"]

    cdef void _bind_jobs(self):
        J = self.J
        self.job_user, self.job_left = J["user"], J["left"]
        self.job_submit, self.job_finish = J["submit"], J["finish"]
        self.done_time, self.done_user = J["done_time"], J["done_user"]
        self.done_count = J["done_count"]

    cdef void _grow_tasks(self, Py_ssize_t needed):
        cdef Py_ssize_t new = max(needed, 2 * self.T["user"].shape[0], 1024)
        fills = {"user": -1, "job": -1, "machine": -1, "nxt": -1, "prv": -1, "arrival": NAN,
                 "start": NAN, "end": NAN, "work": 0.0, "due": NAN, "demand": 0.0}
        self.T = {name: _grown(a, new, fills[name]) for name, a in self.T.items()}
        self._bind_tasks()

    cdef void _grow_jobs(self):
        cdef Py_ssize_t new = max(2 * self.J["user"].shape[0], 64)
        fills = {"user": -1, "left": 0, "submit": NAN, "finish": NAN}
        self.J.update({name: _grown(self.J[name], new, fill) for name, fill in fills.items()})
        self._bind_jobs()

    cdef void _grow_done(self):
        cdef Py_ssize_t new = 2 * self.J["done_time"].shape[0]
        for name in ("done_time", "done_user", "done_count"):
            self.J[name] = _grown(self.J[name], new, 0)
        self._bind_jobs()

    # -- the heap of machines (_heap.pxd's indexed heap, keyed by (time, stamp)) ----------

    cdef void _set_key(self, int64_t k, double t) noexcept nogil:
        """Machine k's next completion is at t (inserted, or moved, in the heap)."""
        self.stamp += 1
        self.key_time[k] = t
        self.key_stamp[k] = self.stamp
        iheap_update(&self.busy, k)

    # -- machines --------------------------------------------------------------------------

    cdef void _refresh(self, int64_t k, double now) noexcept nogil:
        """Recompute machine k's speed, its tasks' due times (the ones launched at `now`,
        and all of them if the speed changed) and its next completion."""
        cdef Py_ssize_t r
        cdef int64_t t = self.head[k]
        cdef double load = 0.0, used, soonest, old = self.speed_[k], speed
        if t < 0:
            self.speed_[k] = 1.0
            iheap_remove(&self.busy, k)
            return
        for r in range(self.m):
            used = 0.0
            t = self.head[k]
            while t >= 0:
                used = used + self.demand[t, r]
                t = self.nxt[t]
            if self.cap[k, r] > 0.0 and used / self.cap[k, r] > load:
                load = used / self.cap[k, r]
        speed = 1.0 / (load if load > 1.0 else 1.0)
        self.speed_[k] = speed
        soonest = INFINITY
        t = self.head[k]
        while t >= 0:
            if self.due[t] != self.due[t]:              # launched now (NaN)
                self.due[t] = now + self.work[t] / speed
            elif speed != old:
                self.due[t] = now + (self.due[t] - now) * old / speed
            if self.due[t] < soonest:
                soonest = self.due[t]
            t = self.nxt[t]
        self._set_key(k, soonest)

    cdef void _append(self, int64_t k, int64_t t) noexcept nogil:
        self.prv[t] = self.tail[k]
        self.nxt[t] = -1
        if self.tail[k] >= 0:
            self.nxt[self.tail[k]] = t
        else:
            self.head[k] = t
        self.tail[k] = t

    cdef void _unlink(self, int64_t k, int64_t t) noexcept nogil:
        if self.prv[t] >= 0:
            self.nxt[self.prv[t]] = self.nxt[t]
        else:
            self.head[k] = self.nxt[t]
        if self.nxt[t] >= 0:
            self.prv[self.nxt[t]] = self.prv[t]
        else:
            self.tail[k] = self.prv[t]
        self.nxt[t] = -1
        self.prv[t] = -1

    # -- events ----------------------------------------------------------------------------

    cdef int _complete(self, int64_t k, double now, object policy, object release_task) except -1:
        """Finish machine k's tasks due by `now`, in launch order."""
        cdef int64_t t, following, u, j
        t = self.head[k]
        while t >= 0:
            following = self.nxt[t]
            if self.due[t] <= now:
                self._unlink(k, t)
                u = self.user[t]
                self.end[t] = now
                self.due[t] = NAN
                if release_task is not None:
                    release_task(t, u, k)
                else:
                    policy.release(u, k)
                j = self.job[t]
                self.job_left[j] -= 1
                if self.job_left[j] == 0:
                    self.job_finish[j] = now
                    self.finished[u] += 1
                    if self.n_done == self.done_time.shape[0]:
                        self._grow_done()
                    self.done_time[self.n_done] = now
                    self.done_user[self.n_done] = u
                    self.done_count[self.n_done] = self.finished[u]
                    self.n_done += 1
                self.events += 1
            t = following
        return 0

    cdef int _arrive(self, double now, object policy) except -1:
        """Add every trace task arriving by `now`: one add_tasks per run of one user."""
        cdef Py_ssize_t i = self.next_arrival, N = self.arrival.shape[0]
        cdef int64_t u, run_user = -1, run = 0
        while i < N and self.arrival[i] <= now:
            if self.schedulable[i]:
                u = self.user[i]
                self.arrived[u] += 1
                if u != run_user:
                    if run:
                        policy.add_tasks(run_user, run)
                    run_user, run = u, 0
                run += 1
            i += 1
        self.events += i - self.next_arrival
        self.next_arrival = i
        if run:
            policy.add_tasks(run_user, run)
        return 0

    cdef int64_t _backlog_task(self, int64_t u, double now) except -1:
        """A new task of backlog user u launched at `now`, its jitter drawn now."""
        cdef int64_t t, j
        cdef double z
        if self.job_of[u] < 0 or self.in_job[u] == self.b_tasks[u]:
            if self.n_jobs == self.job_user.shape[0]:
                self._grow_jobs()
            j = self.n_jobs
            self.n_jobs += 1
            self.job_of[u] = j
            self.in_job[u] = 0
            self.job_user[j] = u
            self.job_submit[j] = now
            self.job_finish[j] = NAN
            self.job_left[j] = self.b_tasks[u]
        self.in_job[u] += 1
        if self.drawn == self.normals.shape[0]:
            self.normals = np.ascontiguousarray(self.draw(), dtype=np.float64)
            self.drawn = 0
        z = self.normals[self.drawn]
        self.drawn += 1
        t = self.size
        if t == self.user.shape[0]:
            self._grow_tasks(t + 1)
        self.size = t + 1
        self.user[t] = u
        self.job[t] = self.job_of[u]
        self.arrival[t] = self.job_submit[self.job_of[u]]
        self.demand[t, :self.m] = self.b_demand[u, :]
        self.demand[t, self.m] = u
        self.work[t] = self.b_duration[u] * exp(self.jitter * z)
        return t

    cdef int _launch(self, object policy, double now) except -1:
        """Ask the policy for launches, start them, refresh the machines they touched."""
        cdef const int64_t[::1] us, ks
        cdef Py_ssize_t i, count
        cdef int64_t u, k, t
        users, where = policy.schedule()
        users, where = np.asarray(users), np.asarray(where)
        if users.shape != where.shape or users.ndim != 1:
            raise ValueError(f"policy.schedule() returned {users.size} users but {where.size} "
                             "machines")
        count = users.shape[0]
        if count == 0:
            return 0
        if users.dtype.kind not in "iu" or where.dtype.kind not in "iu":
            raise ValueError("policy.schedule() must return integer users and machines, got "
                             f"dtypes {users.dtype} and {where.dtype}")
        us = np.ascontiguousarray(users, dtype=np.int64)
        ks = np.ascontiguousarray(where, dtype=np.int64)
        for i in range(count):
            u, k = us[i], ks[i]
            if not 0 <= u < self.n:
                raise ValueError(f"policy launched unknown user {u} (users are 0..{self.n - 1})")
            if not 0 <= k < self.M:
                raise ValueError(f"policy launched a task on unknown machine {k} (machines are "
                                 f"0..{self.M - 1})")
            if self.qhead[u] >= 0:                  # an evicted task, first
                t = self.qhead[u]
                if now + self.work[t] == now:
                    self.lost = t
                    return 0
                self.qhead[u] = self.nxt[t]
                if self.qhead[u] < 0:
                    self.qtail[u] = -1
                self.requeued[u] -= 1
            elif self.is_trace:
                if self.launched[u] == self.arrived[u]:
                    raise ValueError(f"policy launched user {u} at time {now!r}, which has no "
                                     "pending task")
                t = self.by_user[self.ptr[u] + self.launched[u]]
                if now + self.work[t] == now:
                    self.lost = t
                    return 0
                self.launched[u] += 1
            else:
                t = self._backlog_task(u, now)
            self._append(k, t)
            self.machine[t] = k
            self.start[t] = now
            self._touch(k)
        self.events += count
        self._refresh_touched(now)
        return 0

    cdef void _touch(self, int64_t k) noexcept nogil:
        if not self.is_touched[k]:
            self.is_touched[k] = 1
            self.touched[self.n_touched] = k
            self.n_touched += 1

    cdef void _refresh_touched(self, double now) noexcept nogil:
        """Refresh the machines touched in index order (equal-time completions keep it)."""
        cdef Py_ssize_t i
        cdef int64_t k
        qsort(&self.touched[0], self.n_touched, sizeof(int64_t), _by_index)
        for i in range(self.n_touched):
            k = self.touched[i]
            self._refresh(k, now)
            self.is_touched[k] = 0
        self.n_touched = 0

    cdef int _preempt(self, object policy, double now) except -1:
        """Evict the running tasks policy.preempt() names, in its order: each leaves its
        machine and goes back to its user's pending tasks, behind those evicted before and
        ahead of the rest, with its full work (restart) or, with resume, what is left of
        it, (due - now) x speed; the work it loses (restart: work - that; resume: 0) is
        recorded. Then the machines it touched are refreshed."""
        cdef const int64_t[::1] ts
        cdef Py_ssize_t i, count, e
        cdef int64_t t, k, u
        cdef double left
        victims = np.asarray(policy.preempt())
        if victims.ndim != 1:
            raise ValueError(f"policy.preempt() must return a sequence of task ids, got shape "
                             f"{victims.shape}")
        count = victims.shape[0]
        if count == 0:
            return 0
        if victims.dtype.kind not in "iu":
            raise ValueError(f"policy.preempt() must return integer task ids, got dtype "
                             f"{victims.dtype}")
        ts = np.ascontiguousarray(victims, dtype=np.int64)
        for i in range(count):
            t = ts[i]
            if not (0 <= t < self.size and self.machine[t] >= 0 and self.due[t] == self.due[t]):
                raise ValueError(f"policy evicted task {t} at time {now!r}, which is not running")
            if self.due[t] <= now:
                raise ValueError(f"policy evicted task {t} at time {now!r}, when it finishes")
            k = self.machine[t]
            u = self.user[t]
            left = (self.due[t] - now) * self.speed_[k]
            if self.n_evicted == self.E["time"].shape[0]:
                new = max(2 * self.n_evicted, 64)
                self.E = {name: _grown(a, new, 0) for name, a in self.E.items()}
            e = self.n_evicted
            self.E["time"][e] = now
            self.E["task"][e] = t
            self.E["user"][e] = u
            self.E["machine"][e] = k
            if self.resume:
                self.E["lost"][e] = 0.0
                self.work[t] = left
            else:
                self.E["lost"][e] = self.work[t] - left
            self.n_evicted += 1
            self._unlink(k, t)
            self.due[t] = NAN
            if self.qtail[u] >= 0:
                self.nxt[self.qtail[u]] = t
            else:
                self.qhead[u] = t
            self.qtail[u] = t
            self.requeued[u] += 1
            self._touch(k)
        self.events += count
        self._refresh_touched(now)
        return 0

    cdef int64_t _next(self, double* when) noexcept:
        """The next event: a machine's completion (its index) or an arrival (-1); its time
        in when[0], INFINITY if none. At equal times completions come first."""
        cdef int64_t k = -1
        cdef double t = INFINITY
        if self.busy.size > 0:
            k = self.heap[0]
            t = self.key_time[k]
        if self.is_trace and self.next_arrival < self.arrival.shape[0] and \
                self.arrival[self.next_arrival] < t:
            k = -1
            t = self.arrival[self.next_arrival]
        when[0] = t
        return k

    def run(self, policy, double horizon, record):
        """Run to `horizon` (a trace: until nothing is left to happen); returns the end."""
        cdef double t, now = 0.0, until, next_sample = INFINITY
        cdef int64_t k
        release_task = getattr(policy, "release_task", None)
        preempts = hasattr(policy, "preempt")
        if record is not None:
            next_sample = 0.0
        if self.is_trace:
            self._arrive(0.0, policy)
        if preempts:
            self._preempt(policy, 0.0)
        self._launch(policy, 0.0)
        if self.lost >= 0:
            return now
        while True:
            k = self._next(&t)
            if t == INFINITY and self.is_trace:     # nothing left to happen
                if next_sample <= now:
                    record(now)
                return now
            until = t if t < horizon else horizon
            if next_sample <= until:
                next_sample = record(until)
            if t > horizon:
                return horizon
            now = t
            if k >= 0:                              # one machine's completions
                self._complete(k, t, policy, release_task)
                self._refresh(k, t)
            else:                                   # every arrival at t
                self._arrive(t, policy)
            if preempts:
                self._preempt(policy, t)
            self._launch(policy, t)
            if self.lost >= 0:
                return now

    # -- state, for sampling and results ----------------------------------------------------

    def running(self):
        """Running task ids: machines in index order, each machine's in launch order."""
        out = np.empty(self.size, dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef Py_ssize_t k, count = 0
        cdef int64_t t
        for k in range(self.M):
            t = self.head[k]
            while t >= 0:
                o[count] = t
                count += 1
                t = self.nxt[t]
        return out[:count]

    def full_speed_state(self, const double[::1] total):
        """engine.snapshot's (share (n, m), speed (n,)) of a trace's running tasks, bit for
        bit, where every busy machine runs at speed 1: share[u, r] sums u's tasks' demands
        task by task (machines in index order, each in launch order, as np.bincount does)
        over total[r] (a resource the cluster lacks: share 0), speed[u] 1 if u runs a task
        (the mean of ones). None for a backlog or where a machine is time-shared (then the
        wrapper takes the NumPy path). One pass, no arrays per task: samples of a long run."""
        cdef Py_ssize_t k, r
        cdef int64_t t, u
        if not self.is_trace:
            return None
        for k in range(self.M):
            if self.head[k] >= 0 and self.speed_[k] != 1.0:
                return None
        share_, speed_ = np.zeros((self.n, self.m)), np.zeros(self.n)
        cdef double[:, ::1] share = share_
        cdef double[::1] speed = speed_
        for k in range(self.M):
            if k + AHEAD < self.M and self.head[k + AHEAD] >= 0:   # machines have few tasks:
                t = self.head[k + AHEAD]                            # fetch ahead of the walk
                prefetch(&self.demand[t, 0])
                prefetch(&self.nxt[t])
            t = self.head[k]
            while t >= 0:
                u = <int64_t>self.demand[t, self.m]
                speed[u] = 1.0
                for r in range(self.m):
                    share[u, r] = share[u, r] + self.demand[t, r]
                t = self.nxt[t]
        for r in range(self.m):
            if total[r] > 0.0:
                for u in range(self.n):
                    share[u, r] = share[u, r] / total[r]
            else:
                for u in range(self.n):
                    share[u, r] = share[u, r] / INFINITY
        return share_, speed_

    @property
    def speed(self):
        """(M,) each machine's current speed (a view: read only while the loop waits)."""
        return np.asarray(self.speed_)

    @property
    def tasks(self):
        """The task arrays (views) trimmed to the tasks made so far: user, job (index),
        machine, arrival, start, end, demand."""
        out = {name: self.T[name][:self.size]
               for name in ("user", "job", "machine", "arrival", "start", "end")}
        out["demand"] = self.T["demand"][:self.size, :self.m]
        return out

    @property
    def jobs(self):
        """Job arrays (views): user, submit, finish."""
        return {name: self.J[name][:self.n_jobs] for name in ("user", "submit", "finish")}

    @property
    def completions(self):
        """Job completions in order (views): time, user, count."""
        return {"time": self.J["done_time"][:self.n_done],
                "user": self.J["done_user"][:self.n_done],
                "count": self.J["done_count"][:self.n_done]}

    @property
    def arrived_until(self):
        """Trace rows added so far (the next arrival's row)."""
        return self.next_arrival if self.is_trace else 0

    @property
    def pending(self):
        """(n,) tasks arrived and not launched, evicted ones included, per user (backlog:
        the evicted ones)."""
        if not self.is_trace:
            return np.asarray(self.requeued).copy()
        return np.asarray(self.arrived) - np.asarray(self.launched) + np.asarray(self.requeued)

    @property
    def evictions(self):
        """Evictions in order (views): time, task, user, machine, lost (task-seconds)."""
        return {name: a[:self.n_evicted] for name, a in self.E.items()}
