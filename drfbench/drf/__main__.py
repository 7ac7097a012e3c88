"""python -m drfbench.drf {properties,slots,decisions} --out results/<name>/drf/... : the
classic DRF family's pipeline steps (workflows/rules/drf.smk), each writing tidy rows.

  properties  the DRF lecture's property table, checked empirically on every registered
              method taking divisible demands (properties.py); --examples also writes the
              lecture's worked examples
  slots       the lecture's DRF-vs-slots experiment on drfbench.sim (tasks.py), a run of
              hadoop-slots per value of its declared option (catalog.STEP_SWEEPS)
  decisions   the online DRF kernel's time per decision against the number of users
              (decisions.py: the lecture's O(log n))
"""
import sys

import numpy as np

from .. import rows as tidy
from .._command import (COUNT, NONNEGATIVE, POSITIVE, PROPER_FRACTION, options_of, output,
                        run_step, steps)
from ..api import methods
from .catalog import DEMANDS, STEP_OPTIONS, STEP_SWEEPS
from .decisions import decision_times
from .properties import CHECKS, TOL, lecture_examples, table_methods
from .tasks import JobType, drf_vs_slots


def properties(p, args):
    """The lecture's table, one per fraction of zero demands, and its worked examples."""
    stamp = {"instances": args.instances, "seed": args.seed, "tol": args.tol, **tidy.stamp()}
    rows = []
    for zeros in args.zeros:
        rows += CHECKS.table(table_methods(args.methods, args.epsilons), args.instances,
                             args.seed, zeros=zeros, tol=args.tol, progress=sys.stderr)
    tidy.write([{**row, **stamp} for row in rows], args.out)
    if args.examples:
        tidy.write([{**row, **stamp} for row in lecture_examples()], args.examples)


def slots(p, args):
    """The DRF vs slots experiment's rows."""
    if not (len(args.machine) == len(args.type1) == len(args.type2)):
        p.error("--machine, --type1 and --type2 must name the same number of resources")
    cluster = np.tile(np.asarray(args.machine, dtype=float), (args.machines, 1))
    job_types = [JobType("Type 1", tuple(args.type1), args.tasks_per_job, args.duration),
                 JobType("Type 2", tuple(args.type2), args.tasks_per_job, args.duration)]
    rows = drf_vs_slots(cluster, job_types, options_of(args)["slots"], horizon=args.horizon,
                        jitter=args.jitter, seed=args.seed, sample=args.sample)
    stamp = {"machines": args.machines, "machine": " ".join(f"{c:g}" for c in args.machine),
             "type1": " ".join(f"{c:g}" for c in args.type1),
             "type2": " ".join(f"{c:g}" for c in args.type2),
             "tasks_per_job": args.tasks_per_job, "duration": args.duration,
             "jitter": args.jitter, "seed": args.seed, **tidy.stamp()}
    tidy.write([{**row, **stamp} for row in rows], args.out)


def decisions(p, args):
    """The time per decision's rows."""
    tidy.write(decision_times(args.users, args.decisions, args.repeats,
                              resources=args.resources, seed=args.seed), args.out)


def main(argv=None):
    p, sub = steps("drf", "The DRF lecture's property table and its DRF vs slots experiment.",
                   {"properties": "the lecture's property table, checked empirically",
                    "slots": "the lecture's DRF vs slots experiment, as a tidy CSV",
                    "decisions": "online DRF's time per decision against the number of users"},
                   options=STEP_OPTIONS, sweeps=STEP_SWEEPS)
    demand_methods = list(methods(takes=DEMANDS))
    a = sub["properties"]
    a.add_argument("--examples", type=output, help="also write the lecture's worked examples here")
    a.add_argument("--methods", nargs="+", default=demand_methods, choices=demand_methods,
                   metavar="METHOD", help="registered methods taking divisible demands, one "
                                          f"row each (default: all: {' '.join(demand_methods)})")
    a.add_argument("--instances", type=COUNT, default=200, help="random instances per check")
    a.add_argument("--epsilons", type=NONNEGATIVE, nargs="*", default=[0.01, 0.1],
                   help="one row per epsilon for the methods that take one")
    a.add_argument("--zeros", type=PROPER_FRACTION, nargs="+", default=[0.0, 0.2],
                   help="fractions of zero demands in the random instances, one table each "
                        "(0: every user demands every resource, the lecture's setting)")
    a.add_argument("--tol", type=NONNEGATIVE, default=TOL)
    a = sub["slots"]
    a.add_argument("--machines", type=COUNT, default=48)
    a.add_argument("--machine", type=NONNEGATIVE, nargs="+", default=[4.0, 15.0],
                   help="one machine's capacity per resource (default: 4 CPU, 15 GB)")
    a.add_argument("--type1", type=NONNEGATIVE, nargs="+", default=[2.0, 2.0])
    a.add_argument("--type2", type=NONNEGATIVE, nargs="+", default=[1.0, 0.5])
    a.add_argument("--tasks-per-job", type=COUNT, default=20)
    a.add_argument("--duration", type=POSITIVE, default=60.0, help="seconds per task")
    a.add_argument("--horizon", type=POSITIVE, default=3600.0)
    a.add_argument("--jitter", type=NONNEGATIVE, default=0.2,
                   help="task durations times exp(jitter * N(0, 1))")
    a.add_argument("--sample", type=POSITIVE, default=60.0)
    a = sub["decisions"]
    a.add_argument("--users", type=COUNT, nargs="+", default=[10**2, 10**3, 10**4, 10**5, 10**6],
                   help="numbers of users, a run each per repeat")
    a.add_argument("--decisions", type=COUNT, default=10**5, help="launches timed per run")
    a.add_argument("--repeats", type=COUNT, default=5, help="runs per number of users")
    a.add_argument("--resources", type=COUNT, default=2)
    run_step(p, lambda args: {"properties": properties, "slots": slots,
                              "decisions": decisions}[args.command](p, args), argv)


if __name__ == "__main__":
    main()
