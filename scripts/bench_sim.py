"""Time the discrete-event simulator drfbench.sim: events per second, median of --repeats.

    python scripts/bench_sim.py                      # both workloads, default sizes
    python scripts/bench_sim.py --workload trace --tasks 1000000 --repeats 1
    python scripts/bench_sim.py --workload backlog --profile   # cProfile, top functions

Workloads (seeded, synthetic):
  trace    --tasks tasks of --users users arriving over --span seconds (Poisson), each with
           its own <cpu, mem> demand and an exponential duration, on --machines
           heterogeneous servers drawn from six configurations (DRFH's Table I style,
           normalized so the largest is <1, 1>); the policy is sim.FifoFirstFit, written in
           Python (one NumPy fit test per launch), sampled every 60 s.
  backlog  --users backlog users with random task shapes (the DRF-vs-slots experiment,
           larger) on --machines identical machines, scheduled by online DRF, the kernel
           of drfbench/drf/drf.pyx (drfbench.drf.scheduler), until --horizon, sampled every 60 s.
An event is a task arrival, launch or completion (Simulation.events). Each run builds its
policy afresh; the time counted is simulate() alone (median of --repeats), and again with
the policy's calls timed and taken out: the simulator's own time. Prints one JSON line per
workload.
"""
import argparse
import cProfile
import json
import pstats
import statistics
import sys
import time
from datetime import date

import numpy as np

from drfbench import drf, sim
from drfbench._machine import cpu_info

CONFIGS = np.array([[1.0, 1.0], [0.5, 0.5], [0.5, 0.25], [0.5, 0.75], [0.25, 0.25], [1.0, 0.5]])
SHARES = np.array([0.53, 0.31, 0.08, 0.03, 0.01, 0.04])


def trace_workload(args):
    rng = np.random.default_rng(args.seed)
    N = args.tasks
    machines = CONFIGS[rng.choice(len(CONFIGS), size=args.machines, p=SHARES)]
    arrival = np.sort(rng.uniform(0.0, args.span, N))
    user = rng.integers(0, args.users, N)
    job = user * 1_000_000 + rng.integers(0, max(1, N // (20 * args.users)), N)
    duration = rng.exponential(args.duration, N) + 1.0
    demands = rng.uniform(0.005, 0.15, (N, 2))
    trace = sim.Trace(user, job, arrival, duration, demands, users=args.users)
    return machines, trace, lambda: sim.FifoFirstFit(machines, trace), None


def backlog_workload(args):
    rng = np.random.default_rng(args.seed)
    machines = np.tile([16.0, 64.0], (args.machines, 1))
    demands = np.column_stack([rng.integers(1, 5, args.users), rng.integers(1, 9, args.users)])
    backlog = sim.Backlog(demands, rng.integers(5, 50, args.users),
                          rng.uniform(0.5, 1.5, args.users) * args.duration, jitter=0.2,
                          seed=args.seed)
    return machines, backlog, lambda: drf.scheduler(backlog.demands, machines), args.horizon


class Timed:
    """Wraps a policy and adds up the time spent in its methods, so that the simulator's
    own time is the total minus this (the wrapper's own calls, ~0.2 us each, count as
    simulator time)."""

    def __init__(self, policy):
        self.policy, self.seconds = policy, 0.0
        if hasattr(policy, "release_task"):
            self.release_task = self._timed(policy.release_task)
        self.add_tasks = self._timed(policy.add_tasks)
        self.schedule = self._timed(policy.schedule)
        self.release = self._timed(policy.release)

    def _timed(self, method):
        clock = time.perf_counter

        def call(*args):
            start = clock()
            try:
                return method(*args)
            finally:
                self.seconds += clock() - start
        return call


def bench(name, build, args):
    machines, workload, policy, horizon = build(args)
    kwargs = dict(horizon=np.inf if horizon is None else horizon, sample=60.0)
    simulate = sim.literal.simulate if args.engine == "literal" else sim.simulate
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        res = simulate(machines, workload, policy(), **kwargs)
        profiler.disable()
        print(f"--- {name}: {res.events} events", file=sys.stderr)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(args.top)
        return
    seconds, own = [], []
    for _ in range(args.repeats):
        p = policy()
        start = time.perf_counter()
        res = simulate(machines, workload, p, **kwargs)
        seconds.append(time.perf_counter() - start)
        p = Timed(policy())                       # again, timing the policy's calls
        start = time.perf_counter()
        simulate(machines, workload, p, **kwargs)
        own.append(time.perf_counter() - start - p.seconds)
    median, own = statistics.median(seconds), statistics.median(own)
    print(json.dumps({
        "workload": name, "engine": args.engine, "events": res.events,
        "seconds_median": round(median, 4),
        "events_per_second": round(res.events / median),
        "simulator_seconds_median": round(own, 4),
        "simulator_events_per_second": round(res.events / own), "runs": args.repeats,
        "tasks": int(res.tasks["task"].size), "machines": len(machines),
        "users": int(res.users), "samples": int(res.samples["time"].size),
        "simulated_seconds": res.end, "cpu_model": cpu_info()[0], "date": date.today().isoformat(),
    }))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workload", choices=["trace", "backlog", "both"], default="both")
    p.add_argument("--tasks", type=int, default=50_000, help="trace: number of tasks")
    p.add_argument("--machines", type=int, default=2_000)
    p.add_argument("--users", type=int, default=100)
    p.add_argument("--span", type=float, default=3_600.0, help="trace: arrivals over seconds")
    p.add_argument("--duration", type=float, default=300.0, help="mean task duration, s")
    p.add_argument("--horizon", type=float, default=1_800.0, help="backlog: simulated seconds")
    p.add_argument("--engine", choices=["kernel", "literal"], default="kernel",
                   help="drfbench/sim/sim.pyx, or the loop in Python (drfbench.sim.literal)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", action="store_true", help="one cProfile run per workload")
    p.add_argument("--top", type=int, default=25, help="--profile: functions shown")
    args = p.parse_args(argv)
    for name, build in (("trace", trace_workload), ("backlog", backlog_workload)):
        if args.workload in (name, "both"):
            bench(name, build, args)


if __name__ == "__main__":
    main()
