"""The public entry point: `allocate(demands, method=...)` and the method registry.

Each registered method names a kernel and says which options it takes, so that a user
who asks for something a method cannot do (a tolerance for exact EDRF, threads for the
single-threaded baseline) gets a clear error instead of a silently different run.
"""
import mmap
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp

from . import _isa
from . import _validation as check
from ._config import default_threads

NO_ROUND_LIMIT = 2**62
# Outputs of this many bytes or more get pages of their own (see output_array): the size
# from which glibc's malloc maps new memory for every array anyway.
OWN_PAGES_BYTES = 32 * 2**20


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


@dataclass(frozen=True)
class AllocationResult:
    """What an allocator returns.

    allocation: CSR array shaped like the demands, A_ir = fraction of resource r given to
        tenant i (it shares its index arrays with the validated demands).
    level: z_i per tenant, the y at which tenant i left (0 for all-zero rows).
    rounds: iterations of the inner loop; elapsed: the kernel's own wall-clock seconds;
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


@dataclass(frozen=True)
class Method:
    """A registered allocator and the options it accepts.

    run(kernels, demands, weights, epsilon, deadline, max_rounds, threads, allocation, level)
    calls a kernel of the chosen variant (`kernels`, from drfbench._isa), fills allocation
    and level, and returns (rounds, timed_out, elapsed).
    """
    name: str
    run: Callable
    summary: str
    epsilon: bool = True          # accepts epsilon > 0
    multithreaded: bool = True    # accepts threads > 1
    max_rounds: int | None = None  # fixed round budget, if the method has one


_REGISTRY: dict[str, Method] = {}


def register(method: Method) -> Method:
    """Add an allocator under `method.name` (other families register theirs the same way)."""
    if method.name in _REGISTRY:
        raise ValueError(f"an allocator named {method.name!r} is already registered")
    _REGISTRY[method.name] = method
    return method


def methods() -> tuple[str, ...]:
    """Names of the registered allocators, for `allocate(..., method=name)`."""
    return tuple(_REGISTRY)


def method_info(name) -> Method:
    """The registered `Method` called `name` (its summary and the options it takes)."""
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"unknown method {name!r}; registered methods: {', '.join(methods())}")
    return _REGISTRY[name]


def allocate(demands, method="dcdrf", *, weights=None, epsilon=0.0, deadline=None,
             max_rounds=None, threads=None, dtype=None, isa=None) -> AllocationResult:
    """Allocate resources to tenants with a registered method (see `methods()`).

    demands: dense 2-D array or scipy.sparse matrix, tenants x resources, entries the
        fraction D_ir of resource r that tenant i demands (in [0, 1]).
    weights: positive weight per tenant (rho_i = w_i / d_ir*), default all ones.
    epsilon: DC-DRF's tolerance in [0, 1): a resource counts as exhausted once its
        residual is at most epsilon (Algorithm 2 line 16).
    deadline: seconds after which the inner loop stops at the end of its round (line 19);
        max_rounds: the same, counted in rounds (deterministic, for reproducible runs).
    threads: OpenMP threads (default: OMP_NUM_THREADS or all cores).
    dtype: float32 or float64 for the kernel (default: the demands' float type).
    isa: kernel vector-width variant, "scalar", "generic", "avx2" or "avx512" (default:
        $DRFBENCH_ISA, else the widest this CPU runs); one the CPU cannot run is refused.
    """
    spec = method_info(method)
    eps = check.epsilon_value(epsilon)
    seconds = check.deadline_value(deadline)
    rounds_limit = check.positive_int(max_rounds, "max_rounds")
    n_threads = check.positive_int(threads, "threads")
    if eps > 0 and not spec.epsilon:
        raise ValueError(f"method {method!r} is exact EDRF and takes no epsilon (got {eps}); "
                         "use 'dcdrf' for a tolerance")
    if n_threads is None:
        n_threads = default_threads() if spec.multithreaded else 1
    elif n_threads > 1 and not spec.multithreaded:
        raise ValueError(f"method {method!r} is single-threaded; threads must be 1 or None, got {n_threads}")
    if spec.max_rounds is not None:
        if rounds_limit not in (None, spec.max_rounds):
            raise ValueError(f"method {method!r} always runs {spec.max_rounds} round(s); got max_rounds={rounds_limit}")
        rounds_limit = spec.max_rounds

    kernels = _isa.kernels(isa)
    matrix = check.demand_matrix(demands, dtype)
    w = check.tenant_weights(weights, matrix.shape[0])
    # Not zeroed: every kernel writes every entry (A_ir = rho_i d_ir z_i at the end), and
    # memory freed by an earlier result is then reused as it is, without new page faults.
    allocation = output_array(matrix.nnz, matrix.dtype)
    level = np.zeros(matrix.shape[0], dtype=np.float64)
    rounds, timed_out, elapsed = spec.run(
        kernels, matrix, w, eps, np.inf if seconds is None else seconds,
        NO_ROUND_LIMIT if rounds_limit is None else rounds_limit, n_threads, allocation, level)
    return AllocationResult(
        allocation=check.csr_from_arrays(allocation, matrix.indices, matrix.indptr, matrix.shape),
        level=level, rounds=int(rounds), elapsed=float(elapsed), timed_out=bool(timed_out),
        method=method, epsilon=eps, threads=n_threads, isa=kernels.name)


def _run_dcdrf(kernels, m, weights, epsilon, deadline, max_rounds, threads, allocation, level):
    return kernels.dcdrf.dcdrf(m.data, m.indices, m.indptr, m.shape[1], weights, epsilon,
                         deadline, max_rounds, threads, allocation, level)


def _run_edrf(kernels, m, weights, epsilon, deadline, max_rounds, threads, allocation, level):
    return kernels.edrf.edrf(m.data, m.indices, m.indptr, m.shape[1], weights, deadline,
                        max_rounds, allocation, level)


def _run_edrf_event(kernels, m, weights, epsilon, deadline, max_rounds, threads, allocation, level):
    return kernels.edrf_event.edrf_event(m.data, m.indices, m.indptr, m.shape[1], weights, epsilon,
                                         deadline, max_rounds, threads, allocation, level)


register(Method("edrf", _run_edrf, "EDRF, Algorithm 1: the conventional single-threaded baseline",
                epsilon=False, multithreaded=False))
register(Method("dcdrf", _run_dcdrf, "DC-DRF, Algorithm 2's inner loop, parallel (DC-DRF)"))
register(Method("sdcdrf", _run_dcdrf, "DC-DRF on one thread (sDC-DRF)", multithreaded=False))
register(Method("pedrf", _run_dcdrf, "parallel EDRF stopped at the deadline (pEDRF: epsilon = 0)",
                epsilon=False))
register(Method("pedrf1", _run_dcdrf, "parallel EDRF for exactly one round (pEDRF-1, akin to HUG)",
                epsilon=False, max_rounds=1))
register(Method("edrf-event", _run_edrf_event,
                "exact EDRF, event-driven (drfbench's own); epsilon gives DC-DRF's rounds"))
