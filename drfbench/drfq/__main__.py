"""python -m drfbench.drfq {lecture,series,sweep} ... --out results/<name>/drfq/... : the
DRFQ family's pipeline steps (workflows/rules/drfq.smk), each writing tidy rows
(evaluation.py says what each measures).

  lecture  the cs262a lecture's two flows <1, 6> and <7, 1> us (CPU, NIC): each alone,
           then under fifo, fq on each resource, bottleneck and drfq, backlogged and TCP
  series   each flow's rate over time under --methods, TCP sources (the oscillation)
  sweep    flows x resources x cost distributions x sources, every method: fairness,
           utilization, drops
"""
from .. import rows as tidy
from .._command import COUNT, POSITIVE, options_of, run_step, steps
from ..api import methods
from .catalog import FLOWS, STEP_OPTIONS
from .evaluation import DISTRIBUTIONS, RATELESS, lecture, lecture_series, sweep


def main(argv=None):
    p, sub = steps("drfq", "DRFQ against fair queueing, bottleneck fairness and FIFO: the "
                   "lecture's experiment and a sweep.",
                   {"lecture": "the lecture's two flows under every method",
                    "series": "the lecture's flows' rates over time (TCP)",
                    "sweep": "flows x resources x cost distributions, every method"},
                   options=STEP_OPTIONS)
    registered = list(methods(takes=FLOWS))
    sub["lecture"].add_argument("--sources", nargs="+", default=list(RATELESS), choices=RATELESS)
    a = sub["series"]
    a.add_argument("--methods", nargs="+", default=["bottleneck", "drfq"], choices=registered)
    a.add_argument("--bin-width", type=POSITIVE, default=0.01, help="seconds per rate bin")
    a = sub["sweep"]
    a.add_argument("--methods", nargs="+", default=registered, choices=registered)
    a.add_argument("--flows", type=COUNT, nargs="+", default=[2, 10, 100, 1000, 10000])
    a.add_argument("--resources", type=COUNT, nargs="+", default=[2, 3, 4])
    a.add_argument("--distributions", nargs="+", default=list(DISTRIBUTIONS), choices=DISTRIBUTIONS)
    a.add_argument("--sources", nargs="+", default=list(RATELESS), choices=RATELESS)
    a.add_argument("--packets", type=COUNT, default=200,
                   help="packets per flow a run lasts for, about (at equal dominant shares)")
    run_step(p, step, argv)


def step(args):
    """The step `args.command`: its rows, written when it succeeds; what it wrote. The
    declared options reach it by name (options_of)."""
    options = options_of(args)
    if args.command == "lecture":
        table = lecture(sources=args.sources, seed=args.seed, **options)
    elif args.command == "series":
        table = lecture_series(bin_width=args.bin_width, methods=args.methods,
                               seed=args.seed, **options)
    else:
        table = sweep(args.flows, args.resources, args.distributions, args.sources,
                      args.methods, args.packets, seed=args.seed, **options)
    tidy.write(table, args.out)
    return f"{args.out} ({len(table)} rows)"


if __name__ == "__main__":
    main()
