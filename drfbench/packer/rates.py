"""Algorithm 2 (Marcon and Barcellos, IFIP Networking 2017, §II-C): work-conserving rate
allocation on a server's link with minimum guarantees.

Lines 3-4: each node gets min(guarantee, demand); the nodes whose demand exceeds their
guarantee are hungry. Line 5: the link's residual is its capacity less those rates. Lines
6-11: while residual is left and someone is hungry, each hungry node gets the least of
what it still wants and its weight's share of the residual (line 8), and leaves the hungry
set once satisfied (line 11).

One reading is ours: line 8's share is taken of the residual as it stood at the start of
the pass (every hungry node's share of the same Q), so that the surplus is split in
proportion to the weights, as §II-C and §III-B describe ("proportionally shared"); read
literally, line 10 lowers Q inside the pass and a node earlier in the list would get more
(two equal weights would split 2:1). The loop stops when the residual is at most
`TOLERANCE` times the capacity (floating point never reaches 0 exactly) and a node whose
remaining want is met is set to its demand exactly. Each pass either satisfies a node or
hands out the whole residual, so the loop ends after at most one pass per node and a few
for rounding.
"""
import numpy as np

from .. import _validation as check
from .allocate import SLACK
from .model import amount, bounded

TOLERANCE = 1e-12


def work_conserving(capacity, guarantee, demand, weight):
    """The rate of each node on a link (Algorithm 2).

    Parameters
    ----------
    capacity : float
        The link's, in [0, MAX_AMOUNT] (1e12).
    guarantee : array_like
        σ(Σ(v, *), t) per node, in [0, MAX_AMOUNT]; together they must fit the link (their
        sum at most capacity x (1 + SLACK)).
    demand : array_like
        Current demand d[v] per node, in [0, MAX_AMOUNT].
    weight : array_like
        w^𝒟(v) per node, finite and non-negative (only their ratios matter; a node of weight
        0 gets no surplus).

    Returns
    -------
    numpy.ndarray
        The rates, float64.

    Raises
    ------
    ValueError
        Naming the argument out of bounds.
    TypeError
        What is not a number.
    """
    capacity = amount(capacity, "capacity")
    g = bounded(check.real_array(guarantee, "guarantee", 1), "guarantee")
    d = bounded(check.real_array(demand, "demand", 1), "demand")
    w = check.finite_non_negative(check.real_array(weight, "weight", 1), "weight")
    if not g.shape == d.shape == w.shape:
        raise ValueError(f"guarantee, demand and weight must have one entry per node, got "
                         f"{g.shape}, {d.shape}, {w.shape}")
    with np.errstate(over="ignore"):
        if not np.isfinite(w.sum()):
            w = w / w.max()              # only their ratios matter: a sum that cannot overflow
    if g.sum() > capacity * (1 + SLACK):
        raise ValueError(f"guarantee: the guarantees sum to {g.sum():g}, more than the link's "
                         f"capacity {capacity:g} (infeasible)")
    rate = np.minimum(g, d)                                                    # line 3
    hungry = (g < d) & (w > 0)                                                 # line 4
    left = capacity - rate.sum()                                               # line 5
    while left > TOLERANCE * capacity and hungry.any():                       # line 6
        share = w[hungry] / w[hungry].sum() * left                             # line 8
        idx = np.flatnonzero(hungry)
        want = d[idx] - rate[idx]
        value = np.minimum(want, share)
        done = want <= share
        rate[idx] = np.where(done, d[idx], rate[idx] + value)                  # line 9
        left -= value.sum()                                                    # line 10
        hungry[idx[done]] = False                                              # line 11
    return rate
