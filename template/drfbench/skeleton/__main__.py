"""python -m drfbench.skeleton share --users N --resources M --out rows.csv: the skeleton
family's pipeline step (workflows/rules/skeleton.smk), the method on random demands; the
method's declared options are the step's flags (catalog.STEP_OPTIONS, _command.steps)."""
import numpy as np

from .. import rows as tidy
from .._command import COUNT, options_of, run_step, steps
from .catalog import STEP_OPTIONS
from .shares import share


def main(argv=None):
    p, sub = steps("skeleton", "The skeleton family's step.",
                   {"share": "equal dominant shares on random demands"}, options=STEP_OPTIONS)
    sub["share"].add_argument("--users", type=COUNT, required=True)
    sub["share"].add_argument("--resources", type=COUNT, required=True)
    run_step(p, step, argv)


def step(args):
    """The step: uniform random demands in (0, 1], the method with its options as given,
    its rows written; what it wrote."""
    demands = 1 - np.random.default_rng(args.seed).random((args.users, args.resources))
    table = share(demands, **options_of(args)).rows(seed=args.seed)
    tidy.write(table, args.out)
    return f"{args.out} ({len(table)} rows)"


if __name__ == "__main__":
    main()
