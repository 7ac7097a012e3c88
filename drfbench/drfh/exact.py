"""Exact DRFH for divisible tasks (Wang, Liang, Li, "Dominant Resource Fairness in Cloud
Computing Systems with Heterogeneous Servers": problem (7), Sec. V-A), and per-server DRF,
the naive extension of Sec. III-D.

The model, in the paper's notation. Servers l have capacities c_l (absolute units; the
paper normalizes every resource's total T_r = sum_l c_lr to 1); a task of user i needs
a_i, i.e. D_ir = a_ir / T_r of the pool, and s_i = max_r D_ir is its global dominant share
per task. A non-wasteful allocation (Lemma 1) gives user i on server l the bundle g_il d_i,
d_i = D_i / s_i, g_il >= 0 its global dominant share there; it runs sum_l g_il / s_i tasks,
and its global dominant share is G_i = sum_l g_il. Problem (7), weighted (Sec. V-A):

    maximize g  subject to  sum_i g_il d_ir <= c_lr / T_r  (every server l, resource r)
                            sum_l g_il = w_i g            (every user i)

Progressive rounds (Sec. V-A, finite tasks): the level t = G_i / w_i of every active user
rises together; a user whose tasks are all placed leaves at its level, and so does a
user that cannot rise any more (a resource it needs is exhausted on every server it can
use, whatever the placement), while the others go on, "until no user is active or no
more resources could be allocated". The second rule is drfbench's reading of the paper's
stopping rule, and the result is the weighted max-min fair (leximin) vector of levels:
with every demand positive and unbounded tasks the first round already blocks everyone
(Proposition 2, Pareto optimality) and this is exactly (7); with zero demands or finite
tasks, the users left go on, which is what Pareto optimality needs (docs/families/drfh/choices.md).

Two exact solvers give the same levels:
- solver="lp": the literal LP, the test oracle. Each round is a linear program over every
  (user, server) pair, solved by HiGHS (scipy.optimize.linprog): maximize t; users that
  cannot rise are found by LPs maximizing their total rise above t.
- solver="aggregate" (default): servers of one configuration are interchangeable and
  tasks divisible, so averaging any solution over identical servers keeps it feasible
  and changes no user's tasks: the problem over configurations (capacity count x c) has
  the same levels. One configuration is single-server DRF on the pooled capacity, solved
  by event-driven progressive filling (no LP). Several configurations: the same rounds,
  but the cap events are skipped by bisection over the sorted caps (feasibility LPs), so a
  run costs O(log n) LPs per blocking event rather than one LP per user that finishes;
  with every demand and capacity positive, the rise tests are skipped (Proposition 2:
  nobody can rise once the common level is blocked), and the last LP's solution is the
  placement.
  Each configuration's share is split evenly over its servers.
"""
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from .. import _validation as check
from .. import api
from .. import rows as tidy
from .._inputs import demands_and_machines
from .catalog import SERVERS

# Relative tolerance of the rounds: a user rises if it can gain more than this fraction of
# the level; a cap counts as reached within it. HiGHS runs with feasibility tolerances far
# below it (LP_OPTIONS), on problems scaled to O(1). HiGHS's interior-point method (with
# its crossover to a vertex) solves the full per-server LP about 10x faster than its dual
# simplex (30 users x 1,200 servers: 3.3 s against 37 s) and the aggregated one as fast.
RISE_TOL = 1e-7
LP_METHOD = "highs-ipm"
LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
# The range of values the solvers handle (allocate's bounds): as fractions of each
# resource's pool (the servers' total), a user's task needs between MIN_SHARE and
# 1 / MIN_SHARE of its dominant resource (at most 2**62 tasks fit,
# drfbench._validation.MAX_COUNT) and a server holds at least MIN_SHARE of its largest
# (at most 1: a server is part of the pool); a user's (a server's) nonzero fractions lie
# within MAX_RANGE of its largest, so that the LPs' coefficients stay far above HiGHS's
# smallest (1e-9) and its tolerances.
MIN_SHARE = 2.0**-62
MAX_RANGE = 1e4
# Tasks are divisible: a user's cap is 0, inf (unbounded) or in [MIN_TASKS, 2**62]; a cap
# of a subnormal number of tasks fell below the levels' resolution (the user got nothing
# or twice its cap).
MIN_TASKS = 2.0**-62


@dataclass(frozen=True, eq=False)
class Allocation:
    """What `allocate` returns.

    Attributes
    ----------
    tasks : numpy.ndarray
        (n,) tasks each user runs (fractional), in input order.
    shares : numpy.ndarray
        (n,) global dominant shares `G_i = tasks_i * max_r a_ir / T_r`.
    level : numpy.ndarray
        (n,) `G_i / w_i` (weights scaled so that the largest is 1); equal for every user
        that neither finished nor was blocked.
    method : str
    solver : str
    rounds : int
        LPs solved (or progressive-filling steps).
    elapsed : float
        Seconds of the solve.
    no_demand : numpy.ndarray
        Users demanding nothing (they take no part and get 0 tasks).
    no_fit : numpy.ndarray
        Users whose task fits no server even divided: no server has every resource they
        demand (they get 0 tasks).
    finished : numpy.ndarray
        Users whose finite tasks are all placed.
    allocation : numpy.ndarray
        (n, L, m) resources of user i on server l, absolute units (computed on first use from
        the per-unit solution; for solver="aggregate" each configuration's share split
        evenly over its identical servers).
    placement : numpy.ndarray
        (n, L) tasks of user i on server l.
    """
    tasks: np.ndarray
    shares: np.ndarray
    level: np.ndarray
    method: str
    solver: str
    rounds: int
    elapsed: float
    no_demand: np.ndarray
    no_fit: np.ndarray
    finished: np.ndarray
    _demands: np.ndarray = field(repr=False)
    _unit_tasks: np.ndarray = field(repr=False)     # (n, U) tasks per unit
    _unit_of: np.ndarray = field(repr=False)        # (L,) unit of each server
    _unit_size: np.ndarray = field(repr=False)      # (U,) servers per unit

    @property
    def placement(self):
        return self._unit_tasks[:, self._unit_of] / self._unit_size[self._unit_of]

    def rows(self, **columns):
        """Tidy rows, one per user: method, solver, rounds, elapsed, then the user (its index), its
        tasks, share, level and whether it finished, stamped (drfbench.rows).

        Parameters
        ----------
        **columns
            Columns added to every row.

        Returns
        -------
        drfbench.rows.Rows
        """
        run = {"method": self.method, "solver": self.solver, "rounds": self.rounds,
               "elapsed": self.elapsed}
        finished = np.isin(np.arange(len(self.tasks)), self.finished)
        return tidy.stamped(({**run, "user": i, "tasks": x, "share": g, "level": z,
                              "finished": f}
                             for i, (x, g, z, f) in enumerate(zip(
                                 self.tasks.tolist(), self.shares.tolist(),
                                 self.level.tolist(), finished.tolist()))), **columns)

    @property
    def allocation(self):
        return self.placement[:, :, None] * self._demands[:, None, :]


# --------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------

def checked(demands, servers, weights=None, tasks=None):
    """Validated float64 demands, servers, weights and tasks, within the bounds `allocate`
    states.

    Named tables (a DataFrame with text column labels, a dict of columns) are matched by
    name (drfbench._validation.machines).

    Parameters
    ----------
    demands, servers, weights, tasks
        As `allocate` takes them.

    Returns
    -------
    demands : numpy.ndarray
        (n, m).
    servers : numpy.ndarray
        (L, m).
    weights : numpy.ndarray
        (n,).
    tasks : numpy.ndarray
        (n,).

    Raises
    ------
    ValueError
        As `allocate`.
    """
    names, a = check.by_name(demands, "demands")
    a = check.finite_non_negative(check.real_array(a, "demands", 2), "demands")
    n, m = a.shape
    if n < 1 or m < 1:
        raise ValueError(f"demands need at least one user and one resource, got shape {a.shape}")
    C = check.machines(servers, m, resources=names, name="servers")
    w = check.tenant_weights(weights, n)
    if tasks is None:
        x = np.full(n, np.inf)
    else:
        x = check.real_array(tasks, "tasks", 1)
        if x.shape != (n,):
            raise ValueError(f"tasks must give one count per user ({n}), got shape {x.shape}")
        bad = np.flatnonzero(np.isnan(x) | (x < 0) | ((x > 0) & (x < MIN_TASKS)) |
                             (np.isfinite(x) & (x > check.MAX_COUNT)))
        if bad.size:
            raise ValueError(f"tasks must be 0 or in [2**-62, 2**62] (inf: unbounded), got "
                             f"{x[bad[0]]} for user {bad[0]}")
    _check_range(a, C)
    return a, C, w, x


def _check_range(a, C):
    """Refuse values outside `allocate`'s bounds: each resource's pool finite; as fractions
    of the pools, a user's task between MIN_SHARE and 1 / MIN_SHARE of its dominant
    resource, a server's largest likewise, and the nonzero fractions of one user (server)
    within MAX_RANGE of its largest."""
    with np.errstate(over="ignore"):
        T = C.sum(axis=0)
    if not np.isfinite(T).all():
        raise ValueError(f"servers: the capacities of resource {int(np.argmax(~np.isfinite(T)))} "
                         "sum past the largest float (each resource's total must be finite)")
    pool = np.where(T > 0, T, np.inf)
    for name, has, values in (("demands: user", "needs", a), ("servers: server", "holds", C)):
        fractions = values / pool
        held = (values > 0) & (T > 0)        # a resource no server has: no fraction (no_fit)
        top = fractions.max(axis=1)
        low = np.where(held, fractions, np.inf).min(axis=1)
        with np.errstate(over="ignore"):         # low * MAX_RANGE past a float: in range
            bad = np.flatnonzero((held.any(axis=1) &
                                  ((top < MIN_SHARE) | (top * MIN_SHARE > 1))) |
                                 (low * MAX_RANGE < top))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{name} {i} {has} {low[i]:.3g} to {top[i]:.3g} of the resources' "
                             f"pools: the largest must lie in [2**-62, 2**62] and every nonzero "
                             f"one within a factor {MAX_RANGE:g} of it")


def read_inputs(demands_path, servers_path, names=False):
    """The servers kind's reader (`drfbench run`), by drfbench._inputs.demands_and_machines.

    Parameters
    ----------
    demands_path : str or Path
        A CSV of per-task demands, one row per user, whose header names the resources.
    servers_path : str or Path
        A servers CSV in the generic trace format (drfbench.drfh.trace) with the same
        resource columns, matched by name.
    names : bool
        Also return the users' names.

    Returns
    -------
    tuple
        (demands (users, resources), servers (L, resources)); with `names`, that pair and the
        users' names (None without a name column).

    Raises
    ------
    ValueError
        Naming the file, line and column.
    """
    return demands_and_machines(demands_path, servers_path, "servers", names=names)


def _units(C, aggregate):
    """Units the solver works on: (capacities (U, m), unit of each server, servers per
    unit). aggregate: one unit per distinct configuration; else one per server."""
    if not aggregate:
        return C, np.arange(len(C)), np.ones(len(C))
    configs, unit_of, count = np.unique(C, axis=0, return_inverse=True, return_counts=True)
    return configs * count[:, None], unit_of.ravel(), count.astype(float)


# --------------------------------------------------------------------------------------
# DRFH: the rounds
# --------------------------------------------------------------------------------------

class _Rounds:
    """The LPs of the progressive rounds over units (servers or configurations).

    Variables y_iu >= 0 for the pairs where user i can use unit u (u has every resource i
    demands), y_iu = g_iu / sigma_u with sigma_u unit u's largest normalized capacity, so
    that capacity rows read sum_i y_iu d_ir <= c_ur / sigma_u (O(1)). Levels are scaled by
    `scale` (about the number of users) for the same reason.
    """

    def __init__(self, d, c, w, eligible):
        self.n, self.U = eligible.shape
        self.w = w
        users, units = np.nonzero(eligible)
        self.users, self.units = users, units
        self.sigma = sigma = c.max(axis=1)
        self.k = k = len(users)
        m = d.shape[1]
        # capacity rows: one per (unit, resource) that some eligible user demands
        rows, cols, vals = [], [], []
        for r in range(m):
            used = d[users, r] > 0
            rows.append(units[used] * m + r)
            cols.append(np.flatnonzero(used))
            vals.append(d[users[used], r])
        rows, cols, vals = map(np.concatenate, (rows, cols, vals))
        keep, row_index = np.unique(rows, return_inverse=True)
        self.capacity = sp.csr_array((vals, (row_index.ravel(), cols)), shape=(len(keep), k))
        self.capacity_rhs = (c / sigma[:, None]).ravel()[keep]
        # G_i = sum_u sigma_u y_iu: row i of `share` times y
        self.share = sp.csr_array((sigma[units], (users, np.arange(k))), shape=(self.n, k))
        self.solved = 0
        self.last = None        # the last LP's y: it holds every user at its final level
        # Proposition 2: with every demand and every capacity positive, no user can rise
        # once the common level stops below every cap (the rise tests can be skipped)
        self.all_positive = bool((d > 0).all() and (c > 0).all())

    def _solve(self, objective, extra, lower, extra_bounds):
        """minimize objective . [y, e] subject to the capacity rows and, per user i,
        G_i >= w_i (lower_i + (extra @ e)_i); e within extra_bounds ((k, 2) array).
        Returns scipy's result (status 0: solved, 2: infeasible)."""
        n_extra = extra.shape[1]
        cap = sp.hstack([self.capacity, sp.csr_array((self.capacity.shape[0], n_extra))])
        lev = sp.hstack([-self.share, sp.csr_array(extra * self.w[:, None])])
        A = sp.vstack([cap, lev]).tocsr()
        b = np.concatenate([self.capacity_rhs, -lower * self.w])
        bounds = np.zeros((self.k + n_extra, 2))
        bounds[:self.k, 1] = np.inf
        bounds[self.k:] = np.reshape(extra_bounds, (n_extra, 2))
        res = scipy.optimize.linprog(objective, A_ub=A, b_ub=b, bounds=bounds,
                                     method=LP_METHOD, options=LP_OPTIONS)
        self.solved += 1
        if res.status not in (0, 2):
            raise RuntimeError(f"HiGHS failed on a DRFH round: {res.message}")
        if res.status == 0:
            self.last = res.x[:self.k]
        return res

    def _solved(self, *args):
        res = self._solve(*args)
        if res.status != 0:
            raise RuntimeError(f"HiGHS found a DRFH round infeasible: {res.message}")
        return res.x[:self.k], res.x[self.k:]

    def max_common(self, active, fixed, hi):
        """The largest t with every active user at level >= t and every other user at
        level >= fixed (hi: a bound on t, inf for none)."""
        obj = np.zeros(self.k + 1)
        obj[-1] = -1.0
        lower = np.where(active, 0.0, fixed)
        _, t = self._solved(obj, active.astype(float)[:, None], lower, [0.0, hi])
        return float(t[0])

    def feasible(self, levels):
        """Whether every user can hold level >= levels at once."""
        return self._solve(np.zeros(self.k), np.zeros((self.n, 0)), levels, []).status == 0

    def placement(self, levels):
        """A placement y holding every user at level >= levels: the last LP's, which does
        (each LP holds every user at least at the level it ends with), else a new one."""
        if self.last is not None and (self.share @ self.last >= levels * self.w * (1 - 1e-9)).all():
            return self.last
        return self._solved(np.zeros(self.k), np.zeros((self.n, 0)), levels, [])[0]

    def risers(self, candidates, t, fixed, caps):
        """Which candidates (all at level t) can rise above t while every other user keeps
        its level (`fixed`): repeatedly maximize the candidates' total rise, removing
        those that rose, until none can (by convexity, users that can rise one at a time
        can rise together, so the rest are blocked)."""
        rises = np.zeros(self.n, dtype=bool)
        left = candidates.copy()
        lower = np.where(candidates, t, fixed)
        while left.any():
            idx = np.flatnonzero(left)
            cols = np.zeros((self.n, len(idx)))
            cols[idx, np.arange(len(idx))] = 1.0
            room = np.column_stack([np.zeros(len(idx)), np.minimum(1.0, caps[idx] - t)])
            obj = np.concatenate([np.zeros(self.k), -np.ones(len(idx))])
            _, e = self._solved(obj, cols, lower, room)
            up = e > RISE_TOL * max(t, 1e-300)
            if not up.any():
                break
            rises[idx[up]] = True
            left[idx[up]] = False
        return rises


def _levels_lp(rounds, caps, bisect):
    """The levels of the progressive rounds (caps: each user's level when its tasks are
    all placed, inf if unbounded). bisect: skip cap events by bisection over the caps."""
    n = rounds.n
    levels = np.zeros(n)
    active = np.ones(n, dtype=bool)
    t = 0.0
    while active.any():
        pending = np.sort(np.unique(caps[active & np.isfinite(caps)]))
        if bisect and len(pending) > 1:
            # the largest cap k_p at which all can hold min(cap, k_p) (monotone in t)
            lo, hi = -1, len(pending) - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                trial = np.where(active, np.minimum(caps, pending[mid]), levels)
                if rounds.feasible(trial):
                    lo = mid
                else:
                    hi = mid - 1
            if lo >= 0:
                done = active & (caps <= pending[lo])
                levels[done] = caps[done]
                active &= ~done
                t = max(t, pending[lo])
                if not active.any():
                    break
        top = caps[active].min()
        t_new = rounds.max_common(active, levels, top)
        t = max(t, t_new)
        finished = active & (caps <= t * (1 + RISE_TOL))
        if finished.any():
            levels[finished] = np.minimum(caps[finished], t)
            active &= ~finished
            continue
        if bisect and rounds.all_positive:
            rising = np.zeros(n, dtype=bool)
        else:
            rising = rounds.risers(active, t, levels, caps)
        blocked = active & ~rising
        levels[blocked] = t
        active &= ~blocked
        if not blocked.any():       # cannot happen for an exact LP; do not loop forever
            raise RuntimeError("DRFH rounds made no progress (numerical trouble in HiGHS)")
    return levels


def _water_fill(a, K, w, caps):
    """Weighted DRF on one pool of capacity K (m,), users' per-task demands a (n, m),
    tasks capped at caps (inf: unbounded), by event-driven progressive filling: levels
    t = tasks * s_i / w_i rise together; a user stops when a resource it demands is
    exhausted or its tasks are all placed. Users with no demand, or demanding a resource
    K lacks, get 0. Returns (tasks (n,), steps)."""
    n, m = a.shape
    uses = a > 0
    ok = uses.any(axis=1) & ~(uses & (K <= 0)).any(axis=1)
    s = (a / np.where(K > 0, K, np.inf)).max(axis=1)
    rate = np.divide(w, s, out=np.zeros(n), where=ok)        # tasks per unit of level
    tasks = np.zeros(n)
    residual = K.astype(float).copy()
    active = ok & (caps > 0)
    t = 0.0
    steps = 0
    while active.any():
        speed = rate[active] @ a[active]                      # resource per unit of level
        grows = speed > 0
        dt_res = np.min(residual[grows] / speed[grows])
        cap_level = caps[active] / rate[active]
        dt_cap = cap_level.min() - t
        dt = min(dt_res, dt_cap)
        tasks[active] += dt * rate[active]
        residual -= dt * speed
        t += dt
        steps += 1
        full = residual <= 1e-12 * K
        residual[full] = 0.0
        done = active & (caps / np.where(rate > 0, rate, 1.0) <= t * (1 + 1e-12))
        tasks[done] = np.minimum(tasks[done], caps[done])
        active &= ~done & ~(uses[:, full].any(axis=1))
    return tasks, steps


def _drfh(a, C, w, caps_tasks, solver):
    """(tasks, unit_tasks, unit_of, unit_size, rounds) of DRFH."""
    n, m = a.shape
    T = C.sum(axis=0)
    K, unit_of, size = _units(C, solver == "aggregate")
    U = len(K)
    uses = a > 0
    eligible = ~(uses[:, None, :] & (K[None, :, :] <= 0)).any(axis=2) & uses.any(axis=1)[:, None]
    ok = eligible.any(axis=1) & (caps_tasks > 0)
    tasks = np.zeros(n)
    unit_tasks = np.zeros((n, U))
    if not ok.any():
        return tasks, unit_tasks, unit_of, size, 0
    Tpos = np.where(T > 0, T, 1.0)
    D = a / Tpos
    s = D.max(axis=1)
    wn = w / w[ok].max()
    if U == 1:
        x, steps = _water_fill(a[ok], K[0], wn[ok], caps_tasks[ok])
        tasks[ok] = x
        unit_tasks[ok, 0] = x
        return tasks, unit_tasks, unit_of, size, steps
    idx = np.flatnonzero(ok)
    d = D[idx] / s[idx, None]
    c = K / Tpos
    # levels scaled by the number of users so that they are O(1) in the LPs
    scale = float(len(idx))
    rounds = _Rounds(d, c, wn[idx] / scale, eligible[idx])
    caps = caps_tasks[idx] * s[idx] / wn[idx] * scale
    levels = _levels_lp(rounds, caps, bisect=solver == "aggregate")
    y = np.maximum(rounds.placement(levels), 0.0)
    g = np.zeros((len(idx), U))
    g[rounds.users, rounds.units] = y * rounds.sigma[rounds.units]
    G = levels * rounds.w                                   # global dominant shares
    held = g.sum(axis=1)
    g *= np.divide(G, held, out=np.zeros_like(G), where=held > 0)[:, None]
    tasks[idx] = G / s[idx]
    unit_tasks[idx] = g / s[idx, None]
    return tasks, unit_tasks, unit_of, size, rounds.solved


# --------------------------------------------------------------------------------------
# Per-server DRF (Sec. III-D)
# --------------------------------------------------------------------------------------

def _per_server_drf(a, C, w, caps_tasks):
    """DRF on each server alone (dominant shares against that server's capacity), every
    server offered each user's whole task count; identical servers get identical results,
    so each configuration is filled once. A user's tasks are counted over the servers in
    input order up to its task count (the tasks a server got beyond that are dropped)."""
    K, unit_of, size = _units(C, True)
    n = len(a)
    per_config = np.zeros((n, len(K)))
    steps = 0
    for u in range(len(K)):
        per_config[:, u], k = _water_fill(a, K[u] / size[u], w, caps_tasks)
        steps += k
    per_server = per_config[:, unit_of]
    if np.isfinite(caps_tasks).any():
        before = np.cumsum(per_server, axis=1) - per_server
        per_server = np.clip(np.minimum(per_server, caps_tasks[:, None] - before), 0.0, None)
    return per_server.sum(axis=1), per_server, np.arange(len(C)), np.ones(len(C)), steps


# --------------------------------------------------------------------------------------
# The entry point
# --------------------------------------------------------------------------------------

def allocate(demands, servers, method="drfh", **options):
    """Divide heterogeneous servers among users with divisible Leontief tasks.

    Bounds: each resource's total over the servers finite; as fractions of those totals, a
    user's task needs between MIN_SHARE (`2**-62`) and `2**62` of its dominant resource, a
    server holds at least `2**-62` of its largest, and a user's (a server's) nonzero
    fractions lie within MAX_RANGE (1e4) of its largest. Users demanding nothing, or some
    resource no server has (no server fits even a part of their task), get 0 tasks and are
    listed in `.no_demand` and `.no_fit`.

    Parameters
    ----------
    demands : array_like, DataFrame or dict of columns
        (users, resources) resources one task of each user needs, absolute units, finite,
        `>= 0`; an array (columns by position) or named columns (a DataFrame with text
        column labels, or a dict of columns).
    servers : array_like, DataFrame or dict of columns
        (servers, resources) each server's capacities, same units, finite, `>= 0`; every
        server with some capacity. Named columns are matched to the demands' names (any
        order; the same names); named servers beside demands by position are refused as
        ambiguous.
    method : str
        "drfh" (problem (7) with Sec. V-A's progressive rounds; see the module docstring) or
        "per-server-drf" (Sec. III-D's naive extension: DRF run on each server alone; a
        user's tasks are the sum over servers, counted in server order up to its task count).
    **options
        `weights`: positive weight per user (Sec. V-A), default all ones, within a factor
        1e9 of each other (drfbench._validation.MAX_WEIGHT_RATIO). `tasks`: tasks per user,
        0 or in [MIN_TASKS, `2**62`] = [`2**-62`, `2**62`] (inf, or None for all:
        unbounded); a user leaves when all are placed. `solver`: for "drfh" only,
        "aggregate" (exact, by configuration; default) or "lp" (the full per-server LP, the
        test oracle). An option a method does not take is refused.

    Returns
    -------
    Allocation

    Raises
    ------
    ValueError
        Bad demands, servers or options, naming the value.
    """
    return api.run(method, demands, servers, takes=SERVERS, **options)


def run_exact(spec, demands, servers, *, weights, tasks, solver="aggregate"):
    """The registry's implementation of drfh and per-server-drf (see `allocate`).

    Parameters
    ----------
    spec : Method
        The method as registered.
    demands, servers, weights, tasks, solver
        As `allocate` takes them, checked and defaulted by the registry.

    Returns
    -------
    Allocation
    """
    method = spec.name
    a, C, w, caps = checked(demands, servers, weights, tasks)
    start = time.perf_counter()
    if method == "drfh":
        x, unit_tasks, unit_of, size, rounds = _drfh(a, C, w, caps, solver)
    else:
        x, unit_tasks, unit_of, size, rounds = _per_server_drf(a, C, w, caps)
        solver = "progressive-filling"
    elapsed = time.perf_counter() - start
    T = C.sum(axis=0)
    s = (a / np.where(T > 0, T, 1.0)).max(axis=1)
    uses = a > 0
    no_demand = ~uses.any(axis=1)
    has = np.unique(C > 0, axis=0)                   # which resources each server has
    fits = (~(uses[:, None, :] & ~has[None, :, :]).any(axis=2)).any(axis=1)
    shares = x * s
    return Allocation(
        tasks=x, shares=shares, level=shares / (w / w.max()), method=method, solver=solver,
        rounds=int(rounds), elapsed=elapsed, no_demand=np.flatnonzero(no_demand),
        no_fit=np.flatnonzero(~no_demand & ~fits),
        finished=np.flatnonzero(np.isfinite(caps) & (x >= caps * (1 - 1e-9))),
        _demands=a, _unit_tasks=unit_tasks, _unit_of=unit_of, _unit_size=size)
