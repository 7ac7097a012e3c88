"""The simulator's event loop in plain Python: the readable specification of drfbench/sim/sim.pyx.

    simulate(machines, workload, policy, *, horizon=inf, sample=None, resume=False) -> Simulation

Same arguments, same checks, same results as drfbench.sim.simulate, bit for bit (the tests
compare them on random instances); some 10x slower. Every floating-point operation here is
the one the kernel does, in the same order: a machine's usage is summed task by task in
launch order; a task launched at `now` is due at now + work / speed; when a machine's
speed changes from old to new, each of its tasks' remaining work, (due - now) x old, is due
at now + that / new; its next completion is its soonest due time. Completions are events at
their due times, with no tolerance: a task whose machine's speed never changed while it
ran ends at start + work exactly.

The state: per machine, its running task ids in launch order, its speed and a version
stamp; a heap of (time, seq, machine, version) next-completion entries, where an entry
whose version is no longer its machine's is stale and skipped; a struct of arrays of tasks
(grown for a backlog, whose tasks are made at launch); per user, its evicted tasks in
eviction order (relaunched first).
"""
import heapq
import math
from collections import deque

import numpy as np

from . import workload as wl
from .engine import finish, trace_setup, unresolved, validate
from .kernel import Outputs
from .samples import Sampler, snapshot


def simulate(machines, workload, policy, *, horizon=math.inf, sample=None, resume=False):
    """drfbench.sim.simulate, in Python.

    Parameters
    ----------
    machines, workload, policy, horizon, sample, resume
        As drfbench.sim.simulate takes them.

    Returns
    -------
    Simulation
    """
    C, horizon, sample = validate(machines, workload, policy, horizon, sample, resume)
    loop = _Loop(C, workload, policy, resume)
    return finish(loop.run(horizon, sample), workload, C, None if loop.backlog else loop.setup)


class _Tasks:
    """Struct-of-arrays task table that grows (backlog tasks are made at launch)."""

    COLUMNS = (("user", np.int64, -1), ("job", np.int64, -1), ("machine", np.int64, -1),
               ("arrival", np.float64, np.nan), ("start", np.float64, np.nan),
               ("end", np.float64, np.nan), ("work", np.float64, 0.0), ("due", np.float64, np.nan))

    def __init__(self, capacity, resources):
        self.size = 0
        for name, dtype, fill in self.COLUMNS:
            setattr(self, name, np.full(capacity, fill, dtype=dtype))
        self.demand = np.zeros((capacity, resources))

    def grow(self, needed):
        if needed <= len(self.user):
            return
        new = max(needed, 2 * len(self.user), 1024)
        for name, dtype, fill in self.COLUMNS:
            old = getattr(self, name)
            a = np.full(new, fill, dtype=dtype)
            a[:len(old)] = old
            setattr(self, name, a)
        d = np.zeros((new, self.demand.shape[1]))
        d[:len(self.demand)] = self.demand
        self.demand = d


class _Loop:
    def __init__(self, C, workload, policy, resume):
        self.C = C
        self.resume = resume
        self.preempts = hasattr(policy, "preempt")
        self.M, self.m = C.shape
        self.policy = policy
        self.release = getattr(policy, "release_task", None)
        self.backlog = isinstance(workload, wl.Backlog)
        self.w = workload
        n = self.n = workload.users
        # machines: running task ids (launch order), speed, version stamp
        self.on = [[] for _ in range(self.M)]
        self.speed = np.ones(self.M)
        self.version = np.zeros(self.M, dtype=np.int64)
        self.heap = []                  # (time, seq, machine, version)
        self.seq = 0
        self.events = 0
        # job completions in order, jobs finished per user
        self.done_t, self.done_u, self.done_c = [], [], []
        self.finished = np.zeros(n, dtype=np.int64)
        self.requeue = [deque() for _ in range(n)]     # evicted tasks, in eviction order
        self.evicted = {"time": [], "task": [], "user": [], "machine": [], "lost": []}
        if self.backlog:
            self.T = _Tasks(1024, self.m)
            self.draw = wl.Normals(workload.seed)
            self.normals = []
            self.drawn = 0
            self.job_of = np.full(n, -1, dtype=np.int64)   # current job per user
            self.in_job = np.zeros(n, dtype=np.int64)      # its tasks launched so far
            self.job_user, self.job_submit, self.job_finish, self.job_left = [], [], [], []
        else:
            N = len(workload)
            T = self.T = _Tasks(N, self.m)
            T.size = N
            T.user[:] = workload.user
            T.arrival[:] = workload.arrival
            T.demand[:] = workload.demands
            T.work[:] = workload.duration
            self.setup = setup = trace_setup(workload, C)
            T.job[:] = setup.job
            self.job_user, self.job_submit = setup.job_user, setup.job_submit
            self.job_left = setup.job_left.copy()
            self.job_finish = np.full(len(setup.job_ids), np.nan)
            self.pending = [deque() for _ in range(n)]
            self.next_arrival = 0

    # -- machines ---------------------------------------------------------------------

    def refresh(self, k, now):
        """Recompute machine k's speed, its tasks' due times (the ones launched at `now`,
        and all of them if the speed changed) and push its next completion."""
        on, T = self.on[k], self.T
        old = self.speed[k]
        if on:
            used = np.zeros(self.m)
            for t in on:
                used += T.demand[t]
            load = np.divide(used, self.C[k], out=np.zeros(self.m), where=self.C[k] > 0).max()
            self.speed[k] = speed = 1.0 / max(1.0, load)
        else:
            self.speed[k] = 1.0
        self.version[k] += 1
        if on:
            due = T.due
            for t in on:
                if math.isnan(due[t]):                  # launched now
                    due[t] = now + T.work[t] / speed
                elif speed != old:
                    due[t] = now + (due[t] - now) * old / speed
            self.seq += 1
            heapq.heappush(self.heap, (min(due[on].tolist()), self.seq, k, self.version[k]))

    def complete(self, k, now):
        """Finish machine k's tasks due by `now`, in launch order."""
        T = self.T
        done = [t for t in self.on[k] if T.due[t] <= now]
        self.on[k] = [t for t in self.on[k] if not T.due[t] <= now]
        for t in done:
            u = int(T.user[t])
            T.end[t] = now
            T.due[t] = math.nan
            if self.release is not None:
                self.release(t, u, k)
            else:
                self.policy.release(u, k)
            j = int(T.job[t])
            self.job_left[j] -= 1
            if self.job_left[j] == 0:
                self.job_finish[j] = now
                self.finished[u] += 1
                self.done_t.append(now)
                self.done_u.append(u)
                self.done_c.append(int(self.finished[u]))
        self.events += len(done)

    # -- tasks ------------------------------------------------------------------------

    def arrive(self, now):
        """Add every trace task arriving by `now` (runs of one user: one add_tasks call)."""
        T, w = self.T, self.w
        i = self.next_arrival
        stop = int(np.searchsorted(w.arrival, now, side="right"))
        self.next_arrival = stop
        self.events += stop - i
        run_user, run = -1, 0
        for t in range(i, stop):
            if not self.setup.fits[t]:
                continue
            u = int(T.user[t])
            self.pending[u].append(t)
            if u != run_user:
                if run:
                    self.policy.add_tasks(run_user, run)
                run_user, run = u, 0
            run += 1
        if run:
            self.policy.add_tasks(run_user, run)

    def backlog_task(self, u, now):
        """A new task of backlog user u, launched at `now` (its jitter drawn now)."""
        T, w = self.T, self.w
        if self.job_of[u] < 0 or self.in_job[u] == w.tasks_per_job[u]:
            self.job_of[u] = len(self.job_user)
            self.in_job[u] = 0
            self.job_user.append(u)
            self.job_submit.append(now)
            self.job_finish.append(math.nan)
            self.job_left.append(int(w.tasks_per_job[u]))
        self.in_job[u] += 1
        if self.drawn == len(self.normals):
            self.normals = self.draw().tolist()
            self.drawn = 0
        z = self.normals[self.drawn]
        self.drawn += 1
        t = T.size
        T.grow(t + 1)
        T.size = t + 1
        T.user[t] = u
        T.job[t] = self.job_of[u]
        T.arrival[t] = self.job_submit[self.job_of[u]]
        T.demand[t] = w.demands[u]
        T.work[t] = w.duration[u] * math.exp(w.jitter * z)
        return t

    def launch(self, now):
        """Ask the policy for launches, start them, refresh the machines they touched (in
        index order: completions that come out at equal times keep that order)."""
        users, where = self.policy.schedule()
        users, where = np.asarray(users), np.asarray(where)
        if users.shape != where.shape or users.ndim != 1:
            raise ValueError(f"policy.schedule() returned {users.size} users but {where.size} "
                             "machines")
        if users.size and (users.dtype.kind not in "iu" or where.dtype.kind not in "iu"):
            raise ValueError("policy.schedule() must return integer users and machines, got "
                             f"dtypes {users.dtype} and {where.dtype}")
        T = self.T
        touched = set()
        for u, k in zip(users.tolist(), where.tolist()):
            if not 0 <= u < self.n:
                raise ValueError(f"policy launched unknown user {u} (users are 0..{self.n - 1})")
            if not 0 <= k < self.M:
                raise ValueError(f"policy launched a task on unknown machine {k} (machines are "
                                 f"0..{self.M - 1})")
            if self.requeue[u]:                 # an evicted task, first
                t = self.requeue[u][0]
                if now + T.work[t] == now:
                    raise unresolved(self.w, t, now)
                self.requeue[u].popleft()
            elif self.backlog:
                t = self.backlog_task(u, now)
            else:
                if not self.pending[u]:
                    raise ValueError(f"policy launched user {u} at time {now!r}, which has no "
                                     "pending task")
                t = self.pending[u][0]
                if now + T.work[t] == now:
                    raise unresolved(self.w, t, now)
                self.pending[u].popleft()
            self.on[k].append(t)
            T.machine[t] = k
            T.start[t] = now
            touched.add(k)
        self.events += users.size
        for k in sorted(touched):
            self.refresh(k, now)

    def preempt(self, now):
        """Evict the running tasks the policy names, in its order: each goes back to its
        user's evicted tasks with its full work (restart) or, with resume, what is left of
        it, (due - now) x speed; the work it loses is recorded (restart: work - that;
        resume: 0). Then the machines it left are refreshed in index order."""
        victims = np.asarray(self.policy.preempt())
        if victims.ndim != 1:
            raise ValueError(f"policy.preempt() must return a sequence of task ids, got shape "
                             f"{victims.shape}")
        if victims.size and victims.dtype.kind not in "iu":
            raise ValueError(f"policy.preempt() must return integer task ids, got dtype "
                             f"{victims.dtype}")
        T, E = self.T, self.evicted
        touched = set()
        for t in victims.tolist():
            if not (0 <= t < T.size and T.machine[t] >= 0 and not math.isnan(T.due[t])):
                raise ValueError(f"policy evicted task {t} at time {now!r}, which is not running")
            if T.due[t] <= now:
                raise ValueError(f"policy evicted task {t} at time {now!r}, when it finishes")
            k, u = int(T.machine[t]), int(T.user[t])
            left = (float(T.due[t]) - now) * float(self.speed[k])
            for name, value in zip(E, (now, t, u, k, 0.0 if self.resume else T.work[t] - left)):
                E[name].append(value)
            if self.resume:
                T.work[t] = left
            self.on[k].remove(t)
            T.due[t] = math.nan
            self.requeue[u].append(t)
            touched.add(k)
        self.events += victims.size
        for k in sorted(touched):
            self.refresh(k, now)

    # -- the loop ---------------------------------------------------------------------

    def state(self):
        """(share, speed) now: the running tasks taken machine by machine."""
        ids = np.fromiter((t for on in self.on for t in on), dtype=np.int64)
        T = self.T
        return snapshot(ids, T.user, self.speed[T.machine[ids]], T.demand, self.n,
                        self.C.sum(axis=0), self.w.demands if self.backlog else None)

    def next_event(self):
        """(time, machine) of the next event: a machine's next completion (stale heap
        entries dropped) or, machine -1, the next arrival; (inf, -1) if none. At equal
        times completions come first, in the order they were scheduled."""
        heap = self.heap
        while heap and heap[0][3] != self.version[heap[0][2]]:
            heapq.heappop(heap)
        t, k = (heap[0][0], heap[0][2]) if heap else (math.inf, -1)
        if not self.backlog and self.next_arrival < len(self.w.arrival):
            arrival = float(self.w.arrival[self.next_arrival])
            if arrival < t:
                t, k = arrival, -1
        return t, k

    def decide(self, now):
        """The policy's evictions (if it has preempt()), then its launches."""
        if self.preempts:
            self.preempt(now)
        self.launch(now)

    def run(self, horizon, sample):
        sampler = Sampler(sample, self.state, self.n * (self.m + 1)) if sample is not None else None
        next_sample = 0.0 if sampler else math.inf
        # time 0: the backlog's first launches, or the trace's arrivals at 0 and theirs
        now = 0.0
        if not self.backlog:
            self.arrive(0.0)
        self.decide(0.0)
        while True:
            t, k = self.next_event()
            if math.isinf(t) and not self.backlog:     # nothing left to happen
                if next_sample <= now:
                    sampler.record(now)
                end = now
                break
            if next_sample <= min(t, horizon):
                next_sample = sampler.record(min(t, horizon))
            if t > horizon:
                end = horizon
                break
            now = t
            if k >= 0:                          # one machine's completions
                heapq.heappop(self.heap)
                self.complete(k, t)
                self.refresh(k, t)
            else:                               # every arrival at t
                self.arrive(t)
            self.decide(t)
        return self.result(end, sampler)

    def result(self, end, sampler):
        """The kernel's Outputs, filled from this loop."""
        n, m, T, size = self.n, self.m, self.T, self.T.size
        pending = np.array([len(q) for q in self.requeue], dtype=np.int64)
        if not self.backlog:
            pending += [len(q) for q in self.pending]
        columns = ("user", "job", "machine", "arrival", "start", "end", "demand")
        return Outputs(
            end=end, events=self.events, unresolved=-1,
            samples=(sampler or Sampler(1.0, None)).arrays(n, m),
            completions={"time": self.done_t, "user": self.done_u, "count": self.done_c},
            jobs={"user": self.job_user, "submit": self.job_submit, "finish": self.job_finish},
            tasks={name: getattr(T, name)[:size] for name in columns}, pending=pending,
            arrived_until=0 if self.backlog else self.next_arrival,
            evictions=self.evicted)
