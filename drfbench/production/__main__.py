"""python -m drfbench.production side-by-side --out results/<name>/production/... : the
production rules' pipeline step (workflows/rules/production.smk), writing tidy rows.

  side-by-side  the side-by-side scenario (sidebyside.py, drawn with --seed; or
                --scenario FILE) under every production rule, DRF (online), H-DRF and
                DRFH (compare.py says what each row measures)
"""
from .. import rows as tidy
from .._command import POSITIVE, options_of, run_step, steps
from .catalog import STEP_OPTIONS
from .compare import compare
from .sidebyside import side_by_side


def main(argv=None):
    p, sub = steps("production", "Production schedulers' fairness rules beside DRF, H-DRF "
                   "and DRFH on one scenario.",
                   {"side-by-side": "the scenario under every rule, DRF, H-DRF and DRFH"},
                   options=STEP_OPTIONS)
    a = sub["side-by-side"]
    a.add_argument("--scenario", help="a scenario file (YAML or JSON; default: the "
                   "side-by-side scenario drawn with --seed)")
    a.add_argument("--sample", type=POSITIVE, default=60.0, help="seconds between samples")
    a.add_argument("--series", type=POSITIVE, default=300.0, help="seconds between the "
                   "written samples of the series (shares, distances)")
    run_step(p, step, argv)


def step(args):
    """The side-by-side rows, written when the run succeeds; what it wrote. The declared
    options (the rules') reach it by name (options_of)."""
    table = compare(args.scenario or side_by_side(args.seed), args.sample, args.series,
                    **options_of(args))
    tidy.write(tidy.stamped(table, seed=args.seed), args.out)
    return f"{args.out} ({len(table)} rows)"


if __name__ == "__main__":
    main()
