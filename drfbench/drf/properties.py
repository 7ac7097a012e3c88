"""The fairness properties of the DRF lecture (cs262a, after Ghodsi et al., NSDI'11),
checked on any method taking divisible demands: the lecture's "Properties of Policies"
table, regenerated (`python -m drfbench.drf properties`).

    from drfbench import drf
    from drfbench.drf import properties as props
    props.strategy_proofness(drf.ceei, props.lecture_instance())      # Verdict(holds=False, ...)
    props.envy_freeness(props.method_of("dcdrf", epsilon=0.1), props.random_instances(200, seed=0))
    props.CHECKS.check(drf.drf, props.random_instances(100))          # {property: Verdict}

The model (divisible Leontief users, as in the lecture's table). Each resource has capacity 1.
An instance gives, per user i, the per-task demand D_i (D_ir = fraction of resource r one
task needs; at least one D_ir > 0) and optionally a weight w_i > 0 (default 1; W = sum w).
Users have infinitely many tasks. An allocation A (n x m, A_ir >= 0, sum_i A_ir <= 1) gives
user i the utility u_i(A_i) = min over r with D_ir > 0 of A_ir / D_ir: the tasks it can run.
Adding capacity to resource r by a factor c is the instance with column r divided by c
(utilities stay in tasks, so they compare across the two instances).

A method is a callable method(demands, weights) -> allocation (or method(demands) when it
takes no weights), where allocation is a dense array, a scipy.sparse matrix or a drfbench
AllocationResult; drfbench.drf has asset_fairness, ceei and drf, and method_of(name,
**options) makes any registered method taking divisible demands one (e.g. "dcdrf",
epsilon=0.1). An allocation beyond capacity (by more than 1e-6) or negative is an error,
not a verdict.

Each check takes a method and an instance (an Instance, a 2-D demand array, or a
(demands, weights) pair) or an iterable of instances, and returns a drfbench.properties
Verdict; each property's docstring gives its precise definition.
"""
import inspect
from dataclasses import dataclass

import numpy as np

from .. import api
from .._validation import real_array, tenant_weights
from ..properties import (TOL, VERDICT_COLUMNS, Counterexample, NamedMethod, PropertySet,
                          instances_of, rounded, shortfall, violation, worst_departure,
                          worst_envy, worst_misreport)
from .catalog import DEMANDS
from .divisible import asset_fairness, ceei, divisible_demands, drf, utilities
from .tasks import online_drf

CAPACITY_SLACK = 1e-6
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
    """A method returned an allocation that is negative or exceeds a resource's capacity."""


# --------------------------------------------------------------------------------------
# Instances and methods
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Instance:
    """Per-task demand fractions, each row with some demand, and optional weights.

    Attributes
    ----------
    demands : numpy.ndarray
        (n, m).
    weights : numpy.ndarray or None
        (n,).
    label : str
    """
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
    """A validated Instance: finite, non-negative demands, every row with some demand.

    Parameters
    ----------
    demands : array_like
        (n, m) per-task demand fractions.
    weights : array_like, optional
        (n,).
    label : str

    Returns
    -------
    Instance

    Raises
    ------
    ValueError
        No user or resource, bad entries, or a user demanding nothing.
    """
    D = divisible_demands(demands)
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
    """An Instance from per-task demands in absolute units and the cluster's capacity.

    Parameters
    ----------
    task_demands : array_like
        (n, m) absolute units.
    capacity : array_like
        (m,) positive, finite.
    weights : array_like, optional
    label : str

    Returns
    -------
    Instance

    Raises
    ------
    ValueError
        A capacity not m positive finite numbers.
    """
    D = divisible_demands(task_demands)
    C = real_array(capacity, "capacity", 1)
    if C.shape != (D.shape[1],) or not (C > 0).all() or not np.isfinite(C).all():
        raise ValueError(f"capacity must be {D.shape[1]} positive finite numbers, got "
                         f"{capacity!r:.200}")
    with np.errstate(over="ignore", under="ignore"):
        return instance(D / C, weights, label)


def lecture_instance():
    """The lecture's example: <9 CPU, 18 GB>, users <1 CPU, 4 GB> and <3 CPU, 1 GB>.
    CEEI gives 45/11 and 18/11 tasks; if user 2 reports <3 CPU, 2 GB> it gets 1.8 > 18/11."""
    return from_cluster([[1, 4], [3, 1]], [9, 18], label="lecture <9 CPU, 18 GB>")


def asset_instance():
    """The lecture's asset-fairness example: <70 CPU, 70 GB>, users <2, 2> and <1, 2>;
    asset fairness gives 15 and 20 tasks, user 1 under 50% of both resources."""
    return from_cluster([[2, 2], [1, 2]], [70, 70], label="lecture asset <70 CPU, 70 GB>")


def _single(instances):
    """`instances` as one Instance when it is one (a demand array, dense, sparse or nested
    lists, or a (demands, weights) pair), else None."""
    if isinstance(instances, np.ndarray) or hasattr(instances, "toarray"):
        return instance(instances)
    if isinstance(instances, tuple) and len(instances) == 2 and not isinstance(instances[0], Instance):
        try:
            return instance(*instances)
        except (ValueError, TypeError):
            return None
    if isinstance(instances, list):
        try:
            single = np.asarray(instances, dtype=np.float64)
        except (ValueError, TypeError):
            return None
        if single.ndim == 2:
            return instance(single)
    return None


def read_instances(instances):
    """One instance or an iterable of them, as a generator of Instance.

    Parameters
    ----------
    instances : object or iterable
        Instances, demand arrays, (demands, weights) pairs.

    Returns
    -------
    generator of Instance
    """
    single = _single(instances)
    return instances_of(Instance, instance, instances if single is None else single)


class DemandsMethod(NamedMethod):
    """A callable `method(demands, weights) -> allocation`, validated and named.

    Wraps a function of (demands, weights) or of (demands) alone; converts what it returns
    (array, sparse matrix, AllocationResult) to a dense float64 array and checks its shape
    and feasibility. A one-argument method refuses unequal weights.

    Parameters
    ----------
    fn : callable
    name : str, optional
    """
    takes = DEMANDS

    def __init__(self, fn, name=None):
        super().__init__(fn, name)
        try:
            params = [p for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
            self.weighted = len(params) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)
        except (TypeError, ValueError):
            self.weighted = True

    @staticmethod
    def registered(method, **options):
        """Registered method `method` on one thread in float64 with `options`. Rows are
        scaled to at most 1 first: every such method is Leontief and uncapped, so only a
        row's direction matters."""
        threads = {"threads": 1} if api.method_info(method).takes_option("threads") else {}

        def run(demands, weights=None):
            D = divisible_demands(demands)
            D = D / np.maximum(D.max(axis=1, initial=0.0), 1.0)[:, None]
            return api.run(method, D, takes=DEMANDS, weights=weights, dtype=np.float64,
                           **threads, **options).allocation
        return run

    def __call__(self, demands, weights=None):
        D = divisible_demands(demands)
        if self.weighted:
            out = self.fn(D, weights)
        else:
            if weights is not None and not np.allclose(weights, weights[0]):
                raise ValueError(f"method {self.name!r} takes no weights, but unequal weights were given")
            out = self.fn(D)
        out = getattr(out, "allocation", out)
        if hasattr(out, "toarray"):
            out = out.toarray()
        A = np.asarray(out, dtype=np.float64)
        if A.shape != D.shape:
            raise ValueError(f"method {self.name!r} returned shape {A.shape} for demands of shape {D.shape}")
        if not np.isfinite(A).all() or (A < -CAPACITY_SLACK).any():
            raise InfeasibleAllocation(f"method {self.name!r} returned negative or non-finite shares")
        load = A.sum(axis=0)
        if (load > 1 + CAPACITY_SLACK).any():
            r = int(np.argmax(load))
            raise InfeasibleAllocation(f"method {self.name!r} gave out {load[r]:.9g} of resource {r} "
                                       f"(capacity 1) on D = {D.tolist()}")
        return np.maximum(A, 0.0)


def method_of(method, **options):
    """A registered method taking divisible demands as a DemandsMethod named by its label.

    Run on one thread in float64 with `options` (see DemandsMethod.registered).

    Parameters
    ----------
    method : str
        drfbench.methods(takes="demands").
    **options
        E.g. epsilon=0.1.

    Returns
    -------
    DemandsMethod
    """
    spec = api.method_info(method, DEMANDS)
    label = spec.label or spec.name
    if "epsilon" in options:
        label = f"{label} eps={options['epsilon']:g}"
    return DemandsMethod.of(method, label, **options)


def _u(inst, A):
    return utilities(inst.demands, A)


# --------------------------------------------------------------------------------------
# The eight properties
# --------------------------------------------------------------------------------------

def share_guarantee(method, instances, *, tol=TOL, collect=None):
    """Share guarantee: every user gets at least the tasks it could run on its own share
    of the cluster, w_i / W of every resource: u_i(A_i) >= (w_i / W) / max_r D_ir
    ("1/n of at least one resource" for Leontief users). Violation: 1 - u_i / that, > tol.

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
    return CHECKS.verdict("share_guarantee", method, instances, _share_guarantee, tol, collect)


def _share_guarantee(method, inst, tol, index):
    w = inst.w
    u = _u(inst, method(inst.demands, inst.weights))
    own = (w / w.sum()) / inst.demands.max(axis=1)
    return violation(shortfall(u, own), tol, lambda i: Counterexample(
        inst, f"user {i} runs {u[i]:.6g} tasks, less than the {own[i]:.6g} it could run "
              f"with {w[i] / w.sum():.4g} of every resource",
        dict(user=i, tasks=rounded(u), guaranteed=rounded(own))))


def strategy_proofness(method, instances, *, tol=TOL, random_misreports=8, seed=0,
                       collect=None):
    """Strategy-proofness: no user can run more tasks by reporting a demand vector other than
    its true one: for every user i and report D'_i, `u_i(A'_i) <= u_i(A_i)`, where A' is the
    method's allocation with D_i replaced by D'_i and u_i is always measured with the true
    D_i. Violation: the relative gain `u_i(A'_i) / u_i(A_i) - 1`.

    Parameters
    ----------
    method : NamedMethod
        The method checked (`PropertySet.check` makes one of a name or a callable).
    instances : iterable
        The family's instances.
    tol : float
        The largest violation that counts as none.
    random_misreports : int
        Random reports per user, beside the fixed ones of `misreports`.
    seed : int
        With the instance's position, seeds the reports.
    collect : list, optional
        Receives every counterexample.

    Returns
    -------
    Verdict
    """
    return CHECKS.verdict("strategy_proofness", method, instances, _strategy_proofness, tol,
                          collect, random_misreports=random_misreports, seed=seed)


def _strategy_proofness(method, inst, tol, index, random_misreports, seed):
    D = inst.demands

    def tasks_reporting(i, report):
        lie = D.copy()
        lie[i] = report
        return utilities(D[i:i + 1], method(lie, inst.weights)[i:i + 1])[0]
    truthful = _u(inst, method(D, inst.weights))
    return worst_misreport(inst, truthful, tasks_reporting, np.random.default_rng([seed, index]),
                           random_misreports, tol)


def pareto_efficiency(method, instances, *, tol=TOL, collect=None):
    """Pareto efficiency: no feasible allocation gives some user more tasks and no user
    fewer. For Leontief users this holds exactly when every user demands a resource that
    the needed amounts B_i = u_i(A_i) D_i already saturate (then raising anyone needs some
    of a full resource, taken from another user; otherwise that user alone can be raised,
    whatever A wasted being free). Violation: the largest relative gain a user gets from
    the free capacity alone, min over its resources r of (1 - sum_j B_jr) / D_ir / u_i.

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
    return CHECKS.verdict("pareto_efficiency", method, instances, _pareto_efficiency, tol,
                          collect)


def _pareto_efficiency(method, inst, tol, index):
    D = inst.demands
    u = _u(inst, method(D, inst.weights))
    free = 1.0 - u @ D
    room = np.divide(np.maximum(free, 0.0)[None, :], D, out=np.full_like(D, np.inf), where=D > 0)
    extra = room.min(axis=1)
    gain = np.divide(extra, u, out=np.full_like(u, np.inf), where=u > 0)
    gain[extra <= 0] = 0.0
    return violation(gain, tol, lambda i: Counterexample(
        inst, f"user {i} could run {u[i] + extra[i]:.6g} tasks instead of {u[i]:.6g} with "
              "capacity left free, nobody losing anything",
        dict(user=i, tasks=rounded(u), free=rounded(free))))


def envy_freeness(method, instances, *, tol=TOL, collect=None):
    """Envy-freeness: no user prefers another's allocation, scaled by their weights:
    u_i(A_j * w_i / w_j) <= u_i(A_i) for all i, j. Violation: the relative gain
    u_i(A_j w_i / w_j) / u_i(A_i) - 1.

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
    return CHECKS.verdict("envy_freeness", method, instances, _envy_freeness, tol, collect)


def _envy_freeness(method, inst, tol, index):
    D, w = inst.demands, inst.w
    A = method(D, inst.weights)
    return worst_envy(inst, _u(inst, A),
                      lambda i, j: utilities(D[i:i + 1], A[j:j + 1] * (w[i] / w[j]))[0], tol)


def _max_min_on(method, inst, tol, r, what):
    D, w = inst.demands, inst.w
    A = method(D, inst.weights)
    fair = w / w.sum()
    return violation(np.abs(A[:, r] - fair) / fair, tol, lambda i: Counterexample(
        inst, f"{what}: user {i} gets {A[i, r]:.6g} of resource {r}, max-min fairness gives {fair[i]:.6g}",
        dict(resource=r, shares=rounded(A[:, r]), fair=rounded(fair))))


def single_resource_fairness(method, instances, *, tol=TOL, collect=None):
    """Single resource fairness: when only one resource r is demanded at all, the method
    is max-min fairness on it; with unbounded demands, A_ir = w_i / W. Applies only to
    such instances (others are skipped). Violation: max_i |A_ir - w_i/W| / (w_i/W).

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
    return CHECKS.verdict("single_resource_fairness", method, instances, _single_resource, tol,
                          collect)


def _single_resource(method, inst, tol, index):
    demanded = np.flatnonzero((inst.demands > 0).any(axis=0))
    if len(demanded) != 1:
        return None
    return _max_min_on(method, inst, tol, int(demanded[0]), "single resource")


def bottleneck_resource_fairness(method, instances, *, tol=TOL, collect=None):
    """Bottleneck resource fairness: when one resource r is, percent-wise, the one every
    user demands most (D_ir = max_s D_is for all i), the method is max-min fairness on r:
    A_ir = w_i / W. Applies only to such instances. Violation as for single resource.

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
    return CHECKS.verdict("bottleneck_resource_fairness", method, instances, _bottleneck, tol,
                          collect)


def _bottleneck(method, inst, tol, index):
    D = inst.demands
    common = np.flatnonzero((D >= D.max(axis=1, keepdims=True)).all(axis=0))
    if len(common) == 0:
        return None
    return _max_min_on(method, inst, tol, int(common[0]), "bottleneck")


def population_monotonicity(method, instances, *, tol=TOL, collect=None):
    """Population monotonicity: when a user leaves (relinquishing its allocation), no
    remaining user runs fewer tasks: for every k and j != k, u_j(P(D without k)_j) >=
    u_j(P(D)_j). Applies to instances with at least two users. Violation: 1 - u'_j / u_j.

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
    return CHECKS.verdict("population_monotonicity", method, instances, _population, tol,
                          collect)


def _population(method, inst, tol, index):
    if len(inst.demands) < 2:
        return None

    def others(keep):
        sub = Instance(inst.demands[keep], None if inst.weights is None else inst.weights[keep])
        return _u(sub, method(sub.demands, sub.weights))
    return worst_departure(inst, _u(inst, method(inst.demands, inst.weights)), others, tol)


def resource_monotonicity(method, instances, *, tol=TOL, factors=(1.25, 2.0, 4.0),
                          collect=None):
    """Resource monotonicity: when capacity is added, no user runs fewer tasks:
    `u_j(P(D')_j) >= u_j(P(D)_j)` for all j. Violation: `1 - u'_j / u_j`.

    Parameters
    ----------
    method : NamedMethod
        The method checked (`PropertySet.check` makes one of a name or a callable).
    instances : iterable
        The family's instances.
    tol : float
        The largest violation that counts as none.
    factors : tuple of float
        Tried for every resource r and factor c (capacity of r times c: column r of D
        divided by c).
    collect : list, optional
        Receives every counterexample.

    Returns
    -------
    Verdict
    """
    return CHECKS.verdict("resource_monotonicity", method, instances, _resources, tol, collect,
                          factors=factors)


def _resources(method, inst, tol, index, factors):
    D = inst.demands
    u = _u(inst, method(D, inst.weights))
    tried, after = [], []           # (resource, factor); every user's tasks with it added
    for r in range(D.shape[1]):
        for c in factors:
            more = D.copy()
            more[:, r] /= c
            tried.append((r, c))
            after.append(utilities(more, method(more, inst.weights)))
    loss = np.array([shortfall(a, u) for a in after])

    def example(flat):
        t, j = divmod(flat, len(u))
        r, c = tried[t]
        return Counterexample(
            inst, f"with {c:g}x resource {r}, user {j} runs {after[t][j]:.6g} tasks instead of {u[j]:.6g}",
            dict(resource=r, factor=c, user=j, before=rounded(u), after=rounded(after[t])))
    return violation(loss.ravel(), tol, example)


# --------------------------------------------------------------------------------------
# Instances for the table, its rows, the lecture's worked examples
# --------------------------------------------------------------------------------------

def random_instances(count, seed=0, *, users=(2, 5), resources=(2, 4), zeros=0.2,
                     weighted=False, kind="general"):
    """`count` random instances (a generator).

    Per-task demands are uniform on [0.01, 1], or on a coarse grid (k/8, for ties) in a
    quarter of the instances.

    Parameters
    ----------
    count : int
    seed : int
    users, resources : tuple of int
        (low, high) bounds of the instances' sizes.
    zeros : float
        Each entry is zero with this probability (each row keeps one non-zero).
    weighted : bool
        Weights uniform on the integers 1..3.
    kind : str
        "general"; "single": one resource; "bottleneck": one common column made every user's
        largest (the row's maximum times U(1, 1.5), capped at 1).

    Returns
    -------
    generator of Instance
    """
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
    """The instances the table checks `prop` on: the lecture's two examples (where they apply)
    and `count` random ones of the kind the property needs.

    Parameters
    ----------
    prop : str
    count : int
    seed : int
    zeros : float
        The fraction of zero demands (0: every user demands every resource).
    weighted : bool

    Returns
    -------
    list of Instance
    """
    kind = {"single_resource_fairness": "single",
            "bottleneck_resource_fairness": "bottleneck"}.get(prop, "general")
    fixed = [] if kind != "general" else [lecture_instance(), asset_instance()]
    return [*fixed, *random_instances(count, seed=seed, zeros=zeros, weighted=weighted, kind=kind)]


def table_methods(methods, epsilons=(0.01, 0.1)):
    """The table's rows: {label: method} for each registered method in `methods` (see
    method_of), once per epsilon for the methods that take one.

    Parameters
    ----------
    methods : list of str
    epsilons : tuple of float

    Returns
    -------
    dict
    """
    named = {}
    for name in methods:
        runs = ([{"epsilon": eps} for eps in epsilons]
                if api.method_info(name).takes_option("epsilon") else [{}])
        for options in runs:
            method = method_of(name, **options)
            named[method.name] = method
    return named


def lecture_examples():
    """Tidy rows of the lecture's worked examples, for the notebook: its single-resource
    example (max-min fairness), its dominant share (<2 CPU, 1 GB> of <10 CPU, 4 GB>: 25%,
    memory; one task launched by the online DRF kernel), its DRF, asset and CEEI
    allocations, CEEI's lie, and its weights "user 1 weight 9, user 2 weight 1" and "10^10
    and 10" (priority) under weighted DRF."""
    rows = []

    def add(example, method, inst, A, reported=None):
        u = utilities(inst.demands, A)
        for i in range(len(u)):
            rows.append({"example": example, "method": method, "user": i + 1,
                         "report": "" if reported is None else reported[i],
                         "tasks": float(u[i]), **{f"share_{r}": float(A[i, r]) for r in range(A.shape[1])}})

    single = from_cluster([[1], [3]], [1_000_000], label="lecture single resource")
    add("<1,000,000 CPU>: <1 CPU>, <3 CPU>", "DRF", single, drf(single.demands))
    held = from_cluster([[2, 1]], [10, 4], label="lecture dominant share")
    add("<10 CPU, 4 GB>: user 1 holds <2 CPU, 1 GB>", "online DRF (tasks)", held,
        online_drf([[2, 1]], [10, 4], tasks=[1]).allocation / np.array([10.0, 4.0]))
    lec = lecture_instance()
    for name, method in (("DRF", drf), ("Asset", asset_fairness), ("CEEI", ceei)):
        add("<9 CPU, 18 GB>: <1 CPU, 4 GB>, <3 CPU, 1 GB>", name, lec, method(lec.demands))
    online = online_drf([[1, 4], [3, 1]], [9, 18])
    add("<9 CPU, 18 GB>: <1 CPU, 4 GB>, <3 CPU, 1 GB>", "online DRF (tasks)", lec,
        online.allocation / np.array([9.0, 18.0]))
    lie = lec.demands.copy()
    lie[1, 1] = 2 / 18
    add("CEEI, user 2 reports <3 CPU, 2 GB>", "CEEI", lec, ceei(lie),
        reported=["<1 CPU, 4 GB> (truth)", "<3 CPU, 2 GB> (lie)"])
    add("CEEI, user 2 reports <3 CPU, 2 GB>", "DRF", lec, drf(lie),
        reported=["<1 CPU, 4 GB> (truth)", "<3 CPU, 2 GB> (lie)"])
    for weights, shown in (((9.0, 1.0), "9 : 1"), ((1e10, 10.0), "10^10 : 10")):
        add(f"<9 CPU, 18 GB>, weights {shown} (the lecture's weighted fairness)", "DRF", lec,
            drf(lec.demands, np.array(weights)))
    asset = asset_instance()
    add("<70 CPU, 70 GB>: <2 CPU, 2 GB>, <1 CPU, 2 GB>", "Asset", asset,
        asset_fairness(asset.demands))
    add("<70 CPU, 70 GB>: <2 CPU, 2 GB>, <1 CPU, 2 GB>", "DRF", asset, drf(asset.demands))
    return rows


CHECKS = PropertySet(
    DEMANDS, Instance, read=read_instances, random=random_instances, pool=default_instances,
    method=DemandsMethod,
    checks={"share_guarantee": share_guarantee, "strategy_proofness": strategy_proofness,
            "pareto_efficiency": pareto_efficiency, "envy_freeness": envy_freeness,
            "single_resource_fairness": single_resource_fairness,
            "bottleneck_resource_fairness": bottleneck_resource_fairness,
            "population_monotonicity": population_monotonicity,
            "resource_monotonicity": resource_monotonicity},
    names={"share_guarantee": "Share guarantee", "strategy_proofness": "Strategy-proofness",
           "pareto_efficiency": "Pareto efficiency", "envy_freeness": "Envy-freeness",
           "single_resource_fairness": "Single resource fairness",
           "bottleneck_resource_fairness": "Bottleneck res. fairness",
           "population_monotonicity": "Population monotonicity",
           "resource_monotonicity": "Resource monotonicity"},
    columns=("zeros", "method", *VERDICT_COLUMNS, "lecture", "agrees", "counterexample"),
    claim="lecture", claims=LECTURE_TABLE)
