"""Exact DRFH (drfbench.drfh.allocate): the paper's worked example, the aggregated solver
against the full per-server LP and against a literal transcription of the rounds, single
server DRF, bad input, and the pipeline's steps (Sec. IV's properties:
test_drfh_properties.py)."""
import numpy as np
import pytest
import scipy.optimize

import drfbench
from drfbench import drf
from drfbench.drfh import allocate, worked_example
from drfbench.drfh.properties import CHECKS


# --------------------------------------------------------------------------------------
# A literal transcription of Sec. V-A's rounds (dense, one LP per round and per user)
# --------------------------------------------------------------------------------------

def literal_drfh(a, C, w=None, tasks=None):
    """Tasks per user: the levels t = G_i / w_i of active users rise together (problem (7)
    with the others held); a user leaves when its tasks are placed or when, alone, it
    cannot rise above t with everyone else held."""
    a, C = np.asarray(a, float), np.asarray(C, float)
    n, m = a.shape
    L = len(C)
    w = np.ones(n) if w is None else np.asarray(w, float)
    x = np.full(n, np.inf) if tasks is None else np.asarray(tasks, float)
    T = C.sum(axis=0)
    D = np.divide(a, T, out=np.zeros_like(a), where=T > 0)
    s = D.max(axis=1)
    fits = np.array([any(all(C[l, r] > 0 for r in range(m) if a[i, r] > 0) for l in range(L))
                     for i in range(n)])
    live = (s > 0) & fits & (x > 0)
    with np.errstate(invalid="ignore"):
        caps = np.where(live, x * s / w, 0.0)
    level = np.zeros(n)
    active = live.copy()
    nv = n * L                                   # g_il, user-major

    def solve(objective_extra, lower):
        """Maximize the extra variables' sum: extra e_j raises user j's lower bound."""
        k = len(objective_extra)
        c = np.concatenate([np.zeros(nv), -np.ones(k)])
        A, b = [], []
        for l in range(L):
            for r in range(m):
                row = np.zeros(nv + k)
                for i in range(n):
                    if live[i] and s[i] > 0:
                        row[i * L + l] = D[i, r] / s[i]
                A.append(row)
                b.append(C[l, r] / T[r] if T[r] > 0 else 0.0)
        for i in range(n):
            row = np.zeros(nv + k)
            row[i * L:(i + 1) * L] = -1.0
            for j, user in enumerate(objective_extra):
                if user == i:
                    row[nv + j] = w[i]
            A.append(row)
            b.append(-w[i] * lower[i])
        bounds = [(0, None if live[i] else 0) for i in range(n) for _ in range(L)]
        bounds += [(0, 10.0)] * k
        res = scipy.optimize.linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds,
                                     method="highs")
        assert res.status == 0, res.message
        return res.x[nv:]

    t = 0.0
    while active.any():
        # maximize the common rise e of the active users' level t, up to the smallest cap
        c = np.concatenate([np.zeros(nv), [-1.0]])
        A, b = [], []
        for l in range(L):
            for r in range(m):
                row = np.zeros(nv + 1)
                for i in range(n):
                    if live[i]:
                        row[i * L + l] = D[i, r] / s[i]
                A.append(row)
                b.append(C[l, r] / T[r] if T[r] > 0 else 0.0)
        for i in range(n):
            row = np.zeros(nv + 1)
            row[i * L:(i + 1) * L] = -1.0
            if active[i]:
                row[nv] = w[i]
            A.append(row)
            b.append(-w[i] * (t if active[i] else level[i]))
        bounds = [(0, None if live[i] else 0) for i in range(n) for _ in range(L)]
        bounds += [(0, caps[active].min() - t)]
        res = scipy.optimize.linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds,
                                     method="highs")
        assert res.status == 0, res.message
        t += res.x[-1]
        done = active & (caps <= t * (1 + 1e-9))
        if done.any():
            level[done] = caps[done]
            active &= ~done
            continue
        for j in np.flatnonzero(active):       # can j alone rise, the others held at t?
            lower = np.where(active, t, level)
            if solve([j], lower)[0] <= 1e-7 * t:
                level[j] = t
                active[j] = False
    return np.divide(level * w, s, out=np.zeros(n), where=s > 0)


def random_instance(rng, users=(1, 5), resources=(1, 3), configs=(1, 3), servers=(1, 6)):
    """Servers drawn from a few integer configurations (so duplicates abound), demands
    uniform with a quarter zero, optional weights and finite task counts."""
    n = int(rng.integers(users[0], users[1] + 1))
    m = int(rng.integers(resources[0], resources[1] + 1))
    cfg = rng.integers(0, 6, size=(int(rng.integers(configs[0], configs[1] + 1)), m)).astype(float)
    cfg[cfg.max(axis=1) == 0, 0] = 1.0
    S = cfg[rng.integers(0, len(cfg), size=int(rng.integers(servers[0], servers[1] + 1)))]
    a = rng.uniform(0.1, 2.0, size=(n, m))
    a[rng.random((n, m)) < 0.25] = 0.0
    w = rng.integers(1, 4, size=n).astype(float) if rng.random() < 0.5 else None
    x = (np.where(rng.random(n) < 0.4, rng.integers(0, 8, size=n), np.inf)
         if rng.random() < 0.6 else None)
    return a, S, w, x


def assert_feasible(res, S):
    used = res.allocation.sum(axis=0)
    assert (res.allocation >= -1e-12).all()
    assert (used <= S * (1 + 1e-7) + 1e-9).all()


# --------------------------------------------------------------------------------------
# The paper's worked example (Fig. 1 to 3)
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("solver", ["aggregate", "lp"])
def test_worked_example_drfh_gives_each_user_a_whole_server(solver):
    demands, servers = worked_example()
    res = allocate(demands, servers, "drfh", solver=solver)
    np.testing.assert_allclose(res.tasks, [10, 10], rtol=1e-9)
    np.testing.assert_allclose(res.placement, [[10, 0], [0, 10]], atol=1e-9)
    np.testing.assert_allclose(res.shares, [5 / 7, 5 / 7], rtol=1e-9)   # 10 GB of 14, 10 CPU of 14
    np.testing.assert_allclose(res.allocation.sum(axis=0), [[2, 10], [10, 2]], atol=1e-9)


def test_worked_example_per_server_drf_gives_six_each():
    demands, servers = worked_example()
    res = allocate(demands, servers, "per-server-drf")
    np.testing.assert_allclose(res.tasks, [6, 6], rtol=1e-12)
    np.testing.assert_allclose(res.placement, [[5, 1], [1, 5]], rtol=1e-12)   # Fig. 2
    np.testing.assert_allclose(res.allocation[:, 0, 0], [1, 1], rtol=1e-12)  # CPUs of server 1


# --------------------------------------------------------------------------------------
# Exactness: aggregated solver = full per-server LP = the literal rounds
# --------------------------------------------------------------------------------------

def test_aggregate_equals_full_lp_on_random_instances():
    rng = np.random.default_rng(19)
    for _ in range(250):
        a, S, w, x = random_instance(rng)
        fast = allocate(a, S, weights=w, tasks=x)
        full = allocate(a, S, weights=w, tasks=x, solver="lp")
        np.testing.assert_allclose(fast.tasks, full.tasks, rtol=1e-6, atol=1e-9,
                                   err_msg=f"{a!r}, {S!r}, {w!r}, {x!r}")
        assert_feasible(fast, S)
        assert_feasible(full, S)
        if x is not None:
            assert (fast.tasks <= x * (1 + 1e-9)).all()


def test_solvers_equal_the_literal_rounds():
    rng = np.random.default_rng(7)
    for _ in range(60):
        a, S, w, x = random_instance(rng, users=(1, 4), servers=(1, 4))
        expected = literal_drfh(a, S, w, x)
        for solver in ("aggregate", "lp"):
            got = allocate(a, S, weights=w, tasks=x, solver=solver).tasks
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9,
                                       err_msg=f"{solver}: {a!r}, {S!r}, {w!r}, {x!r}")


def test_many_users_with_caps_take_the_bisection_path():
    rng = np.random.default_rng(3)
    a = rng.uniform(0.1, 1.0, size=(40, 2))
    S = np.array([[4.0, 1.0], [1.0, 4.0], [2.0, 2.0]])[rng.integers(0, 3, size=30)]
    x = rng.integers(1, 6, size=40).astype(float)
    fast = allocate(a, S, tasks=x)
    full = allocate(a, S, tasks=x, solver="lp")
    np.testing.assert_allclose(fast.tasks, full.tasks, rtol=1e-6)
    assert fast.rounds < full.rounds


def test_positive_demands_unbounded_tasks_equalize_every_level():
    """Problem (7) itself: one common weighted global dominant share."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        a = rng.uniform(0.1, 1.0, size=(4, 3))
        S = rng.uniform(0.5, 5.0, size=(3, 3))[rng.integers(0, 3, size=8)]
        w = rng.integers(1, 4, size=4).astype(float)
        res = allocate(a, S, weights=w)
        np.testing.assert_allclose(res.shares / w, (res.shares / w)[0], rtol=1e-7)


# --------------------------------------------------------------------------------------
# Special cases and the result's contract
# --------------------------------------------------------------------------------------

def test_one_server_is_drf():
    rng = np.random.default_rng(11)
    for _ in range(60):
        m = int(rng.integers(1, 4))
        a = rng.uniform(0.05, 1.0, size=(int(rng.integers(1, 6)), m))
        a[rng.random(a.shape) < 0.25] = 0.0
        a[~(a > 0).any(axis=1), 0] = 0.5
        cap = rng.uniform(1.0, 10.0, size=m)
        w = rng.integers(1, 4, size=len(a)).astype(float)
        expected = drf.utilities(a / cap, drf.drf(a / cap, w))
        for servers in (cap[None, :], np.tile(cap / 3, (3, 1))):   # one server, or 3 equal
            for solver in ("aggregate", "lp"):
                res = allocate(a, servers, weights=w, solver=solver)
                np.testing.assert_allclose(res.tasks, expected, rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(allocate(a, cap[None, :], "per-server-drf", weights=w).tasks,
                                   expected, rtol=1e-9, atol=1e-12)


def test_users_with_no_demand_or_no_fitting_server_get_nothing_and_are_named():
    servers = np.array([[4.0, 4.0, 0.0], [2.0, 8.0, 0.0]])      # no GPU anywhere
    demands = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 2.0, 0.0]])
    for solver in ("aggregate", "lp"):
        res = allocate(demands, servers, solver=solver)
        assert res.no_demand.tolist() == [1]
        assert res.no_fit.tolist() == [2]
        assert res.tasks[1] == 0 and res.tasks[2] == 0
        assert res.tasks[0] > 0 and res.tasks[3] > 0
    # a user that some servers cannot host runs only on the others
    res = allocate([[1.0, 1.0]], [[4.0, 0.0], [2.0, 2.0]])
    np.testing.assert_allclose(res.placement, [[0.0, 2.0]], atol=1e-9)


def test_finite_tasks_leave_and_the_rest_continue():
    demands, servers = worked_example()
    res = allocate(demands, servers, tasks=[3, np.inf])
    assert res.tasks[0] == pytest.approx(3)
    # user 1's 3 tasks best stay on server 1 (0.6 CPU, 3 GB); user 2 then runs 1.4 tasks
    # there (CPU) and 10 on server 2 (memory)
    assert res.tasks[1] == pytest.approx(11.4)
    assert res.finished.tolist() == [0]
    assert_feasible(res, servers)


def test_registry_and_bad_input():
    assert drfbench.methods(takes="servers")[:2] == ("drfh", "per-server-drf")
    demands, servers = worked_example()
    cases = [
        (dict(demands=[[-1, 1], [1, 1]]), "non-negative"),
        (dict(demands=[[np.nan, 1], [1, 1]]), "finite"),
        (dict(demands=[[np.inf, 1], [1, 1]]), "finite"),
        (dict(servers=[[1, -2], [1, 1]]), "non-negative"),
        (dict(servers=[[np.nan, 2], [1, 1]]), "finite"),
        (dict(servers=[[np.inf, 2], [1, 1]]), "finite"),
        (dict(servers=[[0, 0], [1, 1]]), "no capacity at all"),
        (dict(servers=[[1, 1, 1]]), "servers must have 2 resource"),
        (dict(demands=[1, 1]), "2-D"),
        (dict(method="no-such-method"), "unknown method 'no-such-method'"),
        (dict(solver="simplex"), "solver must be one of 'aggregate', 'lp'; got 'simplex'"),
        (dict(weights=[1, 0]), "weights"),
        (dict(weights=[1, np.nan]), "weights"),
        (dict(weights=[1, 2, 3]), "weights"),
        (dict(tasks=[1, -1]), r"tasks must be 0 or in \[2\*\*-62, 2\*\*62\]"),
        (dict(tasks=[1, np.nan]), r"tasks must be 0 or in \[2\*\*-62, 2\*\*62\]"),
        (dict(tasks=[1, 2, 3]), "one count per user"),
    ]
    for change, message in cases:
        args = dict(demands=demands, servers=servers, method="drfh", weights=None, tasks=None)
        args.update(change)
        with pytest.raises(ValueError, match=message):
            allocate(args.pop("demands"), args.pop("servers"), **args)


def test_same_input_same_result():
    rng = np.random.default_rng(2)
    a, S, w, x = random_instance(rng, users=(5, 5), configs=(3, 3), servers=(6, 6))
    first, second = allocate(a, S, weights=w, tasks=x), allocate(a, S, weights=w, tasks=x)
    np.testing.assert_array_equal(first.tasks, second.tasks)
    np.testing.assert_array_equal(first.allocation, second.allocation)


def test_property_table_and_pipeline_steps(tmp_path):
    from drfbench.drfh.__main__ import main
    from drfbench import rows
    main(["examples", "--out", str(tmp_path / "ex.csv")])
    ex = rows.read(tmp_path / "ex.csv")
    totals = ex.groupby(["method", "user"])["tasks"].first()
    assert totals.loc["drfh"].tolist() == [10.0, 10.0]
    assert totals.loc["per-server-drf"].tolist() == [6.0, 6.0]
    main(["properties", "--instances", "3", "--out", str(tmp_path / "pr.csv")])
    table = rows.read(tmp_path / "pr.csv")
    assert set(table["property"]) == set(CHECKS.checks)
    assert sorted(set(table["zeros"])) == [0.0, 0.2]     # one table per fraction of zeros
    assert len(table) == 2 * 2 * len(CHECKS.checks)
