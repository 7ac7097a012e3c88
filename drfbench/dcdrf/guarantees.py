"""DC-DRF's guarantees (§3 of Kash, O'Shea and Volos, SoCC'18), checked on small random
instances: decisions, not timings (`python -m drfbench.dcdrf guarantees`).

    from drfbench.dcdrf import guarantees
    rows = guarantees.table(instances=100, seed=0, epsilons=(0.01, 0.1))

What §3 states of the inner loop run to completion at a fixed epsilon, and the check of
each (one row per check and epsilon; `violated` counts what breaks it, `worst_ratio` is
the largest measured value over its bound, at most 1 when it holds):

  pareto_epsilon: "every tenant desires some resource of which we have allocated a 1 - eps
      fraction" (Pareto efficiency up to the resources discarded by eps). Per tenant, the
      smallest free fraction among the resources it demands; bound eps. `exact_violated`:
      instances where some tenant could run more tasks from free capacity alone, nobody
      losing anything (exact Pareto efficiency fails).
  strategy_proofness_epsilon: strategy-proofness up to the resources discarded by eps,
      read as: no misreport gains a tenant more than eps of its dominant resource (the
      tasks it gains, times its largest per-task demand). Misreports as in
      drfbench.properties.misreports. `exact_violated`: instances where some misreport
      gains anything (relative gain above 1e-6).
  fairness_bound (on sparser instances, see sparse_instances): "if all tenants using the tenant's bottleneck resource desired more,
      the tenant could get at most 1/(1 - eps) times its actual allocation". A tenant that
      gets less than exact EDRF gives it is checked when some resource r it demands is
      eps-exhausted (free at most eps) and every tenant demanding r desires more, i.e.
      demands no other eps-exhausted resource (is not bottlenecked elsewhere); the value
      is its EDRF tasks over its DC-DRF tasks, the bound 1/(1 - eps). `worst_any`: the same ratio over every tenant that
      gets less, checked or not (the paper: large gains need other tenants bottlenecked
      elsewhere).
  lemma_3_1: Lemma 3.1. With mu fixed at its initial value (mu_1r, line 8, never updated
      by line 17) the inner loop ends after fewer than 1 + log(c) / log(1 - eps)
      iterations, c = min_r mu_1r / max_r mu_1r: a bound independent of |R|. Checked on
      instances of growing |R| (tenants = 4 |R|, each demanding `demanded` resources, every
      resource demanded by the same number of tenants, so that c stays bounded). Context
      columns: the rounds of DC-DRF itself (mu updated, as Algorithm 2 runs), how many of
      its runs stay within the same bound (`within_bound`), and exact EDRF's rounds.

Sharing incentive and envy-freeness, which §3 says DC-DRF keeps in full, are checked by
classic DRF's property table (drfbench.drf.properties, its rows "DC-DRF eps=...").

DC-DRF runs as drfbench.dcdrf.literal.dcdrf (Algorithm 2 transcribed; tests/dcdrf/test_dcdrf.py
holds the kernels to it) on the small instances, and exact EDRF as literal.edrf; the
lemma's larger instances run the registered kernels (dcdrf and edrf-event, float64, one
thread) for their rounds. Tolerances: TOL on shares and ratios.
"""
import math
import sys

import numpy as np

from .. import rows as tidy
from .._command import COUNT, NATURAL, options_of, output
from ..api import THREADS
from ..properties import misreports
from . import literal
from .catalog import EPSILON
from .demands import allocate

CHECKS = ("pareto_epsilon", "strategy_proofness_epsilon", "fairness_bound", "lemma_3_1")
TOL = 1e-9
# The lemma's runs of the kernels: their rounds, the same on one thread
KERNELS = {"dtype": np.float64, THREADS.name: 1}
COLUMNS = ("check", EPSILON.name, "tenants", "resources", "demanded", "seed", "instances",
           "checked", "violated", "holds", "worst", "bound", "worst_ratio", "exact_violated",
           "worst_any", "c_min", "rounds_fixed_mu", "rounds_dcdrf", "within_bound",
           "rounds_edrf")


# ------------------------------------------------------------------------------ instances

def random_instances(count, seed=0, *, users=(2, 5), resources=(2, 4), zeros=0.3):
    """`count` small instances: uniform on [0.01, 1], or on the grid k/8 (for ties) in a quarter
    of them.

    Parameters
    ----------
    count : int
    seed : int
    users, resources : tuple of int
        (low, high) bounds of the sizes.
    zeros : float
        Each entry is zero with this probability.

    Returns
    -------
    list of numpy.ndarray
        Per-task demand arrays, entries in [0, 1], every row with some demand.
    """
    rng = np.random.default_rng([seed, 31])
    out = []
    for _ in range(count):
        n = int(rng.integers(users[0], users[1] + 1))
        m = int(rng.integers(resources[0], resources[1] + 1))
        D = (rng.integers(1, 9, size=(n, m)) / 8 if rng.random() < 0.25
             else rng.uniform(0.01, 1.0, size=(n, m)))
        D[rng.random((n, m)) < zeros] = 0.0
        for i in np.flatnonzero(~(D > 0).any(axis=1)):
            D[i, rng.integers(m)] = rng.uniform(0.01, 1.0)
        out.append(D)
    return out


def regular_instance(resources, rng, *, per_resource=4, demanded=4):
    """A lemma instance: `per_resource * resources` tenants, each demanding `demanded`
    resources (fewer where two draws coincide) with per-task demands uniform on [0.5, 1].

    In each of the `demanded` draws every resource is picked by exactly `per_resource`
    tenants, so every resource has about the same total demand whatever |R|.

    Parameters
    ----------
    resources : int
    rng : numpy.random.Generator
    per_resource : int
    demanded : int

    Returns
    -------
    numpy.ndarray
        Per-task demands.
    """
    n = per_resource * resources
    D = np.zeros((n, resources))
    for _ in range(demanded):
        D[np.arange(n), rng.permutation(n) % resources] = rng.uniform(0.5, 1.0, size=n)
    return D


def tasks(D, A):
    """Tasks each tenant runs: min over its demanded resources of `A_ir / D_ir`.

    Parameters
    ----------
    D : numpy.ndarray
        Per-task demands.
    A : numpy.ndarray
        The allocation.

    Returns
    -------
    numpy.ndarray
    """
    ratio = np.divide(A, D, out=np.full_like(A, np.inf), where=D > 0)
    return ratio.min(axis=1)


def allocation(D, epsilon):
    """DC-DRF's allocation of `D` at tolerance `epsilon`, its inner loop run to completion:
    Algorithm 2 transcribed (literal.dcdrf, unit weights).

    Parameters
    ----------
    D : numpy.ndarray
        Per-task demands, tenants x resources.
    epsilon : float

    Returns
    -------
    numpy.ndarray
        A_ir, shaped like D.
    """
    return literal.dcdrf(D, None, epsilon)[0]


# ------------------------------------------------------------------------------ the checks

def pareto_epsilon(instances, epsilon):
    """The pareto_epsilon row's counts.

    Parameters
    ----------
    instances : list of numpy.ndarray
        Per-task demand arrays (`random_instances`).
    epsilon : float

    Returns
    -------
    checked, violated : int
    worst : float
        The largest over tenants of the smallest free fraction among their resources.
    exact_violated : int
    """
    violated = exact = 0
    worst = 0.0
    for D in instances:
        A = allocation(D, epsilon)
        free = 1.0 - A.sum(axis=0)
        slack = np.where(D > 0, free[None, :], np.inf).min(axis=1)
        worst = max(worst, float(slack.max()))
        violated += bool((slack > epsilon + TOL).any())
        u = tasks(D, A)
        extra = np.divide(np.maximum(free, 0.0)[None, :], D, out=np.full_like(D, np.inf),
                          where=D > 0).min(axis=1)
        exact += bool((extra > TOL * np.maximum(u, 1.0)).any())
    return len(instances), violated, worst, exact


def strategy_proofness_epsilon(instances, epsilon, seed=0, random_misreports=4):
    """The strategy_proofness_epsilon row's counts.

    Parameters
    ----------
    instances : list of numpy.ndarray
        Per-task demand arrays (`random_instances`).
    epsilon : float
    seed : int
    random_misreports : int
        Random reports per tenant (`drfbench.properties.misreports`).

    Returns
    -------
    checked, violated : int
    worst : float
        The largest gain of a misreport in the liar's dominant share.
    exact_violated : int
    """
    violated = exact = 0
    worst = 0.0
    for index, D in enumerate(instances):
        rng = np.random.default_rng([seed, index])
        truthful = tasks(D, allocation(D, epsilon))
        bad = lie = False
        for i in range(len(D)):
            for report in misreports(D[i], rng, random_misreports):
                reported = D.copy()
                reported[i] = report
                got = tasks(D[i:i + 1], allocation(reported, epsilon)[i:i + 1])[0]
                gain = (got - truthful[i]) * D[i].max()
                worst = max(worst, float(gain))
                bad |= gain > epsilon + TOL
                lie |= got > truthful[i] * (1 + 1e-6)
        violated += bad
        exact += lie
    return len(instances), violated, worst, exact


def fairness_bound(instances, epsilon):
    """The fairness_bound row's counts.

    Parameters
    ----------
    instances : list of numpy.ndarray
        Per-task demand arrays (`random_instances`).
    epsilon : float

    Returns
    -------
    checked : int
        Tenants short of EDRF, with an eps-exhausted resource whose tenants all desire more.
    violated : int
        Those above `1/(1 - eps)`.
    worst : float
        The largest ratio among them.
    worst_any : float
        The largest among all short tenants (1 when none is short).
    """
    bound = 1.0 / (1.0 - epsilon)
    checked = violated = 0
    worst = worst_any = 1.0
    for D in instances:
        A = allocation(D, epsilon)
        u = tasks(D, A)
        exact = tasks(D, literal.edrf(D)[0])
        free = 1.0 - A.sum(axis=0)
        for i in np.flatnonzero(u < exact * (1 - TOL)):
            ratio = exact[i] / u[i]
            worst_any = max(worst_any, float(ratio))
            if any(_desired_more(D, free, r, epsilon) for r in np.flatnonzero(D[i] > 0)
                   if free[r] <= epsilon + TOL):
                checked += 1
                violated += ratio > bound * (1 + TOL)
                worst = max(worst, float(ratio))
    return checked, violated, worst, worst_any


def _desired_more(D, free, r, epsilon):
    """Whether every tenant demanding resource r still desires more: none of them demands
    another resource that is eps-exhausted (free at most eps), i.e. none is bottlenecked
    elsewhere."""
    users = D[:, r] > 0
    elsewhere = (D[users] > 0) & (free <= epsilon + TOL)[None, :]
    elsewhere[:, r] = False
    return not elsewhere.any()


def fixed_mu_rounds(D, epsilon):
    """Iterations of Algorithm 2's inner loop with mu held at mu_1 (Lemma 3.1's first
    assumption: line 17 never runs), the rest as literal.dcdrf.

    Parameters
    ----------
    D : numpy.ndarray
        Per-task demands.
    epsilon : float

    Returns
    -------
    rounds : int
    c : float
        `min_r mu_1r / max_r mu_1r` over the demanded resources.
    """
    d, rho, N = literal.normalized(D)
    demanded = d > 0
    mu = (rho[N, None] * d[N]).sum(axis=0)                   # line 8, fixed
    s = np.ones(d.shape[1])
    S = N.copy()
    t = 0
    while S.any():
        live = demanded[S].any(axis=0)
        x = (s[live] / mu[live]).min()                       # line 13 with mu_1
        s = s - x * mu                                       # line 15 with mu_1
        S = S & ~(demanded & (s <= epsilon + literal.SLACK)[None, :]).any(axis=1)   # line 16
        t += 1
    positive = mu[mu > 0]
    return t, float(positive.min() / positive.max())


def lemma_bound(c, epsilon):
    """Lemma 3.1's bound: the loop ends before iteration `1 + log(c) / log(1 - eps)`.

    Parameters
    ----------
    c : float
        As `fixed_mu_rounds` gives it.
    epsilon : float

    Returns
    -------
    float
    """
    return 1.0 + math.log(c) / math.log(1.0 - epsilon)


def lemma_3_1(resources, epsilon, instances, seed=0, demanded=4):
    """The lemma_3_1 row's values at |R| = resources.

    Parameters
    ----------
    resources : int
    epsilon : float
    instances : int
        `regular_instance`s checked.
    seed : int
    demanded : int
        Resources each tenant demands.

    Returns
    -------
    tuple
        (checked, violated, worst_ratio, worst, bound, c_min, rounds_fixed_mu, rounds_dcdrf,
        within_bound, rounds_edrf): worst the fixed-mu rounds and bound the bound of the
        instance with the largest ratio; rounds as the largest (DC-DRF, fixed mu) and the
        mean (EDRF).
    """
    rng = np.random.default_rng([seed, resources, 3_1])
    ratios, bounds, fixed, cs, dc, edrf = [], [], [], [], [], []
    for _ in range(instances):
        D = regular_instance(resources, rng, demanded=demanded)
        t, c = fixed_mu_rounds(D, epsilon)
        b = lemma_bound(c, epsilon)
        fixed.append(t)
        bounds.append(b)
        cs.append(c)
        ratios.append(t / b)
        dc.append(allocate(D, "dcdrf", **KERNELS, **{EPSILON.name: epsilon}).rounds)
        edrf.append(allocate(D, "edrf-event", **KERNELS).rounds)
    k = int(np.argmax(ratios))
    return (instances, int(sum(r >= 1 for r in ratios)), float(ratios[k]), fixed[k], bounds[k],
            float(min(cs)), int(max(fixed)), int(max(dc)),
            int(sum(r < b for r, b in zip(dc, bounds))), float(np.mean(edrf)))


# ------------------------------------------------------------------------------ the table

def sparse_instances(count, seed=0):
    """The fairness bound's instances: random_instances with 4-10 tenants, 4-8 resources and 80%
    zero demands.

    Tenants there often share a bottleneck that nobody else's demand limits (the bound's
    premise is rare in denser instances).

    Parameters
    ----------
    count : int
    seed : int

    Returns
    -------
    list of numpy.ndarray
    """
    return random_instances(count, seed + 1, users=(4, 10), resources=(4, 8), zeros=0.8)


def table(instances=100, bound_instances=600, seed=0, epsilons=(0.01, 0.1),
          resources=(16, 64, 256), lemma_instances=10, demanded=4, progress=None):
    """§3's guarantees on small instances, as tidy rows (COLUMNS, stamped).

    Parameters
    ----------
    instances : int
        Small instances of random_instances, one row per check and epsilon.
    bound_instances : int
        Instances of sparse_instances for the fairness bound.
    seed : int
    epsilons : tuple of float
    resources : tuple of int
        The lemma's sizes, one row per size and epsilon.
    lemma_instances : int
        Instances per lemma size.
    demanded : int
        Resources each tenant demands in the lemma's instances.
    progress : file, optional
        A file progress lines are written to.

    Returns
    -------
    drfbench.rows.Rows
    """
    small = random_instances(instances, seed)
    sparse = sparse_instances(bound_instances, seed)
    rows = []

    def add(**row):
        row.setdefault("instances", instances)
        row["holds"] = row["violated"] == 0
        rows.append({c: row.get(c, "") for c in COLUMNS})
        if progress:
            print(f"{row['check']:28s} eps={row[EPSILON.name]:g} {row.get('resources', '')!s:>5} "
                  f"{'holds' if row['holds'] else 'VIOLATED'} ({row['violated']}/{row['checked']})",
                  file=progress, flush=True)

    for eps in epsilons:
        at = {EPSILON.name: eps, "seed": seed}
        checked, violated, worst, exact = pareto_epsilon(small, eps)
        add(check="pareto_epsilon", **at, checked=checked, violated=violated,
            worst=worst, bound=eps, worst_ratio=worst / eps, exact_violated=exact)
        checked, violated, worst, exact = strategy_proofness_epsilon(small, eps, seed)
        add(check="strategy_proofness_epsilon", **at, checked=checked,
            violated=violated, worst=worst, bound=eps, worst_ratio=worst / eps,
            exact_violated=exact)
        checked, violated, worst, worst_any = fairness_bound(sparse, eps)
        add(check="fairness_bound", **at, instances=bound_instances,
            checked=checked, violated=violated,
            worst=worst, bound=1 / (1 - eps), worst_ratio=worst * (1 - eps), worst_any=worst_any)
        for m in resources:
            (checked, violated, ratio, worst, bound, c, fixed, dc, within,
             edrf) = lemma_3_1(m, eps, lemma_instances, seed, demanded)
            add(check="lemma_3_1", **at, tenants=4 * m, resources=m, demanded=demanded,
                instances=lemma_instances, checked=checked, violated=violated,
                worst=worst, bound=bound, worst_ratio=ratio, c_min=c, rounds_fixed_mu=fixed,
                rounds_dcdrf=dc, within_bound=within, rounds_edrf=edrf)
    return tidy.stamped(rows)


def arguments(p):
    """The step's flags, added to `p` (its parser under python -m drfbench.dcdrf)."""
    p.add_argument("--out", required=True, type=output, help="the table (CSV)")
    p.add_argument("--instances", type=COUNT, default=100, help="small random instances")
    p.add_argument("--bound-instances", type=COUNT, default=600,
                   help="sparse random instances for the fairness bound")
    p.add_argument("--seed", type=NATURAL, default=0)
    p.add_argument("--resources", type=COUNT, nargs="+", default=[16, 64, 256],
                   help="|R| of the lemma's instances (tenants: 4 |R|)")
    p.add_argument("--lemma-instances", type=COUNT, default=10)
    p.add_argument("--demanded", type=COUNT, default=4,
                   help="resources per tenant in the lemma's instances")


def step(args):
    """The step: the table, written to --out; its epsilons (a sweep of the declared
    option, catalog.STEP_SWEEPS) each > 0, as the guarantees hold up to epsilon."""
    epsilons = tuple(options_of(args)["epsilons"])
    if min(epsilons) <= 0:
        raise ValueError(f"--epsilons must each be > 0 (the guarantees hold up to epsilon), "
                         f"got {min(epsilons):g}")
    rows = table(args.instances, args.bound_instances, args.seed, epsilons,
                 tuple(args.resources), args.lemma_instances, args.demanded, progress=sys.stderr)
    tidy.write(rows, args.out)
