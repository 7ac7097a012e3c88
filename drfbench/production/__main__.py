"""python -m drfbench.production side-by-side --out results/<name>/production/... : the
production rules' pipeline step (workflows/rules/production.smk), writing tidy rows.

  side-by-side  the side-by-side scenario (sidebyside.py, drawn with --seed; or
                --scenario FILE) under every production rule, DRF (online), H-DRF and
                DRFH (compare.py says what each row measures)
  preemption    the rules that preempt swept over their settings: time to fair share
                against the work evictions threw away (tradeoff.py)
"""
from .. import rows as tidy
from .._command import NATURAL, NONNEGATIVE, POSITIVE, options_of, run_step, steps
from .catalog import STEP_OPTIONS
from .compare import compare
from .sidebyside import side_by_side
from .tradeoff import PROTECTED_FRACTIONS, sweep


def main(argv=None):
    p, sub = steps("production", "Production schedulers' fairness rules beside DRF, H-DRF "
                   "and DRFH on one scenario.",
                   {"side-by-side": "the scenario under every rule, DRF, H-DRF and DRFH",
                    "preemption": "Kueue's strategies and Armada's protected fractions, "
                                  "with and without a rate limit"},
                   options=STEP_OPTIONS)
    a = sub["side-by-side"]
    a.add_argument("--scenario", help="a scenario file (YAML or JSON; default: the "
                   "side-by-side scenario drawn with --seed)")
    a.add_argument("--sample", type=POSITIVE, default=60.0, help="seconds between samples")
    a.add_argument("--series", type=POSITIVE, default=300.0, help="seconds between the "
                   "written samples of the series (shares, distances)")
    b = sub["preemption"]
    b.add_argument("--scenario", help="a scenario file (default: the side-by-side scenario "
                   "drawn with --seed)")
    b.add_argument("--fractions", type=NONNEGATIVE, nargs="+", default=PROTECTED_FRACTIONS,
                   help="Armada's protected fractions swept")
    b.add_argument("--rate-limits", type=NATURAL, nargs="+", default=[0, 4],
                   help="evictions per rate interval swept (0: no limit)")
    b.add_argument("--sample", type=POSITIVE, default=10.0, help="seconds between samples")
    run_step(p, lambda args: STEPS[args.command](args), argv)


def preemption(args):
    """The preemption sweep's rows (tradeoff.sweep), written when it succeeds; its declared
    option (rate_interval) by name."""
    table = sweep(args.scenario or side_by_side(args.seed),
                  protected_fractions=tuple(args.fractions),
                  rate_limits=tuple(n or None for n in args.rate_limits),
                  sample=args.sample, **options_of(args))
    tidy.write(tidy.stamped(table, seed=args.seed), args.out)
    return f"{args.out} ({len(table)} rows)"


def step(args):
    """The side-by-side rows, written when the run succeeds; what it wrote. The declared
    options (the rules') reach it by name (options_of)."""
    table = compare(args.scenario or side_by_side(args.seed), args.sample, args.series,
                    **options_of(args))
    tidy.write(tidy.stamped(table, seed=args.seed), args.out)
    return f"{args.out} ({len(table)} rows)"


STEPS = {"side-by-side": step, "preemption": preemption}

if __name__ == "__main__":
    main()
