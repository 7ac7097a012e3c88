"""Hierarchical schedulers on a cluster (drfbench/hdrf/hdrf.pyx): static runs, the stateful
policy for drfbench.sim, and the divisible mode.

    schedule(tree, machines, method)   launch tasks on an idle cluster until the method
                                       launches nothing more: a Schedule
    scheduler(tree, machines, method)  the kernel's TreeScheduler, a drfbench.sim policy
                                       (leaf i is the simulator's user i)
    allocate(tree, capacity, method)   divisible: each leaf's resource vector

`tree` is a drfbench.hdrf.Tree, a dict of its shape or a YAML/JSON file; `machines` one
capacity vector or one row per machine; `method` a registered tree method
(drfbench.methods(takes="tree")).
"""
import dataclasses
from dataclasses import dataclass

import numpy as np

from .. import api
from .. import _validation as check
from .._validation import MAX_COUNT
from .. import rows as tidy
from ..sim import UNBOUNDED, fits_somewhere, running_bound, task_queues
from . import kernel
from .catalog import INCREMENTAL, MAX_SETS, SETS, TREE
from .literal import Reference
from .tree import tree as as_tree

MAX_RESOLUTION = 10**6             # allocate's quanta per leaf, at most
# Each registered method: the kernel's mode, and whether it runs on the flattened tree.
METHOD_MODES = {"hdrf": ("hdrf", False), "static-hdrf": ("static", False),
                "naive-hdrf": ("naive", False), "flatten": ("static", True),
                "capacity": ("capacity", False), "capacity-pareto": ("capacity-pareto", False)}


@dataclass(frozen=True)
class Schedule:
    """What a static run gives.

    Attributes
    ----------
    method : str
        The registered method that ran.
    resources : tuple
        The resources' names.
    tasks : dict
        Leaf path -> tasks launched.
    allocation : dict
        Leaf path -> resources held (tasks x demand).
    order : list
        The launches in order, (leaf path, machine index).
    shares : dict
        Node path -> dominant share of the cluster its subtree holds (unweighted, every
        resource).
    free : numpy.ndarray
        Capacity left per resource.
    decisions : int
        Descents taken (launches and failed attempts).
    """
    method: str
    resources: tuple
    tasks: dict
    allocation: dict
    order: list
    shares: dict
    free: np.ndarray
    decisions: int

    def rows(self, **columns):
        """Tidy rows, one per leaf: method, decisions, then the leaf (its path), its tasks and its
        share (the dominant share of the cluster it holds), stamped (drfbench.rows).

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        return tidy.stamped(({"method": self.method, "decisions": self.decisions, "leaf": leaf,
                              "tasks": n, "share": self.shares[leaf]}
                             for leaf, n in self.tasks.items()), **columns)


def _queues(t, tasks):
    """Task counts per leaf as the kernel's int64 queue (UNBOUNDED: unbounded): the tree's,
    or `tasks` (one count per leaf: a whole number in [0, MAX_COUNT], or inf for
    unbounded; a leaf demanding nothing needs a count)."""
    queue = task_queues(t.tasks if tasks is None else tasks, len(t.leaves), _leaf_label(t),
                        "leaf")
    idle = np.flatnonzero((queue == UNBOUNDED) & (t.demand.max(axis=1, initial=0.0) == 0))
    if idle.size:
        raise ValueError(f"leaf {t.leaf_paths[idle[0]]!r}: tasks demanding nothing, without "
                         "end: every method would launch them for ever; give it a task count")
    return queue


def _leaf_label(t):
    return lambda i: f"leaf {t.paths[t.leaves[i]]!r}"


def scheduler(tree, machines, method="hdrf", **options):
    """The stateful scheduler of registered tree method `method`: a drfbench.sim policy whose
    users are the leaves in order.

    The kernel's TreeScheduler on the validated tree (flattened for "flatten") and machines
    (kernel.tree_scheduler). Its methods: schedule() -> kernel.Launches (leaves, machines)
    launched, release(leaf, machine), add_tasks(leaf, count); its state: running, launched,
    queued, usage, keys, node_usage, blocked, exhausted, decisions. The options are the
    method's, checked and defaulted by the registry (Method.checked: one check, one set of
    defaults with hdrf.schedule).

    Parameters
    ----------
    tree : Tree, dict or path
        Within the tree's bounds (drfbench.hdrf.tree).
    machines : array_like, DataFrame or dict of columns
        Matched to the tree's resources by name when given by name, else by position.
    method : str
        A registered tree method (drfbench.methods(takes="tree")).
    **options
        The method's. `tasks`: tasks waiting per leaf (default: the tree's), whole numbers
        in [0, `2**62`] or inf (a leaf demanding nothing needs a count). `incremental`:
        False recomputes every share at every decision (the baseline the incremental one is
        measured against; both decide the same). `sets`: how many open-sets (which task
        shapes fit somewhere) the incremental one keeps the shares of, an integer in
        [1, MAX_SETS] (1024) (None: as many as 64 MiB holds, at most 1024; the least
        recently used is dropped). `literal=True`: the slides' algorithm written literally
        (literal.Reference, slow: the kernel's test oracle) instead of the kernel.

    Returns
    -------
    object
        The kernel's TreeScheduler, or literal.Reference.

    Raises
    ------
    ValueError
        Bad tree, machines or options; more than drfbench.sim.MAX_RUNNING (`10**7`) tasks
        able to run at once (the work budget); `isa` with `literal=True`.
    TypeError
        `incremental` not True or False.
    """
    spec = api.method_info(method, TREE)
    o = spec.checked(options)
    tasks, isa, literal = o["tasks"], o["isa"], o["literal"]
    sets = check.positive_int(o[SETS.name], SETS.name, upper=MAX_SETS)
    settings = {INCREMENTAL.name: o[INCREMENTAL.name], SETS.name: sets or 0}   # the kernel's
    if not isinstance(settings[INCREMENTAL.name], (bool, np.bool_)):
        raise TypeError(f"{INCREMENTAL.name} must be True or False, got "
                        f"{settings[INCREMENTAL.name]!r:.80}")
    t = as_tree(tree)
    mode, flat = METHOD_MODES[spec.name]
    C = check.machines(machines, len(t.resources), resources=t.resources)
    fits = fits_somewhere(t.demand, C)
    if not fits.all():
        i = int(np.argmin(fits))
        raise ValueError(f"leaf {t.leaf_paths[i]!r}: a task "
                         f"<{', '.join(f'{v:g}' for v in t.demand[i])}> fits on no machine")
    queue = _queues(t, tasks)
    running_bound(t.demand, C, queue, _leaf_label(t))
    if flat:
        t = t.flattened()
    if literal:
        if isa is not None:
            raise ValueError(f"isa={isa!r} chooses the kernel's variant; the literal "
                             "transcription has none")
        return Reference(t, C, mode, queue)
    return kernel.tree_scheduler(tree=t, machines=C, mode=mode, queue=queue, isa=isa,
                                 **settings)


def run_method(spec, tree, machines, **options):
    """The registry's implementation of the tree methods: launch tasks on idle machines
    until the method launches nothing more (for H-DRF: until every leaf is blocked).
    Returns a Schedule.

    Parameters
    ----------
    spec : Method
        The method as registered.
    tree, machines
        As `schedule` takes them.
    **options
        The method's, checked and defaulted by the registry (`scheduler`).

    Returns
    -------
    Schedule
    """
    t = as_tree(tree)
    s = scheduler(t, machines, spec.name, **options)
    leaves, where = s.schedule()
    paths = t.leaf_paths
    launched = np.asarray(s.launched)          # the literal Reference's is a list
    held = launched[:, None] * t.demand
    C = check.machines(machines, len(t.resources), resources=t.resources)
    total = C.sum(axis=0)
    used = t.subtree_sums(held)
    shares = np.divide(used, total, out=np.zeros_like(used), where=total > 0).max(axis=1)
    return Schedule(method=spec.name, resources=t.resources,
                    tasks={p: int(n) for p, n in zip(paths, launched.tolist())},
                    allocation={p: held[i] for i, p in enumerate(paths)},
                    order=[(paths[i], k) for i, k in zip(leaves.tolist(), where.tolist())],
                    shares={p: float(v) for p, v in zip(t.paths[1:], shares[1:].tolist())},
                    free=total - held.sum(axis=0), decisions=int(s.decisions))


def schedule(tree, machines, method="hdrf", **options):
    """Run registered tree method `method` on idle machines until it launches nothing more.

    Parameters
    ----------
    tree, machines, method, **options
        As `scheduler`'s (drfbench.methods(takes="tree")).

    Returns
    -------
    Schedule

    Raises
    ------
    ValueError
        As `scheduler`.
    """
    return api.run(method, tree, machines, takes=TREE, **options)


def allocate(tree, capacity, method="hdrf", *, resolution=1000, isa=None):
    """Divisible mode: each leaf's resource vector from one pool, for the property checker.

    Computed as the discrete method with small tasks (the slides' Alloc hands out resources
    in pieces too): each leaf's task is cut into `q_i = ceil(resolution x its dominant share
    of the pool)` equal quanta, so that a quantum is at most 1/resolution of the pool on
    every resource; a leaf with a task count demands that many tasks' worth. The result is
    within one quantum per leaf of the limit as the quanta shrink.

    Parameters
    ----------
    tree : Tree, dict or path
    capacity : array_like
        The pool, one vector.
    method : str
        A registered tree method.
    resolution : int
        In [1, MAX_RESOLUTION] (`10**6`); the run launches about resolution x resources
        quanta, within the schedulers' work budget (drfbench.sim.MAX_RUNNING).
    isa : str, optional
        The kernels' variant.

    Returns
    -------
    dict
        Leaf path -> array.

    Raises
    ------
    ValueError
        `capacity` not one vector, a bad `resolution`, or a leaf's task needing a resource
        the pool has none of.
    """
    t = as_tree(tree)
    C = check.machines(capacity, len(t.resources), resources=t.resources)
    if len(C) != 1:
        raise ValueError(f"capacity is one vector (a divisible pool), got {len(C)} rows")
    resolution = check.positive_int(resolution, "resolution", allow_none=False,
                                    upper=MAX_RESOLUTION)
    lacking = (t.demand > 0) & (C[0] == 0)
    if lacking.any():                        # named as written, before the quanta divide it
        i, r = np.argwhere(lacking)[0]
        raise ValueError(f"leaf {t.leaf_paths[i]!r}: a task <"
                         f"{', '.join(f'{v:g}' for v in t.demand[i])}> needs "
                         f"{t.resources[r]!r}, of which the pool has 0")
    dom = np.divide(t.demand, C[0], out=np.zeros_like(t.demand), where=C[0] > 0).max(axis=1)
    quanta = np.maximum(1.0, np.ceil(resolution * dom))
    tasks = t.tasks * quanta                 # beyond MAX_COUNT: more than the pool holds
    pieces = dataclasses.replace(t, demand=t.demand / quanta[:, None],
                                 tasks=np.where(tasks > MAX_COUNT, np.inf, tasks))
    s = scheduler(pieces, C, method, isa=isa)
    s.schedule()
    return {p: s.launched[i] / quanta[i] * t.demand[i] for i, p in enumerate(t.leaf_paths)}
