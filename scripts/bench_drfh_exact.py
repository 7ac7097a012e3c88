"""Time the exact DRFH solve: the aggregated solver against HiGHS on the full per-server LP,
side by side in one run.

    python scripts/bench_drfh_exact.py                          # the sizes below, 5 repeats
    python scripts/bench_drfh_exact.py --sizes 1000x12000 --lp-timeout 900

Servers: `servers` drawn from the ten configurations of the Google 2011 cluster (Table I
of the DRFH paper, drfbench/drfh/data/google2011_machine_configs.csv; --configs reads another CSV
with the columns machines, cpu, memory), in proportion to their
counts, every configuration at least once. Users: per-task demands uniform on
[0.005, 0.05] of a maximum server's CPU and memory (Google tasks are small against
servers), seeded, unbounded tasks; --finite gives every user 1..200 tasks instead.

Per size, each solver runs `--repeats` times (median printed) in a child process with a
wall-clock limit (`--lp-timeout`, both solvers); a solver that runs past it is timed
once and reported as "> limit". Prints one JSON line of the date and CPU, then one per
size: each solver's median, runs and LPs solved, the largest relative difference of the
users' tasks and the speedup; `drfbench.drfh.allocate(..., solver=...)` is what is timed
(its `elapsed`).
"""
import argparse
import json
import statistics
import subprocess
import sys
from datetime import date

import numpy as np

def configurations(path=None):
    """(configurations, 3): servers, CPU, memory of each, from `path` or Table I."""
    import pandas as pd
    from drfbench.drfh.trace import GOOGLE
    table = pd.read_csv(GOOGLE if path is None else path)
    return table[["machines", "cpu", "memory"]].to_numpy(dtype=float)


def instance(users, servers, seed, configs, finite):
    """(demands, servers, tasks): servers in proportion to the configurations' counts
    (largest remainder, each at least once), users' demands seeded."""
    share = configs[:, 0] / configs[:, 0].sum() * servers
    count = np.maximum(1, np.floor(share)).astype(int)
    for k in np.argsort(-(share - np.floor(share))):
        if count.sum() >= servers:
            break
        count[k] += 1
    while count.sum() > servers:
        count[np.argmax(count)] -= 1
    S = np.repeat(configs[:, 1:], count, axis=0)
    rng = np.random.default_rng(seed)
    demands = rng.uniform(0.005, 0.05, size=(users, 2))
    tasks = rng.integers(1, 201, size=users).astype(float) if finite else None
    return demands, S, tasks


def child(args):
    """One solver, `repeats` times, in this process: print its JSON."""
    from drfbench.drfh import allocate
    demands, S, tasks = instance(args.users, args.servers, args.seed,
                                 configurations(args.configs), args.finite)
    times, result = [], None
    for _ in range(args.repeats):
        result = allocate(demands, S, tasks=tasks, solver=args.solver)
        times.append(result.elapsed)
    print(json.dumps({"times": times, "lps": result.rounds, "tasks": result.tasks.tolist()}))


def run(args, users, servers, solver, repeats):
    cmd = [sys.executable, __file__, "--child", "--users", str(users), "--servers", str(servers),
           "--solver", solver, "--repeats", str(repeats), "--seed", str(args.seed)]
    cmd += ["--configs", args.configs] if args.configs else []
    cmd += ["--finite"] if args.finite else []
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.lp_timeout,
                             check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def size(text):
    """(users, servers) of USERSxSERVERS, both positive."""
    try:
        users, servers = map(int, text.lower().split("x"))
    except ValueError:
        users = servers = 0
    if users < 1 or servers < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected USERSxSERVERS, e.g. 10x120")
    return users, servers


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", nargs="+", type=size,
                   default=[(10, 120), (100, 1200), (1000, 1200), (1000, 12000)],
                   help="USERSxSERVERS")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--lp-repeats", type=int, default=3,
                   help="repeats of the full LP (it is slow at scale)")
    p.add_argument("--lp-timeout", type=float, default=900.0, help="seconds per solver run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--configs", help="CSV of configurations (machines, cpu, memory)")
    p.add_argument("--finite", action="store_true", help="finite task counts (1..200)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--users", type=int, help=argparse.SUPPRESS)
    p.add_argument("--servers", type=int, help=argparse.SUPPRESS)
    p.add_argument("--solver", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    from drfbench._machine import cpu_info
    print(json.dumps({"date": date.today().isoformat(), "cpu": cpu_info(),
                      "finite": args.finite}), flush=True)
    for users, servers in args.sizes:
        fast = run(args, users, servers, "aggregate", args.repeats)
        full = run(args, users, servers, "lp", args.lp_repeats)
        row = {"users": users, "servers": servers}
        for name, got in (("aggregate", fast), ("lp", full)):
            if got is None:
                row[name] = f"> {args.lp_timeout:g} s (timed out)"
            else:
                row[name] = {"median_s": statistics.median(got["times"]), "runs": len(got["times"]),
                             "lps": got["lps"]}
        if fast and full:
            a, b = np.array(fast["tasks"]), np.array(full["tasks"])
            row["max_rel_diff_tasks"] = float(np.max(np.abs(a - b) / np.maximum(b, 1e-300)))
            row["speedup"] = row["lp"]["median_s"] / row["aggregate"]["median_s"]
        elif fast:
            row["speedup"] = f"> {args.lp_timeout / row['aggregate']['median_s']:.0f}"
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
