"""The DC-DRF family's methods (Kash, O'Shea, Volos, "DC-DRF: Adaptive Multi-Resource
Sharing at Public Cloud Scale", SoCC'18): how `drfbench.allocate` calls their kernels.

    edrf         Algorithm 1, the conventional baseline        drfbench/dcdrf/edrf.pyx
    dcdrf        Algorithm 2's inner loop (sdcdrf, pedrf,       drfbench/dcdrf/dcdrf.pyx
                 pedrf1 are its run-time configurations)
    edrf-event   exact EDRF, event-driven (drfbench's own)      drfbench/dcdrf/edrf_event.pyx

The family's catalog (catalog.py) declares them with their options; the family's other modules
are workloads (Table 3's demand profiles), metrics, controller and churn (the outer
loop, section 5.5-5.6) and sweeps (the paper's configuration sweeps, pipeline steps).
"""
import numpy as np

from .. import _isa
from .._validation import csr_from_arrays
from .catalog import NO_ROUND_LIMIT
from .demands import output_array

# The exact method the family's metrics compare against (the fastest exact one).
BASELINE = "edrf-event"


def _run_kernel(name, tolerant, matrix, weights, epsilon, deadline, max_rounds, threads, isa):
    """Call the kernel `name` (drfbench/dcdrf/<name>.pyx's function of that name, in the chosen
    variant) on validated CSR demands; `tolerant` kernels take epsilon and threads.
    Returns what drfbench.allocate expects of a method."""
    kernels = _isa.kernels(isa)
    kernel = getattr(getattr(kernels, name), name)
    # Not zeroed: every kernel writes every entry (A_ir = rho_i d_ir z_i at the end), and
    # memory freed by an earlier result is then reused as it is, without new page faults.
    allocation = output_array(matrix.nnz, matrix.dtype)
    level = np.zeros(matrix.shape[0], dtype=np.float64)
    head = (matrix.data, matrix.indices, matrix.indptr, matrix.shape[1], weights)
    limits = (np.inf if deadline is None else deadline,
              NO_ROUND_LIMIT if max_rounds is None else max_rounds)
    if tolerant:
        rounds, timed_out, elapsed = kernel(*head, epsilon, *limits, threads, allocation, level)
    else:
        rounds, timed_out, elapsed = kernel(*head, *limits, allocation, level)
    return allocation, level, rounds, timed_out, elapsed, kernels.name


def run_edrf(spec, matrix, weights, **options):
    """Algorithm 1 (drfbench/dcdrf/edrf.pyx): every round re-sums rho * d over the active tenants.

    Parameters
    ----------
    spec : Method
        The method as registered.
    matrix, weights, **options
        As drfbench.allocate takes them, checked and defaulted by the registry.

    Returns
    -------
    tuple
        (allocation, level, rounds, timed_out, elapsed, isa): what drfbench.allocate
        expects of a method.
    """
    return _run_kernel("edrf", False, matrix, weights, **options)


def run_dcdrf(spec, matrix, weights, **options):
    """Algorithm 2's inner loop (drfbench/dcdrf/dcdrf.pyx), for dcdrf and its configurations.

    Parameters
    ----------
    spec : Method
        The method as registered.
    matrix, weights, **options
        As drfbench.allocate takes them, checked and defaulted by the registry.

    Returns
    -------
    tuple
        (allocation, level, rounds, timed_out, elapsed, isa): what drfbench.allocate
        expects of a method.
    """
    return _run_kernel("dcdrf", True, matrix, weights, **options)


def run_edrf_event(spec, matrix, weights, **options):
    """Exact EDRF as events (drfbench/dcdrf/edrf_event.pyx); with epsilon, DC-DRF's rounds.

    Parameters
    ----------
    spec : Method
        The method as registered.
    matrix, weights, **options
        As drfbench.allocate takes them, checked and defaulted by the registry.

    Returns
    -------
    tuple
        (allocation, level, rounds, timed_out, elapsed, isa): what drfbench.allocate
        expects of a method.
    """
    return _run_kernel("edrf_event", True, matrix, weights, **options)


def allocation_from_levels(demands, weights, level):
    """A_ir = rho_i * d_ir * z_i (Algorithm 2 line 23), rebuilt in float64 from the levels
    z of a stored run (the pipeline keeps an exact baseline's levels, not its allocation).
    demands: canonical CSR (drfbench.dcdrf.workloads); weights: per tenant, or None for ones."""
    D = demands.astype(np.float64)
    rows = np.repeat(np.arange(D.shape[0]), np.diff(D.indptr))
    peak = np.zeros(D.shape[0])
    np.maximum.at(peak, rows, D.data)
    w = np.ones(D.shape[0]) if weights is None else weights
    factor = np.divide(w * level, peak, out=np.zeros_like(peak), where=peak > 0)
    return csr_from_arrays(D.data * factor[rows], D.indices, D.indptr, D.shape)
