"""Time H-DRF's decisions: incremental shares against the full-tree recompute, in one run.

    python scripts/bench_hdrf.py                       # 18^4 = 104,976 leaves, 10,000 machines
    python scripts/bench_hdrf.py --fanout 8 --machines 1000 --repeats 5
    python scripts/bench_hdrf.py --old /work/before/drfbench --steps 5000 --repeats 7

The tree (drfbench.hdrf.evaluation.scale_tree): depth 4, `--fanout` children per inner
node, every leaf unbounded, with a task of 1-4 CPU, 1-16 GB and, for one leaf in five,
1 GPU; integer weights 1-3 (seeded). The machines: identical, <32 CPU, 128 GB, 4 GPU>.
A decision is one descent (launch or failed attempt; drfbench/hdrf/hdrf.pyx's `decisions`).

  fill   from an idle cluster, the first `--window` decisions (both modes), and, for the
         incremental mode, every decision until the cluster is full
  churn  from the full cluster: a random running task finishes, the policy launches
         (one release and one schedule() per step): `--steps` steps incremental (the kept
         open-sets built on the way included), then `--window` steps of the same
         scheduler switched to the recompute; decisions and launches per second of each.
         And the open-sets met (kept sets built: all distinct while none is evicted),
         kept, and their memory.

Each mode is timed `--repeats` times on fresh schedulers in this one process (the median
is printed); the ratio is incremental decisions per second over the recompute's. Prints
one JSON line. With `--old` (a directory holding a build's `drfbench` package, as
scripts/compare_builds.py takes), that build's H-DRF kernel is timed beside this one's:
each repeat runs both, alternately (which goes first alternates too), on the same seed;
the line then gives each build's medians and runs, and the ratios new / old.
"""
import argparse
import gc
import json
import os
import statistics
import time
from datetime import date
from types import SimpleNamespace

import numpy as np

from compare_builds import load_build
from drfbench import _isa, hdrf
from drfbench._machine import cpu_info
from drfbench.hdrf import kernel
from drfbench.hdrf.evaluation import SCALE_MACHINE, scale_tree


def workload(fanout, machines, seed):
    """The tree and `machines` machines."""
    return scale_tree(fanout, seed), np.tile(SCALE_MACHINE, (machines, 1))


def timed(call):
    """call()'s value and the seconds it took, with the garbage collector off (as timeit
    does: it would traverse the list of running tasks)."""
    gc.disable()
    try:
        start = time.perf_counter()
        value = call()
        return value, time.perf_counter() - start
    finally:
        gc.enable()


def using(module, call):
    """call(), with drfbench.hdrf's schedulers made by H-DRF kernel module `module` (None:
    this build's), swapped in under its typed facade (drfbench/hdrf/kernel.py)."""
    if module is None:
        return call()
    own = kernel._isa
    kernel._isa = SimpleNamespace(resolve=own.resolve, named_schedule=own.named_schedule,
                                  kernels=lambda isa=None: SimpleNamespace(hdrf=module))
    kernel._scheduler_class.cache_clear()
    try:
        return call()
    finally:
        kernel._isa = own
        kernel._scheduler_class.cache_clear()


def rate(call):
    """Decisions per second of call(), which returns the decisions it took."""
    decisions, seconds = timed(call)
    return decisions / seconds


def launches(s, count=-1):
    """s.schedule(count), its decisions, and the (leaf, machine) pairs launched."""
    before = s.decisions
    leaves, where = s.schedule(count)
    return s.decisions - before, list(zip(leaves.tolist(), where.tolist()))


def churn(s, running, steps, rng):
    """`steps` times: a random running task finishes, the policy launches; decisions
    and launches. A task is drawn uniformly and swapped out of the list in O(1)."""
    before, launched = s.decisions, len(running) - steps
    for _ in range(steps):
        k = int(rng.integers(len(running)))
        running[k], running[-1] = running[-1], running[k]
        s.release(*running.pop())
        running += launches(s)[1]
    return s.decisions - before, len(running) - launched


def once(tree, machines, window, steps, seed):
    """One repeat: decisions per second of each phase and mode."""
    out, rng = {}, np.random.default_rng(seed)
    fast = hdrf.scheduler(tree, machines)
    running = []

    def fill(count):
        decisions, launched = launches(fast, count)
        running.extend(launched)
        return decisions
    out["fill_window_incremental"] = rate(lambda: fill(window))
    out["fill_all_incremental"] = rate(lambda: fill(-1))
    out["fill_launches"] = len(running)
    slow = hdrf.scheduler(tree, machines, incremental=False)
    out["fill_window_recompute"] = rate(lambda: launches(slow, window)[0])
    for mode, count in (("incremental", steps), ("recompute", window)):
        fast.incremental = mode == "incremental"     # the same state, every node recomputed
        (decisions, launched), seconds = timed(lambda: churn(fast, running, count, rng))
        out[f"churn_{mode}"] = decisions / seconds
        out[f"churn_{mode}_launches"] = launched / seconds
        if mode == "incremental":
            out.update(open_sets_built=fast.sets_built, open_sets_reused=fast.sets_reused,
                       open_sets_kept=fast.sets_kept, open_sets_max=fast.sets,
                       open_set_bytes=fast.set_bytes,
                       open_sets_memory_mib=fast.sets_kept * fast.set_bytes / 2**20)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fanout", type=int, default=18)
    p.add_argument("--machines", type=int, default=10000)
    p.add_argument("--window", type=int, default=200,
                   help="fill decisions timed in both modes; churn steps of the recompute")
    p.add_argument("--steps", type=int, default=20000, help="churn steps of the incremental mode")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--old", help="a build's drfbench directory, its kernel timed beside this one")
    args = p.parse_args()
    tree, machines = workload(args.fanout, args.machines, args.seed)
    load = os.getloadavg()[0]
    builds = {"new": None}
    if args.old:
        builds = {"old": load_build(args.old, _isa.resolve(), "old", ("hdrf",))["hdrf"],
                  **builds}
    runs = {name: [] for name in builds}
    for r in range(args.repeats):
        for name in list(builds)[::1 if r % 2 == 0 else -1]:
            runs[name].append(using(builds[name], lambda: once(
                tree, machines, args.window, args.steps, args.seed + r)))
    median = {name: {k: statistics.median(x[k] for x in done) for k in done[0]}
              for name, done in runs.items()}
    line = {
        "date": date.today().isoformat(), "cpu": cpu_info()[0], "variant": _isa.resolve(),
        "load": [load, os.getloadavg()[0]], "leaves": len(tree.leaves),
        "nodes": len(tree.paths), "machines": args.machines, "window": args.window,
        "steps": args.steps, "repeats": args.repeats}
    if args.old:
        line.update(median=median, ratio_new_over_old={
            k: median["new"][k] / median["old"][k] for k in median["new"]}, runs=runs)
    else:
        new = median["new"]
        line.update(median=new,
                    speedup_fill=new["fill_window_incremental"] / new["fill_window_recompute"],
                    speedup_churn=new["churn_incremental"] / new["churn_recompute"],
                    runs=runs["new"])
    print(json.dumps(line))


if __name__ == "__main__":
    main()
