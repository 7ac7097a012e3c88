"""python -m drfbench.drfh {examples,properties} --out results/<name>/drfh/... : the DRFH
family's pipeline steps (workflows/rules/drfh_exact.smk), each writing tidy rows.

  examples    the paper's Fig. 1 example: DRFH against per-server DRF (examples.py)
  properties  Pareto optimality, envy-freeness, truthfulness, single-server DRF and the
              dedicated-cloud sharing incentive on random heterogeneous instances
              (drfbench.properties), counterexamples listed
"""
import argparse
import sys

from .. import properties as props
from .. import rows as tidy
from .examples import example_rows

POLICIES = ["drfh", "per-server-drf"]


def examples(args):
    return [{**row, **tidy.stamp()} for row in example_rows()]


def properties(args):
    if args.instances < 1 or not 0 <= args.zeros < 1:
        raise SystemExit("--instances must be >= 1 and --zeros in [0, 1)")
    rows = props.server_property_table(args.policies, args.instances, args.seed,
                                       zeros=args.zeros, progress=sys.stderr)
    stamp = {"instances": args.instances, "seed": args.seed, **tidy.stamp()}
    return [{**row, **stamp} for row in rows]


# subcommand -> (help, function of the parsed arguments returning rows, extra arguments)
COMMANDS = {
    "examples": ("the paper's Fig. 1 example, DRFH against per-server DRF", examples, []),
    "properties": ("DRFH's properties on random heterogeneous instances", properties, [
        (("--instances",), dict(type=int, default=200, help="random instances per check")),
        (("--seed",), dict(type=int, default=0)),
        (("--zeros",), dict(type=float, default=0.2, help="fraction of zero demands")),
        (("--policies",), dict(nargs="+", default=POLICIES, choices=POLICIES)),
    ]),
}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m drfbench.drfh",
                                description="DRFH (heterogeneous servers): the pipeline's steps.")
    sub = p.add_subparsers(dest="command", required=True)
    for name, (text, _, extra) in COMMANDS.items():
        a = sub.add_parser(name, help=text)
        a.add_argument("--out", required=True, help="the rows (CSV)")
        for flags, options in extra:
            a.add_argument(*flags, **options)
    args = p.parse_args(argv)
    tidy.exit_on_sigterm()
    tidy.write(COMMANDS[args.command][1](args), args.out)
    print(f"drfh {args.command} -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
