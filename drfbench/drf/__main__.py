"""python -m drfbench.drf slots --out results/<name>/drf/drf_vs_slots.csv [options]: the
lecture's DRF-vs-slots experiment as tidy rows (the pipeline's step, workflows/rules/drf.smk)."""
import argparse
import sys

import numpy as np

from .. import rows as tidy
from .tasks import JobType, drf_vs_slots


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m drfbench.drf",
                                description="The DRF lecture's DRF vs slots experiment.")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("slots", help="the lecture's DRF vs slots experiment, as a tidy CSV")
    a.add_argument("--machines", type=int, default=48)
    a.add_argument("--machine", type=float, nargs="+", default=[4.0, 15.0],
                   help="one machine's capacity per resource (default: 4 CPU, 15 GB)")
    a.add_argument("--type1", type=float, nargs="+", default=[2.0, 2.0])
    a.add_argument("--type2", type=float, nargs="+", default=[1.0, 0.5])
    a.add_argument("--tasks-per-job", type=int, default=20)
    a.add_argument("--duration", type=float, default=60.0, help="seconds per task")
    a.add_argument("--slots", type=int, nargs="+", default=[2, 4, 6])
    a.add_argument("--horizon", type=float, default=3600.0)
    a.add_argument("--jitter", type=float, default=0.2)
    a.add_argument("--sample", type=float, default=60.0)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if not (len(args.machine) == len(args.type1) == len(args.type2)):
        p.error("--machine, --type1 and --type2 must name the same number of resources")
    cluster = np.tile(np.asarray(args.machine, dtype=float), (args.machines, 1))
    job_types = [JobType("Type 1", tuple(args.type1), args.tasks_per_job, args.duration),
                 JobType("Type 2", tuple(args.type2), args.tasks_per_job, args.duration)]
    rows = drf_vs_slots(cluster, job_types, args.slots, horizon=args.horizon,
                        jitter=args.jitter, seed=args.seed, sample=args.sample)
    tidy.exit_on_sigterm()
    stamp = {"machines": args.machines, "machine": " ".join(f"{c:g}" for c in args.machine),
             "type1": " ".join(f"{c:g}" for c in args.type1),
             "type2": " ".join(f"{c:g}" for c in args.type2),
             "tasks_per_job": args.tasks_per_job, "duration": args.duration,
             "jitter": args.jitter, "seed": args.seed, **tidy.stamp()}
    tidy.write([{**row, **stamp} for row in rows], args.out)
    print(f"drf_vs_slots: {len(rows)} rows -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
