"""The simulator's kernel (drfbench/sim/sim.pyx) behind named inputs and outputs, the one
place that calls it:

    out = kernel.run(capacity, users, policy, horizon, jobs=..., trace=... | backlog=...,
                     tasks=..., resume=False, sample=None, shapes=None, isa=None)  # Outputs

The inputs are the arrays drfbench.sim.engine prepares (checked there); the literal loop
(drfbench.sim.literal) fills the same Outputs, which engine.finish turns into a Simulation.
"""
from typing import NamedTuple

import numpy as np

from .. import _isa
from .samples import Sampler, snapshot


class Outputs(NamedTuple):
    """One run of the loop.

    Attributes
    ----------
    end : float
        The time it stopped.
    events : int
        Arrivals + launches + completions + evictions.
    unresolved : int
        The trace row whose `start + work == start` stopped the run, else -1.
    samples : dict
        Sampler.arrays.
    completions : dict
        (time, user, count): job completions in order.
    jobs : dict
        (user, submit, finish).
    tasks : dict
        (user, job index, machine, arrival, start, end, demand (N, m)).
    pending : numpy.ndarray
        (n,) tasks arrived and not running or done, evicted ones included (a trace's rows
        not yet arrived excluded).
    arrived_until : int
        Trace rows added so far.
    evictions : dict
        (time, task, user, machine, lost: the work in task-seconds the eviction threw away)
        in order.
    """
    end: float
    events: int
    unresolved: int
    samples: dict
    completions: dict
    jobs: dict
    tasks: dict
    pending: np.ndarray
    arrived_until: int
    evictions: dict


def run(capacity, users, policy, horizon, *, jobs, tasks=None, trace=None, backlog=None,
        resume=False, sample=None, shapes=None, isa=None) -> Outputs:
    """Run the kernel of variant `isa` (_isa.kernels); sim.pyx's EventLoop documents the
    arrays.

    Parameters
    ----------
    capacity : numpy.ndarray
        (M, m).
    users : int
        n.
    policy : Policy
    horizon : float
    jobs : tuple
        (user, left, submit).
    tasks : tuple, optional
        A trace's (user, job, arrival, work, demand).
    trace : tuple, optional
        A trace's (by_user, ptr, schedulable).
    backlog : tuple, optional
        (demands, tasks_per_job, duration, jitter, draw).
    resume : bool
        An evicted task keeps its work done.
    sample : float, optional
        Seconds between samples (None: none).
    shapes : numpy.ndarray, optional
        (n, m): each user's share from one demand vector per user (default: from its tasks'
        demands).
    isa : str, optional

    Returns
    -------
    Outputs
    """
    n, m = users, capacity.shape[1]
    loop = _isa.kernels(isa).sim.EventLoop(capacity, tasks or {}, jobs, n, trace=trace,
                                           backlog=backlog, resume=resume)
    total = capacity.sum(axis=0)

    def state():
        fast = loop.full_speed_state(total)         # every machine at speed 1: one C pass
        if fast is not None:
            return fast
        ids, T = loop.running(), loop.tasks
        return snapshot(ids, T["user"], loop.speed[T["machine"][ids]], T["demand"], n, total,
                        shapes)
    sampler = Sampler(sample, state, n * (m + 1)) if sample is not None else None
    end = loop.run(policy, horizon, sampler.record if sampler else None)
    samples = (sampler or Sampler(1.0, None)).arrays(n, m)
    return Outputs(end=end, events=loop.events, unresolved=loop.lost, samples=samples,
                   completions=loop.completions, jobs=loop.jobs, tasks=loop.tasks,
                   pending=loop.pending, arrived_until=loop.arrived_until,
                   evictions=loop.evictions)
