"""The scenario the production rules run on: a tree of queues with what production queues
carry, heterogeneous nodes, and jobs arriving over time.

    {"resources": ["cpu", "mem", "gpu"],
     "nodes": {"cpu": {"capacity": [32, 128, 0], "count": 12},
               "gpu": {"capacity": [16, 64, 4], "count": 4}},
     "children": {
       "research": {"weight": 2, "guarantee": [64, 256, 8], "children": {
           "train": {"limit": [64, 256, 16], "priority_factor": 2},
           "eval":  {"shares": 3}}},
       "web": {"guarantee": [128, 512, 0], "lending_limit": [64, 256, 0]}},
     "jobs": [{"queue": "research/train", "arrival": 0, "tasks": 4,
               "demand": [4, 16, 1], "duration": 600, "priority": 1}]}

The queue tree is the H-DRF tree's (drfbench.hdrf.tree: `resources`, `children`, `weight`,
the same bounds) with jobs in place of a leaf's `demand` and `tasks`; a queue without
`children` is a leaf queue, the only kind a job names (by its path). Per queue, each
optional, one number per resource (in the nodes' units) where it is a vector:

- `guarantee`: nominal quota (Kueue), min share (YARN), quota guarantee (Mesos); default 0;
- `limit`: the most the queue's subtree may hold (max, capability); default unbounded;
- `borrowing_limit`, `lending_limit`: Kueue's; default unbounded (none set);
- `priority_factor`: Armada's (its weight is 1 / priority_factor); default 1 / weight;
- `shares`: Slurm's raw shares; default the weight;
- `local_queues` (leaf queues only): Kueue's LocalQueues pointing at this ClusterQueue,
  `{name: {weight: w}}` (`fairSharing.weight`, default 1), for Admission Fair Sharing;
  default one local queue, `default`, of weight 1.

A queue's guarantee is at most its limit; a queue's children's guarantees sum to at most
its own where it has one, the top queues' to at most the cluster's capacity. `nodes` maps
a node type's name to its `capacity` and `count` (default 1). A job has `queue`, `demand`
(one task's) and `duration` (seconds of work per task), and optionally `arrival` (s,
default 0), `tasks` (default 1), `priority` (an integer, default 0; higher first) and
`preemptible` (default true) and `local_queue` (the name of one of its leaf's local queues,
default `default`). Every task fits on some node and within its queue's and
ancestors' limits.

`scenario()` (a dict, a YAML or JSON file read by drfbench._inputs.document, or a
Scenario) checks all of it before building anything; every error is one line naming the
file, the queue (by path), node type or job (by its index in `jobs`) and the field as
written; unknown keys are refused, naming them. Bounds: the tree's (queues at most
MAX_TREE_NODES, MAX_DEPTH levels), nodes expanded at most MAX_MACHINES and
MAX_MACHINE_CELLS capacities (drfbench._validation), jobs' tasks at most MAX_TASKS.
"""
import math
import numbers
from dataclasses import dataclass

import numpy as np

from .. import _inputs
from .._validation import (MAX_MACHINE_CELLS, MAX_MACHINES, MAX_TREE_NODES, MAX_WEIGHT,
                           MAX_WEIGHT_RATIO, MIN_WEIGHT)
from ..sim import FIT_SLACK, Trace

QUEUE_KEYS = frozenset({"weight", "children", "guarantee", "limit", "borrowing_limit",
                        "lending_limit", "priority_factor", "shares", "local_queues"})
VECTORS = ("guarantee", "limit", "borrowing_limit", "lending_limit")   # default 0, inf...
NODE_KEYS = frozenset({"capacity", "count"})
JOB_KEYS = frozenset({"queue", "arrival", "tasks", "demand", "duration", "priority",
                      "preemptible", "local_queue"})
LOCAL_QUEUE_KEYS = frozenset({"weight"})
DEFAULT_LOCAL_QUEUE = "default"   # a leaf's one local queue when it names none
TOP_KEYS = frozenset({"resources", "nodes", "children", "jobs"})
MAX_TASKS = 10**7             # tasks of all jobs together: the simulator's trace rows
MAX_PRIORITY = 2**31          # |priority| (Kubernetes' PriorityClass values are int32)
MAX_DEPTH = 100               # levels below the root, as an H-DRF tree's


@dataclass(frozen=True, eq=False)
class Scenario:
    """A validated scenario (see the module docstring).

    Queues are breadth-first (a parent before its children, the root "" first); local queues
    (Kueue's) leaf by leaf in queue order, each leaf's in the order given; jobs in the order
    given.

    Attributes
    ----------
    resources : tuple
        m names.
    paths : tuple
        (Q) the queues'.
    parent : numpy.ndarray
        (Q) int64, -1 for the root.
    weight, priority_factor, shares : numpy.ndarray
        (Q) float64; the root's 1.
    guarantee, limit, borrowing_limit, lending_limit : numpy.ndarray
        (Q, m) float64 (inf: unbounded; the root's guarantee and limit are the cluster's
        capacity).
    leaves : numpy.ndarray
        (L) int64 queue ids, depth-first in the order given.
    local_queue_names : tuple
        (N).
    local_queue_leaf : numpy.ndarray
        (N) int64, its leaf's queue id.
    local_queue_weight : numpy.ndarray
        (N) float64.
    node_types : tuple
        Names.
    node_type : numpy.ndarray
        (M) int64, per machine.
    capacity : numpy.ndarray
        (M, m).
    queue : numpy.ndarray
        (J) int64, a queue id.
    local_queue : numpy.ndarray
        (J) int64, a local queue's index.
    arrival, duration : numpy.ndarray
        (J) float64.
    tasks : numpy.ndarray
        (J) int64.
    demand : numpy.ndarray
        (J, m).
    priority : numpy.ndarray
        (J) int64.
    preemptible : numpy.ndarray
        (J) bool.
    """
    resources: tuple
    paths: tuple
    parent: np.ndarray
    weight: np.ndarray
    priority_factor: np.ndarray
    shares: np.ndarray
    guarantee: np.ndarray
    limit: np.ndarray
    borrowing_limit: np.ndarray
    lending_limit: np.ndarray
    leaves: np.ndarray
    local_queue_names: tuple
    local_queue_leaf: np.ndarray
    local_queue_weight: np.ndarray
    node_types: tuple
    node_type: np.ndarray
    capacity: np.ndarray
    queue: np.ndarray
    local_queue: np.ndarray
    arrival: np.ndarray
    duration: np.ndarray
    tasks: np.ndarray
    demand: np.ndarray
    priority: np.ndarray
    preemptible: np.ndarray

    def ancestry(self, q):
        """Queue ids from `q` up to the root's child (the root left out)."""
        out = []
        while q > 0:
            out.append(q)
            q = int(self.parent[q])
        return out

    def children(self, q):
        """Queue ids of `q`'s children, in order."""
        return np.flatnonzero(self.parent == q).tolist()

    def trace(self):
        """The jobs as the simulator's Trace: one user per job (user j is job j, so that a
        policy chooses among jobs), its tasks that job's rows, sorted by arrival (jobs
        arriving together in the order given)."""
        order = np.argsort(self.arrival, kind="stable")
        job = np.repeat(order, self.tasks[order])
        return Trace(user=job, job=job, arrival=self.arrival[job], duration=self.duration[job],
                     demands=self.demand[job].reshape(-1, len(self.resources)),
                     users=len(self.arrival))


def scenario(spec):
    """A Scenario from a Scenario, a dict of the shape above, or a path to a YAML (.yaml, .yml)
    or JSON file of it.

    Parameters
    ----------
    spec : Scenario, dict, str or Path

    Returns
    -------
    Scenario

    Raises
    ------
    ValueError
        A malformed scenario, naming the file.
    """
    if isinstance(spec, Scenario):
        return spec
    return _inputs.built(spec, "scenario", _build)


def read_inputs(path):
    """The scenario kind's reader (`drfbench run`): the Scenario in a YAML or JSON file.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Scenario

    Raises
    ------
    ValueError
        Naming the file.
    """
    return scenario(path)


# --------------------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------------------

def _number(value, where, field):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{where}: {field} must be a number, got {value!r:.80}")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{where}: {field} is too large (past a float's range)") from None
    if math.isnan(v):
        raise ValueError(f"{where}: {field} must be a number, got nan")
    return v


def _positive(value, where, field):
    v = _number(value, where, field)
    if not MIN_WEIGHT <= v <= MAX_WEIGHT:
        raise ValueError(f"{where}: {field} must lie in [{MIN_WEIGHT:g}, {MAX_WEIGHT:g}], "
                         f"got {value!r:.80}")
    return v


def _whole(value, where, field, low, high):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) and not (
            isinstance(value, numbers.Real) and math.isfinite(value) and value == int(value)):
        raise ValueError(f"{where}: {field} must be a whole number, got {value!r:.80}")
    if not low <= value <= high:
        raise ValueError(f"{where}: {field} must lie in [{low}, {high}], got {value!r:.80}")
    return int(value)


def _vector(value, m, where, field, allow_inf=False):
    if not isinstance(value, (list, tuple, np.ndarray)) or np.asarray(value, dtype=object).ndim != 1:
        raise ValueError(f"{where}: {field} must be a list of {m} numbers, one per resource, "
                         f"got {value!r:.80}")
    if len(value) != m:
        raise ValueError(f"{where}: {field} has {len(value)} entries, the scenario has {m} "
                         "resources")
    v = [_number(x, where, field) for x in value]
    if any(x < 0 or (math.isinf(x) and not allow_inf) for x in v):
        raise ValueError(f"{where}: {field} must be {'' if allow_inf else 'finite and '}"
                         f">= 0, got {value!r:.120}")
    return v


def _keys(spec, allowed, where, what):
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected a mapping, got {type(spec).__name__}")
    unknown = set(spec) - allowed
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(map(str, unknown))}; {what} has "
                         f"{sorted(allowed)}")


def _build(spec):
    """Check the whole dict, then make the arrays."""
    if not isinstance(spec, dict):
        raise ValueError(f"a scenario is a mapping with {sorted(TOP_KEYS)}, got "
                         f"{type(spec).__name__}")
    _keys(spec, TOP_KEYS, "scenario", "a scenario")
    missing = sorted(TOP_KEYS - set(spec))
    if missing:
        raise ValueError(f"scenario: missing {missing}")
    resources = spec["resources"]
    if (not isinstance(resources, (list, tuple)) or not resources
            or not all(isinstance(r, str) and r for r in resources)
            or len(set(resources)) != len(resources)):
        raise ValueError(f"scenario: resources must be a non-empty list of distinct names, "
                         f"got {resources!r:.120}")
    m = len(resources)
    types, node_type, capacity = _nodes(spec["nodes"], m)
    total = capacity.sum(axis=0)
    queues = _queues(spec, m)
    paths = [q["path"] for q in queues]
    index = {p: k for k, p in enumerate(paths)}
    parent = np.array([index.get(q["parent"], -1) for q in queues], dtype=np.int64)
    vec = {f: np.array([q[f] for q in queues], dtype=np.float64).reshape(-1, m)
           for f in VECTORS}
    vec["guarantee"][0] = vec["limit"][0] = total
    _check_guarantees(queues, parent, vec, resources)
    leaf_set = {k for k, q in enumerate(queues) if q["leaf"]}
    leaves = sorted(leaf_set, key=lambda k: _path_key(k, parent))
    local = [(k, name, w) for k, q in enumerate(queues) if q["leaf"]
             for name, w in q["local_queues"].items()]
    local_index = {(k, name): i for i, (k, name, _) in enumerate(local)}
    jobs = _jobs(spec["jobs"], m, index, leaf_set, paths, capacity, vec["limit"], parent,
                 resources, local_index)
    weight = np.array([q["weight"] for q in queues])
    pf = np.array([q.get("priority_factor", 1.0 / q["weight"]) for q in queues])
    shares = np.array([q.get("shares", q["weight"]) for q in queues])
    return Scenario(resources=tuple(resources), paths=tuple(paths), parent=parent,
                    weight=weight, priority_factor=pf, shares=shares, **vec,
                    leaves=np.array(leaves, dtype=np.int64),
                    local_queue_names=tuple(name for _, name, _ in local),
                    local_queue_leaf=np.array([k for k, _, _ in local], dtype=np.int64),
                    local_queue_weight=np.array([w for _, _, w in local], dtype=np.float64),
                    node_types=types,
                    node_type=node_type, capacity=capacity, **jobs)


def _nodes(spec, m):
    if not isinstance(spec, dict) or not spec:
        raise ValueError(f"scenario: nodes must be a non-empty mapping of node types, got "
                         f"{spec!r:.80}")
    types, node_type, rows, count_all = [], [], [], 0
    for name, node in spec.items():
        where = f"node type {name!r}"
        _keys(node, NODE_KEYS, where, "a node type")
        if "capacity" not in node:
            raise ValueError(f"{where}: missing capacity")
        cap = _vector(node["capacity"], m, where, "capacity")
        count = _whole(node.get("count", 1), where, "count", 0, MAX_MACHINES)
        count_all += count
        if count_all > MAX_MACHINES or count_all * m > MAX_MACHINE_CELLS:
            raise ValueError(f"{where}: the nodes expand past {MAX_MACHINES:,} machines or "
                             f"{MAX_MACHINE_CELLS:,} capacities (drfbench's bounds)")
        node_type += [len(types)] * count
        rows.append((cap, count))
        types.append(str(name))
    capacity = np.repeat(np.array([c for c, _ in rows], dtype=np.float64).reshape(-1, m),
                         [n for _, n in rows], axis=0)
    if not len(capacity):
        raise ValueError("scenario: nodes: every node type has count 0")
    return tuple(types), np.array(node_type, dtype=np.int64), capacity


def _queues(spec, m):
    """The queues breadth-first: dicts of path, parent path, leaf, weight, the vectors and
    the optional scalars."""
    root = {"path": "", "parent": None, "leaf": False, "weight": 1.0,
            "guarantee": [0.0] * m, "limit": [math.inf] * m,
            "borrowing_limit": [math.inf] * m, "lending_limit": [math.inf] * m}
    out, frontier, local_count = [root], [(root, spec, [id(spec)])], 0
    for node, node_spec, ancestry in frontier:
        path = node["path"]
        children = node_spec.get("children")
        if not isinstance(children, dict) or not children:
            raise ValueError(f"queue {path!r}: children must be a non-empty mapping of queues, "
                             f"got {children!r:.80}")
        if len(ancestry) > MAX_DEPTH:
            raise ValueError(f"queue {path[:80]!r}...: the tree is deeper than {MAX_DEPTH} "
                             "levels")
        weights = []
        for name, child in children.items():
            qpath = f"{path}/{name}" if path else str(name)
            where = f"queue {qpath!r}"
            if not isinstance(name, str) or not name or "/" in name:
                raise ValueError(f"{where}: a name is a non-empty string without '/'")
            if isinstance(child, dict) and {"demand", "tasks"} & set(child):
                raise ValueError(f"{where}: a queue has no demand or tasks in a scenario; "
                                 "jobs name their queue and carry them")
            _keys(child, QUEUE_KEYS, where, "a queue")
            if id(child) in ancestry:
                raise ValueError(f"{where}: a cycle (the queue contains itself)")
            q = {"path": qpath, "parent": path, "leaf": "children" not in child,
                 "guaranteed": "guarantee" in child,
                 "weight": _positive(child.get("weight", 1), where, "weight")}
            for f in VECTORS:
                default = 0.0 if f == "guarantee" else math.inf
                q[f] = (_vector(child[f], m, where, f, allow_inf=f != "guarantee")
                        if f in child else [default] * m)
            for f in ("priority_factor", "shares"):
                if f in child:
                    q[f] = _positive(child[f], where, f)
            if q["leaf"]:
                q["local_queues"] = (_local_queues(child["local_queues"], where)
                                     if "local_queues" in child else {DEFAULT_LOCAL_QUEUE: 1.0})
                local_count += len(q["local_queues"])
                if local_count > MAX_TREE_NODES:
                    raise ValueError(f"{where}: the leaves have more than {MAX_TREE_NODES:,} "
                                     "local queues in all (drfbench's bound MAX_TREE_NODES)")
            elif "local_queues" in child:
                raise ValueError(f"{where}: local_queues belong to a leaf queue (a Kueue "
                                 "ClusterQueue); this queue has children")
            weights.append((q["weight"], qpath))
            out.append(q)
            if len(out) > MAX_TREE_NODES:
                raise ValueError(f"{where}: the tree has more than {MAX_TREE_NODES:,} queues "
                                 "(drfbench's bound MAX_TREE_NODES)")
            if not q["leaf"]:
                frontier.append((q, child, ancestry + [id(child)]))
        (low, light), (high, heavy) = min(weights), max(weights)
        if high > MAX_WEIGHT_RATIO * low:
            raise ValueError(f"queue {heavy!r}: weight {high:g} is more than "
                             f"{MAX_WEIGHT_RATIO:g} times its sibling {light!r}'s ({low:g})")
    return out


def _local_queues(spec, where):
    """A leaf's local queues as `spec` (its `local_queues`) names them: {name: weight}."""
    if not isinstance(spec, dict) or not spec:
        raise ValueError(f"{where}: local_queues must be a non-empty mapping of local queue "
                         f"names to their settings ({{name: {{weight: w}}}}), got {spec!r:.80}")
    out = {}
    for name, lq in spec.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: a local queue's name is a non-empty string, got "
                             f"{name!r:.80} (quote a name YAML reads otherwise)")
        at = f"{where}, local queue {name!r}"
        _keys(lq, LOCAL_QUEUE_KEYS, at, "a local queue")
        out[name] = _positive(lq.get("weight", 1), at, "weight")
    return out


def _path_key(k, parent):
    key = []
    while k > 0:
        key.append(k)
        k = int(parent[k])
    return key[::-1]


def _check_guarantees(queues, parent, vec, resources):
    g, limit = vec["guarantee"], vec["limit"]
    for k in range(1, len(queues)):
        over = g[k] > limit[k]
        if over.any():
            r = int(np.argmax(over))
            raise ValueError(f"queue {queues[k]['path']!r}: guarantee {g[k, r]:g} of "
                             f"{resources[r]!r} is above its limit {limit[k, r]:g}")
    sums = np.zeros_like(g)
    np.add.at(sums, parent[1:], g[1:])
    for k in range(len(queues)):
        if queues[k]["leaf"]:
            continue
        over = sums[k] > g[k] * (1 + FIT_SLACK)
        if (k == 0 or queues[k]["guaranteed"]) and over.any():
            r = int(np.argmax(over))
            whose, own = (("the top queues'", "the cluster's capacity") if k == 0 else
                          (f"queue {queues[k]['path']!r}: its children's", "its guarantee"))
            raise ValueError(f"{whose} guarantees of {resources[r]!r} sum to {sums[k, r]:g}, "
                             f"above {own} {g[k, r]:g}")


def _jobs(spec, m, index, leaves, paths, capacity, limit, parent, resources, local_index):
    if not isinstance(spec, list):
        raise ValueError(f"scenario: jobs must be a list of jobs, got {spec!r:.80}")
    cols = {k: [] for k in ("queue", "local_queue", "arrival", "duration", "tasks", "demand",
                            "priority", "preemptible")}
    total_tasks = 0
    for j, job in enumerate(spec):
        where = f"job {j}"
        _keys(job, JOB_KEYS, where, "a job")
        for f in ("queue", "demand", "duration"):
            if f not in job:
                raise ValueError(f"{where}: missing {f}")
        name = job["queue"]
        if not isinstance(name, str) or name not in index:
            raise ValueError(f"{where}: queue {name!r} is not a queue of the tree (a path such "
                             "as 'research/train'; quote a name YAML reads otherwise)")
        q = index[name]
        if q not in leaves:
            raise ValueError(f"{where}: queue {name!r} has children; jobs go to leaf queues")
        where = f"job {j} (queue {name!r})"
        lq = job.get("local_queue", DEFAULT_LOCAL_QUEUE)
        if not isinstance(lq, str) or (q, lq) not in local_index:
            names = sorted(n for k, n in local_index if k == q)
            raise ValueError(f"{where}: local_queue {lq!r:.80} is not a local queue of queue "
                             f"{name!r} (it has {names}); a leaf's local_queues name them")
        demand = _vector(job["demand"], m, where, "demand")
        if max(demand) == 0:
            raise ValueError(f"{where}: demand is all 0; a task holds some resource")
        arrival = _number(job.get("arrival", 0), where, "arrival")
        if not (math.isfinite(arrival) and arrival >= 0):
            raise ValueError(f"{where}: arrival must be finite and >= 0 (seconds from the "
                             f"start), got {job.get('arrival')!r:.80}")
        duration = _number(job["duration"], where, "duration")
        if not (math.isfinite(duration) and duration > 0) or arrival + duration == arrival:
            raise ValueError(f"{where}: duration must be positive and finite (seconds, "
                             f"longer than float64 can tell from nothing at its arrival), "
                             f"got {job['duration']!r:.80}")
        tasks = _whole(job.get("tasks", 1), where, "tasks", 1, MAX_TASKS)
        total_tasks += tasks
        if total_tasks > MAX_TASKS:
            raise ValueError(f"{where}: the jobs have more than {MAX_TASKS:,} tasks in all "
                             "(drfbench's bound MAX_TASKS)")
        priority = _whole(job.get("priority", 0), where, "priority", -MAX_PRIORITY,
                          MAX_PRIORITY)
        preemptible = job.get("preemptible", True)
        if not isinstance(preemptible, bool):
            raise ValueError(f"{where}: preemptible must be true or false, got "
                             f"{preemptible!r:.80}")
        d = np.array(demand)
        if not (d <= capacity * (1 + FIT_SLACK)).all(axis=1).any():
            raise ValueError(f"{where}: a task <{', '.join(f'{v:g}' for v in demand)}> fits on "
                             "no node")
        k = q
        while k > 0:
            over = d > limit[k] * (1 + FIT_SLACK)
            if over.any():
                r = int(np.argmax(over))
                raise ValueError(f"{where}: a task's {resources[r]!r} {d[r]:g} is above queue "
                                 f"{paths[k]!r}'s limit {limit[k, r]:g}")
            k = int(parent[k])
        for key, v in (("queue", q), ("local_queue", local_index[q, lq]),
                       ("arrival", arrival), ("duration", duration),
                       ("tasks", tasks), ("demand", demand), ("priority", priority),
                       ("preemptible", preemptible)):
            cols[key].append(v)
    out = {k: np.array(v, dtype=t) for (k, v), t in
           zip(cols.items(), (np.int64, np.int64, np.float64, np.float64, np.int64,
                              np.float64, np.int64, bool))}
    out["demand"] = out["demand"].reshape(-1, m)
    return out
