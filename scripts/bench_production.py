"""Time the production rules on a large scenario, beside H-DRF's simulator on the same
trace (issue 37's Done-when: 10,000 jobs on 1,000 nodes, seconds per rule on 2 cores).

    python scripts/bench_production.py                    # 10,000 jobs, 1,000 nodes
    python scripts/bench_production.py --jobs 2000 --nodes 200 --rules armada yarn-fair-drf

The scenario: the side-by-side scenario's queue tree and task shapes
(drfbench.production.sidebyside; research/vision's limit of 12 GPUs left out, which H-DRF
does not know and which would make the run that queue's backlog) on `--nodes` nodes, three in four CPU nodes <32 CPU, 128
GiB> and the rest GPU nodes <16 CPU, 64 GiB, 4 GPU>; `--jobs` jobs, each to a leaf queue
drawn uniformly, 1-4 tasks of the leaf's shape lasting 60-600 s, arriving uniformly over
`--span` seconds (seeded). Each rule runs it to the end (drfbench.production.simulate);
H-DRF runs the same tasks in the same simulator (drfbench.hdrf.scheduler, users the leaf
queues). Prints one JSON line per method: wall seconds (the median of `--repeats`), tasks,
simulated makespan.
"""
import argparse
import json
import statistics
import time
from datetime import date

import numpy as np

import drfbench
from drfbench import hdrf, sim
from drfbench._machine import cpu_info
from drfbench.production import compare, scenario, sidebyside, simulate


def workload(jobs, nodes, span, seed):
    """The scenario (a dict) of the module docstring."""
    rng = np.random.default_rng(seed)
    base = sidebyside.side_by_side(seed)
    shapes = {}
    for job in base["jobs"]:
        shapes.setdefault(job["queue"], job["demand"])
    leaves = list(shapes)
    gpu = nodes // 4
    queue = rng.integers(0, len(leaves), jobs)
    arrival = np.sort(rng.uniform(0, span, jobs)).round(1)
    tasks = rng.integers(1, 5, jobs)
    duration = rng.uniform(60, 600, jobs).round()
    vision = base["children"]["research"]["children"]["vision"]
    del vision["limit"]
    return {**base,
            "nodes": {"cpu": {"capacity": [32, 128, 0], "count": nodes - gpu},
                      "gpu": {"capacity": [16, 64, 4], "count": gpu}},
            "jobs": [{"queue": leaves[q], "arrival": float(a), "tasks": int(n),
                      "demand": shapes[leaves[q]], "duration": float(d)}
                     for q, a, n, d in zip(queue, arrival, tasks, duration)]}


def run_hdrf(s):
    """H-DRF's simulator on the scenario's tasks, users the leaf queues."""
    shape = compare.shapes(s)
    tree = compare.tree(s, shape, np.zeros(len(s.leaves)))
    leaf_of = np.full(len(s.paths), -1)
    leaf_of[s.leaves] = np.arange(len(s.leaves))
    t = s.trace()
    trace = sim.Trace(leaf_of[s.queue[t.job]], t.job, t.arrival, t.duration, t.demands,
                      users=len(s.leaves))
    return sim.simulate(s.capacity, trace,
                        hdrf.scheduler(tree, s.capacity, "hdrf", tasks=np.zeros(len(s.leaves))))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=10_000)
    p.add_argument("--nodes", type=int, default=1_000)
    p.add_argument("--span", type=float, default=3600.0, help="seconds over which jobs arrive")
    rules = drfbench.methods(takes="scenario")
    p.add_argument("--rules", nargs="+", choices=rules, default=list(rules))
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    try:
        s = scenario(workload(args.jobs, args.nodes, args.span, args.seed))
    except ValueError as e:                      # too few nodes for the queues' guarantees
        p.error(f"--nodes {args.nodes}: {e}")
    runs = {rule: (lambda rule=rule: simulate(s, rule).simulation) for rule in args.rules}
    runs["hdrf (simulator)"] = lambda: run_hdrf(s)
    for method, call in runs.items():
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            res = call()
            times.append(time.perf_counter() - start)
        print(json.dumps({"method": method, "jobs": args.jobs, "nodes": args.nodes,
                          "tasks": int(s.tasks.sum()), "seconds": round(statistics.median(times), 3),
                          "makespan": float(np.nanmax(res.tasks["end"])),
                          "cpu": cpu_info()[0], "date": str(date.today())}), flush=True)


if __name__ == "__main__":
    main()
