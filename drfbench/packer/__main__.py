"""python -m drfbench.packer evaluate --series ... --per-app ... --summary ... --rates ... :
the Packer family's pipeline step (workflows/rules/packer.smk), writing tidy rows: every
policy on the same seeded workloads on the paper's tree (evaluation.py, Figs. 3-8)."""
import argparse
import sys

from .. import rows as tidy
from ..api import APPLICATIONS, methods
from .evaluation import evaluate
from .model import Infrastructure


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m drfbench.packer",
                                description="Packer, Tetris and slots: the paper's evaluation.")
    sub = p.add_subparsers(dest="command", required=True)
    policies = list(methods(takes=APPLICATIONS))
    a = sub.add_parser("evaluate", help="every policy on seeded workloads (Figs. 3-8)")
    a.add_argument("--policies", nargs="+", default=policies, choices=policies)
    a.add_argument("--servers", type=int, default=1200)
    a.add_argument("--per-rack", type=int, default=40)
    a.add_argument("--racks-per-agg", type=int, default=10)
    a.add_argument("--apps", type=int, default=2000, help="applications per run")
    a.add_argument("--rate", type=float, default=40.0, help="applications per time instant")
    a.add_argument("--mapreduce", type=float, default=0.5, help="fraction of MapReduce jobs")
    a.add_argument("--seeds", type=int, nargs="+", default=[0])
    a.add_argument("--threads", type=int, default=1, help="OpenMP threads of the scoring")
    for out in ("series", "per-app", "summary", "rates"):
        a.add_argument(f"--{out}", required=True)
    args = p.parse_args(argv)
    tidy.exit_on_sigterm()
    if min(args.servers, args.per_rack, args.racks_per_agg, args.apps, args.threads) < 1 or args.rate <= 0:
        p.error("--servers, --per-rack, --racks-per-agg, --apps, --threads >= 1 and --rate > 0")
    infra = Infrastructure(args.servers, per_rack=args.per_rack, racks_per_agg=args.racks_per_agg)
    series, apps, summary, rates = evaluate(infra, args.apps, args.rate, args.mapreduce,
                                            args.seeds, args.policies, args.threads)
    stamp = {"servers": args.servers, "per_rack": args.per_rack,
             "racks_per_agg": args.racks_per_agg, "apps": args.apps, "arrival_rate": args.rate,
             "mapreduce": args.mapreduce, "threads": args.threads, **tidy.stamp()}
    for table, path in ((series, args.series), (apps, args.per_app), (summary, args.summary),
                        (rates, args.rates)):
        tidy.write([{**row, **stamp} for row in table], path)
    print(f"packer evaluate -> {args.summary}", file=sys.stderr)


if __name__ == "__main__":
    main()
