"""DRFH's kernel (drfbench/drfh/drfh.pyx) behind named inputs and outputs, the one place
that calls it:

    s = kernel.trace_scheduler(servers=C, demands=D, order=o, start=st, user_weights=w,
                               server_slots=k, method="drfh-best-fit", **options)
                                    # the method's other declared options: index,
                                    # threads, isa
    s.schedule()                    # a Launches: users, servers; then s.add_tasks(user,
                                    # count), s.release_task(task, user, server), ...

the inputs validated by drfh.simulation.scheduler; literal.LiteralScheduler fills the same
Launches.
"""
from functools import cache
from typing import NamedTuple

import numpy as np

from .. import _isa


class Launches(NamedTuple):
    """The tasks one schedule() launched, in order.

    Attributes
    ----------
    users, servers : numpy.ndarray
        int64: the next task of users[j] on servers[j].
    """
    users: np.ndarray
    servers: np.ndarray


@cache
def _scheduler_class(variant):
    """The variant's DRFHScheduler, its schedule() returning Launches."""
    return _isa.named_schedule(_isa.kernels(variant).drfh.DRFHScheduler, Launches)


def trace_scheduler(*, servers, demands, order, start, user_weights, server_slots, method,
                    index, threads, isa=None):
    """The trace scheduler of variant `isa` (_isa.kernels) for method `method`.

    Parameters
    ----------
    servers : numpy.ndarray
        (M, m) float64.
    demands : numpy.ndarray
        The trace's (tasks, m) float64.
    order, start : numpy.ndarray
        int64: its schedulable rows grouped by user (user u's are order[start[u]:start[u + 1]]).
    user_weights : numpy.ndarray
        (users,).
    server_slots : numpy.ndarray
        (M,) int64 per server (drfh-slots'; zeros otherwise).
    method : str
        A key of the kernel's MODES: "drfh-first-fit", "drfh-best-fit", "drfh-slots".
    index : bool
        Find servers through the server index (False: the literal scan).
    threads : int
        Of the literal scan.
    isa : str, optional

    Returns
    -------
    object
        The kernel's DRFHScheduler.
    """
    variant = _isa.resolve(isa)
    return _scheduler_class(variant)(servers, demands, order, start, user_weights, server_slots,
                                     _isa.kernels(variant).drfh.MODES[method], index,
                                     threads)
