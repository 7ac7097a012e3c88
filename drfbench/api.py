"""The registry of every method drfbench knows, and the one dispatch: `run()` for every
input kind, `allocate()` for divisible demands.

A method is one `Method` in REGISTRY: its name, its family, the input kind it takes
(divisible demands, tasks on machines, a tree, servers, a trace, applications, flows), the
options it accepts, and where its implementation lives ("module:function" inside
drfbench, imported on first use, so that reading the registry loads no kernel). An input
kind is one `InputKind` in KINDS: the inputs its methods take, the function users call,
where its file reader and its property checks live. Everything outside a family asks the
registry about methods rather than naming them: the pipeline's grids, the controller, the
`drfbench` command, the property tables.

Every run of a registered method goes through `run` (each family's public function is
`run` for its input kind): the options are checked against the method's, their defaults
are the implementation's, and the thread count is decided there, once, and passed down as
an int. A user who asks a method for something it cannot do (a tolerance for exact EDRF,
threads for the single-threaded baseline, slots for H-DRF) gets a clear error instead of a
silently different run.
"""
import importlib
import inspect
import mmap
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from . import _validation as check
from ._machine import MAX_THREADS, resolve_threads

NO_ROUND_LIMIT = 2**62
# Outputs of this many bytes or more get pages of their own (see output_array): the size
# from which glibc's malloc maps new memory for every array anyway.
OWN_PAGES_BYTES = 32 * 2**20


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
    that row's name in the file (the reader's `names=True`), or None.
    """
    name: str
    inputs: tuple
    entry: str
    reader: str
    properties: str | None = None
    names: str | None = None

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


KINDS: dict[str, InputKind] = {}


def register_kind(kind: InputKind) -> InputKind:
    """Add an input kind (drfbench's own are registered below, one per family that
    brought it)."""
    if kind.name in KINDS:
        raise ValueError(f"an input kind named {kind.name!r} is already registered")
    KINDS[kind.name] = kind
    return kind


@dataclass(frozen=True)
class Method:
    """A registered method.

    name: what users pass as `method` (or `policy`, `scheduler`); family: the paper family
    it belongs to (drfbench.<family>); takes: its input kind (a key of KINDS); summary:
    one line; implementation: "module:function" in drfbench, called by `run` as
    function(spec, *inputs, **options), whose keyword defaults are the method's defaults;
    options: the option names it accepts; label: its name in tables and figures; exact:
    gives the exact allocation (usable as the fairness baseline); conventional: the
    literal, slow baseline, timed within a budget and extrapolated beyond it; max_rounds:
    a fixed round budget, if it has one.
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
        """Each option's default: for divisible demands, ALLOCATE_OPTIONS'; otherwise the
        implementation's keyword default (imports the family, loads no kernel)."""
        if self.takes == DEMANDS:
            return {o: v for o, v in ALLOCATE_OPTIONS.items() if o in self.options}
        params = inspect.signature(self.run).parameters
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


# The registry is a module-level dict so that users can add their own methods with
# register(); drfbench's own are the entries below, one block per family.
REGISTRY: dict[str, Method] = {}


def register(method: Method) -> Method:
    """Add `method` to the registry (drfbench's own are registered below; a user's own
    allocator can join the same way, with `implementation` pointing at its module)."""
    if method.name in REGISTRY:
        raise ValueError(f"a method named {method.name!r} is already registered")
    if method.takes not in KINDS:
        raise ValueError(f"method {method.name!r}: unknown input kind {method.takes!r}; "
                         f"known: {', '.join(KINDS)}")
    REGISTRY[method.name] = method
    return method


def methods(family=None, takes=None) -> tuple[str, ...]:
    """Names of the registered methods, optionally only those of one family or input kind."""
    return tuple(m.name for m in REGISTRY.values()
                 if family in (None, m.family) and takes in (None, m.takes))


def method_info(name, takes=None) -> Method:
    """The registered `Method` called `name`; with `takes`, one of that input kind (else a
    ValueError naming the function its kind is called through)."""
    if not isinstance(name, str) or name not in REGISTRY:
        known = ", ".join(methods(takes=takes))
        raise ValueError(f"unknown method {name!r}; registered methods"
                         f"{f' taking {takes}' if takes else ''}: {known}")
    spec = REGISTRY[name]
    if takes is not None and spec.takes != takes:
        raise ValueError(f"method {name!r} takes {spec.takes}, not {takes}: call it through "
                         f"{KINDS[spec.takes].entry}; {takes} methods: "
                         f"{', '.join(methods(takes=takes))}")
    return spec


def families() -> tuple[str, ...]:
    """The families of the registered methods, in registry order."""
    return tuple(dict.fromkeys(m.family for m in REGISTRY.values()))


def run(method, *inputs, takes=None, **options):
    """Run registered method `method` on its inputs (its input kind's, in order) with
    `options`: the one dispatch every family's public function goes through. `takes`
    insists on an input kind. Divisible demands go through `allocate`."""
    spec = method_info(method, takes)
    kind = KINDS[spec.takes]
    if len(inputs) != len(kind.inputs):
        raise TypeError(f"method {spec.name!r} takes {len(kind.inputs)} input(s) "
                        f"({', '.join(kind.inputs)}), got {len(inputs)}")
    if spec.takes == DEMANDS:
        return allocate(*inputs, method, **options)
    return spec.run(spec, *inputs, **spec.checked(options))


# Options of drfbench.allocate beyond demands, weights and dtype, with the value that
# means "not asked for" (a method that does not take an option accepts that value only).
ALLOCATE_OPTIONS = {"epsilon": 0.0, "deadline": None, "max_rounds": None, "threads": None,
                    "isa": None}
_KERNEL = frozenset({"deadline", "max_rounds", "isa"})

# The input kinds, each brought by a family, and their methods, one block per family.
DEMANDS = register_kind(InputKind(
    "demands", ("demands",), "drfbench.allocate(demands, method, ...)",
    "dcdrf.workloads:read_demands", properties="drf.properties", names="tenant")).name
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
TASKS = register_kind(InputKind(
    "tasks", ("demands", "machines"),
    "drfbench.drf.schedule(demands, machines, policy, ...) (drfbench.drf.scheduler for the "
    "cluster simulator)", "drf.tasks:read_inputs", names="user")).name
register(Method("drf", "drf", DEMANDS, "divisible DRF by progressive filling (NumPy, small instances)",
                "drf.divisible:run_drf", label="DRF", exact=True))
register(Method("asset-fairness", "drf", DEMANDS, "asset fairness by progressive filling (NumPy)",
                "drf.divisible:run_asset_fairness", label="Asset"))
register(Method("ceei", "drf", DEMANDS, "competitive equilibrium from equal incomes (NumPy, exact)",
                "drf.divisible:run_ceei", label="CEEI"))
register(Method("online-drf", "drf", TASKS, "online DRF: the next task goes to the lowest dominant share",
                "drf.tasks:run_policy", frozenset({"weights", "tasks", "isa"}), label="DRF"))
register(Method("hadoop-slots", "drf", TASKS, "slot-based fair sharing, k slots per machine "
                "(Hadoop's fair scheduler)", "drf.tasks:run_policy",
                frozenset({"weights", "tasks", "slots", "isa"}), label="slots"))
# H-DRF (Bhattacharya et al., SoCC'13; the slides by Ghodsi) and its rivals: drfbench.hdrf
TREE = register_kind(InputKind(
    "tree", ("tree", "machines"),
    "drfbench.hdrf.schedule(tree, machines, policy, ...) (drfbench.hdrf.scheduler for the "
    "cluster simulator, drfbench.hdrf.allocate for a divisible pool)",
    "hdrf.tree:read_inputs", properties="hdrf.properties")).name
_TREE_OPTIONS = frozenset({"tasks", "incremental", "sets", "isa"})
register(Method("hdrf", "hdrf", TREE, "H-DRF: top-down by lowest dominant share, siblings "
                "rescaled to the lowest non-blocked one, blocked nodes ignored",
                "hdrf.tasks:run_policy", _TREE_OPTIONS, label="H-DRF"))
register(Method("static-hdrf", "hdrf", TREE, "static H-DRF: top-down equalizing on raw usage, "
                "without the two invariants", "hdrf.tasks:run_policy", _TREE_OPTIONS,
                label="Static H-DRF"))
register(Method("naive-hdrf", "hdrf", TREE, "naive hierarchical DRF (Hadoop): raw subtree "
                "usage, a task that fits nowhere is waited for", "hdrf.tasks:run_policy",
                _TREE_OPTIONS, label="Naive H-DRF"))
register(Method("flatten", "hdrf", TREE, "hierarchy flattening: weighted DRF on the leaves, "
                "weights the products of weight fractions", "hdrf.tasks:run_policy",
                _TREE_OPTIONS, label="Flattening"))
register(Method("capacity", "hdrf", TREE, "capacity scheduler: each node limited to its "
                "guaranteed fraction (not Pareto efficient)", "hdrf.tasks:run_policy",
                _TREE_OPTIONS, label="Capacity"))
register(Method("capacity-pareto", "hdrf", TREE, "capacity scheduler filling idle capacity "
                "beyond the guarantees (Pareto)", "hdrf.tasks:run_policy", _TREE_OPTIONS,
                label="Capacity (Pareto)"))
# DRFH (Wang, Liang, Li: DRF in cloud computing systems with heterogeneous servers):
# drfbench.drfh. Exact DRFH and per-server DRF, for divisible tasks (Sec. III-D, V-A) ...
SERVERS = register_kind(InputKind(
    "servers", ("demands", "servers"), "drfbench.drfh.allocate(demands, servers, method, ...)",
    "drfh.exact:read_inputs", properties="drfh.properties", names="user")).name
_SERVER_OPTIONS = frozenset({"weights", "tasks"})
register(Method("drfh", "drfh", SERVERS, "DRFH, problem (7): equal weighted global dominant "
                "shares under per-server capacities, in progressive rounds",
                "drfh.exact:run_exact", _SERVER_OPTIONS | {"solver"}, label="DRFH", exact=True))
register(Method("per-server-drf", "drfh", SERVERS, "naive extension (Sec. III-D): DRF on each "
                "server alone", "drfh.exact:run_exact", _SERVER_OPTIONS, label="Per-server DRF"))
# ... and the discrete schedulers of Sec. V-B and Sec. VI's slots, on a trace of tasks
TRACE = register_kind(InputKind(
    "trace", ("servers", "tasks"),
    "drfbench.drfh.simulate(servers, tasks, scheduler, ...) (drfbench.drfh.scheduler for the "
    "cluster simulator)", "drfh.trace:read_inputs")).name
_TRACE_OPTIONS = frozenset({"sample", "horizon", "weights", "index", "threads", "isa", "literal"})
register(Method("drfh-first-fit", "drfh", TRACE, "First-Fit DRFH: the lowest global "
                "dominant share, on the first server where its task fits",
                "drfh.simulation:run_scheduler", _TRACE_OPTIONS, label="First-Fit DRFH"))
register(Method("drfh-best-fit", "drfh", TRACE, "Best-Fit DRFH: the lowest global dominant "
                "share, on the server minimizing Eq. 9", "drfh.simulation:run_scheduler",
                _TRACE_OPTIONS, label="Best-Fit DRFH"))
register(Method("drfh-slots", "drfh", TRACE, "slots: k per maximum server, scaled to each "
                "server (Sec. VI's baseline)", "drfh.simulation:run_scheduler",
                _TRACE_OPTIONS | {"slots", "slot_model"}, label="Slots"))
# Packer (Marcon and Barcellos, IFIP Networking 2017) and its rivals: drfbench.packer
APPLICATIONS = register_kind(InputKind(
    "applications", ("infrastructure", "applications"),
    "drfbench.packer.simulate(infrastructure, applications, policy, ...)",
    "packer.workload:read_inputs")).name
_APPLICATION_OPTIONS = frozenset({"view", "threads", "isa"})     # view: what a policy is told
register(Method("packer", "packer", APPLICATIONS, "Packer: Algorithm 1 with the score of Eq. "
                "6-8 over servers and paths, whole applications or none",
                "packer.simulate:run_policy", _APPLICATION_OPTIONS | {"score"}, label="Packer"))
register(Method("tetris", "packer", APPLICATIONS, "Tetris: alignment score of demand and "
                "residual, network only penalized (remote penalty)",
                "packer.simulate:run_policy", _APPLICATION_OPTIONS, label="Tetris"))
register(Method("packer-slots", "packer", APPLICATIONS, "slot-based: four equal slots per "
                "server, first fit", "packer.simulate:run_policy", _APPLICATION_OPTIONS,
                label="Slots"))
# DRFQ (Ghodsi, Sekar, Zaharia, Stoica: Multi-Resource Fair Queueing for Packet Processing,
# SIGCOMM'12; the cs262a lecture's closing experiment) and its rivals: drfbench.drfq
FLOWS = register_kind(InputKind(
    "flows", ("costs",), "drfbench.drfq.simulate(costs, scheduler, ...)",
    "drfq.model:read_inputs", names="flow")).name
_FLOW_OPTIONS = frozenset({"duration", "weights", "rates", "source", "packet_costs", "rtt",
                           "buffer", "stage_buffer", "initial_window", "bins", "seed",
                           "decisions", "literal", "isa"})
register(Method("drfq", "drfq", FLOWS, "memoryless DRFQ: start-time fair queueing on each "
                "packet's dominant processing time", "drfq.simulate:run_scheduler",
                _FLOW_OPTIONS, label="DRFQ"))
register(Method("drfq-dovetail", "drfq", FLOWS, "dovetailing DRFQ: virtual start and finish "
                "times per resource, ordered by the largest start", "drfq.simulate:run_scheduler",
                _FLOW_OPTIONS, label="DRFQ (dovetailing)"))
register(Method("fq", "drfq", FLOWS, "single-resource fair queueing (SFQ) on one resource",
                "drfq.simulate:run_scheduler", _FLOW_OPTIONS | {"resource"}, label="FQ"))
register(Method("bottleneck", "drfq", FLOWS, "bottleneck fairness: SFQ on the resource "
                "busiest over the last interval (300 ms in the lecture's Click run)",
                "drfq.simulate:run_scheduler", _FLOW_OPTIONS | {"resource", "interval"},
                label="Bottleneck"))
register(Method("fifo", "drfq", FLOWS, "first come, first served", "drfq.simulate:run_scheduler",
                _FLOW_OPTIONS, label="FIFO"))


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

    def rows(self, **columns):
        """Tidy rows, one per tenant: the run's method, epsilon, threads, rounds, elapsed
        and timed_out, then the tenant (its index), its level and its dominant share
        max_r A_ir (`share`), with `columns` added, stamped with the variant that ran
        (drfbench.rows)."""
        run = {"method": self.method, "epsilon": self.epsilon, "threads": self.threads,
               "rounds": self.rounds, "elapsed": self.elapsed, "timed_out": self.timed_out}
        share = self.allocation.max(axis=1).toarray().ravel()
        from . import rows as tidy  # here: importing drfbench must not import drfbench.rows,
        # which `python -m drfbench.rows` then runs a second copy of (runpy's RuntimeWarning)
        return tidy.stamped(({**run, "tenant": i, "level": z, "share": s}
                             for i, (z, s) in enumerate(zip(self.level.tolist(), share.tolist()))),
                            isa=self.isa, **columns)


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
    if isa is not None and not isinstance(isa, str):
        raise TypeError(f"isa must be a kernel variant's name (text) or None, got {isa!r}")
    given = {"epsilon": check.epsilon_value(epsilon), "deadline": check.deadline_value(deadline),
             "max_rounds": check.positive_int(max_rounds, "max_rounds"),
             "threads": check.positive_int(threads, "threads", upper=MAX_THREADS), "isa": isa}
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


def unit_weights(w):
    """(weights scaled by a power of two so that the largest lies in [1, 2), the shift:
    weights = ldexp(scaled, -shift)): only ratios matter, and the scaling is exact."""
    if not w.size:
        return w, 0
    shift = 1 - int(np.frexp(w.max())[1])
    return np.ldexp(w, shift), shift


def _with(option):
    return [m.name for m in REGISTRY.values() if m.takes == DEMANDS and m.takes_option(option)]


def allocate(demands, method="dcdrf", *, weights=None, epsilon=0.0, deadline=None,
             max_rounds=None, threads=None, dtype=None, isa=None) -> AllocationResult:
    """Allocate resources to tenants with a registered method that takes divisible demands
    (`methods(takes="demands")`).

    demands: dense 2-D array or scipy.sparse matrix, tenants x resources, entries the
        fraction D_ir of resource r that tenant i demands: 0, or in [tiny, 1] where tiny
        is the kernel float type's smallest normal number (np.finfo(dtype).tiny:
        2.2e-308 for float64, 1.2e-38 for float32; a tenant's allocation is its demands
        scaled by 1 / its largest demand). A DataFrame with text column labels, or a
        dict of columns, gives the resources in its column order (allocate has no other
        table to match names against); a DataFrame's other labels than 0..m-1 are
        refused.
    weights: positive weight per tenant (rho_i = w_i / d_ir*), default all ones; each in
        [1e-300, 1e300] and all within a factor 1e9 (MAX_WEIGHT_RATIO) of each other.
        Only their ratios matter: the kernels get them scaled by a power of two (the
        largest in [1, 2)), and the levels are reported for the weights as given.
    epsilon: DC-DRF's tolerance in [0, 1): a resource counts as exhausted once its
        residual is at most epsilon (Algorithm 2 line 16).
    deadline: seconds after which the inner loop stops at the end of its round (line 19);
        max_rounds: the same, counted in rounds (deterministic, for reproducible runs),
        at most 2**62. Exact EDRF exhausts at least one resource per round, so no run
        needs more than n_resources + 1 rounds: past n_resources + 2 a run stops with a
        RuntimeError (a bug to report) rather than running on.
    threads: OpenMP threads in [1, 1024] (default: OMP_NUM_THREADS, else every usable
        CPU).
    dtype: float32 or float64 for the kernel (default: the demands' float type).
    isa: kernel vector-width variant, "scalar", "generic", "avx2" or "avx512" (default:
        $DRFBENCH_ISA, else the widest this CPU runs); one the CPU cannot run is refused.
    Each method takes only some of these options (`method_info(name).options`); asking
    one for an option it does not take is an error.
    """
    spec = method_info(method, DEMANDS)
    options = _options(spec, epsilon, deadline, max_rounds, threads, isa)
    if dtype is not None and not isinstance(dtype, np.dtype):
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"dtype must be float32 or float64, got {dtype!r}") from None
    if not sp.issparse(demands):        # a DOK matrix is a dict, yet not one of columns
        demands = check.by_name(demands, "demands")[1]
    matrix = check.demand_matrix(demands, dtype)
    w, shift = unit_weights(check.tenant_weights(weights, matrix.shape[0]))
    budget = matrix.shape[1] + 2       # exact EDRF exhausts a resource per round
    if spec.takes_option("max_rounds"):
        options["max_rounds"] = min(options["max_rounds"] or budget, budget)
    values, level, rounds, timed_out, elapsed, variant = spec.run(spec, matrix, w, **options)
    if timed_out and rounds >= budget or not np.isfinite(level).all() or (level < 0).any():
        raise RuntimeError(f"method {method!r} ran {rounds} rounds on demands of shape "
                           f"{matrix.shape} and gave levels from {level.min()} to {level.max()} "
                           f"(at most n_resources + 1 rounds and finite levels >= 0 expected): "
                           "a bug in drfbench, please report it with the input")
    return AllocationResult(
        allocation=check.csr_from_arrays(values, matrix.indices, matrix.indptr, matrix.shape),
        level=np.ldexp(level, shift), rounds=int(rounds), elapsed=float(elapsed),
        timed_out=bool(timed_out), method=method, epsilon=options["epsilon"],
        threads=options["threads"], isa=variant)
