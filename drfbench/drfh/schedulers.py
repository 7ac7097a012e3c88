"""What the discrete DRFH schedulers (drfbench/drfh/drfh.pyx; drfh.simulation.scheduler
builds them as drfbench.sim policies) and their literal transcription share:

    slot_counts(machines, k)       k slots per maximum-size server, scaled to each server
    capped(trace, machines, k)     the trace as tasks capped by a slot run it (capped slots)

drfbench.drfh.literal.LiteralScheduler makes the kernel's decisions, written literally (the
test oracle).

Sec. V-B of the paper: the user with the lowest global dominant share launches its next
task, on the first server where it fits (First-Fit DRFH) or on the server minimizing Eq. 9
(Best-Fit DRFH); Sec. VI's slot scheduler hands out k slots per maximum server. The kernel's
docstring states every choice made where the paper is silent.
"""
import numpy as np

from .. import _validation as check
from ..sim import Trace
from .catalog import DEFAULT_SLOTS, SLOTS

# How a task runs in a slot (drfh-slots): "timeshare", with what it demands, the simulator
# time-sharing an oversubscribed server; "capped", with at most the slot's share (`capped`)


def slot_counts(machines, k=DEFAULT_SLOTS):
    """Slots per server.

    A slot is 1/k of the maximum server (each resource's largest capacity in the cluster);
    server l holds `floor(k x min_r cap_lr / max cap_r)` whole slots (Table I's <0.5, 0.25>
    holds 3 of 14; <0.5, 0.03> none: it stays idle).

    Parameters
    ----------
    machines : array_like
        (M, m) capacities.
    k : int
        Slots per maximum server.

    Returns
    -------
    numpy.ndarray
        (M,) int64.
    """
    C = check.machines(machines, name="servers")
    k = check.positive_int(k, SLOTS.name, allow_none=False)
    top = C.max(axis=0)
    frac = np.divide(C, top, out=np.ones_like(C), where=top > 0).min(axis=1)
    return np.floor(k * frac + 1e-9).astype(np.int64)


def capped(trace, machines, k=DEFAULT_SLOTS):
    """The trace as it runs when a task in a slot gets at most the slot's resources
    (the capped slot model).

    A slot is 1/k of the maximum server on every resource (`s_r = max_l cap_lr / k`, as
    slot_counts); a task holds `min(d_r, s_r)` of each resource r and runs
    `max(1, max_r d_r / s_r)` times its duration: the resource it lacks most slows it in
    proportion, and it holds the rest for that longer time (memory is held, not throttled).
    A server's slots never hold more than it has, so nothing is time-shared. Tasks that fit
    no server stay as they are (unschedulable either way).

    Parameters
    ----------
    trace : drfbench.sim.Trace
    machines : array_like
        (M, m) capacities.
    k : int
        Slots per maximum server.

    Returns
    -------
    drfbench.sim.Trace
    """
    C = check.machines(machines, trace.resources, name="servers")
    slot = C.max(axis=0) / check.positive_int(k, SLOTS.name, allow_none=False)
    D = np.asarray(trace.demands, dtype=np.float64)
    run = trace.fits(C)
    need = np.divide(D, slot, out=np.zeros_like(D), where=slot > 0).max(axis=1, initial=0.0)
    stretch = np.where(run, np.maximum(need, 1.0), 1.0)
    held = np.where(run[:, None], np.minimum(D, slot), D)
    if trace.names is None:
        return Trace(trace.user, trace.job, trace.arrival, trace.duration * stretch, held,
                     users=trace.users)
    return Trace(np.asarray(trace.names, dtype=object)[trace.user], trace.job, trace.arrival,
                 trace.duration * stretch, held, users=trace.names)


def task_queues(trace, C):
    """The schedulable trace rows grouped by user (trace order within a user): order, start."""
    fits = trace.fits(C)
    rows = np.flatnonzero(fits)
    order = rows[np.argsort(trace.user[rows], kind="stable")]
    start = np.searchsorted(trace.user[order], np.arange(trace.users + 1)).astype(np.int64)
    return order.astype(np.int64), start


def user_weights(weights, n):
    return np.ones(n) if weights is None else check.tenant_weights(weights, n)
