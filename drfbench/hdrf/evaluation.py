"""The slides' evaluation ("50 EC2 nodes having 6 GB memory, 4 CPUs and 1 GPU each ...
Input: a 100-job schedule containing a mix of large and small jobs"), on drfbench.sim.

The slides give neither the hierarchy nor the job list; ours (`EVALUATION_TREE`, `jobs`):

  root ── gpu (weight 1) ── train  (weight 2)  tasks <2 CPU, 3 GB, 1 GPU>
       │                 └─ infer  (weight 1)  tasks <1 CPU, 1 GB, 1 GPU>
       └─ cpu (weight 1) ── etl    (weight 1)  tasks <2 CPU, 2 GB>
                         ├─ query  (weight 1)  tasks <1 CPU, 2 GB>
                         └─ batch  (weight 1)  tasks <1 CPU, 1 GB>

A leaf is a queue with one task shape; each of the `count` jobs goes to a leaf drawn
uniformly, is large with probability `large` (100-300 tasks of 60-180 s) or small (5-20
tasks of 20-60 s), and arrives at a uniformly drawn time in [0, span): a Poisson process
conditioned on its count. All seeded. The GPU subtree wants the scarce GPUs, the CPU
subtree the CPUs and memory both also need, so every method's way of comparing the
subtrees shows.

Rows: per method, leaf and time window, the mean tasks running and the tasks finished
(the slides' "Throughput: leaf nodes"); per method, a
summary: jobs finished and their completion times, and, over the instants where some
task waits, how often a node with tasks waiting held less than its guarantee (less one
task of each leaf, as properties.hierarchical_share_guarantee), by how much,
the idle capacity per resource, how often a waiting task would have fit somewhere, and
each top-level node's mean dominant share while every top-level node has tasks waiting
(contended: where the methods' notions of fairness decide).

At scale (`scale_tree`, `scale_jobs`, `run_at_scale`): scripts/bench_hdrf.py's tree (depth
4, 18 children per inner node: 104,976 leaves; tasks of 1-4 CPU, 1-16 GB and, for one
leaf in five, 1 GPU; integer weights 1-3) on 10,000 machines of <32 CPU, 128 GB, 4 GPU>,
and a trace of jobs of 5-50 tasks of 60-180 s to leaves drawn uniformly, arriving
uniformly over `span` seconds: faster than the full cluster finishes them, so that it
stays full (a release, then the launches that fill the room) until the queues drain.
"""
import time

import numpy as np

from .. import sim
from ..api import method_info
from .catalog import TASKS
from .properties import guarantee_slack
from .tasks import scheduler
from .tree import tree as as_tree

EVALUATION_TREE = {"resources": ["cpu", "mem", "gpu"], "children": {
    "gpu": {"weight": 1, "children": {
        "train": {"weight": 2, "demand": [2, 3, 1]},
        "infer": {"weight": 1, "demand": [1, 1, 1]}}},
    "cpu": {"weight": 1, "children": {
        "etl": {"weight": 1, "demand": [2, 2, 0]},
        "query": {"weight": 1, "demand": [1, 2, 0]},
        "batch": {"weight": 1, "demand": [1, 1, 0]}}}}}
LARGE_TASKS, LARGE_SECONDS = (100, 300), (60.0, 180.0)
SMALL_TASKS, SMALL_SECONDS = (5, 20), (20.0, 60.0)


def jobs(tree, count, large, span, seed):
    """The job schedule (see the module docstring).

    Parameters
    ----------
    tree : Tree
    count : int
        Jobs.
    large : float
        The fraction of large jobs.
    span : float
        Seconds over which they arrive.
    seed : int

    Returns
    -------
    trace : drfbench.sim.Trace
        User = leaf index.
    leaf : numpy.ndarray
        Per job, its leaf.
    is_large : numpy.ndarray
        Per job, whether it is large.
    """
    t = as_tree(tree)
    rng = np.random.default_rng(seed)
    leaf = rng.integers(0, len(t.leaves), count)
    is_large = rng.random(count) < large
    arrival = np.sort(rng.uniform(0.0, span, count))
    users, job_ids, arrivals, durations = [], [], [], []
    for j in range(count):
        tasks, seconds = (LARGE_TASKS, LARGE_SECONDS) if is_large[j] else (SMALL_TASKS, SMALL_SECONDS)
        n = int(rng.integers(tasks[0], tasks[1] + 1))
        users.append(np.full(n, leaf[j]))
        job_ids.append(np.full(n, j))
        arrivals.append(np.full(n, arrival[j]))
        durations.append(rng.uniform(seconds[0], seconds[1], n))
    user = np.concatenate(users)
    trace = sim.Trace(user, np.concatenate(job_ids), np.concatenate(arrivals),
                      np.concatenate(durations), t.demand[user], users=len(t.leaves))
    return trace, leaf, is_large


SCALE_MACHINE = (32.0, 128.0, 4.0)
SCALE_JOB_TASKS, SCALE_SECONDS = (5, 50), (60.0, 180.0)


def scale_tree(fanout=18, seed=0):
    """The benchmark's tree: depth 4, `fanout` children per inner node (see the module
    docstring), seeded.

    Parameters
    ----------
    fanout : int
    seed : int

    Returns
    -------
    Tree
    """
    rng = np.random.default_rng(seed)

    def children(depth):
        out = {}
        for c in range(fanout):
            node = {"weight": int(rng.integers(1, 4))}
            if depth < 4:
                node["children"] = children(depth + 1)
            else:
                node["demand"] = [int(rng.integers(1, 5)), int(rng.integers(1, 17)),
                                  int(rng.random() < 0.2)]
            out[f"n{c}"] = node
        return out
    return as_tree({"resources": ["cpu", "mem", "gpu"], "children": children(1)})


def scale_jobs(tree, tasks, span, seed):
    """Tasks as a drfbench.sim.Trace: jobs of 5-50 tasks of 60-180 s each (the last job cut to
    the count) to leaves drawn uniformly, arriving uniformly over `span` seconds; seeded.

    Parameters
    ----------
    tree : Tree
    tasks : int
    span : float
    seed : int

    Returns
    -------
    drfbench.sim.Trace
    """
    t = as_tree(tree)
    rng = np.random.default_rng(seed)
    count = tasks // SCALE_JOB_TASKS[0] + 1
    sizes = rng.integers(SCALE_JOB_TASKS[0], SCALE_JOB_TASKS[1] + 1, count)
    count = int(np.searchsorted(np.cumsum(sizes), tasks)) + 1
    sizes = sizes[:count]
    sizes[-1] -= sizes.sum() - tasks
    leaf = rng.integers(0, len(t.leaves), count)
    arrival = np.sort(rng.uniform(0.0, span, count))
    user = np.repeat(leaf, sizes)
    return sim.Trace(user, np.repeat(np.arange(count), sizes), np.repeat(arrival, sizes),
                     rng.uniform(SCALE_SECONDS[0], SCALE_SECONDS[1], tasks), t.demand[user],
                     users=len(t.leaves))


def run_at_scale(tree, machines, trace, method="hdrf"):
    """Simulate a trace under `method` to the end; one summary row.

    Parameters
    ----------
    tree : Tree
    machines : array_like
    trace : drfbench.sim.Trace
    method : str
        A registered tree method.

    Returns
    -------
    dict
        Tasks finished, makespan, mean job completion, the simulation's wall time, the
        method's decisions (and, for the kernel's kept open-sets, how many were built,
        reused and kept, and their memory).
    """
    t = as_tree(tree)
    s = _simulated(t, machines, method)
    start = time.perf_counter()
    res = sim.simulate(machines, trace, s)
    seconds = time.perf_counter() - start
    finish = res.jobs["finish"]
    return {"method": method, "label": method_info(method).label, "leaves": len(t.leaves),
            "machine_count": len(machines), "tasks": len(trace),
            "tasks_finished": int(np.isfinite(res.tasks["end"]).sum()),
            "makespan": float(res.end),
            "mean_completion": float(np.nanmean(finish - res.jobs["submit"])),
            "seconds": seconds, "decisions": int(s.decisions),
            "decisions_per_second": s.decisions / seconds, "open_sets_built": int(s.sets_built),
            "open_sets_reused": int(s.sets_reused), "open_sets_kept": int(s.sets_kept),
            "open_sets_mib": s.sets_kept * s.set_bytes / 2**20}


def _simulated(t, machines, method):
    """The scheduler of `method` for drfbench.sim: every leaf's queue empty (the simulator
    adds the trace's tasks)."""
    return scheduler(t, machines, method, **{TASKS.name: np.zeros(len(t.leaves))})


def _at(tasks, times):
    """(S, N) bool: task n runs at instant s (start <= t < end)."""
    start, end = tasks["start"][None, :], tasks["end"][None, :]
    t = times[:, None]
    return (start <= t) & ((end > t) | np.isnan(end))


def evaluate(tree, machines, trace, methods, sample, window):
    """Run each method on the trace.

    Parameters
    ----------
    tree : Tree
    machines : array_like
    trace : drfbench.sim.Trace
    methods : list of str
        Registered tree methods.
    sample : float
        Seconds between samples.
    window : float
        Seconds per throughput row.

    Returns
    -------
    throughput : list of dict
        Per `window` seconds.
    summary : list of dict
        From samples every `sample` seconds.
    """
    t = as_tree(tree)
    C = np.asarray(machines, dtype=float)
    total = C.sum(axis=0)
    slack = guarantee_slack(t, (t.demand / total).max(axis=1))
    throughput, summary = [], []
    for method in methods:
        label = method_info(method).label
        res = sim.simulate(C, trace, _simulated(t, C, method))
        T = res.tasks
        times = np.arange(0.0, res.end + sample, sample)
        running = _at(T, times)
        waiting = (T["arrival"][None, :] <= times[:, None]) & ~(T["start"][None, :] <= times[:, None])
        L = len(t.leaves)
        by_leaf = np.zeros((L, len(T["user"])))
        by_leaf[T["user"], np.arange(len(T["user"]))] = 1.0
        run_count = running @ by_leaf.T                                # (S, L)
        edges = np.arange(0.0, res.end + window, window)
        finished = ~np.isnan(T["end"])
        done = np.histogram2d(T["end"][finished], T["user"][finished],
                              bins=[edges, np.arange(L + 1)])[0]           # (W - 1, L)
        slot = np.searchsorted(edges, times, side="right") - 1
        for w, start in enumerate(edges[:-1].tolist()):
            inside = slot == w
            mean_running = run_count[inside].mean(axis=0) if inside.any() else np.zeros(L)
            for i, path in enumerate(t.leaf_paths):
                throughput.append({"method": method, "label": label, "leaf": path,
                                   "time": start, "running": float(mean_running[i]),
                                   "finished": int(done[w, i]),
                                   "tasks_per_minute": float(done[w, i] * 60.0 / window)})
        waits = (waiting @ by_leaf.T) > 0                              # (S, L)
        active = waits.any(axis=1)
        held = np.stack([t.subtree_sums(run_count[s][:, None] * t.demand) for s in range(len(times))])
        share = (held / total).max(axis=2)                             # (S, N)
        node_waits = np.stack([t.subtree_sums(w) > 0 for w in waits])
        short = np.where(node_waits, t.guarantee - share - slack, 0.0)[:, 1:].max(axis=1)
        use = np.zeros((len(times), len(C), C.shape[1]))
        for n in np.flatnonzero(~np.isnan(T["start"])):
            on = running[:, n]
            use[on, T["machine"][n]] += t.demand[T["user"][n]]
        fits = np.array([[(use[s] + t.demand[i] <= C * (1 + sim.FIT_SLACK)).all(axis=1).any()
                          for i in range(L)] for s in range(len(times))])
        top = t.children(0)
        contended = node_waits[:, top].all(axis=1)
        finish = res.jobs["finish"]
        summary.append({
            "method": method, "label": label, "makespan": float(np.nanmax(T["end"])),
            "jobs_finished": int(np.isfinite(finish).sum()),
            "mean_completion": float(np.nanmean(finish - res.jobs["submit"])),
            "tasks_never_run": int(np.isnan(T["start"]).sum()),
            "violation_fraction": float((short[active] > 1e-9).mean()),
            "mean_shortfall": float(np.maximum(short[active], 0.0).mean()),
            "waiting_fits_fraction": float((waits & fits)[active].any(axis=1).mean()),
            "contended_fraction": float(contended[active].mean()),
            **{f"contended_share_{t.paths[k]}": float(share[contended, k].mean()) for k in top},
            **{f"idle_{r}": float(1.0 - use[active][:, :, j].sum(axis=1).mean() / total[j])
               for j, r in enumerate(t.resources)}})
    return throughput, summary
