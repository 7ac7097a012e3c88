"""The discrete-event loop: tasks arrive, a policy launches them on machines, machines
time-share their tasks, tasks finish; sampled metrics come out as arrays and tidy rows.

    simulate(machines, workload, policy, *, horizon=inf, sample=None) -> Simulation

At time 0 the trace's tasks arriving at 0 are added and the policy is asked for launches
(a backlog's queues are full from the start). Then events happen one at a time, in time
order:
  - a machine's next completion: its tasks whose work is done are finished, and the policy
    is told release(user, machine) for each (release_task(task, user, machine) if it has
    that); completions at equal times are handled one machine at a time, in the order
    they were scheduled;
  - an arrival: every trace task arriving at that time is added, add_tasks(user, count)
    for each run of one user in trace order (at equal times, completions come first).
After each event the policy is asked once for launches (schedule()): each launched user's
oldest pending task starts on the machine named. Every machine that changed gets its speed
and next completion recomputed: a heap of per-machine events with version stamps, where a
machine that changes again makes its older entry stale.

Processor sharing: every task on machine k progresses at speed
    1 / max(1, max over r with cap[k, r] > 0 of used[k, r] / cap[k, r])
(no thrashing penalty); a policy that never oversubscribes runs every task at speed 1.
A sample at time s shows the state just before the events at s (after time 0's launches).
"""
import heapq
import math
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import workload as wl

DONE_TOLERANCE = 1e-9  # a task is done when its remaining work is at most this x its duration


@dataclass(frozen=True, eq=False)
class Simulation:
    """What simulate() returns.

    end            the time the simulation stopped (the horizon, or the last event if
                   the trace drained first)
    events         task events processed: arrivals + launches + completions
    resources      number of resources; users: number of users
    samples        arrays at every sample instant: "time" (S,), "share" (S, users,
                   resources): each user's running tasks' demands times their speed, over
                   the cluster's total; "speed" (S, users): mean speed of its running tasks
                   (0 if none); "utilization" (S, resources): all users' shares summed
    completions    job completions in order: "time", "user", "count" (the user's jobs
                   finished so far, this one included)
    jobs           the job table: "job", "user", "submit" (first task's arrival; backlog:
                   first launch), "finish" (last task's end; NaN if unfinished, or if the
                   job has a task that fits no machine)
    tasks          the task table: "task", "user", "job", "machine" (-1: never started),
                   "arrival", "start", "end" (NaN: not yet)
    unschedulable  trace rows of tasks that fit no machine (reported, never simulated)
    pending        tasks still waiting at the end, per user (backlog users: 0)
    """
    end: float
    events: int
    resources: int
    users: int
    samples: dict
    completions: dict
    jobs: dict
    tasks: dict
    unschedulable: np.ndarray
    pending: np.ndarray
    names: tuple = field(default=None)

    @cached_property
    def rows(self):
        """Tidy rows (dicts with keys time, metric, user, value), in time order; at one
        instant the samples come before job completions (a sample shows the state just
        before the events at its time). Per sample instant: for each user, "share_<r>" for
        every resource r, then "speed"; then "utilization_<r>" with user None. Per job
        completion: "jobs_finished" (cumulative count per user)."""
        out = []
        times = self.samples["time"].tolist()
        share = self.samples["share"].tolist()
        speed = self.samples["speed"].tolist()
        util = self.samples["utilization"].tolist()
        done_t = self.completions["time"].tolist()
        done_u = self.completions["user"].tolist()
        done_c = self.completions["count"].tolist()
        share_names = [f"share_{r}" for r in range(self.resources)]
        util_names = [f"utilization_{r}" for r in range(self.resources)]
        j = 0
        for s, t in enumerate(times):
            while j < len(done_t) and done_t[j] < t:
                out.append({"time": done_t[j], "metric": "jobs_finished", "user": done_u[j],
                            "value": done_c[j]})
                j += 1
            for u in range(self.users):
                for r, name in enumerate(share_names):
                    out.append({"time": t, "metric": name, "user": u, "value": share[s][u][r]})
                out.append({"time": t, "metric": "speed", "user": u, "value": speed[s][u]})
            for r, name in enumerate(util_names):
                out.append({"time": t, "metric": name, "user": None, "value": util[s][r]})
        for j in range(j, len(done_t)):
            out.append({"time": done_t[j], "metric": "jobs_finished", "user": done_u[j],
                        "value": done_c[j]})
        return out


def mean_by_group(values, groups, n):
    """(n,) float64: np.mean(values[groups == g]) for each g (0 where empty), bit for bit.

    Users with the same number of values are averaged together as the rows of one 2-D
    array: numpy reduces each row with the same pairwise summation as a 1-D np.mean, so
    the result does not depend on how many users share the call (np.add.reduceat, by
    contrast, sums sequentially and differs in the last bits)."""
    out = np.zeros(n)
    count = np.bincount(groups, minlength=n)
    order = np.argsort(groups, kind="stable")
    start = np.cumsum(count) - count
    for c in np.unique(count[count > 0]).tolist():
        who = np.flatnonzero(count == c)
        rows = values[order[start[who][:, None] + np.arange(c)]]
        out[who] = rows.mean(axis=1)
    return out


def _check_policy(policy):
    missing = [name for name in ("add_tasks", "schedule", "release") if not hasattr(policy, name)]
    if missing and not (missing == ["release"] and hasattr(policy, "release_task")):
        raise TypeError(f"policy {type(policy).__name__} lacks {missing}: see drfbench.sim.Policy")


def _check_time(value, name, allow_inf):
    if not isinstance(value, (int, float, np.integer, np.floating)) or math.isnan(value):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if value < 0 or (not allow_inf and math.isinf(value)):
        raise ValueError(f"{name} must be {'' if allow_inf else 'finite and '}>= 0, got {value}")
    return float(value)


def simulate(machines, workload, policy, *, horizon=math.inf, sample=None):
    """Run `policy` on `machines` with the tasks of `workload` until `horizon`, or, for a
    trace, until nothing is left to happen (no task running or still to arrive).

    machines  (M, m) capacities, one row per machine (see drfbench.sim.machines)
    workload  a drfbench.sim.Trace or a drfbench.sim.Backlog (needs a finite horizon)
    policy    a drfbench.sim.Policy; for a Backlog its queues must already be infinite
    sample    seconds between samples (None: no samples); samples at 0, sample, 2 sample,
              ... up to the end
    """
    C = wl.machines(machines)
    if not isinstance(workload, (wl.Trace, wl.Backlog)):
        raise TypeError(f"workload must be a drfbench.sim.Trace or Backlog, got "
                        f"{type(workload).__name__}")
    if workload.resources != C.shape[1]:
        raise ValueError(f"tasks have demand vectors of {workload.resources} resources but the "
                         f"machines have {C.shape[1]}")
    _check_policy(policy)
    horizon = _check_time(horizon, "horizon", allow_inf=True)
    if isinstance(workload, wl.Backlog) and math.isinf(horizon):
        raise ValueError("a Backlog never drains: give a finite horizon")
    if sample is not None:
        sample = _check_time(sample, "sample", allow_inf=False)
        if sample == 0:
            raise ValueError("sample must be > 0 (or None for no samples)")
    return _Engine(C, workload, policy).run(horizon, sample)


class _Tasks:
    """Struct-of-arrays task table that grows (backlog tasks are made at launch)."""

    COLUMNS = (("user", np.int64, -1), ("job", np.int64, -1), ("machine", np.int64, -1),
               ("arrival", np.float64, np.nan), ("start", np.float64, np.nan),
               ("end", np.float64, np.nan), ("left", np.float64, 0.0), ("tol", np.float64, 0.0))

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


class _Engine:
    def __init__(self, C, workload, policy):
        self.C = C
        self.M, self.m = C.shape
        self.total = C.sum(axis=0)
        self.policy = policy
        self.release = getattr(policy, "release_task", None)
        self.backlog = isinstance(workload, wl.Backlog)
        self.w = workload
        n = workload.users
        self.n = n
        # machines: running task ids (launch order), speed, last update, version stamp
        self.on = [[] for _ in range(self.M)]
        self.speed = np.ones(self.M)
        self.updated = np.zeros(self.M)
        self.version = np.zeros(self.M, dtype=np.int64)
        self.heap = []                  # (time, seq, machine, version)
        self.seq = 0
        self.events = 0
        # jobs: per job index, its user, submit, finish, tasks not finished
        self.done_t, self.done_u, self.done_c = [], [], []
        self.finished = np.zeros(n, dtype=np.int64)
        if self.backlog:
            self.T = _Tasks(1024, self.m)
            self.rng = np.random.default_rng(workload.seed)
            self.normals = np.empty(0)
            self.drawn = 0
            self.job_of = np.full(n, -1, dtype=np.int64)   # current job per user
            self.in_job = np.zeros(n, dtype=np.int64)      # its tasks launched so far
            self.job_user, self.job_submit, self.job_finish, self.job_left = [], [], [], []
            self.job_ids = None
            self.pending = None
            self.unschedulable = np.empty(0, dtype=np.int64)
        else:
            N = len(workload)
            T = self.T = _Tasks(N, self.m)
            T.size = N
            T.user[:] = workload.user
            T.arrival[:] = workload.arrival
            T.demand[:] = workload.demands
            T.left[:] = workload.duration
            T.tol[:] = DONE_TOLERANCE * workload.duration
            ids, T.job[:] = np.unique(workload.job, return_inverse=True)
            self.job_ids = ids
            self.job_user = np.zeros(len(ids), dtype=np.int64)
            self.job_user[T.job] = T.user
            self.job_submit = np.full(len(ids), np.inf)
            np.minimum.at(self.job_submit, T.job, T.arrival)
            self.job_finish = np.full(len(ids), np.nan)
            fits = workload.fits(C)
            self.unschedulable = np.flatnonzero(~fits)
            # a job's unschedulable tasks never finish, so neither does the job
            self.job_left = np.bincount(T.job, minlength=len(ids)).astype(np.int64)
            self.schedulable = fits
            self.pending = [deque() for _ in range(n)]
            self.next_arrival = 0

    # -- machines ---------------------------------------------------------------------

    def advance(self, k, now):
        """Bring machine k's running tasks' remaining work up to `now`."""
        dt = now - self.updated[k]
        if dt:
            step = dt * self.speed[k]
            left = self.T.left
            for t in self.on[k]:
                left[t] -= step
        self.updated[k] = now

    def refresh(self, k, now):
        """Recompute machine k's speed and push its next completion."""
        on = self.on[k]
        if on:
            used = self.T.demand[on].sum(axis=0)
            load = np.divide(used, self.C[k], out=np.zeros(self.m), where=self.C[k] > 0).max()
            self.speed[k] = 1.0 / max(1.0, load)
        else:
            self.speed[k] = 1.0
        self.version[k] += 1
        if on:
            soonest = min(self.T.left[on].tolist())
            self.seq += 1
            heapq.heappush(self.heap, (now + max(soonest, 0.0) / self.speed[k], self.seq, k,
                                       self.version[k]))

    def complete(self, k, now):
        """Finish machine k's tasks whose work is done at `now`."""
        self.advance(k, now)
        T = self.T
        done = [t for t in self.on[k] if T.left[t] <= T.tol[t]]
        if not done:
            return
        self.on[k] = [t for t in self.on[k] if T.left[t] > T.tol[t]]
        for t in done:
            u = int(T.user[t])
            T.end[t] = now
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
        """Add every trace task arriving at `now` (runs of one user: one add_tasks call)."""
        T, w = self.T, self.w
        i = self.next_arrival
        stop = int(np.searchsorted(w.arrival, now, side="right"))
        self.next_arrival = stop
        self.events += stop - i
        run_user, run = -1, 0
        for t in range(i, stop):
            if not self.schedulable[t]:
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
            self.normals = self.rng.standard_normal(4096).tolist()
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
        T.left[t] = w.duration[u] * math.exp(w.jitter * z)
        T.tol[t] = DONE_TOLERANCE * w.duration[u]
        return t

    def settle(self, touched, now):
        """Refresh the machines a launch touched, in index order (completions that come
        out at equal times are then handled in that order)."""
        for k in sorted(touched):
            self.refresh(k, now)

    def launch(self, now):
        """Ask the policy for launches and start them; returns the set of machines touched."""
        users, where = self.policy.schedule()
        users = np.asarray(users).tolist()
        where = np.asarray(where).tolist()
        if len(users) != len(where):
            raise ValueError(f"policy.schedule() returned {len(users)} users but {len(where)} "
                             "machines")
        T = self.T
        touched = set()
        for u, k in zip(users, where):
            if not 0 <= u < self.n:
                raise ValueError(f"policy launched unknown user {u} (users are 0..{self.n - 1})")
            if not 0 <= k < self.M:
                raise ValueError(f"policy launched a task on unknown machine {k} (machines are "
                                 f"0..{self.M - 1})")
            if self.backlog:
                t = self.backlog_task(u, now)
            else:
                if not self.pending[u]:
                    raise ValueError(f"policy launched user {u} at time {now}, which has no "
                                     "pending task")
                t = self.pending[u].popleft()
            self.advance(k, now)
            self.on[k].append(t)
            T.machine[t] = k
            T.start[t] = now
            touched.add(k)
        self.events += len(users)
        return touched

    # -- samples ----------------------------------------------------------------------

    def snapshot(self):
        """(share (n, m), speed (n,)) now: running tasks taken in machine order."""
        ids = np.fromiter((t for on in self.on for t in on), dtype=np.int64)
        n, m = self.n, self.m
        share = np.zeros((n, m))
        speed = np.zeros(n)
        if ids.size:
            T = self.T
            u = T.user[ids]
            s = self.speed[T.machine[ids]]
            if self.backlog:            # one shape per user: (sum of speeds) x shape
                share = np.bincount(u, weights=s, minlength=n)[:, None] * self.w.demands / self.total
            else:
                for r in range(m):
                    share[:, r] = np.bincount(u, weights=s * T.demand[ids, r], minlength=n) / self.total[r]
            speed = mean_by_group(s, u, n)
        return share, speed

    # -- the loop ---------------------------------------------------------------------

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

    def run(self, horizon, sample):
        times, shares, speeds = [], [], []
        next_sample = 0.0 if sample is not None else math.inf
        count = 0

        def record(until):
            """Samples at every sample instant up to `until`: the state now."""
            nonlocal next_sample, count
            if next_sample > until:
                return
            share, speed = self.snapshot()
            while next_sample <= until:
                times.append(next_sample)
                shares.append(share)
                speeds.append(speed)
                count += 1
                next_sample = count * sample

        # time 0: the backlog's first launches, or the trace's arrivals at 0 and theirs
        now = 0.0
        if not self.backlog:
            self.arrive(0.0)
        self.settle(self.launch(0.0), 0.0)
        while True:
            t, k = self.next_event()
            if math.isinf(t) and not self.backlog:
                end = now                       # nothing left to happen
                break
            record(min(t, horizon))
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
            self.settle(self.launch(t), t)
        return self.result(end, times, shares, speeds)

    def result(self, end, times, shares, speeds):
        n, m, T = self.n, self.m, self.T
        share = np.array(shares).reshape(len(times), n, m)
        samples = {"time": np.array(times, dtype=np.float64), "share": share,
                   "speed": np.array(speeds).reshape(len(times), n),
                   "utilization": share.sum(axis=1)}
        completions = {"time": np.array(self.done_t, dtype=np.float64),
                       "user": np.array(self.done_u, dtype=np.int64),
                       "count": np.array(self.done_c, dtype=np.int64)}
        size = T.size
        job_ids = np.arange(len(self.job_user)) if self.job_ids is None else self.job_ids
        submit = np.array(self.job_submit, dtype=np.float64)
        jobs = {"job": job_ids, "user": np.array(self.job_user, dtype=np.int64),
                "submit": submit, "finish": np.array(self.job_finish, dtype=np.float64)}
        tasks = {"task": np.arange(size), "user": T.user[:size].copy(),
                 "job": job_ids[T.job[:size]] if size else np.empty(0, dtype=np.int64),
                 "machine": T.machine[:size].copy(), "arrival": T.arrival[:size].copy(),
                 "start": T.start[:size].copy(), "end": T.end[:size].copy()}
        pending = np.zeros(n, dtype=np.int64) if self.backlog else \
            np.array([len(q) for q in self.pending], dtype=np.int64)
        if not self.backlog:
            # tasks that never arrived count as pending too
            late = T.user[self.next_arrival:size][self.schedulable[self.next_arrival:size]]
            pending += np.bincount(late, minlength=n)
        return Simulation(end=float(end), events=self.events, resources=m, users=n,
                          samples=samples, completions=completions, jobs=jobs, tasks=tasks,
                          unschedulable=self.unschedulable, pending=pending,
                          names=None if self.backlog else self.w.names)
