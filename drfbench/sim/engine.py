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

The loop itself is the kernel drfbench/sim/sim.pyx (drfbench.sim.literal is the same loop in
plain Python, its specification); this module validates, prepares the arrays, takes the
samples (NumPy) and assembles the results.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from .. import _isa
from .. import _validation as check
from .. import rows as tidy
from . import workload as wl


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

    @property
    def rows(self):
        """Tidy rows (dicts with keys time, metric, user, value), in time order; at one
        instant the samples come before job completions (a sample shows the state just
        before the events at its time). Per sample instant: for each user, "share_<r>" for
        every resource r, then "speed"; then "utilization_<r>" with user None. Per job
        completion: "jobs_finished" (cumulative count per user). A drfbench.rows.Rows:
        made from the sample arrays as they are read, never all held."""
        return tidy.Rows(self._rows)

    def _rows(self):
        samples, done = self.samples, self.completions
        done_t, done_u, done_c = (done[k].tolist() for k in ("time", "user", "count"))
        share_names = [f"share_{r}" for r in range(self.resources)]
        util_names = [f"utilization_{r}" for r in range(self.resources)]
        j = 0
        for s, t in enumerate(samples["time"].tolist()):
            while j < len(done_t) and done_t[j] < t:
                yield {"time": done_t[j], "metric": "jobs_finished", "user": done_u[j],
                       "value": done_c[j]}
                j += 1
            share, speed = samples["share"][s].tolist(), samples["speed"][s].tolist()
            for u in range(self.users):
                for r, name in enumerate(share_names):
                    yield {"time": t, "metric": name, "user": u, "value": share[u][r]}
                yield {"time": t, "metric": "speed", "user": u, "value": speed[u]}
            for r, value in enumerate(samples["utilization"][s].tolist()):
                yield {"time": t, "metric": util_names[r], "user": None, "value": value}
        for j in range(j, len(done_t)):
            yield {"time": done_t[j], "metric": "jobs_finished", "user": done_u[j],
                   "value": done_c[j]}


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
    value = check.duration(value, name)
    if value < 0 or (not allow_inf and math.isinf(value)):
        raise ValueError(f"{name} must be {'' if allow_inf else 'finite and '}>= 0, got {value}")
    return float(value)


def validate(machines, workload, policy, horizon, sample):
    """Checked (capacity (M, m) float64, horizon, sample) for simulate(); a trace task
    that ends where it starts (arrival + duration == arrival) is refused here."""
    if check.column_names(machines, "machines") is not None:
        raise ValueError("machines name their resources but the tasks' demands are by position: "
                         "give the machines as an array, columns in the demands' order")
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
    if isinstance(workload, wl.Backlog) and \
            horizon > wl.MAX_BACKLOG_TASKS * workload.duration.min():
        raise ValueError(f"horizon {horizon:g} s runs more than {wl.MAX_BACKLOG_TASKS:,} tasks of "
                         f"{workload.duration.min():g} s one after another, beyond the "
                         "simulator's work budget: give a shorter horizon")
    if sample is not None:
        sample = _check_time(sample, "sample", allow_inf=False)
        if sample == 0:
            raise ValueError("sample must be > 0 (or None for no samples)")
        # Up front, the time the run surely takes: a Backlog's horizon, a trace's last
        # arrival (within the horizon); the Sampler holds the budget as the run goes on,
        # so a trace that drains early is not judged by a far horizon.
        surely = horizon if isinstance(workload, wl.Backlog) else \
            min(horizon, workload.arrival.max(initial=0.0))
        sample_budget(sample, surely, workload.users * (C.shape[1] + 1))
    if isinstance(workload, wl.Trace):
        lost = np.flatnonzero(workload.arrival + workload.duration == workload.arrival)
        if lost.size:
            raise unresolved(workload, int(lost[0]), workload.arrival[lost[0]])
    return C, horizon, sample


class Unresolved(ValueError):
    """A trace task that float64 cannot tell from nothing where it starts: `row`, `start`."""

    def __init__(self, message, row, start):
        super().__init__(message)
        self.row, self.start = row, start

    def __reduce__(self):                       # pickles (across processes) whole
        return Unresolved, (str(self), self.row, self.start)


def unresolved(trace, row, start, job=None):
    """The error (Unresolved) for trace task `row` starting at `start`, where start + its
    duration == start: its duration is below the spacing of floats there (2**-52 x start).
    `job` names its job as the user wrote it (default: the Trace's)."""
    user = trace.user[row] if trace.names is None else trace.names[trace.user[row]]
    user = user.item() if isinstance(user, np.generic) else user
    job = int(trace.job[row]) if job is None else job
    return Unresolved(f"tasks: the task at row {row} (user {user!r}, job {job!r}) lasts "
                      f"{float(trace.duration[row])!r} s, which float64 cannot tell from nothing "
                      f"at its start, {float(start)!r} s (start + duration == start): give it a "
                      "longer duration, or leave it out", row, float(start))


def sample_budget(sample, until, width):
    """Refuse samples every `sample` s from 0 to `until` of `width` values each beyond
    MAX_SAMPLE_VALUES values in all (the simulator's work budget)."""
    instants = until // sample + 1
    if instants * width > wl.MAX_SAMPLE_VALUES:
        raise ValueError(f"sample: a sample every {sample:g} s up to {until:g} s takes "
                         f"{instants:.3g} samples of {width} values, beyond the simulator's "
                         f"work budget ({wl.MAX_SAMPLE_VALUES:,} values): sample less often")


@dataclass(frozen=True, eq=False)
class TraceSetup:
    """A trace's jobs and schedulable tasks, prepared once for the loop.

    job_ids (J,) the distinct job ids; job (N,) each task's job index; job_user,
    job_submit (first arrival), job_left (J,) tasks per job (its unschedulable tasks
    included: they never finish, so neither does the job); fits (N,) bool."""
    job_ids: np.ndarray
    job: np.ndarray
    job_user: np.ndarray
    job_submit: np.ndarray
    job_left: np.ndarray
    fits: np.ndarray


def trace_setup(trace, C):
    ids, job = np.unique(trace.job, return_inverse=True)
    job_user = np.zeros(len(ids), dtype=np.int64)
    job_user[job] = trace.user
    submit = np.full(len(ids), np.inf)
    np.minimum.at(submit, job, trace.arrival)
    left = np.bincount(job, minlength=len(ids)).astype(np.int64)
    return TraceSetup(ids, job.astype(np.int64), job_user, submit, left, trace.fits(C))


def snapshot(ids, user, task_speed, demand, n, total, shapes=None):
    """(share (n, m), speed (n,)) of the running tasks `ids` (machines in index order):
    share[u, r] = sum over u's tasks of demand[t, r] x speed / total[r] (with one shape
    per user, `shapes`: (sum of u's speeds) x shapes[u, r] / total[r]); speed[u] the mean
    of u's tasks' speeds, 0 if none. Sums run in the order of `ids`. A resource the cluster
    has none of (total 0) is a share 0."""
    m = len(total)
    total = np.where(total > 0, total, np.inf)
    share = np.zeros((n, m))
    speed = np.zeros(n)
    if ids.size:
        u = user[ids]
        s = task_speed
        if shapes is not None:
            share = np.bincount(u, weights=s, minlength=n)[:, None] * shapes / total
        else:
            for r in range(m):
                share[:, r] = np.bincount(u, weights=s * demand[ids, r], minlength=n) / total[r]
        speed = mean_by_group(s, u, n)
    return share, speed


class Sampler:
    """Takes samples at 0, sample, 2 sample, ...: record(until) takes every one not yet
    taken up to `until` (all showing the state now) and returns the next instant; `width`
    values each (users x (resources + 1)), at most MAX_SAMPLE_VALUES in all (a ValueError)."""

    def __init__(self, sample, state, width=1):
        self.sample, self.state, self.width = sample, state, width
        self.times, self.shares, self.speeds = [], [], []

    def record(self, until):
        next_sample = len(self.times) * self.sample
        if next_sample <= until:
            sample_budget(self.sample, until, self.width)
            share, speed = self.state()
            while next_sample <= until:
                self.times.append(next_sample)
                self.shares.append(share)
                self.speeds.append(speed)
                next_sample = len(self.times) * self.sample
        return next_sample

    def arrays(self, n, m):
        share = np.array(self.shares).reshape(len(self.times), n, m)
        return {"time": np.array(self.times, dtype=np.float64), "share": share,
                "speed": np.array(self.speeds).reshape(len(self.times), n),
                "utilization": share.sum(axis=1)}


def result(*, end, events, n, m, samples, completions, job_ids, job_user, job_submit,
           job_finish, task_user, task_job, machine, arrival, start, end_times,
           unschedulable, pending, names):
    """The Simulation, from the loop's arrays (copied)."""
    job_ids = np.arange(len(job_user)) if job_ids is None else job_ids
    size = len(task_user)
    return Simulation(
        end=float(end), events=int(events), resources=m, users=n, samples=samples,
        completions={"time": np.array(completions["time"], dtype=np.float64),
                     "user": np.array(completions["user"], dtype=np.int64),
                     "count": np.array(completions["count"], dtype=np.int64)},
        jobs={"job": np.array(job_ids), "user": np.array(job_user, dtype=np.int64),
              "submit": np.array(job_submit, dtype=np.float64),
              "finish": np.array(job_finish, dtype=np.float64)},
        tasks={"task": np.arange(size), "user": np.array(task_user, dtype=np.int64),
               "job": job_ids[np.asarray(task_job, dtype=np.int64)],
               "machine": np.array(machine, dtype=np.int64),
               "arrival": np.array(arrival, dtype=np.float64),
               "start": np.array(start, dtype=np.float64),
               "end": np.array(end_times, dtype=np.float64)},
        unschedulable=unschedulable, pending=np.array(pending, dtype=np.int64), names=names)


def simulate(machines, workload, policy, *, horizon=math.inf, sample=None, isa=None):
    """Run `policy` on `machines` with the tasks of `workload` until `horizon`, or, for a
    trace, until nothing is left to happen (no task running or still to arrive).

    machines  (M, m) capacities, one row per machine (see drfbench.sim.machines)
    workload  a drfbench.sim.Trace or a drfbench.sim.Backlog (needs a finite horizon)
    policy    a drfbench.sim.Policy; for a Backlog its queues must already be infinite
    horizon   seconds (a number, or a duration: timedelta, numpy.timedelta64)
    sample    seconds between samples (None: no samples); samples at 0, sample, 2 sample,
              ... up to the end
    Work budget: at most MAX_SAMPLE_VALUES (`2**26`) sampled values (instants x users x
    (resources + 1); judged as the run goes, up front only over what it surely takes) and
    MAX_BACKLOG_TASKS (`2**20`) tasks launched from a Backlog (and a horizon at most that
    many times its shortest duration); else a ValueError, before the run where the input
    shows it. The clock is exact at any scale: a trace task is refused only where float64
    cannot tell its end from its start (start + duration == start), up front at its
    arrival, else when it would start.
    isa       kernel variant (drfbench._isa; default: the widest this CPU runs)
    """
    C, horizon, sample = validate(machines, workload, policy, horizon, sample)
    n, m = workload.users, C.shape[1]
    EventLoop = _isa.kernels(isa).sim.EventLoop
    if isinstance(workload, wl.Trace):
        setup = trace_setup(workload, C)
        order = np.argsort(workload.user, kind="stable")
        order = order[setup.fits[order]]                 # schedulable tasks, by user
        tasks = {"user": workload.user, "job": setup.job, "arrival": workload.arrival,
                 "work": workload.duration, "demand": workload.demands}
        jobs = {"user": setup.job_user, "left": setup.job_left, "submit": setup.job_submit}
        trace = {"by_user": order, "ptr": np.searchsorted(workload.user[order], np.arange(n + 1)),
                 "schedulable": setup.fits}
        loop = EventLoop(C, tasks, jobs, n, trace=trace)
        shapes, job_ids, names = None, setup.job_ids, workload.names
        unschedulable = np.flatnonzero(~setup.fits)
    else:
        backlog = {"demands": workload.demands, "tasks_per_job": workload.tasks_per_job,
                   "duration": workload.duration, "jitter": workload.jitter,
                   "draw": wl.Normals(workload.seed)}
        empty = np.empty(0)
        loop = EventLoop(C, {}, {"user": empty, "left": empty, "submit": empty}, n,
                         backlog=backlog)
        shapes, job_ids, names = workload.demands, None, None
        unschedulable = np.empty(0, dtype=np.int64)
    total = C.sum(axis=0)

    def state():
        fast = loop.full_speed_state(total)         # every machine at speed 1: one C pass
        if fast is not None:
            return fast
        ids, T = loop.running(), loop.tasks
        return snapshot(ids, T["user"], loop.speed[T["machine"][ids]], T["demand"], n, total,
                        shapes)
    sampler = Sampler(sample, state, n * (m + 1)) if sample is not None else None
    end = loop.run(policy, horizon, sampler.record if sampler else None)
    if loop.lost >= 0:
        raise unresolved(workload, loop.lost, end)
    samples = sampler.arrays(n, m) if sampler else Sampler(1.0, None).arrays(n, m)
    T, J = loop.tasks, loop.jobs
    pending = loop.pending
    if isinstance(workload, wl.Trace):                   # not yet arrived: pending too
        late = slice(loop.arrived_until, len(workload))
        pending = pending + np.bincount(workload.user[late][setup.fits[late]], minlength=n)
    run = result(end=end, events=loop.events, n=n, m=m, samples=samples,
                 completions=loop.completions, job_ids=job_ids, job_user=J["user"],
                 job_submit=J["submit"], job_finish=J["finish"], task_user=T["user"],
                 task_job=T["job"], machine=T["machine"], arrival=T["arrival"],
                 start=T["start"], end_times=T["end"], unschedulable=unschedulable,
                 pending=pending, names=names)
    return run
