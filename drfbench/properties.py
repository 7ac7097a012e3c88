"""Check the fairness properties of the DRF lecture (Ghodsi et al., NSDI'11) on any policy.

    from drfbench import drf, properties as props
    props.strategy_proofness(drf.ceei, props.lecture_instance())      # Verdict(holds=False, ...)
    props.envy_freeness(props.policy_of("dcdrf", epsilon=0.1), props.random_instances(200, seed=0))
    props.check(drf.drf, props.random_instances(100))                 # {property: Verdict}
    props.hierarchical_share_guarantee("hdrf", props.random_trees(200))  # trees: H-DRF's

The model (divisible Leontief users, as in the lecture's table). Each resource has capacity 1.
An instance gives, per user i, the per-task demand D_i (D_ir = fraction of resource r one
task needs; at least one D_ir > 0) and optionally a weight w_i > 0 (default 1; W = sum w).
Users have infinitely many tasks. An allocation A (n x m, A_ir >= 0, sum_i A_ir <= 1) gives
user i the utility u_i(A_i) = min over r with D_ir > 0 of A_ir / D_ir: the tasks it can run.
Adding capacity to resource r by a factor c is the instance with column r divided by c
(utilities stay in tasks, so they compare across the two instances).

A policy is a callable policy(demands, weights) -> allocation (or policy(demands) when it
takes no weights), where allocation is a dense array, a scipy.sparse matrix or an
drfbench AllocationResult; drfbench.drf has asset_fairness, ceei and drf, and policy_of(name,
**options) makes any registered method taking divisible demands one (e.g. "dcdrf", epsilon=0.1).
An allocation beyond capacity (by more than 1e-6) or negative is an error, not a verdict.

Each check takes a policy and an instance (an Instance, a 2-D demand array, or a
(demands, weights) pair) or an iterable/generator of instances, and returns a Verdict:
holds, the number of instances checked (where the property applies) and violated, the
largest violation found (`worst`, relative), and the counterexample behind it. A check
reports a violation only when it exceeds `tol` (default 1e-6, relative): the policies here
are computed in float64, CEEI by an iterative solver polished to ~1e-12, so 1e-6 is far above
rounding and far below the violations the checks exist to find. A verdict of "holds" means
no violation was found on these instances (and, for strategy-proofness, among the misreports
tried): evidence, not proof. Each property's docstring gives its precise definition.

Heterogeneous servers (DRFH, drfbench.drfh). A ServerInstance is users' per-task demands
in absolute units, the servers' capacities, weights and task counts; a server policy is a
registered name taking servers ("drfh", "per-server-drf") or a callable
policy(demands, servers, weights, tasks) -> drfbench.drfh.Allocation. Utilities are tasks,
counted per server (a task does not span servers): u_i(A_i) = sum_l min_r A_ilr / a_ir,
at most the user's task count. server_pareto_efficiency, server_envy_freeness,
server_strategy_proofness, single_server_drf and dedicated_sharing_incentive check the
DRFH paper's Sec. III-C and IV-D.

Trees (H-DRF, drfbench.hdrf). A TreeInstance is a hierarchy and the machines it runs on; a
tree policy is a registered tree policy's name or a callable policy(tree, machines) ->
drfbench.hdrf.Schedule, run from an idle cluster. hierarchical_share_guarantee,
tree_pareto_efficiency and no_starvation check what the H-DRF slides claim, in tasks.
"""
import argparse
import inspect
import math
import sys
from dataclasses import dataclass, field

import numpy as np

from . import drf as _drf
from . import drfh as _drfh
from . import hdrf as _hdrf
from ._validation import machines as checked_machines
from ._validation import tenant_weights

TOL = 1e-6
CAPACITY_SLACK = 1e-6
PROPERTY_NAMES = {
    "share_guarantee": "Share guarantee",
    "strategy_proofness": "Strategy-proofness",
    "pareto_efficiency": "Pareto efficiency",
    "envy_freeness": "Envy-freeness",
    "single_resource_fairness": "Single resource fairness",
    "bottleneck_resource_fairness": "Bottleneck res. fairness",
    "population_monotonicity": "Population monotonicity",
    "resource_monotonicity": "Resource monotonicity",
}
# The lecture's table ("Properties of Policies"): True = checked there.
LECTURE_TABLE = {
    "Asset": dict(share_guarantee=False, strategy_proofness=True, pareto_efficiency=True,
                  envy_freeness=True, single_resource_fairness=True,
                  bottleneck_resource_fairness=False, population_monotonicity=True,
                  resource_monotonicity=False),
    "CEEI": dict(share_guarantee=True, strategy_proofness=False, pareto_efficiency=True,
                 envy_freeness=True, single_resource_fairness=True,
                 bottleneck_resource_fairness=True, population_monotonicity=False,
                 resource_monotonicity=False),
    "DRF": dict(share_guarantee=True, strategy_proofness=True, pareto_efficiency=True,
                envy_freeness=True, single_resource_fairness=True,
                bottleneck_resource_fairness=True, population_monotonicity=True,
                resource_monotonicity=False),
}


class InfeasibleAllocation(ValueError):
    """A policy returned an allocation that is negative or exceeds a resource's capacity."""


# --------------------------------------------------------------------------------------
# Instances, policies, verdicts
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Instance:
    """Per-task demand fractions (n, m), each row with some demand, and optional weights."""
    demands: np.ndarray
    weights: np.ndarray | None = None
    label: str = ""

    @property
    def w(self):
        return np.ones(len(self.demands)) if self.weights is None else self.weights

    def __str__(self):
        rows = "; ".join("<" + ", ".join(f"{v:.4g}" for v in row) + ">" for row in self.demands)
        weights = "" if self.weights is None else f", weights {np.round(self.weights, 4).tolist()}"
        return f"{self.label + ': ' if self.label else ''}D = {rows}{weights}"


def instance(demands, weights=None, label=""):
    """A validated Instance: finite, non-negative demands, every row with some demand."""
    D = _drf.divisible_demands(demands)
    if D.shape[0] < 1 or D.shape[1] < 1:
        raise ValueError(f"an instance needs at least one user and one resource, got shape {D.shape}")
    empty = ~(D > 0).any(axis=1)
    if empty.any():
        raise ValueError(f"user(s) {np.flatnonzero(empty).tolist()} demand nothing; leave them out")
    w = None if weights is None else tenant_weights(weights, D.shape[0])
    D.setflags(write=False)
    if w is not None:
        w.setflags(write=False)
    return Instance(D, w, label)


def from_cluster(task_demands, capacity, weights=None, label=""):
    """An Instance from per-task demands in absolute units and the cluster's capacity."""
    D = _drf.divisible_demands(task_demands)
    C = np.asarray(capacity, dtype=np.float64)
    if C.shape != (D.shape[1],) or not (C > 0).all():
        raise ValueError(f"capacity must be {D.shape[1]} positive numbers, got {capacity!r}")
    return instance(D / C, weights, label)


def lecture_instance():
    """The lecture's example: <9 CPU, 18 GB>, users <1 CPU, 4 GB> and <3 CPU, 1 GB>.
    CEEI gives 45/11 and 18/11 tasks; if user 2 reports <3 CPU, 2 GB> it gets 1.8 > 18/11."""
    return from_cluster([[1, 4], [3, 1]], [9, 18], label="lecture <9 CPU, 18 GB>")


def asset_instance():
    """The lecture's asset-fairness example: <70 CPU, 70 GB>, users <2, 2> and <1, 2>;
    asset fairness gives 15 and 20 tasks, user 1 under 50% of both resources."""
    return from_cluster([[2, 2], [1, 2]], [70, 70], label="lecture asset <70 CPU, 70 GB>")


def _instances(instances):
    """One instance or an iterable of them, as a generator of Instance."""
    if isinstance(instances, Instance):
        yield instances
        return
    if isinstance(instances, np.ndarray) or hasattr(instances, "toarray"):
        yield instance(instances)
        return
    if isinstance(instances, tuple) and len(instances) == 2 and not isinstance(instances[0], Instance):
        try:
            yield instance(*instances)
            return
        except (ValueError, TypeError):
            pass
    if isinstance(instances, list):
        try:
            single = np.asarray(instances, dtype=np.float64)
        except (ValueError, TypeError):
            single = None
        if single is not None and single.ndim == 2:
            yield instance(single)
            return
    for item in instances:
        if isinstance(item, Instance):
            yield item
        elif isinstance(item, tuple) and len(item) == 2:
            yield instance(*item)
        else:
            yield instance(item)


class Policy:
    """A callable policy(demands, weights) -> allocation, validated and named.

    Wraps a function of (demands, weights) or of (demands) alone; converts what it returns
    (array, sparse matrix, AllocationResult) to a dense float64 array and checks its shape
    and feasibility. A one-argument policy refuses unequal weights.
    """

    def __init__(self, fn, name=None):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", repr(fn))
        try:
            params = [p for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
            self.weighted = len(params) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)
        except (TypeError, ValueError):
            self.weighted = True

    def __call__(self, demands, weights=None):
        D = _drf.divisible_demands(demands)
        if self.weighted:
            out = self.fn(D, weights)
        else:
            if weights is not None and not np.allclose(weights, weights[0]):
                raise ValueError(f"policy {self.name!r} takes no weights, but unequal weights were given")
            out = self.fn(D)
        out = getattr(out, "allocation", out)
        if hasattr(out, "toarray"):
            out = out.toarray()
        A = np.asarray(out, dtype=np.float64)
        if A.shape != D.shape:
            raise ValueError(f"policy {self.name!r} returned shape {A.shape} for demands of shape {D.shape}")
        if not np.isfinite(A).all() or (A < -CAPACITY_SLACK).any():
            raise InfeasibleAllocation(f"policy {self.name!r} returned negative or non-finite shares")
        load = A.sum(axis=0)
        if (load > 1 + CAPACITY_SLACK).any():
            r = int(np.argmax(load))
            raise InfeasibleAllocation(f"policy {self.name!r} gave out {load[r]:.9g} of resource {r} "
                                       f"(capacity 1) on D = {D.tolist()}")
        return np.maximum(A, 0.0)

    def __repr__(self):
        return f"Policy({self.name})"


def as_policy(policy, name=None):
    return policy if isinstance(policy, Policy) else Policy(policy, name)


def policy_of(method, **options):
    """Registered method `method` (one taking divisible demands: drfbench.methods(takes=
    "demands")) as a Policy named by its label, run on one thread in float64 with
    `options` (e.g. epsilon=0.1). Rows are scaled to at most 1 first: every such method is
    Leontief and uncapped, so only a row's direction matters."""
    from .api import DEMANDS, allocate, method_info
    spec = method_info(method)
    if spec.takes != DEMANDS:
        raise ValueError(f"method {method!r} takes {spec.takes}, not divisible demands")
    threads = {"threads": 1} if spec.takes_option("threads") else {}

    def run(demands, weights=None):
        D = _drf.divisible_demands(demands)
        D = D / np.maximum(D.max(axis=1, initial=0.0), 1.0)[:, None]
        return allocate(D, method, weights=weights, dtype=np.float64, **threads, **options).allocation
    label = spec.label or spec.name
    if "epsilon" in options:
        label = f"{label} eps={options['epsilon']:g}"
    return Policy(run, label)


@dataclass(frozen=True)
class Counterexample:
    """An instance on which the property fails, what happens, and the numbers."""
    instance: Instance
    description: str
    details: dict = field(default_factory=dict)

    def __str__(self):
        return f"{self.description} [{self.instance}]"


@dataclass(frozen=True)
class Verdict:
    """holds: no violation beyond tol on the `checked` instances (those where the property
    applies); violated: how many instances violate it; worst: the largest violation
    (relative, see each property) and `counterexample` the instance behind it."""
    property: str
    policy: str
    holds: bool
    checked: int
    violated: int
    worst: float
    counterexample: Counterexample | None

    def __bool__(self):
        return self.holds


def _verdict(name, policy, instances, check_one, tol, *, wrap=as_policy, each=None,
             collect=None, **options):
    """Check one property over the instances; trees and servers pass their own `wrap`
    (policy) and `each` (instances); `collect`, a list, receives every counterexample."""
    policy = wrap(policy)
    checked = violated = 0
    worst, example = 0.0, None
    for index, inst in enumerate((each or _instances)(instances)):
        found = check_one(policy, inst, tol, index=index, **options)
        if found is None:           # the property does not apply to this instance
            continue
        checked += 1
        magnitude, counterexample = found
        if counterexample is not None:
            violated += 1
            if collect is not None:
                collect.append(counterexample)
            if magnitude > worst or example is None:
                worst, example = magnitude, counterexample
    return Verdict(name, policy.name, violated == 0, checked, violated, worst, example)


def _u(inst, A):
    return _drf.utilities(inst.demands, A)


def _tasks(values):
    return np.round(np.asarray(values, dtype=float), 6).tolist()


# --------------------------------------------------------------------------------------
# The eight properties
# --------------------------------------------------------------------------------------

def share_guarantee(policy, instances, *, tol=TOL):
    """Share guarantee: every user gets at least the tasks it could run on its own share
    of the cluster, w_i / W of every resource: u_i(A_i) >= (w_i / W) / max_r D_ir
    ("1/n of at least one resource" for Leontief users). Violation: 1 - u_i / that, > tol."""
    return _verdict("share_guarantee", policy, instances, _share_guarantee, tol)


def _share_guarantee(policy, inst, tol, index):
    w = inst.w
    u = _u(inst, policy(inst.demands, inst.weights))
    own = (w / w.sum()) / inst.demands.max(axis=1)
    shortfall = 1.0 - u / own
    i = int(np.argmax(shortfall))
    if shortfall[i] > tol:
        return shortfall[i], Counterexample(
            inst, f"user {i} runs {u[i]:.6g} tasks, less than the {own[i]:.6g} it could run "
                  f"with {w[i] / w.sum():.4g} of every resource",
            dict(user=i, tasks=_tasks(u), guaranteed=_tasks(own)))
    return shortfall[i], None


def misreports(demand, rng, random_count=8):
    """Reports a user with true per-task demand `demand` might make instead: each demanded
    resource scaled by 0.5, 0.8, 1.25, 1.5, 2 or 3; a resource it does not demand added at
    5%, 25% or 100% of its largest demand; and `random_count` random reports (every entry
    scaled by e^U(-1,1), sometimes with a new resource). Reports are kept in (0, 1]: a
    report whose largest entry exceeds 1 is divided by it."""
    d = np.asarray(demand, dtype=np.float64)
    peak = d.max()
    out = []
    for r in range(len(d)):
        if d[r] > 0:
            for f in (0.5, 0.8, 1.25, 1.5, 2.0, 3.0):
                x = d.copy()
                x[r] *= f
                out.append(x)
        else:
            for f in (0.05, 0.25, 1.0):
                x = d.copy()
                x[r] = f * peak
                out.append(x)
    for _ in range(random_count):
        x = d * np.exp(rng.uniform(-1, 1, size=len(d)))
        if rng.random() < 0.3 and (d == 0).any():
            r = rng.choice(np.flatnonzero(d == 0))
            x[r] = peak * rng.uniform(0.01, 1.0)
        out.append(x)
    reports = []
    for x in out:
        top = x.max()
        if top > 1:
            x = x / top
        if top > 0 and not np.allclose(x, d, rtol=1e-12, atol=0):
            reports.append(x)
    return reports


def strategy_proofness(policy, instances, *, tol=TOL, random_misreports=8, seed=0):
    """Strategy-proofness: no user can run more tasks by reporting a demand vector other
    than its true one: for every user i and report D'_i, u_i(A'_i) <= u_i(A_i), where A' is
    the policy's allocation with D_i replaced by D'_i and u_i is always measured with the
    true D_i. The search tries, per user, the reports of `misreports` (seeded by `seed`
    and the instance's position). Violation: the relative gain u_i(A'_i) / u_i(A_i) - 1."""
    return _verdict("strategy_proofness", policy, instances, _strategy_proofness,
                    tol, random_misreports=random_misreports, seed=seed)


def _strategy_proofness(policy, inst, tol, index, random_misreports, seed):
    rng = np.random.default_rng([seed, index])
    truthful = _u(inst, policy(inst.demands, inst.weights))
    best, example = 0.0, None
    for i in range(len(inst.demands)):
        for report in misreports(inst.demands[i], rng, random_misreports):
            D = inst.demands.copy()
            D[i] = report
            A = policy(D, inst.weights)
            true_tasks = _drf.utilities(inst.demands[i:i + 1], A[i:i + 1])[0]
            gain = true_tasks / truthful[i] - 1.0 if truthful[i] > 0 else (np.inf if true_tasks > 0 else 0.0)
            if gain > best:
                best = gain
                example = Counterexample(
                    inst, f"user {i} reports <{', '.join(f'{v:.4g}' for v in report)}> and runs "
                          f"{true_tasks:.6g} tasks instead of {truthful[i]:.6g}",
                    dict(user=i, report=_tasks(report), truthful_tasks=float(truthful[i]),
                         misreport_tasks=float(true_tasks)))
    return (best, example) if best > tol else (best, None)



def pareto_efficiency(policy, instances, *, tol=TOL):
    """Pareto efficiency: no feasible allocation gives some user more tasks and no user
    fewer. For Leontief users this holds exactly when every user demands a resource that
    the needed amounts B_i = u_i(A_i) D_i already saturate (then raising anyone needs some
    of a full resource, taken from another user; otherwise that user alone can be raised,
    whatever A wasted being free). Violation: the largest relative gain a user gets from
    the free capacity alone, min over its resources r of (1 - sum_j B_jr) / D_ir / u_i."""
    return _verdict("pareto_efficiency", policy, instances, _pareto_efficiency, tol)


def _pareto_efficiency(policy, inst, tol, index):
    D = inst.demands
    u = _u(inst, policy(D, inst.weights))
    free = 1.0 - u @ D
    room = np.divide(np.maximum(free, 0.0)[None, :], D, out=np.full_like(D, np.inf), where=D > 0)
    extra = room.min(axis=1)
    gain = np.divide(extra, u, out=np.full_like(u, np.inf), where=u > 0)
    gain[extra <= 0] = 0.0
    i = int(np.argmax(gain))
    if gain[i] > tol:
        return gain[i], Counterexample(
            inst, f"user {i} could run {u[i] + extra[i]:.6g} tasks instead of {u[i]:.6g} with "
                  "capacity left free, nobody losing anything",
            dict(user=i, tasks=_tasks(u), free=_tasks(free)))
    return gain[i], None


def envy_freeness(policy, instances, *, tol=TOL):
    """Envy-freeness: no user prefers another's allocation, scaled by their weights:
    u_i(A_j * w_i / w_j) <= u_i(A_i) for all i, j. Violation: the relative gain
    u_i(A_j w_i / w_j) / u_i(A_i) - 1."""
    return _verdict("envy_freeness", policy, instances, _envy_freeness, tol)


def _worst_envy(inst, u, tasks_with, tol):
    """The largest relative gain u_i(A_j w_i / w_j) / u_i(A_i) - 1 over users i != j, with
    its counterexample if above tol: tasks_with(i, j) is what user i would run with j's
    allocation scaled by their weights, u[i] what it runs with its own."""
    best, example = 0.0, None
    for i in range(len(u)):
        for j in range(len(u)):
            if i == j:
                continue
            other = tasks_with(i, j)
            gain = other / u[i] - 1.0 if u[i] > 0 else (np.inf if other > 0 else 0.0)
            if gain > best:
                best = gain
                example = Counterexample(
                    inst, f"user {i} would run {other:.6g} tasks with user {j}'s allocation, "
                          f"{u[i]:.6g} with its own", dict(envious=i, envied=j, tasks=_tasks(u)))
    return (best, example) if best > tol else (best, None)


def _envy_freeness(policy, inst, tol, index):
    D, w = inst.demands, inst.w
    A = policy(D, inst.weights)
    u = _u(inst, A)
    return _worst_envy(inst, u, lambda i, j: _drf.utilities(D[i:i + 1],
                                                            A[j:j + 1] * (w[i] / w[j]))[0], tol)


def _max_min_on(policy, inst, tol, r, what):
    D, w = inst.demands, inst.w
    A = policy(D, inst.weights)
    fair = w / w.sum()
    error = np.abs(A[:, r] - fair) / fair
    i = int(np.argmax(error))
    if error[i] > tol:
        return error[i], Counterexample(
            inst, f"{what}: user {i} gets {A[i, r]:.6g} of resource {r}, max-min fairness gives {fair[i]:.6g}",
            dict(resource=r, shares=_tasks(A[:, r]), fair=_tasks(fair)))
    return error[i], None


def single_resource_fairness(policy, instances, *, tol=TOL):
    """Single resource fairness: when only one resource r is demanded at all, the policy
    is max-min fairness on it; with unbounded demands, A_ir = w_i / W. Applies only to
    such instances (others are skipped). Violation: max_i |A_ir - w_i/W| / (w_i/W)."""
    return _verdict("single_resource_fairness", policy, instances, _single_resource, tol)


def _single_resource(policy, inst, tol, index):
    demanded = np.flatnonzero((inst.demands > 0).any(axis=0))
    if len(demanded) != 1:
        return None
    return _max_min_on(policy, inst, tol, int(demanded[0]), "single resource")


def bottleneck_resource_fairness(policy, instances, *, tol=TOL):
    """Bottleneck resource fairness: when one resource r is, percent-wise, the one every
    user demands most (D_ir = max_s D_is for all i), the policy is max-min fairness on r:
    A_ir = w_i / W. Applies only to such instances. Violation as for single resource."""
    return _verdict("bottleneck_resource_fairness", policy, instances, _bottleneck, tol)


def _bottleneck(policy, inst, tol, index):
    D = inst.demands
    common = np.flatnonzero((D >= D.max(axis=1, keepdims=True)).all(axis=0))
    if len(common) == 0:
        return None
    return _max_min_on(policy, inst, tol, int(common[0]), "bottleneck")


def population_monotonicity(policy, instances, *, tol=TOL):
    """Population monotonicity: when a user leaves (relinquishing its allocation), no
    remaining user runs fewer tasks: for every k and j != k, u_j(P(D without k)_j) >=
    u_j(P(D)_j). Applies to instances with at least two users. Violation: 1 - u'_j / u_j."""
    return _verdict("population_monotonicity", policy, instances, _population, tol)


def _population(policy, inst, tol, index):
    D, n = inst.demands, len(inst.demands)
    if n < 2:
        return None
    u = _u(inst, policy(D, inst.weights))
    best, example = 0.0, None
    for k in range(n):
        keep = np.arange(n) != k
        sub = Instance(D[keep], None if inst.weights is None else inst.weights[keep])
        after = _u(sub, policy(sub.demands, sub.weights))
        loss = 1.0 - after / u[keep]
        j = int(np.argmax(loss))
        if loss[j] > best:
            best = loss[j]
            who = int(np.flatnonzero(keep)[j])
            example = Counterexample(
                inst, f"when user {k} leaves, user {who} runs {after[j]:.6g} tasks instead of {u[keep][j]:.6g}",
                dict(leaving=k, user=who, before=_tasks(u), after=_tasks(after)))
    return (best, example) if best > tol else (best, None)


def resource_monotonicity(policy, instances, *, tol=TOL, factors=(1.25, 2.0, 4.0)):
    """Resource monotonicity: when capacity is added, no user runs fewer tasks. Tried for
    every resource r and factor c in `factors` (capacity of r times c: column r of D
    divided by c): u_j(P(D')_j) >= u_j(P(D)_j) for all j. Violation: 1 - u'_j / u_j."""
    return _verdict("resource_monotonicity", policy, instances, _resources, tol, factors=factors)


def _resources(policy, inst, tol, index, factors):
    D = inst.demands
    u = _u(inst, policy(D, inst.weights))
    best, example = 0.0, None
    for r in range(D.shape[1]):
        for c in factors:
            more = D.copy()
            more[:, r] /= c
            after = _drf.utilities(more, policy(more, inst.weights))
            loss = 1.0 - after / u
            j = int(np.argmax(loss))
            if loss[j] > best:
                best = loss[j]
                example = Counterexample(
                    inst, f"with {c:g}x resource {r}, user {j} runs {after[j]:.6g} tasks instead of {u[j]:.6g}",
                    dict(resource=r, factor=c, user=j, before=_tasks(u), after=_tasks(after)))
    return (best, example) if best > tol else (best, None)


PROPERTIES = {
    "share_guarantee": share_guarantee,
    "strategy_proofness": strategy_proofness,
    "pareto_efficiency": pareto_efficiency,
    "envy_freeness": envy_freeness,
    "single_resource_fairness": single_resource_fairness,
    "bottleneck_resource_fairness": bottleneck_resource_fairness,
    "population_monotonicity": population_monotonicity,
    "resource_monotonicity": resource_monotonicity,
}


# --------------------------------------------------------------------------------------
# Trees: the hierarchical properties (H-DRF slides)
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class TreeInstance:
    """A hierarchy (drfbench.hdrf.Tree) and the machines it runs on, (M, m)."""
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


class NamedPolicy:
    """A callable policy, named: the base of TreePolicy and ServerPolicy."""

    def __init__(self, fn, name=None):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", repr(fn))

    def __repr__(self):
        return f"{type(self).__name__}({self.name})"

    @classmethod
    def of(cls, policy, name, takes, run):
        """`policy` as a `cls`: itself, a registered method's name taking `takes` (named by
        its label, called through `run(method)`), or a callable."""
        if isinstance(policy, cls):
            return policy
        if isinstance(policy, str):
            from .api import method_info
            spec = method_info(policy)
            if spec.takes != takes:
                raise ValueError(f"method {policy!r} takes {spec.takes}, not {takes}")
            return cls(run(policy), name or spec.label or policy)
        return cls(policy, name)


class TreePolicy(NamedPolicy):
    """A callable policy(tree, machines) -> drfbench.hdrf.Schedule, named."""

    def __call__(self, tree, machines):
        return self.fn(tree, machines)


def tree_policy(policy, name=None):
    """A TreePolicy of a registered tree policy's name (named by its label) or a callable."""
    from .api import TREE
    return TreePolicy.of(policy, name, TREE, lambda method: lambda tree, machines:
                         _hdrf.schedule(tree, machines, method))


def tree_instance(tree, machines, label=""):
    """A TreeInstance of a tree (drfbench.hdrf.tree's input) and machines, validated."""
    t = _hdrf.tree(tree)
    return TreeInstance(t, checked_machines(machines, len(t.resources)), label)


def _instances_of(cls, make, instances):
    """One `cls` instance, or an iterable of them or of argument tuples for `make`."""
    if isinstance(instances, cls):
        yield instances
        return
    for item in instances:
        yield item if isinstance(item, cls) else make(*item)


def _tree_instances(instances):
    """One TreeInstance or an iterable of TreeInstances or (tree, machines) pairs."""
    return _instances_of(TreeInstance, tree_instance, instances)


def _outcome(policy, inst):
    """The run, and per leaf: tasks launched, whether tasks are still waiting, one task's
    dominant share of the cluster."""
    t = inst.tree
    res = policy(t, inst.machines)
    total = inst.machines.sum(axis=0)
    launched = np.array([res.tasks[p] for p in t.leaf_paths], dtype=float)
    one_task = np.divide(t.demand, total, out=np.zeros_like(t.demand), where=total > 0).max(axis=1)
    return res, launched, launched < t.tasks, one_task


def hierarchical_share_guarantee(policy, instances, *, tol=TOL):
    """Hierarchical share guarantee: every node whose subtree still has tasks waiting
    holds at least its guaranteed share G_n, its weight's fraction of its parent's
    (the root's: the whole cluster), up to one task of each leaf: s_n + slack_n >= G_n,
    where s_n is the dominant share of the cluster its subtree holds and slack_n the
    largest one-task dominant share among its leaves plus one task's of every leaf
    outside it (each other leaf may hold one task beyond its exact share when the run
    stops, and each such task may come out of n's). Applies to a node's share over
    every resource (a guarantee in its parent's share of the node's dominant resource
    fails on multi-resource trees: a sibling may go on using a resource the node cannot
    use). Violation: (G_n - s_n - slack_n) / G_n, the largest over the nodes."""
    return _verdict("hierarchical_share_guarantee", policy, instances, _hierarchical, tol,
                    wrap=tree_policy, each=_tree_instances)


def guarantee_slack(tree, one_task):
    """(N,) per node, what hierarchical_share_guarantee allows short of the guarantee:
    the largest of `one_task` (one task's dominant share, per leaf) among its leaves plus
    the sum of `one_task` over every leaf outside it."""
    own = np.zeros(len(tree.paths))
    for i, node in enumerate(tree.leaves.tolist()):
        while node >= 0:
            own[node] = max(own[node], one_task[i])
            node = int(tree.parent[node])
    under = tree.subtree_sums(one_task)
    return own + under[0] - under


def _hierarchical(policy, inst, tol, index):
    t = inst.tree
    res, launched, waiting, one_task = _outcome(policy, inst)
    slack = guarantee_slack(t, one_task)
    share = np.array([0.0] + [res.shares[p] for p in t.paths[1:]])
    deficit = np.where(t.subtree_sums(waiting) > 0, (t.guarantee - share - slack) / t.guarantee,
                       0.0)
    deficit[0] = 0.0
    n = int(np.argmax(deficit))
    if deficit[n] > tol:
        return deficit[n], Counterexample(
            inst, f"node {t.paths[n]!r} holds a dominant share of {share[n]:.6g} with tasks "
                  f"waiting, below its guarantee {t.guarantee[n]:.6g} by more than one task "
                  f"of each leaf ({slack[n]:.6g})",
            dict(node=t.paths[n], share=float(share[n]), guarantee=float(t.guarantee[n]),
                 slack=float(slack[n]), tasks=dict(zip(t.leaf_paths, launched.tolist()))))
    return max(deficit[n], 0.0), None


def tree_pareto_efficiency(policy, instances, *, tol=TOL):
    """Pareto efficiency, in tasks: when the policy stops, no leaf with tasks waiting
    could launch one more on some machine with what is left. Violation: the number of
    such leaves."""
    return _verdict("tree_pareto_efficiency", policy, instances, _tree_pareto, tol,
                    wrap=tree_policy, each=_tree_instances)


def _tree_pareto(policy, inst, tol, index):
    t, C = inst.tree, inst.machines
    res, launched, waiting, _ = _outcome(policy, inst)
    leaf_of = {p: i for i, p in enumerate(t.leaf_paths)}
    used = np.zeros_like(C)
    for path, k in res.order:
        used[k] += t.demand[leaf_of[path]]
    could = [i for i in np.flatnonzero(waiting)
             if ((used + t.demand[i] <= C * (1 + 1e-12)).all(axis=1)).any()]
    if len(could) > tol:
        return float(len(could)), Counterexample(
            inst, f"leaf {t.leaf_paths[could[0]]!r} has tasks waiting and one more fits, "
                  "yet the policy stopped", dict(leaves=[t.leaf_paths[i] for i in could],
                                                 tasks=dict(zip(t.leaf_paths, launched.tolist()))))
    return 0.0, None


def no_starvation(policy, instances, *, tol=TOL):
    """No starvation: every leaf with tasks waiting whose guarantee admits a task (G_i at
    least one task's dominant share) has at least one task running. Violation: the
    number of starved leaves."""
    return _verdict("no_starvation", policy, instances, _no_starvation, tol,
                    wrap=tree_policy, each=_tree_instances)


def _no_starvation(policy, inst, tol, index):
    t = inst.tree
    _, launched, waiting, one_task = _outcome(policy, inst)
    starved = np.flatnonzero(waiting & (launched == 0) & (t.guarantee[t.leaves] >= one_task))
    if len(starved) > tol:
        return float(len(starved)), Counterexample(
            inst, f"leaf {t.leaf_paths[starved[0]]!r} runs nothing, with tasks waiting and a "
                  f"guarantee of {t.guarantee[t.leaves[starved[0]]]:.6g}",
            dict(leaves=[t.leaf_paths[i] for i in starved]))
    return 0.0, None


TREE_PROPERTIES = {
    "hierarchical_share_guarantee": hierarchical_share_guarantee,
    "tree_pareto_efficiency": tree_pareto_efficiency,
    "no_starvation": no_starvation,
}
TREE_PROPERTY_NAMES = {"hierarchical_share_guarantee": "Hierarchical share guarantee",
                       "tree_pareto_efficiency": "Pareto efficiency (tasks)",
                       "no_starvation": "No starvation"}


# --------------------------------------------------------------------------------------
# Instance generators and the table
# --------------------------------------------------------------------------------------

def random_instances(count, seed=0, *, users=(2, 5), resources=(2, 4), zeros=0.2,
                     weighted=False, kind="general"):
    """`count` random instances (a generator). Per-task demands are uniform on [0.01, 1],
    or on a coarse grid (k/8, for ties) in a quarter of the instances; each entry is zero
    with probability `zeros` (each row keeps one non-zero). kind="single": one resource;
    kind="bottleneck": one common column made every user's largest (the row's maximum
    times U(1, 1.5), capped at 1). weighted: weights uniform on the integers 1..3."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        n = int(rng.integers(users[0], users[1] + 1))
        m = 1 if kind == "single" else int(rng.integers(resources[0], resources[1] + 1))
        if rng.random() < 0.25:
            D = rng.integers(1, 9, size=(n, m)) / 8
        else:
            D = rng.uniform(0.01, 1.0, size=(n, m))
        if m > 1:
            D[rng.random((n, m)) < zeros] = 0.0
            for i in np.flatnonzero(~(D > 0).any(axis=1)):
                D[i, rng.integers(m)] = rng.uniform(0.01, 1.0)
        if kind == "bottleneck":
            r = int(rng.integers(m))
            D[:, r] = np.minimum(1.0, D.max(axis=1) * rng.uniform(1.0, 1.5, size=n))
        weights = rng.integers(1, 4, size=n).astype(float) if weighted else None
        yield instance(D, weights, label=f"{kind} #{k}")


def default_instances(prop, count, seed=0, *, zeros=0.2, weighted=False):
    """The instances the table checks `prop` on: the lecture's two examples (where they
    apply) and `count` random ones of the kind the property needs, with a fraction
    `zeros` of zero demands (0: every user demands every resource)."""
    kind = {"single_resource_fairness": "single",
            "bottleneck_resource_fairness": "bottleneck"}.get(prop, "general")
    fixed = [] if kind != "general" else [lecture_instance(), asset_instance()]
    return [*fixed, *random_instances(count, seed=seed, zeros=zeros, weighted=weighted, kind=kind)]


def check(policy, instances=None, *, properties=None, count=100, seed=0, zeros=0.2, tol=TOL):
    """Every property (or those named) on `instances`, or on default_instances per property."""
    out = {}
    for prop in properties or PROPERTIES:
        pool = default_instances(prop, count, seed, zeros=zeros) if instances is None else instances
        out[prop] = PROPERTIES[prop](policy, pool, tol=tol)
    return out


def table_policies(methods, epsilons=(0.01, 0.1)):
    """The table's rows: {label: policy} for each registered method in `methods` (see
    policy_of), once per epsilon for the methods that take one."""
    from .api import method_info
    policies = {}
    for method in methods:
        runs = ([{"epsilon": eps} for eps in epsilons]
                if method_info(method).takes_option("epsilon") else [{}])
        for options in runs:
            policy = policy_of(method, **options)
            policies[policy.name] = policy
    return policies


def property_table(policies, count=200, seed=0, *, zeros=0.2, tol=TOL, progress=None):
    """Tidy rows, one per (policy, property): the verdict and the lecture's mark. `zeros`
    is the fraction of zero demands in the random instances (column "zeros")."""
    rows = []
    for name, policy in policies.items():
        for prop, checker in PROPERTIES.items():
            v = checker(Policy(policy, name), default_instances(prop, count, seed, zeros=zeros), tol=tol)
            lecture = LECTURE_TABLE.get(name, {}).get(prop)
            rows.append({
                "zeros": zeros, "policy": name, "property": prop, "property_name": PROPERTY_NAMES[prop],
                "holds": v.holds, "checked": v.checked, "violated": v.violated,
                "violated_fraction": v.violated / v.checked if v.checked else 0.0,
                "worst": v.worst if math.isfinite(v.worst) else "inf",
                "lecture": "" if lecture is None else lecture,
                "agrees": "" if lecture is None else lecture == v.holds,
                "counterexample": "" if v.counterexample is None else str(v.counterexample),
            })
            if progress:
                print(f"zeros={zeros:g} {name:18s} {prop:30s} {'holds' if v.holds else 'VIOLATED'} "
                      f"({v.violated}/{v.checked})", file=progress, flush=True)
    return rows


def random_tree(rng, *, levels=3, fanout=(1, 4), resources=(1, 3), machines=(1, 3),
                finite=0.3, weights=3, room=None):
    """One random TreeInstance: depth 1..levels, each inner node 1..fanout children
    (inner nodes with probability 0.7 while depth allows), integer weights 1..weights,
    integer task demands 0..4 (one of them non-zero: ties abound), a task count 1..15
    with probability `finite` (else unbounded), on 1..machines identical machines of
    integer capacity 8..40 per resource; with `room`, the cluster is made large enough
    (at least) that every leaf's guarantee holds `room` of its tasks on every resource."""
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
    t = _hdrf.tree({"resources": [f"r{j}" for j in range(m)], "children": children(1)})
    count = int(rng.integers(machines[0], machines[1] + 1))
    capacity = rng.integers(8, 41, size=m).astype(float)
    if room is not None:
        needed = room * (t.demand / t.guarantee[t.leaves][:, None]).max(axis=0)
        capacity = np.maximum(capacity, np.ceil(needed / count))
    return TreeInstance(t, np.tile(capacity, (count, 1)))


def random_trees(count, seed=0, **options):
    """`count` random TreeInstances (a generator; see random_tree for the options)."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        inst = random_tree(rng, **options)
        yield TreeInstance(inst.tree, inst.machines, label=f"random tree #{k}")


def tree_property_table(policies, count=200, seed=0, *, tol=TOL, progress=None, **options):
    """Tidy rows, one per (tree policy, property), on `count` random trees (random_tree's
    `options`); policies: registered tree policy names."""
    rows = []
    trees = list(random_trees(count, seed, **options))
    for name in policies:
        policy = tree_policy(name)
        for prop, checker in TREE_PROPERTIES.items():
            v = checker(policy, trees, tol=tol)
            rows.append({"policy": name, "label": policy.name, "property": prop,
                         "property_name": TREE_PROPERTY_NAMES[prop], "holds": v.holds,
                         "checked": v.checked, "violated": v.violated,
                         "violated_fraction": v.violated / v.checked if v.checked else 0.0,
                         "worst": v.worst,
                         "counterexample": "" if v.counterexample is None else str(v.counterexample)})
            if progress:
                print(f"{name:16s} {prop:30s} {'holds' if v.holds else 'VIOLATED'} "
                      f"({v.violated}/{v.checked})", file=progress, flush=True)
    return rows


# --------------------------------------------------------------------------------------
# Heterogeneous servers: DRFH's properties (Wang, Liang, Li, Sec. III-C, IV)
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ServerInstance:
    """Per-task demands (n, m) and server capacities (L, m), absolute units; optional
    weights (n,) and task counts (n,; inf: unbounded)."""
    demands: np.ndarray
    servers: np.ndarray
    weights: np.ndarray | None = None
    tasks: np.ndarray | None = None
    label: str = ""

    @property
    def w(self):
        return np.ones(len(self.demands)) if self.weights is None else self.weights

    @property
    def caps(self):
        return np.full(len(self.demands), np.inf) if self.tasks is None else self.tasks

    @property
    def pool(self):
        """Each resource's total over the servers (1 where no server has it)."""
        total = self.servers.sum(axis=0)
        return np.where(total > 0, total, 1.0)

    def __str__(self):
        def vec(v):
            return "<" + ", ".join(f"{x:.4g}" for x in v) + ">"
        text = "users " + "; ".join(vec(row) for row in self.demands)
        if self.weights is not None:
            text += f", weights {np.round(self.weights, 4).tolist()}"
        if self.tasks is not None:
            text += f", tasks {self.tasks.tolist()}"
        text += " on servers " + "; ".join(vec(row) for row in self.servers)
        return f"{self.label + ': ' if self.label else ''}{text}"


def server_instance(demands, servers, weights=None, tasks=None, label=""):
    """A validated ServerInstance (drfbench.drfh.allocate's checks; every user demands
    something)."""
    a = _drf.divisible_demands(demands)
    C = checked_machines(servers, a.shape[1])
    if not (a > 0).any(axis=1).all():
        raise ValueError("every user of a server instance must demand something")
    w = None if weights is None else tenant_weights(weights, len(a))
    x = None if tasks is None else np.asarray(tasks, dtype=np.float64)
    return ServerInstance(a, C, w, x, label)


class ServerPolicy(NamedPolicy):
    """A callable policy(demands, servers, weights, tasks) -> drfbench.drfh.Allocation,
    named."""

    def __call__(self, inst, demands=None):
        return self.fn(inst.demands if demands is None else demands, inst.servers,
                       inst.weights, inst.tasks)


def server_policy(policy, name=None):
    """A ServerPolicy of a registered method taking servers (named by its label), or of a
    callable."""
    from .api import SERVERS
    return ServerPolicy.of(policy, name, SERVERS, lambda method: lambda a, C, w, x:
                           _drfh.allocate(a, C, method, weights=w, tasks=x))


def _server_instances(instances):
    """One ServerInstance or an iterable of them or of server_instance's arguments."""
    return _instances_of(ServerInstance, server_instance, instances)


def server_tasks(demand, bundles, cap=np.inf):
    """Tasks a user of per-task `demand` (m,) runs with `bundles` (L, m), one per server:
    sum over servers of min_r bundle_lr / demand_r, at most `cap`."""
    d = np.asarray(demand, dtype=np.float64)
    per = np.divide(bundles, d, out=np.full(np.shape(bundles), np.inf), where=d > 0)
    return min(float(per.min(axis=1).sum()), cap)


def _server_verdict(name, policy, instances, check_one, tol, collect, **options):
    return _verdict(name, policy, instances, check_one, tol, wrap=server_policy,
                    each=_server_instances, collect=collect, **options)


def server_pareto_efficiency(policy, instances, *, tol=TOL, collect=None):
    """Pareto optimality (Sec. III-C): no feasible allocation gives some user more tasks
    and no user fewer. Checked by an LP over the configurations (identical servers
    pooled, exact for divisible tasks): maximize sum_i x_i s_i subject to x_i >= the
    policy's tasks, x_i <= the user's task count, every configuration's capacity.
    Violation: the largest relative gain (x_i - u_i) / u_i of a user in that optimum."""
    return _server_verdict("server_pareto_efficiency", policy, instances, _server_pareto, tol,
                           collect)


def _server_pareto(policy, inst, tol, index):
    import scipy.optimize
    a, C = inst.demands, inst.servers
    u = policy(inst).tasks
    configs, count = np.unique(C, axis=0, return_counts=True)
    K = configs * count[:, None]
    n, m, U = len(a), a.shape[1], len(K)
    T = inst.pool
    s = (a / T).max(axis=1)
    can = ~((a[:, None, :] > 0) & (K[None, :, :] <= 0)).any(axis=2)      # (n, U)
    # variables x_iu, user-major; capacity: sum_i x_iu a_ir <= K_ur
    A = np.zeros((U * m + n, n * U))
    for c in range(U):
        for r in range(m):
            A[c * m + r, c::U] = a[:, r] / T[r]
    for i in range(n):
        A[U * m + i, i * U:(i + 1) * U] = -1.0
    b = np.concatenate([(K / T).ravel(), -u * (1 - 1e-9)])
    bounds = [(0, None if can[i, c] else 0) for i in range(n) for c in range(U)]
    # task counts: sum_u x_iu <= tasks_i
    caps = inst.caps
    finite = np.flatnonzero(np.isfinite(caps))
    A_cap = np.zeros((len(finite), n * U))
    for k, i in enumerate(finite):
        A_cap[k, i * U:(i + 1) * U] = 1.0
    res = scipy.optimize.linprog(-np.repeat(s, U), A_ub=np.vstack([A, A_cap]),
                                 b_ub=np.concatenate([b, caps[finite]]), bounds=bounds,
                                 method="highs")
    if res.status != 0:
        raise RuntimeError(f"Pareto LP failed: {res.message}")
    best = res.x.reshape(n, U).sum(axis=1)
    gain = np.divide(best - u, u, out=np.where(best - u > tol, np.inf, 0.0), where=u > 0)
    i = int(np.argmax(gain))
    if gain[i] > tol:
        return gain[i], Counterexample(
            inst, f"user {i} could run {best[i]:.6g} tasks instead of {u[i]:.6g}, nobody "
                  "running fewer", dict(user=i, tasks=_tasks(u), better=_tasks(best)))
    return max(gain[i], 0.0), None


def server_envy_freeness(policy, instances, *, tol=TOL, collect=None):
    """Envy-freeness (Proposition 1): no user runs more tasks with another's allocation,
    scaled by their weights: u_i(A_j w_i / w_j) <= u_i(A_i), counting per server and up
    to i's task count. Violation: the relative gain u_i(A_j w_i / w_j) / u_i(A_i) - 1."""
    return _server_verdict("server_envy_freeness", policy, instances, _server_envy, tol,
                           collect)


def _server_envy(policy, inst, tol, index):
    a, w, caps = inst.demands, inst.w, inst.caps
    res = policy(inst)
    A, u = res.allocation, res.tasks
    return _worst_envy(inst, u, lambda i, j: server_tasks(a[i], A[j] * (w[i] / w[j]), caps[i]),
                       tol)


def server_strategy_proofness(policy, instances, *, tol=TOL, random_misreports=4, seed=0,
                              collect=None):
    """Truthfulness (Proposition 3): no user runs more tasks (counted with its true demand,
    per server, up to its task count) by reporting another demand vector. Reports: those
    of `misreports` on the user's demand as a fraction of the pool, in absolute units.
    Violation: the relative gain u_i(A'_i) / u_i(A_i) - 1."""
    return _server_verdict("server_strategy_proofness", policy, instances, _server_truthful,
                           tol, collect, random_misreports=random_misreports, seed=seed)


def _server_truthful(policy, inst, tol, index, random_misreports, seed):
    rng = np.random.default_rng([seed, index])
    a, caps, T = inst.demands, inst.caps, inst.pool
    truthful = policy(inst).tasks
    best, example = 0.0, None
    for i in range(len(a)):
        for report in misreports(a[i] / T, rng, random_misreports):
            lie = a.copy()
            lie[i] = report * T
            got = server_tasks(a[i], policy(inst, lie).allocation[i], caps[i])
            gain = got / truthful[i] - 1.0 if truthful[i] > 0 else (np.inf if got > 0 else 0.0)
            if gain > best:
                best = gain
                example = Counterexample(
                    inst, f"user {i} reports <{', '.join(f'{v:.4g}' for v in lie[i])}> and runs "
                          f"{got:.6g} tasks instead of {truthful[i]:.6g}",
                    dict(user=i, report=_tasks(lie[i]), truthful_tasks=float(truthful[i]),
                         misreport_tasks=float(got)))
    return (best, example) if best > tol else (best, None)


def single_server_drf(policy, instances, *, tol=TOL, collect=None):
    """Single-server DRF (Proposition 4): with one server (or identical ones), the policy
    gives every user DRF's tasks on the pooled capacity (drfbench.drf.drf). Applies to
    such instances with unbounded tasks. Violation: max_i |u_i - DRF_i| / DRF_i."""
    return _server_verdict("single_server_drf", policy, instances, _single_server, tol,
                           collect)


def _single_server(policy, inst, tol, index):
    C = inst.servers
    if inst.tasks is not None or not (C == C[0]).all():
        return None
    pool = C.sum(axis=0)
    D = inst.demands / pool
    expected = _drf.utilities(D, _drf.drf(D, inst.weights))
    u = policy(inst).tasks
    error = np.abs(u - expected) / np.maximum(expected, 1e-300)
    i = int(np.argmax(error))
    if error[i] > tol:
        return error[i], Counterexample(
            inst, f"user {i} runs {u[i]:.6g} tasks, DRF on the pooled server {expected[i]:.6g}",
            dict(user=i, tasks=_tasks(u), drf=_tasks(expected)))
    return error[i], None


def dedicated_sharing_incentive(policy, instances, *, tol=TOL, collect=None):
    """Sharing incentive against a dedicated proportional cloud (Sec. IV-D): every user
    runs at least the tasks it could run alone on w_i / W of every server (for divisible
    tasks the same as its share of servers drawn from the cluster's configurations, the
    paper's Fig. 8 benchmark). The paper does not claim it (DRFH "does not guarantee
    100% sharing incentive"). Violation: 1 - u_i / dedicated_i."""
    return _server_verdict("dedicated_sharing_incentive", policy, instances, _dedicated, tol,
                           collect)


def _dedicated(policy, inst, tol, index):
    a, w, caps = inst.demands, inst.w, inst.caps
    u = policy(inst).tasks
    own = np.array([server_tasks(a[i], inst.servers * (w[i] / w.sum()), caps[i])
                    for i in range(len(a))])
    shortfall = np.divide(own - u, own, out=np.zeros_like(u), where=own > 0)
    i = int(np.argmax(shortfall))
    if shortfall[i] > tol:
        return shortfall[i], Counterexample(
            inst, f"user {i} runs {u[i]:.6g} tasks, fewer than the {own[i]:.6g} it runs on its "
                  f"dedicated {w[i] / w.sum():.4g} of every server",
            dict(user=i, tasks=_tasks(u), dedicated=_tasks(own)))
    return max(shortfall[i], 0.0), None


SERVER_PROPERTIES = {
    "server_pareto_efficiency": server_pareto_efficiency,
    "server_envy_freeness": server_envy_freeness,
    "server_strategy_proofness": server_strategy_proofness,
    "single_server_drf": single_server_drf,
    "dedicated_sharing_incentive": dedicated_sharing_incentive,
}
SERVER_PROPERTY_NAMES = {"server_pareto_efficiency": "Pareto optimality",
                         "server_envy_freeness": "Envy-freeness",
                         "server_strategy_proofness": "Truthfulness",
                         "single_server_drf": "Single-server DRF",
                         "dedicated_sharing_incentive": "Sharing incentive (dedicated cloud)"}
# The DRFH paper's claims for DRFH (Proposition 1 to 4; Sec. IV-D: not guaranteed).
DRFH_CLAIMS = {"server_pareto_efficiency": True, "server_envy_freeness": True,
               "server_strategy_proofness": True, "single_server_drf": True,
               "dedicated_sharing_incentive": False}


def fig1_instance():
    """The DRFH paper's Fig. 1: servers <2 CPU, 12 GB> and <12 CPU, 2 GB>, users
    <0.2 CPU, 1 GB> and <1 CPU, 0.2 GB> (per-server DRF: 6 tasks each; DRFH: 10)."""
    return server_instance(*_drfh.worked_example(), label="DRFH Fig. 1")


def random_server_instances(count, seed=0, *, users=(2, 4), resources=(2, 3), configs=(1, 3),
                            servers=(1, 6), zeros=0.2, weighted=0.3, finite=0.3,
                            kind="general"):
    """`count` random ServerInstances (a generator): servers drawn from 1..configs[1]
    configurations of integer capacities 0..8 per resource (duplicates and missing
    resources abound; each server has some capacity), per-task demands uniform on
    [0.1, 2], each zero with probability `zeros` (each user keeps one); weights 1..3 in a
    fraction `weighted` of the instances, task counts 1..10 (each user with probability
    0.5) in a fraction `finite`. kind="single-server": one server, unbounded tasks."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        n = int(rng.integers(users[0], users[1] + 1))
        m = int(rng.integers(resources[0], resources[1] + 1))
        if kind == "single-server":
            C = rng.integers(1, 9, size=(1, m)).astype(float)
        else:
            cfg = rng.integers(0, 9, size=(int(rng.integers(configs[0], configs[1] + 1)), m))
            cfg = cfg.astype(float)
            cfg[cfg.max(axis=1) == 0, 0] = 1.0
            C = cfg[rng.integers(0, len(cfg), size=int(rng.integers(servers[0], servers[1] + 1)))]
        a = rng.uniform(0.1, 2.0, size=(n, m))
        a[rng.random((n, m)) < zeros] = 0.0
        for i in np.flatnonzero(~(a > 0).any(axis=1)):
            a[i, rng.integers(m)] = rng.uniform(0.1, 2.0)
        w = rng.integers(1, 4, size=n).astype(float) if rng.random() < weighted else None
        x = None
        if kind != "single-server" and rng.random() < finite:
            x = np.where(rng.random(n) < 0.5, rng.integers(1, 11, size=n), np.inf)
        yield server_instance(a, C, w, x, label=f"{kind} #{k}")


def server_property_table(policies, count=200, seed=0, *, zeros=0.2, tol=TOL, progress=None):
    """Tidy rows, one per (server policy, property), on the paper's Fig. 1 example and
    `count` random instances (one server each for single_server_drf): the verdict, the paper's claim for DRFH, and
    every counterexample found (column `counterexamples`, separated by " || ")."""
    general = [fig1_instance(), *random_server_instances(count, seed, zeros=zeros)]
    single = list(random_server_instances(count, seed, zeros=zeros, kind="single-server"))
    rows = []
    for name in policies:
        policy = server_policy(name)
        for prop, checker in SERVER_PROPERTIES.items():
            found = []
            v = checker(policy, single if prop == "single_server_drf" else general, tol=tol,
                        collect=found)
            claim = DRFH_CLAIMS[prop] if name == "drfh" else ""
            rows.append({"policy": name, "label": policy.name, "property": prop,
                         "property_name": SERVER_PROPERTY_NAMES[prop], "holds": v.holds,
                         "checked": v.checked, "violated": v.violated,
                         "violated_fraction": v.violated / v.checked if v.checked else 0.0,
                         "worst": v.worst if math.isfinite(v.worst) else "inf",
                         "paper": claim, "agrees": "" if claim == "" else claim == v.holds,
                         "zeros": zeros,
                         "counterexample": "" if v.counterexample is None else str(v.counterexample),
                         "counterexamples": " || ".join(str(c) for c in found)})
            if progress:
                print(f"{name:16s} {prop:30s} {'holds' if v.holds else 'VIOLATED'} "
                      f"({v.violated}/{v.checked})", file=progress, flush=True)
    return rows


def lecture_examples():
    """Tidy rows of the lecture's worked examples, for the notebook."""
    rows = []

    def add(example, policy, inst, A, reported=None):
        u = _drf.utilities(inst.demands, A)
        for i in range(len(u)):
            rows.append({"example": example, "policy": policy, "user": i + 1,
                         "report": "" if reported is None else reported[i],
                         "tasks": float(u[i]), **{f"share_{r}": float(A[i, r]) for r in range(A.shape[1])}})

    lec = lecture_instance()
    for name, policy in (("DRF", _drf.drf), ("Asset", _drf.asset_fairness), ("CEEI", _drf.ceei)):
        add("<9 CPU, 18 GB>: <1 CPU, 4 GB>, <3 CPU, 1 GB>", name, lec, policy(lec.demands))
    online = _drf.online_drf([[1, 4], [3, 1]], [9, 18])
    add("<9 CPU, 18 GB>: <1 CPU, 4 GB>, <3 CPU, 1 GB>", "online DRF (tasks)", lec,
        online.allocation / np.array([9.0, 18.0]))
    lie = lec.demands.copy()
    lie[1, 1] = 2 / 18
    add("CEEI, user 2 reports <3 CPU, 2 GB>", "CEEI", lec, _drf.ceei(lie),
        reported=["<1 CPU, 4 GB> (truth)", "<3 CPU, 2 GB> (lie)"])
    add("CEEI, user 2 reports <3 CPU, 2 GB>", "DRF", lec, _drf.drf(lie),
        reported=["<1 CPU, 4 GB> (truth)", "<3 CPU, 2 GB> (lie)"])
    asset = asset_instance()
    add("<70 CPU, 70 GB>: <2 CPU, 2 GB>, <1 CPU, 2 GB>", "Asset", asset,
        _drf.asset_fairness(asset.demands))
    add("<70 CPU, 70 GB>: <2 CPU, 2 GB>, <1 CPU, 2 GB>", "DRF", asset, _drf.drf(asset.demands))
    return rows


def main(argv=None):
    """python -m drfbench.properties --out table.csv [--examples examples.csv] [options]"""
    from . import rows as tidy
    from .api import DEMANDS, methods
    p = argparse.ArgumentParser(prog="python -m drfbench.properties",
                                description="Regenerate the DRF lecture's property table empirically.")
    p.add_argument("--out", required=True, help="the table, one row per (policy, property)")
    p.add_argument("--examples", help="also write the lecture's worked examples here")
    p.add_argument("--methods", nargs="+", default=list(methods(takes=DEMANDS)),
                   help="registered methods taking divisible demands, one row each (default: all)")
    p.add_argument("--instances", type=int, default=200, help="random instances per check")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epsilons", type=float, nargs="*", default=[0.01, 0.1],
                   help="one row per epsilon for the methods that take one")
    p.add_argument("--zeros", type=float, nargs="+", default=[0.0, 0.2],
                   help="fractions of zero demands in the random instances, one table each "
                        "(0: every user demands every resource, the lecture's setting)")
    p.add_argument("--tol", type=float, default=TOL)
    args = p.parse_args(argv)
    if args.instances < 1 or any(not 0 <= z < 1 for z in args.zeros):
        p.error("--instances must be >= 1 and every --zeros in [0, 1)")
    unknown = [m for m in args.methods if m not in methods(takes=DEMANDS)]
    if unknown:
        p.error(f"--methods: {', '.join(unknown)} do not take divisible demands; "
                f"choose from {', '.join(methods(takes=DEMANDS))}")
    tidy.exit_on_sigterm()
    stamp = {"instances": args.instances, "seed": args.seed, "tol": args.tol, **tidy.stamp()}
    rows = []
    for zeros in args.zeros:
        rows += property_table(table_policies(args.methods, args.epsilons), args.instances,
                               args.seed, zeros=zeros, tol=args.tol, progress=sys.stderr)
    tidy.write([{**row, **stamp} for row in rows], args.out)
    if args.examples:
        tidy.write([{**row, **stamp} for row in lecture_examples()], args.examples)


if __name__ == "__main__":
    main()
