"""The slides' claims as small worked examples, run under every tree method.

The slides' figures are lost in the text extraction (their trees and numbers with them),
so each example is the smallest tree we found that shows the claim, on the slides'
<100 CPU, 100 GPU> where it can be:

  flattening   n1 = {n11 <1 CPU>, n12 <1 GPU>}, n2 = {n21 <1 CPU, 1 GPU>}, equal weights
               ("Hierarchy Flattening ... Hierarchical Share Guarantee Violated"):
               flattening gives the leaves weights 1/4, 1/4, 1/2, so n1 ends with a
               dominant share of 0.34 against its guarantee of 0.5; H-DRF gives 0.5 each.
  rescaling    n1 = {n11 <1 CPU>, n12 <1 GPU>}, n2 = {n21 <1 CPU>}; n12 runs 80 tasks
               alone first, then everyone wants more ("Re-scaling ... no starvation from
               empty cluster"): on raw usage n1 looks 80% full and n11 gets 20 CPUs to
               n21's 80; H-DRF rescales n12 down to n11's share and splits the CPUs 50/50.
  blocked      the same tree, n12 first takes all 100 GPUs ("Ignore Blocked Nodes"): on
               raw usage n11 gets no CPU at all (starved); H-DRF ignores the used-up GPUs
               and splits the CPUs 50/50.
  reservation  a <3 CPU> and b <1 CPU> on two machines of <4 CPU> ("Hadoop DRF
               schedulers can ... leave resources unallocated"): when a's next task fits
               nowhere, naive hierarchical DRF waits for it and leaves 2 CPUs idle that b
               could use; H-DRF skips the blocked node.
  drf          the slides' DRF example, two users on <100 CPU, 100 GPU>: u1 <3 CPU,
               2 GPU> and u2 <2 CPU, 3 GPU> ("Equalize the dominant share of all users":
               60% each, 20 tasks each); on a flat tree every method is DRF but the
               capacity scheduler without Pareto fill (each user capped at its half).

An example's phases are the tasks each leaf gets, in turn: the first sets the queues
(leaves not named have none), each later one adds tasks; the method schedules after each.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..api import method_info
from .catalog import TASKS
from .tasks import scheduler
from .tree import tree as as_tree

INF = math.inf
_TWO_LEVELS = {"n1": {"children": {"n11": {"demand": [1, 0]}, "n12": {"demand": [0, 1]}}},
               "n2": {"children": {"n21": {"demand": [1, 0]}}}}


@dataclass(frozen=True)
class Example:
    """A worked example.

    Attributes
    ----------
    name : str
    claim : str
        The slide's claim.
    tree : dict
    machines : list
    phases : tuple
    """
    name: str
    claim: str
    tree: dict
    machines: list
    phases: tuple


EXAMPLES = (
    Example("flattening", "flattening violates the hierarchical share guarantee",
            {"resources": ["cpu", "gpu"], "children": {
                "n1": {"children": {"n11": {"demand": [1, 0]}, "n12": {"demand": [0, 1]}}},
                "n2": {"children": {"n21": {"demand": [1, 1]}}}}},
            [[100, 100]], ({"n1/n11": INF, "n1/n12": INF, "n2/n21": INF},)),
    Example("rescaling", "without rescaling a sibling's early usage starves a late leaf",
            {"resources": ["cpu", "gpu"], "children": _TWO_LEVELS}, [[100, 100]],
            ({"n1/n12": 80}, {"n1/n11": INF, "n1/n12": INF, "n2/n21": INF})),
    Example("blocked", "without ignoring blocked nodes a used-up resource starves a leaf",
            {"resources": ["cpu", "gpu"], "children": _TWO_LEVELS}, [[100, 100]],
            ({"n1/n12": 100}, {"n1/n11": INF, "n1/n12": INF, "n2/n21": INF})),
    Example("reservation", "waiting for a task that fits nowhere leaves resources idle",
            {"resources": ["cpu"], "children": {"a": {"demand": [3]}, "b": {"demand": [1]}}},
            [[4], [4]], ({"a": INF, "b": INF},)),
    Example("drf", "DRF equalizes the dominant shares of all users",
            {"resources": ["cpu", "gpu"], "children": {"u1": {"demand": [3, 2]},
                                                      "u2": {"demand": [2, 3]}}},
            [[100, 100]], ({"u1": INF, "u2": INF},)),
)


def run(example, method):
    """An example run under `method`, after every phase.

    Parameters
    ----------
    example : Example
    method : str
        A registered tree method.

    Returns
    -------
    tasks : dict
        Tasks launched per leaf path.
    tree : Tree
    scheduler : object
        The scheduler.
    """
    t = as_tree(example.tree)
    index = {p: i for i, p in enumerate(t.leaf_paths)}
    first = np.zeros(len(index))
    for path, count in example.phases[0].items():
        first[index[path]] = count
    s = scheduler(t, example.machines, method, **{TASKS.name: first})
    s.schedule()
    for phase in example.phases[1:]:
        for path, count in phase.items():
            s.add_tasks(index[path], -1 if math.isinf(count) else int(count))
        s.schedule()
    return dict(zip(t.leaf_paths, s.launched.tolist())), t, s


def example_rows(methods):
    """Tidy rows: per example, method and node, the tasks its subtree runs, its dominant share
    of the cluster and its guarantee; and the cluster's idle capacity.

    Parameters
    ----------
    methods : list of str
        Registered tree methods.

    Returns
    -------
    list of dict
    """
    rows = []
    for ex in EXAMPLES:
        for method in methods:
            _, t, s = run(ex, method)
            C = np.asarray(ex.machines, dtype=float)
            total = C.sum(axis=0)
            held = t.subtree_sums(s.launched[:, None] * t.demand)
            count = t.subtree_sums(s.launched)
            idle = 1.0 - s.usage.sum(axis=0) / total
            for k, path in enumerate(t.paths[1:], start=1):
                rows.append({"example": ex.name, "claim": ex.claim, "method": method,
                             "label": method_info(method).label, "node": path,
                             "leaf": k in t.leaves, "tasks": int(count[k]),
                             "share": float((held[k] / total).max()),
                             "guarantee": float(t.guarantee[k]),
                             **{f"idle_{r}": float(v) for r, v in zip(t.resources, idle)}})
    return rows
