"""The command line's one boundary, shared by every `python -m drfbench.<family> <step>`,
every `drfbench` subcommand and `python -m drfbench.rows`:

    p = Parser(prog="python -m drfbench.drfh")           # argparse; errors: one line, status 2
    a.add_argument("--span", type=POSITIVE)             # refused by the parser unless > 0, finite
    a.add_argument("--out", type=output, required=True) # refused unless it can be written
    a.add_argument("--tasks", type=input_file)          # refused unless it is a file
    return run(p, body, argv)                           # body(args): the step

A family's pipeline steps build their parser with `steps` (a subparser per step, the common
--out and --seed) and run with `run_step` (the same boundary, then the one-line report).

`run` parses, then runs the step inside `boundary`: an error of bad input (a ValueError,
TypeError or OSError: a missing or malformed file, a bad value, an unwritable path; a
kernel variant this machine cannot run) is one line on stderr, `PROG: error: ...`, and
exit status 2; and every file the step writes (through drfbench._io.replacing, as
drfbench.rows.write does) is put in place only when the step succeeds
(drfbench._io.transaction), so that a failed or interrupted step (SIGTERM, Ctrl-C)
leaves nothing new behind: it says so in one line and exits with status 128 + the
signal's number (130 for Ctrl-C, 143 for SIGTERM). A message's control characters (a file
name's ANSI escapes) are shown escaped, never sent to the terminal. DRFBENCH_TRACEBACK=1
lets the exception through, traceback and all, for debugging.
"""
import argparse
import math
import os
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from . import _io, _isa

# What bad input raises: a reader's or a check's error (a kernel variant this machine cannot
# run or that was not built among them), a missing or unwritable file.
BAD_INPUT = (ValueError, TypeError, OSError)
BAD_INPUT_STATUS = 2
TRACEBACK = "DRFBENCH_TRACEBACK"


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line on stderr (no usage), exit status 2; its
    subparsers are Parsers too."""

    def error(self, message):
        """Exit with status 2 after `PROG: error: message` on one line (no usage).

        Parameters
        ----------
        message : str
            The parser's complaint.
        """
        self.exit(BAD_INPUT_STATUS, f"{self.prog}: error: {one_line(message)}\n")


def one_line(exc):
    """An exception's (or a message's) text on one line: every run of whitespace, line
    breaks and form feeds included, one space (its type's name if it has no text), any
    other control character escaped (`printable`).

    Parameters
    ----------
    exc : BaseException or str

    Returns
    -------
    str
    """
    return printable(" ".join(str(exc).split())) or type(exc).__name__


def printable(text):
    """`text` with every character that is not printable (an ANSI escape's ESC, a
    backspace, a line break) written as Python's repr writes it ("\\x1b").

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Interrupted(SystemExit):
    """A signal stopped the command (SIGTERM; Ctrl-C arrives as KeyboardInterrupt): exit
    status 128 + the signal's number, also where it arrives outside a boundary (the
    handler stays installed once a boundary has run).

    Parameters
    ----------
    signum : int
        The signal's number.

    Attributes
    ----------
    signum : int
        The signal's number.
    """

    def __init__(self, signum):
        super().__init__(128 + signum)
        self.signum = signum


def _interrupted(signum, frame):
    raise Interrupted(signum)


@contextmanager
def boundary(prog):
    """Run the block as the command `prog`: bad input (BAD_INPUT, or a SystemExit carrying
    a message) becomes one line on stderr and SystemExit(2); the files written in the
    block are put in place only if it succeeds (an _io.transaction); SIGTERM and Ctrl-C
    (SIGINT) exit through Python, so that its temporary files are removed too: one line
    on stderr, status 128 + the signal's number.

    Parameters
    ----------
    prog : str
        The command as the lines on stderr name it.

    Raises
    ------
    SystemExit
        Status 2 on bad input; 128 + the signal's number on SIGTERM or Ctrl-C. With
        DRFBENCH_TRACEBACK=1 the bad input's exception goes through as it is.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupted)
    try:
        with _io.transaction():
            yield
    except (KeyboardInterrupt, Interrupted) as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        print(f"{prog}: interrupted by {signal.Signals(signum).name}; nothing written",
              file=sys.stderr)
        raise SystemExit(128 + signum) from None
    except BAD_INPUT as exc:
        if os.environ.get(TRACEBACK, "0") not in ("", "0"):
            raise
        print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
        raise SystemExit(BAD_INPUT_STATUS) from None
    except SystemExit as exc:       # a step's own refusal, raise SystemExit("...")
        if isinstance(exc.code, str):
            print(f"{prog}: error: {one_line(exc.code)}", file=sys.stderr)
            raise SystemExit(BAD_INPUT_STATUS) from None
        raise


def run(parser, body, argv=None, command="command"):
    """Parse `argv` (default: the process's arguments) with `parser` and return
    body(args), inside `boundary` named after the parser and the step (`args.<command>`).

    Parameters
    ----------
    parser : Parser
    body : callable
        body(args), the command's work.
    argv : list of str, optional
        The arguments; default `sys.argv[1:]`.
    command : str or None
        The attribute of `args` that holds the subcommand's name, for the name
        `boundary` reports under; None: the parser's alone.

    Returns
    -------
    object
        What `body` returns.
    """
    args = parser.parse_args(argv)
    step = getattr(args, command, None) if command else None
    prog = parser.prog if not isinstance(step, str) else f"{parser.prog} {step}"
    with boundary(prog):
        return body(args)


def steps(family, description, helps, flags=("out", "seed"), options=None, sweeps=None):
    """The parser of a family's pipeline steps, `python -m drfbench.<family> <step> ...`: a
    subparser per step, each taking the common flags, and the family's declared options or
    sweeps its step takes; `options_of` gives both back by name (a sweep's: a list), and
    `run_step` runs it.

    Parameters
    ----------
    family : str
        The family's package under drfbench.
    description : str
        The command's help.
    helps : dict
        step -> its one line of help.
    flags : tuple of str
        The common flags each step takes, of "out" (--out, the rows file, required) and
        "seed" (--seed, a natural number, default 0).
    options : dict, optional
        step -> the declared options it takes, as option names or {its name: option's
        name} where the step's name differs (the catalog's STEP_OPTIONS); each a flag as
        `option_flag` makes it.
    sweeps : dict, optional
        step -> {sweep's name: option's name} (the catalog's STEP_SWEEPS): a run per value,
        each a flag of one or more values (`option_flag(..., sweep=True)`).

    Returns
    -------
    tuple
        (the parser, {step: its subparser}), for each step's own flags.

    Raises
    ------
    ValueError
        A step takes an option the family does not declare, or sweeps a list.
    """
    p = Parser(prog=f"python -m drfbench.{family}", description=description)
    sub = p.add_subparsers(dest="command", required=True)
    declared = family_options(family) if options or sweeps else {}
    for name, text in helps.items():
        a = sub.add_parser(name, help=text)
        if "out" in flags:
            a.add_argument("--out", type=output, required=True, help="the rows (CSV)")
        if "seed" in flags:
            a.add_argument("--seed", type=NATURAL, default=0, help="the seed of every random draw")
        taken = [(called, o, False) for called, o in named((options or {}).get(name, ()))] + \
                [(called, o, True) for called, o in (sweeps or {}).get(name, {}).items()]
        for called, option, sweep in taken:
            if option not in declared:
                raise ValueError(f"step {name!r}: family {family!r} declares no option {option!r}")
            option_flag(a, declared[option], name=called, sweep=sweep)
        a.set_defaults(options_taken=tuple((called, called if sweep else option)
                                           for called, option, sweep in taken))
    return p, sub.choices


def named(options):
    """A step's declared options as (its name for it, the option's name) pairs.

    Parameters
    ----------
    options : tuple of str or dict
        Option names, or {the step's name: option's name}.

    Returns
    -------
    iterable of tuple
    """
    return options.items() if isinstance(options, dict) else ((o, o) for o in options)


def family_options(family):
    """The options `family`'s methods declare, by name (one declaration per name).

    Parameters
    ----------
    family : str

    Returns
    -------
    dict
        name -> api.Option.

    Raises
    ------
    ValueError
        Two of its methods declare one name differently.
    """
    from . import api
    found = {}
    for method in api.methods(family=family):
        for name, option in api.method_info(method).options.items():
            if found.setdefault(name, option) != option:
                raise ValueError(f"family {family!r} declares option {name!r} twice, differently")
    return found


def flag(name):
    """The command line's spelling of option `name`: --name, underscores as dashes.

    Parameters
    ----------
    name : str

    Returns
    -------
    str
    """
    return "--" + name.replace("_", "-")


def option_flag(parser, option, name=None, sweep=False):
    """Add declared option `option` to `parser` as a flag, with the option's type (a number
    within its bounds, one of its choices, true/false, a list as several values; its `none`
    text for None), default and description.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    option : api.Option
    name : str, optional
        The flag's name (`flag(name)`) and the attribute it sets; default the option's.
    sweep : bool
        One or more values, a list and required: the step's runs.

    Raises
    ------
    ValueError
        A sweep of an option whose values are lists.
    """
    if sweep and option.type is list:
        raise ValueError(f"option {option.name!r}: a list, so not swept")
    name = name or option.name
    parser.add_argument(flag(name), dest=name, default=None if sweep else option.default,
                        required=sweep, nargs="+" if option.type is list or sweep else None,
                        help=option.description + (" (a run each)" if sweep else ""),
                        **option_type(option))


def option_type(option):
    """How argparse reads one value of declared option `option` (`option_flag`'s): its
    type (a number within its bounds, its `none` text for None) and choices.

    Parameters
    ----------
    option : api.Option

    Returns
    -------
    dict
        add_argument's `type` and, where the option has them, `choices`.
    """
    kind = {list: float, bool: str}.get(option.type, option.type)
    convert = {"type": kind}
    if option.type is bool:
        convert = {"type": lambda text: {"true": True, "false": False}.get(text.lower(), text),
                   "choices": (True, False)}
    elif option.choices:
        convert["choices"] = option.choices
    elif kind in (int, float):
        low, high = (float(x) for x in (option.bounds or "[-inf, inf]")[1:-1].split(","))
        convert["type"] = number(kind, low=None if math.isinf(low) else low,
                                 high=None if math.isinf(high) else high,
                                 open_low=option.bounds is not None and option.bounds[0] == "(",
                                 open_high=option.bounds is not None and option.bounds[-1] == ")",
                                 infinite=math.isinf(high) and option.bounds is not None
                                 and option.bounds[-1] == "]", name=option.name)
    if option.none:                 # the text standing for None (THREADS: "all")
        value = convert["type"]
        convert["type"] = lambda text: None if text == option.none else value(text)
        convert["type"].__name__ = getattr(value, "__name__", option.name)
    return convert


def options_of(args):
    """The declared options the step of `args` takes, by the option's name (a sweep's by
    the sweep's).

    Parameters
    ----------
    args : argparse.Namespace
        Parsed by a parser of `steps`.

    Returns
    -------
    dict
    """
    return {key: getattr(args, called) for called, key in args.options_taken}


def run_step(parser, body, argv=None):
    """Run the step `argv` names: body(args) inside `boundary` (bad input one line, its
    files all or none), then one line on stderr, `<family> <step> -> <what body returns,
    else --out>`.

    Parameters
    ----------
    parser : Parser
        Made by `steps`.
    body : callable
        body(args), the step; what it returns (else --out) is what the line names.
    argv : list of str, optional
        The arguments; default `sys.argv[1:]`.
    """
    def step(args):
        shown = body(args) or args.out
        print(f"{parser.prog.rpartition('.')[2]} {args.command} -> {shown}", file=sys.stderr)
    return run(parser, step, argv)


# --------------------------------------------------------------------------------------
# Argument types: the parser refuses a value outside them, naming the argument
# --------------------------------------------------------------------------------------

def number(kind=float, *, low=None, high=None, open_low=False, open_high=False, infinite=False,
           name=None):
    """An argparse type: text as `kind`, refused unless it is finite and within its bounds.
    int accepts a whole float's text ("1e6"), within int64.

    Parameters
    ----------
    kind : type
        int or float.
    low, high : float, optional
        The bounds; None: none.
    open_low, open_high : bool
        Whether `low` / `high` itself is refused.
    infinite : bool
        Whether +inf is taken.
    name : str, optional
        The type's name in argparse's messages; default what it takes ("a whole number
        >= 1").

    Returns
    -------
    callable
        text -> the number; an argparse.ArgumentTypeError naming what it must be.
    """
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if open_low else '>='} {low:g}")
    if high is not None:
        bounds.append(f"{'<' if open_high else '<='} {high:g}")
    what = ("a whole number" if kind is int else "a finite number" if not infinite
            else "a number (inf allowed)") + (f" {' and '.join(bounds)}" if bounds else "")

    def convert(text):
        try:
            value = int(text) if kind is int else float(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                value = math.nan
        ok = (not math.isnan(value) and (math.isfinite(value) or (infinite and value > 0))
              and (low is None or (value > low if open_low else value >= low))
              and (high is None or (value < high if open_high else value <= high)))
        if kind is int:     # whole, and within int64 (what the kernels count in)
            ok = ok and math.isfinite(value) and value == int(value) and abs(int(value)) < 2**63
        if not ok:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
        return int(value) if kind is int else value

    convert.__name__ = name or what
    return convert


COUNT = number(int, low=1, name="count")                          # 1, 2, ...
NATURAL = number(int, low=0, name="natural")                      # 0, 1, ... (seeds)
POSITIVE = number(low=0, open_low=True, name="positive")          # finite > 0
NONNEGATIVE = number(low=0, name="non-negative")                  # finite >= 0
FRACTION = number(low=0, high=1, name="fraction")                 # [0, 1]
PROPER_FRACTION = number(low=0, high=1, open_high=True, name="fraction")    # [0, 1)
SHARE = number(low=0, high=1, open_low=True, name="share")        # (0, 1]
HORIZON = number(low=0, open_low=True, infinite=True, name="horizon")       # > 0, inf allowed


def output(text):
    """An argparse type: a file the command will write, refused unless it could be: a
    regular file or a new name (not a folder, a link, a device, a FIFO: _io.refuse_special),
    and its folder (or the nearest one that exists, where the write will make the rest) a
    folder this process may write in.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        `text`.

    Raises
    ------
    argparse.ArgumentTypeError
        Naming why the file cannot be written.
    """
    if not text:
        raise argparse.ArgumentTypeError("must be a file name, got ''")
    path = Path(text)
    try:
        _io.refuse_special(path)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    except OSError as exc:          # a name longer than the folder allows, and the like
        raise argparse.ArgumentTypeError(f"cannot write {text}: {exc.strerror}") from None
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text}: folder {folder} is not writable")
    return text


def input_file(text):
    """An argparse type: a file the command will read, refused unless it is one that this
    process may read: a regular file, or a stream that exists (/dev/stdin, a pipe, the
    shell's <(...)), not a folder.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        `text`.

    Raises
    ------
    argparse.ArgumentTypeError
        Naming why the file cannot be read.
    """
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {text}")
    return text
