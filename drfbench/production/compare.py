"""The side-by-side comparison (issue 37, item 4): one scenario under every production
rule and, through the registry by method name, DRF (online), H-DRF and DRFH, measured
alike.

    compare(scenario, sample=60.0, series=300.0, **options) -> list of tidy rows

The production rules and DRFH Best-Fit (`drfh-best-fit`, the trace kind: the scenario's
nodes as its servers, its tasks as its trace, users the leaf queues) run the scenario's
jobs in the cluster simulator. DRF (online) (`online-drf`, the tasks kind), H-DRF (`hdrf`,
the tree kind: the queue tree's weights, each leaf its one task shape) and DRFH's exact
allocation (`drfh`, the servers kind) are the references: static allocations, computed
for each run at each sample with each leaf's tasks those outstanding in that run then
(arrived and not ended: a leaf asks for no more than it has). Everything is measured every
`sample` seconds from 0 to the run's end; the series rows (`metric`) are written at the
first sample at or after each multiple of `series` seconds (the figures' points: a lean
table):

- dominant_share (method, time, queue): a leaf's largest share of a resource of the
  cluster's total;
- reference_share (method, time, queue): H-DRF's dominant share of the leaf then, on the
  tasks outstanding in that method's run;
- distance (method, time, reference): sum over the leaves of |dominant share - the
  reference's|, for each of REFERENCES;

and, from every sample:

- mean_distance (method, reference): the distance's mean over the samples;
- time_to_share (method, queue): seconds from the leaf's first arrival to the first
  sample at which its dominant share reaches (1 - WITHIN) of H-DRF's (NaN: never);
- utilization (method, node_type, resource): what the running tasks hold on the nodes of
  that type over their capacity (resources the type has), averaged over the samples up
  to the last arrival;
- peak_load (method): the largest use of a node's resource over its capacity at any
  task's start (1: a node full; above 1: capacity exceeded);
- mean_wait (over tasks: start - arrival, s), makespan (s), preemptions,
  lost_task_seconds, lost_gpu_hours (method): the last three 0 here (the rules run
  without preemption).

A scenario whose leaf's jobs have different task shapes has no one reference (a
ValueError naming the leaf).
"""
import numpy as np
import pandas as pd

from .. import api
from .catalog import SCENARIO
from .rules import Timeline, simulate
from .scenario import scenario as as_scenario

REFERENCES = ("online-drf", "hdrf", "drfh")   # static allocations
BEST_FIT = "drfh-best-fit"                    # simulated on the scenario's trace
WITHIN = 0.05                                 # "within 5% of its share"


def compare(spec, sample=60.0, series=300.0, **options):
    """The tidy rows (see the module docstring) of a scenario under every rule.

    Parameters
    ----------
    spec : Scenario, dict or path
    sample : float
        Seconds between samples.
    series : float
        Seconds between the series' rows.
    **options
        The rules': each rule gets those it takes (half_life, max_tres, fixed).

    Returns
    -------
    list of dict
    """
    s = as_scenario(spec)
    shape = shapes(s)
    runs = {}
    for rule in api.methods(takes=SCENARIO):
        mine = {k: v for k, v in options.items() if api.method_info(rule).takes_option(k)}
        runs[rule] = simulate(s, rule, **mine).timeline()
    runs[BEST_FIT] = best_fit(s)
    leaves = [s.paths[q] for q in s.leaves]
    total = s.capacity.sum(axis=0)
    cache, rows = {}, []
    for method, timeline in runs.items():
        times = np.arange(0.0, timeline.end.max() + sample, sample)
        share = (timeline.held(times, "leaf", len(leaves)) / total).max(axis=2)
        refs = references(s, shape, timeline.outstanding(times, len(leaves)), cache)
        shown = np.unique(np.minimum(np.searchsorted(times, np.arange(0.0, times[-1] + series,
                                                                      series)), len(times) - 1))
        rows += _series(method, "dominant_share", times[shown], leaves, share[shown])
        rows += _series(method, "reference_share", times[shown], leaves, refs["hdrf"][shown])
        for ref in REFERENCES:
            gap = np.abs(share - refs[ref]).sum(axis=1)
            rows += [{"method": method, "metric": "distance", "time": float(t),
                      "reference": ref, "value": float(v)} for t, v in zip(times[shown], gap[shown])]
            rows.append({"method": method, "metric": "mean_distance", "reference": ref,
                         "value": float(gap.mean())})
        rows += _time_to_share(method, s, times, leaves, share, refs["hdrf"])
        rows += _utilization(method, s, times[times <= s.arrival.max()], timeline)
        rows.append({"method": method, "metric": "peak_load",
                     "value": peak_load(s.capacity, timeline)})
        rows += _summary(method, timeline)
    return rows


def peak_load(capacity, timeline):
    """The largest use of a node's resource over its capacity at any task's start in
    `timeline`.

    Parameters
    ----------
    capacity : numpy.ndarray
        (n, m).
    timeline : Timeline

    Returns
    -------
    float
        inf where a node holds a resource it has none of.
    """
    held = timeline.held(np.unique(timeline.start), "machine", len(capacity))
    over = np.divide(held, capacity, out=np.where(held > 0, np.inf, 0.0), where=capacity > 0)
    return float(over.max(initial=0.0))


def shapes(s):
    """Each leaf's one task shape; a leaf without jobs gets zeros.

    Parameters
    ----------
    s : Scenario

    Returns
    -------
    numpy.ndarray
        (L, m).

    Raises
    ------
    ValueError
        A queue whose jobs have different task shapes.
    """
    out = np.zeros((len(s.leaves), len(s.resources)))
    for k, q in enumerate(s.leaves.tolist()):
        mine = s.demand[s.queue == q]
        if len(mine) and (mine != mine[0]).any():
            raise ValueError(f"queue {s.paths[q]!r}: its jobs have different task shapes; "
                             "the reference allocations need one per leaf queue")
        out[k] = mine[0] if len(mine) else 0.0
    return out


def tree(s, shape, tasks):
    """The queue tree as an H-DRF tree (the tree kind): weights, each leaf its task shape and
    its tasks.

    Parameters
    ----------
    s : Scenario
    shape : numpy.ndarray
        (L, m), `shapes`'.
    tasks : array_like
        One per leaf.

    Returns
    -------
    dict
        The tree's spec, as drfbench.hdrf.tree reads it.
    """
    out = {"resources": list(s.resources), "children": {}}
    nodes = {0: out}
    for q in range(1, len(s.paths)):
        node = {"weight": float(s.weight[q])}
        nodes[int(s.parent[q])].setdefault("children", {})[s.paths[q].rpartition("/")[2]] = node
        nodes[q] = node
    for k, q in enumerate(s.leaves.tolist()):
        nodes[q].update(demand=shape[k].tolist(), tasks=float(tasks[k]))
    return out


def references(s, shape, tasks, cache):
    """Each of REFERENCES with each leaf's tasks at each sample.

    Parameters
    ----------
    s : Scenario
    shape : numpy.ndarray
        (L, m), `shapes`'.
    tasks : numpy.ndarray
        (T, L).
    cache : dict
        Each distinct row is computed once.

    Returns
    -------
    dict
        `{method: (T, L) dominant shares}`.
    """
    total = s.capacity.sum(axis=0)
    leaves = [s.paths[q] for q in s.leaves]
    out = {m: np.zeros(tasks.shape) for m in REFERENCES}
    for i, row in enumerate(tasks):
        key = row.tobytes()
        if key not in cache and row.any():
            n = row.astype(np.float64).tolist()
            drf = api.run("online-drf", shape, s.capacity, tasks=n)
            hdrf = api.run("hdrf", tree(s, shape, n), s.capacity)
            drfh = api.run("drfh", shape, s.capacity, tasks=n)
            held = {"online-drf": drf.tasks, "hdrf": np.array([hdrf.tasks[p] for p in leaves]),
                    "drfh": drfh.tasks}
            cache[key] = {m: (h[:, None] * shape / total).max(axis=1) for m, h in held.items()}
        for method, share in cache.get(key, {}).items():
            out[method][i] = share
    return out


def best_fit(s):
    """DRFH Best-Fit on the scenario (the trace kind, users the leaf queues).

    Parameters
    ----------
    s : Scenario

    Returns
    -------
    Timeline
    """
    servers = pd.DataFrame(s.capacity, columns=list(s.resources))
    leaf_of = {s.paths[q]: k for k, q in enumerate(s.leaves.tolist())}
    trace = s.trace()
    tasks = pd.DataFrame({"user": [s.paths[q] for q in s.queue[trace.job]], "job": trace.job,
                          "arrival": trace.arrival, "duration": trace.duration})
    for r, name in enumerate(s.resources):
        tasks[name] = trace.demands[:, r]
    run = api.run(BEST_FIT, servers, tasks, sample=None).run
    t = run.tasks
    leaf = np.array([leaf_of[label] for label in run.names], dtype=np.int64)[t["user"]]
    return Timeline(leaf, t["machine"], t["arrival"], t["start"], t["end"],
                    trace.demands[t["task"]])


def _series(method, metric, times, leaves, share):
    return [{"method": method, "metric": metric, "time": float(t), "queue": leaf,
             "value": float(v)} for i, t in enumerate(times) for leaf, v in zip(leaves, share[i])]


def _time_to_share(method, s, times, leaves, share, ref):
    out = []
    for k, q in enumerate(s.leaves.tolist()):
        arrivals = s.arrival[s.queue == q]
        first = arrivals.min() if len(arrivals) else np.inf
        when = (times >= first) & (ref[:, k] > 0) & (share[:, k] >= (1 - WITHIN) * ref[:, k])
        value = float(times[np.argmax(when)] - first) if when.any() else float("nan")
        out.append({"method": method, "metric": "time_to_share", "queue": leaves[k],
                    "value": value})
    return out


def _utilization(method, s, times, timeline):
    types = len(s.node_types)
    held = timeline.held(times, s.node_type[timeline.machine], types).mean(axis=0)
    capacity = np.zeros((types, len(s.resources)))
    np.add.at(capacity, s.node_type, s.capacity)
    return [{"method": method, "metric": "utilization", "node_type": name, "resource": r,
             "value": float(held[n, j] / capacity[n, j])}
            for n, name in enumerate(s.node_types) for j, r in enumerate(s.resources)
            if capacity[n, j] > 0]


def _summary(method, timeline):
    """Mean wait over tasks and makespan; no preemption yet."""
    values = {"mean_wait": float(np.mean(timeline.start - timeline.arrival)),
              "makespan": float(timeline.end.max()), "preemptions": 0.0,
              "lost_task_seconds": 0.0, "lost_gpu_hours": 0.0}
    return [{"method": method, "metric": k, "value": v} for k, v in values.items()]
