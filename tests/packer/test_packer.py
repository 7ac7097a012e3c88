"""Packer, Tetris and slots (drfbench.packer, drfbench/packer/packer.pyx): the model and its checks,
the kernels' scores against the literal Eq. 6-8 (literal.py), every method's decisions
against its literal Algorithm 1, capacity at every instant, rejection leaving nothing
behind, Algorithm 2, and the simulate() contract."""
import json

import numpy as np
import pytest

import drfbench
from drfbench import packer
from drfbench.packer import allocate, kernel, literal
from drfbench.packer.model import dependencies, sort_nodes


def small(seed, servers=None):
    """A random small tree and a loaded workload on it."""
    rng = np.random.default_rng(seed)
    infra = packer.Infrastructure(servers=int(servers or rng.integers(4, 13)),
                                  per_rack=int(rng.integers(2, 5)), racks_per_agg=2,
                                  nic=float(rng.choice([0.5, 1.0])), tor_link=2.0, agg_link=4.0,
                                  service_link=3.0)
    apps = packer.workload(int(rng.integers(8, 16)), seed=seed, rate=float(rng.uniform(0.3, 1.5)),
                           infrastructure=infra)
    return infra, apps


def app(**kw):
    spec = dict(name="a", nodes=["x", "y"], edges=[("x", "y")], duration=3,
                demand=np.ones((2, 3, 4)), bandwidth=np.full((1, 3), 0.1))
    spec.update(kw)
    return packer.application(spec.pop("name"), spec.pop("nodes"), spec.pop("edges"), **spec)


# ---------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------


def test_the_papers_infrastructure():
    infra = packer.Infrastructure()
    assert (infra.servers, infra.racks, infra.aggs) == (1200, 30, 3)
    assert infra.capacity[0].tolist() == [16, 32, 200, 200]
    P = infra.physical
    assert infra.path(0, 0) == []
    assert infra.path(0, 39) == [0, P + 39]                                # same rack
    assert infra.path(0, 40) == [0, 1200, P + 1201, P + 40]                 # same pod
    assert infra.path(0, 400) == [0, 1200, 1230, P + 1231, P + 1210, P + 400]
    assert infra.link_capacity[[0, 1200, 1230, P + 1233]].tolist() == [1, 10, 100, 100]
    assert infra.path(1200, 5) == [1233, P + 1230, P + 1200, P + 5]          # service -> server
    assert len(packer.Infrastructure(servers=50, per_rack=40).path(0, 45)) == 4


def test_workload_is_seeded_and_within_slots():
    a, b = packer.workload(30, seed=3), packer.workload(30, seed=3)
    assert all(x.name == y.name and np.array_equal(x.demand, y.demand)
               and np.array_equal(x.bandwidth, y.bandwidth) for x, y in zip(a, b))
    assert packer.workload(30, seed=4)[0].demand.sum() != a[0].demand.sum()
    slot = packer.Infrastructure().capacity[0] / 4
    assert all((x.demand <= slot).all() and 0 < x.weight <= 1 for x in a)
    assert {x.name.split("-")[0] for x in a} == {"mapreduce", "web"}
    assert [x.arrival for x in a] == sorted(x.arrival for x in a)


def test_json_round_trip_and_hand_written(tmp_path):
    apps = packer.workload(5, seed=1)
    packer.dump_applications(apps, tmp_path / "a.json")
    back = packer.load_applications(tmp_path / "a.json")
    assert all(np.array_equal(x.demand, y.demand) and np.array_equal(x.edges, y.edges)
               and np.array_equal(x.bandwidth, y.bandwidth) and x.weight == y.weight
               for x, y in zip(apps, back))
    spec = {"applications": [{
        "name": "etl", "arrival": 2, "duration": 3, "weight": 0.5,
        "nodes": [{"name": "store", "service": 0},
                  {"name": "map", "demand": {"cpu": [2, 4, 0], "mem": 8}},
                  {"name": "reduce", "demand": {"cpu": [0, 0, 3], "io_write": 20}}],
        "edges": [{"from": "store", "to": "map", "bandwidth": [0.2, 0.2, 0]},
                  {"from": "map", "to": "reduce", "bandwidth": 0.1}]}]}
    (tmp_path / "b.json").write_text(json.dumps(spec))
    (a,) = packer.load_applications(tmp_path / "b.json")
    assert a.tasks == 2 and a.duration == 3 and a.arrival == 2
    assert a.demand[1, :, 0].tolist() == [2, 4, 0] and a.demand[1, :, 1].tolist() == [8, 8, 8]
    assert sort_nodes(a).tolist() == [0, 1, 2]
    res = packer.simulate(packer.Infrastructure(servers=4, per_rack=2), [a], "packer", threads=1)
    assert res.accepted_tasks == 2


@pytest.mark.parametrize("kw, message", [
    (dict(nodes=["x", "y", "z"], edges=[("x", "y"), ("y", "z"), ("z", "x")],
          demand=np.ones((3, 3, 4)), bandwidth=np.zeros((3, 3))), "cycle"),
    (dict(demand=-np.ones((2, 3, 4))), "non-negative"),
    (dict(demand=np.full((2, 3, 4), np.nan)), "finite"),
    (dict(bandwidth=np.full((1, 3), -1.0)), "bandwidth must be non-negative"),
    (dict(demand=np.ones((2, 2, 4))), "instants"),
    (dict(edges=[("x", "w")]), "unknown node 'w'"),
    (dict(edges=[("x", "x")]), "self-loop"),
    (dict(weight=0.0), "weight"),
])
def test_bad_applications(kw, message):
    with pytest.raises(ValueError, match=message):
        app(**kw)


def test_bad_json_and_policy(tmp_path):
    spec = {"name": "s", "duration": 3, "nodes": [{"name": "x", "demand": {"cpu": [1, 2]}}]}
    (tmp_path / "s.json").write_text(json.dumps([spec]))
    with pytest.raises(ValueError, match="2 instants.*duration is 3"):
        packer.load_applications(tmp_path / "s.json")
    spec["nodes"][0]["demand"] = {"gpu": 1}
    (tmp_path / "s.json").write_text(json.dumps([spec]))
    with pytest.raises(ValueError, match="gpu"):
        packer.load_applications(tmp_path / "s.json")
    with pytest.raises(ValueError, match="unknown method 'bestfit'; registered methods taking applications"):
        packer.simulate(packer.Infrastructure(servers=2), [app()], "bestfit")
    with pytest.raises(ValueError, match="service"):
        packer.simulate(packer.Infrastructure(servers=2, services=0),
                        packer.workload(3, seed=0), "packer")


# ---------------------------------------------------------------------------------------
# The kernels against the literal Eq. 6-8, and Algorithm 1 decision by decision
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_kernel_scores_equal_the_literal_transcription(seed):
    infra, apps = small(seed)
    k = kernel.Kernel()
    cluster = allocate.Cluster(infra, max(a.arrival + a.duration for a in apps))
    checked = 0
    for a in apps:
        deps = dependencies(a)
        loc = np.full(len(a.nodes), -1)
        w = packer.resource_weights(cluster, a.arrival)
        placed = allocate.place(cluster, a, "packer", kernel=k)        # loads the cluster
        if placed is None:
            continue
        for v in sort_nodes(a).tolist():                                  # re-score on the final state
            if a.service[v] < 0:
                for method in ("packer", "tetris"):
                    score, ok = allocate._scores(cluster, a, v, deps[v], loc, method, w, k, 1)
                    if len(deps[v]) > 1:
                        ok &= allocate.together(cluster, a, deps[v], loc)
                    lit = (literal.packer_scores(infra, cluster.server, cluster.link, a, v,
                                                   deps[v], loc, w)
                           if method == "packer" else
                           literal.tetris_scores(infra, cluster.server, cluster.link, a, v,
                                                   deps[v], loc))
                    fin = np.isfinite(lit)
                    assert not (fin & ~ok).any()                  # the kernel keeps every feasible server
                    np.testing.assert_allclose(score[fin], lit[fin], rtol=1e-10, atol=1e-12)
                    checked += fin.sum()
            loc[v] = placed[v]
    assert checked > 0


@pytest.mark.parametrize("method", drfbench.methods(takes="applications"))
@pytest.mark.parametrize("seed", range(5))
def test_decisions_equal_the_literal_algorithm(method, seed):
    infra, apps = small(seed)
    res = packer.simulate(infra, apps, method, threads=1)
    ref = literal.Reference(infra, res.server.shape[1], method)
    for a, p in zip(res.applications, res.placements):
        q = ref.place(a)
        assert (p is None) == (q is None), a.name
        if p is not None:
            assert p.tolist() == q.tolist(), a.name
    assert res.accepted.any()


def usage(res):
    """Server and link reservations rebuilt from the placements alone (of what each
    application was told: its requests)."""
    infra, H = res.infrastructure, res.server.shape[1]
    used = np.zeros((infra.servers, H, 4))
    link = np.zeros((infra.links, H))
    for a, p in zip(res.requests, res.placements):
        if p is None:
            continue
        win = slice(a.arrival, a.arrival + a.duration)
        for v, n in enumerate(p.tolist()):
            if n < infra.servers:
                used[n, win] += a.demand[v]
        for e, (u, v) in enumerate(a.edges.tolist()):
            for l in infra.path(int(p[u]), int(p[v])):
                link[l, win] += a.bandwidth[e]
    return used, link


@pytest.mark.parametrize("method", drfbench.methods(takes="applications"))
def test_capacity_never_exceeded(method):
    for seed in range(3):
        infra, apps = small(100 + seed)
        res = packer.simulate(infra, apps, method, threads=1)
        used, link = usage(res)
        assert (used <= infra.capacity[:, None, :] * (1 + 1e-9)).all()
        assert (link <= infra.link_capacity[:, None] * (1 + 1e-9)).all()
        np.testing.assert_allclose(res.server, infra.capacity[:, None, :] - used, atol=1e-9)
        np.testing.assert_allclose(res.link, infra.link_capacity[:, None] - link, atol=1e-9)
        assert res.peak_server_utilization <= 1 + 1e-9 and res.peak_link_utilization <= 1 + 1e-9
        if method == "slots":
            assert res.peak_server_utilization < 1.0      # four slots never fill a server


def test_rejected_application_leaves_nothing_behind():
    infra = packer.Infrastructure(servers=2, per_rack=1)
    first = packer.workload(6, seed=2, rate=5.0, infrastructure=infra)
    cluster = allocate.Cluster(infra, 80)
    k = kernel.Kernel()
    rejected = 0
    for a in first:
        before = (cluster.server.copy(), cluster.link.copy(), cluster.slots.copy())
        for method in drfbench.methods(takes="applications"):
            got = allocate.place(cluster, a, method, kernel=k)
            if got is None:
                rejected += 1
                assert np.array_equal(cluster.server, before[0])
                assert np.array_equal(cluster.link, before[1])
                assert np.array_equal(cluster.slots, before[2])
            before = (cluster.server.copy(), cluster.link.copy(), cluster.slots.copy())
    assert rejected > 0
    # a node that fits nowhere after its siblings were placed: the whole app goes
    big = app(nodes=["x", "y", "z"], edges=[("x", "y")], demand=np.full((3, 3, 4), 9.0),
              bandwidth=np.zeros((1, 3)))
    cluster = allocate.Cluster(infra, 3)
    assert allocate.place(cluster, big, "packer", kernel=k) is None
    assert np.array_equal(cluster.server, allocate.Cluster(infra, 3).server)


def test_threads_do_not_change_results():
    infra, apps = small(7, servers=24)
    for method in drfbench.methods(takes="applications"):
        one = packer.simulate(infra, apps, method, threads=1)
        two = packer.simulate(infra, apps, method, threads=2)
        assert [None if p is None else p.tolist() for p in one.placements] == \
               [None if p is None else p.tolist() for p in two.placements]
        assert np.array_equal(one.server, two.server)


def test_resource_weights():
    infra = packer.Infrastructure(servers=2, per_rack=1)
    cluster = allocate.Cluster(infra, 2)
    assert packer.resource_weights(cluster, 0).tolist() == [1.0] * 5       # idle
    cluster.server[:, 0, 0] = 0.0                                          # CPU full
    w = packer.resource_weights(cluster, 0)
    assert w[0] == 0.0 and np.allclose(w[1:], 1.0)
    cluster.server[:, 0, 1] = 16.0                                          # memory half used
    w = packer.resource_weights(cluster, 0)
    assert np.allclose(w, [1 - 1 / 1.5, 1 - 0.5 / 1.5, 1, 1, 1])


# ---------------------------------------------------------------------------------------
# Algorithm 2
# ---------------------------------------------------------------------------------------


def test_algorithm2_guarantees_and_work_conservation():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 8))
        cap = float(rng.uniform(0.5, 2.0))
        g = rng.dirichlet(np.ones(n)) * cap * rng.uniform(0.3, 1.0)       # Σ g <= capacity
        d = g * rng.uniform(0.0, 3.0, n)
        w = rng.uniform(0.05, 1.0, n)
        r = packer.work_conserving(cap, g, d, w)
        assert (r >= np.minimum(g, d) - 1e-12).all()                        # guarantees met
        assert (r <= d + 1e-12).all() and r.sum() <= cap * (1 + 1e-9)
        if (r < d - 1e-9).any():                                            # someone hungry:
            assert r.sum() == pytest.approx(cap, rel=1e-9)                  # the link is full
        else:
            assert np.allclose(r, d)


def test_algorithm2_weights_split_the_surplus():
    r = packer.work_conserving(4.0, [0.0, 0.0], [10.0, 10.0], [1.0, 3.0])
    assert r.tolist() == pytest.approx([1.0, 3.0])                          # line 8: 1:3
    r = packer.work_conserving(4.0, [0.5, 0.5], [0.8, 10.0], [1.0, 1.0])
    assert r.tolist() == pytest.approx([0.8, 3.2])                          # satisfied one leaves
    r = packer.work_conserving(1.0, [0.3, 0.3, 0.2], [0.1, 0.6, 0.6], [1.0, 0.5, 1.0])
    assert r.tolist() == pytest.approx([0.1, 0.3 + 0.4 / 3, 0.2 + 0.8 / 3])
    with pytest.raises(ValueError, match="demand must be non-negative"):
        packer.work_conserving(1.0, [0.1], [-1.0], [1.0])


# ---------------------------------------------------------------------------------------
# The contract
# ---------------------------------------------------------------------------------------


def test_the_contract():
    infra = packer.Infrastructure(servers=80)
    apps = packer.workload(40, seed=0, rate=4.0, infrastructure=infra)
    results = {p: packer.simulate(infra, apps, method=p, threads=1) for p in drfbench.methods(takes="applications")}
    for p, res in results.items():
        assert 0 < res.accepted_tasks <= res.submitted_tasks == sum(a.tasks for a in apps)
        assert len(res.allocation_seconds) == len(apps) and (res.allocation_seconds > 0).all()
        assert 0 < res.peak_server_utilization <= 1 and 0 < res.peak_link_utilization <= 1
        table = res.rows()
        assert len(table) == res.server.shape[1]
        assert table[-1]["submitted_tasks"] == res.submitted_tasks
        assert table[-1]["accepted_tasks"] == res.accepted_tasks
        assert {"util_cpu", "util_band", "revenue", "git_commit"} <= set(table[0])
        assert res.revenue().sum() == pytest.approx(sum(
            packer.revenue(a, infra).sum() for a, q in zip(res.applications, res.placements)
            if q is not None))
    busiest = np.bincount(np.concatenate([q[q < 80] for q in results["packer"].placements
                                          if q is not None])).argmax()
    rates = results["packer"].server_rates(int(busiest), seed=0)
    assert rates and all(r["rate"] >= min(r["guarantee"], r["demand"]) - 1e-12 for r in rates)


def test_the_registry_lists_the_application_policies():
    import drfbench
    assert drfbench.methods(takes="applications") == ("packer", "tetris", "packer-slots")
    infra = packer.Infrastructure(servers=4, per_rack=2)
    a = packer.workload(3, seed=0, infrastructure=infra)
    via_registry = drfbench.run("packer-slots", infra, a, threads=1)
    assert via_registry.method == "packer-slots"
    assert via_registry.placements[0].tolist() == packer.simulate(infra, a, "packer-slots").placements[0].tolist()
    with pytest.raises(ValueError, match="takes no option slots"):
        packer.simulate(infra, a, "packer-slots", slots=4)
    with pytest.raises(ValueError, match="drfbench.packer.simulate"):
        drfbench.allocate(np.ones((2, 2)) / 2, "tetris")


def test_fig2_application_and_same_seed_same_result():
    """The structure of the paper's Fig. 2 (its numbers are lost): T1, T2 read from STS1; T3
    depends on T1, T2 and CS1; T4 reads from STS2; T5 depends on T3, T4 and writes to STS3."""
    names = ["STS1", "STS2", "STS3", "CS1", "T1", "T2", "T3", "T4", "T5"]
    edges = [("STS1", "T1"), ("STS1", "T2"), ("T1", "T3"), ("T2", "T3"), ("CS1", "T3"),
             ("STS2", "T4"), ("T3", "T5"), ("T4", "T5"), ("T5", "STS3")]
    T = 6
    demand = np.zeros((9, T, 4))
    for i, (lo, hi) in zip(range(4, 9), [(0, 2), (0, 2), (2, 4), (0, 3), (4, 6)]):
        demand[i, lo:hi] = [2, 4, 10, 10]
    active = (demand > 0).any(axis=2)
    bandwidth = np.array([0.1 * active[names.index(v if v.startswith("T") else u)] for u, v in edges])
    a = packer.application("fig2", names, edges, duration=T, service=[0, 1, 2, 3] + [None] * 5,
                           demand=demand, bandwidth=bandwidth)
    order = [a.nodes[v] for v in sort_nodes(a)]
    for u, v in edges:
        assert order.index(u) < order.index(v)
    assert order.index("T4") < order.index("T3")          # T4 starts first among the ready ones
    infra = packer.Infrastructure(servers=8, per_rack=4, services=4)
    for method in drfbench.methods(takes="applications"):
        one = packer.simulate(infra, [a], method)
        assert one.accepted_tasks == 5 and (one.placements[0][:4] == [8, 9, 10, 11]).all()
    apps = packer.workload(12, seed=5, rate=2.0, infrastructure=infra)
    r1, r2 = (packer.simulate(infra, apps, "packer") for _ in range(2))
    assert [None if p is None else p.tolist() for p in r1.placements] == \
           [None if p is None else p.tolist() for p in r2.placements]
