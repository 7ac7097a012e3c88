"""python -m drfbench.production side-by-side --out results/<name>/production/... : the
production rules' pipeline step (workflows/rules/production.smk), writing tidy rows.

  side-by-side  the side-by-side scenario (sidebyside.py, drawn with --seed; or
                --scenario FILE) under every production rule, DRF (online), H-DRF and
                DRFH (compare.py says what each row measures)
  preemption    the rules that preempt swept over their settings: time to fair share
                against the work evictions threw away (tradeoff.py)
"""
from argparse import BooleanOptionalAction

from .. import rows as tidy
from .._command import NATURAL, NONNEGATIVE, POSITIVE, run_step, steps
from .catalog import FIXED, HALF_LIFE_OPTION, MAX_TRES, RATE_INTERVAL
from .compare import compare
from .sidebyside import side_by_side
from .tradeoff import PROTECTED_FRACTIONS, sweep


def main(argv=None):
    p, sub = steps("production", "Production schedulers' fairness rules beside DRF, H-DRF "
                   "and DRFH on one scenario.",
                   {"side-by-side": "the scenario under every rule, DRF, H-DRF and DRFH",
                    "preemption": "Kueue's strategies and Armada's protected fractions, "
                                  "with and without a rate limit"})
    a = sub["side-by-side"]
    a.add_argument("--scenario", help="a scenario file (YAML or JSON; default: the "
                   "side-by-side scenario drawn with --seed)")
    a.add_argument("--sample", type=POSITIVE, default=60.0, help="seconds between samples")
    a.add_argument("--half-life", type=float, default=HALF_LIFE_OPTION.default,
                   help=HALF_LIFE_OPTION.description)
    for option in (MAX_TRES, FIXED):
        a.add_argument(f"--{option.name.replace('_', '-')}", action=BooleanOptionalAction,
                       default=option.default, help=option.description)
    b = sub["preemption"]
    b.add_argument("--scenario", help="a scenario file (default: the side-by-side scenario "
                   "drawn with --seed)")
    b.add_argument("--fractions", type=NONNEGATIVE, nargs="+", default=PROTECTED_FRACTIONS,
                   help="Armada's protected fractions swept")
    b.add_argument("--rate-limits", type=NATURAL, nargs="+", default=[0, 4],
                   help="evictions per --rate-interval swept (0: no limit)")
    b.add_argument("--rate-interval", type=POSITIVE, default=RATE_INTERVAL.default,
                   help=RATE_INTERVAL.description)
    b.add_argument("--sample", type=POSITIVE, default=10.0, help="seconds between samples")
    run_step(p, lambda args: STEPS[args.command](args), argv)


def preemption(args):
    """The preemption sweep's rows (tradeoff.sweep), written when it succeeds."""
    table = sweep(args.scenario or side_by_side(args.seed),
                  protected_fractions=tuple(args.fractions),
                  rate_limits=tuple(n or None for n in args.rate_limits),
                  rate_interval=args.rate_interval, sample=args.sample)
    tidy.write(tidy.stamped(table, seed=args.seed), args.out)
    return f"{args.out} ({len(table)} rows)"


def step(args):
    """The side-by-side rows, written when the run succeeds; what it wrote."""
    table = compare(args.scenario or side_by_side(args.seed), args.sample,
                    half_life=args.half_life, max_tres=args.max_tres, fixed=args.fixed)
    tidy.write(tidy.stamped(table, seed=args.seed), args.out)
    return f"{args.out} ({len(table)} rows)"


STEPS = {"side-by-side": step, "preemption": preemption}

if __name__ == "__main__":
    main()
