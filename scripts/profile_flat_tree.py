"""Time the tree methods on flat trees (every leaf under the root) against two-level trees
of as many leaves (issue 34: a flat tree was quadratic in its leaves), and, given OLD,
another build's H-DRF kernel beside this one, in one process.

    python scripts/profile_flat_tree.py                          # 1K, 10K, 20K, 100K leaves
    python scripts/profile_flat_tree.py --old /work/before/drfbench --budget 60
    python scripts/profile_flat_tree.py --leaves 20000 --methods hdrf flatten --repeats 1

Each leaf has weight 1-3, a task of 1-4 CPU and 1-16 GB (one leaf in five 1 GPU too) and
`--tasks` tasks (seeded); a two-level tree has round(sqrt(L)) inner nodes of as many
leaves. The machines are identical, <32 CPU, 128 GB, 4 GPU>, one per `--per-machine`
leaves, so that the run ends with the cluster full. Timed: `drfbench.hdrf.schedule(tree,
machines, method)` on the validated Tree (what `drfbench run METHOD TREE MACHINES` runs
after reading the files), from an idle cluster until the method launches nothing more;
the tree's own validation (`hdrf.tree`) is timed apart, once. With OLD (a directory
holding a build's `drfbench` package, as scripts/compare_builds.py takes), the old
build's kernel module is swapped in for this one's (drfbench._isa.kernels) on alternate
runs, old first then new, and both schedules must be the same.

Prints one JSON line per (shape, leaves, method): per build, the median of `--repeats`
runs and the runs, the decisions taken. A build's run past `--budget` seconds is not
repeated, and a build is not run where its last time on the shape, scaled by the square
of the leaves' ratio, passes the budget (the line gives that estimate instead: a lower
bound where a decision's cost grew faster, as the old capacity methods' did).
"""
import argparse
import json
import math
import os
import statistics
from datetime import date

import numpy as np

from bench_hdrf import timed, using
from compare_builds import load_build
import drfbench
from drfbench import _isa, hdrf
from drfbench._machine import cpu_info

MACHINE = (32.0, 128.0, 4.0)
METHODS = drfbench.methods(takes="tree")


def leaf(rng, count):
    return {"weight": int(rng.integers(1, 4)), "tasks": count,
            "demand": [int(rng.integers(1, 5)), int(rng.integers(1, 17)),
                       int(rng.random() < 0.2)]}


def spec(leaves, levels, count, seed):
    """The tree's dict: `leaves` leaves under the root (levels 1) or under round(sqrt)
    inner nodes (levels 2)."""
    rng = np.random.default_rng(seed)
    if levels == 1:
        children = {f"l{i}": leaf(rng, count) for i in range(leaves)}
    else:
        groups = max(1, round(math.sqrt(leaves)))
        sizes = np.full(groups, leaves // groups) + (np.arange(groups) < leaves % groups)
        children = {f"g{g}": {"weight": int(rng.integers(1, 4)),
                              "children": {f"l{i}": leaf(rng, count) for i in range(n)}}
                    for g, n in enumerate(sizes.tolist())}
    return {"resources": ["cpu", "mem", "gpu"], "children": children}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old", help="a build's drfbench directory, timed beside this one")
    p.add_argument("--leaves", type=int, nargs="+", default=[1000, 10000, 20000, 100000])
    p.add_argument("--levels", type=int, nargs="+", default=[1, 2], choices=[1, 2])
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    p.add_argument("--tasks", type=int, default=4, help="tasks per leaf")
    p.add_argument("--per-machine", type=int, default=10, help="leaves per machine")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=float, default=60.0, help="seconds (see above)")
    args = p.parse_args()
    isa = _isa.resolve()
    builds = {"new": _isa.kernels(isa).hdrf}
    if args.old:
        builds = {"old": load_build(args.old, isa, "old", ("hdrf",))["hdrf"], **builds}
    last = {}                                  # (build, levels, method) -> (leaves, seconds)
    for L in sorted(args.leaves):
        for levels in args.levels:
            t, build = timed(lambda: hdrf.tree(spec(L, levels, args.tasks, args.seed)))
            machines = np.tile(MACHINE, (max(1, L // args.per_machine), 1))
            for method in args.methods:
                load, runs, out = os.getloadavg()[0], {b: [] for b in builds}, {}
                for name in builds:
                    before = last.get((name, levels, method))
                    if before and before[1] * (L / before[0]) ** 2 > args.budget:
                        out[name] = {"skipped": True,
                                     "estimate_s": round(before[1] * (L / before[0]) ** 2, 1)}
                for _ in range(args.repeats):
                    for name, module in builds.items():
                        if name in out or (runs[name] and runs[name][-1][1] > args.budget):
                            continue
                        runs[name].append(using(module, lambda: timed(
                            lambda: hdrf.schedule(t, machines, method))))
                orders = [r[-1][0].order for r in runs.values() if r]
                assert all(o == orders[0] for o in orders), "the builds' schedules differ"
                for name, done in runs.items():
                    if done:
                        seconds = statistics.median(s for _, s in done)
                        last[name, levels, method] = (L, seconds)
                        out[name] = {"median_s": round(seconds, 4),
                                     "runs_s": [round(s, 4) for _, s in done],
                                     "decisions": done[0][0].decisions}
                print(json.dumps({
                    "date": date.today().isoformat(), "cpu": cpu_info()[0], "variant": isa,
                    "load": [round(load, 2), round(os.getloadavg()[0], 2)],
                    "shape": "flat" if levels == 1 else "two-level", "leaves": L,
                    "machines": len(machines), "method": method, "tree_build_s": round(build, 4),
                    **out}), flush=True)


if __name__ == "__main__":
    main()
