"""Time Packer, Tetris and slots deciding applications on the paper's 1,200-server tree,
and Packer's Cython scoring against the literal NumPy transcription of Eq. 6-8, in one run.

    python scripts/bench_packer.py                     # 600 applications, 30 per instant
    python scripts/bench_packer.py --apps 300 --threads 2

allocation  every application method (drfbench.methods(family="packer")) simulates the
            same seeded workload (drfbench.packer.workload) on Infrastructure(); per method
            the median, 90th percentile and mean time to decide one application (accept,
            with every node placed, or reject), and the whole run's seconds
scoring     on the cluster Packer's run left (the residual at the instant of the
            workload's middle application), one node's scores over the 1,200 servers:
            the kernel (allocate._scores, through packer.kernel.Kernel) against
            literal.packer_scores, each timed `--repeats` times (median), for the first
            task of that application with the most dependencies
Prints one JSON line.
"""
import argparse
import json
import statistics
import time
from datetime import date

import numpy as np

import drfbench
from drfbench import packer
from drfbench._machine import cpu_info
from drfbench.packer import allocate, literal
from drfbench.packer.kernel import Kernel
from drfbench.packer.model import dependencies, sort_nodes


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--apps", type=int, default=600)
    p.add_argument("--rate", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    infra = packer.Infrastructure()
    apps = packer.workload(args.apps, seed=args.seed, rate=args.rate)
    out = {"date": date.today().isoformat(), "cpu": cpu_info()[0], "apps": args.apps,
           "rate": args.rate, "threads": args.threads, "servers": infra.servers}
    results = {}
    for method in drfbench.methods(family="packer"):
        start = time.perf_counter()
        res = packer.simulate(infra, apps, method, threads=args.threads)
        s = res.allocation_seconds * 1e3
        results[method] = res
        out[method] = {"median_ms": float(np.median(s)), "p90_ms": float(np.percentile(s, 90)),
                       "mean_ms": float(s.mean()), "run_s": time.perf_counter() - start,
                       "accepted_tasks": res.accepted_tasks, "submitted_tasks": res.submitted_tasks}
    # scoring: replay Packer's accepted applications up to the middle one
    res, middle = results["packer"], apps[len(apps) // 2]
    cluster = allocate.Cluster(infra, res.server.shape[1])
    k = Kernel()
    for a in apps[:len(apps) // 2]:
        allocate.place(cluster, a, "packer", kernel=k)
    deps = dependencies(middle)
    v = max((u for u in sort_nodes(middle).tolist() if middle.service[u] < 0),
            key=lambda u: len(deps[u]))
    loc = np.full(len(middle.nodes), -1)
    for u in sort_nodes(middle).tolist():           # its dependencies where Packer would put them
        if u == v:
            break
        loc[u] = infra.servers if middle.service[u] >= 0 else u % infra.servers
    w = packer.resource_weights(cluster, middle.arrival)

    def timed(f):
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            f()
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    fast = timed(lambda: allocate._scores(cluster, middle, v, deps[v], loc, "packer", w, k, args.threads))
    slow = timed(lambda: literal.packer_scores(infra, cluster.server, cluster.link, middle, v,
                                                 deps[v], loc, w))
    out["scoring"] = {"node_dependencies": len(deps[v]), "duration": middle.duration,
                      "kernel_ms": fast * 1e3, "literal_ms": slow * 1e3, "speedup": slow / fast}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
