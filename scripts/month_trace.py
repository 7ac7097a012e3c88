"""A month-long trace through DRFH Best-Fit (issue 34's "done when": 1M tasks on 12,000
servers in at most 60 s on 2 cores, memory bounded): wall time and peak RSS.

    python scripts/month_trace.py [--tasks 1000000] [--servers 12000] [--days 30]
                                  [--users 200] [--sample 60] [--seed 0] [--files DIR]

The trace is synthetic and seeded: tasks arriving uniformly over `days` days, durations
log-uniform from 1 s to 7 days, users drawn Zipf-like (weight 1 / rank) among `users`,
each task demanding cpu, memory and disk; servers of four types (cpu, memory, disk). Times
drfbench.drfh.simulate (drfh-best-fit, sample every `sample` s) from the DataFrames to the
result, and reports the run's events and the end, the wall and CPU time (process_time: on a
shared machine the fairer number) and the peak RSS (resource.getrusage, the process's
high-water mark: generation included). With --files DIR it writes the trace as DIR/servers.csv
and DIR/tasks.csv instead, for timing the command end to end:
`drfbench run drfh-best-fit DIR/servers.csv DIR/tasks.csv --out rows.csv.gz`.
"""
import argparse
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

from drfbench import drfh

DAY = 86400.0
# (share of the servers, cpu, memory, disk): four types, the largest 1 on every resource
SERVER_TYPES = ((0.5, 0.5, 0.5, 0.5), (0.3, 1.0, 0.5, 0.25), (0.15, 0.5, 1.0, 1.0),
                (0.05, 1.0, 1.0, 1.0))


def servers(count, rng):
    share = np.array([t[0] for t in SERVER_TYPES])
    kind = rng.choice(len(SERVER_TYPES), size=count, p=share / share.sum())
    caps = np.array([t[1:] for t in SERVER_TYPES])[kind]
    return pd.DataFrame(caps, columns=["cpu", "memory", "disk"])


def tasks(count, days, users, rng):
    arrival = np.sort(rng.uniform(0.0, days * DAY, count))
    duration = np.exp(rng.uniform(0.0, np.log(7 * DAY), count))
    weight = 1.0 / np.arange(1, users + 1)
    user = rng.choice(users, size=count, p=weight / weight.sum())
    demand = rng.uniform(0.02, 0.4, (count, 3)) * rng.uniform(0.5, 1.0, (count, 1))
    frame = pd.DataFrame({"user": user, "job": np.arange(count) // 10 + user * count,
                          "arrival": arrival, "duration": duration})
    for j, r in enumerate(("cpu", "memory", "disk")):
        frame[r] = demand[:, j]
    return frame


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", type=int, default=1_000_000)
    p.add_argument("--servers", type=int, default=12_000)
    p.add_argument("--days", type=float, default=30.0)
    p.add_argument("--users", type=int, default=200)
    p.add_argument("--sample", type=float, default=60.0, help="seconds; 0: no samples")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--files", help="write the trace's servers.csv and tasks.csv here instead")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    S, T = servers(args.servers, rng), tasks(args.tasks, args.days, args.users, rng)
    if args.files:
        folder = Path(args.files)
        folder.mkdir(parents=True, exist_ok=True)
        S.to_csv(folder / "servers.csv", index=False)
        T.to_csv(folder / "tasks.csv", index=False)
        return
    start, cpu = time.perf_counter(), time.process_time()
    res = drfh.simulate(S, T, "drfh-best-fit", sample=args.sample or None)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    run = res.run
    done = np.isfinite(run.tasks["end"]).sum()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.tasks:,} tasks over {args.days:g} days on {args.servers:,} servers, "
          f"{args.users} users: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss:,.0f} MiB; "
          f"{run.events:,} events, {done:,} tasks done, end {run.end / DAY:.2f} days, "
          f"{len(run.samples['time']):,} samples, mean utilization "
          f"{res.utilization.mean().round(3).to_dict()}")


if __name__ == "__main__":
    main()
