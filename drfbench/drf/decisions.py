"""The online DRF scheduler's time per decision against the number of users: the cs262a
lecture's "Online DRF scheduler: O(log n) time per decision using binary heaps".

The kernel (drf.pyx) keeps the users in an indexed binary min-heap (drfbench/_native/_heap.pxd:
the children of p are 2p + 1 and 2p + 2) keyed by dominant share; a decision reads the top,
finds a machine and sifts the launched user down. On one machine holding every task a run
launches (first fit then looks at one machine), a decision is that heap's work alone.

Each run: n users with tasks of U(0.1, 1) per resource (seeded), infinite queues, equal
weights; `decisions` launches timed (time.perf_counter around one schedule() call, the
scheduler built before the clock starts), one thread (the kernel has no parallel loop).
"""
import time

import numpy as np

from .. import rows as tidy
from .. import sim
from .tasks import scheduler


def decision_times(users, decisions, repeats, *, resources=2, seed=0):
    """Rows of the time per decision, one per number of users and repeat.

    Parameters
    ----------
    users : list of int
        Numbers of users n, a run each per repeat.
    decisions : int
        Launches timed per run (the same for every n).
    repeats : int
        Runs per n, each on a new scheduler (the claims take their median).
    resources : int
        Resources per task.
    seed : int
        Seed of the demands, drawn per n.

    Returns
    -------
    list of dict
        users, resources, repeat, decisions (the kernel's count), seconds and
        ns_per_decision, stamped (drfbench.rows).

    Raises
    ------
    ValueError
        More than drfbench.sim.MAX_RUNNING / (10 resources) decisions.
    """
    if 10 * resources * decisions > sim.MAX_RUNNING:    # tasks of >= 0.1 of the largest
        raise ValueError(f"{decisions:,} decisions with tasks of {resources} resources: at most "
                         f"{sim.MAX_RUNNING // (10 * resources):,}, or the one machine could "
                         f"hold more than the schedulers' budget of {sim.MAX_RUNNING:,} tasks")
    stamp = tidy.stamp()
    out = []
    for n in users:
        demands = np.random.default_rng([seed, n]).uniform(0.1, 1.0, (n, resources))
        machine = decisions * demands.max(axis=0)      # holds any `decisions` tasks
        for repeat in range(repeats):
            s = scheduler(demands, machine)
            start = time.perf_counter()
            launched, _ = s.schedule(decisions)
            seconds = time.perf_counter() - start
            if len(launched) != decisions:
                raise RuntimeError(f"{n} users: {len(launched)} of {decisions} tasks launched")
            out.append({"users": n, "resources": resources, "repeat": repeat,
                        "decisions": s.decisions, "seconds": seconds,
                        "ns_per_decision": seconds / s.decisions * 1e9, "seed": seed, **stamp})
    return out
