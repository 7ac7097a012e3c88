"""The registry of every method drfbench knows, and `allocate()`, the entry point of the
methods that take divisible demands.

A method is one `Method` in REGISTRY: its name, its family, what it takes (divisible
demands, tasks on machines, a tree, servers, applications), the options it
accepts, and where its implementation lives ("module:function" inside drfbench, imported
on first use, so that reading the registry loads no kernel). Everything outside a family's
own module asks the registry about methods (which take epsilon, which run threads, which
is the conventional baseline) rather than naming them: the pipeline's grids, the
controller, the benchmark, the property table, the rules.

A user who asks a method for something it cannot do (a tolerance for exact EDRF, threads
for the single-threaded baseline) gets a clear error instead of a silently different run.
"""
import importlib
import mmap
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from . import _validation as check
from ._machine import resolve_threads

# What a method takes, and the function a user calls with it.
DEMANDS = "demands"   # divisible demand fractions D_ir, tenants x resources
TASKS = "tasks"       # discrete tasks of one shape per user, on machines
TREE = "tree"         # a hierarchy of weighted nodes whose leaves run tasks, on machines
SERVERS = "servers"   # per-task demands of users, on heterogeneous servers (absolute units)
APPLICATIONS = "applications"  # TI-MRA applications (time-varying demands), on a datacenter tree
ENTRY_POINTS = {
    DEMANDS: "drfbench.allocate(demands, method, ...)",
    TASKS: "drfbench.drf.schedule(demands, machines, policy=...), or drfbench.drf.scheduler "
           "for the cluster simulator",
    TREE: "drfbench.hdrf.schedule(tree, machines, policy=...), drfbench.hdrf.allocate(tree, "
          "capacity, policy=...), or drfbench.hdrf.scheduler for the cluster simulator",
    SERVERS: "drfbench.drfh.allocate(demands, servers, method=...) for divisible tasks; "
             "drfbench.drfh.simulate(servers, tasks, scheduler=...) for a trace, or "
             "drfbench.drfh.scheduler for the cluster simulator",
    APPLICATIONS: "drfbench.packer.simulate(infrastructure, applications, policy=...)",
}
# Options of drfbench.allocate beyond demands, weights and dtype, with the value that
# means "not asked for" (a method that does not take an option accepts that value only).
ALLOCATE_OPTIONS = {"epsilon": 0.0, "deadline": None, "max_rounds": None, "threads": None,
                    "isa": None}

NO_ROUND_LIMIT = 2**62
# Outputs of this many bytes or more get pages of their own (see output_array): the size
# from which glibc's malloc maps new memory for every array anyway.
OWN_PAGES_BYTES = 32 * 2**20


@dataclass(frozen=True)
class Method:
    """A registered method.

    name: what users pass as `method` (or `policy`); family: the paper family it belongs
    to (its module is drfbench.<family> or lists it); takes: DEMANDS, TASKS, TREE or
    SERVERS; summary: one line; implementation: "module:function" in drfbench, the function the entry point
    calls (`run`); options: the options it accepts (for DEMANDS, names of ALLOCATE_OPTIONS);
    label: its name in tables and figures; exact: gives the exact allocation (usable as
    the fairness baseline); conventional: the literal, slow baseline, timed within a
    budget and extrapolated beyond it; max_rounds: a fixed round budget, if it has one.
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
        module, _, function = self.implementation.partition(":")
        return getattr(importlib.import_module(f"drfbench.{module}"), function)


_KERNEL = frozenset({"deadline", "max_rounds", "isa"})
# The registry is a module-level dict so that users can add their own methods with
# register(); drfbench's own are the entries below, one block per family.
REGISTRY: dict[str, Method] = {}


def register(method: Method) -> Method:
    """Add `method` to the registry (drfbench's own are registered below; a user's own
    allocator can join the same way, with `implementation` pointing at its module)."""
    if method.name in REGISTRY:
        raise ValueError(f"a method named {method.name!r} is already registered")
    if method.takes not in ENTRY_POINTS:
        raise ValueError(f"method {method.name!r}: unknown input kind {method.takes!r}; "
                         f"known: {', '.join(ENTRY_POINTS)}")
    REGISTRY[method.name] = method
    return method


def methods(family=None, takes=None) -> tuple[str, ...]:
    """Names of the registered methods, optionally only those of one family or input kind."""
    return tuple(m.name for m in REGISTRY.values()
                 if family in (None, m.family) and takes in (None, m.takes))


def method_info(name) -> Method:
    """The registered `Method` called `name`."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; registered methods: {', '.join(methods())}")
    return REGISTRY[name]


def families() -> tuple[str, ...]:
    """The families of the registered methods, in registry order."""
    return tuple(dict.fromkeys(m.family for m in REGISTRY.values()))


# DC-DRF (Kash, O'Shea, Volos, SoCC'18): drfbench.dcdrf
register(Method("edrf", "dcdrf", DEMANDS, "EDRF, Algorithm 1: the conventional single-threaded baseline",
                "dcdrf.methods:run_edrf", _KERNEL, label="EDRF", exact=True, conventional=True))
register(Method("dcdrf", "dcdrf", DEMANDS, "DC-DRF, Algorithm 2's inner loop, parallel",
                "dcdrf.methods:run_dcdrf", _KERNEL | {"epsilon", "threads"}, label="DC-DRF", exact=True))
register(Method("sdcdrf", "dcdrf", DEMANDS, "DC-DRF on one thread (sDC-DRF)",
                "dcdrf.methods:run_dcdrf", _KERNEL | {"epsilon"}, label="sDC-DRF", exact=True))
register(Method("pedrf", "dcdrf", DEMANDS, "parallel EDRF stopped at the deadline (pEDRF: epsilon = 0)",
                "dcdrf.methods:run_dcdrf", _KERNEL | {"threads"}, label="pEDRF", exact=True))
register(Method("pedrf1", "dcdrf", DEMANDS, "parallel EDRF for exactly one round (pEDRF-1, akin to HUG)",
                "dcdrf.methods:run_dcdrf", _KERNEL | {"threads"}, label="pEDRF-1", max_rounds=1))
register(Method("edrf-event", "dcdrf", DEMANDS,
                "exact EDRF, event-driven (drfbench's own); epsilon gives DC-DRF's rounds",
                "dcdrf.methods:run_edrf_event", _KERNEL | {"epsilon", "threads"}, label="edrf-event",
                exact=True))
# Classic DRF and the lecture's policies (Ghodsi et al., NSDI'11; cs262a): drfbench.drf
register(Method("drf", "drf", DEMANDS, "divisible DRF by progressive filling (NumPy, small instances)",
                "drf.divisible:run_drf", label="DRF", exact=True))
register(Method("asset-fairness", "drf", DEMANDS, "asset fairness by progressive filling (NumPy)",
                "drf.divisible:run_asset_fairness", label="Asset"))
register(Method("ceei", "drf", DEMANDS, "competitive equilibrium from equal incomes (NumPy, exact)",
                "drf.divisible:run_ceei", label="CEEI"))
register(Method("online-drf", "drf", TASKS, "online DRF: the next task goes to the lowest dominant share",
                "drf.tasks:task_scheduler", frozenset({"weights", "tasks"}), label="DRF"))
register(Method("slots", "drf", TASKS, "slot-based fair sharing, k slots per machine (Hadoop)",
                "drf.tasks:task_scheduler", frozenset({"weights", "tasks", "slots"}), label="slots"))
# H-DRF (Bhattacharya et al., SoCC'13; the slides by Ghodsi) and its rivals: drfbench.hdrf
_TREE_OPTIONS = frozenset({"tasks", "incremental"})
register(Method("hdrf", "hdrf", TREE, "H-DRF: top-down by lowest dominant share, siblings "
                "rescaled to the lowest non-blocked one, blocked nodes ignored",
                "hdrf.tasks:tree_scheduler", _TREE_OPTIONS, label="H-DRF"))
register(Method("static-hdrf", "hdrf", TREE, "static H-DRF: top-down equalizing on raw usage, "
                "without the two invariants", "hdrf.tasks:tree_scheduler", _TREE_OPTIONS,
                label="Static H-DRF"))
register(Method("naive-hdrf", "hdrf", TREE, "naive hierarchical DRF (Hadoop): raw subtree "
                "usage, a task that fits nowhere is waited for", "hdrf.tasks:tree_scheduler",
                _TREE_OPTIONS, label="Naive H-DRF"))
register(Method("flatten", "hdrf", TREE, "hierarchy flattening: weighted DRF on the leaves, "
                "weights the products of weight fractions", "hdrf.tasks:tree_scheduler",
                _TREE_OPTIONS, label="Flattening"))
register(Method("capacity", "hdrf", TREE, "capacity scheduler: each node limited to its "
                "guaranteed fraction (not Pareto efficient)", "hdrf.tasks:tree_scheduler",
                _TREE_OPTIONS, label="Capacity"))
register(Method("capacity-pareto", "hdrf", TREE, "capacity scheduler filling idle capacity "
                "beyond the guarantees (Pareto)", "hdrf.tasks:tree_scheduler", _TREE_OPTIONS,
                label="Capacity (Pareto)"))
# DRFH (Wang, Liang, Li: DRF in cloud computing systems with heterogeneous servers):
# drfbench.drfh. Both are exact, for divisible tasks.
_SERVER_OPTIONS = frozenset({"weights", "tasks"})
register(Method("drfh", "drfh", SERVERS, "DRFH, problem (7): equal weighted global dominant "
                "shares under per-server capacities, in progressive rounds",
                "drfh.exact:allocate", _SERVER_OPTIONS | {"solver"}, label="DRFH", exact=True))
register(Method("per-server-drf", "drfh", SERVERS, "naive extension (Sec. III-D): DRF on each "
                "server alone", "drfh.exact:allocate", _SERVER_OPTIONS, label="Per-server DRF"))
# DRFH (Wang, Liang, Li: DRF with heterogeneous servers), Sec. V-B's discrete schedulers
# and Sec. VI's slot scheduler: drfbench.drfh
_DRFH_OPTIONS = frozenset({"weights", "index", "threads"})
register(Method("drfh-first-fit", "drfh", SERVERS, "First-Fit DRFH: the lowest global "
                "dominant share, on the first server where its task fits",
                "drfh.schedulers:registered", _DRFH_OPTIONS, label="First-Fit DRFH"))
register(Method("drfh-best-fit", "drfh", SERVERS, "Best-Fit DRFH: the lowest global dominant "
                "share, on the server minimizing Eq. 9", "drfh.schedulers:registered",
                _DRFH_OPTIONS, label="Best-Fit DRFH"))
register(Method("drfh-slots", "drfh", SERVERS, "slots: k per maximum server, scaled to each "
                "server (Sec. VI's baseline)", "drfh.schedulers:registered",
                _DRFH_OPTIONS | {"slots"}, label="Slots"))
# Packer (Marcon and Barcellos, IFIP Networking 2017) and its rivals: drfbench.packer
register(Method("packer", "packer", APPLICATIONS, "Packer: Algorithm 1 with the score of Eq. "
                "6-8 over servers and paths, whole applications or none", "packer:simulate",
                frozenset({"threads", "isa"}), label="Packer"))
register(Method("tetris", "packer", APPLICATIONS, "Tetris: alignment score of demand and "
                "residual, network only penalized (remote penalty)", "packer:simulate",
                frozenset({"threads", "isa"}), label="Tetris"))
register(Method("packer-slots", "packer", APPLICATIONS, "slot-based: four equal slots per "
                "server, first fit (policy \"slots\" of drfbench.packer.simulate)",
                "packer:simulate", frozenset({"threads", "isa"}), label="Slots"))


@dataclass(frozen=True)
class AllocationResult:
    """What `allocate` returns.

    allocation: CSR array shaped like the demands, A_ir = fraction of resource r given to
        tenant i (it shares its index arrays with the validated demands).
    level: z_i per tenant, tenant i's weighted dominant share max_r A_ir / w_i, i.e. the
        y at which it left (Algorithm 2; 0 for all-zero rows).
    rounds: iterations of the inner loop; elapsed: the method's own wall-clock seconds;
    timed_out: stopped by the deadline or the round budget before every tenant left.
    """
    allocation: sp.csr_array
    level: np.ndarray
    rounds: int
    elapsed: float
    timed_out: bool
    method: str
    epsilon: float
    threads: int
    isa: str


def output_array(n, dtype):
    """An uninitialized array of n items for a kernel's output. Large ones are anonymous
    mappings of ordinary 4 KiB pages: numpy asks the OS for transparent huge pages on
    large arrays, and with THP in "madvise" mode (defrag "madvise") a first touch of such
    memory can stall on compaction: 0.5 s against 0.08 s for the 260 MB output of a
    1M x 100K allocation on the development VM, in every call whose earlier results are
    still held. The kernels write every entry, so nothing needs zeroing."""
    dtype = np.dtype(dtype)
    if n * dtype.itemsize < OWN_PAGES_BYTES:
        return np.empty(n, dtype=dtype)
    pages = mmap.mmap(-1, n * dtype.itemsize, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(pages, dtype=dtype, count=n)


def _options(spec, epsilon, deadline, max_rounds, threads, isa):
    """The options as the method's implementation gets them: checked, refused when the
    method does not take them, defaults filled in (threads decided here)."""
    given = {"epsilon": check.epsilon_value(epsilon), "deadline": check.deadline_value(deadline),
             "max_rounds": check.positive_int(max_rounds, "max_rounds"),
             "threads": check.positive_int(threads, "threads"), "isa": isa}
    if spec.max_rounds is not None:
        if given["max_rounds"] not in (None, spec.max_rounds):
            raise ValueError(f"method {spec.name!r} always runs {spec.max_rounds} round(s); "
                             f"got max_rounds={given['max_rounds']}")
        given["max_rounds"] = spec.max_rounds
    for option, neutral in ALLOCATE_OPTIONS.items():
        value = given[option]
        if spec.takes_option(option) or value == neutral or (option == "threads" and value == 1):
            continue
        if option == "epsilon":
            raise ValueError(f"method {spec.name!r} is exact and takes no epsilon (got {value}); "
                             f"methods with a tolerance: {', '.join(_with('epsilon'))}")
        if option == "threads":
            raise ValueError(f"method {spec.name!r} is single-threaded; threads must be 1 or None, got {value}")
        raise ValueError(f"method {spec.name!r} takes no {option} (got {value!r})")
    given["threads"] = resolve_threads(given["threads"]) if spec.takes_option("threads") else 1
    return given


def _with(option):
    return [m.name for m in REGISTRY.values() if m.takes == DEMANDS and m.takes_option(option)]


def allocate(demands, method="dcdrf", *, weights=None, epsilon=0.0, deadline=None,
             max_rounds=None, threads=None, dtype=None, isa=None) -> AllocationResult:
    """Allocate resources to tenants with a registered method that takes divisible demands
    (`methods(takes="demands")`).

    demands: dense 2-D array or scipy.sparse matrix, tenants x resources, entries the
        fraction D_ir of resource r that tenant i demands (in [0, 1]).
    weights: positive weight per tenant (rho_i = w_i / d_ir*), default all ones.
    epsilon: DC-DRF's tolerance in [0, 1): a resource counts as exhausted once its
        residual is at most epsilon (Algorithm 2 line 16).
    deadline: seconds after which the inner loop stops at the end of its round (line 19);
        max_rounds: the same, counted in rounds (deterministic, for reproducible runs).
    threads: OpenMP threads (default: OMP_NUM_THREADS, else every usable CPU).
    dtype: float32 or float64 for the kernel (default: the demands' float type).
    isa: kernel vector-width variant, "scalar", "generic", "avx2" or "avx512" (default:
        $DRFBENCH_ISA, else the widest this CPU runs); one the CPU cannot run is refused.
    Each method takes only some of these options (`method_info(name).options`); asking
    one for an option it does not take is an error.
    """
    spec = method_info(method)
    if spec.takes != DEMANDS:
        raise ValueError(f"method {method!r} takes {spec.takes}, not divisible demands: "
                         f"use {ENTRY_POINTS[spec.takes]}")
    options = _options(spec, epsilon, deadline, max_rounds, threads, isa)
    matrix = check.demand_matrix(demands, dtype)
    w = check.tenant_weights(weights, matrix.shape[0])
    values, level, rounds, timed_out, elapsed, variant = spec.run(spec, matrix, w, **options)
    return AllocationResult(
        allocation=check.csr_from_arrays(values, matrix.indices, matrix.indptr, matrix.shape),
        level=level, rounds=int(rounds), elapsed=float(elapsed), timed_out=bool(timed_out),
        method=method, epsilon=options["epsilon"], threads=options["threads"], isa=variant)
