"""Classic DRF's divisible Leontief users: the methods of the lecture's property table.

    demands[i, r] = D_ir, the fraction of resource r (capacity 1) one task of user i needs;
    an allocation A has A_ir = fraction of resource r given to user i, and user i's
    utility is the number of tasks it can run, min over r with D_ir > 0 of A_ir / D_ir.
    Users have infinitely many tasks, so only the direction of D_i matters (as in
    drfbench.allocate: allocations are proportional to demands and uncapped).

Every method here is a callable method(demands, weights=None) -> dense (n, m) array, and
registered with drfbench.allocate (methods "drf", "asset-fairness", "ceei") through the
run_* functions at the end.
"""
import time

import numpy as np
import scipy.optimize

from .. import _validation as check
from .tasks import task_demands

SATURATED = 1e-12      # a resource with residual at most this counts as saturated


def divisible_demands(demands):
    """Dense float64 per-task demand fractions, validated: finite, each 0 or at least float64's
    smallest normal number (2.2e-308; a user's tasks are its demands scaled by 1 / its
    largest demand).

    Parameters
    ----------
    demands : array_like
        (n, m).

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ValueError
        An entry out of bounds, naming it.
    """
    if hasattr(demands, "toarray"):
        demands = demands.toarray()
    D = task_demands(demands)
    check.normal_floor(D[D > 0], np.float64)
    return D


def _weights(weights, n):
    """Validated weights (drfbench.allocate's bounds) scaled by a power of two, the largest
    in [1, 2): the methods depend on their ratios only."""
    return check.unit_weights(check.tenant_weights(weights, n))[0]


def utilities(demands, allocation):
    """Tasks each user can run with its allocation: min over r with `D_ir > 0` of `A_ir / D_ir`
    (0 for users with no demand).

    Parameters
    ----------
    demands : numpy.ndarray
        (n, m).
    allocation : numpy.ndarray
        (n, m).

    Returns
    -------
    numpy.ndarray
        (n,).
    """
    D = divisible_demands(demands)
    A = np.asarray(allocation, dtype=np.float64)
    ratio = np.divide(A, D, out=np.full_like(D, np.inf), where=D > 0)
    u = ratio.min(axis=1, initial=np.inf)
    u[~(D > 0).any(axis=1)] = 0.0
    return u


def progressive_filling(demands, rates):
    """Grow every user's tasks x_i at rate rates[i] until a resource it demands saturates, then
    freeze it; continue with the rest (max-min fairness on `x_i / rates[i]`).

    Users with all-zero demand or rate 0 get nothing. Exact up to rounding: each step jumps
    to the next saturation.

    Parameters
    ----------
    demands : array_like
        (n, m) per-task demand fractions.
    rates : array_like
        One per user, finite and `>= 0` (only their ratios matter).

    Returns
    -------
    numpy.ndarray
        The (n, m) allocation `x_i * D_i`.

    Raises
    ------
    ValueError
        Rates not one per user, or rates x demands overflowing float64.
    """
    D = divisible_demands(demands)
    r = check.finite_non_negative(check.real_array(rates, "rates", 1), "rates")
    if r.shape != (D.shape[0],):
        raise ValueError(f"rates must have one entry per user, shape ({D.shape[0]},), "
                         f"got {r.shape}")
    if r.max(initial=0.0) > 0:
        r = np.ldexp(r, 1 - int(np.frexp(r.max())[1]))
    with np.errstate(over="ignore"):
        if not np.isfinite(r @ D).all():
            raise ValueError("rates x demands overflow float64: give rates or demands of a "
                             "smaller range")
    return _fill(D, r)[0]


def _fill(D, rates):
    """progressive_filling on validated demands: (allocation, steps taken). A user whose
    every rate x demand underflows float64 would never fill a resource: refused."""
    with np.errstate(under="ignore"):
        flows = rates[:, None] * D >= np.finfo(np.float64).tiny
    stuck = (rates > 0) & (D > 0).any(axis=1) & ~flows.any(axis=1)
    if stuck.any():
        i = int(np.argmax(stuck))
        raise ValueError(f"user {i}'s demands times its rate (weight over its largest or "
                         f"summed demand) underflow float64: give demands and weights of a "
                         "smaller range")
    n, m = D.shape
    x = np.zeros(n)
    residual = np.ones(m)
    uses = D > 0
    active = uses.any(axis=1) & (rates > 0)
    steps = 0
    while active.any():
        if steps > m:          # each step saturates a resource
            raise RuntimeError(f"progressive filling took over {m} steps on {m} resources: a "
                               "bug in drfbench, please report it with the input")
        speed = rates[active] @ D[active]          # resource consumed per unit of time
        grows = speed > 0
        t = np.min(residual[grows] / speed[grows])
        x[active] += t * rates[active]
        residual = residual - t * speed
        full = residual <= SATURATED
        residual[full] = 0.0
        active &= ~(uses[:, full].any(axis=1))
        steps += 1
    return x[:, None] * D, steps


def drf(demands, weights=None):
    """Divisible DRF: max-min fairness on weighted dominant shares `max_r A_ir / w_i`, by
    progressive filling (Ghodsi et al.'s definition, literal NumPy).

    Parameters
    ----------
    demands : array_like
        (n, m) per-task demand fractions (`divisible_demands`).
    weights : array_like, optional
        Per user, default all ones.

    Returns
    -------
    numpy.ndarray
        The (n, m) allocation.
    """
    return _drf_filling(divisible_demands(demands), weights)[0]


def _drf_filling(D, weights):
    w = _weights(weights, D.shape[0])
    peak = D.max(axis=1, initial=0.0)
    return _fill(D, np.divide(w, peak, out=np.zeros_like(w), where=peak > 0))


def asset_fairness(demands, weights=None):
    """Asset fairness: max-min fairness on weighted sums of shares `sum_r A_ir / w_i`, by
    progressive filling (users still unsaturated keep growing after others freeze).

    Parameters
    ----------
    demands : array_like
        (n, m) per-task demand fractions (`divisible_demands`).
    weights : array_like, optional
        Per user, default all ones.

    Returns
    -------
    numpy.ndarray
        The (n, m) allocation.
    """
    return _asset_filling(divisible_demands(demands), weights)[0]


def _asset_filling(D, weights):
    w = _weights(weights, D.shape[0])
    total = D.sum(axis=1)
    return _fill(D, np.divide(w, total, out=np.zeros_like(w), where=total > 0))


def ceei(demands, weights=None):
    """Competitive equilibrium from equal incomes (weights: unequal incomes), i.e. the
    Eisenberg-Gale program: maximize `sum_i w_i log x_i` subject to `sum_i x_i D_ir <= 1`.

    Solved through its dual, minimize over prices `p >= 0` of
    `sum_r p_r - sum_i w_i log(D_i.p)` (`x_i = w_i / D_i.p` at the optimum), with scipy's
    L-BFGS-B, then polished by Newton's method on the priced resources until the KKT
    conditions hold to ~1e-13, and scaled into capacity. Users with all-zero demand get
    nothing; unused resources get price 0. The program is solved on each user's demands
    divided by its largest and on the weights scaled to the largest in [1, 2), which leaves
    the allocation as it is.

    Parameters
    ----------
    demands : array_like
        (n, m) per-task demand fractions (`divisible_demands`).
    weights : array_like, optional
        Per user's income, default all ones.

    Returns
    -------
    numpy.ndarray
        The (n, m) allocation.
    """
    D = divisible_demands(demands)
    w = _weights(weights, D.shape[0])
    A = np.zeros_like(D)
    rows = (D > 0).any(axis=1)
    if not rows.any():
        return A
    cols = (D[rows] > 0).any(axis=0)
    Dc = D[np.ix_(rows, cols)]
    Dc = Dc / Dc.max(axis=1, keepdims=True)
    x = _eisenberg_gale(Dc, w[rows])
    A[np.ix_(rows, cols)] = x[:, None] * Dc
    return A


def _eisenberg_gale(D, w):
    """x per user on rows scaled to a largest demand of 1. The prices are solved for in
    units of c_r = sum_i w_i D_ir, what resource r's users would pay at x_i = 1: L-BFGS-B
    needs variables of one scale (with weights 1e4 apart, plain prices left a resource
    priced 0: infinite x)."""
    c = D.T @ w

    def dual(v):
        q = np.maximum(D @ (c * v), 1e-300)
        return c @ v - w @ np.log(q), c * (1.0 - D.T @ (w / q))

    res = scipy.optimize.minimize(dual, np.full(D.shape[1], 1.0 / D.shape[1]), jac=True,
                                  method="L-BFGS-B", bounds=[(1e-15, None)] * D.shape[1],
                                  options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000})
    p = _polish_prices(D, w, c * np.maximum(res.x, 0.0))
    x = w / (D @ p)
    load = D.T @ x
    return x / max(1.0, load.max())


def _polish_prices(D, w, p):
    """Newton on the dual restricted to the priced resources; falls back to p unchanged if
    the polished prices do not satisfy the KKT conditions better."""
    def kkt_error(p):
        q = D @ p
        if (q <= 0).any() or (p < 0).any():
            return np.inf
        grad = 1.0 - D.T @ (w / q)          # = 1 - load_r
        return max(np.abs(grad[p > 0]).max(initial=0.0), -grad.min(initial=0.0))

    best, best_err = p, kkt_error(p)
    priced = p > 1e-9 * w.sum()
    q_p = p.copy()
    q_p[~priced] = 0.0
    for _ in range(50):
        q = D @ q_p
        if (q <= 0).any():
            break
        grad = 1.0 - D[:, priced].T @ (w / q)
        hess = (D[:, priced] * (w / q**2)[:, None]).T @ D[:, priced]
        if not (np.isfinite(hess).all() and np.isfinite(grad).all()):
            break              # LAPACK would complain on stderr, then fail
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        scale = 1.0
        while (q_p[priced] - scale * step <= 0).any() and scale > 1e-6:
            scale /= 2
        q_p[priced] = q_p[priced] - scale * step
        if np.abs(grad).max() < 1e-14:
            break
    err = kkt_error(q_p)
    return q_p if err < best_err else best


# The registry's implementations of the divisible methods (drfbench.allocate(..., method)):
# dense NumPy references, for the small instances of the property checks.
DENSE_LIMIT = 10**8        # entries of the dense demand matrix these methods build


def _run_divisible(spec, matrix, weights, fill):
    n, m = matrix.shape
    if n * m > DENSE_LIMIT:
        raise ValueError(f"method {spec.name!r} is a dense NumPy reference for small instances; "
                         f"demands of shape {matrix.shape} are too large (use 'edrf-event')")
    start = time.perf_counter()
    A, rounds = fill(matrix.toarray().astype(np.float64, copy=False), weights)
    elapsed = time.perf_counter() - start
    rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
    level = A.max(axis=1, initial=0.0) / weights
    return A[rows, matrix.indices].astype(matrix.dtype), level, rounds, False, elapsed, "numpy"


def run_drf(spec, matrix, weights, **options):
    """Divisible DRF (drf()); rounds: progressive filling's steps.

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
    return _run_divisible(spec, matrix, weights, _drf_filling)


def run_asset_fairness(spec, matrix, weights, **options):
    """Asset fairness (asset_fairness()); rounds: progressive filling's steps.

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
    return _run_divisible(spec, matrix, weights, _asset_filling)


def run_ceei(spec, matrix, weights, **options):
    """CEEI (ceei()); rounds: 0, it is solved as one convex program.

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
    return _run_divisible(spec, matrix, weights, lambda D, w: (ceei(D, w), 0))
