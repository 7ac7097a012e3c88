"""Packets scheduled per second by the DRFQ middlebox simulator: the Cython kernel
(drfbench/drfq/drfq.pyx) against the literal transcription (drfbench.drfq.literal), with 2,
1,000 and 100,000 backlogged flows on two resources, in one run.

    python scripts/bench_drfq.py                        # drfq; 3 million packets a run
    python scripts/bench_drfq.py --methods drfq fifo drfq-dovetail --repeats 7

Flows cost U(1, 10) us per packet on each resource (seeded). A run's duration is scaled
from a short probe to dispatch about `--packets` packets (kernel) or `--literal-packets`
(literal; fewer with many flows, since it scans every flow per decision: at most
LITERAL_STEPS flows per run); each is repeated `--repeats` times and the median reported. The literal's rate
is its event loop's: the difference of a run of twice its packets and one of its packets,
so that building its Python objects for 100,000 flows is not counted. The kernel's is of
the whole call (validation and allocation included). Prints one JSON line.
"""
import argparse
import json
import statistics
import time
from datetime import date

import numpy as np

import drfbench
from drfbench import _isa, drfq
from drfbench._machine import cpu_info

LITERAL_STEPS = 20_000_000     # flows scanned per literal run at most: 200 packets at 100,000 flows


def timed(costs, method, duration, literal):
    """(seconds, packets dispatched) of one run."""
    start = time.perf_counter()
    r = drfq.simulate(costs, method, duration=duration, bins=0, literal=literal)
    return time.perf_counter() - start, int(r.dispatched.sum())


def duration_for(costs, method, packets, literal):
    """A duration that dispatches about `packets` packets, scaled from a probe of about
    100 (the pipeline's rate does not depend on the number of flows)."""
    probe = 100 * float(costs.max(axis=1).mean()) / costs.shape[1]
    _, made = timed(costs, method, probe, literal)
    return probe * packets / max(made, 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--flows", type=int, nargs="+", default=[2, 1000, 100000])
    p.add_argument("--methods", nargs="+", default=["drfq"], choices=drfbench.methods(takes="flows"))
    p.add_argument("--packets", type=int, default=3_000_000)
    p.add_argument("--literal-packets", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    out = {"date": date.today().isoformat(), "cpu": cpu_info()[0], "isa": _isa.kernels().name,
           "resources": 2, "repeats": args.repeats, "runs": []}
    for n in args.flows:
        costs = np.random.default_rng([args.seed, n]).uniform(1, 10, (n, 2)) * 1e-6
        for method in args.methods:
            duration = duration_for(costs, method, args.packets, False)
            kernel = [timed(costs, method, duration, False) for _ in range(args.repeats)]
            fast = statistics.median(made / s for s, made in kernel)
            short = duration_for(costs, method, min(args.literal_packets, max(100, LITERAL_STEPS // n)), True)
            rates = []
            for _ in range(args.repeats):
                (s1, m1), (s2, m2) = timed(costs, method, short, True), timed(costs, method, 2 * short, True)
                rates.append((m2 - m1) / (s2 - s1))
            slow = statistics.median(rates)
            out["runs"].append({"flows": n, "method": method, "packets": kernel[0][1],
                                "kernel_packets_per_s": fast, "literal_packets": m2 - m1,
                                "literal_packets_per_s": slow, "speedup": fast / slow})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
