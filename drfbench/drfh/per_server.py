"""Per-server DRF's "arbitrarily low resource utilization" (Sec. III-D): a family of
instances, one per k, that generalizes the paper's Fig. 1 and on which per-server DRF's
utilization falls to 0 while DRFH's stays above 5/6.

The family (k >= 2): k resources, k servers, k users. Server j has 2 units of resource j
and 6k of every other; user j's task needs 0.2 of resource j and k/2 of every other.
At k = 2 this is Fig. 1: servers <2 CPU, 12 GB> and <12 CPU, 2 GB>, users <0.2 CPU, 1 GB>
and <1 CPU, 0.2 GB>.

Per-server DRF (DRF on each server alone, progressive filling). On server j, user j's
share per task is 0.2/2 = 0.1 of resource j and (k/2)/(6k) = 1/12 of the others; any
other user i's is (k/2)/2 = k/4 of resource j, 0.2/(6k) of resource i and 1/12 of the
rest. Every user's dominant resource on server j is resource j, so the k users rise
together until it runs out, each holding 2t of it at dominant share t: 2kt = 2, t = 1/k.
User j runs t/0.1 = 10/k tasks there, every other user t/(k/4) = 4/k^2; a user runs
10/k + 4(k-1)/k^2 tasks in all (6 at k = 2: Fig. 2's 5 + 1). On server j, resource j is
full, and each other resource r holds user j's (10/k)(k/2) = 5, user r's (4/k^2)(0.2) and
the k-2 others' (4/k^2)(k/2) each: 5 + 2(k-2)/k + 0.8/k^2 of its 6k. Every resource is
alike, so the pool's utilization of each is

    U_psd(k) = (2 + (k-1)(5 + 2(k-2)/k + 0.8/k^2)) / (2 + 6k(k-1))  ~  7 / (6k)  ->  0

(7.2/14 at k = 2). DRFH gives server j wholly to user j (Fig. 3 at k = 2): 10 tasks each
(resource j runs out: 10 x 0.2 = 2), using 10 x k/2 = 5k of each other resource, so

    U_drfh(k) = (2 + 5k(k-1)) / (2 + 6k(k-1))  ->  5/6

(12/14 at k = 2). It cannot do better for everyone: resource j on server j limits user j
to 10 tasks there, and another user's task there takes k/2 of it, as much as 5k/2 of user
j's tasks; the tests check both formulas against the solvers.
"""
import numpy as np

from .exact import allocate

METHODS = ("per-server-drf", "drfh")
# The largest k taken: the instance has k^2 demands and capacities, and DRFH's LP k^2
# variables over k^2 constraints of k users each.
MAX_K = 256


def instance(k):
    """The family's instance k (module docstring).

    Parameters
    ----------
    k : int
        Users, servers and resources, in [2, MAX_K].

    Returns
    -------
    demands : numpy.ndarray
        (k, k) one task of each user.
    servers : numpy.ndarray
        (k, k) each server's capacities.
    """
    if not (isinstance(k, (int, float, np.integer, np.floating)) and float(k).is_integer()
            and 2 <= k <= MAX_K):
        raise ValueError(f"k must be a whole number in [2, {MAX_K}]; got {k!r}")
    k = int(k)
    demands = np.full((k, k), k / 2)
    np.fill_diagonal(demands, 0.2)
    servers = np.full((k, k), 6.0 * k)
    np.fill_diagonal(servers, 2.0)
    return demands, servers


def utilization(res, servers):
    """Each resource's fraction of the pool in use under an Allocation, (m,)."""
    return res.allocation.sum(axis=(0, 1)) / np.asarray(servers, float).sum(axis=0)


def utilization_rows(ks):
    """One row per (k, method): the pool's utilization (mean and least over resources)
    and the tasks a user runs (mean and least over users), per-server DRF against DRFH."""
    rows = []
    for k in ks:
        demands, servers = instance(k)
        for method in METHODS:
            res = allocate(demands, servers, method)
            used = utilization(res, servers)
            rows.append({"k": int(k), "method": method, "utilization": float(used.mean()),
                         "min_utilization": float(used.min()),
                         "tasks": float(res.tasks.mean()), "min_tasks": float(res.tasks.min())})
    return rows
