"""Fairness against the cost of getting there (issue 37, item 5): the rules that preempt,
swept over their settings, each run's time to fair share against the work its
preemptions threw away.

    sweep(scenario, *, strategy_sets=STRATEGY_SETS, protected_fractions=PROTECTED_FRACTIONS,
          rate_limits=RATE_LIMITS, sample=10.0, tolerance=0.05, **options)
        -> list of tidy dict rows
    targets(scenario) -> {queue: fair share}     the shares the times are measured against

Runs: kueue with each set of strategies, armada with each protected fraction, each with
every rate limit; and each rule without preemption (setting "none"). Queues are the
root's children; a queue's share at an instant is the dominant share of the cluster its
jobs hold (drfbench.sim's samples, summed over its jobs). Its fair share (`targets`) is
the demand-capped weighted water-filling of dominant shares (armada.fair_shares: the pool
shared by weight, a queue capped at its demand, the excess shared again) among all the
root's children, each demanding its offered load: the sum over its jobs of tasks x demand x
duration, over the time from its first arrival to its last (all at once: the sum of tasks
x demand). Time to fair share: from the
queue's first arrival to the first sample at which its share is at least (1 - tolerance)
x its fair share (inf if never). Lost work from the simulator's evictions (a restart loses
what the task had run).

Rows (keys rule, setting, rate_limit, queue, metric, value): per run, for each queue
arriving after 0, "time_to_fair_share" (s); with queue None, "mean_time_to_fair_share" (s,
over those queues; inf if one never gets there), "preemptions" (jobs' tasks evicted),
"lost_task_seconds", "lost_gpu_hours" (the resource named "gpu", if any, in hours).
"""
import math

import numpy as np

from .. import _validation as check
from . import armada, policies
from .catalog import PROTECTED_FRACTION, RATE_LIMIT, STRATEGIES
from .scenario import scenario as as_scenario

STRATEGY_SETS = (("LessThanOrEqualToFinalShare",), ("LessThanInitialShare",),
                 ("LessThanOrEqualToFinalShare", "LessThanInitialShare"))
PROTECTED_FRACTIONS = (0.5, 0.75, 1.0, 1.5)
RATE_LIMITS = (None, 4)


def _top(s):
    """Each job's top-level queue (a child of the root), and those queues in order."""
    tops = [q for q in range(1, len(s.paths)) if s.parent[q] == 0]
    return np.array([s.ancestry(int(q))[-1] for q in s.queue], dtype=np.int64), tops


def targets(spec):
    """Each top-level queue's fair share (see the module docstring).

    Parameters
    ----------
    spec : Scenario, dict or path

    Returns
    -------
    dict
        `{top-level queue path: its fair share}`.
    """
    s = as_scenario(spec)
    job_top, tops = _top(s)
    total = s.capacity.sum(axis=0)
    offered = np.zeros((len(tops), len(s.resources)))
    for i, q in enumerate(tops):
        mine = job_top == q
        if not mine.any():
            continue
        span = float(s.arrival[mine].max() - s.arrival[mine].min())
        work = (s.tasks[mine, None] * s.demand[mine] * s.duration[mine, None]).sum(axis=0)
        offered[i] = work / span if span > 0 else (s.tasks[mine, None] * s.demand[mine]).sum(axis=0)
    _, capped, _ = armada.fair_shares(total, s.weight[tops], offered)
    return {s.paths[q]: float(v) for q, v in zip(tops, capped)}


def _times(s, res, fair, tolerance):
    """{top-level queue path: time to fair share} for the queues arriving after 0."""
    job_top, tops = _top(s)
    total = s.capacity.sum(axis=0)
    share = res.samples["share"]                     # (S, jobs, m), over the cluster's total
    times = res.samples["time"]
    out = {}
    for q in tops:
        mine = job_top == q
        first = float(s.arrival[mine].min()) if mine.any() else 0.0
        if first <= 0:
            continue
        held = share[:, mine].sum(axis=1)[:, total > 0].max(axis=1)
        reached = np.flatnonzero((times >= first) & (held >= (1 - tolerance) * fair[s.paths[q]]))
        out[s.paths[q]] = float(times[reached[0]] - first) if reached.size else math.inf
    return out


def _rows(s, res, rule, setting, limit, fair, tolerance):
    base = {"rule": rule, "setting": setting, RATE_LIMIT.name: limit}
    times = _times(s, res, fair, tolerance)
    rows = [dict(base, queue=q, metric="time_to_fair_share", value=t) for q, t in times.items()]
    gpu = s.resources.index("gpu") if "gpu" in s.resources else None
    values = {"mean_time_to_fair_share": float(np.mean(list(times.values()))) if times else 0.0,
              "preemptions": int(res.preempted.sum()),
              "lost_task_seconds": float(res.lost_work.sum()),
              "lost_gpu_hours": 0.0 if gpu is None else
              float(res.lost_resources[:, gpu].sum()) / 3600.0}
    return rows + [dict(base, queue=None, metric=k, value=v) for k, v in values.items()]


def sweep(spec, *, strategy_sets=STRATEGY_SETS, protected_fractions=PROTECTED_FRACTIONS,
          rate_limits=RATE_LIMITS, sample=10.0, tolerance=0.05, **options):
    """The sweep's rows (see the module docstring) on a scenario.

    Parameters
    ----------
    spec : Scenario, dict or path
        sidebyside.PATH for the side-by-side scenario.
    strategy_sets : tuple of tuple of str
        Kueue's strategies, a run each.
    protected_fractions : tuple of float
        Armada's.
    rate_limits : tuple of int or None
    sample : float
        Seconds between samples.
    tolerance : float
        In [0, 1).
    **options
        The rules' other options, given to every run (the step's rate_interval).

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        A tolerance out of [0, 1).
    """
    s = as_scenario(spec)
    tolerance = check.real(tolerance, "tolerance", finite=True)
    if not 0 <= tolerance < 1:
        raise ValueError(f"tolerance must be in [0, 1), got {tolerance}")
    fair = targets(s)
    runs = [("kueue", "none", None, {}), ("armada", "none", None, {})]
    for limit in rate_limits:
        runs += [("kueue", "+".join(names), limit,
                  {RATE_LIMIT.name: limit, STRATEGIES.name: names}) for names in strategy_sets]
        runs += [("armada", f"{PROTECTED_FRACTION.name}={f:g}", limit,
                  {RATE_LIMIT.name: limit, PROTECTED_FRACTION.name: f})
                 for f in protected_fractions]
    rows = []
    for rule, setting, limit, swept in runs:
        res = policies.run(s, rule, sample=sample, **swept, **options)
        rows += _rows(s, res, rule, setting, limit, fair, tolerance)
    return rows
