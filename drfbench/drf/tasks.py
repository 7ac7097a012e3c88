"""Classic DRF's discrete tasks on a cluster: the online schedulers of the lecture
(drfbench/drf/drf.pyx), static runs of them, and the lecture's DRF-vs-slots experiment on the
cluster simulator drfbench.sim.

    demands[i]   resources one task of user i needs, in absolute units (e.g. <1 CPU, 4 GB>)
    machines     one machine's resources (1-D), or one row per machine (2-D)
    tasks[i]     tasks user i has to run (None or inf: an infinite queue)

Demands and machines given by name (DataFrames with text column labels, dicts of columns)
are matched by name; machines by name beside demands by position are refused as ambiguous.
Bounds: tasks[i] a whole number in [0, `2**62`] or inf; weights as drfbench.allocate's
(positive, each in [1e-300, 1e300], within a factor _validation.MAX_WEIGHT_RATIO (1e9) of
each other); at most drfbench.sim.MAX_RUNNING (`10**7`) tasks able to run at once on the
machines (the schedulers' work budget).
"""
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from .. import _inputs, api, sim
from .. import _validation as check
from .. import rows as tidy
from . import kernel
from .catalog import SLOTS, TASKS


@dataclass(frozen=True)
class TaskAllocation:
    """What a static run of an online scheduler gives.

    Attributes
    ----------
    method : str
        The registered method that ran.
    tasks : numpy.ndarray
        Tasks launched per user.
    allocation : numpy.ndarray
        (n, m) resources held, `tasks[i] * d_i`.
    shares : numpy.ndarray
        Each user's weighted dominant share (DRF) or slot share (slots).
    order_users, order_machines : numpy.ndarray
        The launches in order.
    decisions : int
        Heap decisions taken.
    """
    method: str
    tasks: np.ndarray
    allocation: np.ndarray
    shares: np.ndarray
    order_users: np.ndarray
    order_machines: np.ndarray
    decisions: int

    def rows(self, **columns):
        """Tidy rows, one per user: method, decisions, then the user (its index), its tasks and
        its share, stamped (drfbench.rows).

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        return tidy.stamped(({"method": self.method, "decisions": self.decisions, "user": i,
                              "tasks": n, "share": s}
                             for i, (n, s) in enumerate(zip(self.tasks.tolist(),
                                                            self.shares.tolist()))), **columns)


def task_demands(demands):
    """Per-task demands as a validated float64 array: finite and non-negative.

    Parameters
    ----------
    demands : array_like, DataFrame or dict of columns
        Users x resources; given by name (a DataFrame with text column labels, a dict of
        columns), in the order given.

    Returns
    -------
    numpy.ndarray
    """
    return _named_demands(demands)[1]


def _named_demands(demands):
    """(resource names or None, task_demands(demands))."""
    names, values = check.by_name(demands, "task demands")
    D = check.finite_non_negative(check.real_array(values, "task demands", 2), "task demands")
    return names, D


def read_inputs(demands_path, machines_path, names=False):
    """The tasks kind's reader (`drfbench run`), by drfbench._inputs.demands_and_machines.

    Parameters
    ----------
    demands_path : str or Path
        A CSV of per-task demands, one row per user, whose header names the resources.
    machines_path : str or Path
        A machines CSV with the same resource columns, matched by name, and optionally
        `count`.
    names : bool
        Also return the users' names.

    Returns
    -------
    tuple
        (demands (users, resources), machines (M, resources)); with `names`, that pair and the
        users' names (None without a name column).

    Raises
    ------
    ValueError
        Naming the file, line and column.
    """
    return _inputs.demands_and_machines(demands_path, machines_path, names=names)


def scheduler(demands, machines, method="online-drf", **options):
    """A stateful task scheduler, registered task method `method`: a policy for the cluster
    simulator drfbench.sim (kernel.task_scheduler).

    Its methods: schedule() -> kernel.Launches (users, machines) launched,
    release(user, machine), add_tasks(user, count); attributes running, launched, queued,
    usage, shares, decisions. The options are the method's, checked and defaulted by the
    registry (Method.checked: one check, one set of defaults with drf.schedule).

    Parameters
    ----------
    demands : array_like, DataFrame or dict of columns
        (users, resources) one task's resources per user, absolute units, finite and `>= 0`.
    machines : array_like, DataFrame or dict of columns
        One machine's capacity (1-D) or one row per machine, matched to the demands by name
        when both name their resources, by position when neither does (else refused).
    method : str
        "online-drf", or "hadoop-slots" with `slots` per machine
        (drfbench.methods(takes="tasks")).
    **options
        The method's: `weights`, per user (drfbench.allocate's bounds); `tasks`, tasks
        each user has to run, whole numbers in [0, `2**62`] (None or inf: an infinite
        queue); `slots`, slots per machine, in [1, drfbench.sim.MAX_RUNNING].

    Returns
    -------
    object
        The kernel's scheduler (kernel.task_scheduler), a drfbench.sim policy.

    Raises
    ------
    ValueError
        Bad demands, machines or options; more than drfbench.sim.MAX_RUNNING (`10**7`)
        tasks able to run at once on the machines (the work budget); a task whose dominant
        share of the machines' total is not finite.
    """
    spec = api.method_info(method, TASKS)
    o = SimpleNamespace(**{SLOTS.name: 0, **spec.checked(options)})     # online DRF: 0 slots
    if o.slots is None:
        raise ValueError(f"method {spec.name!r} needs slots, the number of slots per machine")
    k = check.positive_int(o.slots, SLOTS.name, upper=sim.MAX_RUNNING) if o.slots else 0
    names, D = _named_demands(demands)
    C = check.machines(machines, D.shape[1], resources=names)
    w = check.tenant_weights(o.weights, D.shape[0])
    queue = (np.full(D.shape[0], sim.UNBOUNDED, dtype=np.int64) if o.tasks is None else
             sim.task_queues(o.tasks, D.shape[0]))
    if k == 0:
        idle = (D.max(axis=1, initial=0.0) == 0) & (queue == sim.UNBOUNDED)
        if idle.any():
            raise ValueError(f"user(s) {np.flatnonzero(idle).tolist()} have all-zero tasks and an "
                             "infinite queue: DRF would launch them for ever")
    sim.running_bound(D, C, queue, slots=k)
    return kernel.task_scheduler(demands=D, machines=C, weights=w, queue=queue, slots=k,
                                 isa=o.isa)


def run_method(spec, demands, machines, **options):
    """The registry's implementation of the task methods: launch tasks until no user's
    next task can start, a static run on an idle cluster. Returns a TaskAllocation.

    Parameters
    ----------
    spec : Method
        The method as registered.
    demands, machines
        As `schedule` takes them.
    **options
        The method's, checked and defaulted by the registry.

    Returns
    -------
    TaskAllocation
    """
    s = scheduler(demands, machines, spec.name, **options)
    users, where = s.schedule()
    count = s.launched
    return TaskAllocation(spec.name, count, count[:, None] * task_demands(demands), s.shares,
                          users, where, s.decisions)


def schedule(demands, machines, method="online-drf", **options):
    """Run registered task method `method` on an idle cluster until no user's next task can
    start.

    Parameters
    ----------
    demands, machines, method, **options
        As `scheduler`'s (drfbench.methods(takes="tasks")).

    Returns
    -------
    TaskAllocation

    Raises
    ------
    ValueError
        As `scheduler`.
    """
    return api.run(method, demands, machines, takes=TASKS, **options)


def online_drf(demands, capacity, **options):
    """Online DRF for discrete tasks (lecture, "Online DRF Scheduler").

    Repeatedly launch a task of the user with the smallest weighted dominant share whose
    next task fits, until none fits. E.g. capacity <9 CPU, 18 GB>, tasks <1, 4> and <3, 1>:
    3 and 2 tasks. The same as `schedule(demands, capacity, "online-drf", ...)`.

    Parameters
    ----------
    demands : array_like
        (users, resources) one task's resources per user.
    capacity : array_like
        One machine's capacity, or one row per machine.
    **options
        Online DRF's (`schedule`): weights per user, tasks each user has to run (default:
        unbounded).

    Returns
    -------
    TaskAllocation
    """
    return schedule(demands, capacity, "online-drf", **options)


def slot_schedule(demands, capacity, k, **options):
    """Slot-based fair sharing (Hadoop fair scheduler).

    Each machine has k slots, a task takes one whatever it demands, the user with the
    fewest slots per weight gets the next free one. Machines may end up oversubscribed
    (allocation beyond capacity). The same as hadoop-slots' `schedule` with k slots.

    Parameters
    ----------
    demands : array_like
        (users, resources) one task's resources per user.
    capacity : array_like
        One machine's capacity, or one row per machine.
    k : int
        Slots per machine.
    **options
        hadoop-slots' others (`schedule`): weights per user, tasks each user has to run
        (default: unbounded).

    Returns
    -------
    TaskAllocation
    """
    return schedule(demands, capacity, "hadoop-slots", **{SLOTS.name: k}, **options)


@dataclass(frozen=True)
class JobType:
    """A user that runs jobs of this type one after another, for ever.

    Attributes
    ----------
    name : str
    demand : tuple
        One task's resources.
    tasks : int
        Tasks per job.
    duration : float
        Seconds each task lasts (when not slowed).
    """
    name: str
    demand: tuple
    tasks: int
    duration: float


def _job_rows(job_types, rows, name, slots):
    """The simulator's per-user rows as the experiment's tidy rows (cluster-wide
    utilization rows left out)."""
    return [dict(method=name, slots=slots, job_type=job_types[row["user"]].name,
                 time=row["time"], metric=row["metric"], value=row["value"])
            for row in rows if row["user"] is not None]


def drf_vs_slots(cluster, job_types, slot_counts, *, horizon, jitter, seed, sample):
    """The lecture's experiment on drfbench.sim: online DRF, then the slot scheduler for each
    slot count, on the same cluster.

    Each user has an infinite backlog of its jobs; a job finishes when its last task does.
    DRF launches tasks only where they fit; the slot scheduler with k slots per machine in
    any free slot, and an oversubscribed machine time-shares: every task on it progresses at
    speed `1 / max(1, max_r used_r / cap_r)`, with no thrashing penalty (optimistic for
    slots).

    Parameters
    ----------
    cluster : array_like
        (M, m) capacities.
    job_types : list of JobType
        One per user.
    slot_counts : list of int
        The slot scheduler's slots per machine, one run each.
    horizon : float
        Seconds simulated.
    jitter : float
        Task durations are multiplied by `exp(jitter * N(0, 1))` (seeded, drawn per
        launch), so tasks do not all end at once.
    seed : int
    sample : float
        Seconds between samples.

    Returns
    -------
    list of dict
        Rows {"method", "slots", "job_type", "time", "metric", "value"} with metric
        "jobs_finished" (cumulative, one row per job completion) and, every `sample`
        seconds, "share_<resource index>" (fraction of the cluster's resource the type uses:
        its running tasks' demands times their speed, so time-shared resources count once)
        and "speed" (mean progress rate of its running tasks).

    Raises
    ------
    TypeError
        `job_types` is not a non-empty list of JobType.
    """
    if not job_types or not all(isinstance(jt, JobType) for jt in job_types):
        raise TypeError(f"job_types must be a non-empty list of JobType, got {job_types!r:.80}")
    slot_counts = [check.positive_int(k, "slot_counts", allow_none=False) for k in slot_counts]
    backlog = sim.Backlog([jt.demand for jt in job_types], [jt.tasks for jt in job_types],
                          [jt.duration for jt in job_types], jitter=jitter, seed=seed)
    C = check.machines(cluster, backlog.resources)
    rows = []
    for k in [0, *slot_counts]:
        policy = (scheduler(backlog.demands, C, "hadoop-slots", slots=k) if k else
                  scheduler(backlog.demands, C, "online-drf"))
        res = sim.simulate(C, backlog, policy, horizon=horizon, sample=sample)
        rows += _job_rows(job_types, res.rows, "DRF" if k == 0 else f"slots (k={k})", k)
    return rows
