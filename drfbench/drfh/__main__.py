"""python -m drfbench.drfh <step> ...: the DRFH family's pipeline steps
(workflows/rules/drfh_*.smk), each writing tidy rows; the declared options a step takes
(horizon, sample, slots, slot_model) are its flags, from the catalog's STEP_OPTIONS and
STEP_SWEEPS (_command.steps).

Exact DRFH and its properties:
  examples      the paper's Fig. 1 example: DRFH against per-server DRF (examples.py)
  properties    Propositions 1 to 7 (Pareto optimality, envy-freeness, truthfulness,
                single-server DRF, single-resource and bottleneck fairness, population
                monotonicity) and the dedicated-cloud sharing incentive on random
                heterogeneous instances (properties.py), counterexamples listed
Trace methods (discrete schedulers) on traces:
  convert alibaba|google  the generic trace format from the vendored data (trace.py)
  dynamic       Fig. 4: three users joining on 100 servers, Best-Fit (or --method
                First-Fit): shares over time beside the exact DRFH shares of the users
                present, and the phases' mean shares beside the paper's
  run           one method on a trace: utilization over time (Fig. 5), the job table
                (Fig. 6), per-user task completion (Fig. 7)
  slots-search  Table II: mean utilization for each number of slots per maximum server
  sharing       Fig. 8: each user's task completion ratio on its dedicated cloud, beside
                the shared cloud's (a `run`'s per-user table)
  sensitivity   Table II and Figs. 5-7 of one trace under each slot model, compact
                (sensitivity.py)
"""
import argparse
import sys

import numpy as np

from .. import api
from .. import rows as tidy
from .._command import (COUNT, NATURAL, NONNEGATIVE, POSITIVE, PROPER_FRACTION, SHARE,
                        input_file, number, options_of, output, run_step, steps)
from .._io import replacing
from .catalog import SERVERS, SLOTS, STEP_OPTIONS, STEP_SWEEPS, TRACE
from .exact import allocate
from .examples import example_rows
from .per_server import MAX_K, utilization_rows
from .properties import CHECKS
from .sensitivity import under_each
from .simulation import (DYNAMIC_USERS, dynamic_phases, dynamic_workload, run_tables,
                         sharing, simulate, slots_search)
from .trace import alibaba_tasks, google_servers, read_frame

SERVER_METHODS = list(api.methods(takes=SERVERS))
TRACE_METHODS = list(api.methods(takes=TRACE))


def examples(args):
    return [{**row, **tidy.stamp()} for row in example_rows()]


def properties(args):
    rows = [row for zeros in args.zeros
            for row in CHECKS.table(args.methods, args.instances, args.seed, zeros=zeros,
                                    progress=sys.stderr)]
    stamp = {"instances": args.instances, "seed": args.seed, **tidy.stamp()}
    return [{**row, **stamp} for row in rows]


def per_server(args):
    return [{**row, **tidy.stamp()} for row in utilization_rows(args.ks)]


# subcommand -> (help, function of the parsed arguments returning rows, extra arguments)
COMMANDS = {
    "examples": ("the paper's Fig. 1 example, DRFH against per-server DRF", examples, []),
    "properties": ("DRFH's properties on random heterogeneous instances", properties, [
        (("--instances",), dict(type=COUNT, default=200, help="random instances per check")),
        (("--seed",), dict(type=NATURAL, default=0)),
        (("--zeros",), dict(type=PROPER_FRACTION, nargs="+", default=[0.0, 0.2],
                            help="fractions of zero demands, one table each (0: every user "
                                 "demands every resource, the paper's assumption)")),
        (("--methods",), dict(nargs="+", default=SERVER_METHODS, choices=SERVER_METHODS)),
    ]),
    "per-server": ("Sec. III-D: per-server DRF's utilization falling with k, DRFH's",
                   per_server, [(("--ks",), dict(type=number(int, low=2, high=MAX_K), nargs="+",
                                                 required=True, help="the family's k, a row "
                                                 "per method each"))]),
}


def exact_shares(rows, servers, jobs):
    """Fig. 4's exact DRFH beside Best-Fit: `rows` (a result's streamed Rows) with
    `exact_share` added to each, as they are made: on a share row the user's global
    dominant share under exact DRFH (divisible, unlimited tasks) among the users whose job
    is running at that time (submitted, not finished), NaN for others; empty on other rows."""
    labels = [label for label, *_ in DYNAMIC_USERS]
    demands = np.array([demand for _, demand, *_ in DYNAMIC_USERS])
    span = jobs.set_index("user")[["submit", "finish"]]
    cache = {}

    def exact(row):
        if row["metric"] != "share":
            return None
        t = row["time"]
        present = tuple(u for u in labels if span.loc[u, "submit"] <= t
                        and not span.loc[u, "finish"] <= t)
        if present not in cache:
            idx = [labels.index(u) for u in present]
            shares = allocate(demands[idx], servers.to_numpy(), "drfh").shares if idx else []
            cache[present] = dict(zip(present, np.asarray(shares, dtype=float).tolist()))
        return cache[present].get(row["user"], np.nan)
    return tidy.Rows(lambda: ({**row, "exact_share": exact(row)} for row in rows))


def slots_table(text):
    """--slots-from: a slots-search table (its `slots` column, a mean utilization column
    per resource), read when the arguments are parsed."""
    input_file(text)
    try:
        table = read_frame(text, "slots-search")[0]
    except ValueError as exc:                   # names the file, the line
        raise argparse.ArgumentTypeError(str(exc)) from None
    if SLOTS.name not in table.columns or len(table) == 0:
        raise argparse.ArgumentTypeError(f"{text} is not a slots-search table (rows with a "
                                         f"{SLOTS.name!r} column and one per resource)")
    return table


def shared_table(text):
    """--shared: a run's per-user table (`user`, `ratio`), read when the arguments are parsed."""
    input_file(text)
    try:
        table = read_frame(text, "per-user", labels=("user",))[0]
    except ValueError as exc:                   # names the file, the line
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not {"user", "ratio"} <= set(table.columns):
        raise argparse.ArgumentTypeError(f"{text} is not a run's per-user table (run --users: "
                                         "columns 'user' and 'ratio')")
    return table.set_index("user")


def parser():
    p, sub = steps("drfh", "DRFH (heterogeneous servers): the pipeline's steps.",
                   {**{name: text for name, (text, _, _) in COMMANDS.items()},
                    "convert": "write the generic trace format", "dynamic": "Fig. 4",
                    "run": "one method on a trace (Figs. 5-7)", "slots-search": "Table II",
                    "sharing": "Fig. 8",
                    "sensitivity": "Table II and Figs. 5-7 under each slot model"},
                   flags=("out",), options=STEP_OPTIONS, sweeps=STEP_SWEEPS)
    for name, (_, _, extra) in COMMANDS.items():
        for flags, options in extra:
            sub[name].add_argument(*flags, **options)
    c = sub["convert"]
    c.add_argument("source", choices=["alibaba", "google"])
    c.add_argument("--seed", type=NATURAL, default=0)
    c.add_argument("--servers", type=COUNT, default=2000, help="google: servers to draw")
    c.add_argument("--users", type=COUNT, default=100, help="alibaba: users the jobs go to")
    c.add_argument("--skew", type=NONNEGATIVE, default=1.0, help="alibaba: Zipf exponent of users")
    c.add_argument("--fraction", type=SHARE, default=1.0, help="alibaba: fraction of jobs kept")
    c.add_argument("--cores", type=POSITIVE, default=96.0, help="alibaba: cores of a size-1 server")
    c.add_argument("--task-scale", type=POSITIVE, default=1.0,
                   help="alibaba: every task's demands times this")
    d = sub["dynamic"]
    d.add_argument("--summary", type=output, required=True)
    d.add_argument("--seed", type=NATURAL, default=0)
    d.add_argument("--servers", type=COUNT, default=100)
    d.add_argument("--method", choices=[s for s in TRACE_METHODS if s != "drfh-slots"],
                   default="drfh-best-fit", help="the paper's Best-Fit, or First-Fit beside it")
    for name in ("run", "slots-search", "sharing", "sensitivity"):
        a = sub[name]
        a.add_argument("--servers", type=input_file, required=True,
                       help="servers CSV (generic format)")
        a.add_argument("--tasks", type=input_file, required=True, help="tasks CSV (generic format)")
        a.add_argument("--seed", type=NATURAL, default=0)
    a = sub["run"]
    a.add_argument("--method", choices=TRACE_METHODS, default="drfh-best-fit")
    a.add_argument("--slots-from", type=slots_table,
                   help="take the best k of this slots-search table")
    a.add_argument("--jobs", type=output, required=True, help="the job table")
    a.add_argument("--users", type=output, required=True, help="per-user task completion")
    sub["sensitivity"].add_argument("--task-scale", type=POSITIVE, default=1.0,
                                    help="the tasks' scale (recorded in the rows)")
    a = sub["sharing"]
    a.add_argument("--shared", type=shared_table, required=True,
                   help="the shared run's per-user table (run --users)")
    a.add_argument("--method", choices=TRACE_METHODS, default="drfh-best-fit")
    return p


def main(argv=None):
    run_step(parser(), step, argv)


def step(args):
    """The step `args.command`, its files written together or not at all; the declared
    options it takes reach it by name (options_of)."""
    options = options_of(args)
    if args.command in COMMANDS:
        tidy.write(COMMANDS[args.command][1](args), args.out)
    elif args.command == "convert":
        if args.source == "google":
            frame = google_servers(args.servers, seed=args.seed)
        else:
            frame = alibaba_tasks(users=args.users, skew=args.skew, fraction=args.fraction,
                                  seed=args.seed, cores=args.cores, task_scale=args.task_scale)
        with replacing(args.out) as tmp:       # the generic format: a plain CSV, no stamp
            frame.to_csv(tmp, index=False)
    elif args.command == "dynamic":
        servers, tasks = dynamic_workload(args.seed, args.servers)
        res = simulate(servers, tasks, args.method, **options)
        keys = {"seed": args.seed, "servers": args.servers,
                "pool": " ".join(f"{v:g}" for v in servers.sum().round(4))}
        tidy.write(exact_shares(res.rows(**keys), servers, res.jobs), args.out)
        tidy.write([{**row, **keys, **tidy.stamp()} for row in dynamic_phases(res)],
                   args.summary)
    elif args.command == "run":
        rates, jobs, users = run_tables(args.servers, args.tasks, args.method, seed=args.seed,
                                        slots_from=args.slots_from, **options)
        for table, out in ((rates, args.out), (jobs, args.jobs), (users, args.users)):
            tidy.write(table, out)
    elif args.command == "slots-search":
        tidy.write(slots_search(args.servers, args.tasks, progress=sys.stderr, **options),
                   args.out)
    elif args.command == "sensitivity":
        tidy.write(under_each(args.servers, args.tasks, task_scale=args.task_scale,
                              seed=args.seed, **options), args.out)
    else:
        tidy.write(sharing(args.servers, args.tasks, args.shared, args.method,
                           seed=args.seed, **options), args.out)


if __name__ == "__main__":
    main()
