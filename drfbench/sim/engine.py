"""The discrete-event loop: tasks arrive, a policy launches them on machines, machines
time-share their tasks, tasks finish; sampled metrics come out as arrays and tidy rows.

    simulate(machines, workload, policy, *, horizon=inf, sample=None, resume=False)
        -> Simulation

At time 0 the trace's tasks arriving at 0 are added and the policy is asked for launches
(a backlog's queues are full from the start). Then events happen one at a time, in time
order:
  - a machine's next completion: its tasks whose work is done are finished, and the policy
    is told release(user, machine) for each (release_task(task, user, machine) if it has
    that); completions at equal times are handled one machine at a time, in the order
    they were scheduled;
  - an arrival: every trace task arriving at that time is added, add_tasks(user, count)
    for each run of one user in trace order (at equal times, completions come first).
After each event the policy is asked once for evictions if it has preempt() (running
task ids; each goes back to its user's pending tasks, first in line, with its full work or,
resume=True, the work it has left), then once for launches (schedule()): each launched
user's oldest pending task starts on the machine named. Every machine that changed gets its speed
and next completion recomputed: a heap of per-machine events with version stamps, where a
machine that changes again makes its older entry stale.

Processor sharing: every task on machine k progresses at speed
    1 / max(1, max over r with cap[k, r] > 0 of used[k, r] / cap[k, r])
(no thrashing penalty); a policy that never oversubscribes runs every task at speed 1.
A sample at time s shows the state just before the events at s (after time 0's launches).

The loop itself is the kernel drfbench/sim/sim.pyx, called through drfbench.sim.kernel
(drfbench.sim.literal is the same loop in plain Python, its specification, filling the same
kernel.Outputs); this module validates, prepares the arrays and assembles the results.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from .. import _validation as check
from .. import rows as tidy
from . import kernel
from . import workload as wl
from .samples import sample_budget


@dataclass(frozen=True, eq=False)
class Simulation:
    """What simulate() returns.

    Attributes
    ----------
    end : float
        The time the simulation stopped (the horizon, or the last event if the trace drained
        first).
    events : int
        Task events processed: arrivals + launches + completions + evictions.
    resources : int
        Number of resources.
    users : int
        Number of users.
    samples : dict
        Arrays at every sample instant: "time" (S,), "share" (S, users, resources): each
        user's running tasks' demands times their speed, over the cluster's total; "speed"
        (S, users): mean speed of its running tasks (0 if none); "utilization"
        (S, resources): all users' shares summed.
    completions : dict
        Job completions in order: "time", "user", "count" (the user's jobs finished so far,
        this one included).
    jobs : dict
        The job table: "job", "user", "submit" (first task's arrival; backlog: first
        launch), "finish" (last task's end; NaN if unfinished, or if the job has a task that
        fits no machine).
    tasks : dict
        The task table: "task", "user", "job", "machine" (-1: never started), "arrival",
        "start", "end" (NaN: not yet).
    unschedulable : numpy.ndarray
        Trace rows of tasks that fit no machine (reported, never simulated).
    pending : numpy.ndarray
        Tasks still waiting at the end, per user, evicted ones included (backlog users:
        their evicted tasks).
    names : tuple
        The users' names, if the trace named them.
    evictions : dict
        The policy's evictions in order (none unless it preempts): "time", "task", "user",
        "machine", "lost" (the work thrown away, task-seconds: what the task had done since
        it started; 0 with resume), "lost_resources" (E, m): lost x the task's demands
        (resource-seconds).
    preempted, lost_work, lost_resources : numpy.ndarray
        Per user, evictions, task-seconds and (n, m) resource-seconds lost (`.sum(axis=0)`
        for the cluster's total).
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
    evictions: dict = field(default=None)

    @property
    def preempted(self):
        return np.bincount(self.evictions["user"], minlength=self.users)

    @property
    def lost_work(self):
        return np.bincount(self.evictions["user"], weights=self.evictions["lost"],
                           minlength=self.users)

    @property
    def lost_resources(self):
        E = self.evictions
        return np.stack([np.bincount(E["user"], weights=E["lost_resources"][:, r],
                                     minlength=self.users) for r in range(self.resources)],
                        axis=-1).reshape(self.users, self.resources)

    @property
    def rows(self):
        """Tidy rows (dicts with keys time, metric, user, value), in time order; at one
        instant the samples come before job completions (a sample shows the state just
        before the events at its time, then job completions, then evictions). Per sample
        instant: for each user, "share_<r>" for every resource r, then "speed"; then
        "utilization_<r>" with user None. Per job completion: "jobs_finished" (cumulative
        count per user). Per eviction, for its user, cumulative: "preemptions", "lost_work"
        (task-seconds), "lost_<r>" (resource-seconds). A drfbench.rows.Rows: made from the
        sample arrays as they are read, never all held."""
        return tidy.Rows(self._merged)

    def _merged(self):
        """_rows's rows and the evictions' rows, merged by time (evictions last)."""
        E = self.evictions
        rows = self._rows()
        if not E["time"].size:
            yield from rows
            return
        count, lost = np.zeros(self.users, np.int64), np.zeros(self.users)
        spent = np.zeros((self.users, self.resources))
        row = next(rows, None)
        for t, u, w, per in zip(E["time"].tolist(), E["user"].tolist(), E["lost"].tolist(),
                                E["lost_resources"].tolist()):
            while row is not None and row["time"] <= t:
                yield row
                row = next(rows, None)
            count[u] += 1
            lost[u] += w
            spent[u] += per
            yield {"time": t, "metric": "preemptions", "user": u, "value": int(count[u])}
            yield {"time": t, "metric": "lost_work", "user": u, "value": float(lost[u])}
            for r, value in enumerate(spent[u].tolist()):
                yield {"time": t, "metric": f"lost_{r}", "user": u, "value": value}
        if row is not None:
            yield row
            yield from rows

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


def _check_policy(policy):
    missing = [name for name in ("add_tasks", "schedule", "release") if not hasattr(policy, name)]
    if missing and not (missing == ["release"] and hasattr(policy, "release_task")):
        raise TypeError(f"policy {type(policy).__name__} lacks {missing}: see drfbench.sim.Policy")


def _check_time(value, name, allow_inf):
    value = check.duration(value, name)
    if value < 0 or (not allow_inf and math.isinf(value)):
        raise ValueError(f"{name} must be {'' if allow_inf else 'finite and '}>= 0, got {value}")
    return float(value)


def validate(machines, workload, policy, horizon, sample, resume=False):
    """The checked inputs of simulate(); a trace task that ends where it starts
    (`arrival + duration == arrival`) is refused here.

    Parameters
    ----------
    machines, workload, policy, horizon, sample, resume
        As simulate() takes them.

    Returns
    -------
    capacity : numpy.ndarray
        (M, m) float64.
    horizon : float
    sample : float or None

    Raises
    ------
    ValueError
        As simulate().
    TypeError
        As simulate().
    """
    if not isinstance(resume, (bool, np.bool_)):
        raise TypeError(f"resume must be True or False, got {resume!r:.80}")
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
    """A trace task that float64 cannot tell from nothing where it starts.

    Attributes
    ----------
    row : int
        The trace's row.
    start : float
        Where it starts.
    """

    def __init__(self, message, row, start):
        super().__init__(message)
        self.row, self.start = row, start

    def __reduce__(self):                       # pickles (across processes) whole
        return Unresolved, (str(self), self.row, self.start)


def unresolved(trace, row, start, job=None):
    """The error for a trace task where `start + its duration == start`: its duration is below
    the spacing of floats there (`2**-52 x start`).

    Parameters
    ----------
    trace : Trace
    row : int
    start : float
    job : object, optional
        Its job as the user wrote it (default: the Trace's).

    Returns
    -------
    Unresolved
    """
    user = trace.user[row] if trace.names is None else trace.names[trace.user[row]]
    user = user.item() if isinstance(user, np.generic) else user
    job = int(trace.job[row]) if job is None else job
    return Unresolved(f"tasks: the task at row {row} (user {user!r}, job {job!r}) lasts "
                      f"{float(trace.duration[row])!r} s, which float64 cannot tell from nothing "
                      f"at its start, {float(start)!r} s (start + duration == start): give it a "
                      "longer duration, or leave it out", row, float(start))


@dataclass(frozen=True, eq=False)
class TraceSetup:
    """A trace's jobs and schedulable tasks, prepared once for the loop.

    Attributes
    ----------
    job_ids : numpy.ndarray
        (J,) the distinct job ids.
    job : numpy.ndarray
        (N,) int64, each task's job index.
    job_user : numpy.ndarray
        (J,) int64, each job's user.
    job_submit : numpy.ndarray
        (J,) float, each job's first arrival.
    job_left : numpy.ndarray
        (J,) int64, tasks per job (its unschedulable tasks included: they never finish,
        so neither does the job).
    fits : numpy.ndarray
        (N,) bool, whether a task fits on some machine.
    """
    job_ids: np.ndarray
    job: np.ndarray
    job_user: np.ndarray
    job_submit: np.ndarray
    job_left: np.ndarray
    fits: np.ndarray


def trace_setup(trace, C):
    """A trace's TraceSetup: its jobs, and which of its tasks fit on some machine.

    Parameters
    ----------
    trace : Trace
    C : numpy.ndarray
        (M, m) the machines' capacities.

    Returns
    -------
    TraceSetup
    """
    ids, job = np.unique(trace.job, return_inverse=True)
    job_user = np.zeros(len(ids), dtype=np.int64)
    job_user[job] = trace.user
    submit = np.full(len(ids), np.inf)
    np.minimum.at(submit, job, trace.arrival)
    left = np.bincount(job, minlength=len(ids)).astype(np.int64)
    return TraceSetup(ids, job.astype(np.int64), job_user, submit, left, trace.fits(C))


def finish(out, workload, C, setup=None):
    """The Simulation from a loop's Outputs (kernel.Outputs; copied); a trace row that stopped
    the run (out.unresolved) is refused here.

    Parameters
    ----------
    out : kernel.Outputs
    workload : Trace or Backlog
    C : numpy.ndarray
        (M, m) capacities.
    setup : TraceSetup, optional
        Its trace_setup, if made already.

    Returns
    -------
    Simulation

    Raises
    ------
    Unresolved
        The row that stopped the run.
    """
    n, m = workload.users, C.shape[1]
    pending = np.array(out.pending, dtype=np.int64)
    if isinstance(workload, wl.Trace):
        setup = trace_setup(workload, C) if setup is None else setup
        if out.unresolved >= 0:
            raise unresolved(workload, out.unresolved, out.end)
        job_ids, names, unschedulable = setup.job_ids, workload.names, np.flatnonzero(~setup.fits)
        late = slice(out.arrived_until, len(workload))  # not yet arrived: pending too
        pending += np.bincount(workload.user[late][setup.fits[late]], minlength=n)
    else:
        job_ids, names = np.arange(len(out.jobs["user"])), None
        unschedulable = np.empty(0, dtype=np.int64)
    T, J, done, E = out.tasks, out.jobs, out.completions, out.evictions
    size = len(T["user"])
    task = np.array(E["task"], dtype=np.int64)
    lost = np.array(E["lost"], dtype=np.float64)
    return Simulation(
        end=float(out.end), events=int(out.events), resources=m, users=n,
        samples=out.samples,
        completions={"time": np.array(done["time"], dtype=np.float64),
                     "user": np.array(done["user"], dtype=np.int64),
                     "count": np.array(done["count"], dtype=np.int64)},
        jobs={"job": np.array(job_ids), "user": np.array(J["user"], dtype=np.int64),
              "submit": np.array(J["submit"], dtype=np.float64),
              "finish": np.array(J["finish"], dtype=np.float64)},
        tasks={"task": np.arange(size), "user": np.array(T["user"], dtype=np.int64),
               "job": job_ids[np.asarray(T["job"], dtype=np.int64)],
               "machine": np.array(T["machine"], dtype=np.int64),
               "arrival": np.array(T["arrival"], dtype=np.float64),
               "start": np.array(T["start"], dtype=np.float64),
               "end": np.array(T["end"], dtype=np.float64)},
        unschedulable=unschedulable, pending=pending, names=names,
        evictions={"time": np.array(E["time"], dtype=np.float64), "task": task,
                   "user": np.array(E["user"], dtype=np.int64),
                   "machine": np.array(E["machine"], dtype=np.int64), "lost": lost,
                   "lost_resources": lost[:, None] * np.asarray(T["demand"])[task]})


def simulate(machines, workload, policy, *, horizon=math.inf, sample=None, resume=False,
             isa=None):
    """Run `policy` on `machines` with the tasks of `workload` until `horizon`, or, for a trace,
    until nothing is left to happen (no task running or still to arrive).

    Work budget: at most MAX_SAMPLE_VALUES (`2**26`) sampled values (instants x users x
    (resources + 1); judged as the run goes, up front only over what it surely takes) and
    MAX_BACKLOG_TASKS (`2**20`) tasks launched from a Backlog (and a horizon at most that
    many times its shortest duration). The clock is exact at any scale: a trace task is
    refused only where float64 cannot tell its end from its start
    (`start + duration == start`), up front at its arrival, else when it would start.

    Parameters
    ----------
    machines : array_like
        (M, m) capacities, one row per machine (see drfbench.sim.machines).
    workload : Trace or Backlog
        A Backlog needs a finite horizon.
    policy : Policy
        Or a PreemptingPolicy; for a Backlog its queues must already be infinite.
    horizon : float
        Seconds (a number, or a duration: timedelta, numpy.timedelta64).
    sample : float, optional
        Seconds between samples (None: no samples); samples at 0, sample, 2 sample, ... up
        to the end.
    resume : bool
        An evicted task goes back to its user's queue with the work it has left (default
        False: with its full work, a restart, as Kueue and Armada do).
    isa : str, optional
        Kernel variant (drfbench._isa; default: the widest this CPU runs).

    Returns
    -------
    Simulation

    Raises
    ------
    ValueError
        Bad machines, workload or options; a run past the work budget, before the run where
        the input shows it; a trace task whose end float64 cannot tell from its start
        (Unresolved).
    TypeError
        A workload that is neither a Trace nor a Backlog, or `resume` not a bool.
    """
    C, horizon, sample = validate(machines, workload, policy, horizon, sample, resume)
    n = workload.users
    if isinstance(workload, wl.Trace):
        setup = trace_setup(workload, C)
        order = np.argsort(workload.user, kind="stable")
        order = order[setup.fits[order]]                 # schedulable tasks, by user
        out = kernel.run(
            C, n, policy, horizon, resume=resume, sample=sample, isa=isa,
            tasks={"user": workload.user, "job": setup.job, "arrival": workload.arrival,
                   "work": workload.duration, "demand": workload.demands},
            jobs={"user": setup.job_user, "left": setup.job_left, "submit": setup.job_submit},
            trace={"by_user": order, "schedulable": setup.fits,
                   "ptr": np.searchsorted(workload.user[order], np.arange(n + 1))})
        return finish(out, workload, C, setup)
    empty = np.empty(0)
    out = kernel.run(
        C, n, policy, horizon, resume=resume, sample=sample, isa=isa, shapes=workload.demands,
        jobs={"user": empty, "left": empty, "submit": empty},
        backlog={"demands": workload.demands, "tasks_per_job": workload.tasks_per_job,
                 "duration": workload.duration, "jitter": workload.jitter,
                 "draw": wl.Normals(workload.seed)})
    return finish(out, workload, C)
