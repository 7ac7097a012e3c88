"""H-DRF's kernel (drfbench/hdrf/hdrf.pyx) behind named inputs and outputs, the one place
that calls it:

    s = kernel.tree_scheduler(tree=t, machines=C, mode="hdrf", queue=q, isa=None,
                              **settings)     # the kernel's: the catalog's INCREMENTAL, SETS
    s.schedule()                    # a Launches: leaves, machines; then s.release(leaf,
                                    # machine), s.add_tasks(leaf, count), s.keys, ...

the inputs validated by hdrf.tasks.scheduler; literal.Reference fills the same Launches.
"""
from functools import cache
from typing import NamedTuple

import numpy as np

from .. import _isa


class Launches(NamedTuple):
    """The tasks one schedule() launched, in order.

    Attributes
    ----------
    leaves, machines : numpy.ndarray
        int32: leaves[j]'s task (the leaf's index in tree.leaves) on machines[j].
    """
    leaves: np.ndarray
    machines: np.ndarray


@cache
def _scheduler_class(variant):
    """The variant's TreeScheduler, its schedule() returning Launches."""
    return _isa.named_schedule(_isa.kernels(variant).hdrf.TreeScheduler, Launches)


def tree_scheduler(*, tree, machines, mode, queue, isa=None, **settings):
    """The tree scheduler of variant `isa` (_isa.kernels).

    Parameters
    ----------
    tree : tree.Tree
        Validated; flattened for "flatten".
    machines : numpy.ndarray
        (M, m) float64.
    mode : str
        The method's rule, a key of the kernel's MODES: "hdrf", "static", "naive",
        "capacity", "capacity-pareto".
    queue : numpy.ndarray
        (leaves,) int64 tasks waiting per leaf (-1: without end).
    isa : str, optional
    **settings
        The kernel TreeScheduler's, by name (the catalog's INCREMENTAL: keep shares up to
        date, False recomputes them at every decision; SETS: open-sets kept, 0 as many as
        64 MiB holds), checked by hdrf.tasks.scheduler.

    Returns
    -------
    object
        The kernel's TreeScheduler.
    """
    variant = _isa.resolve(isa)
    shapes, shape = np.unique(tree.demand, axis=0, return_inverse=True)
    return _scheduler_class(variant)(
        tree.parent, tree.first_child, tree.next_sibling, tree.weight, tree.guarantee,
        tree.leaves, tree.demand, shape.reshape(-1), shapes, queue, machines,
        _isa.kernels(variant).hdrf.MODES[mode], **settings)
