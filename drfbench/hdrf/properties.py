"""The hierarchical properties the H-DRF slides claim (Bhattacharya et al., SoCC'13), checked
in tasks on any tree method: hierarchical share guarantee, Pareto efficiency, no
starvation (`python -m drfbench.hdrf properties`).

    from drfbench.hdrf import properties as props
    props.hierarchical_share_guarantee("flatten", props.random_trees(200, room=4))  # violated
    props.CHECKS.table(["hdrf", "flatten"], count=200, room=4, machines=(1, 1))      # tidy rows

A TreeInstance is a hierarchy and the machines it runs on; a tree method is a registered
tree method's name or a callable method(tree, machines) -> drfbench.hdrf.Schedule, run
from an idle cluster. Each check returns a drfbench.properties Verdict.
"""
from dataclasses import dataclass

import numpy as np

from .._validation import machines as checked_machines
from ..properties import (TOL, VERDICT_COLUMNS, Counterexample, NamedMethod, PropertySet,
                          instances_of, violation)
from .catalog import TREE
from .tasks import schedule
from .tree import tree as validated_tree


@dataclass(frozen=True, eq=False)
class TreeInstance:
    """A hierarchy and the machines it runs on.

    Attributes
    ----------
    tree : drfbench.hdrf.Tree
    machines : numpy.ndarray
        (M, m).
    label : str
    """
    tree: object
    machines: np.ndarray
    label: str = ""

    def __str__(self):
        t = self.tree
        nodes = []
        for k, path in enumerate(t.paths[1:], start=1):
            text = f"{path} w{t.weight[k]:g}"
            if k in t.leaves:
                i = int(np.flatnonzero(t.leaves == k)[0])
                tasks = "" if np.isinf(t.tasks[i]) else f" x{int(t.tasks[i])}"
                text += " <" + ", ".join(f"{v:g}" for v in t.demand[i]) + ">" + tasks
            nodes.append(text)
        machines = "; ".join("<" + ", ".join(f"{v:g}" for v in row) + ">" for row in self.machines)
        return f"{self.label + ': ' if self.label else ''}{'; '.join(nodes)} on {machines}"


def tree_instance(tree, machines, label=""):
    """A TreeInstance of a tree and machines, validated.

    Parameters
    ----------
    tree : Tree, dict or path
        drfbench.hdrf.tree's input.
    machines : array_like
        (M, m).
    label : str

    Returns
    -------
    TreeInstance
    """
    t = validated_tree(tree)
    return TreeInstance(t, checked_machines(machines, len(t.resources), resources=t.resources),
                        label)


def read_trees(instances):
    """One TreeInstance or an iterable of TreeInstances and (tree, machines) pairs, as a
    generator of TreeInstance.

    Parameters
    ----------
    instances : object or iterable

    Returns
    -------
    generator of TreeInstance
    """
    return instances_of(TreeInstance, tree_instance, instances)


class TreeMethod(NamedMethod):
    """A callable `method(tree, machines) -> drfbench.hdrf.Schedule`, named.

    Parameters
    ----------
    fn : callable
    name : str, optional
    """
    takes = TREE

    @staticmethod
    def registered(method):
        """Registered tree method `method`, run from an idle cluster (drfbench.hdrf.schedule)."""
        return lambda tree, machines: schedule(tree, machines, method)

    def __call__(self, tree, machines):
        return self.fn(tree, machines)


def _outcome(method, inst):
    """The run, and per leaf: tasks launched, whether tasks are still waiting, one task's
    dominant share of the cluster."""
    t = inst.tree
    res = method(t, inst.machines)
    total = inst.machines.sum(axis=0)
    launched = np.array([res.tasks[p] for p in t.leaf_paths], dtype=float)
    one_task = np.divide(t.demand, total, out=np.zeros_like(t.demand), where=total > 0).max(axis=1)
    return res, launched, launched < t.tasks, one_task


def guarantee_slack(tree, one_task):
    """Per node, what hierarchical_share_guarantee allows short of the guarantee.

    The largest of `one_task` among its leaves plus the sum of `one_task` over every leaf
    outside it.

    Parameters
    ----------
    tree : drfbench.hdrf.Tree
    one_task : numpy.ndarray
        One task's dominant share, per leaf.

    Returns
    -------
    numpy.ndarray
        (N,).
    """
    own = np.zeros(len(tree.paths))
    for i, node in enumerate(tree.leaves.tolist()):
        while node >= 0:
            own[node] = max(own[node], one_task[i])
            node = int(tree.parent[node])
    under = tree.subtree_sums(one_task)
    return own + under[0] - under


def hierarchical_share_guarantee(method, instances, *, tol=TOL, collect=None):
    """Hierarchical share guarantee: every node whose subtree still has tasks waiting
    holds at least its guaranteed share G_n, its weight's fraction of its parent's
    (the root's: the whole cluster), up to one task of each leaf: s_n + slack_n >= G_n,
    where s_n is the dominant share of the cluster its subtree holds and slack_n the
    largest one-task dominant share among its leaves plus one task's of every leaf
    outside it (each other leaf may hold one task beyond its exact share when the run
    stops, and each such task may come out of n's). Applies to a node's share over
    every resource (a guarantee in its parent's share of the node's dominant resource
    fails on multi-resource trees: a sibling may go on using a resource the node cannot
    use). Violation: 1 - (s_n + slack_n) / G_n, the largest over the nodes.

    Parameters
    ----------
    method : NamedMethod
        The method checked (`PropertySet.check` makes one of a name or a callable).
    instances : iterable
        The family's instances.
    tol : float
        The largest violation that counts as none.
    collect : list, optional
        Receives every counterexample.

    Returns
    -------
    Verdict
    """
    return CHECKS.verdict("hierarchical_share_guarantee", method, instances, _hierarchical, tol,
                          collect)


def _hierarchical(method, inst, tol, index):
    t = inst.tree
    res, launched, waiting, one_task = _outcome(method, inst)
    slack = guarantee_slack(t, one_task)
    share = np.array([0.0] + [res.shares[p] for p in t.paths[1:]])
    # (G - s - slack) / G in this order, not shortfall(s + slack, G): the same number up to
    # an ulp, which would move a committed table's value
    deficit = np.where(t.subtree_sums(waiting) > 0, (t.guarantee - share - slack) / t.guarantee,
                       0.0)
    deficit[0] = 0.0
    return violation(deficit, tol, lambda n: Counterexample(
        inst, f"node {t.paths[n]!r} holds a dominant share of {share[n]:.6g} with tasks "
              f"waiting, below its guarantee {t.guarantee[n]:.6g} by more than one task "
              f"of each leaf ({slack[n]:.6g})",
        dict(node=t.paths[n], share=float(share[n]), guarantee=float(t.guarantee[n]),
             slack=float(slack[n]), tasks=dict(zip(t.leaf_paths, launched.tolist())))))


def tree_pareto_efficiency(method, instances, *, tol=TOL, collect=None):
    """Pareto efficiency, in tasks: when the method stops, no leaf with tasks waiting
    could launch one more on some machine with what is left. Violation: the number of
    such leaves.

    Parameters
    ----------
    method : NamedMethod
        The method checked (`PropertySet.check` makes one of a name or a callable).
    instances : iterable
        The family's instances.
    tol : float
        The largest violation that counts as none.
    collect : list, optional
        Receives every counterexample.

    Returns
    -------
    Verdict
    """
    return CHECKS.verdict("tree_pareto_efficiency", method, instances, _tree_pareto, tol,
                          collect)


def _tree_pareto(method, inst, tol, index):
    t, C = inst.tree, inst.machines
    res, launched, waiting, _ = _outcome(method, inst)
    leaf_of = {p: i for i, p in enumerate(t.leaf_paths)}
    used = np.zeros_like(C)
    for path, k in res.order:
        used[k] += t.demand[leaf_of[path]]
    could = [i for i in np.flatnonzero(waiting)
             if ((used + t.demand[i] <= C * (1 + 1e-12)).all(axis=1)).any()]
    return violation(len(could), tol, lambda _: Counterexample(
        inst, f"leaf {t.leaf_paths[could[0]]!r} has tasks waiting and one more fits, "
              "yet the method stopped", dict(leaves=[t.leaf_paths[i] for i in could],
                                             tasks=dict(zip(t.leaf_paths, launched.tolist())))))


def no_starvation(method, instances, *, tol=TOL, collect=None):
    """No starvation: every leaf with tasks waiting whose guarantee admits a task (G_i at
    least one task's dominant share) has at least one task running. Violation: the
    number of starved leaves.

    Parameters
    ----------
    method : NamedMethod
        The method checked (`PropertySet.check` makes one of a name or a callable).
    instances : iterable
        The family's instances.
    tol : float
        The largest violation that counts as none.
    collect : list, optional
        Receives every counterexample.

    Returns
    -------
    Verdict
    """
    return CHECKS.verdict("no_starvation", method, instances, _no_starvation, tol, collect)


def _no_starvation(method, inst, tol, index):
    t = inst.tree
    _, launched, waiting, one_task = _outcome(method, inst)
    starved = np.flatnonzero(waiting & (launched == 0) & (t.guarantee[t.leaves] >= one_task))
    return violation(len(starved), tol, lambda _: Counterexample(
        inst, f"leaf {t.leaf_paths[starved[0]]!r} runs nothing, with tasks waiting and a "
              f"guarantee of {t.guarantee[t.leaves[starved[0]]]:.6g}",
        dict(leaves=[t.leaf_paths[i] for i in starved])))


def random_tree(rng, *, levels=3, fanout=(1, 4), resources=(1, 3), machines=(1, 3),
                finite=0.3, weights=3, room=None):
    """One random TreeInstance.

    Depth 1..levels, each inner node 1..fanout children (inner nodes with probability 0.7
    while depth allows), integer task demands 0..4 (one of them non-zero: ties abound), on
    identical machines of integer capacity 8..40 per resource.

    Parameters
    ----------
    rng : numpy.random.Generator
    levels : int
    fanout, resources, machines : tuple of int
        (low, high) bounds of the children per inner node, the resources and the machines.
    finite : float
        The probability of a task count 1..15 (else unbounded).
    weights : int
        Integer weights 1..weights.
    room : float, optional
        The cluster is made large enough (at least) that every leaf's guarantee holds `room`
        of its tasks on every resource.

    Returns
    -------
    TreeInstance
    """
    m = int(rng.integers(resources[0], resources[1] + 1))

    def children(depth):
        out = {}
        for c in range(int(rng.integers(fanout[0], fanout[1] + 1))):
            node = {"weight": int(rng.integers(1, weights + 1))}
            if depth < levels and rng.random() < 0.7:
                node["children"] = children(depth + 1)
            else:
                demand = rng.integers(0, 5, size=m)
                demand[rng.integers(m)] = rng.integers(1, 5)
                node["demand"] = demand.tolist()
                if rng.random() < finite:
                    node["tasks"] = int(rng.integers(1, 16))
            out[f"n{c}"] = node
        return out
    t = validated_tree({"resources": [f"r{j}" for j in range(m)], "children": children(1)})
    count = int(rng.integers(machines[0], machines[1] + 1))
    capacity = rng.integers(8, 41, size=m).astype(float)
    if room is not None:
        needed = room * (t.demand / t.guarantee[t.leaves][:, None]).max(axis=0)
        capacity = np.maximum(capacity, np.ceil(needed / count))
    return TreeInstance(t, np.tile(capacity, (count, 1)))


def random_trees(count, seed=0, **options):
    """`count` random TreeInstances (a generator; see random_tree for the options).

    Parameters
    ----------
    count : int
    seed : int
    **options
        random_tree's.

    Returns
    -------
    generator of TreeInstance
    """
    rng = np.random.default_rng(seed)
    for k in range(count):
        inst = random_tree(rng, **options)
        yield TreeInstance(inst.tree, inst.machines, label=f"random tree #{k}")


# The table checks every property on the same random trees (random_trees' options).
CHECKS = PropertySet(
    TREE, TreeInstance, read=read_trees, random=random_trees, method=TreeMethod,
    checks={"hierarchical_share_guarantee": hierarchical_share_guarantee,
            "tree_pareto_efficiency": tree_pareto_efficiency, "no_starvation": no_starvation},
    names={"hierarchical_share_guarantee": "Hierarchical share guarantee",
           "tree_pareto_efficiency": "Pareto efficiency (tasks)",
           "no_starvation": "No starvation"},
    columns=("method", "label", *VERDICT_COLUMNS, "counterexample"))
