"""Pick the kernels' vector-width variant at run time (faiss's loader pattern).

setup.py compiles the same kernels into one package per variant it builds (see its
docstring: by default the generic one and the widest this CPU runs). The variant is chosen,
in order, by the `isa` argument of `allocate`, the environment variable DRFBENCH_ISA, or
the widest one built here that the CPU can run. A variant the CPU cannot run is refused
with UnsupportedVariantError before any of its code is loaded; one that was not built, with
VariantNotBuiltError naming the command that builds it.
"""
import importlib
import importlib.util
import os
import pkgutil
from functools import cache
from types import SimpleNamespace

from ._machine import cpu_info
# name -> Variant(package, CPU flags it needs, compile flags): the table setup.py builds from
from ._variants import BUILD_COMMAND, VARIANTS, WIDEST_FIRST, flags_string, lacking

ENV_VARIABLE = "DRFBENCH_ISA"


class UnsupportedVariantError(ValueError):
    """The CPU cannot run the requested kernel variant (a ValueError: an `isa` value this
    machine refuses, as every entry point refuses a bad value)."""


class VariantNotBuiltError(ValueError):
    """The requested kernel variant was not built here; its message names the command that
    builds it."""


@cache
def cpu_flags():
    """The CPU's vector features (read once: /proc/cpuinfo does not change)."""
    return frozenset(cpu_info()[1])


def built(name):
    """True if setup.py built this variant's kernels (x86 variants exist only on x86-64;
    by default only the generic one and the widest the CPU runs are built): its package
    holds a compiled dcdrf."""
    try:
        return importlib.util.find_spec(f"{VARIANTS[name][0]}.dcdrf") is not None
    except ModuleNotFoundError:
        return False


def missing_features(name):
    """CPU flags the variant needs that this CPU lacks (empty: it can run)."""
    return lacking(name, cpu_flags())


@cache
def _kernel_names(name):
    """The kernels compiled into variant `name`'s package, by module name (listed once: every
    run resolves its variant, and a build adds kernels in its own process)."""
    try:
        spec = importlib.util.find_spec(VARIANTS[name][0])
    except ModuleNotFoundError:
        return frozenset()
    places = spec.submodule_search_locations if spec is not None else None
    return frozenset(m.name for m in pkgutil.iter_modules(places)) if places else frozenset()


def runnable():
    """Variants built here whole (every kernel the generic one has: `build_variants
    --family` builds a part of one, which `resolve` still gives when asked by name) that
    this CPU can run, narrowest first."""
    whole = _kernel_names("generic")
    return [v for v in VARIANTS
            if built(v) and not missing_features(v) and _kernel_names(v) >= whole]


def resolve(isa=None):
    """The kernel variant to use.

    Parameters
    ----------
    isa : str, optional
        A variant's name; None: $DRFBENCH_ISA, else the widest runnable one.

    Returns
    -------
    str
        The variant's name.

    Raises
    ------
    ValueError
        An unknown name.
    UnsupportedVariantError
        The CPU cannot run it (the features it lacks named).
    VariantNotBuiltError
        It was not built here (the command that builds it named).
    """
    name = isa if isa is not None else os.environ.get(ENV_VARIABLE) or None
    if name is None:
        return next(v for v in WIDEST_FIRST if v in runnable())
    source = "isa argument" if isa is not None else ENV_VARIABLE
    if name not in VARIANTS:
        raise ValueError(f"unknown kernel variant {name!r} ({source}); choose from {', '.join(VARIANTS)}")
    missing = missing_features(name)
    if missing:
        raise UnsupportedVariantError(
            f"kernel variant {name!r} ({source}) needs CPU features this machine lacks: "
            f"{', '.join(missing)}; runnable here: {', '.join(runnable())}")
    if not built(name):
        raise VariantNotBuiltError(
            f"kernel variant {name!r} ({source}) was not built here; build it with: "
            f"{BUILD_COMMAND} {name}")
    return name


class Kernels(SimpleNamespace):
    """A variant's kernel modules as attributes; one it was built without (`build_variants
    --family` builds one family's) is a VariantNotBuiltError naming the command that
    builds it."""

    def __getattr__(self, kernel):
        if kernel.startswith("__"):
            raise AttributeError(kernel)
        raise VariantNotBuiltError(f"kernel variant {self.name!r} was built here without its "
                                   f"kernel {kernel!r}; build it with: {BUILD_COMMAND} {self.name}")


@cache
def _load(name):
    package = importlib.import_module(VARIANTS[name][0])
    modules = {m.name: importlib.import_module(f"{package.__name__}.{m.name}")
               for m in pkgutil.iter_modules(package.__path__)}
    return Kernels(name=name, compile_flags=flags_string(name), **modules)


def kernels(isa=None):
    """The kernel modules of a variant.

    Parameters
    ----------
    isa : str, optional
        The variant, as `resolve` takes it.

    Returns
    -------
    SimpleNamespace
        Its modules as attributes named after their sources (`drfbench/**/<name>.pyx`:
        `.dcdrf`, `.edrf`, ...), with `.name` and `.compile_flags`.
    """
    return _load(resolve(isa))


def named_schedule(base, launches):
    """A subclass of kernel class `base` whose schedule(...) returns its result as the
    NamedTuple `launches`: the stateful schedulers of the families' typed facades
    (drf, hdrf, drfh `kernel.py`)."""
    def schedule(self, *args):
        return launches(*base.schedule(self, *args))
    return type(base.__name__, (base,), {"__slots__": (), "schedule": schedule,
                                         "__doc__": base.__doc__})
