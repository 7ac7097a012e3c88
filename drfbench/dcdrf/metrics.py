"""How good an allocation is, alone and against a baseline (DC-DRF paper, section 5).

All functions take allocations as CSR arrays shaped tenants x resources (A_ir, the
fraction of resource r given to tenant i), as `drfbench.allocate` returns them. A
tenant's dominant share is max_r A_ir (DRF's definition). Tenants whose baseline
dominant share is zero (no demand) are left out of the per-tenant comparisons.
"""
import math

import numpy as np
import scipy.sparse as sp

SATURATION_TOLERANCE = 1e-6   # a resource is saturated when allocated to >= 1 - this
CHUNK = 1 << 22               # non-zeros per step where a float64 copy would be needed


def dominant_shares(allocation):
    """`max_r A_ir` per tenant (0 for tenants with no entries).

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.

    Returns
    -------
    numpy.ndarray
    """
    A = sp.csr_array(allocation)
    shares = np.zeros(A.shape[0], dtype=np.float64)
    rows = np.flatnonzero(np.diff(A.indptr))
    if rows.size:
        shares[rows] = np.maximum.reduceat(A.data, A.indptr[rows])
    return shares


def utilization(allocation):
    """Total allocation summed over all tenants and resources (Figure 8's quantity).

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.

    Returns
    -------
    float
    """
    return float(sp.csr_array(allocation).data.sum(dtype=np.float64))


def utilization_ratio(allocation, baseline):
    """`utilization(allocation) / utilization(baseline)`: Figure 8's 'normalized to baseline'.

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.
    baseline : numpy.ndarray or scipy.sparse matrix
        The exact allocation it is measured against.

    Returns
    -------
    float
    """
    base = utilization(baseline)
    return utilization(allocation) / base if base > 0 else math.nan


def _paired_shares(allocation, baseline):
    """Dominant shares (s, b) of allocation and baseline, for tenants with b > 0."""
    s, b = dominant_shares(allocation), dominant_shares(baseline)
    if s.shape != b.shape:
        raise ValueError(f"allocation has {s.size} tenants, baseline {b.size}")
    keep = b > 0
    return s[keep], b[keep]


def relative_deviation(allocation, baseline):
    """`(s_i - b_i) / b_i` per tenant with `b_i > 0`, where s and b are the dominant shares of
    the allocation and of the baseline.

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.
    baseline : numpy.ndarray or scipy.sparse matrix
        The exact allocation it is measured against.

    Returns
    -------
    numpy.ndarray
    """
    s, b = _paired_shares(allocation, baseline)
    return (s - b) / b


def fairness(allocation, baseline):
    """Standard deviation from the baseline (Figures 7 and 9 left, after FILO).

    `sqrt(mean_i (dev_i - mean(dev))**2)` with `dev_i = (s_i - b_i) / b_i` the relative
    deviation of tenant i's dominant share from its baseline share (population sd, tenants
    with `b_i > 0`). Zero means every tenant got its baseline dominant share.

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.
    baseline : numpy.ndarray or scipy.sparse matrix
        The exact allocation it is measured against.

    Returns
    -------
    float
    """
    dev = relative_deviation(allocation, baseline)
    return float(dev.std()) if dev.size else math.nan


def shortfall(allocation, baseline):
    """Under-allocation per tenant: `max(0, (b_i - s_i) / b_i)`, the fraction of its baseline
    dominant share that a tenant did not get (0 for tenants at or above baseline).

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.
    baseline : numpy.ndarray or scipy.sparse matrix
        The exact allocation it is measured against.

    Returns
    -------
    numpy.ndarray
    """
    s, b = _paired_shares(allocation, baseline)
    return np.maximum((b - s) / b, 0.0)


def shortfall_outliers(allocation, baseline, fraction=0.001):
    """Figure 9 right: the largest shortfall, and the one a given fraction of tenants reach.

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.
    baseline : numpy.ndarray or scipy.sparse matrix
        The exact allocation it is measured against.
    fraction : float
        0.1% by default: the paper's 1,000 of 1M.

    Returns
    -------
    worst : float
        The largest shortfall.
    at_fraction : float
        The shortfall of the `ceil(fraction * n)`-th worst tenant, so that the given
        fraction of tenants fall short by at least this much.
    """
    u = shortfall(allocation, baseline)
    if u.size == 0:
        return math.nan, math.nan
    k = max(1, math.ceil(fraction * u.size))
    return float(u.max()), float(-np.partition(-u, k - 1)[k - 1])


def saturated_fraction(allocation):
    """Fraction of the demanded resources (columns with an entry) that are fully allocated,
    i.e. whose total allocation is at least `1 - SATURATION_TOLERANCE`.

    Parameters
    ----------
    allocation : numpy.ndarray or scipy.sparse matrix
        Tenants x resources.

    Returns
    -------
    float
    """
    A = sp.csr_array(allocation)
    demanded = np.bincount(A.indices, minlength=A.shape[1]) > 0
    if not demanded.any():
        return math.nan
    totals = np.zeros(A.shape[1])
    for start in range(0, A.nnz, CHUNK):  # bincount would copy all weights to float64 at once
        stop = start + CHUNK
        totals += np.bincount(A.indices[start:stop], weights=A.data[start:stop], minlength=A.shape[1])
    return float((totals[demanded] >= 1 - SATURATION_TOLERANCE).mean())


def compare(result, baseline):
    """Every metric of a result against an exact baseline.

    Parameters
    ----------
    result : AllocationResult
        The run measured.
    baseline : AllocationResult
        The exact run it is measured against (any object with its `rounds` and
        `allocation`).

    Returns
    -------
    dict
        Rounds and their ratio to the baseline's (Figure 7), utilization and its ratio
        (Figure 8), fairness (Figures 7, 9 left), shortfall outliers (Figure 9 right),
        saturation.
    """
    worst, tail = shortfall_outliers(result.allocation, baseline.allocation)
    return {
        "rounds": result.rounds,
        "rounds_ratio": result.rounds / baseline.rounds if baseline.rounds else math.nan,
        "utilization": utilization(result.allocation),
        "utilization_ratio": utilization_ratio(result.allocation, baseline.allocation),
        "fairness": fairness(result.allocation, baseline.allocation),
        "shortfall_worst": worst,
        "shortfall_p0.1": tail,
        "saturated_fraction": saturated_fraction(result.allocation),
    }
