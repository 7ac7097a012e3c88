"""Classic DRF and the policies the DRF lecture (cs262a, Stoica & Ghodsi) compares it with.

Two models, as in the lecture and Ghodsi et al. (NSDI'11):

Discrete tasks on a cluster (the online schedulers; kernel kernels/drf.pyx)
    demands[i]   resources one task of user i needs, in absolute units (e.g. <1 CPU, 4 GB>)
    capacity     one machine's resources (1-D), or one row per machine (2-D)
    tasks[i]     tasks user i has to run (None or inf: an infinite queue)

    online_drf(demands, capacity)        "schedule a task to the user with the smallest
                                          dominant share", until no user's next task fits
    slot_schedule(demands, capacity, k)  Hadoop fair scheduler: k slots per machine
    scheduler(...)                       the stateful kernel, for simulators
    drf_vs_slots(...)                    the lecture's DRF-vs-slots experiment, on the
                                         simulator drfbench.sim

Divisible Leontief users (the model of the properties table; drfbench.properties)
    demands[i, r] = D_ir, the fraction of resource r (capacity 1) one task of user i needs;
    an allocation A has A_ir = fraction of resource r given to user i, and user i's
    utility is the number of tasks it can run, min over r with D_ir > 0 of A_ir / D_ir.
    Users have infinitely many tasks, so only the direction of D_i matters (as in
    drfbench.allocate: allocations are proportional to demands and uncapped).

    drf(D, w)               progressive filling on weighted dominant shares (exact, NumPy)
    asset_fairness(D, w)    progressive filling on weighted sums of shares
    ceei(D, w)              competitive equilibrium from equal incomes: maximize
                            sum_i w_i log x_i subject to sum_i x_i D_i <= 1, solved exactly
    edrf(D, w)              drfbench.allocate(..., "edrf"): the project's exact kernel
    dcdrf(epsilon)          a policy calling drfbench.allocate(..., "dcdrf", epsilon=...)

Every divisible policy is a callable policy(demands, weights=None) -> dense (n, m) array.
"""
import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np
import scipy.optimize

from . import _isa, sim
from . import _validation as check

SATURATED = 1e-12      # a resource with residual at most this counts as saturated
INFINITE = -1          # the kernel's code for an infinite task queue


# --------------------------------------------------------------------------------------
# Discrete tasks: the online schedulers
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TaskAllocation:
    """What a static run of an online scheduler gives.

    tasks: tasks launched per user; allocation: (n, m) resources held, tasks[i] * d_i;
    shares: each user's weighted dominant share (DRF) or slot share (slots);
    order_users, order_machines: the launches in order; decisions: heap decisions taken.
    """
    tasks: np.ndarray
    allocation: np.ndarray
    shares: np.ndarray
    order_users: np.ndarray
    order_machines: np.ndarray
    decisions: int


def _task_demands(demands):
    D = np.asarray(demands)
    if D.dtype.kind not in "biuf":
        raise TypeError(f"task demands must be real numbers, got dtype {D.dtype}")
    if D.ndim != 2:
        raise ValueError(f"task demands must be 2-D (users x resources), got shape {D.shape}")
    D = np.ascontiguousarray(D, dtype=np.float64)
    if not np.isfinite(D).all():
        raise ValueError("task demands contain NaN or infinite values")
    if D.size and D.min() < 0:
        raise ValueError(f"task demands must be non-negative, found {D.min()}")
    return D


def _capacity(capacity, n_resources):
    C = np.asarray(capacity)
    if C.dtype.kind not in "biuf":
        raise TypeError(f"capacity must be real numbers, got dtype {C.dtype}")
    if C.ndim == 1:
        C = C[None, :]
    if C.ndim != 2 or C.shape[1] != n_resources or C.shape[0] < 1:
        raise ValueError(f"capacity must be ({n_resources},) for one machine or (machines, "
                         f"{n_resources}), got shape {np.shape(capacity)}")
    C = np.ascontiguousarray(C, dtype=np.float64)
    if not np.isfinite(C).all() or C.min() < 0:
        raise ValueError("capacity must be finite and non-negative")
    return C


def _queues(tasks, n_users):
    """Task counts as the kernel's int64 queue (-1: infinite)."""
    if tasks is None:
        return np.full(n_users, INFINITE, dtype=np.int64)
    t = np.asarray(tasks, dtype=np.float64)
    if t.shape != (n_users,):
        raise ValueError(f"tasks must have one entry per user, shape ({n_users},), got {t.shape}")
    if np.isnan(t).any() or (t < 0).any():
        raise ValueError("tasks must be non-negative counts (or inf for an infinite queue)")
    finite = np.isfinite(t)
    if (t[finite] != np.round(t[finite])).any():
        raise ValueError("tasks must be whole numbers (or inf)")
    return np.where(finite, t, INFINITE).astype(np.int64)


def scheduler(demands, capacity, *, weights=None, tasks=None, slots=0, isa=None):
    """A validated kernel TaskScheduler (kernels/drf.pyx) for simulators.

    slots=0 gives online DRF; slots=k > 0 the slot scheduler with k slots per machine.
    Its methods: schedule() -> (users, machines) launched, release(user, machine),
    add_tasks(user, count); attributes running, launched, queued, usage, shares.
    """
    D = _task_demands(demands)
    C = _capacity(capacity, D.shape[1])
    w = check.tenant_weights(weights, D.shape[0])
    queue = _queues(tasks, D.shape[0])
    k = check.positive_int(slots, "slots") if slots else 0
    if k == 0:
        idle = (D.max(axis=1, initial=0.0) == 0) & (queue == INFINITE)
        if idle.any():
            raise ValueError(f"user(s) {np.flatnonzero(idle).tolist()} have all-zero tasks and an "
                             "infinite queue: DRF would launch them for ever")
    return _isa.kernels(isa).drf.TaskScheduler(D, C, w, queue, k)


def task_scheduler(spec, demands, machines, *, weights=None, tasks=None, slots=None, isa=None):
    """The registry's implementation of the task methods: a `scheduler` for method `spec`
    ("online-drf", or "slots" with `slots` per machine)."""
    if spec.takes_option("slots"):
        if slots is None:
            raise ValueError(f"policy {spec.name!r} needs slots, the number of slots per machine")
        return scheduler(demands, machines, weights=weights, tasks=tasks,
                         slots=check.positive_int(slots, "slots"), isa=isa)
    if slots is not None:
        raise ValueError(f"policy {spec.name!r} takes no slots (got {slots!r})")
    return scheduler(demands, machines, weights=weights, tasks=tasks, isa=isa)


def schedule(demands, machines, policy="online-drf", *, weights=None, tasks=None, slots=None,
             isa=None):
    """Launch tasks with a registered task policy (`drfbench.methods(takes="tasks")`) until
    no user's next task can start; a static run on an idle cluster.

    demands: (users, resources) one task's resources per user, absolute units;
    machines: one machine's capacity (1-D) or one row per machine; weights: per user;
    tasks: tasks each user has to run (None or inf: an infinite queue); slots: per
    machine, for policy "slots". Returns a TaskAllocation."""
    from .api import TASKS, method_info
    spec = method_info(policy)
    if spec.takes != TASKS:
        raise ValueError(f"policy {policy!r} does not take tasks on machines; task policies: "
                         f"{', '.join(m for m in _task_methods())}")
    D = _task_demands(demands)
    s = spec.run(spec, D, machines, weights=weights, tasks=tasks, slots=slots, isa=isa)
    users, where = s.schedule()
    count = s.launched
    return TaskAllocation(tasks=count, allocation=count[:, None] * D, shares=s.shares,
                          order_users=users, order_machines=where, decisions=s.decisions)


def _task_methods():
    from .api import TASKS, methods
    return methods(takes=TASKS)


def online_drf(demands, capacity, *, weights=None, tasks=None):
    """Online DRF for discrete tasks: repeatedly launch a task of the user with the smallest
    weighted dominant share whose next task fits, until none fits (lecture, "Online DRF
    Scheduler"). E.g. capacity <9 CPU, 18 GB>, tasks <1, 4> and <3, 1>: 3 and 2 tasks.
    The same as schedule(demands, capacity, "online-drf", ...)."""
    return schedule(demands, capacity, "online-drf", weights=weights, tasks=tasks)


def slot_schedule(demands, capacity, slots, *, weights=None, tasks=None):
    """Slot-based fair sharing (Hadoop fair scheduler): each machine has `slots` slots, a
    task takes one whatever it demands, the user with the fewest slots per weight gets the
    next free one. Machines may end up oversubscribed (allocation beyond capacity).
    The same as schedule(demands, capacity, "slots", slots=slots, ...)."""
    return schedule(demands, capacity, "slots", weights=weights, tasks=tasks, slots=slots)


# --------------------------------------------------------------------------------------
# Divisible Leontief users: the policies of the properties table
# --------------------------------------------------------------------------------------

def divisible_demands(demands):
    """Dense float64 (n, m) per-task demand fractions: finite, non-negative."""
    if hasattr(demands, "toarray"):
        demands = demands.toarray()
    D = _task_demands(demands)
    return D


def utilities(demands, allocation):
    """Tasks each user can run with its allocation: min over r with D_ir > 0 of A_ir / D_ir
    (0 for users with no demand)."""
    D = divisible_demands(demands)
    A = np.asarray(allocation, dtype=np.float64)
    ratio = np.divide(A, D, out=np.full_like(D, np.inf), where=D > 0)
    u = ratio.min(axis=1, initial=np.inf)
    u[~(D > 0).any(axis=1)] = 0.0
    return u


def progressive_filling(demands, rates):
    """Grow every user's tasks x_i at rate rates[i] until a resource it demands saturates,
    then freeze it; continue with the rest (max-min fairness on x_i / rates[i]).

    Users with all-zero demand get nothing. Exact up to rounding: each step jumps to the
    next saturation. Returns the (n, m) allocation x_i * D_i.
    """
    D = divisible_demands(demands)
    return _fill(D, np.asarray(rates, dtype=np.float64))[0]


def _fill(D, rates):
    """progressive_filling on validated demands: (allocation, steps taken)."""
    n, m = D.shape
    x = np.zeros(n)
    residual = np.ones(m)
    uses = D > 0
    active = uses.any(axis=1)
    steps = 0
    while active.any():
        speed = rates[active] @ D[active]          # resource consumed per unit of time
        grows = speed > 0
        t = np.min(residual[grows] / speed[grows])
        x[active] += t * rates[active]
        residual = residual - t * speed
        full = residual <= SATURATED
        residual[full] = 0.0
        active &= ~(uses[:, full].any(axis=1))
        steps += 1
    return x[:, None] * D, steps


def drf(demands, weights=None):
    """Divisible DRF: max-min fairness on weighted dominant shares max_r A_ir / w_i, by
    progressive filling (Ghodsi et al.'s definition, literal NumPy)."""
    return _drf_filling(divisible_demands(demands), weights)[0]


def _drf_filling(D, weights):
    w = check.tenant_weights(weights, D.shape[0])
    peak = D.max(axis=1, initial=0.0)
    return _fill(D, np.divide(w, peak, out=np.zeros_like(w), where=peak > 0))


def asset_fairness(demands, weights=None):
    """Asset fairness: max-min fairness on weighted sums of shares sum_r A_ir / w_i, by
    progressive filling (users still unsaturated keep growing after others freeze)."""
    return _asset_filling(divisible_demands(demands), weights)[0]


def _asset_filling(D, weights):
    w = check.tenant_weights(weights, D.shape[0])
    total = D.sum(axis=1)
    return _fill(D, np.divide(w, total, out=np.zeros_like(w), where=total > 0))


def ceei(demands, weights=None):
    """Competitive equilibrium from equal incomes (weights: unequal incomes), i.e. the
    Eisenberg-Gale program: maximize sum_i w_i log x_i subject to sum_i x_i D_ir <= 1.

    Solved through its dual, minimize over prices p >= 0 of sum_r p_r - sum_i w_i log(D_i.p)
    (x_i = w_i / D_i.p at the optimum), with scipy's L-BFGS-B, then polished by Newton's
    method on the priced resources until the KKT conditions hold to ~1e-13, and scaled into
    capacity. Users with all-zero demand get nothing; unused resources get price 0.
    """
    D = divisible_demands(demands)
    w = check.tenant_weights(weights, D.shape[0])
    A = np.zeros_like(D)
    rows = (D > 0).any(axis=1)
    if not rows.any():
        return A
    cols = (D[rows] > 0).any(axis=0)
    Dc = D[np.ix_(rows, cols)]
    x = _eisenberg_gale(Dc, w[rows])
    A[np.ix_(rows, cols)] = x[:, None] * Dc
    return A


def _eisenberg_gale(D, w):
    n, m = D.shape
    W = w.sum()

    def dual(p):
        q = np.maximum(D @ p, 1e-300)
        return p.sum() - w @ np.log(q), 1.0 - D.T @ (w / q)

    start = np.full(m, W / m)
    res = scipy.optimize.minimize(dual, start, jac=True, method="L-BFGS-B",
                                  bounds=[(0.0, None)] * m,
                                  options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000})
    p = _polish_prices(D, w, np.maximum(res.x, 0.0))
    x = w / (D @ p)
    load = D.T @ x
    return x / max(1.0, load.max())


def _polish_prices(D, w, p):
    """Newton on the dual restricted to the priced resources; falls back to p unchanged if
    the polished prices do not satisfy the KKT conditions better."""
    def kkt_error(p):
        q = D @ p
        if (q <= 0).any() or (p < 0).any():
            return np.inf
        grad = 1.0 - D.T @ (w / q)          # = 1 - load_r
        return max(np.abs(grad[p > 0]).max(initial=0.0), -grad.min(initial=0.0))

    best, best_err = p, kkt_error(p)
    priced = p > 1e-9 * w.sum()
    q_p = p.copy()
    q_p[~priced] = 0.0
    for _ in range(50):
        q = D @ q_p
        if (q <= 0).any():
            break
        grad = 1.0 - D[:, priced].T @ (w / q)
        hess = (D[:, priced] * (w / q**2)[:, None]).T @ D[:, priced]
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        scale = 1.0
        while (q_p[priced] - scale * step <= 0).any() and scale > 1e-6:
            scale /= 2
        q_p[priced] = q_p[priced] - scale * step
        if np.abs(grad).max() < 1e-14:
            break
    err = kkt_error(q_p)
    return q_p if err < best_err else best


# The registry's implementations of the divisible policies (drfbench.allocate(..., method)):
# dense NumPy references, for the small instances of the property checks.
DENSE_LIMIT = 10**8        # entries of the dense demand matrix these methods build


def _run_divisible(spec, matrix, weights, fill):
    n, m = matrix.shape
    if n * m > DENSE_LIMIT:
        raise ValueError(f"method {spec.name!r} is a dense NumPy reference for small instances; "
                         f"demands of shape {matrix.shape} are too large (use 'edrf-event')")
    start = time.perf_counter()
    A, rounds = fill(matrix.toarray().astype(np.float64, copy=False), weights)
    elapsed = time.perf_counter() - start
    rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
    level = A.max(axis=1, initial=0.0) / weights
    return A[rows, matrix.indices].astype(matrix.dtype), level, rounds, False, elapsed, "numpy"


def run_drf(spec, matrix, weights, **options):
    """Divisible DRF (drf()); rounds: progressive filling's steps."""
    return _run_divisible(spec, matrix, weights, _drf_filling)


def run_asset_fairness(spec, matrix, weights, **options):
    """Asset fairness (asset_fairness()); rounds: progressive filling's steps."""
    return _run_divisible(spec, matrix, weights, _asset_filling)


def run_ceei(spec, matrix, weights, **options):
    """CEEI (ceei()); rounds: 0, it is solved as one convex program."""
    return _run_divisible(spec, matrix, weights, lambda D, w: (ceei(D, w), 0))




# --------------------------------------------------------------------------------------
# The lecture's experiment: DRF against slots on a cluster, jobs finished over time
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class JobType:
    """A user that runs jobs of this type one after another, for ever: each job is
    `tasks` tasks of shape `demand` lasting `duration` seconds each (when not slowed)."""
    name: str
    demand: tuple
    tasks: int
    duration: float


def _job_rows(job_types, rows, name, slots):
    """The simulator's per-user rows as the experiment's tidy rows (cluster-wide
    utilization rows left out)."""
    return [dict(scheduler=name, slots=slots, job_type=job_types[row["user"]].name,
                 time=row["time"], metric=row["metric"], value=row["value"])
            for row in rows if row["user"] is not None]


def drf_vs_slots(cluster, job_types, slot_counts, *, horizon, jitter, seed, sample):
    """The lecture's experiment on drfbench.sim: online DRF, then the slot scheduler for
    each slot count, on the same cluster; returns tidy rows.

    cluster: (M, m) capacities; job_types: one JobType per user (each user has an infinite
    backlog of its jobs; a job finishes when its last task does). DRF launches tasks only
    where they fit; the slot scheduler with k slots per machine in any free slot, and an
    oversubscribed machine time-shares: every task on it progresses at speed
    1 / max(1, max_r used_r / cap_r), with no thrashing penalty (optimistic for slots).
    Task durations are multiplied by exp(jitter * N(0, 1)) (seeded, drawn per launch), so
    tasks do not all end at once. Rows: {"scheduler", "slots", "job_type", "time", "metric",
    "value"} with metric "jobs_finished" (cumulative, one row per job completion) and,
    every `sample` seconds, "share_<resource index>" (fraction of the cluster's resource
    the type uses: its running tasks' demands times their speed, so time-shared resources
    count once) and "speed" (mean progress rate of its running tasks).
    """
    C = _capacity(cluster, len(job_types[0].demand))
    backlog = sim.Backlog([jt.demand for jt in job_types], [jt.tasks for jt in job_types],
                          [jt.duration for jt in job_types], jitter=jitter, seed=seed)
    rows = []
    for k in [0, *slot_counts]:
        policy = scheduler(backlog.demands, C, slots=k)
        res = sim.simulate(C, backlog, policy, horizon=horizon, sample=sample)
        rows += _job_rows(job_types, res.rows, "DRF" if k == 0 else f"slots (k={k})", k)
    return rows


def main(argv=None):
    """python -m drfbench.drf slots --out results/<name>/drf/drf_vs_slots.csv [options]"""
    from . import rows as tidy
    p = argparse.ArgumentParser(prog="python -m drfbench.drf", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("slots", help="the lecture's DRF vs slots experiment, as a tidy CSV")
    a.add_argument("--machines", type=int, default=48)
    a.add_argument("--machine", type=float, nargs="+", default=[4.0, 15.0],
                   help="one machine's capacity per resource (default: 4 CPU, 15 GB)")
    a.add_argument("--type1", type=float, nargs="+", default=[2.0, 2.0])
    a.add_argument("--type2", type=float, nargs="+", default=[1.0, 0.5])
    a.add_argument("--tasks-per-job", type=int, default=20)
    a.add_argument("--duration", type=float, default=60.0, help="seconds per task")
    a.add_argument("--slots", type=int, nargs="+", default=[2, 4, 6])
    a.add_argument("--horizon", type=float, default=3600.0)
    a.add_argument("--jitter", type=float, default=0.2)
    a.add_argument("--sample", type=float, default=60.0)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if not (len(args.machine) == len(args.type1) == len(args.type2)):
        p.error("--machine, --type1 and --type2 must name the same number of resources")
    cluster = np.tile(np.asarray(args.machine, dtype=float), (args.machines, 1))
    job_types = [JobType("Type 1", tuple(args.type1), args.tasks_per_job, args.duration),
                 JobType("Type 2", tuple(args.type2), args.tasks_per_job, args.duration)]
    rows = drf_vs_slots(cluster, job_types, args.slots, horizon=args.horizon,
                        jitter=args.jitter, seed=args.seed, sample=args.sample)
    tidy.exit_on_sigterm()
    stamp = {"machines": args.machines, "machine": " ".join(f"{c:g}" for c in args.machine),
             "type1": " ".join(f"{c:g}" for c in args.type1),
             "type2": " ".join(f"{c:g}" for c in args.type2),
             "tasks_per_job": args.tasks_per_job, "duration": args.duration,
             "jitter": args.jitter, "seed": args.seed, **tidy.stamp()}
    tidy.write([{**row, **stamp} for row in rows], args.out)
    print(f"drf_vs_slots: {len(rows)} rows -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
