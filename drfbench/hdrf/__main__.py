"""python -m drfbench.hdrf {examples,properties,evaluate} --out results/<name>/hdrf/... :
the H-DRF family's pipeline steps (workflows/rules/hdrf.smk), each writing tidy rows.

  examples    the slides' claims as worked examples, under every method (examples.py)
  properties  hierarchical share guarantee, Pareto efficiency, no starvation on random
              trees (properties.py)
  evaluate    the slides' 50-machine, 100-job evaluation on drfbench.sim (evaluation.py):
              --out the throughput rows, --summary the per-method summary
  scale       the same simulator at scale: a 104,976-leaf tree on 10,000 machines, a
              trace of a million tasks (evaluation.py's run_at_scale): one summary row
              per method, with the simulation's wall time
"""
import sys

import numpy as np

from .. import rows as tidy
from .._command import COUNT, FRACTION, NONNEGATIVE, POSITIVE, output, run_step, steps
from ..api import methods
from .catalog import TREE
from .evaluation import (EVALUATION_TREE, SCALE_MACHINE, evaluate, jobs, run_at_scale,
                         scale_jobs, scale_tree)
from .examples import example_rows
from .properties import CHECKS


def main(argv=None):
    p, sub = steps("hdrf", "H-DRF and its rivals: the slides' examples, the hierarchical "
                   "properties, the 50-machine evaluation.",
                   {"examples": "the slides' worked examples, every method",
                    "properties": "the hierarchical properties on random trees",
                    "evaluate": "the 50-machine, 100-job evaluation on the simulator",
                    "scale": "a 100K-leaf tree, 10,000 machines, a million tasks"})
    tree_methods = list(methods(takes=TREE))
    for name, a in sub.items():
        a.add_argument("--methods", nargs="+", default=["hdrf"] if name == "scale" else tree_methods,
                       choices=tree_methods, metavar="METHOD", help="registered tree methods")
    a = sub["properties"]
    a.add_argument("--instances", type=COUNT, default=200, help="random trees per check")
    a.add_argument("--room", type=POSITIVE, default=4.0,
                   help="each leaf's guarantee holds at least this many of its tasks")
    a = sub["evaluate"]
    a.add_argument("--summary", type=output, required=True, help="the per-method summary rows")
    a.add_argument("--machines", type=COUNT, default=50)
    a.add_argument("--machine", type=NONNEGATIVE, nargs=3, default=[4.0, 6.0, 1.0],
                   help="one machine's <CPU, GB, GPU>")
    a.add_argument("--jobs", type=COUNT, default=100)
    a.add_argument("--large", type=FRACTION, default=0.2, help="fraction of large jobs")
    a.add_argument("--span", type=POSITIVE, default=1200.0, help="seconds over which jobs arrive")
    a.add_argument("--sample", type=POSITIVE, default=10.0, help="seconds between samples")
    a.add_argument("--window", type=POSITIVE, default=120.0,
                   help="seconds per throughput row (mean running, tasks finished)")
    a = sub["scale"]
    a.add_argument("--fanout", type=COUNT, default=18, help="children per inner node (depth 4)")
    a.add_argument("--machines", type=COUNT, default=10000)
    a.add_argument("--tasks", type=COUNT, default=1_000_000)
    a.add_argument("--span", type=POSITIVE, default=600.0, help="seconds over which jobs arrive")
    run_step(p, step, argv)


def step(args):
    """The step `args.command`, its files written together or not at all."""
    stamp = {"seed": args.seed, **tidy.stamp()}
    if args.command == "examples":
        tidy.write([{**row, **stamp} for row in example_rows(args.methods)], args.out)
    elif args.command == "properties":
        rows = CHECKS.table(args.methods, args.instances, args.seed, room=args.room,
                            machines=(1, 1), progress=sys.stderr)
        stamp.update(instances=args.instances, room=args.room)
        tidy.write([{**row, **stamp} for row in rows], args.out)
    elif args.command == "scale":
        tree = scale_tree(args.fanout, args.seed)
        machines = np.tile(SCALE_MACHINE, (args.machines, 1))
        trace = scale_jobs(tree, args.tasks, args.span, args.seed)
        stamp.update(fanout=args.fanout, machines=args.machines, span=args.span)
        tidy.write([{**run_at_scale(tree, machines, trace, method), **stamp}
                    for method in args.methods], args.out)
    else:
        machines = np.tile(args.machine, (args.machines, 1))
        trace, _, _ = jobs(EVALUATION_TREE, args.jobs, args.large, args.span, args.seed)
        throughput, summary = evaluate(EVALUATION_TREE, machines, trace, args.methods,
                                       args.sample, args.window)
        stamp.update(machines=args.machines, machine=" ".join(f"{c:g}" for c in args.machine),
                     jobs=args.jobs, large=args.large, span=args.span, sample=args.sample,
                     window=args.window)
        tidy.write([{**row, **stamp} for row in throughput], args.out)
        tidy.write([{**row, **stamp} for row in summary], args.summary)


if __name__ == "__main__":
    main()
