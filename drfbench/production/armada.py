"""Armada's fairness: the dominant-resource cost of a queue and its fair shares.

Restated from armadaproject/armada at commit 207cc9e04ef07aaeacfb446d1517446bb702a8e6
(2026-08-21): internal/scheduler/scheduling/fairness/fairness.go (DominantResourceFairness)
and internal/scheduler/scheduling/context/scheduling.go (updateFairShares,
CalculateTheoreticalShare, FairnessError).

- cost: max over the considered resources r of multiplier_r * alloc_r / total_r (a
  resource with total 0 counts 0), at least 0, divided by the queue's weight;
- a queue's weight is 1 / its priority factor;
- fair share: weight / sum of weights;
- demand-capped adjusted fair share: the pool (1) shared by weight, a queue's share capped
  at its demand's cost, the excess shared again among the queues below their demand;
  upstream stops after 10 rounds or once at most 1% is left to share (so it is
  water-filling up to that 1%, not exactly);
- uncapped adjusted fair share: the share a queue would get with infinite demand: in every
  round it takes its weight's part of what is left to share, counted over the queues
  still below their demand and itself, less the excess it gave back itself that round.
"""
import numpy as np

from .. import _validation as check

MAX_ITERATIONS = 10      # updateFairShares' maxIterations
SHARE_THRESHOLD = 0.01   # it stops once no more than this much of the pool is left


def queue_weights(priority_factors):
    """Queue weights from Armada's priority factors: `1 / factor`.

    Parameters
    ----------
    priority_factors : array_like
        Each finite, `> 0`.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ValueError
        A factor not finite and positive, naming its index.
    """
    pf = check.real_array(priority_factors, "priority_factors", 1)
    bad = ~(np.isfinite(pf) & (pf > 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"priority_factors must be finite and positive: {pf[i]} at index {i}")
    return 1.0 / pf


def _resources(total, multipliers, name="total"):
    total = check.finite_non_negative(check.real_array(total, name, 1), name)
    if multipliers is None:
        return total, np.ones_like(total)
    mult = check.finite_non_negative(check.real_array(multipliers, "multipliers", 1),
                                     "multipliers")
    if mult.shape != total.shape:
        raise ValueError(f"multipliers has {mult.size} resources, {name} {total.size}")
    return total, mult


def cost(allocation, total, multipliers=None, weight=1.0):
    """Weighted cost of an allocation: `max(0, max_r multiplier_r * alloc_r / total_r) / weight`.

    A resource with total 0 contributes 0 (upstream's DivideZeroOnError).

    Parameters
    ----------
    allocation : array_like
        (m,) for one queue or (n, m) for n queues, finite and `>= 0`.
    total : array_like
        The pool's (m,) capacity.
    multipliers : array_like, optional
        (m,) per resource, default 1 (0 leaves a resource out, as a resource missing from
        DominantResourceFairnessResourcesToConsider).
    weight : float or array_like
        `> 0`, a scalar or one per queue.

    Returns
    -------
    float or numpy.ndarray
        One per queue.

    Raises
    ------
    ValueError
        An allocation of the wrong shape, or a weight not finite and positive.
    """
    total, mult = _resources(total, multipliers)
    alloc = check.real_array(allocation, "allocation", np.ndim(allocation))
    if alloc.ndim not in (1, 2) or alloc.shape[-1] != total.size:
        raise ValueError(f"allocation must be (m,) or (n, m) with m = {total.size} resources, "
                         f"got shape {alloc.shape}")
    check.finite_non_negative(alloc, "allocation")
    w = np.asarray(weight, dtype=np.float64)
    if not (np.isfinite(w) & (w > 0)).all():
        raise ValueError(f"weight must be finite and positive, got {weight!r:.80}")
    return _unweighted(alloc, total, mult) / w


def _unweighted(alloc, total, mult):
    ratio = np.divide(alloc, total, out=np.zeros_like(alloc), where=total > 0)
    return np.maximum(0.0, (ratio * mult).max(axis=-1, initial=0.0))


def _queue_weights(w, n):
    w = check.real_array(w, "weights", 1)
    if w.size != n:
        raise ValueError(f"weights has {w.size} queues, demands {n}")
    bad = ~(np.isfinite(w) & (w > 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"weights must be finite and positive: {w[i]} at index {i}")
    return w


def fair_shares(capacity, weights, demands, multipliers=None,
                max_iterations=MAX_ITERATIONS, threshold=SHARE_THRESHOLD):
    """Each queue's fair share, demand-capped adjusted fair share and uncapped adjusted fair
    share, as updateFairShares computes them.

    Parameters
    ----------
    capacity : array_like
        The pool's (m,) total.
    weights : array_like
        (n,) `> 0` (`queue_weights` turns priority factors into weights).
    demands : array_like
        (n, m) each queue's constrained demand, finite and `>= 0`, its share its unweighted
        `cost` (1 for every queue if the capacity is all 0).
    multipliers : array_like, optional
        (m,) per resource, as `cost` takes them.
    max_iterations : int
        Upstream's rounds.
    threshold : float
        The share left at which it stops.

    Returns
    -------
    fair, adjusted, uncapped : numpy.ndarray
        Three (n,) arrays.

    Raises
    ------
    ValueError
        Demands and capacity of different resources.
    """
    total, mult = _resources(capacity, multipliers, "capacity")
    D = check.finite_non_negative(check.real_array(demands, "demands", 2), "demands")
    if D.shape[1] != total.size:
        raise ValueError(f"demands has {D.shape[1]} resources, capacity {total.size}")
    w = _queue_weights(weights, D.shape[0])
    share = _unweighted(D, total, mult) if (total > 0).any() else np.ones(D.shape[0])
    return (w / w.sum(),) + _adjusted(w, share, max_iterations, threshold)


def _adjusted(w, demand_share, max_iterations, threshold):
    """updateFairShares' rounds: (demand-capped, uncapped) adjusted fair shares."""
    n = w.size
    capped, uncapped, spare = np.zeros(n), np.zeros(n), np.zeros(n)
    achieved = np.zeros(n, dtype=bool)
    unallocated = 1.0
    for _ in range(max_iterations):
        if unallocated <= threshold:
            break
        open_weight = w[~achieved].sum()
        uncapped += w / (open_weight + np.where(achieved, w, 0.0)) * (unallocated - spare)
        if open_weight <= 0.0:
            break
        capped[~achieved] += w[~achieved] / open_weight * unallocated
        excess = capped - demand_share
        over = excess > 0
        capped[over] = demand_share[over]
        achieved |= over
        spare = np.where(over, excess, 0.0)
        unallocated = excess[over].sum()
    return capped, uncapped


def theoretical_share(capacity, weights, demands, priority, multipliers=None):
    """The demand-capped adjusted fair share a new queue of this priority factor with infinite
    demand would get beside the given queues (CalculateTheoreticalShare).

    Parameters
    ----------
    capacity : array_like
        The pool's (m,) total.
    weights : array_like
        (n,) the given queues'.
    demands : array_like
        (n, m); n may be 0.
    priority : float
        The new queue's priority factor.
    multipliers : array_like, optional
        (m,) per resource, as `cost` takes them.

    Returns
    -------
    float
    """
    total, mult = _resources(capacity, multipliers, "capacity")
    D = check.finite_non_negative(check.real_array(demands, "demands", 2), "demands")
    w = _queue_weights(weights, D.shape[0])
    new_w = queue_weights([priority])
    share = _unweighted(D, total, mult) if (total > 0).any() else np.ones(D.shape[0])
    capped, _ = _adjusted(np.append(w, new_w), np.append(share, np.inf),
                          MAX_ITERATIONS, SHARE_THRESHOLD)
    return float(capped[-1])


def fairness_error(adjusted, actual):
    """Sum over queues of `max(0, adjusted - actual)`: how far the queues below their
    demand-capped adjusted fair share are from it (FairnessError).

    Parameters
    ----------
    adjusted : array_like
        Each queue's demand-capped adjusted fair share (`fair_shares`).
    actual : array_like
        Each queue's unweighted `cost`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        A different number of queues in each.
    """
    a = check.real_array(adjusted, "adjusted", 1)
    b = check.real_array(actual, "actual", 1)
    if a.shape != b.shape:
        raise ValueError(f"adjusted has {a.size} queues, actual {b.size}")
    return float(np.maximum(a - b, 0.0).sum())
