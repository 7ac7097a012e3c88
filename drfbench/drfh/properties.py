"""DRFH's properties on heterogeneous servers (Wang, Liang, Li, Sec. III-C and IV), checked
on any server method: Pareto optimality, envy-freeness, truthfulness, single-server DRF,
single-resource fairness, bottleneck fairness, population monotonicity (Propositions 1 to
7) and the sharing incentive against a dedicated cloud (`python -m drfbench.drfh
properties`).

    from drfbench.drfh import properties as props
    pool = [props.fig1_instance(), *props.random_server_instances(200, seed=0)]
    props.server_pareto_efficiency("per-server-drf", pool)     # Verdict(holds=False, ...)
    props.CHECKS.table(["drfh", "per-server-drf"], 200)        # tidy rows

A ServerInstance is users' per-task demands in absolute units, the servers' capacities,
weights and task counts; a server method is a registered name taking servers ("drfh",
"per-server-drf") or a callable method(demands, servers, weights, tasks) ->
drfbench.drfh.Allocation. Utilities are tasks, counted per server (a task does not span
servers): u_i(A_i) = sum_l min_r A_ilr / a_ir, at most the user's task count. Each check
returns a drfbench.properties Verdict.
"""
from dataclasses import dataclass

import numpy as np
import scipy.optimize

from .. import api
from ..properties import (TOL, VERDICT_COLUMNS, Counterexample, NamedMethod, PropertySet,
                          instances_of, rounded, shortfall, violation, worst_departure,
                          worst_envy, worst_misreport)
from .catalog import SERVERS
from .exact import allocate, checked
from .examples import worked_example

# The DRFH paper's claims for DRFH (Propositions 1 to 7; Sec. IV-D: not guaranteed).
DRFH_CLAIMS = {"server_pareto_efficiency": True, "server_envy_freeness": True,
               "server_strategy_proofness": True, "single_server_drf": True,
               "server_single_resource_fairness": True, "server_bottleneck_fairness": True,
               "server_population_monotonicity": True, "dedicated_sharing_incentive": False}
# The random instances each check needs (random_server_instances' kind); others: "general".
INSTANCE_KINDS = {"single_server_drf": "single-server",
                  "server_single_resource_fairness": "single-resource",
                  "server_bottleneck_fairness": "bottleneck"}


@dataclass(frozen=True, eq=False)
class ServerInstance:
    """Per-task demands and server capacities, absolute units, with optional weights and task
    counts.

    Attributes
    ----------
    demands : numpy.ndarray
        (n, m).
    servers : numpy.ndarray
        (L, m).
    weights : numpy.ndarray or None
        (n,).
    tasks : numpy.ndarray or None
        (n,); inf: unbounded.
    label : str
    """
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
    something).

    Parameters
    ----------
    demands : array_like
        (n, m) per-task demands.
    servers : array_like
        (L, m) capacities.
    weights : array_like, optional
    tasks : array_like, optional
    label : str

    Returns
    -------
    ServerInstance

    Raises
    ------
    ValueError
        As drfbench.drfh.allocate, or a user demanding nothing.
    """
    a, C, w, x = checked(demands, servers, weights, tasks)
    if not (a > 0).any(axis=1).all():
        raise ValueError("every user of a server instance must demand something")
    return ServerInstance(a, C, None if weights is None else w, None if tasks is None else x,
                          label)


def read_server_instances(instances):
    """One ServerInstance or an iterable of them and of server_instance's arguments, as a
    generator of ServerInstance.

    Parameters
    ----------
    instances : object or iterable

    Returns
    -------
    generator of ServerInstance
    """
    return instances_of(ServerInstance, server_instance, instances)


class ServerMethod(NamedMethod):
    """A callable `method(demands, servers, weights, tasks) -> drfbench.drfh.Allocation`, named;
    called on an instance, with other demands in place of its own if given.

    Parameters
    ----------
    fn : callable
    name : str, optional
    """
    takes = SERVERS

    @staticmethod
    def registered(method):
        """Registered method `method` taking servers (drfbench.drfh.allocate)."""
        return lambda a, C, w, x: allocate(a, C, method, weights=w, tasks=x)

    def __call__(self, inst, demands=None):
        return self.fn(inst.demands if demands is None else demands, inst.servers,
                       inst.weights, inst.tasks)


def server_tasks(demand, bundles, cap=np.inf):
    """Tasks a user runs with one bundle per server: `sum over servers of min_r bundle_lr /
    demand_r`, at most `cap`.

    Parameters
    ----------
    demand : numpy.ndarray
        (m,) per-task.
    bundles : numpy.ndarray
        (L, m).
    cap : float

    Returns
    -------
    float
    """
    d = np.asarray(demand, dtype=np.float64)
    per = np.divide(bundles, d, out=np.full(np.shape(bundles), np.inf), where=d > 0)
    return min(float(per.min(axis=1).sum()), cap)


def server_pareto_efficiency(method, instances, *, tol=TOL, collect=None):
    """Pareto optimality (Sec. III-C): no feasible allocation gives some user more tasks
    and no user fewer. Checked by an LP over the configurations (identical servers
    pooled, exact for divisible tasks): maximize sum_i x_i s_i subject to x_i >= the
    method's tasks, x_i <= the user's task count, every configuration's capacity.
    Violation: the largest relative gain (x_i - u_i) / u_i of a user in that optimum.

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
    return CHECKS.verdict("server_pareto_efficiency", method, instances, _server_pareto, tol,
                          collect)


def _server_pareto(method, inst, tol, index):
    u = method(inst).tasks
    best = _most_tasks(inst, (inst.demands / inst.pool).max(axis=1), u)
    return violation(_gain(best, u, tol), tol, lambda i: Counterexample(
        inst, f"user {i} could run {best[i]:.6g} tasks instead of {u[i]:.6g}, nobody "
              "running fewer", dict(user=i, tasks=rounded(u), better=rounded(best))))


def _gain(best, u, tol):
    """The relative gain (best - u) / u of each user (inf where u is 0 and best above tol)."""
    return np.divide(best - u, u, out=np.where(best - u > tol, np.inf, 0.0), where=u > 0)


def _most_tasks(inst, value, floors):
    """Each user's tasks in a feasible allocation maximizing sum_i value_i x_i, x_i the
    user's tasks, by an LP over the configurations (identical servers pooled, exact for
    divisible tasks): x_i at least floors_i (less 1e-9, relative), at most the user's task
    count, within every configuration's capacity. The LP's variables are global dominant
    shares z_iu = x_iu s_i (s_i: a task's dominant share of the pool), so that its
    coefficients are the users' normalized demands, within allocate's range bound."""
    a, C = inst.demands, inst.servers
    configs, count = np.unique(C, axis=0, return_counts=True)
    K = configs * count[:, None]
    n, m, U = len(a), a.shape[1], len(K)
    T = inst.pool
    s = (a / T).max(axis=1)
    can = ~((a[:, None, :] > 0) & (K[None, :, :] <= 0)).any(axis=2)      # (n, U)
    # variables z_iu, user-major; capacity: sum_i z_iu a_ir / (T_r s_i) <= K_ur / T_r
    A = np.zeros((U * m + n, n * U))
    for c in range(U):
        for r in range(m):
            A[c * m + r, c::U] = a[:, r] / T[r] / s
    for i in range(n):
        A[U * m + i, i * U:(i + 1) * U] = -1.0
    b = np.concatenate([(K / T).ravel(), -np.asarray(floors) * s * (1 - 1e-9)])
    bounds = [(0, None if can[i, c] else 0) for i in range(n) for c in range(U)]
    # task counts: sum_u z_iu <= tasks_i s_i
    caps = inst.caps * s
    finite = np.flatnonzero(np.isfinite(caps))
    A_cap = np.zeros((len(finite), n * U))
    for k, i in enumerate(finite):
        A_cap[k, i * U:(i + 1) * U] = 1.0
    res = scipy.optimize.linprog(-np.repeat(value / s, U), A_ub=np.vstack([A, A_cap]),
                                 b_ub=np.concatenate([b, caps[finite]]), bounds=bounds,
                                 method="highs")
    if res.status != 0:
        raise RuntimeError(f"task LP failed: {res.message}")
    return res.x.reshape(n, U).sum(axis=1) / s


def server_envy_freeness(method, instances, *, tol=TOL, collect=None):
    """Envy-freeness (Proposition 1): no user runs more tasks with another's allocation,
    scaled by their weights: u_i(A_j w_i / w_j) <= u_i(A_i), counting per server and up
    to i's task count. Violation: the relative gain u_i(A_j w_i / w_j) / u_i(A_i) - 1.

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
    return CHECKS.verdict("server_envy_freeness", method, instances, _server_envy, tol, collect)


def _server_envy(method, inst, tol, index):
    a, w, caps = inst.demands, inst.w, inst.caps
    res = method(inst)
    A = res.allocation
    return worst_envy(inst, res.tasks,
                      lambda i, j: server_tasks(a[i], A[j] * (w[i] / w[j]), caps[i]), tol)


def server_strategy_proofness(method, instances, *, tol=TOL, random_misreports=4, seed=0,
                              collect=None):
    """Truthfulness (Proposition 3): no user runs more tasks (counted with its true demand, per
    server, up to its task count) by reporting another demand vector. Violation: the
    relative gain `u_i(A'_i) / u_i(A_i) - 1`.

    Parameters
    ----------
    method : NamedMethod
        The method checked (`PropertySet.check` makes one of a name or a callable).
    instances : iterable
        The family's instances.
    tol : float
        The largest violation that counts as none.
    random_misreports : int
        Reports: those of `misreports` on the user's demand as a fraction of the pool, in
        absolute units; this many random ones.
    seed : int
        With the instance's position, seeds the reports.
    collect : list, optional
        Receives every counterexample.

    Returns
    -------
    Verdict
    """
    return CHECKS.verdict("server_strategy_proofness", method, instances, _server_truthful,
                          tol, collect, random_misreports=random_misreports, seed=seed)


def _server_truthful(method, inst, tol, index, random_misreports, seed):
    a, caps = inst.demands, inst.caps

    def tasks_reporting(i, report):
        lie = a.copy()
        lie[i] = report
        return server_tasks(a[i], method(inst, lie).allocation[i], caps[i])
    return worst_misreport(inst, method(inst).tasks, tasks_reporting,
                           np.random.default_rng([seed, index]), random_misreports, tol,
                           unit=inst.pool)


def single_server_drf(method, instances, *, tol=TOL, collect=None):
    """Single-server DRF (Proposition 4): with one server (or identical ones), the method
    gives every user DRF's tasks on the pooled capacity (the registered method "drf").
    Applies to such instances with unbounded tasks whose servers have every resource
    demanded. Violation: max_i |u_i - DRF_i| / DRF_i.

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
    return CHECKS.verdict("single_server_drf", method, instances, _single_server, tol, collect)


def _drf_tasks(demands, weights):
    """Each user's tasks under divisible DRF (registered method "drf") on one server of
    capacity 1, `demands` its fractions of it: rows are scaled to at most 1 for the
    registry (DRF is Leontief and uncapped, only a row's direction matters), tasks counted
    with the demands given."""
    scaled = demands / np.maximum(demands.max(axis=1), 1.0)[:, None]
    A = api.run("drf", scaled, weights=weights).allocation.toarray()
    return np.array([server_tasks(d, A[i:i + 1]) for i, d in enumerate(demands)])


def _single_server(method, inst, tol, index):
    C = inst.servers
    if (inst.tasks is not None or not (C == C[0]).all()
            or (inst.demands[:, C[0] == 0] > 0).any()):
        return None
    expected = _drf_tasks(inst.demands / inst.pool, inst.weights)
    u = method(inst).tasks
    error = np.abs(u - expected) / np.maximum(expected, 1e-300)
    return violation(error, tol, lambda i: Counterexample(
        inst, f"user {i} runs {u[i]:.6g} tasks, DRF on the pooled server {expected[i]:.6g}",
        dict(user=i, tasks=rounded(u), drf=rounded(expected))))


def server_single_resource_fairness(method, instances, *, tol=TOL, collect=None):
    """Single-resource fairness (Proposition 5): when only one resource is demanded at
    all, the allocation is max-min fair on it (see _max_min_on: weighted by the users'
    weights, up to their task counts, across the servers). Applies only to such instances.
    Violation: the largest relative gain a user could get without any user of no larger
    weighted share losing.

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
    return CHECKS.verdict("server_single_resource_fairness", method, instances,
                          _server_single_resource, tol, collect)


def _server_single_resource(method, inst, tol, index):
    demanded = np.flatnonzero((inst.demands > 0).any(axis=0))
    if len(demanded) != 1:
        return None
    return _max_min_on(method, inst, tol, int(demanded[0]), "single resource")


def server_bottleneck_fairness(method, instances, *, tol=TOL, collect=None):
    """Bottleneck fairness (Proposition 6): when every user has the same global dominant
    resource r (a_ir / pool_r the largest of its normalized demands), the allocation is
    max-min fair on r (see _max_min_on). Applies only to such instances. Violation as for
    single-resource fairness.

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
    return CHECKS.verdict("server_bottleneck_fairness", method, instances,
                          _server_bottleneck, tol, collect)


def _server_bottleneck(method, inst, tol, index):
    normalized = inst.demands / inst.pool
    common = np.flatnonzero((normalized >= normalized.max(axis=1, keepdims=True)).all(axis=0))
    if len(common) == 0:
        return None
    return _max_min_on(method, inst, tol, int(common[0]), "bottleneck")


def _max_min_on(method, inst, tol, r, what):
    """Max-min fairness on resource r across heterogeneous servers, by its definition: no
    user's weighted share of r's pool (tasks x a_ir / pool_r / w_i) can grow while every
    user whose weighted share is no larger keeps its tasks. Per user i, an LP (_most_tasks)
    finds the most tasks i can run so, the users of larger shares keeping at least i's
    share; its relative gain over the method's is the violation."""
    u = method(inst).tasks
    per_task = inst.demands[:, r] / inst.pool[r] / inst.w      # weighted share of one task
    share = u * per_task
    n = len(u)
    best = np.array([_most_tasks(inst, np.eye(n)[i], np.where(
        share <= share[i], u, np.divide(share[i], per_task, out=np.zeros(n), where=per_task > 0)))[i]
        for i in range(n)])
    return violation(_gain(best, u, tol), tol, lambda i: Counterexample(
        inst, f"{what}: user {i} could run {best[i]:.6g} tasks instead of {u[i]:.6g} of "
              f"resource {r}, no user with a smaller share losing",
        dict(resource=r, user=i, tasks=rounded(u), better=rounded(best))))


def server_population_monotonicity(method, instances, *, tol=TOL, collect=None):
    """Population monotonicity (Proposition 7): when a user leaves (relinquishing its
    allocation), no remaining user runs fewer tasks. Applies to instances with at least
    two users. Violation: 1 - u'_j / u_j.

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
    return CHECKS.verdict("server_population_monotonicity", method, instances,
                          _server_population, tol, collect)


def _server_population(method, inst, tol, index):
    if len(inst.demands) < 2:
        return None

    def others(keep):
        return method(ServerInstance(inst.demands[keep], inst.servers,
                                     None if inst.weights is None else inst.weights[keep],
                                     None if inst.tasks is None else inst.tasks[keep])).tasks
    return worst_departure(inst, method(inst).tasks, others, tol)


def dedicated_sharing_incentive(method, instances, *, tol=TOL, collect=None):
    """Sharing incentive against a dedicated proportional cloud (Sec. IV-D): every user
    runs at least the tasks it could run alone on w_i / W of every server (for divisible
    tasks the same as its share of servers drawn from the cluster's configurations, the
    paper's Fig. 8 benchmark). The paper does not claim it (DRFH "does not guarantee
    100% sharing incentive"). Violation: 1 - u_i / dedicated_i.

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
    return CHECKS.verdict("dedicated_sharing_incentive", method, instances, _dedicated, tol,
                          collect)


def _dedicated(method, inst, tol, index):
    a, w, caps = inst.demands, inst.w, inst.caps
    u = method(inst).tasks
    own = np.array([server_tasks(a[i], inst.servers * (w[i] / w.sum()), caps[i])
                    for i in range(len(a))])
    return violation(shortfall(u, own), tol, lambda i: Counterexample(
        inst, f"user {i} runs {u[i]:.6g} tasks, fewer than the {own[i]:.6g} it runs on its "
              f"dedicated {w[i] / w.sum():.4g} of every server",
        dict(user=i, tasks=rounded(u), dedicated=rounded(own))))


def fig1_instance():
    """The DRFH paper's Fig. 1: servers <2 CPU, 12 GB> and <12 CPU, 2 GB>, users
    <0.2 CPU, 1 GB> and <1 CPU, 0.2 GB> (per-server DRF: 6 tasks each; DRFH: 10)."""
    return server_instance(*worked_example(), label="DRFH Fig. 1")


def random_server_instances(count, seed=0, *, users=(2, 4), resources=(2, 3), configs=(1, 3),
                            servers=(1, 6), zeros=0.2, weighted=0.3, finite=0.3,
                            kind="general"):
    """`count` random ServerInstances (a generator).

    Servers are drawn from 1..configs[1] configurations of integer capacities 0..8 per
    resource (duplicates and missing resources abound; each server has some capacity);
    per-task demands are uniform on [0.1, 2].

    Parameters
    ----------
    count : int
    seed : int
    users, resources, configs, servers : tuple of int
        (low, high) bounds.
    zeros : float
        Each demand is zero with this probability (each user keeps one).
    weighted : float
        The fraction of the instances with weights 1..3.
    finite : float
        The fraction of the instances with task counts 1..10 (each user with probability
        0.5).
    kind : str
        "general"; "single-server": one server, unbounded tasks; "single-resource": one
        resource; "bottleneck": one resource the servers have made every user's global
        dominant one (its normalized demand the row's largest times U(1, 1.5)).

    Returns
    -------
    generator of ServerInstance
    """
    rng = np.random.default_rng(seed)
    for k in range(count):
        n = int(rng.integers(users[0], users[1] + 1))
        m = 1 if kind == "single-resource" else int(rng.integers(resources[0], resources[1] + 1))
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
        if kind == "bottleneck":
            pool = C.sum(axis=0)
            r = int(rng.choice(np.flatnonzero(pool > 0)))
            normalized = a / np.where(pool > 0, pool, 1.0)
            a[:, r] = pool[r] * normalized.max(axis=1) * rng.uniform(1.0, 1.5, size=n)
        w = rng.integers(1, 4, size=n).astype(float) if rng.random() < weighted else None
        x = None
        if kind != "single-server" and rng.random() < finite:
            x = np.where(rng.random(n) < 0.5, rng.integers(1, 11, size=n), np.inf)
        yield server_instance(a, C, w, x, label=f"{kind} #{k}")


def table_instances(prop, count, seed=0, *, zeros=0.2):
    """The instances the table checks `prop` on: the paper's Fig. 1 example and `count` random
    ones; for the checks of INSTANCE_KINDS, `count` random ones of their kind.

    Parameters
    ----------
    prop : str
    count : int
    seed : int
    zeros : float
        As random_server_instances takes it.

    Returns
    -------
    iterable of ServerInstance
    """
    if prop in INSTANCE_KINDS:
        return random_server_instances(count, seed, zeros=zeros, kind=INSTANCE_KINDS[prop])
    return [fig1_instance(), *random_server_instances(count, seed, zeros=zeros)]


CHECKS = PropertySet(
    SERVERS, ServerInstance, read=read_server_instances, random=random_server_instances,
    pool=table_instances, method=ServerMethod,
    checks={"server_pareto_efficiency": server_pareto_efficiency,
            "server_envy_freeness": server_envy_freeness,
            "server_strategy_proofness": server_strategy_proofness,
            "single_server_drf": single_server_drf,
            "server_single_resource_fairness": server_single_resource_fairness,
            "server_bottleneck_fairness": server_bottleneck_fairness,
            "server_population_monotonicity": server_population_monotonicity,
            "dedicated_sharing_incentive": dedicated_sharing_incentive},
    names={"server_pareto_efficiency": "Pareto optimality",
           "server_envy_freeness": "Envy-freeness", "server_strategy_proofness": "Truthfulness",
           "single_server_drf": "Single-server DRF",
           "server_single_resource_fairness": "Single-resource fairness",
           "server_bottleneck_fairness": "Bottleneck fairness",
           "server_population_monotonicity": "Population monotonicity",
           "dedicated_sharing_incentive": "Sharing incentive (dedicated cloud)"},
    columns=("method", "label", *VERDICT_COLUMNS, "paper", "agrees", "zeros", "counterexample",
             "counterexamples"),
    claim="paper", claims={"drfh": DRFH_CLAIMS})
