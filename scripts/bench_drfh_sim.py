"""Benchmark of DRFH's discrete schedulers (issue 19): Best-Fit placements per second with
the server index against the literal scan, at 2,000 and 12,000 servers, side by side in one
run; and a million Alibaba tasks through the simulator under Best-Fit.

    python scripts/bench_drfh_sim.py [--repeats 3] [--servers 2000 12000] [--million]

Placements: servers drawn from Table I; the cluster is filled from a backlog of tasks of
the Alibaba sample's shapes, then, in the steady state, one random running task is released
and the scheduler asked to launch, over and over; the time per placement is the time spent
in release_task + schedule() over the placements made. Both schedulers make the same
decisions (tests/drfh/test_drfh_sim.py), so they are timed on the same sequence. Median of
`repeats` runs.
"""
import argparse
import statistics
import time

import numpy as np

from drfbench import sim
from drfbench.drfh import alibaba_tasks, google_servers, scheduler, simulate


def take(running, rng):
    """Remove and return a random entry (swap with the last: O(1))."""
    j = int(rng.integers(0, len(running)))
    running[j], running[-1] = running[-1], running[j]
    return running.pop()


def steady_state(M, cycles, index, threads, seed=0):
    """Placements per second in the steady state of a full cluster of M servers."""
    C = np.asarray(google_servers(M, seed=seed), dtype=float)
    shapes = alibaba_tasks(fraction=0.05, users=1, seed=seed)[["cpu", "memory"]].to_numpy()
    rng = np.random.default_rng(seed)
    n_users = 100
    per_server = 120                  # tasks per server in the backlog: enough to fill it
    N = M * per_server
    D = shapes[rng.integers(0, len(shapes), N)]
    user = rng.integers(0, n_users, N)
    trace = sim.Trace(user, np.arange(N), np.zeros(N), np.ones(N), D, users=n_users)
    p = scheduler(C, trace, "drfh-best-fit", index=True, threads=threads)
    order = [np.flatnonzero(user == u) for u in range(n_users)]
    nxt = np.zeros(n_users, dtype=np.int64)
    running = []
    for u in range(n_users):
        p.add_tasks(u, len(order[u]))

    def launch():
        us, ks = p.schedule()
        for u, k in zip(us.tolist(), ks.tolist()):
            running.append((int(order[u][nxt[u]]), u, k))
            nxt[u] += 1
        return len(us)

    launch()                    # fill the cluster (with the index: the same decisions)
    p.index = index
    placed, start = 0, time.perf_counter()
    for _ in range(cycles):
        t, u, k = take(running, rng)
        p.release_task(t, u, k)
        placed += launch()
    return placed / (time.perf_counter() - start), placed


def million(seed=0):
    tasks = alibaba_tasks(fraction=0.33, users=100, seed=seed)
    servers = google_servers(660, seed=seed)
    start = time.perf_counter()
    res = simulate(servers, tasks, "drfh-best-fit", sample=60.0)
    return time.perf_counter() - start, len(tasks), res.run.events


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--repeats", type=int, default=3)
    a.add_argument("--cycles", type=int, default=20000, help="steady-state cycles (index)")
    a.add_argument("--scan-cycles", type=int, default=1000, help="cycles of the scan")
    a.add_argument("--servers", type=int, nargs="+", default=[2000, 12000],
                   help="cluster sizes (servers)")
    a.add_argument("--million", action="store_true", help="also the million-task run")
    args = a.parse_args()
    print("servers | index placements/s | scan placements/s (1 thread) | scan (2 threads) "
          "| index / best scan")
    for M in args.servers:
        rates = {}
        for name, index, threads, cycles in (("index", True, 1, args.cycles),
                                             ("scan1", False, 1, args.scan_cycles),
                                             ("scan2", False, 2, args.scan_cycles)):
            rates[name] = statistics.median(steady_state(M, cycles, index, threads)[0]
                                            for _ in range(args.repeats))
        best = max(rates["scan1"], rates["scan2"])
        print(f"{M} | {rates['index']:,.0f} | {rates['scan1']:,.0f} | {rates['scan2']:,.0f} "
              f"| {rates['index'] / best:.0f}x", flush=True)
    if args.million:
        elapsed, n, events = million()
        print(f"million: {n:,} tasks, {events:,} events, best-fit on 660 servers: "
              f"{elapsed:.1f} s")


if __name__ == "__main__":
    main()
