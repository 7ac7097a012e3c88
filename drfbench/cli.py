"""The `drfbench` command, built from the registry (drfbench.api):

    drfbench methods [--family F] [--takes KIND] [--options]
                                                     the registered methods, or their options
    drfbench run METHOD INPUT... [--OPTION VALUE ...] [--out rows.csv]
                                                     a method on your own files: tidy rows
    drfbench bench ...                               the DC-DRF benchmark (drfbench.dcdrf.bench)
    drfbench claims [--table T] [--results DIR] [--out FILE] [--check] [--mutate N]
                    [--fingerprint] [--stability FILE --fresh DIR --seed-offset K]
                                                     REPRODUCTION.md from the claims table
    drfbench convert FORMAT INPUT... --out-servers S --out-tasks T [--machines FILE...]
                                                     a public trace to the trace kind's files

`run` reads the inputs with the reader of the method's input kind (one file per input, in
the kind's order), takes exactly the options the method takes (`--max-rounds 10`; values
are read by the option's declared type: numbers, inf, true/false, text, and comma lists
for the per-user `weights` and `tasks`), runs the method through drfbench.run and writes
the result's tidy rows (`result.rows()`, stamped) atomically to --out as they are produced (CSV, .csv.gz, .json
or .jsonl by the name: drfbench.rows.write), or a short table of the first of them to
stdout (control characters in its cells shown escaped). On a
terminal, a line with the elapsed time ticks on stderr while the inputs are read and the
method runs (no implementation reports its progress); at the end, one line on stderr says
how long each took. Bad input (a missing or malformed file, an unknown method or option, a bad value)
is one line on stderr and exit status 2, and no output file is written (drfbench._command,
the boundary every command line shares). docs/cli.md describes the input formats and the
rows.

`claims` renders REPRODUCTION.md from the claims table (drfbench.claims, docs/claims.md)
and the results it names, and lists on stderr every claim whose verdict by its rule is
not the one the table states; with --check it writes nothing and exits with status 1 when
--out differs from the rendering or a verdict disagrees. With --mutate N it renders nothing:
it gives each verdict over N perturbed copies of the results (claims.mutate) and lists
the claims whose verdict never moves (and say no `robust`) and the rules that raise,
exit status 1 when there is one. --fingerprint prints the hash of the table's rules
(claims.fingerprint); --stability FILE writes the stability report, each verdict on
--results beside the one on a run on fresh seeds (claims.stability).
"""
import argparse
import itertools
import sys
import threading
import time

from . import api
from . import rows as tidy
from ._command import Parser as _Parser
from ._command import boundary, output, printable
from ._io import replacing

BENCH = "dcdrf.bench:main"     # by name, as the registry names implementations

SHOWN_ROWS = 20                              # rows printed to stdout without --out
TICK_SECONDS = 1.0                           # how often the elapsed time ticks on a terminal
_INPUT = "input:"                            # prefix of the inputs' names in `run`'s namespace


def main(argv=None):
    """The `drfbench` command.

    Parameters
    ----------
    argv : list of str, optional
        Its arguments (default: the process's).

    Returns
    -------
    int
        The exit status: 0, or 2 for bad input (one line on stderr naming it).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["bench"]:               # its own options: drfbench.dcdrf.bench
            api.function(BENCH)(argv[1:])
            return 0
        args = _parser().parse_args(argv)
        with boundary("drfbench"):             # bad input: one line, status 2; no file
            return args.command(args)
    except SystemExit as exc:                   # argparse: --help, or a bad argument
        return exc.code


def _parser():
    p = _Parser(prog="drfbench", description="Multi-resource fair allocators, from the "
                "registry: list them, run one on your own files, benchmark DC-DRF.")
    sub = p.add_subparsers(dest="subcommand", required=True)
    m = sub.add_parser("methods", help="list the registered methods: family, input kind, "
                       "label, options and their defaults")
    m.add_argument("--family", choices=api.families())
    m.add_argument("--takes", choices=list(api.KINDS), help="only methods of this input kind")
    m.add_argument("--options", action="store_true", help="list their options instead, as "
                   "declared: type, default, bounds or choices, description")
    m.set_defaults(command=_methods)
    r = sub.add_parser("run", help="run a registered method on input files, write tidy rows",
                       description="drfbench run METHOD INPUT... [--OPTION VALUE ...] [--out "
                       "rows.csv]; `drfbench run METHOD --help` lists the method's inputs "
                       "and options.")
    r.add_argument("method", help="a registered method (drfbench methods)")
    r.add_argument("arguments", nargs=argparse.REMAINDER, metavar="INPUT... [--OPTION VALUE]",
                   help="the input files, in the order of the method's input kind; its options")
    r.set_defaults(command=_run)
    sub.add_parser("bench", add_help=False, help="the DC-DRF benchmark on one workload "
                   "(drfbench bench --help)")
    c = sub.add_parser("claims", help="render REPRODUCTION.md from the claims table and the "
                       "results it names (docs/claims.md)")
    c.add_argument("--table", default="reference/claims",
                   help="the claims table: a directory, one <paper>.yaml each")
    c.add_argument("--results", default="reference",
                   help="the directory the table's results files are under")
    c.add_argument("--out", help="write REPRODUCTION.md here (default: stdout)")
    c.add_argument("--check", action="store_true",
                   help="write nothing: exit status 1 when --out differs from the rendering "
                        "or a verdict disagrees with its rule")
    c.add_argument("--fingerprint", action="store_true",
                   help="print the claims table's fingerprint (a hash of its rules) and exit")
    c.add_argument("--stability", metavar="FILE",
                   help="render nothing: write the stability report (each verdict on --results "
                        "and on the run on fresh seeds under --fresh) to FILE")
    c.add_argument("--fresh", default="results", metavar="DIR",
                   help="with --stability: the directory holding <profile>-seeds<offset>/")
    c.add_argument("--seed-offset", type=int, default=1000, metavar="K",
                   help="with --stability: the fresh run's seed_offset (default 1000)")
    c.add_argument("--mutate", type=int, metavar="N",
                   help="render nothing: each verdict over N perturbed copies of the results; "
                        "exit status 1 when a verdict never moves or a rule raises")
    c.set_defaults(command=_claims)
    _convert_parser(sub)
    return p


# --------------------------------------------------------------------------------------
# drfbench methods
# --------------------------------------------------------------------------------------

def _methods(args):
    if args.options:
        _print_table(("option", "family", "type", "default", "bounds", "description"),
                     option_rows(api.methods(family=args.family, takes=args.takes)))
        return 0
    rows = []
    for name in api.methods(family=args.family, takes=args.takes):
        spec = api.method_info(name)
        options = ", ".join(f"{o}={d}" for o, d in spec.defaults().items())
        rows.append((name, spec.family, spec.takes, spec.label, options or "-"))
    _print_table(("method", "family", "takes", "label", "options (default)"), rows)
    print()
    _print_table(("takes", "drfbench run METHOD ..."),
                 [(k.name, " ".join(k.inputs)) for k in api.KINDS.values()
                  if args.takes in (None, k.name)])
    return 0


def option_rows(methods):
    """The options of registered methods, as text, per family, in name order.

    Parameters
    ----------
    methods : iterable of str
        Registered method names.

    Returns
    -------
    list of tuple
        One row per option: its name, family, type, default, bounds or choices,
        description.
    """
    declared = {(api.method_info(m).family, name): option
                for m in methods for name, option in api.method_info(m).options.items()}
    return [(option.name, family, option.type.__name__, str(option.default),
             option.bounds or ", ".join(option.choices) or "-", option.description)
            for (family, _), option in sorted(declared.items())]


def _print_table(header, rows):
    """`rows` (tuples of text) under `header`, each column as wide as its widest cell."""
    widths = [max(len(c) for c in column) for column in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


# --------------------------------------------------------------------------------------
# drfbench claims
# --------------------------------------------------------------------------------------

def _claims(args):
    from . import claims              # pandas and PyYAML: loaded by this subcommand only
    table = claims.load(args.table)
    if args.fingerprint:
        print(claims.fingerprint(table))
        return 0
    if args.stability:
        report = list(claims.stability(table, args.results, args.fresh, args.seed_offset))
        tidy.write(report, args.stability)
        print(f"drfbench claims: {sum(r['fresh'] != claims.NOT_RERUN for r in report)} of "
              f"{len(report)} verdicts rerun on fresh seeds, {sum(r['flipped'] for r in report)} "
              f"flipped: {args.stability}", file=sys.stderr)
        return 0
    if args.mutate is not None:
        if args.mutate < 1:
            raise ValueError(f"--mutate {args.mutate}: the number of copies is at least 1")
        fixed, raised = claims.mutate(table, args.results, args.mutate)
        for name in fixed:
            print(f"drfbench claims: claim {name}: its verdict never moves in {args.mutate} "
                  "perturbed copies (a rule that cannot fail; or say why in `robust` and show it move by `moves`)", file=sys.stderr)
        for name, error in raised:
            print(f"drfbench claims: claim {name}: its rule raises: {error}", file=sys.stderr)
        print(f"drfbench claims: {args.mutate} perturbed copies of {args.results}: {len(fixed)} "
              f"verdict(s) that never move, {len(raised)} rule(s) that raise", file=sys.stderr)
        return 1 if fixed or raised else 0
    outcomes = claims.evaluate_table(table, args.results)
    text = claims.render(table, outcomes, args.results)
    problems = claims.disagreements(outcomes)
    if args.check:
        if args.out is None:
            raise ValueError("--check compares with --out: name the file")
        with open(args.out) as f:
            if f.read() != text:
                problems.append(f"{args.out} is not the rendering of {args.table}: run "
                                f"drfbench claims --out {args.out}")
    elif args.out:
        with replacing(args.out) as tmp:
            tmp.write_text(text)
    else:
        sys.stdout.write(text)
    for line in problems:
        print(f"drfbench claims: {line}", file=sys.stderr)
    print(f"drfbench claims: {len(outcomes)} claims from {args.results}, "
          f"{len(problems)} disagreement(s)", file=sys.stderr)
    return 1 if args.check and problems else 0


# --------------------------------------------------------------------------------------
# drfbench convert
# --------------------------------------------------------------------------------------

def _convert_parser(sub):
    from . import traces
    from ._command import COUNT, input_file
    v = sub.add_parser("convert", help="a public trace (Google, Alibaba, Azure) to a servers "
                       "and a tasks file (docs/traces.md)",
                       description="drfbench convert FORMAT INPUT... --out-servers S "
                       "--out-tasks T [--machines FILE...] [--jobs FILE...] [--server "
                       "cpu=64,memory=512 --count N]")
    v.add_argument("format", choices=list(traces.FORMATS), metavar="FORMAT",
                   help=f"the trace's public format: {', '.join(traces.FORMATS)}")
    v.add_argument("inputs", nargs="+", type=input_file, metavar="INPUT",
                   help="the format's task table(s), its parts in order (.gz read as gzip)")
    v.add_argument("--machines", nargs="+", type=input_file, default=[], metavar="FILE",
                   help="the format's machines table(s)")
    v.add_argument("--jobs", nargs="+", type=input_file, default=[], metavar="FILE",
                   help="the format's job table(s) (google-2019: collection_events; "
                        "alibaba-gpu-2020: pai_job_table)")
    v.add_argument("--server", type=_server, metavar="RESOURCE=CAPACITY,...",
                   help="the servers' size, for a format without a machines table (azure-vm)")
    v.add_argument("--count", type=COUNT, help="how many servers of that size")
    v.add_argument("--out-servers", type=output, required=True, metavar="S",
                   help="the servers file to write (CSV: a capacity column per resource, count)")
    v.add_argument("--out-tasks", type=output, required=True, metavar="T",
                   help="the tasks file to write (CSV: user, job, arrival, duration, demands)")
    v.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    v.set_defaults(command=_convert)


def _server(text):
    """RESOURCE=CAPACITY,... as a dict, each capacity a number."""
    size = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            size[name.strip()] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be RESOURCE=CAPACITY,..., got {text!r}") from None
    return size


def _convert(args):
    from . import traces
    traces.convert(args.format, args.inputs, args.out_servers, args.out_tasks,
                   machines=args.machines, jobs=args.jobs, server=args.server,
                   count=args.count,
                   progress=None if args.quiet else traces.Progress(f"drfbench convert {args.format}"))
    return 0


# --------------------------------------------------------------------------------------
# drfbench run
# --------------------------------------------------------------------------------------

def _run(args):
    spec = api.method_info(args.method)
    kind = api.KINDS[spec.takes]
    parser = _run_parser(spec, kind)
    given, unknown = parser.parse_known_args(args.arguments)
    flags = [u.split("=")[0] for u in unknown if u.startswith("--")]
    if flags:                               # the registry's refusal, naming its options
        spec.checked({f.removeprefix("--").replace("-", "_"): None for f in flags})
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    options = {o: v for o, v in vars(given).items() if o in spec.options}
    paths = [vars(given)[_INPUT + name] for name in kind.inputs]
    if given.out:
        tidy.format_of(given.out)           # a format it cannot write: refused before running
    files = ", ".join(paths)
    (inputs, labels), reading = _timed(f"reading {files}", lambda: kind.read(*paths, names=True))
    result, running = _timed(f"running {spec.name}",
                             lambda: _of_files(lambda: api.run(spec.name, *inputs, **options),
                                               kind.inputs, paths))
    rows = result.rows(**{f"{name}_file": path for name, path in zip(kind.inputs, paths)})
    if labels is not None:                  # the rows name the file's rows as it names them
        rows = ({**row, kind.names: labels[row[kind.names]]} for row in rows)
    written = itertools.count()             # counts the rows as the writer takes them
    if given.out:
        tidy.write((row for row, _ in zip(rows, written)), given.out)
    else:
        _print_rows(rows)
    print(printable(f"drfbench: read {files} in {reading:.2f} s, ran {spec.name} in "
                    f"{running:.2f} s" + (f", wrote {next(written)} rows to {given.out}"
                                          if given.out else "")), file=sys.stderr)
    return 0


def _of_files(call, names, paths):
    """call(), a ValueError that names an input first (`tasks: ...`) said of the file given
    for it (`t.csv (tasks): ...`): the run's errors in the user's terms."""
    try:
        return call()
    except ValueError as exc:
        name, said, rest = str(exc).partition(": ")
        if said and name in names:
            raise ValueError(f"{paths[names.index(name)]} ({name}): {rest}") from exc
        raise


def _run_parser(spec, kind):
    """The parser of `drfbench run METHOD`'s arguments: the kind's inputs, --out and one
    --option per option the method takes (absent unless given: the implementation's
    default applies)."""
    p = _Parser(prog=f"drfbench run {spec.name}",
                description=f"{spec.label} ({spec.family}): {spec.summary}. Input kind "
                f"{kind.name!r}, read by drfbench.{kind.reader.replace(':', '.')}; the formats "
                "are in docs/cli.md.")
    for name in kind.inputs:
        p.add_argument(_INPUT + name, metavar=name, help=f"the {name} file")
    p.add_argument("--out", type=output, help="write the rows to this file (atomically), in "
                   f"the format its name ends in: {', '.join(tidy.FORMATS)}; default: a short "
                   "table on stdout")
    for name, option in spec.options.items():
        flags = dict.fromkeys([f"--{name.replace('_', '-')}", f"--{name}"])
        bounds = option.bounds or ", ".join(option.choices)
        p.add_argument(*flags, dest=name, type=_converter(option), default=argparse.SUPPRESS,
                       metavar=name.upper(), help=f"{option.description}; default: "
                       f"{option.default}" + (f"; {bounds}" if bounds else "") +
                       (" (comma list; inf for unbounded)" if option.type is list else ""))
    return p


def _converter(option):
    """How an option's text becomes its value (by its declared type): a comma list of
    numbers for a list, true/false for a bool, else a number where the text is one (inf
    included) and the text itself otherwise."""
    if option.type is list:
        return lambda text: [_number(x) for x in text.split(",")]
    if option.type is bool:
        return _boolean
    return _number_or_text


def _number(text):
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if value != value:                      # NaN: no option means anything by it
            raise argparse.ArgumentTypeError(f"{text!r} is not a number")
        return value
    raise argparse.ArgumentTypeError(f"{text!r} is not a number")


def _number_or_text(text):
    try:
        return _number(text)
    except argparse.ArgumentTypeError:
        return text


def _boolean(text):
    value = {"true": True, "yes": True, "1": True, "false": False, "no": False,
             "0": False}.get(text.lower())
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not true or false")
    return value


def _timed(doing, call):
    """(call()'s result, the seconds it took). On a terminal, a line saying what it is
    `doing` ticks with the elapsed time on stderr meanwhile, erased when it ends."""
    start = time.perf_counter()
    stop = threading.Event()
    ticker = None
    if sys.stderr.isatty():
        ticker = threading.Thread(target=_tick, args=(doing, start, stop), daemon=True)
        ticker.start()
    try:
        result = call()
    finally:
        if ticker is not None:
            stop.set()
            ticker.join()
            sys.stderr.write("\r\x1b[K")
    return result, time.perf_counter() - start


def _tick(doing, start, stop):
    while not stop.wait(TICK_SECONDS):
        sys.stderr.write(f"\rdrfbench: {doing} ... {time.perf_counter() - start:.0f} s")
        sys.stderr.flush()


def _print_rows(rows):
    """The first SHOWN_ROWS rows as a table, without the provenance stamp: only those rows
    (and one more, to tell whether there are more) are produced."""
    first = list(itertools.islice(rows, SHOWN_ROWS + 1))
    columns = [c for c in tidy.columns_of(first) if c not in tidy.PROVENANCE_NAMES]
    _print_table([printable(c) for c in columns],
                 [tuple(_cell(row.get(c)) for c in columns) for row in first[:SHOWN_ROWS]])
    if len(first) > SHOWN_ROWS:
        print("... and more rows (--out FILE writes them all)")


def _cell(value):
    """A value as the table shows it: control characters escaped (`printable`)."""
    if value is None:
        return "-"
    return f"{value:.6g}" if isinstance(value, float) else printable(str(value))
