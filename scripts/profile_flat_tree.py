"""Time the tree policies on flat trees (every leaf under the root) against two-level trees
of as many leaves (issue 34: a flat tree was quadratic in its leaves).

    python scripts/profile_flat_tree.py                          # 1K, 10K, 20K, 100K leaves
    python scripts/profile_flat_tree.py --leaves 20000 --policies hdrf flatten --repeats 1

Each leaf has weight 1-3, a task of 1-4 CPU and 1-16 GB (one leaf in five 1 GPU too) and
`--tasks` tasks (seeded); a two-level tree has round(sqrt(L)) inner nodes of as many
leaves. The machines are identical, <32 CPU, 128 GB, 4 GPU>, one per `--per-machine`
leaves, so that the run ends with the cluster full. Timed: `drfbench.hdrf.schedule(tree,
machines, policy)` on the validated Tree (what `drfbench run POLICY TREE MACHINES` runs
after reading the files), from an idle cluster until the policy launches nothing more;
the tree's own validation (`hdrf.tree`) is timed apart, once. Prints one JSON line per
(shape, leaves, policy): the median of `--repeats` runs, the runs, the decisions taken.
A run past `--budget` seconds is not repeated, and the policy is not run on larger trees
of that shape (a line says so): the quadratic kernel took minutes at 10K leaves.
"""
import argparse
import gc
import json
import math
import os
import statistics
import time
from datetime import date

import numpy as np

from drfbench import _isa, hdrf
from drfbench._machine import cpu_info

MACHINE = (32.0, 128.0, 4.0)
POLICIES = ("hdrf", "static-hdrf", "naive-hdrf", "flatten", "capacity", "capacity-pareto")


def leaf(rng, tasks):
    return {"weight": int(rng.integers(1, 4)), "tasks": tasks,
            "demand": [int(rng.integers(1, 5)), int(rng.integers(1, 17)),
                       int(rng.random() < 0.2)]}


def spec(leaves, levels, tasks, seed):
    """The tree's dict: `leaves` leaves under the root (levels 1) or under round(sqrt)
    inner nodes (levels 2)."""
    rng = np.random.default_rng(seed)
    if levels == 1:
        children = {f"l{i}": leaf(rng, tasks) for i in range(leaves)}
    else:
        groups = max(1, round(math.sqrt(leaves)))
        sizes = np.full(groups, leaves // groups) + (np.arange(groups) < leaves % groups)
        children = {f"g{g}": {"weight": int(rng.integers(1, 4)),
                              "children": {f"l{i}": leaf(rng, tasks) for i in range(n)}}
                    for g, n in enumerate(sizes.tolist())}
    return {"resources": ["cpu", "mem", "gpu"], "children": children}


def shape(levels):
    return "flat" if levels == 1 else "two-level"


def timed(call):
    """call()'s value and its seconds, the garbage collector off."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        value = call()
        return value, time.perf_counter() - start
    finally:
        gc.enable()


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--leaves", type=int, nargs="+", default=[1000, 10000, 20000, 100000])
    p.add_argument("--levels", type=int, nargs="+", default=[1, 2], choices=[1, 2])
    p.add_argument("--policies", nargs="+", default=list(POLICIES), choices=POLICIES)
    p.add_argument("--tasks", type=int, default=4, help="tasks per leaf")
    p.add_argument("--per-machine", type=int, default=10, help="leaves per machine")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=float, default=60.0, help="seconds (see above)")
    args = p.parse_args()
    over = set()
    for L in sorted(args.leaves):
        for levels in args.levels:
            t, build = timed(lambda: hdrf.tree(spec(L, levels, args.tasks, args.seed)))
            machines = np.tile(MACHINE, (max(1, L // args.per_machine), 1))
            for policy in args.policies:
                load = os.getloadavg()[0]
                if (levels, policy) in over:
                    print(json.dumps({"shape": shape(levels), "leaves": L, "policy": policy,
                                      "skipped": f"a smaller tree took over {args.budget} s"}))
                    continue
                runs = []
                while len(runs) < args.repeats and (levels, policy) not in over:
                    runs.append(timed(lambda: hdrf.schedule(t, machines, policy)))
                    if runs[-1][1] > args.budget:
                        over.add((levels, policy))
                print(json.dumps({
                    "date": date.today().isoformat(), "cpu": cpu_info()[0],
                    "variant": _isa.resolve(), "load": round(load, 2),
                    "shape": shape(levels), "leaves": L,
                    "machines": len(machines), "policy": policy,
                    "median_s": round(statistics.median(s for _, s in runs), 4),
                    "runs_s": [round(s, 4) for _, s in runs],
                    "decisions": runs[0][0].decisions,
                    "launched": sum(runs[0][0].tasks.values()),
                    "tree_build_s": round(build, 4)}), flush=True)


if __name__ == "__main__":
    main()
