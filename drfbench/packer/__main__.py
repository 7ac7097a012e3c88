"""python -m drfbench.packer evaluate | sensitivity ... : the Packer family's pipeline steps
(workflows/rules/packer.smk, packer_sensitivity.smk), writing tidy rows: every method on
the same seeded workloads on the paper's tree (evaluation.py, Figs. 3-8), and the
sensitivity study's runs for one setting of the workload and of what the methods are
told."""
import argparse

from .. import rows as tidy
from .._command import COUNT, FRACTION, NATURAL, POSITIVE, options_of, output, run_step, steps
from ..api import THREADS, methods
from .catalog import APPLICATIONS, STEP_OPTIONS, STEP_SWEEPS
from .evaluation import evaluate, sensitivity
from .model import VIEWS, Infrastructure
from .workload import BOTTLENECK, TEMPORAL


def _view(text):
    """METHOD=VIEW (evaluate's --views)."""
    method, _, view = text.partition("=")
    if method not in methods(takes=APPLICATIONS) or view not in VIEWS:
        raise argparse.ArgumentTypeError(f"expected METHOD=VIEW with a method of "
                                         f"{list(methods(takes=APPLICATIONS))} and a view of "
                                         f"{list(VIEWS)}, got {text!r}")
    return method, view


def main(argv=None):
    p, sub = steps("packer", "Packer, Tetris and slots: the paper's evaluation and the "
                   "sensitivity study.",
                   {"evaluate": "every method on seeded workloads (Figs. 3-8)",
                    "sensitivity": "every method, Packer in each reading of Eq. 6-8, for one "
                                   "setting of the workload and the view"}, flags=(),
                   options=STEP_OPTIONS, sweeps=STEP_SWEEPS)
    app_methods = list(methods(takes=APPLICATIONS))
    a, b = sub["evaluate"], sub["sensitivity"]
    for c in (a, b):
        c.add_argument("--methods", nargs="+", default=app_methods, choices=app_methods,
                       metavar="METHOD", help="registered application methods")
        c.add_argument("--servers", type=COUNT, default=1200)
        c.add_argument("--per-rack", type=COUNT, default=40)
        c.add_argument("--racks-per-agg", type=COUNT, default=10)
        c.add_argument("--apps", type=COUNT, default=2000, help="applications per run")
        c.add_argument("--rate", type=POSITIVE, default=40.0, help="applications per time instant")
        c.add_argument("--mapreduce", type=FRACTION, default=0.5, help="fraction of MapReduce jobs")
        c.add_argument("--seeds", type=NATURAL, nargs="+", default=[0])
        c.add_argument("--temporal", choices=TEMPORAL, default="jitter",
                       help="the demands' shape over time")
        c.add_argument("--bottleneck", choices=list(BOTTLENECK), default="network",
                       help="the resource that binds")
    a.add_argument("--views", type=_view, nargs="*", default=[], metavar="METHOD=VIEW",
                   help="what a method is told (default ti-mra)")
    a.add_argument("--steady", type=NATURAL, nargs=2, required=True, metavar=("FROM", "TO"),
                   help="the steady state's instants [FROM, TO), within the arrivals")
    a.add_argument("--every", type=COUNT, default=1, help="the series' step in instants")
    for out in ("series", "per-app", "summary", "rates"):
        a.add_argument(f"--{out}", type=output, required=True)
    b.add_argument("--out", type=output, required=True)
    run_step(p, step, argv)


def step(args):
    """The step `args.command`, its files written together or not at all; evaluate's
    summary, the file to report. The declared options (threads, the view, Packer's
    readings) reach it by name (options_of); its rows are stamped with the threads."""
    infra = Infrastructure(args.servers, per_rack=args.per_rack, racks_per_agg=args.racks_per_agg)
    options = options_of(args)
    stamp = {"servers": args.servers, "per_rack": args.per_rack,
             "racks_per_agg": args.racks_per_agg, "apps": args.apps, "arrival_rate": args.rate,
             "mapreduce": args.mapreduce, THREADS.name: options[THREADS.name],
             **({"temporal": args.temporal, "bottleneck": args.bottleneck,
                 "steady_from": args.steady[0], "steady_to": args.steady[1]}
                if args.command == "evaluate" else {}), **tidy.stamp()}
    if args.command == "sensitivity":
        rows = sensitivity(infra, args.apps, args.rate, args.mapreduce, args.seeds,
                           args.methods, temporal=args.temporal, bottleneck=args.bottleneck,
                           **options)
        tidy.write([{**row, **stamp} for row in rows], args.out)
        return None
    series, apps, summary, rates = evaluate(infra, args.apps, args.rate, args.mapreduce,
                                            args.seeds, args.methods, steady=tuple(args.steady),
                                            every=args.every, views=dict(args.views),
                                            temporal=args.temporal, bottleneck=args.bottleneck,
                                            **options)
    for table, path in ((series, args.series), (apps, args.per_app), (summary, args.summary),
                        (rates, args.rates)):
        tidy.write([{**row, **stamp} for row in table], path)
    return args.summary


if __name__ == "__main__":
    main()
