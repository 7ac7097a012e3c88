"""The registry of every method drfbench knows, and the one dispatch, `run()`.

A method is one `Method` in REGISTRY: its name, its family, the input kind it takes, the
options it accepts, and where its implementation lives ("module:function" inside
drfbench, imported on first use, so that reading the registry loads no kernel). An input
kind is one `InputKind` in KINDS: the inputs its methods take, the function users call,
where its file reader and its property checks live. Everything outside a family asks the
registry about methods rather than naming them: the pipeline's grids, the `drfbench`
command, the property tables.

The registry names no family: each family declares its input kinds and methods in its own
`drfbench/<family>/catalog.py` (KINDS and METHODS, tuples), and the registry finds them on
first use, every family's kinds before any method, families in name order. A catalog is
loaded without its package's `__init__`, so reading the registry imports no family module.

Every run of a registered method goes through `run` (each family's public function is
`run` for its input kind): the options are checked against the method's, their defaults
are the implementation's, and the thread count is decided there, once, and passed down as
an int. A user who asks a method for something it cannot do (a tolerance for exact EDRF,
threads for the single-threaded baseline, slots for H-DRF) gets a clear error instead of a
silently different run.
"""
import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ._machine import resolve_threads

CATALOG = "catalog"     # the module of a family's declarations: drfbench/<family>/catalog.py


def function(implementation):
    """The function a "module:function" string inside drfbench names, imported on use."""
    module, _, function = implementation.partition(":")
    return getattr(importlib.import_module(f"drfbench.{module}"), function)


@dataclass(frozen=True)
class InputKind:
    """What a family's methods take.

    name: its key (Method.takes); inputs: the positional inputs of its methods, in order;
    entry: the function users call with them; reader: "module:function" reading the
    inputs from files, one path per input (the `drfbench run` command); properties: the
    module declaring its property checks (a drfbench.properties.PropertySet named CHECKS,
    found by drfbench.properties.checks_for), or None; names: the column of the result's
    rows holding the index of a row of the first input, which `drfbench run` replaces by
    that row's name in the file (the reader's `names=True`), or None; dispatch:
    "module:function" every method of the kind runs through, called as f(*inputs, method,
    **options), which checks the inputs and options once for all of them and calls the
    method's implementation (whose signature is then the dispatch's to choose), or None:
    `run` calls the implementation itself.
    """
    name: str
    inputs: tuple
    entry: str
    reader: str
    properties: str | None = None
    names: str | None = None
    dispatch: str | None = None

    def read(self, *paths, names=False):
        """The inputs of this kind, read from `paths` (one per input): a tuple, one item per
        input (the reader of a one-input kind returns that input alone); with `names`, the
        pair (that tuple, the names of the first input's rows as written, or None where the
        kind has no `names` column or the file no name column)."""
        if len(paths) != len(self.inputs):
            raise ValueError(f"input kind {self.name!r} takes {len(self.inputs)} input(s) "
                             f"({', '.join(self.inputs)}), got {len(paths)}")
        labels = None
        if names and self.names:
            inputs, labels = function(self.reader)(*paths, names=True)
        else:
            inputs = function(self.reader)(*paths)
        inputs = tuple(inputs) if len(self.inputs) > 1 else (inputs,)
        return (inputs, labels) if names else inputs


@dataclass(frozen=True)
class Method:
    """A registered method.

    name: what users pass as `method` (or `policy`, `scheduler`); family: the paper family
    it belongs to (drfbench.<family>); takes: its input kind (a key of KINDS); summary:
    one line; implementation: "module:function" in drfbench, called by `run` as
    function(spec, *inputs, **options) (or by its kind's dispatch), whose keyword
    defaults are the method's defaults; options: the option names it accepts; label: its
    name in tables and figures; exact: gives the exact allocation (usable as the fairness
    baseline); conventional: the literal, slow baseline, timed within a budget and
    extrapolated beyond it; max_rounds: a fixed round budget, if it has one.
    """
    name: str
    family: str
    takes: str
    summary: str
    implementation: str
    options: frozenset = field(default_factory=frozenset)
    label: str = ""
    exact: bool = False
    conventional: bool = False
    max_rounds: int | None = None

    def takes_option(self, option):
        """Whether the method accepts `option` (e.g. "epsilon", "threads")."""
        return option in self.options

    @property
    def run(self):
        """The implementation, imported on first use."""
        return function(self.implementation)

    def defaults(self):
        """Each option's default: the keyword default of its kind's dispatch, else of the
        implementation (imports the family, loads no kernel)."""
        dispatch = _registry(_KINDS)[self.takes].dispatch
        params = inspect.signature(function(dispatch) if dispatch else self.run).parameters
        return {o: params[o].default for o in sorted(self.options)}

    def checked(self, options):
        """`options` as the implementation gets them: each one the method takes (else a
        ValueError naming the method's options), threads resolved to an int."""
        unknown = sorted(set(options) - self.options)
        if unknown:
            takes = ", ".join(sorted(self.options)) or "none"
            raise ValueError(f"method {self.name!r} takes no option {', '.join(unknown)}; "
                             f"its options: {takes}")
        if "threads" in self.options:
            options = {**options, "threads": resolve_threads(options.get("threads"))}
        return options


# Module-level dicts, read as KINDS and REGISTRY (module __getattr__, below), so that the
# families' catalogs are found on first use and users can add their own with register().
_KINDS: dict[str, InputKind] = {}
_REGISTRY: dict[str, Method] = {}
_FOUND = []             # the families whose catalogs are registered (empty: not yet looked)


def register_kind(kind: InputKind) -> InputKind:
    """Add an input kind (drfbench's own are in their families' catalogs)."""
    if kind.name in _registry(_KINDS):
        raise ValueError(f"an input kind named {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def register(method: Method) -> Method:
    """Add `method` to the registry (drfbench's own are in their families' catalogs; a
    user's own allocator can join the same way, with `implementation` pointing at its
    module)."""
    if method.name in _registry(_REGISTRY):
        raise ValueError(f"a method named {method.name!r} is already registered")
    if method.takes not in _KINDS:
        raise ValueError(f"method {method.name!r}: unknown input kind {method.takes!r}; "
                         f"known: {', '.join(_KINDS)}")
    _REGISTRY[method.name] = method
    return method


def _catalog(family):
    """drfbench.<family>.catalog, loaded without running the family's `__init__` (which
    imports its modules) unless that package is imported already."""
    name = f"drfbench.{family}.{CATALOG}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).parent / family / f"{CATALOG}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _registry(table):
    """`table` (_KINDS or _REGISTRY), once every family's catalog is registered: the
    catalogs of the packages drfbench/<family>/ holding one, in name order, their input
    kinds first (a family may take another's kind by its name), then their methods."""
    if not _FOUND:
        found = sorted(p.parent.name for p in Path(__file__).parent.glob(f"*/{CATALOG}.py"))
        _FOUND.extend(found)
        catalogs = [_catalog(family) for family in found]
        for catalog in catalogs:
            for kind in catalog.KINDS:
                register_kind(kind)
        for catalog in catalogs:
            for method in catalog.METHODS:
                register(method)
    return table


def __getattr__(name):
    """KINDS and REGISTRY: the registered input kinds and methods, by name."""
    if name in ("KINDS", "REGISTRY"):
        return _registry(_KINDS if name == "KINDS" else _REGISTRY)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def methods(family=None, takes=None) -> tuple[str, ...]:
    """Names of the registered methods, optionally only those of one family or input kind."""
    return tuple(m.name for m in _registry(_REGISTRY).values()
                 if family in (None, m.family) and takes in (None, m.takes))


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
    """The families of the registered methods, in registry order (drfbench's own in name
    order)."""
    return tuple(dict.fromkeys(m.family for m in _registry(_REGISTRY).values()))


def run(method, *inputs, takes=None, **options):
    """Run registered method `method` on its inputs (its input kind's, in order) with
    `options`: the one dispatch every family's public function goes through. `takes`
    insists on an input kind; a kind with a dispatch of its own gets the call."""
    spec = method_info(method, takes)
    kind = _KINDS[spec.takes]
    if len(inputs) != len(kind.inputs):
        raise TypeError(f"method {spec.name!r} takes {len(kind.inputs)} input(s) "
                        f"({', '.join(kind.inputs)}), got {len(inputs)}")
    if kind.dispatch:
        return function(kind.dispatch)(*inputs, spec.name, **options)
    return spec.run(spec, *inputs, **spec.checked(options))
