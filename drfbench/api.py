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
    """The function a "module:function" string inside drfbench names, imported on use."""
    module, _, function = implementation.partition(":")
    return getattr(importlib.import_module(f"drfbench.{module}"), function)


@dataclass(frozen=True)
class Option:
    """An option of a family's methods, declared once: in its catalog, or below (THREADS,
    ISA) for those every family means alike. type: int, float, bool, str, or list (one per
    user, leaf or flow; `drfbench run` reads a comma list); default: when not given (None:
    the description says what decides); description: one line; bounds: a number's
    interval, "[low, high]", "(" or ")" for an open end (numbers are checked; durations,
    arrays, None are the implementation's); choices: the texts a str option takes; none:
    the text standing for None on the command line and in configs (THREADS: "all")."""
    name: str
    type: type
    default: object
    description: str
    bounds: str | None = None
    choices: tuple = ()
    none: str | None = None

    def check(self, value):
        """`value`, or a ValueError naming the option, its bounds or choices and the value."""
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

    name: its key (Method.takes); inputs: its methods' positional inputs, in order; entry:
    the function users call with them; reader: "module:function" reading them from files,
    one per input (`drfbench run`); properties: the module of its property checks (CHECKS,
    properties.checks_for), or None; names: the rows' column holding the index of a row of
    the first input, which `drfbench run` replaces by its name in the file (the reader's
    `names=True`), or None; dispatch: "module:function" its methods run through, f(*inputs,
    method, **options), checking inputs and options once for all of them, or None.
    """
    name: str
    inputs: tuple
    entry: str
    reader: str
    properties: str | None = None
    names: str | None = None
    dispatch: str | None = None

    def read(self, *paths, names=False):
        """The inputs read from `paths` (one per input), a tuple; with `names`, the pair
        (that tuple, the first input's row names as written, or None)."""
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

    name: what users pass as `method` (or `policy`, `scheduler`); family: drfbench.<family>
    it belongs to; takes: its input kind; summary: one line; implementation: "module:
    function", called by `run` as f(spec, *inputs, **options) (or by its kind's dispatch);
    options: the `Option`s it takes (a tuple, held by name); label: its name in tables;
    exact: gives the exact allocation (a fairness baseline); conventional: the literal,
    slow baseline, timed within a budget; max_rounds: a fixed round budget, if any; literal:
    the implementation runs its paper's transcription given literal=True (LITERAL, added)."""
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
        """`options` as the implementation gets them: each one the method takes (else a
        ValueError naming the method's options) within its bounds and choices
        (Option.check), the others at their defaults, threads resolved to an int."""
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
    """Add an input kind (drfbench's own are in their families' catalogs)."""
    if kind.name in _registry(_KINDS):
        raise ValueError(f"an input kind named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def register(method: Method) -> Method:
    """Add `method` (a user's own allocator joins this way)."""
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
    """Names of the registered methods: all, or of one family, input kind, or literal=True."""
    return tuple(m.name for m in _registry(_REGISTRY).values() if family in (None, m.family)
                 and takes in (None, m.takes) and literal in (None, m.literal))


def method_info(name, takes=None) -> Method:
    """The registered `Method` called `name`; with `takes`, one of that input kind (else a
    ValueError naming the function its kind is called through)."""
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
    """The families of the registered methods, in registry order."""
    return tuple(dict.fromkeys(m.family for m in _registry(_REGISTRY).values()))


def run(method, *inputs, takes=None, **options):
    """Run registered method `method` on its kind's inputs with `options` (`takes` insists
    on a kind; a kind's own dispatch gets the call; literal=True: the transcription)."""
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
