"""YARN FairScheduler's DRF ordering: the comparator of DominantResourceFairnessPolicy,
which decides which queue or application gets the next container.

Restated from apache/hadoop, hadoop-yarn-server-resourcemanager's
scheduler/fair/policies/DominantResourceFairnessPolicy.java (DominantResourceFairness-
ComparatorN, DominantResourceFairnessComparator2, compareAttribrutes), read at commit
ee91492f16528292c4ad173dd018807a63fe6106 (before YARN-11482) and in a later version of
the file with the fix (the one line below, b's own usage).

compare(a, b, cluster) is negative when a goes first:

- usage ratios u_r = usage_r / cluster_r; a schedulable's dominant resource is its largest
  u_r (the first on ties); it is needy when its usage of that resource is below its min
  share of it;
- a needy schedulable goes before one that is not;
- neither needy: the resources of each sorted by u_r, largest first, and the fair-share
  ratios u_r / weight compared in that order, lexicographically;
- both needy: the same with the min-share ratios usage_r / min_share_r;
- still tied: the earlier start time, then the name.

YARN-11482: with exactly two resource types (memory and vcores) YARN uses
DominantResourceFairnessComparator2, which before the fix decided whether b is needy from
a's usage (resourceInfo1[dominant2] < minShareInfo2[dominant2]); fixed=False reproduces
that comparison. Divisions follow Java's floating point (x / 0 is +inf, 0 / 0 NaN, and a
NaN difference compares as equal), in double precision where ComparatorN uses float.
"""
import functools
import math
from typing import NamedTuple, Sequence


class Schedulable(NamedTuple):
    """A queue or application.

    Attributes
    ----------
    usage : sequence of float
        One value per cluster resource.
    min_share : sequence of float, optional
        One value per cluster resource.
    weight : float
    start_time : float
    name : str
    """
    usage: Sequence[float]
    min_share: Sequence[float] = None
    weight: float = 1.0
    start_time: float = 0.0
    name: str = ""


def _sign(x):
    """Java's (int) Math.signum: NaN counts as 0."""
    return (x > 0) - (x < 0)


def _div(x, y):
    """x / y as Java's floating point divides (x, y >= 0)."""
    if y:
        return x / y
    return math.inf if x > 0 else math.nan


def ratios(usage, cluster, weight=1.0):
    """Per resource [usage ratio, fair-share ratio] (calculateClusterAndFairRatios) and the
    dominant resource's index.

    Parameters
    ----------
    usage : sequence of float
    cluster : sequence of float
        The cluster's capacities.
    weight : float
        0 gives infinite fair-share ratios, NaN where the usage is 0.

    Returns
    -------
    rows : list of list of float
    dominant : int
        The first largest usage ratio's resource.
    """
    rows, dominant = [], 0
    for i, (u, c) in enumerate(zip(usage, cluster)):
        share = _div(u, c)
        rows.append([share, _div(share, weight)])
        if share > rows[dominant][0]:
            dominant = i
    return rows, dominant


def min_share_ratios(usage, min_share):
    """`usage_r / min_share_r` per resource (calculateMinShareRatios).

    Parameters
    ----------
    usage, min_share : sequence of float

    Returns
    -------
    list of float
    """
    return [_div(u, m) for u, m in zip(usage, min_share)]


def sort_by_usage(rows):
    """Rows sorted by their first entry, largest first (sortRatios; a stable sort, NaN
    comparing equal to anything, as Java's Arrays.sort does with that comparator).

    Parameters
    ----------
    rows : list of list of float

    Returns
    -------
    list of list of float
    """
    return sorted(rows, key=functools.cmp_to_key(lambda p, q: _sign(q[0] - p[0])))


def compare_rows(rows1, rows2, index):
    """Lexicographic sign of `rows1[i][index] - rows2[i][index]` (compareRatios).

    Parameters
    ----------
    rows1, rows2 : list of list of float
    index : int

    Returns
    -------
    int
    """
    for p, q in zip(rows1, rows2):
        s = _sign(p[index] - q[index])
        if s:
            return s
    return 0


def _checked(s, n, what):
    usage = [float(x) for x in s.usage]
    minimum = [0.0] * n if s.min_share is None else [float(x) for x in s.min_share]
    if len(usage) != n or len(minimum) != n:
        raise ValueError(f"{what}: usage and min_share need {n} values, one per cluster "
                         f"resource, got {len(usage)} and {len(minimum)}")
    if any(not math.isfinite(x) or x < 0 for x in usage + minimum):
        raise ValueError(f"{what}: usage and min_share must be finite and >= 0")
    if not (math.isfinite(s.weight) and s.weight >= 0):
        raise ValueError(f"{what}: weight must be finite and >= 0, got {s.weight}")
    return usage, minimum


def compare(a, b, cluster, fixed=True):
    """FairScheduler's DRF comparator.

    Parameters
    ----------
    a, b : Schedulable
    cluster : sequence of float
        The cluster's capacities, finite and `>= 0`.
    fixed : bool
        False: YARN-11482's bug, for two resource types only (the case Comparator2 handles).

    Returns
    -------
    int
        `< 0` when a gets a container before b, `> 0` after, 0 only for equal start times
        and names.

    Raises
    ------
    ValueError
        Capacities not finite and `>= 0`, or fixed=False with other than two resources.
    """
    cluster = [float(c) for c in cluster]
    if any(not math.isfinite(c) or c < 0 for c in cluster):
        raise ValueError(f"cluster capacities must be finite and >= 0, got {cluster}")
    n = len(cluster)
    if not fixed and n != 2:
        raise ValueError("fixed=False reproduces YARN-11482 in the two-resource comparator "
                         f"only; the cluster has {n} resources")
    usage1, min1 = _checked(a, n, "a")
    usage2, min2 = _checked(b, n, "b")
    rows1, dom1 = ratios(usage1, cluster, a.weight)
    rows2, dom2 = ratios(usage2, cluster, b.weight)
    needy1 = usage1[dom1] < min1[dom1]
    needy2 = (usage2 if fixed else usage1)[dom2] < min2[dom2]
    if needy1 != needy2:
        res = -1 if needy1 else 1
    else:
        if needy1:
            for rows, usage, minimum in ((rows1, usage1, min1), (rows2, usage2, min2)):
                for row, m in zip(rows, min_share_ratios(usage, minimum)):
                    row.append(m)
        res = compare_rows(sort_by_usage(rows1), sort_by_usage(rows2), 2 if needy1 else 1)
    if res == 0:
        res = _sign(a.start_time - b.start_time)
    if res == 0:
        res = (a.name > b.name) - (a.name < b.name)
    return res
