"""The hierarchy H-DRF schedules: a tree of weighted nodes whose leaves (jobs or users)
each have a weight, one task's demand vector and a task count.

    {"resources": ["cpu", "mem", "gpu"],
     "children": {
       "research": {"weight": 2, "children": {
           "train": {"demand": [4, 16, 1], "tasks": 40},
           "eval":  {"weight": 3, "demand": [1, 2, 0]}}},
       "web": {"weight": 1, "demand": [2, 4, 0], "tasks": 200}}}

`weight` defaults to 1 and `tasks` to infinity; a node is addressed by its path
("research/train"; the root is ""). `tree()` (a dict, a YAML or JSON file, or a Tree)
checks everything first and raises a ValueError naming the node, so that no half-built
tree exists. Bounds that keep every computation finite: a weight lies in [MIN_WEIGHT,
MAX_WEIGHT] (1e-300, 1e300) and within a factor MAX_WEIGHT_RATIO (drfbench._validation)
of its siblings' (only their ratios matter); every node's guarantee (the product of
weight fractions down its path) is at least MIN_GUARANTEE (1e-300); a demand is finite
and >= 0; tasks a whole number in [0, MAX_COUNT] (`2**62`) or inf; the tree at most
MAX_DEPTH (100) levels deep and MAX_TREE_NODES (`2**20`) nodes, leaves included (a dict
sharing one child dict many times expands to all its copies). The tree is kept as flat arrays in breadth-first order (a
parent before its children, siblings in the order given): `parent`, `first_child`,
`next_sibling`, `depth`, what drfbench/hdrf/hdrf.pyx walks.
"""
import math
import numbers
from dataclasses import dataclass

import numpy as np

from .. import _inputs
from .. import _validation as check
from .._validation import MAX_COUNT, MAX_TREE_NODES, MAX_WEIGHT, MAX_WEIGHT_RATIO, MIN_WEIGHT

NODE_KEYS = frozenset({"weight", "children", "demand", "tasks"})
MAX_DEPTH = 100                       # levels below the root
MIN_GUARANTEE = 1e-300                # flattening's leaf weights, shares over them finite


@dataclass(frozen=True, eq=False)
class Tree:
    """A validated hierarchy (see the module docstring).

    Attributes
    ----------
    resources : tuple
        m names.
    paths : tuple
        N, breadth-first, root "" first.
    parent, first_child, next_sibling : numpy.ndarray
        N int64, -1: none.
    depth : numpy.ndarray
        N int64, root 0.
    weight : numpy.ndarray
        N float64, root 1.
    guarantee : numpy.ndarray
        N float64: the node's guaranteed fraction of the cluster, the product of its own and
        its ancestors' weight fractions among their siblings (the hierarchical share
        guarantee; flattening's leaf weights).
    leaves : numpy.ndarray
        L int64 node ids, depth-first, the order the leaves were given: leaf i is the
        simulator's user i.
    demand : numpy.ndarray
        (L, m) one task's resources per leaf.
    tasks : numpy.ndarray
        (L,) float64 (inf: unbounded).
    """
    resources: tuple
    paths: tuple
    parent: np.ndarray
    first_child: np.ndarray
    next_sibling: np.ndarray
    depth: np.ndarray
    weight: np.ndarray
    guarantee: np.ndarray
    leaves: np.ndarray
    demand: np.ndarray
    tasks: np.ndarray

    @property
    def leaf_paths(self):
        """The leaves' paths, in leaf order."""
        return tuple(self.paths[k] for k in self.leaves.tolist())

    def children(self, node):
        """Node ids of `node`'s children, in order."""
        out, c = [], int(self.first_child[node])
        while c >= 0:
            out.append(c)
            c = int(self.next_sibling[c])
        return out

    def subtree_sums(self, values):
        """(N, ...) float64: per node, the sum of `values` (one row per leaf) over the leaves
        of its subtree."""
        values = np.asarray(values, dtype=np.float64)
        out = np.zeros((len(self.paths),) + values.shape[1:])
        out[self.leaves] = values
        for d in range(int(self.depth.max()), 0, -1):
            nodes = np.flatnonzero(self.depth == d)
            np.add.at(out, self.parent[nodes], out[nodes])
        return out

    def flattened(self):
        """The same leaves, in the same order and with the same paths, as children of the
        root, each weighted by its guarantee (the slides' "hierarchy flattening")."""
        L = len(self.leaves)
        nodes = [("", -1, 1.0)] + [(p, 0, float(self.guarantee[k]))
                                   for p, k in zip(self.leaf_paths, self.leaves.tolist())]
        return _arrays(self.resources, nodes, list(range(1, L + 1)), self.demand, self.tasks)


def tree(spec):
    """A Tree from a Tree, a dict of the shape above, or a path to a YAML (.yaml, .yml) or JSON
    file of it.

    Parameters
    ----------
    spec : Tree, dict, str or Path

    Returns
    -------
    Tree

    Raises
    ------
    ValueError
        A malformed tree, naming the file and the node.
    """
    if isinstance(spec, Tree):
        return spec
    return _inputs.built(spec, "tree", _build)


def read_inputs(tree_path, machines_path):
    """The tree kind's reader (`drfbench run`).

    Parameters
    ----------
    tree_path : str or Path
        The tree's YAML/JSON file.
    machines_path : str or Path
        A machines CSV, one capacity column per resource of the tree, matched by name, and
        optionally `count` (drfbench._inputs.machines).

    Returns
    -------
    tree : Tree
    machines : numpy.ndarray
        (M, m).

    Raises
    ------
    ValueError
        Naming the file (and the node, or the line and column).
    """
    t = tree(tree_path)
    _, C = _inputs.machines(_inputs.read_csv(machines_path, "machines", name_column=True),
                            t.resources,
                            "the tree has")
    return t, C


# --------------------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------------------

def _number(value, what, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"node {where!r}: {what} must be a number, got {value!r:.80}")
    try:
        return float(value)
    except OverflowError:
        raise check.too_large(value, f"node {where!r}: {what}") from None


def _weight(spec, where):
    w = _number(spec.get("weight", 1), "weight", where)
    if not (math.isfinite(w) and w > 0):
        raise ValueError(f"node {where!r}: weight must be positive and finite, got {w}")
    if not MIN_WEIGHT <= w <= MAX_WEIGHT:
        raise ValueError(f"node {where!r}: weight must lie in [{MIN_WEIGHT:g}, {MAX_WEIGHT:g}], "
                         f"got {w:g}")
    return w


def _leaf(spec, where, m):
    demand = spec["demand"]
    if isinstance(demand, (str, bytes)) or not hasattr(demand, "__len__"):
        raise ValueError(f"leaf {where!r}: demand must be a list of {m} numbers, got {demand!r}")
    if len(demand) != m:
        raise ValueError(f"leaf {where!r}: demand has {len(demand)} entries, the tree has {m} "
                         f"resources")
    d = [_number(v, "demand", where) for v in demand]
    if any(math.isnan(v) or math.isinf(v) or v < 0 for v in d):
        raise ValueError(f"leaf {where!r}: demand must be finite and non-negative, got {d}")
    tasks = _number(spec.get("tasks", math.inf), "tasks", where)
    if math.isnan(tasks) or tasks < 0 or (math.isfinite(tasks) and
                                          (tasks != round(tasks) or tasks > MAX_COUNT)):
        raise ValueError(f"leaf {where!r}: tasks must be a whole number >= 0, at most "
                         f"{MAX_COUNT} (or omitted or inf: unbounded), got {spec.get('tasks')!r}")
    if math.isinf(tasks) and max(d) == 0:
        raise ValueError(f"leaf {where!r}: tasks demanding nothing, without end: every "
                         "method would launch them for ever; give it a task count")
    return d, tasks


def _build(spec):
    """Check the whole dict, then make the arrays (breadth-first)."""
    if not isinstance(spec, dict):
        raise ValueError(f"a tree is a dict with 'resources' and 'children', got "
                         f"{type(spec).__name__}")
    unknown = set(spec) - {"resources", "children"}
    if unknown:
        raise ValueError(f"tree: unknown key(s) {sorted(unknown)}; a tree has 'resources' and "
                         "'children'")
    resources = spec.get("resources")
    if (not isinstance(resources, (list, tuple)) or not resources
            or not all(isinstance(r, str) and r for r in resources)
            or len(set(resources)) != len(resources)):
        raise ValueError(f"tree: resources must be a non-empty list of distinct names, got "
                         f"{resources!r}")
    m = len(resources)
    nodes = [("", -1, 1.0)]               # (path, parent, weight), breadth-first
    leaf_nodes, demands, tasks = [], [], []
    queue = [(0, spec, [id(spec)])]       # (node id, spec, ids of the dicts on its path)
    for node, node_spec, ancestry in queue:
        path = nodes[node][0]
        children = node_spec.get("children")
        if not isinstance(children, dict) or not children:
            raise ValueError(f"node {path!r}: an inner node needs a non-empty dict of children, "
                             f"got {children!r:.200}")
        if len(ancestry) > MAX_DEPTH:
            raise ValueError(f"node {path[:80]!r}...: the tree is deeper than {MAX_DEPTH} levels")
        weights = []
        for name, child in children.items():
            where = f"{path}/{name}" if path else str(name)
            if not isinstance(name, str) or not name or "/" in name:
                raise ValueError(f"node {where!r}: a name is a non-empty string without '/'")
            if not isinstance(child, dict):
                raise ValueError(f"node {where!r}: expected a dict, got {type(child).__name__}")
            if id(child) in ancestry:
                raise ValueError(f"node {where!r}: a cycle (the node contains itself)")
            unknown = set(child) - NODE_KEYS
            if unknown:
                raise ValueError(f"node {where!r}: unknown key(s) {sorted(unknown)}; a node "
                                 f"has {sorted(NODE_KEYS)}")
            weight = _weight(child, where)
            weights.append((weight, where))
            nodes.append((where, node, weight))
            if len(nodes) > MAX_TREE_NODES:
                raise ValueError(f"node {where[:80]!r}: the tree has more than {MAX_TREE_NODES:,} "
                                 "nodes (drfbench's bound MAX_TREE_NODES)")
            if "demand" in child:
                if "children" in child:
                    raise ValueError(f"leaf {where!r}: has both a demand and children")
                d, t = _leaf(child, where, m)
                leaf_nodes.append((where, len(nodes) - 1))
                demands.append(d)
                tasks.append(t)
            elif "tasks" in child:
                raise ValueError(f"node {where!r}: tasks without a demand")
            else:
                queue.append((len(nodes) - 1, child, ancestry + [id(child)]))
        (low, light), (high, heavy) = min(weights), max(weights)
        if high > MAX_WEIGHT_RATIO * low:
            raise ValueError(f"node {heavy!r}: weight {high:g} is more than {MAX_WEIGHT_RATIO:g} "
                             f"times its sibling {light!r}'s ({low:g}); only sibling weights' "
                             "ratios matter")
    order = sorted(range(len(leaf_nodes)), key=lambda i: _ancestry(leaf_nodes[i][1], nodes))
    t = _arrays(tuple(resources), nodes, [leaf_nodes[i][1] for i in order],
                np.array([demands[i] for i in order], dtype=np.float64).reshape(-1, m),
                np.array([tasks[i] for i in order], dtype=np.float64))
    k = int(np.argmin(t.guarantee))
    if t.guarantee[k] < MIN_GUARANTEE:
        raise ValueError(f"node {t.paths[k]!r}: its guarantee (the product of its weight "
                         f"fractions down the tree) {t.guarantee[k]:g} is below {MIN_GUARANTEE:g}")
    return t


def _ancestry(node, nodes):
    """The node ids from the root's child down to `node`: sorting leaves by it gives
    depth-first order (breadth-first ids grow with the sibling order)."""
    key = []
    while node > 0:
        key.append(node)
        node = nodes[node][1]
    return key[::-1]


def _arrays(resources, nodes, leaves, demand, tasks):
    """The Tree of `nodes` ((path, parent, weight), breadth-first)."""
    N = len(nodes)
    parent = np.array([p for _, p, _ in nodes], dtype=np.int64)
    weight = np.array([w for _, _, w in nodes], dtype=np.float64)
    first_child = np.full(N, -1, dtype=np.int64)
    next_sibling = np.full(N, -1, dtype=np.int64)
    depth = np.zeros(N, dtype=np.int64)
    sums = np.zeros(N)
    for k in range(N - 1, 0, -1):          # backwards: siblings end up in order
        p = parent[k]
        next_sibling[k] = first_child[p]
        first_child[p] = k
        sums[p] += weight[k]
    guarantee = np.ones(N)
    for k in range(1, N):
        depth[k] = depth[parent[k]] + 1
        guarantee[k] = guarantee[parent[k]] * (weight[k] / sums[parent[k]])
    return Tree(resources=tuple(resources), paths=tuple(p for p, _, _ in nodes), parent=parent,
                first_child=first_child, next_sibling=next_sibling, depth=depth,
                weight=weight, guarantee=guarantee, leaves=np.array(leaves, dtype=np.int64),
                demand=np.ascontiguousarray(demand, dtype=np.float64),
                tasks=np.asarray(tasks, dtype=np.float64))
