"""Classic DRF's kernel (drfbench/drf/drf.pyx) behind named inputs and outputs, the one
place that calls it:

    s = kernel.task_scheduler(demands=D, machines=C, weights=w, queue=q, slots=0, isa=None)
    s.schedule()                    # a Launches: users, machines; then s.release(user,
                                    # machine), s.add_tasks(user, count), s.launched, ...

the inputs validated by drf.tasks.scheduler; literal.online fills the same Launches.
"""
from functools import cache
from typing import NamedTuple

import numpy as np

from .. import _isa


class Launches(NamedTuple):
    """The tasks one schedule() launched, in order.

    Attributes
    ----------
    users, machines : numpy.ndarray
        int32: users[j]'s task on machines[j].
    """
    users: np.ndarray
    machines: np.ndarray


@cache
def _scheduler_class(variant):
    """The variant's TaskScheduler, its schedule() returning Launches."""
    return _isa.named_schedule(_isa.kernels(variant).drf.TaskScheduler, Launches)


def task_scheduler(*, demands, machines, weights, queue, slots, isa=None):
    """The online scheduler of variant `isa` (_isa.kernels): DRF (slots=0) or hadoop-slots with
    `slots` per machine.

    Parameters
    ----------
    demands : numpy.ndarray
        (n, m) float64.
    machines : numpy.ndarray
        (M, m) float64.
    weights : numpy.ndarray
        (n,).
    queue : numpy.ndarray
        (n,) int64 tasks waiting per user (-1: without end).
    slots : int
    isa : str, optional

    Returns
    -------
    object
        The kernel's scheduler.
    """
    return _scheduler_class(_isa.resolve(isa))(demands, machines, weights, queue, slots)
