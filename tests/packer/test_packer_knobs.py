"""Packer's knobs (drfbench.packer): what a method is told (view), the load's shape over time
(temporal) and binding resource (bottleneck), Packer's readings of Eq. 6-8 (score). Each
changes what it should and nothing else: the peak view reserves each node's peak over its
whole span, the shapes have their phase structure, every reading equals its literal
transcription decision by decision, capacity holds under every combination; unknown values
are refused naming the knob and its choices."""
import numpy as np
import pytest

import drfbench
from drfbench import packer
from drfbench.packer import allocate, kernel, literal
from drfbench.packer.model import active_span, dependencies, request, sort_nodes
from drfbench.packer.workload import BOTTLENECK, PHASES, TEMPORAL, TROUGH

from test_packer import small, usage

SCORES = list(allocate.SCORES)
METHODS = drfbench.methods(takes="applications")


def placements(res):
    return [None if p is None else p.tolist() for p in res.placements]


# ---------------------------------------------------------------------------------------
# view: what a method is told
# ---------------------------------------------------------------------------------------


def test_peak_view_holds_each_peak_over_the_whole_span():
    for a in packer.workload(40, seed=1, temporal="phased"):
        r = request(a, "peak")
        assert request(a, "ti-mra") is a
        assert r.edges is a.edges and r.arrival == a.arrival and r.weight == a.weight
        for v in range(len(a.nodes)):
            lo, hi = active_span(a, v)
            assert active_span(r, v) == (lo, hi)
            assert (r.demand[v, lo:hi] == a.demand[v].max(axis=0)).all()
            assert (r.demand[v, :lo] == 0).all() and (r.demand[v, hi:] == 0).all()
        for e, (u, v) in enumerate(a.edges.tolist()):
            on = r.bandwidth[e] > 0
            assert (r.bandwidth[e, on] == a.bandwidth[e].max()).all()
            assert (a.bandwidth[e] <= r.bandwidth[e]).all()              # covers every instant
            assert set(np.flatnonzero(on)) <= set(range(*active_span(a, u))) & set(range(*active_span(a, v)))
        assert (a.demand <= r.demand).all()


@pytest.mark.parametrize("method", METHODS)
def test_peak_view_reserves_the_peaks_and_counts_what_is_used(method):
    infra, apps = small(3, servers=10)
    res = packer.simulate(infra, apps, method, view="peak", threads=1)
    assert res.view == "peak" and res.requests is not res.applications
    told = packer.simulate(infra, [request(a, "peak") for a in apps], method, threads=1)
    assert placements(res) == placements(told)                      # placed as the peaks
    assert np.array_equal(res.server, told.server) and np.array_equal(res.link, told.link)
    # the reservations, rebuilt from the placements, are each node's peak over its span
    server, link = usage(res)
    np.testing.assert_allclose(infra.capacity[:, None, :] - server, res.server, atol=1e-9)
    np.testing.assert_allclose(infra.link_capacity[:, None] - link, res.link, atol=1e-9)
    # utilization counts what the applications use; revenue what they reserved
    np.testing.assert_allclose(res.utilization(reserved=True), told.utilization())
    assert (res.utilization() <= res.utilization(reserved=True) + 1e-12).all()
    assert (res.utilization() < res.utilization(reserved=True) - 1e-6).any()
    assert res.revenue().sum() == pytest.approx(told.revenue().sum())
    assert res.revenue(used=True).sum() < res.revenue().sum()
    same = packer.simulate(infra, apps, method, threads=1)
    assert same.requests is same.applications
    np.testing.assert_array_equal(same.utilization(), same.utilization(reserved=True))


def test_view_is_per_policy_in_the_evaluation():
    infra = packer.Infrastructure(servers=8, per_rack=4)
    from drfbench.packer.evaluation import evaluate
    _, _, summary, _ = evaluate(infra, 10, 2.0, 0.5, [0], METHODS, steady=(0, 2),
                                views={"tetris": "peak"})
    assert {r["method"]: r["view"] for r in summary} == {"packer": "ti-mra", "tetris": "peak",
                                                          "packer-slots": "ti-mra"}


def test_the_evaluation_gives_an_option_to_the_methods_that_take_it():
    """score (Packer's) reaches Packer's runs only; an option no method declares is refused."""
    infra = packer.Infrastructure(servers=8, per_rack=4)
    from drfbench.packer.evaluation import evaluate
    _, _, summary, _ = evaluate(infra, 10, 2.0, 0.5, [0], METHODS, steady=(0, 2),
                                score="per-path")
    assert {r["method"]: r["score"] for r in summary} == {"packer": "per-path", "tetris": None,
                                                           "packer-slots": None}
    with pytest.raises(TypeError, match="evaluate takes no option bogus"):
        evaluate(infra, 10, 2.0, 0.5, [0], METHODS, steady=(0, 2), bogus=1)


def test_the_sensitivity_study_gives_its_options_to_the_methods_that_take_them():
    """The view and threads reach every method's runs (the view recorded), the readings
    Packer's only; an option no method declares is refused, naming it."""
    infra = packer.Infrastructure(servers=8, per_rack=4)
    from drfbench.packer.evaluation import sensitivity
    rows = sensitivity(infra, 10, 2.0, 0.5, [0], METHODS, ["literal", "per-path"],
                       temporal="jitter", bottleneck="network", view="peak", threads=1)
    assert sorted((r["method"], r["view"], r["score"]) for r in rows) == [
        ("packer", "peak", "literal"), ("packer", "peak", "per-path"),
        ("packer-slots", "peak", None), ("tetris", "peak", None)]
    with pytest.raises(TypeError, match="sensitivity takes no option bogus"):
        sensitivity(infra, 10, 2.0, 0.5, [0], METHODS, ["literal"], temporal="jitter",
                    bottleneck="network", bogus=1)


def test_the_evaluation_summarizes_the_steady_state_and_the_drain_apart():
    from drfbench.packer.evaluation import APPS_INSTANTS, evaluate, summarize, windows
    infra = packer.Infrastructure(servers=8, per_rack=4)
    apps = packer.workload(60, seed=3, rate=3.0, infrastructure=infra)
    res = packer.simulate(infra, apps, "packer", threads=1)
    last, H = max(a.arrival for a in apps), res.server.shape[1]
    spans = windows(apps, (4, 12))
    assert spans == {"steady": (4, 12), "drain": (last + 1, H), "run": (0, H)}
    # the windows partition the run: the parts' totals add up to the run's
    parts = [summarize(res, w) for w in ((0, 4), (4, 12), (12, last + 1), (last + 1, H))]
    run = summarize(res)
    for key in ("submitted_tasks", "accepted_tasks", "revenue", "revenue_used"):
        assert sum(p[key] for p in parts) == pytest.approx(run[key])
    assert run["submitted_tasks"] == res.submitted_tasks and parts[-1]["submitted_tasks"] == 0
    steady = [a for a in apps if 4 <= a.arrival < 12]
    accepted = [a for a, p in zip(res.applications, res.placements) if p is not None and 4 <= a.arrival < 12]
    assert parts[1]["acceptance"] == sum(a.tasks for a in accepted) / sum(a.tasks for a in steady)
    assert parts[1]["mean_util_cpu"] == pytest.approx(res.utilization()[4:12, 0].mean())
    assert np.isnan(parts[-1]["median_allocation_seconds"])      # no arrivals in the drain
    with pytest.raises(ValueError, match=rf"steady window \[4, {last + 2}\) must lie within the arrivals"):
        windows(apps, (4, last + 2))
    series, table, summary, _ = evaluate(infra, 60, 3.0, 0.5, [3, 4], METHODS, steady=(4, 12),
                                         every=3)
    assert {r["time"] % 3 for r in series} == {0}
    assert {(r["window"], r["window_from"], r["window_to"]) for r in summary
            if r["seed"] == 3} == {("steady", 4, 12), ("drain", last + 1, H), ("run", 0, H)}
    assert {r["seed"] for r in table} == {3}
    assert all(4 <= r["arrival"] < 4 + APPS_INSTANTS for r in table)


# ---------------------------------------------------------------------------------------
# temporal, bottleneck: the workload
# ---------------------------------------------------------------------------------------


def test_the_same_applications_under_every_shape_and_bottleneck():
    base = packer.workload(30, seed=2)
    for temporal in TEMPORAL:
        for bottleneck in BOTTLENECK:
            apps = packer.workload(30, seed=2, temporal=temporal, bottleneck=bottleneck)
            for a, b in zip(base, apps, strict=True):
                assert (a.name, a.nodes, a.arrival, a.weight) == (b.name, b.nodes, b.arrival, b.weight)
                assert np.array_equal(a.edges, b.edges)
                assert np.array_equal(a.demand > 0, b.demand > 0)       # the same spans
                assert np.array_equal(a.bandwidth > 0, b.bandwidth > 0)
    for a, b in zip(base, packer.workload(30, seed=2, bottleneck="compute")):
        np.testing.assert_allclose(b.bandwidth, a.bandwidth * BOTTLENECK["compute"])
        assert np.array_equal(a.demand, b.demand)


def test_phased_mapreduce_is_the_jitter_times_its_stages_levels():
    """Map: CPU- and disk-read-heavy; shuffle (the reduce phase's first half, while the
    mappers send): network-heavy, little computing; reduce: disk-write-heavy. Each
    resource's demand is the jitter shape's times its stage's level; web services have no
    stages."""
    phased, jitter = packer.workload(40, seed=4, temporal="phased"), packer.workload(40, seed=4)
    checked = 0
    for a, b in zip(phased, jitter):
        if a.name.startswith("web"):
            assert np.array_equal(a.demand, b.demand) and np.array_equal(a.bandwidth, b.bandwidth)
            continue
        maps = [i for i, n in enumerate(a.nodes) if n.startswith("map")]
        reds = [i for i, n in enumerate(a.nodes) if n.startswith("reduce")]
        lm = int(np.flatnonzero(a.bandwidth[[e for e, (u, v) in enumerate(a.edges.tolist())
                                             if u in maps and v in reds]].any(axis=0))[0])
        end = int(np.flatnonzero(a.bandwidth[[e for e, (u, v) in enumerate(a.edges.tolist())
                                              if u in maps and v in reds]].any(axis=0))[-1]) + 1
        for rows, stage, span in ((maps, "map", slice(0, lm)), (reds, "shuffle", slice(lm, end)),
                                  (reds, "reduce", slice(end, a.duration))):
            got, base = a.demand[rows, span], b.demand[rows, span]
            np.testing.assert_allclose(got, base * np.array(PHASES[stage]), rtol=1e-12)
            checked += 1
        assert np.array_equal(a.bandwidth, b.bandwidth)                 # the shuffle: network
    assert checked
    assert PHASES["map"][0] == PHASES["map"][3] == max(PHASES["map"])  # CPU, disk read
    assert PHASES["shuffle"][0] == min(PHASES["shuffle"])              # little computing
    assert PHASES["reduce"][2] == max(PHASES["reduce"])                # disk write


def test_complementary_resources_peak_at_different_times():
    apps = packer.workload(40, seed=5, temporal="complementary")
    phases = set()
    for a in apps:
        for v in np.flatnonzero(a.service < 0).tolist():
            d = a.demand[v][a.demand[v].any(axis=1)]                       # its window
            if len(d) >= 5 and (d.max(axis=0) > 0).all():
                ratio = d / d.max(axis=0)
                assert ratio.min() >= TROUGH - 1e-12 and ratio.max() == pytest.approx(1)
                assert len(set(d.argmax(axis=0).tolist())) >= 3             # resources apart
        if a.name.startswith("web"):
            phases.add(int(a.demand[0, :, 0].argmax() * 8 // a.duration))
    assert len(phases) >= 4            # applications peak at different times of their runs


def test_unknown_knob_values_name_the_knob_and_its_choices():
    infra = packer.Infrastructure(servers=4, per_rack=2)
    apps = packer.workload(2, seed=0, infrastructure=infra)
    for call, knob in ((lambda: packer.workload(2, temporal="sine"), "temporal"),
                       (lambda: packer.workload(2, bottleneck="disk"), "bottleneck"),
                       (lambda: packer.simulate(infra, apps, "tetris", view="hose"), "view"),
                       (lambda: packer.simulate(infra, [], "packer", score="argmin"), "score"),
                       (lambda: request(apps[0], "average"), "view")):
        with pytest.raises(ValueError, match=rf"^{knob} must be one of '") as err:
            call()
        assert "got '" in str(err.value)
    with pytest.raises(ValueError, match="'literal', 'best-fit', 'per-path', 'bottleneck'"):
        packer.simulate(infra, apps, "packer", score="max")
    with pytest.raises(ValueError, match="takes no option score"):
        packer.simulate(infra, apps, "tetris", score="literal")
    with pytest.raises(TypeError, match="place takes no option bogus; its options: score"):
        allocate.place(allocate.Cluster(infra, 10), apps[0], "packer", bogus=1)
    assert drfbench.api.method_info("packer").defaults()["score"] == "literal"
    assert drfbench.api.method_info("tetris").defaults()["view"] == "ti-mra"
    assert tuple(allocate.SCORES) == drfbench.api.method_info("packer").options["score"].choices


# ---------------------------------------------------------------------------------------
# score: the readings of Eq. 6-8 against their literal transcriptions
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("score", SCORES)
def test_kernel_scores_equal_the_literal_reading(score):
    k = kernel.Kernel()
    checked = 0
    for seed in range(3):
        infra, apps = small(seed)
        cluster = allocate.Cluster(infra, max(a.arrival + a.duration for a in apps))
        for a in apps:
            deps = dependencies(a)
            w = packer.resource_weights(cluster, a.arrival)
            placed = allocate.place(cluster, a, "packer", score=score, kernel=k)
            if placed is None:
                continue
            loc = np.full(len(a.nodes), -1)
            for v in sort_nodes(a).tolist():
                if a.service[v] < 0:
                    got, ok = allocate._scores(cluster, a, v, deps[v], loc, "packer", w, k, 1, score)
                    if len(deps[v]) > 1:
                        ok &= allocate.together(cluster, a, deps[v], loc)
                    lit = literal.packer_scores(infra, cluster.server, cluster.link, a, v,
                                                deps[v], loc, w, score)
                    fin = np.isfinite(lit)
                    assert not (fin & ~ok).any()
                    np.testing.assert_allclose(got[fin], lit[fin], rtol=1e-10, atol=1e-12)
                    checked += fin.sum()
                loc[v] = placed[v]
    assert checked > 0


@pytest.mark.parametrize("score", SCORES)
def test_each_reading_decides_as_its_literal_transcription(score):
    for seed in range(5):
        infra, apps = small(seed)
        if seed >= 3:
            apps = packer.workload(12, seed=seed, rate=1.0, infrastructure=infra,
                                   temporal=TEMPORAL[seed - 2])
        res = packer.simulate(infra, apps, "packer", score=score, threads=1)
        assert res.score == score and res.accepted.any()
        ref = literal.Reference(infra, res.server.shape[1], "packer", score)
        for a, p in zip(res.applications, res.placements):
            q = ref.place(a)
            assert (p is None) == (q is None) and (p is None or p.tolist() == q.tolist()), a.name


def test_the_readings_differ_where_the_paper_is_ambiguous():
    """Two idle servers in one rack, a node depending on a node on server 0: as written,
    Eq. 8 adds terms per link, so the path to the other server outscores staying local;
    read per path or by the bottleneck link, staying local (no link) scores as an idle
    link, the most. As written, Eq. 7's maximum takes the emptier server; best fit the
    fuller one."""
    infra = packer.Infrastructure(servers=3, per_rack=3)
    a = packer.application("a", ["x", "y"], [("x", "y")], duration=2,
                           demand=np.full((2, 2, 4), 1.0), bandwidth=np.full((1, 2), 0.1))
    cluster = allocate.Cluster(infra, 2)
    cluster.server[2, :, :] -= 2.0                                    # server 2 fuller
    loc = np.array([0, -1])
    k = kernel.Kernel()
    w = np.ones(5)
    best = {}
    for score in SCORES:
        value, ok = allocate._scores(cluster, a, 1, dependencies(a)[1], loc, "packer", w, k, 1, score)
        best[score] = int(np.argmax(np.where(ok, value, -np.inf)))
    assert best["literal"] == 1                      # away from x, the emptier server
    assert best["per-path"] == best["bottleneck"] == 0      # beside x
    assert best["best-fit"] == 2                     # the fuller server, away from x


# ---------------------------------------------------------------------------------------
# capacity under every combination
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("temporal", TEMPORAL)
@pytest.mark.parametrize("bottleneck", list(BOTTLENECK))
def test_capacity_never_exceeded_under_any_combination(temporal, bottleneck):
    infra = packer.Infrastructure(servers=8, per_rack=2, racks_per_agg=2, tor_link=2.0,
                                  agg_link=4.0, service_link=3.0)
    apps = packer.workload(14, seed=7, rate=1.5, infrastructure=infra, temporal=temporal,
                           bottleneck=bottleneck)
    for method in METHODS:
        for view in ("ti-mra", "peak"):
            for score in (SCORES if method == "packer" else [None]):
                res = packer.simulate(infra, apps, method, view=view, threads=1,
                                      **({"score": score} if score else {}))
                server, link = usage(res)
                assert (server <= infra.capacity[:, None, :] * (1 + 1e-9)).all()
                assert (link <= infra.link_capacity[:, None] * (1 + 1e-9)).all()
                assert res.peak_server_utilization <= 1 + 1e-9
                assert res.peak_link_utilization <= 1 + 1e-9
                assert res.accepted.any()
