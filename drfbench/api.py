"""The registry of every method drfbench knows, and the one dispatch, `run()`.

A method is one `Method` in REGISTRY (its options each an `Option`; its implementation
"module:function", imported on first use: reading the registry loads no kernel), an input
kind one `InputKind` in KINDS (both declared as drfbench.declarations says). The registry
names no family: each declares its kinds and methods in its own
`drfbench/<family>/catalog.py` (KINDS, METHODS), loaded on first use without the
package's `__init__`, families in name order. Every run goes through `run`: options
checked against the method's declarations (a clear error), defaults filled in, the
thread count decided once, literal=True for the methods with a transcription.
"""
import importlib.util
import sys
from pathlib import Path

# The declarations, given here too: a catalog imports them from the registry.
from .declarations import ISA, LITERAL, THREADS, InputKind, Method, Option, function  # noqa: F401

CATALOG = "catalog"     # the module of a family's declarations: drfbench/<family>/catalog.py


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
