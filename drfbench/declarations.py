"""What a family declares in its catalog (drfbench/<family>/catalog.py): each option of its
methods (`Option`), each input kind it brings (`InputKind`), each method (`Method`), and
the options every family means alike (THREADS, ISA, LITERAL). The registry,
drfbench.api, collects them (and gives these names too: a catalog imports them from
there); nothing here names a family or loads a kernel.
"""
import importlib
import numbers
from dataclasses import dataclass, field

from ._machine import MAX_THREADS, resolve_threads
from ._validation import shown


def function(implementation):
    """The function a "module:function" string inside drfbench names, imported on use.

    Parameters
    ----------
    implementation : str
        "module:function", the module relative to drfbench (`<family>.<module>:<function>`).

    Returns
    -------
    callable
        The function.
    """
    module, _, function = implementation.partition(":")
    return getattr(importlib.import_module(f"drfbench.{module}"), function)


@dataclass(frozen=True)
class Option:
    """An option of a family's methods, declared once: in its catalog, or below (THREADS,
    ISA) for those every family means alike.

    Attributes
    ----------
    name : str
        The keyword it is passed as.
    type : type
        int, float, bool, str, or list (one per user, leaf or flow; `drfbench run` reads a
        comma list).
    default : object
        Its value when not given (None: the description says what decides).
    description : str
        One line.
    bounds : str or None
        A number's interval, "[low, high]", "(" or ")" for an open end (numbers are
        checked; durations, arrays, None are the implementation's).
    choices : tuple
        The texts a str option takes.
    none : str or None
        The text standing for None on the command line and in configs (THREADS: "all").
    """
    name: str
    type: type
    default: object
    description: str
    bounds: str | None = None
    choices: tuple = ()
    none: str | None = None

    def check(self, value):
        """`value`, checked against the option's bounds and choices.

        Raises
        ------
        ValueError
            Naming the option, its bounds or choices and the value.
        """
        if self.choices and (isinstance(value, str) or not hasattr(value, "__len__")) \
                and value not in self.choices:
            raise ValueError(f"{self.name} must be one of {', '.join(map(repr, self.choices))}; "
                             f"got {shown(value)}")
        if self.bounds and isinstance(value, numbers.Real) and not isinstance(value, bool) \
                and getattr(getattr(value, "dtype", None), "kind", "f") in "iuf":   # no durations
            low, high = (float(x) for x in self.bounds[1:-1].split(","))
            if not ((low <= value if self.bounds[0] == "[" else low < value)
                    and (value <= high if self.bounds[-1] == "]" else value < high)):
                raise ValueError(f"{self.name} must lie in {self.bounds}, got {shown(value)}")
        return value


THREADS = Option("threads", int, None, "OpenMP threads (None: OMP_NUM_THREADS, else every "
                 "usable CPU)", f"[1, {MAX_THREADS}]", none="all")
ISA = Option("isa", str, None, "the kernels' vector-width variant (None: $DRFBENCH_ISA, else "
             "the widest this CPU runs)")
LITERAL = Option("literal", bool, False, "run the literal transcription instead of the kernel "
                 "(slow; the test oracle)")


@dataclass(frozen=True)
class InputKind:
    """What a family's methods take.

    Attributes
    ----------
    name : str
        Its key (`Method.takes`).
    inputs : tuple of str
        Its methods' positional inputs, in order.
    entry : str
        The function users call with them.
    reader : str
        "module:function" reading them from files, one per input (`drfbench run`).
    properties : str or None
        The module of its property checks (CHECKS, `properties.checks_for`).
    names : str or None
        The rows' column holding the index of a row of the first input, which `drfbench
        run` replaces by its name in the file (the reader's `names=True`).
    dispatch : str or None
        "module:function" its methods run through, f(*inputs, method, **options),
        checking inputs and options once for all of them.
    """
    name: str
    inputs: tuple
    entry: str
    reader: str
    properties: str | None = None
    names: str | None = None
    dispatch: str | None = None

    def read(self, *paths, names=False):
        """The inputs read from files.

        Parameters
        ----------
        *paths : str or Path
            One file per input.
        names : bool
            Also return the first input's row names as written.

        Returns
        -------
        tuple or (tuple, list or None)
            The inputs; with `names`, the pair (the inputs, the row names or None).
        """
        if len(paths) != len(self.inputs):
            raise ValueError(f"input kind {self.name!r} takes {len(self.inputs)} input(s) "
                             f"({', '.join(self.inputs)}), got {len(paths)}")
        read = function(self.reader)
        inputs, labels = read(*paths, names=True) if names and self.names else (read(*paths), None)
        inputs = tuple(inputs) if len(self.inputs) > 1 else (inputs,)
        return (inputs, labels) if names else inputs


@dataclass(frozen=True)
class Method:
    """A registered method.

    Attributes
    ----------
    name : str
        What users pass as `method` (or `policy`, `scheduler`).
    family : str
        The drfbench.<family> it belongs to.
    takes : str
        Its input kind.
    summary : str
        One line.
    implementation : str
        "module:function", called by `run` as f(spec, *inputs, **options) (or by its
        kind's dispatch).
    options : dict
        The `Option`s it takes (given as a tuple, held by name).
    label : str
        Its name in tables.
    exact : bool
        It gives the exact allocation (a fairness baseline).
    conventional : bool
        The literal, slow baseline, timed within a budget.
    max_rounds : int or None
        A fixed round budget, if any.
    literal : bool
        The implementation runs its paper's transcription given literal=True (`LITERAL`,
        added to its options).
    """
    name: str
    family: str
    takes: str
    summary: str
    implementation: str
    options: dict = field(default_factory=dict)
    label: str = ""
    exact: bool = False
    conventional: bool = False
    max_rounds: int | None = None
    literal: bool = False

    def __post_init__(self):
        given = self.options.values() if isinstance(self.options, dict) else self.options
        given = (*given, LITERAL) if self.literal else given
        object.__setattr__(self, "options", dict(sorted((o.name, o) for o in given)))

    def takes_option(self, option):
        """Whether the method accepts `option` (e.g. "epsilon", "threads")."""
        return option in self.options

    @property
    def run(self):
        """The implementation, imported on first use."""
        return function(self.implementation)

    def defaults(self):
        """Each option's declared default, by name (imports nothing)."""
        return {name: o.default for name, o in self.options.items()}

    def checked(self, options):
        """`options` as the implementation gets them.

        Parameters
        ----------
        options : dict
            The options given, by name.

        Returns
        -------
        dict
            Every option the method takes: those given, checked (`Option.check`), the
            others at their defaults; threads resolved to an int.

        Raises
        ------
        ValueError
            An option the method does not take (naming its options), or one outside its
            bounds or choices.
        """
        take_only(f"method {self.name!r}", options, tuple(self.options), ValueError)
        options = {name: o.check(options[name]) if name in options else o.default
                   for name, o in self.options.items()}
        if "threads" in options:
            options["threads"] = resolve_threads(options["threads"])
        return options



def take_only(where, given, names, error=TypeError, called="options"):
    """Refuse every key of `given` not among `names`: the options `where` takes.

    Parameters
    ----------
    where : str
        What takes them, as the message names it (`RulePolicy`, `method 'fq'`).
    given : iterable of str
        The options asked for.
    names : sequence of str
        The options it takes, in the order the message lists them.
    error : type
        The exception raised: TypeError for a keyword of a function, ValueError for an
        option of a registered method.
    called : str
        What the message calls them (DRFQ's flows: "draws").

    Raises
    ------
    TypeError or ValueError
        `where takes no option X; its options: ...` (`called` for "options").
    """
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise error(f"{where} takes no option {', '.join(unknown)}; "
                    f"its {called}: {', '.join(names) or 'none'}")


# Read as KINDS and REGISTRY (__getattr__, below): the catalogs are found on first use.
