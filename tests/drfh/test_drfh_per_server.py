"""Per-server DRF (Sec. III-D): Fig. 2 transcribed, random heterogeneous instances against
the definition (weighted max-min fair dominant shares on each server alone), and the
family of drfbench.drfh.per_server on which its utilization falls to 0 while DRFH's
stays high (the module's derivation against the solvers), with its pipeline step."""
import numpy as np
import pytest

from drfbench import rows
from drfbench.drfh import allocate, worked_example
from drfbench.drfh.per_server import instance, utilization, utilization_rows


def fig2_transcribed():
    """Sec. III-D's text as NumPy: on server 1 <2 CPU, 12 GB> CPU is both users' dominant
    resource (0.2/2 > 1/12, 1/2 > 0.2/12), so each gets 1 CPU: 1/0.2 = 5 tasks of user 1,
    1/1 = 1 of user 2; server 2 <12 CPU, 2 GB> the same with memory. Returns tasks per
    (user, server)."""
    a = np.array([[0.2, 1.0], [1.0, 0.2]])
    c = np.array([[2.0, 12.0], [12.0, 2.0]])
    tasks = np.zeros((2, 2))
    for l in range(2):
        dominant = np.argmax(a / c[l], axis=1)
        assert (dominant == dominant[0]).all()           # one bottleneck for both
        r = dominant[0]
        tasks[:, l] = (c[l, r] / 2) / a[:, r]             # an equal split of it
    return tasks


def test_fig2_transcribed_and_the_exclusive_servers():
    demands, servers = worked_example()
    literal = fig2_transcribed()
    np.testing.assert_array_equal(literal, [[5, 1], [1, 5]])
    res = allocate(demands, servers, "per-server-drf")
    np.testing.assert_allclose(res.placement, literal, rtol=1e-12)
    np.testing.assert_allclose(res.tasks, [6, 6], rtol=1e-12)
    # server l to user l alone: min over resources of capacity / demand, 10 each
    exclusive = (servers / demands).min(axis=1)
    np.testing.assert_allclose(exclusive, [10, 10])
    np.testing.assert_allclose(allocate(demands, servers, "drfh").tasks, exclusive, rtol=1e-9)


def assert_weighted_drf_on_each_server(a, S, w, placement):
    """The definition, server by server: feasible, users that do not fit get nothing, and
    every other user has a bottleneck, a resource it demands that the server has used up,
    on which no user demanding it holds a higher level (tasks x dominant share of that
    server / weight): progressive filling's max-min fair result, which is unique."""
    for l, cap in enumerate(S):
        x = placement[:, l]
        used = x @ a
        assert (x >= -1e-12).all() and (used <= cap * (1 + 1e-9) + 1e-12).all()
        fits = (a > 0).any(axis=1) & ~((a > 0) & (cap <= 0)).any(axis=1)
        assert (x[~fits] == 0).all()
        share = np.where(fits, (a / np.where(cap > 0, cap, np.inf)).max(axis=1), 0.0)
        level = x * share / w
        full = used >= cap * (1 - 1e-9)
        for i in np.flatnonzero(fits):
            demanded = np.flatnonzero(full & (a[i] > 0))
            top = [level[a[:, r] > 0].max() for r in demanded]
            assert any(level[i] >= t * (1 - 1e-9) for t in top), (l, i, level, used, cap)


def test_random_instances_satisfy_the_definition():
    rng = np.random.default_rng(36)
    for _ in range(200):
        n, m, L = (int(v) for v in rng.integers(1, 6, size=3))
        a = rng.uniform(0.05, 2.0, size=(n, m))
        a[rng.random((n, m)) < 0.25] = 0.0
        a[~(a > 0).any(axis=1), 0] = 1.0
        S = rng.integers(0, 8, size=(L, m)).astype(float)
        S[S.max(axis=1) == 0, 0] = 1.0
        S[:, S.sum(axis=0) == 0] = 1.0                  # every resource somewhere
        w = rng.integers(1, 4, size=n).astype(float)
        res = allocate(a, S, "per-server-drf", weights=w)
        assert_weighted_drf_on_each_server(a, S, w, res.placement)
        np.testing.assert_allclose(res.tasks, res.placement.sum(axis=1), rtol=1e-12)


def test_the_definition_check_rejects_a_wrong_split():
    """The check above can fail: Fig. 2 with server 1's CPUs split 1.5 / 0.5 instead."""
    demands, servers = worked_example()
    wrong = fig2_transcribed()
    wrong[:, 0] = [1.5 / 0.2, 0.5 / 1.0]
    with pytest.raises(AssertionError):
        assert_weighted_drf_on_each_server(demands, servers, np.ones(2), wrong)


# --------------------------------------------------------------------------------------
# The family: per-server DRF's utilization -> 0, DRFH's -> 5/6
# --------------------------------------------------------------------------------------

def psd_utilization(k):
    return (2 + (k - 1) * (5 + 2 * (k - 2) / k + 0.8 / k**2)) / (2 + 6 * k * (k - 1))


def drfh_utilization(k):
    return (2 + 5 * k * (k - 1)) / (2 + 6 * k * (k - 1))


def test_k2_is_fig1():
    demands, servers = instance(2)
    expected = worked_example()
    np.testing.assert_array_equal(demands, expected[0])
    np.testing.assert_array_equal(servers, expected[1])
    assert psd_utilization(2) == pytest.approx(7.2 / 14)     # 5.2 GB of 12 beside 2 of 2
    assert drfh_utilization(2) == pytest.approx(12 / 14)


@pytest.mark.parametrize("k", [2, 3, 5, 12])
def test_the_derivation_against_the_solvers(k):
    demands, servers = instance(k)
    psd = allocate(demands, servers, "per-server-drf")
    np.testing.assert_allclose(psd.tasks, 10 / k + 4 * (k - 1) / k**2, rtol=1e-12)
    np.testing.assert_allclose(utilization(psd, servers), psd_utilization(k), rtol=1e-12)
    for solver in ("aggregate", "lp"):
        drfh = allocate(demands, servers, "drfh", solver=solver)
        np.testing.assert_allclose(drfh.tasks, 10, rtol=1e-7)
        np.testing.assert_allclose(drfh.placement, 10 * np.eye(k), atol=1e-6)
        np.testing.assert_allclose(utilization(drfh, servers), drfh_utilization(k), rtol=1e-7)


def test_instance_refuses_k_outside_its_range():
    for k in (1, 0, 2.5, 257, np.nan, np.inf, "4"):
        with pytest.raises(ValueError, match=r"k must be a whole number in \[2, 256\]"):
            instance(k)


def test_rows_and_the_pipeline_step(tmp_path):
    from drfbench.drfh.__main__ import main
    main(["per-server", "--ks", "2", "4", "--out", str(tmp_path / "ps.csv")])
    table = rows.read(tmp_path / "ps.csv")
    assert table[["k", "method"]].values.tolist() == [
        [2, "per-server-drf"], [2, "drfh"], [4, "per-server-drf"], [4, "drfh"]]
    got = table.set_index(["k", "method"])["utilization"]
    for k in (2, 4):
        assert got[k, "per-server-drf"] == pytest.approx(psd_utilization(k), rel=1e-12)
        assert got[k, "drfh"] == pytest.approx(drfh_utilization(k), rel=1e-7)
    assert utilization_rows([3])[0]["tasks"] == pytest.approx(10 / 3 + 8 / 9)
