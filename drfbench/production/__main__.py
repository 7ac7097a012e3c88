"""python -m drfbench.production side-by-side --out results/<name>/production/... : the
production rules' pipeline step (workflows/rules/production.smk), writing tidy rows.

  side-by-side  the side-by-side scenario (sidebyside.py, drawn with --seed; or
                --scenario FILE) under every production rule, DRF (online), H-DRF and
                DRFH (compare.py says what each row measures)
"""
from argparse import BooleanOptionalAction

from .. import rows as tidy
from .._command import POSITIVE, run_step, steps
from .catalog import FIXED, HALF_LIFE_OPTION, MAX_TRES
from .compare import compare
from .sidebyside import side_by_side


def main(argv=None):
    p, sub = steps("production", "Production schedulers' fairness rules beside DRF, H-DRF "
                   "and DRFH on one scenario.",
                   {"side-by-side": "the scenario under every rule, DRF, H-DRF and DRFH"})
    a = sub["side-by-side"]
    a.add_argument("--scenario", help="a scenario file (YAML or JSON; default: the "
                   "side-by-side scenario drawn with --seed)")
    a.add_argument("--sample", type=POSITIVE, default=60.0, help="seconds between samples")
    a.add_argument("--series", type=POSITIVE, default=300.0, help="seconds between the "
                   "written samples of the series (shares, distances)")
    a.add_argument("--half-life", type=float, default=HALF_LIFE_OPTION.default,
                   help=HALF_LIFE_OPTION.description)
    for option in (MAX_TRES, FIXED):
        a.add_argument(f"--{option.name.replace('_', '-')}", action=BooleanOptionalAction,
                       default=option.default, help=option.description)
    run_step(p, step, argv)


def step(args):
    """The side-by-side rows, written when the run succeeds; what it wrote."""
    table = compare(args.scenario or side_by_side(args.seed), args.sample, args.series,
                    half_life=args.half_life, max_tres=args.max_tres, fixed=args.fixed)
    tidy.write(tidy.stamped(table, seed=args.seed), args.out)
    return f"{args.out} ({len(table)} rows)"


if __name__ == "__main__":
    main()
