"""One trace through the cluster simulator under a DRFH trace method.

    simulate(servers, tasks, method="drfh-best-fit", **options) -> DRFHSimulation
    scheduler(machines, trace, "drfh-best-fit" | "drfh-first-fit" | "drfh-slots", ...)
                                          the scheduler alone, a drfbench.sim policy

`servers` and `tasks` are paths or DataFrames in the generic trace format (trace.py).
"""
import math
from dataclasses import dataclass, fields
from types import SimpleNamespace

import numpy as np
import pandas as pd

from .. import _validation as check
from .. import api, sim
from .. import rows as tidy
from . import kernel
from .catalog import RECORDED, RUN, SCHEDULER, SLOTS, TRACE, WEIGHTS
from .literal import LiteralScheduler
from .schedulers import capped, slot_counts, task_queues, user_weights
from .trace import read_servers, read_trace, tasks_frame

# The work bounds of a run (docs/accepts.md). Samples: at most MAX_SAMPLES, and at most
# MAX_SAMPLE_VALUES values held, users x (resources + 1) per sample (shares and speeds):
# the simulator's own budget (drfbench.sim.workload), the one bound on sampled values, so
# that a run within drfh's bounds is never refused by the simulator's. Time has no bound:
# the simulator's clock is exact at any scale (drfbench.sim.engine).
MAX_SAMPLES = 10**6
MAX_SAMPLE_VALUES = sim.workload.MAX_SAMPLE_VALUES       # 2**26


@dataclass(frozen=True, eq=False)
class DRFHSimulation:
    """What simulate() returns.

    Attributes
    ----------
    method : str
        As asked.
    slots : int
        As asked (0 for the DRFH methods).
    slot_model : str or None
        As asked (None for the DRFH methods).
    resources : tuple
    utilization : pandas.DataFrame
        Indexed by sample time, one column per resource (named as in the trace): the
        fraction of the pool's resource in use (time-shared tasks count at their speed).
    shares : pandas.DataFrame
        Indexed by sample time, one column per user (its label): its global dominant share,
        max over resources of its share of the pool.
    jobs : pandas.DataFrame
        Job, user (labels), submit (first arrival), finish (last task's end; NaN if
        unfinished by the end or the horizon, or if a task of it fits no server).
    completion : pandas.DataFrame
        Per user: submitted, completed (tasks finished by the end), ratio (completed /
        submitted: the paper's task completion ratio).
    unschedulable : pandas.DataFrame
        The tasks table's rows of the tasks that fit no server (reported, never run; the
        rest of the trace runs).
    run : drfbench.sim.Simulation
        The simulation itself.
    """
    method: str
    slots: int
    slot_model: str | None
    resources: tuple
    utilization: pd.DataFrame
    shares: pd.DataFrame
    jobs: pd.DataFrame
    completion: pd.DataFrame
    unschedulable: pd.DataFrame
    run: sim.Simulation

    def asked(self):
        """{method, slots, slot_model}: the run as asked, by field, as its rows record it."""
        return {f.name: getattr(self, f.name) for f in fields(self)[:3]}

    def _rows(self):
        base = {f.name: getattr(self, f.name) for f in fields(self)[:2]}
        for metric, table, key in (("utilization", self.utilization, "resource"),
                                   ("share", self.shares, "user")):
            times = table.index.tolist()
            for label in table.columns:
                for t, v in zip(times, table[label].to_numpy().tolist()):
                    yield {**base, "metric": metric, "time": t,
                           "user": label if key == "user" else None,
                           "resource": label if key == "resource" else None, "value": v}

    def rows(self, **columns):
        """Tidy rows, stamped (drfbench.rows): one per sample and resource ("utilization") and per
        sample and user ("share"); made as they are read.

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        return tidy.stamped(self._rows, **columns)


def _frames(servers, tasks):
    """(resources, capacities, tasks as a DataFrame, their Trace): each input read once."""
    resources, C = read_servers(servers)
    frame, trace = read_trace(tasks, resources)
    return resources, C, frame, trace


def simulate(servers, tasks, method="drfh-best-fit", **options):
    """Run the tasks on the servers under registered trace method `method` until every task is
    done or `horizon` seconds.

    Times are seconds: arrival and duration columns may be numbers or durations (timedelta,
    converted), not points in time. Work bounds: a run takes at most MAX_SAMPLES (`10**6`)
    samples holding at most MAX_SAMPLE_VALUES (`2**26`, the simulator's budget) values
    (samples x users x (resources + 1)). The bounds are judged over the time the run takes:
    a trace that drains early runs whatever the bounds would allow later. Time itself is
    exact at any scale: only a task whose `start + duration == start` in float64 is refused
    (drfbench.sim.simulate).

    Parameters
    ----------
    servers : DataFrame or path
        The servers, in the generic trace format (drfbench.drfh.trace).
    tasks : DataFrame or path
        The tasks, in the generic trace format.
    method : str
        "drfh-best-fit", "drfh-first-fit" or "drfh-slots" (drfbench.methods(takes="trace")).
    **options
        `sample`: seconds between samples of utilization and shares (default 60), `> 0`,
        finite (None: no samples); a number or a duration (timedelta, pandas.Timedelta,
        numpy.timedelta64: converted), not a point in time (TypeError). `horizon`: seconds
        simulated at most (default: until the last task ends), `>= 0`; a number or a
        duration, as `sample`. `slots`: k per maximum server (drfh-slots only; default 14,
        Table II's best). `slot_model`: how a task runs in its slot (drfh-slots only):
        "timeshare" (default), with what it demands, an oversubscribed server time-shared at
        no cost; "capped", with at most the slot's resources, proportionally longer if it
        needs more (schedulers.capped). `weights`: per user, in order of first appearance in
        the tasks, or a dict label -> weight with an entry for every user and none for a
        label that is not a user. `index`: use the server index (default; False: the literal
        scan, same decisions). `threads`: of the literal best-fit scan; `isa`: the kernels'
        variant. `literal`: run the NumPy transcription instead of the kernel (tests; slow).

    Returns
    -------
    DRFHSimulation

    Raises
    ------
    ValueError
        Bad servers, tasks or options; a run that needs more than the work bounds before
        its horizon (or, without one, before its last task ends): before it starts where the
        trace alone shows it (a task ending past the bound), else when it gets there.
    TypeError
        A point in time given for `sample` or `horizon`.
    """
    return api.run(method, servers, tasks, takes=TRACE, **options)


def _reach(trace, horizon, sample):
    """(reach, bound, sample): how far in time the run may go (the horizon within the work
    bounds, module constants), the work bound that sets it as the error names it (None:
    the horizon sets it), and the sample interval in seconds (None: no samples). horizon
    and sample are numbers or durations (check.duration: seconds). A ValueError if the
    trace alone needs more. The run goes to `reach` only while its tasks keep it going:
    the samples up to `reach` are within the simulator's budget, so the simulator never
    refuses a run that drfh accepts, and a trace that drains early is not judged by how
    far it might have gone."""
    horizon = check.duration(horizon, "horizon")
    if horizon < 0:
        raise ValueError(f"horizon must be >= 0 (seconds), got {horizon}")
    reach, bound = horizon, None
    if sample is not None:
        sample = check.duration(sample, "sample")
        if not 0 < sample < math.inf:
            raise ValueError(f"sample must be > 0 and finite (seconds), got {sample}")
        width = max(1, trace.users * (trace.resources + 1))     # values per sample
        samples = min(MAX_SAMPLES, MAX_SAMPLE_VALUES // width)
        if samples < 1:
            raise ValueError(f"sample: one sample of {trace.users} users x "
                             f"{trace.resources + 1} values exceeds the simulator's budget "
                             f"({MAX_SAMPLE_VALUES:,} values): give sample=None")
        if (samples - 1) * sample < reach:
            reach = (samples - 1) * sample
            bound = (f"more than {samples} samples of sample={sample:g} s (at most "
                     f"{MAX_SAMPLES} samples, {MAX_SAMPLE_VALUES:,} values in all, {width} "
                     "per sample: users x (resources + 1)): give a larger sample or a horizon")
    if len(trace) and reach < horizon and (trace.arrival + trace.duration).max() > reach:
        raise ValueError(f"tasks: a task ends past {reach:g} s, {bound}")
    return reach, bound, sample


def run_method(spec, servers, tasks, **options):
    """The registry's implementation of the trace methods (see `simulate`): the options
    as the registry checked them, their defaults declared in the family's catalog; the
    run's own (catalog.RUN) are taken off, the rest go to the scheduler.

    Parameters
    ----------
    spec : Method
        The method as registered.
    servers, tasks
        As `simulate` takes them.
    **options
        The method's, checked and defaulted by the registry.

    Returns
    -------
    DRFHSimulation
    """
    name, slotted = spec.name, spec.name == "drfh-slots"
    own = SimpleNamespace(**{o.name: options.pop(o.name, None) for o in RUN})
    given = SimpleNamespace(**options)
    resources, C, frame, trace = _frames(servers, tasks)
    if own.slot_model == "capped":
        trace = capped(trace, C, given.slots)
    names = list(trace.names)
    weights = given.weights
    if isinstance(weights, dict):
        absent = [u for u in names if u not in weights]
        if absent:
            raise ValueError(f"weights lack user(s) {absent[:5]}")
        users = set(names)
        unknown = [u for u in weights if u not in users]
        if unknown:
            raise ValueError(f"weights name label(s) {unknown[:5]} that are not users of the "
                             f"tasks (users: {names[:5]}{' ...' if len(names) > 5 else ''})")
        options[WEIGHTS.name] = [weights[u] for u in names]
    isa = options["isa"]
    literal = {"isa": None} if options["literal"] else {}      # the transcription has none
    policy = scheduler(C, trace, name, **{**options, **literal})
    reach, bound, sample = _reach(trace, own.horizon, own.sample)
    try:
        run = sim.simulate(C, trace, policy, horizon=reach, sample=sample, isa=isa)
    except sim.engine.Unresolved as e:          # name the job as the tasks name it
        job = frame["job"].iloc[[e.row]].tolist()[0]
        raise sim.engine.unresolved(trace, e.row, e.start, job) from None
    if bound is not None and np.isnan(np.delete(run.tasks["end"], run.unschedulable)).any():
        raise ValueError(f"the run goes past {reach:g} s, {bound}")
    time = pd.Index(run.samples["time"], name="time")
    utilization = pd.DataFrame(run.samples["utilization"], index=time, columns=list(resources))
    shares = pd.DataFrame(run.samples["share"].max(axis=2) if run.samples["share"].size
                          else np.zeros((len(time), len(names))), index=time, columns=names)
    jobs = pd.DataFrame({"job": np.unique(frame["job"].to_numpy())[run.jobs["job"]],
                         "user": np.array(names, dtype=object)[run.jobs["user"]],
                         "submit": run.jobs["submit"], "finish": run.jobs["finish"]})
    done = np.isfinite(run.tasks["end"])
    submitted = np.bincount(trace.user, minlength=trace.users)
    completed = np.bincount(trace.user[done], minlength=trace.users)
    completion = pd.DataFrame({"user": names, "submitted": submitted, "completed": completed,
                               "ratio": completed / np.maximum(submitted, 1)})
    return DRFHSimulation(name, int(given.slots) if slotted else 0, own.slot_model,
                          resources=resources, utilization=utilization, shares=shares,
                          jobs=jobs, completion=completion,
                          unschedulable=frame.iloc[run.unschedulable].reset_index(drop=True),
                          run=run)


def scheduler(machines, trace, name="drfh-best-fit", **options):
    """The kernel's DRFHScheduler for a trace on machines: a drfbench.sim.TaskPolicy
    (kernel.trace_scheduler), its schedule() a kernel.Launches.

    The options are the scheduler's, checked and defaulted by the registry (Method.checked,
    as drfh.simulate's) but for the run's own (catalog.RUN), refused here.

    Parameters
    ----------
    machines : array_like
        (M, m) capacities.
    trace : drfbench.sim.Trace
    name : str
        A registered trace method (drfbench.methods(takes="trace")): "drfh-best-fit",
        "drfh-first-fit" or "drfh-slots".
    **options
        `slots`: k per maximum server (drfh-slots only). `weights`: per user, `> 0` (default
        equal). `index`: use the server index (False: the literal scan, the benchmark's
        baseline). `threads`: of the literal best-fit scan. `literal=True`:
        LiteralScheduler, the test oracle (no `isa`: it has no variant).

    Returns
    -------
    drfbench.sim.TaskPolicy

    Raises
    ------
    ValueError
        A simulation's option, slots of which no server holds a whole one, or `isa` with
        `literal=True`.
    """
    spec = api.method_info(name, TRACE)
    own = {o.name for o in RUN}
    run_only = sorted(set(options) & own)
    if run_only:
        raise ValueError(f"{', '.join(run_only)}: option(s) of the simulation "
                         "(drfbench.drfh.simulate), not of its scheduler; the capped slot model "
                         "is the trace capped(trace, machines, slots)")
    o = {key: v for key, v in spec.checked(options).items() if key not in own}
    scheduled = {s.name: o.pop(s.name, s.default) for s in SCHEDULER}
    if o.pop(api.LITERAL.name):
        if o["isa"] is not None:
            raise ValueError(f"isa={o['isa']!r} chooses the kernel's variant; the literal "
                             "transcription has none")
        return LiteralScheduler(machines, trace, name, **scheduled)
    given = SimpleNamespace(**scheduled)
    C = check.machines(machines, trace.resources, name="servers")
    slotted = name == "drfh-slots"
    per_server = slot_counts(C, given.slots) if slotted else np.zeros(len(C), dtype=np.int64)
    if slotted and not per_server.any():
        raise ValueError(f"{SLOTS.name}={given.slots}: no server holds a whole slot")
    order, start = task_queues(trace, C)
    return kernel.trace_scheduler(
        servers=C, demands=np.ascontiguousarray(trace.demands, dtype=np.float64), order=order,
        start=start, user_weights=user_weights(given.weights, trace.users),
        server_slots=per_server, method=name, **o)


# -- the paper's experiments (Sec. VI) ------------------------------------------------------

# Fig. 4: three users joining on 100 servers drawn from Table I: (label, <CPU, memory> per
# task, joins at s, tasks); each task lasts uniform [50, 150) s (the paper gives neither
# counts nor durations: these make user 1 leave near the paper's 1,080 s).
DYNAMIC_USERS = ((1, (0.2, 0.3), 0.0, 700), (2, (0.5, 0.1), 200.0, 1000),
                 (3, (0.1, 0.3), 500.0, 1000))
# The paper's numbers for Fig. 4: phase -> (start, end, {user: share}); "cpu"/"memory" for
# user 1 alone, else global dominant shares.
DYNAMIC_PAPER = {"user 1 alone": {"cpu": 0.40, "memory": 0.62},
                 "users 1 and 2": {"dominant": 0.44}, "users 1, 2 and 3": {"dominant": 0.26}}


def dynamic_workload(seed=0, servers=100, users=DYNAMIC_USERS, duration=100.0):
    """The servers and tasks of Fig. 4's experiment, in the generic format.

    Parameters
    ----------
    seed : int
    servers : int
    users : tuple
        Per user (label, <CPU, memory> per task, joins at s, tasks), as DYNAMIC_USERS.
    duration : float
        Seconds.

    Returns
    -------
    servers, tasks : pandas.DataFrame
    """
    from .trace import google_servers
    rng = np.random.default_rng(seed)
    rows = []
    for label, (cpu, mem), join, count in users:
        for _ in range(count):
            rows.append((label, label, join, rng.uniform(0.5 * duration, 1.5 * duration), cpu,
                         mem))
    tasks = pd.DataFrame(rows, columns=["user", "job", "arrival", "duration", "cpu", "memory"])
    return google_servers(servers, seed=seed), tasks.sort_values("arrival", kind="stable")


def dynamic_phases(res):
    """Mean shares of Fig. 4's phases, measured.

    Phases: from 100 s after a join to the next join, and the three users' phase until user
    1 leaves (its job's finish).

    Parameters
    ----------
    res : DRFHSimulation

    Returns
    -------
    list of dict
        One per (phase, user, what) with the paper's value where it gives one.
    """
    per = res.run.samples
    time = per["time"]
    names = list(res.shares.columns)
    leaves = float(res.jobs.set_index("user").loc[names[0], "finish"])
    phases = (("user 1 alone", 100.0, 200.0, names[:1]),
              ("users 1 and 2", 300.0, 500.0, names[:2]),
              ("users 1, 2 and 3", 600.0, leaves, names))
    out = []
    for phase, a, b, who in phases:
        window = (time >= a) & (time < b)
        for u in who:
            i = names.index(u)
            share = per["share"][window, i, :].mean(axis=0)
            values = dict(zip(res.resources, share.tolist()))
            values["dominant"] = float(res.shares.loc[window, u].mean())
            for what, v in values.items():
                paper = DYNAMIC_PAPER[phase].get(what, np.nan)
                if phase == "user 1 alone" and what == "dominant":
                    paper = np.nan
                out.append({"phase": phase, "start": a, "end": b, "user": u, "share": what,
                            "measured": v, "paper": paper})
    out.append({"phase": "user 1 leaves", "start": np.nan, "end": np.nan, "user": names[0],
                "share": "time", "measured": leaves, "paper": 1080.0})
    return out


def mean_utilization(res, horizon=math.inf):
    """Mean utilization per resource over the samples in [0, horizon].

    Parameters
    ----------
    res : DRFHSimulation
    horizon : float
        Seconds, a number or a duration (check.duration).

    Returns
    -------
    pandas.Series
    """
    horizon = check.duration(horizon, "horizon")
    u = res.utilization
    return u[u.index <= horizon].mean() if math.isfinite(horizon) else u.mean()


def best_slots(table, resources):
    """The k of a slot search table with the highest mean utilization over the resources
    (Table II's choice: "the highest CPU and memory utilization"); ties to the smaller k.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per k: slots, then each resource's mean utilization.
    resources : sequence of str

    Returns
    -------
    int
    """
    frame = pd.DataFrame(table).sort_values(SLOTS.name)
    return int(frame.loc[frame[list(resources)].mean(axis=1).idxmax(), SLOTS.name])


def dedicated_clouds(tasks, n_servers, seed=0):
    """Sec. IV-D's sharing-incentive benchmark: a dedicated cloud per user.

    For each user (in order of first appearance), round(n_servers / users) servers (at least
    1) drawn from Table I's distribution (seed + its position).

    Parameters
    ----------
    tasks : DataFrame or path
    n_servers : int
    seed : int

    Yields
    ------
    user : object
    servers : pandas.DataFrame
    tasks : pandas.DataFrame
        Its tasks.
    """
    from .trace import google_servers
    frame = tasks_frame(tasks)
    users = list(pd.unique(frame["user"]))
    size = max(1, round(n_servers / len(users)))
    for i, u in enumerate(users):
        yield u, google_servers(size, seed=seed + 1 + i), frame[frame["user"] == u]


def settings(options):
    """The run's options (catalog.RUN) as attributes: those of `options`, the others at their
    declared defaults."""
    return SimpleNamespace(**{**{o.name: o.default for o in RUN}, **options})


def recorded(options):
    """The options a step's rows record (catalog.RECORDED), by name, from its `options`."""
    return {o.name: options[o.name] for o in RECORDED}


def taken(method, options):
    """The options that registered trace method `method` takes: slots and slot_model only
    drfh-slots's.

    Parameters
    ----------
    method : str
    options : dict
        A step's, by name.

    Returns
    -------
    dict
    """
    return {name: v for name, v in options.items() if api.method_info(method).takes_option(name)}


def run_tables(servers, tasks, method, *, seed, slots_from=None, **options):
    """The `run` step's three tables (python -m drfbench.drfh run) for `method` on a trace.

    Each row is stamped with the method, horizon and seed (the last two with slots and
    slot_model too).

    Parameters
    ----------
    servers, tasks : DataFrame or path
    method : str
    seed : int
    slots_from : DataFrame, optional
        A slots-search table: its best k in place of slots.
    **options
        The run's, as `simulate` takes them, those `method` does not take left out.

    Returns
    -------
    utilization : list of dict
        Over time (Fig. 5).
    jobs : list of dict
        The job table (Fig. 6).
    completion : list of dict
        Per-user task completion (Fig. 7).
    """
    if slots_from is not None:
        resources = read_servers(servers)[0]
        lacking = [r for r in resources if r not in slots_from.columns]
        if lacking:
            raise ValueError(f"--slots-from table lacks the column(s) {', '.join(lacking)} "
                             "of the servers' resources: not a slots-search of these servers")
        options = {**options, SLOTS.name: best_slots(slots_from, resources)}
    res = simulate(servers, tasks, method, **taken(method, options))
    keys = {**recorded(options), "seed": seed}
    utilization = [r for r in res.rows(**keys) if r["metric"] == "utilization"]
    base = {**res.asked(), **keys, **tidy.stamp()}
    jobs = res.jobs.assign(tasks=np.bincount(pd.factorize(tasks_frame(tasks)["job"],
                                                          sort=True)[0]))
    return (utilization, [{**row, **base} for row in jobs.to_dict("records")],
            [{**row, **base, "unschedulable": len(res.unschedulable)}
             for row in res.completion.to_dict("records")])


def slots_search(servers, tasks, *, slot_grid, progress=None, **options):
    """Table II's search (python -m drfbench.drfh slots-search): a row per k of `slot_grid`,
    Slots' mean utilization per resource over [0, horizon] (mean_utilization), stamped.

    Parameters
    ----------
    servers, tasks : DataFrame or path
    slot_grid : sequence of int
    progress : file, optional
        A line per k is written to it.
    **options
        The rest of the run's (horizon, sample, slot_model), as `simulate` takes them.

    Returns
    -------
    list of dict
    """
    out, stamp, own = [], tidy.stamp(), settings(options)
    for k in slot_grid:
        res = simulate(servers, tasks, "drfh-slots", **{SLOTS.name: k}, **options)
        mean = mean_utilization(res, own.horizon)
        out.append({SLOTS.name: k, **mean.to_dict(), **recorded(options), **stamp})
        if progress:
            print(f"slots {k}: {mean.round(4).to_dict()}", file=progress)
    return out


def sharing(servers, tasks, shared, method, *, seed, **options):
    """Fig. 8's rows (python -m drfbench.drfh sharing): each user's task completion ratio on its
    dedicated cloud (dedicated_clouds) beside the shared cloud's, stamped.

    Parameters
    ----------
    servers, tasks : DataFrame or path
    shared : pandas.DataFrame
        A run's per-user table indexed by user.
    method : str
    seed : int
    **options
        The run's (horizon, sample), as `simulate` takes them.

    Returns
    -------
    list of dict
    """
    C = read_servers(servers)[1]
    out, stamp = [], tidy.stamp()
    for user, cloud, own in dedicated_clouds(tasks, len(C), seed):
        res = simulate(cloud, own.assign(user=user), method, **options)
        row = res.completion.iloc[0]
        key = user if user in shared.index else str(user)
        if key not in shared.index:
            raise ValueError(f"--shared table has no row for user {user!r} of --tasks: "
                             "not the per-user table of a run on these tasks")
        out.append({"user": user, "submitted": int(row["submitted"]),
                    "dedicated": float(row["ratio"]), "shared": float(shared.loc[key, "ratio"]),
                    "dedicated_servers": len(cloud), "method": method,
                    **recorded(options), "seed": seed, **stamp})
    return out
