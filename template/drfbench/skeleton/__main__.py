"""python -m drfbench.skeleton share --users N --resources M --out rows.csv: the skeleton
family's pipeline step (workflows/rules/skeleton.smk), the method on random demands."""
import sys

import numpy as np

from .. import rows as tidy
from .._command import COUNT, NATURAL, Parser, output, run
from .catalog import SCALE
from .shares import share


def main(argv=None):
    p = Parser(prog="python -m drfbench.skeleton", description="The skeleton family's step.")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("share", help="equal dominant shares on random demands")
    a.add_argument("--users", type=COUNT, required=True)
    a.add_argument("--resources", type=COUNT, required=True)
    a.add_argument("--scale", type=float, default=SCALE.default, help=SCALE.description)
    a.add_argument("--seed", type=NATURAL, default=0)
    a.add_argument("--out", type=output, required=True)
    run(p, step, argv)


def step(args):
    """The step: uniform random demands in (0, 1], the method, its rows written."""
    demands = 1 - np.random.default_rng(args.seed).random((args.users, args.resources))
    table = share(demands, scale=args.scale).rows(seed=args.seed)
    tidy.write(table, args.out)
    print(f"skeleton {args.command} -> {args.out} ({len(table)} rows)", file=sys.stderr)


if __name__ == "__main__":
    main()
