"""What the simulator runs: machines, and the tasks of a finite trace or of endless backlogs.

    machines(capacity)                   validated (M, m) float64 capacities
    Trace(user, job, arrival, duration, demands, users=None)
    Trace.from_columns(table, resources=None, users=None)
    Backlog(demands, tasks_per_job, duration, jitter=0.0, seed=0)

Everything is validated once here (a ValueError or TypeError naming the problem); the
engine trusts what these give it.
"""
import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import MAX_COUNT, finite_non_negative, machines, real_array

FIT_SLACK = 1e-12      # fits: demand <= capacity * (1 + FIT_SLACK), as in drfbench/drf/drf.pyx
UNBOUNDED = -1         # the task kernels' code for an unbounded task queue
# The work budget of the task schedulers (drfbench/drf/drf.pyx, drfbench/hdrf/hdrf.pyx): one
# schedule() launches every task that fits, so the most tasks that can run at once on the
# machines (given the task counts) is bounded, lest tiny tasks on huge machines run for ever.
MAX_RUNNING = 10**7
# The simulator's work budget: tasks a Backlog makes (one per launch, each a row of the
# task table) and sampled values (instants x users x (resources + 1)).
MAX_BACKLOG_TASKS = 2**20
MAX_JITTER = 10.0      # a Backlog's durations x exp(jitter N(0, 1)): far from 0 and inf
MAX_SAMPLE_VALUES = 2**26


def task_queues(counts, n, label=lambda i: f"user {i}", per="user"):
    """Task counts as the kernels' int64 queues.

    Parameters
    ----------
    counts : array_like
        One per each of `n` users: whole numbers in [0, MAX_COUNT], or inf for an unbounded
        queue (UNBOUNDED).
    n : int
    label : callable
        `label(i)` names one in errors.
    per : str
        What they are, for errors ("user", "leaf").

    Returns
    -------
    numpy.ndarray
        (n,) int64.

    Raises
    ------
    ValueError
        Not one per user, or a count not a whole number in bounds.
    TypeError
        Counts that are not numbers.
    """
    t = np.asarray(counts)
    if t.dtype.kind not in "iuf":
        raise TypeError(f"tasks must be whole numbers (or inf), got dtype {t.dtype}")
    if t.shape != (n,):
        raise ValueError(f"tasks must have one entry per {per}, shape ({n},), got {t.shape}")
    if t.dtype.kind == "f":
        finite = np.isfinite(t)
        bad = np.isnan(t) | (t < 0) | (finite & ((t != np.round(t)) | (t > MAX_COUNT)))
    else:
        finite = np.ones(t.shape, dtype=bool)
        bad = (t < 0) | (t > MAX_COUNT)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{label(i)}: tasks must be a whole number, non-negative and at most "
                         f"{MAX_COUNT} (or inf: unbounded); got {t[i]}")
    return np.where(finite, t, UNBOUNDED).astype(np.int64)


def running_bound(demands, capacity, queue, label=lambda i: f"user {i}", slots=0):
    """Refuse what could run more than MAX_RUNNING tasks at once.

    With `slots` (a slot scheduler), slots x machines; else each user's tasks that fit in
    the cluster alone, together at most resources / the smallest task's dominant share of
    the cluster. A resource no machine has is refused too (a dominant share over it is
    0 / 0).

    Parameters
    ----------
    demands : numpy.ndarray
        (n, m) one task per user.
    capacity : numpy.ndarray
        (M, m).
    queue : numpy.ndarray
        (n,) tasks per user (`task_queues`).
    label : callable
        `label(i)` names one in errors.
    slots : int
        Slots per machine (0: not a slot scheduler).

    Raises
    ------
    ValueError
        Saying which bound is passed.
    """
    total = capacity.sum(axis=0)
    if (total == 0).any():
        raise ValueError(f"no machine has resource {int(np.argmin(total))} (every capacity 0): "
                         "leave it out of the demands and the machines")
    q = np.where(queue == UNBOUNDED, np.inf, queue.astype(np.float64))
    if slots:
        bound = min(q.sum(), float(slots) * len(capacity))
        if bound > MAX_RUNNING:
            raise ValueError(f"{slots} slots on {len(capacity)} machine(s) run up to {bound:.4g} "
                             f"tasks at once, beyond the work budget of {MAX_RUNNING:,}: give "
                             "fewer slots or task counts")
        return
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        dom = np.where(demands > 0, demands / total, 0.0).max(axis=1, initial=0.0)
        alone = np.minimum(q, np.floor((1 + FIT_SLACK) / dom))
    if not np.isfinite(dom).all():
        i = int(np.argmax(~np.isfinite(dom)))
        raise ValueError(f"{label(i)}'s task over the machines' total capacity is past a "
                         "float's range (dominant share infinite): give demands and "
                         "capacities in units of a smaller range")
    positive = dom > 0
    bound = alone.sum()
    if positive.any():
        bound = min(bound, alone[~positive].sum() +
                    capacity.shape[1] * (1 + FIT_SLACK) / dom[positive].min())
    if bound > MAX_RUNNING:
        i = int(np.argmax(alone))
        raise ValueError(f"the machines hold up to {bound:.4g} tasks at once ({label(i)} alone "
                         f"up to {alone[i]:.4g}), beyond the work budget of {MAX_RUNNING:,}: "
                         "give task counts, or demands in coarser units")


def fits_somewhere(demands, capacity, chunk=65536):
    """Whether each demand row fits on at least one machine (`demand <= capacity *
    (1 + FIT_SLACK)` on every resource).

    Only the Pareto-maximal distinct capacity vectors are tested, so heterogeneous clusters
    of a few configurations cost little.

    Parameters
    ----------
    demands : numpy.ndarray
        (N, m).
    capacity : numpy.ndarray
        (M, m).
    chunk : int
        Rows tested at once.

    Returns
    -------
    numpy.ndarray
        (N,) bool.
    """
    D = np.asarray(demands, dtype=np.float64)
    C = np.unique(np.asarray(capacity, dtype=np.float64), axis=0)
    dominated = np.zeros(len(C), dtype=bool)
    for k in range(len(C)):
        others = np.delete(np.arange(len(C)), k)
        dominated[k] = bool(((C[others] >= C[k]).all(axis=1)).any())
    front = C[~dominated] * (1.0 + FIT_SLACK)
    out = np.empty(len(D), dtype=bool)
    for lo in range(0, len(D), chunk):
        part = D[lo:lo + chunk]
        out[lo:lo + chunk] = (part[:, None, :] <= front[None, :, :]).all(axis=2).any(axis=1)
    return out


def _user_codes(user, users):
    """Trace users as int64 codes 0..n-1, and the user names (or None)."""
    u = np.asarray(user)
    if u.ndim != 1:
        raise ValueError(f"user must be 1-D, got shape {u.shape}")
    if users is None or isinstance(users, numbers.Integral):
        if u.size and u.dtype.kind not in "iu":
            if u.dtype.kind == "f" and np.isfinite(u).all() and (u == np.round(u)).all():
                u = u.astype(np.int64)
            else:
                raise ValueError("user must hold integer user indices (or pass users=[names] to "
                                 f"use labels), got dtype {u.dtype}")
        codes = u.astype(np.int64)
        n = int(codes.max()) + 1 if users is None and codes.size else users
        if users is None and not codes.size:
            n = 0
        if n is not None and n < 0:
            raise ValueError(f"users must be a non-negative count, got {users}")
        bad = (codes < 0) | (codes >= n)
        if bad.any():
            raise ValueError(f"unknown user {codes[bad][0]} in the trace (row {np.argmax(bad)}): "
                             f"users are 0..{n - 1}")
        return codes, int(n), None
    names = list(users)
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise ValueError("users must not repeat a name")
    codes = np.empty(u.size, dtype=np.int64)
    for row, label in enumerate(u.tolist()):
        if label not in index:
            raise ValueError(f"unknown user {label!r} in the trace (row {row}): not among the "
                             f"{len(names)} users given")
        codes[row] = index[label]
    return codes, len(names), tuple(names)


@dataclass(frozen=True, eq=False)
class Trace:
    """A finite trace of tasks, validated: one entry per task, sorted by arrival.

    After construction: `user` holds int64 codes, `names` the names (or None), `users` the
    number of users.

    Parameters
    ----------
    user : array_like
        (N,) user of each task: indices 0..users-1, or labels among `users`.
    job : array_like
        (N,) integer job id (a job's tasks all belong to one user).
    arrival : array_like
        (N,) arrival time in seconds from the start (numbers, or durations: timedelta,
        numpy.timedelta64; points in time refused), sorted ascending, finite, `>= 0`.
    duration : array_like
        (N,) work at speed 1 in seconds (numbers or durations), positive, finite.
    demands : array_like
        (N, m) resources the task holds while it runs, finite and non-negative.
    users : int or sequence, optional
        Number of users, or their names (then `user` holds names); default: `max(user) + 1`.
    names : tuple, optional
        Set from `users`' names.

    Raises
    ------
    ValueError
        Naming the column and row: entries not one per task, arrivals not finite, negative
        or unsorted, durations not positive and finite, a job of several users.
    """
    user: np.ndarray
    job: np.ndarray
    arrival: np.ndarray
    duration: np.ndarray
    demands: np.ndarray
    users: object = None
    names: tuple = None

    def __post_init__(self):
        codes, n, names = _user_codes(self.user, self.users)
        N = codes.size
        job = np.asarray(self.job)
        if job.shape != (N,):
            raise ValueError(f"job must have one entry per task, shape ({N},), got {job.shape}")
        if N and job.dtype.kind not in "iu":
            if job.dtype.kind == "f" and np.isfinite(job).all() and (job == np.round(job)).all():
                job = job.astype(np.int64)
            else:
                raise ValueError(f"job must hold integer job ids, got dtype {job.dtype}")
        job = job.astype(np.int64)
        arrival = real_array(self.arrival, "arrival", 1)
        duration = real_array(self.duration, "duration", 1)
        demands = real_array(self.demands, "demands", 2)
        for name, a in (("arrival", arrival), ("duration", duration)):
            if a.shape != (N,):
                raise ValueError(f"{name} must have one entry per task, shape ({N},), got "
                                 f"{a.shape}")
        if demands.shape[0] != N:
            raise ValueError(f"demands must have one row per task, {N} rows, got "
                             f"{demands.shape[0]}")
        bad = ~(np.isfinite(arrival) & (arrival >= 0))
        if bad.any():
            raise ValueError(f"arrival times must be finite and >= 0 (the simulation starts at "
                             f"0): {arrival[bad][0]} at row {np.argmax(bad)}")
        back = np.flatnonzero(np.diff(arrival) < 0)
        if back.size:
            raise ValueError(f"arrival times must be sorted ascending: row {back[0] + 1} "
                             f"arrives at {arrival[back[0] + 1]} after row {back[0]} at "
                             f"{arrival[back[0]]}")
        bad = ~(np.isfinite(duration) & (duration > 0))
        if bad.any():
            raise ValueError(f"durations must be positive and finite: {duration[bad][0]} at row "
                             f"{np.argmax(bad)}")
        finite_non_negative(demands, "task demands")
        if N:
            order = np.argsort(job, kind="stable")
            same_job = job[order][1:] == job[order][:-1]
            mixed = same_job & (codes[order][1:] != codes[order][:-1])
            if mixed.any():
                j = int(job[order][1:][mixed][0])
                who = sorted(set(codes[job == j].tolist()))
                who = who if names is None else [names[c] for c in who]
                raise ValueError(f"job {j} has tasks of several users {who}: a job belongs "
                                 "to one user")
        for field, value in (("user", codes), ("job", job), ("arrival", arrival),
                             ("duration", duration), ("demands", demands), ("users", n),
                             ("names", names)):
            object.__setattr__(self, field, value)

    @classmethod
    def from_columns(cls, table, *, resources=None, users=None):
        """A Trace from a DataFrame-like table (a pandas DataFrame, a dict of arrays).

        Parameters
        ----------
        table : DataFrame or dict
            Columns user, job, arrival, duration, and either one column per resource, named by
            `resources`, or a 2-D "demands" column.
        resources : list of str, optional
            E.g. ["cpu", "mem"].
        users : int or sequence, optional
            As Trace takes it.

        Returns
        -------
        Trace

        Raises
        ------
        ValueError
            A missing column, or neither resources nor a 2-D demands column.
        """
        missing = [c for c in ("user", "job", "arrival", "duration") if c not in table]
        if missing:
            raise ValueError(f"the trace table lacks column(s) {missing}")
        if resources is None:
            if "demands" not in table:
                raise ValueError("name the resource columns (resources=[...]) or give a 2-D "
                                 "'demands' column")
            demands = np.asarray(table["demands"])
        else:
            absent = [r for r in resources if r not in table]
            if absent:
                raise ValueError(f"the trace table lacks resource column(s) {absent}")
            demands = np.column_stack([np.asarray(table[r]) for r in resources])
        return cls(np.asarray(table["user"]), np.asarray(table["job"]),
                   np.asarray(table["arrival"]), np.asarray(table["duration"]), demands,
                   users=users)

    def __len__(self):
        return self.user.size

    @property
    def resources(self):
        return self.demands.shape[1]

    def fits(self, capacity):
        """Which tasks fit on at least one machine (the others are reported as unschedulable and
        never reach the policy).

        Parameters
        ----------
        capacity : numpy.ndarray
            (M, m).

        Returns
        -------
        numpy.ndarray
            (N,) bool.
        """
        return fits_somewhere(self.demands, capacity)


class Normals:
    """A Backlog's jitter draws: N(0, 1) from numpy's default_rng(seed), 4096 per call, for
    at most MAX_BACKLOG_TASKS launches (then a ValueError: the work budget).

    Parameters
    ----------
    seed : int or None
        numpy's default_rng seed.

    Raises
    ------
    ValueError
        On a call past MAX_BACKLOG_TASKS draws: the backlog ran past the simulator's work
        budget before the horizon.
    """

    def __init__(self, seed):
        self.rng, self.drawn = np.random.default_rng(seed), 0

    def __call__(self):
        if self.drawn >= MAX_BACKLOG_TASKS:
            raise ValueError(f"the backlog launched {MAX_BACKLOG_TASKS:,} tasks before the "
                             "horizon, the simulator's work budget: give a shorter horizon")
        self.drawn += 4096
        return self.rng.standard_normal(4096)


@dataclass(frozen=True, eq=False)
class Backlog:
    """Endless backlogs: user i runs jobs back to back for ever.

    Each job is `tasks_per_job[i]` tasks of shape `demands[i]` lasting `duration[i]` at speed
    1, each multiplied by `exp(jitter * N(0, 1))` drawn from numpy's default_rng(seed) per
    launch, in launch order.

    Parameters
    ----------
    demands : array_like
        (n, m) finite, non-negative.
    tasks_per_job : array_like
        (n,) positive integers, at most MAX_COUNT (`2**62`).
    duration : array_like
        (n,) seconds (numbers or durations), positive, finite.
    jitter : float
        In [0, MAX_JITTER] (10).
    seed : int

    Raises
    ------
    ValueError
        An entry out of bounds or not one per user, naming it.
    TypeError
        `jitter` not a number.
    """
    demands: np.ndarray
    tasks_per_job: np.ndarray
    duration: np.ndarray
    jitter: float = 0.0
    seed: int = 0

    def __post_init__(self):
        D = real_array(self.demands, "demands", 2)
        finite_non_negative(D, "task demands")
        n = D.shape[0]
        tasks = np.asarray(self.tasks_per_job)
        if tasks.shape != (n,):
            raise ValueError(f"tasks_per_job must have one entry per user, shape ({n},), got "
                             f"{tasks.shape}")
        if tasks.dtype.kind not in "iuf" or not np.isfinite(tasks).all() or \
                (tasks != np.round(tasks)).any() or (tasks < 1).any() or (tasks > MAX_COUNT).any():
            raise ValueError(f"tasks_per_job must be positive integers, at most {MAX_COUNT}, got "
                             f"{tasks.tolist()!r:.200}")
        duration = real_array(self.duration, "duration", 1)
        if duration.shape != (n,):
            raise ValueError(f"duration must have one entry per user, shape ({n},), got "
                             f"{duration.shape}")
        if not (np.isfinite(duration) & (duration > 0)).all():
            raise ValueError(f"durations must be positive and finite, got {duration.tolist()}")
        if isinstance(self.jitter, bool) or not isinstance(self.jitter, numbers.Real):
            raise TypeError(f"jitter must be a number, got {self.jitter!r:.80}")
        if not 0 <= self.jitter <= MAX_JITTER:
            raise ValueError(f"jitter must lie in [0, {MAX_JITTER}] (durations x exp(jitter x "
                             f"N(0, 1)) stay finite and positive), got {self.jitter!r}")
        for field, value in (("demands", D), ("tasks_per_job", tasks.astype(np.int64)),
                             ("duration", duration), ("jitter", float(self.jitter))):
            object.__setattr__(self, field, value)

    @property
    def users(self):
        return self.demands.shape[0]

    @property
    def resources(self):
        return self.demands.shape[1]
