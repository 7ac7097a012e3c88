"""The registry of every method drfbench knows, and the one dispatch, `run()`.

A method is one `Method` in REGISTRY (its options each an `Option`; its implementation
"module:function", imported on first use: reading the registry loads no kernel), an input
kind one `InputKind` in KINDS. The registry names no family: each declares its kinds and
methods in its own `drfbench/<family>/catalog.py` (KINDS, METHODS), loaded on first use
without the package's `__init__`, families in name order. Every run goes through `run`:
options checked against the method's declarations (a clear error), defaults filled in,
the thread count decided once, literal=True for the methods with a transcription.
"""
import importlib
import importlib.util
import numbers
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ._machine import MAX_THREADS, resolve_threads
from ._validation import shown

CATALOG = "catalog"     # the module of a family's declarations: drfbench/<family>/catalog.py


def function(implementation):
    """The function a "module:function" string inside drfbench names, imported on use.

    Parameters
    ----------
    implementation : str
        "module:function", the module relative to drfbench ("dcdrf.methods:run_dcdrf").

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
    """
    name: str
    type: type
    default: object
    description: str
    bounds: str | None = None
    choices: tuple = ()

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
                 "usable CPU)", f"[1, {MAX_THREADS}]")
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
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ValueError(f"method {self.name!r} takes no option {', '.join(unknown)}; "
                             f"its options: {', '.join(self.options) or 'none'}")
        options = {name: o.check(options[name]) if name in options else o.default
                   for name, o in self.options.items()}
        if "threads" in options:
            options["threads"] = resolve_threads(options["threads"])
        return options


# Read as KINDS and REGISTRY (__getattr__, below): the catalogs are found on first use.
_KINDS: dict[str, InputKind] = {}
_REGISTRY: dict[str, Method] = {}
_FOUND = []             # the families' catalogs, once registered


def register_kind(kind: InputKind) -> InputKind:
    """Add an input kind (drfbench's own are in their families' catalogs).

    Raises
    ------
    ValueError
        One of that name is already registered.
    """
    if kind.name in _registry(_KINDS):
        raise ValueError(f"an input kind named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def register(method: Method) -> Method:
    """Add `method` (a user's own allocator joins this way).

    Parameters
    ----------
    method : Method
        The method, of a registered input kind.

    Returns
    -------
    Method
        `method`.

    Raises
    ------
    ValueError
        A method of that name is already registered, or its input kind is unknown.
    """
    if method.name in _registry(_REGISTRY):
        raise ValueError(f"a method named {method.name!r} is already registered")
    if method.takes not in _KINDS:
        raise ValueError(f"method {method.name!r}: unknown input kind {method.takes!r}; "
                         f"known: {', '.join(_KINDS)}")
    _REGISTRY[method.name] = method
    return method


def _registry(table):
    """`table` (_KINDS or _REGISTRY), once every drfbench/<family>/catalog.py is registered,
    in name order, kinds first (a family may take another's kind by its name); a catalog
    is loaded without its package's `__init__` (the family's modules) unless imported."""
    if not _FOUND:
        catalogs = []
        for path in sorted(Path(__file__).parent.glob(f"*/{CATALOG}.py")):
            name = f"drfbench.{path.parent.name}.{CATALOG}"
            if name not in sys.modules:
                spec = importlib.util.spec_from_file_location(name, path)
                sys.modules[name] = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(sys.modules[name])
            catalogs.append(sys.modules[name])
        _FOUND.extend(catalogs)
        for kind in (kind for catalog in catalogs for kind in catalog.KINDS):
            register_kind(kind)
        for method in (method for catalog in catalogs for method in catalog.METHODS):
            register(method)
    return table


def __getattr__(name):
    """KINDS and REGISTRY: the registered input kinds and methods, by name."""
    if name in ("KINDS", "REGISTRY"):
        return _registry(_KINDS if name == "KINDS" else _REGISTRY)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def methods(family=None, takes=None, literal=None) -> tuple[str, ...]:
    """Names of the registered methods.

    Parameters
    ----------
    family : str, optional
        Only that family's.
    takes : str, optional
        Only those of that input kind.
    literal : bool, optional
        True: only those with a literal transcription.

    Returns
    -------
    tuple of str
        The names, in registry order.
    """
    return tuple(m.name for m in _registry(_REGISTRY).values() if family in (None, m.family)
                 and takes in (None, m.takes) and literal in (None, m.literal))


def method_info(name, takes=None) -> Method:
    """The registered `Method` called `name`.

    Parameters
    ----------
    name : str
        The method's name.
    takes : str, optional
        Insist on this input kind.

    Returns
    -------
    Method

    Raises
    ------
    ValueError
        No method of that name (naming the registered ones), or one of another kind
        (naming the function its kind is called through).
    """
    if not isinstance(name, str) or name not in _registry(_REGISTRY):
        known = ", ".join(methods(takes=takes))
        raise ValueError(f"unknown method {name!r}; registered methods"
                         f"{f' taking {takes}' if takes else ''}: {known}")
    spec = _REGISTRY[name]
    if takes is not None and spec.takes != takes:
        raise ValueError(f"method {name!r} takes {spec.takes}, not {takes}: call it through "
                         f"{_KINDS[spec.takes].entry}; {takes} methods: "
                         f"{', '.join(methods(takes=takes))}")
    return spec


def families() -> tuple[str, ...]:
    """The families of the registered methods, in registry order.

    Returns
    -------
    tuple of str
    """
    return tuple(dict.fromkeys(m.family for m in _registry(_REGISTRY).values()))


def run(method, *inputs, takes=None, **options):
    """Run a registered method on its kind's inputs.

    Parameters
    ----------
    method : str
        The method's name.
    *inputs
        Its input kind's inputs, in order.
    takes : str, optional
        Insist on this input kind.
    **options
        The method's options (`literal=True`: its transcription, for a method with one).

    Returns
    -------
    object
        What the method returns (a kind with a dispatch of its own gets the call).

    Raises
    ------
    ValueError
        An unknown method or option, a value out of bounds, literal for a method without
        a transcription.
    TypeError
        Not as many inputs as its kind takes.
    """
    spec = method_info(method, takes)
    kind = _KINDS[spec.takes]
    if "literal" in options and not spec.literal:
        raise ValueError(f"method {spec.name!r} has no literal transcription; methods with "
                         f"one: {', '.join(methods(literal=True))}")
    if len(inputs) != len(kind.inputs):
        raise TypeError(f"method {spec.name!r} takes {len(kind.inputs)} input(s) "
                        f"({', '.join(kind.inputs)}), got {len(inputs)}")
    if kind.dispatch:
        return function(kind.dispatch)(*inputs, spec.name, **options)
    return spec.run(spec, *inputs, **spec.checked(options))
