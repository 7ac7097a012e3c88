"""Preemption in the production rules: which running jobs a waiting job evicts, as pure
functions over candidates, and a limit on how often (drfbench.production.policies runs
them in the simulator).

    kueue_targets(tree, preemptor, request, candidates, strategies, fits) -> list or None
    armada_targets(preemptor_cost, candidates, usage, ...) -> list or None
    RateLimit(count, interval)                 at most `count` evictions per `interval` s
    STRATEGIES                                 Kueue's strategy names -> kueue's rules

Kueue's fair preemption restated from kubernetes-sigs/kueue at commit
ff69552e79ad21652c36caa97038382e55625cf7: pkg/scheduler/preemption/preemption.go
(fairPreemptions, candidatesOrdering) and pkg/scheduler/preemption/fairsharing
(strategy.go, the target queue ordering); one pass per strategy in the configured order
(the default [LessThanOrEqualToFinalShare, LessThanInitialShare]), each over the
candidates the passes before it left: the candidate ClusterQueue with the highest dominant
resource share goes first (kueue.compare), its candidates in order; a candidate the
strategy accepts is preempted (its usage taken off the tree), one it refuses is left for
the next pass (and with them every candidate of a ClusterQueue not borrowing, which has
nothing to reclaim); the preemptor's share is taken with its request added. Only a whole set is
preempted: if the job would not fit once every accepted candidate is gone, nothing is.
Choices where this model is simpler than upstream: one flavour, no withinClusterQueue
preemption (candidates come from the other ClusterQueues that are borrowing), and the
fit is the simulator's (quota and nodes) rather than the flavour assigner's.

Armada's preemption restated from armadaproject/armada at commit
207cc9e04ef07aaeacfb446d1517446bb702a8e6,
internal/scheduler/scheduling/preempting_queue_scheduler.go: the jobs of a queue whose
actual share exceeds `protected_fraction` times its (demand-capped adjusted) fair share
are evicted and the queues rescheduled in order of cost, so that an evicted job stays out
only if the waiting job's queue, with it, costs no more than the evicted job's queue
without it. Here: candidates in order (the queue with the highest weighted cost first, its
most recently started job first), each evicted while its queue is still above the
protected fraction and its queue's weighted cost without it stays at least the
preemptor's with its job, until the job fits.
"""
import collections
import functools

import numpy as np

from .. import _validation as check
from . import armada, kueue
from .catalog import RATE_INTERVAL, RATE_LIMIT

STRATEGIES = {"LessThanOrEqualToFinalShare": kueue.less_than_or_equal_to_final_share,
              "LessThanInitialShare": kueue.less_than_initial_share}
DEFAULT_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")

Candidate = collections.namedtuple("Candidate", "job queue usage")
Candidate.__doc__ = """A running job that may be preempted: `job` its id, `queue` its
ClusterQueue's name (Kueue) or its queue's id (Armada), `usage` what it holds
({(flavour, resource): amount} for Kueue)."""


def strategies(names):
    """Kueue's strategy functions for `names`, in order.

    Parameters
    ----------
    names : str or sequence of str
        Each one of STRATEGIES and none twice.

    Returns
    -------
    list of callable

    Raises
    ------
    ValueError
        No name, one twice, or one not of STRATEGIES.
    """
    names = (names,) if isinstance(names, str) else tuple(names)
    if not names:
        raise ValueError("strategies: give at least one of "
                         f"{', '.join(map(repr, STRATEGIES))}")
    for name in names:
        if name not in STRATEGIES:
            raise ValueError(f"strategies: {name!r} is not one of "
                             f"{', '.join(map(repr, STRATEGIES))}")
    if len(set(names)) < len(names):
        raise ValueError(f"strategies: {list(names)} names one twice")
    return [STRATEGIES[n] for n in names]


def kueue_targets(tree, preemptor, request, candidates, rules, fits):
    """The candidates Kueue's fair preemption evicts for a ClusterQueue's workload (see the
    module docstring), in order.

    A node's share depends on its own usage and on quotas only, so a target's share without
    what is taken from it is its share with that as a negative request; and once the highest
    share left is below the preemptor's, no strategy takes anything more (a removal only
    lowers a share).

    Parameters
    ----------
    tree : kueue.Cohorts
    preemptor : str
        The ClusterQueue.
    request : dict
        The workload's `{(flavour, resource): amount}`.
    candidates : list of Candidate
        In Kueue's order within each ClusterQueue.
    rules : list of callable
        Strategy functions (`strategies`).
    fits : callable
        `fits(chosen)`: whether the workload fits once the Candidates `chosen` are gone.

    Returns
    -------
    list of Candidate or None
        None when they would not make it fit.
    """
    mine = kueue.dominant_resource_share(tree, preemptor, request)
    taken = {}                                      # per ClusterQueue: usage taken off

    def share(q, more=None):
        delta = dict(taken.get(q, {}))
        for fr, v in (more or {}).items():
            delta[fr] = delta.get(fr, 0) - v
        return kueue.dominant_resource_share(tree, q, delta)
    chosen, left = [], list(candidates)
    for rule in rules:
        retry, queues = [], {}
        for c in left:
            queues.setdefault(c.queue, []).append(c)
        shares = {q: share(q) for q in queues}
        while queues:
            target = max(queues, key=functools.cmp_to_key(
                lambda a, b: kueue.compare(shares[a], shares[b])))
            if kueue.compare(mine, shares[target]) > 0 or not shares[target].borrowing:
                retry += [c for q in queues for c in queues[q]]
                break
            c = queues[target].pop(0)
            if not queues[target]:
                del queues[target]
            after = share(target, c.usage)
            if rule(mine, shares[target], after):
                delta = taken.setdefault(target, {})
                for fr, v in c.usage.items():
                    delta[fr] = delta.get(fr, 0) - v
                shares[target] = after
                chosen.append(c)
                if fits(chosen):
                    return chosen
            else:
                retry.append(c)
        left = retry
    return None


def armada_targets(preemptor_cost, candidates, usage, total, weights, fair, protected_fraction,
                   fits):
    """The candidates Armada's preemption evicts for a job, in order.

    A candidate goes while its queue's unweighted cost exceeds `protected_fraction` x its
    fair share and its weighted cost without it stays at least `preemptor_cost` (then the
    two queues cannot evict each other back and forth: that needs each to cost more than
    the other).

    Parameters
    ----------
    preemptor_cost : float
        What the job's queue costs (weighted, armada.cost) with it.
    candidates : list of Candidate
        Queue ids, usage (m,) vectors, in the module docstring's order.
    usage : dict
        `{queue: (m,) held}`.
    total : numpy.ndarray
        (m,).
    weights, fair : dict
        `{queue: weight}`, `{queue: demand-capped adjusted fair share}`.
    protected_fraction : float
    fits : callable
        As for kueue_targets.

    Returns
    -------
    list of Candidate or None
        None when they would not make it fit.
    """
    held = {q: np.array(v, dtype=np.float64) for q, v in usage.items()}
    total = np.asarray(total, dtype=np.float64)
    ones = np.ones_like(total)

    def cost(x):                                  # armada.cost, the inputs checked already
        return float(armada._unweighted(x, total, ones))
    chosen = []
    for c in candidates:
        q = c.queue
        without = np.maximum(held[q] - c.usage, 0.0)
        if cost(held[q]) > protected_fraction * fair[q] and \
                cost(without) / weights[q] >= preemptor_cost:
            held[q] = without
            chosen.append(c)
            if fits(chosen):
                return chosen
    return None


class RateLimit:
    """At most `count` evictions (jobs) in any window of `interval` seconds.

    `allows(now, n)` says whether n more may go at `now`; `record(now, n)` counts them.

    Parameters
    ----------
    count : int, optional
        None: no limit.
    interval : float
        Seconds, `> 0`.

    Raises
    ------
    ValueError
        An interval not `> 0`.
    """

    def __init__(self, count=None, interval=60.0):
        count = check.positive_int(count, RATE_LIMIT.name)
        interval = check.real(interval, RATE_INTERVAL.name, finite=True)
        if interval <= 0:
            raise ValueError(f"{RATE_INTERVAL.name} must be > 0, got {interval}")
        self.count, self.interval = count, float(interval)
        self.times = collections.deque()

    def allows(self, now, n):
        if self.count is None:
            return True
        while self.times and self.times[0] <= now - self.interval:
            self.times.popleft()
        return len(self.times) + n <= self.count

    def record(self, now, n):
        if self.count is not None:
            self.times.extend([now] * n)
