"""python -m drfbench.drfq {lecture,series,sweep} ... --out results/<name>/drfq/... : the
DRFQ family's pipeline steps (workflows/rules/drfq.smk), each writing tidy rows
(evaluation.py says what each measures).

  lecture  the cs262a lecture's two flows <1, 6> and <7, 1> us (CPU, NIC): each alone,
           then under fifo, fq on each resource, bottleneck and drfq, backlogged and TCP
  series   each flow's rate over time under --schedulers, TCP sources (the oscillation)
  sweep    flows x resources x cost distributions x sources, every scheduler: fairness,
           utilization, drops
"""
from .. import rows as tidy
from .._command import COUNT, POSITIVE, run_step, steps
from ..api import methods
from .catalog import FLOWS, PACKET_COST
from .evaluation import DISTRIBUTIONS, RATELESS, lecture, lecture_series, sweep
from .model import INTERVAL, RTT


def main(argv=None):
    p, sub = steps("drfq", "DRFQ against fair queueing, bottleneck fairness and FIFO: the "
                   "lecture's experiment and a sweep.",
                   {"lecture": "the lecture's two flows under every scheduler",
                    "series": "the lecture's flows' rates over time (TCP)",
                    "sweep": "flows x resources x cost distributions, every scheduler"})
    schedulers = list(methods(takes=FLOWS))
    for a in sub.values():
        a.add_argument("--rtt", type=POSITIVE, default=RTT, help="TCP's round trip (s)")
        a.add_argument("--interval", type=POSITIVE, default=INTERVAL,
                       help="seconds between the bottleneck's re-decisions")
    for name in ("lecture", "series"):
        sub[name].add_argument("--duration", type=POSITIVE, default=5.0,
                               help="seconds simulated per run")
    sub["lecture"].add_argument("--sources", nargs="+", default=list(RATELESS), choices=RATELESS)
    a = sub["series"]
    a.add_argument("--schedulers", nargs="+", default=["bottleneck", "drfq"], choices=schedulers)
    a.add_argument("--bin-width", type=POSITIVE, default=0.01, help="seconds per rate bin")
    a = sub["sweep"]
    a.add_argument("--schedulers", nargs="+", default=schedulers, choices=schedulers)
    a.add_argument("--flows", type=COUNT, nargs="+", default=[2, 10, 100, 1000, 10000])
    a.add_argument("--resources", type=COUNT, nargs="+", default=[2, 3, 4])
    a.add_argument("--distributions", nargs="+", default=list(DISTRIBUTIONS), choices=DISTRIBUTIONS)
    a.add_argument("--sources", nargs="+", default=list(RATELESS), choices=RATELESS)
    a.add_argument("--packets", type=COUNT, default=200,
                   help="packets per flow a run lasts for, about (at equal dominant shares)")
    a.add_argument("--packet-costs", default=PACKET_COST.default, choices=PACKET_COST.choices,
                   help=PACKET_COST.description)
    run_step(p, step, argv)


def step(args):
    """The step `args.command`: its rows, written when it succeeds; what it wrote."""
    if args.command == "lecture":
        table = lecture(args.duration, args.rtt, args.interval, args.sources, args.seed)
    elif args.command == "series":
        table = lecture_series(args.duration, args.rtt, args.interval, args.bin_width,
                               args.schedulers, seed=args.seed)
    else:
        table = sweep(args.flows, args.resources, args.distributions, args.sources,
                      args.schedulers, args.packets, args.packet_costs, args.rtt,
                      args.interval, args.seed)
    tidy.write(table, args.out)
    return f"{args.out} ({len(table)} rows)"


if __name__ == "__main__":
    main()
