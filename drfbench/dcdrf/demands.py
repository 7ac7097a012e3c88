"""DC-DRF's input kind, divisible demands: `allocate`, the dispatch every method taking
"demands" runs through (DC-DRF's own, drfbench.dcdrf.methods, and classic DRF's divisible
policies, drfbench.drf.divisible), and its `AllocationResult` (drfbench.allocate and
drfbench.AllocationResult).

allocate checks the demands, the weights and the options (OPTIONS, as declared) once for
every such method, then calls the method's implementation as f(spec, matrix, weights,
**options), each of OPTIONS by its name, on validated CSR demands and weights scaled by a
power of two (the largest in [1, 2)); it returns (allocation values in the demands' sparsity, level,
rounds, timed_out, elapsed, the kernels' variant).
"""
import math
import mmap
from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.sparse as sp

from .. import _validation as check
from .. import api
from .._machine import resolve_threads
from .catalog import DEADLINE, DEMANDS, EPSILON, MAX_ROUNDS

THREADS = api.THREADS

# Outputs of this many bytes or more get pages of their own (see output_array): the size
# from which glibc's malloc maps new memory for every array anyway.
OWN_PAGES_BYTES = 32 * 2**20


def _variant(value, name):
    """A kernel variant's name (text), refused otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a kernel variant's name (text) or None, got {value!r}")
    return value


# The options of allocate beyond demands, weights and dtype, as declared, each with how its
# value is read (a number, a duration, a count: a positive integer) before its declared
# bounds are checked; a default of None takes None as it is. Their defaults mean "not asked
# for": a method that does not take an option accepts that value only.
_count = partial(check.positive_int, upper=math.inf)    # at most: the declaration's bound
OPTIONS = {EPSILON: check.real, DEADLINE: check.duration, MAX_ROUNDS: _count, THREADS: _count,
           api.ISA: _variant}


@dataclass(frozen=True)
class AllocationResult:
    """What `allocate` returns.

    Attributes
    ----------
    allocation : scipy.sparse.csr_array
        Shaped like the demands, A_ir = fraction of resource r given to tenant i (it
        shares its index arrays with the validated demands).
    level : numpy.ndarray
        z_i per tenant, tenant i's weighted dominant share max_r A_ir / w_i, i.e. the y at
        which it left (Algorithm 2; 0 for all-zero rows).
    rounds : int
        Iterations of the inner loop.
    elapsed : float
        The method's own wall-clock seconds.
    timed_out : bool
        Stopped by the deadline or the round budget before every tenant left.
    method : str
        The method that ran.
    epsilon : float
        Its epsilon.
    threads : int
        The OpenMP threads it ran on.
    isa : str
        The kernels' variant that ran.
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
        """Tidy rows, one per tenant: the run's method, epsilon, threads, rounds, elapsed and
        timed_out, then the tenant (its index), its level and its dominant share max_r A_ir
        (`share`), stamped with the variant that ran (drfbench.rows).

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        run = {"method": self.method, EPSILON.name: self.epsilon, THREADS.name: self.threads,
               "rounds": self.rounds, "elapsed": self.elapsed, "timed_out": self.timed_out}
        share = self.allocation.max(axis=1).toarray().ravel()
        from .. import rows as tidy  # here: importing drfbench must not import drfbench.rows,
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


def _options(spec, options):
    """The options as the method's implementation gets them: each of OPTIONS checked as
    declared (read, then its bounds), refused when the method does not take it, defaults
    filled in (threads decided here); a keyword of none of them refused as Python would."""
    unknown = sorted(set(options) - {o.name for o in OPTIONS})
    if unknown:
        raise TypeError(f"allocate() got an unexpected keyword argument {unknown[0]!r}")
    given = {}
    for o, read in OPTIONS.items():
        value = options.get(o.name, o.default)
        given[o.name] = value if value is None and o.default is None else \
            o.check(read(value, o.name))
    rounds = MAX_ROUNDS.name
    if spec.max_rounds is not None:
        if given[rounds] not in (None, spec.max_rounds):
            raise ValueError(f"method {spec.name!r} always runs {spec.max_rounds} round(s); "
                             f"got {rounds}={given[rounds]}")
        given[rounds] = spec.max_rounds
    for o in OPTIONS:
        value = given[o.name]
        if spec.takes_option(o.name) or value == o.default or (o is THREADS and value == 1):
            continue
        if o is EPSILON:
            raise ValueError(f"method {spec.name!r} is exact and takes no {o.name} (got {value}); "
                             f"methods with a tolerance: {', '.join(_with(o.name))}")
        if o is THREADS:
            raise ValueError(f"method {spec.name!r} is single-threaded; {o.name} must be 1 or "
                             f"None, got {value}")
        raise ValueError(f"method {spec.name!r} takes no {o.name} (got {value!r})")
    given[THREADS.name] = (resolve_threads(given[THREADS.name])
                           if spec.takes_option(THREADS.name) else 1)
    return given


def _with(option):
    return [m for m in api.methods(takes=DEMANDS) if api.method_info(m).takes_option(option)]


def allocate(demands, method="dcdrf", *, weights=None, dtype=None, **options) -> AllocationResult:
    """Allocate resources to tenants with a registered method that takes divisible demands
    (`methods(takes="demands")`). Each method takes only some of the options
    (`method_info(name).options`); asking one for an option it does not take is an error.

    Parameters
    ----------
    demands : array_like or scipy.sparse matrix
        Tenants x resources, dense 2-D or sparse; entries the fraction D_ir of resource r
        that tenant i demands: 0, or in [tiny, 1] where tiny is the kernel float type's
        smallest normal number (`np.finfo(dtype).tiny`: 2.2e-308 for float64, 1.2e-38
        for float32; a tenant's allocation is its demands scaled by 1 / its largest
        demand). A DataFrame with text column labels, or a dict of columns, gives the
        resources in its column order (allocate has no other table to match names
        against); a DataFrame's other labels than 0..m-1 are refused.
    method : str
        The registered method, default "dcdrf".
    weights : array_like, optional
        A positive weight per tenant (rho_i = w_i / d_ir*), default all ones; each in
        [1e-300, 1e300] and all within a factor 1e9 (`MAX_WEIGHT_RATIO`) of each other.
        Only their ratios matter: the kernels get them scaled by a power of two (the
        largest in [1, 2)), and the levels are reported for the weights as given.
    dtype : {"float32", "float64"}, optional
        The kernel's float type (default: the demands').
    **options
        The method's options, declared in OPTIONS (each at its declared default unless
        given; one the method does not take is refused). `epsilon`: DC-DRF's tolerance in
        [0, 1), a resource counts as exhausted once its residual is at most epsilon
        (Algorithm 2 line 16). `deadline`: seconds after which the inner loop stops at the
        end of its round (line 19). `max_rounds`: the same, counted in rounds
        (deterministic, for reproducible runs), at most `2**62`; exact EDRF exhausts at
        least one resource per round, so no run needs more than n_resources + 1 rounds:
        past n_resources + 2 a run stops with a RuntimeError (a bug to report) rather than
        running on. `threads`: OpenMP threads in [1, 1024] (default: `OMP_NUM_THREADS`,
        else every usable CPU). `isa`: the kernels' vector-width variant, "scalar",
        "generic", "avx2" or "avx512" (default: `$DRFBENCH_ISA`, else the widest this CPU
        runs); one the CPU cannot run is refused.

    Returns
    -------
    AllocationResult
        The allocation, the levels, rounds, elapsed time, whether the deadline stopped it.

    Raises
    ------
    ValueError
        Bad demands, weights or options (naming the value), an unknown method or one that
        takes other inputs, a variant this CPU cannot run or that was not built.
    TypeError
        A keyword that is none of the options, or an option's value of the wrong type.
    RuntimeError
        A run past n_resources + 2 rounds (a bug).
    """
    spec = api.method_info(method, DEMANDS)
    options = _options(spec, options)
    if dtype is not None and not isinstance(dtype, np.dtype):
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"dtype must be float32 or float64, got {dtype!r}") from None
    if not sp.issparse(demands):        # a DOK matrix is a dict, yet not one of columns
        demands = check.by_name(demands, "demands")[1]
    matrix = check.demand_matrix(demands, dtype)
    w, shift = check.unit_weights(check.tenant_weights(weights, matrix.shape[0]))
    budget = matrix.shape[1] + 2       # exact EDRF exhausts a resource per round
    if spec.takes_option(MAX_ROUNDS.name):
        options[MAX_ROUNDS.name] = min(options[MAX_ROUNDS.name] or budget, budget)
    values, level, rounds, timed_out, elapsed, variant = spec.run(spec, matrix, w, **options)
    if timed_out and rounds >= budget or not np.isfinite(level).all() or (level < 0).any():
        raise RuntimeError(f"method {method!r} ran {rounds} rounds on demands of shape "
                           f"{matrix.shape} and gave levels from {level.min()} to {level.max()} "
                           f"(at most n_resources + 1 rounds and finite levels >= 0 expected): "
                           "a bug in drfbench, please report it with the input")
    return AllocationResult(          # in field order: the method, epsilon, threads, isa
        check.csr_from_arrays(values, matrix.indices, matrix.indptr, matrix.shape),
        np.ldexp(level, shift), int(rounds), float(elapsed), bool(timed_out), method,
        options[EPSILON.name], options[THREADS.name], variant)
