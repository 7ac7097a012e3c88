"""drfbench.drf.properties, the DRF lecture's properties: every check on instances where the
answer is known both ways — a method that satisfies the property and one that violates it —
plus the plumbing, the table and its pipeline step."""
import numpy as np
import pytest
import scipy.sparse as sp

import drfbench
from drfbench import drf
from drfbench.drf import properties as props
from drfbench.drf.__main__ import main
from drfbench.properties import misreports

LECTURE = props.lecture_instance()
ASSET = props.asset_instance()


def positive(count=15, seed=0, **kw):
    return list(props.random_instances(count, seed=seed, zeros=0.0, **kw))


def mixed(count=15, seed=0, **kw):
    return list(props.random_instances(count, seed=seed, zeros=0.3, **kw))


def equal_split(demands, weights=None):
    """Every user gets w_i / W of every resource: wasteful, but monotone and fair."""
    D = np.asarray(demands)
    w = np.ones(len(D)) if weights is None else np.asarray(weights)
    return np.repeat((w / w.sum())[:, None], D.shape[1], axis=1)


def half_drf(demands, weights=None):
    return 0.5 * drf.drf(demands, weights)


def favour_first(demands, weights=None):
    """DRF with user 0 weighted 3x, whatever the weights say."""
    w = np.ones(len(demands))
    w[0] = 3.0
    return drf.drf(demands, w)


def proportional(demands, weights=None):
    """Tasks in proportion to... nothing fair: x_i equal for everyone (equal task counts)."""
    D = np.asarray(demands)
    x = 1.0 / D.sum(axis=0).max()
    return x * D


# --- the eight properties, both ways -----------------------------------------------------

def test_share_guarantee():
    assert props.share_guarantee(drf.drf, [LECTURE, ASSET, *mixed()])
    assert props.share_guarantee(drf.ceei, [LECTURE, ASSET, *mixed()])
    v = props.share_guarantee(drf.asset_fairness, ASSET)
    assert not v and v.violated == 1
    assert v.counterexample.details["user"] == 0                       # 15 tasks < 17.5
    assert v.counterexample.details["tasks"] == [15.0, 20.0]
    np.testing.assert_allclose(v.worst, 1 - 15 / 17.5)
    assert not props.share_guarantee(proportional, [[0.5, 0.01], [0.01, 0.5], [0.1, 0.1]])


def test_strategy_proofness():
    assert props.strategy_proofness(drf.drf, [LECTURE, ASSET, *mixed(8)])
    v = props.strategy_proofness(drf.ceei, LECTURE)
    assert not v
    d = v.counterexample.details
    assert d["user"] == 1 and d["misreport_tasks"] > d["truthful_tasks"] == pytest.approx(18 / 11)
    # the lecture's own misreport <3 CPU, 2 GB> is among those tried, and it gains
    reports = misreports(LECTURE.demands[1], np.random.default_rng(0))
    assert any(np.allclose(r, [3 / 9, 2 / 18]) for r in reports)


def test_pareto_efficiency():
    for method in (drf.drf, drf.ceei, drf.asset_fairness, props.method_of("edrf")):
        assert props.pareto_efficiency(method, [LECTURE, *mixed()])
    v = props.pareto_efficiency(half_drf, LECTURE)
    assert not v and v.worst == pytest.approx(11 / 6)   # user 0: 1.5 tasks, 2.75 more in free memory
    # wasting what nobody needs does not break efficiency
    def drf_plus_waste(D, w=None):
        A = drf.drf(D, w)
        A[0] += 1.0 - A.sum(axis=0)
        return A
    assert props.pareto_efficiency(drf_plus_waste, [LECTURE, *mixed()])


def test_envy_freeness():
    for method in (drf.drf, drf.ceei, drf.asset_fairness):
        assert props.envy_freeness(method, [LECTURE, ASSET, *mixed()])
    v = props.envy_freeness(favour_first, [[0.5, 0.5], [0.5, 0.5]])
    assert not v and v.counterexample.details["envied"] == 0
    assert v.worst == pytest.approx(2.0)                               # 3/4 against 1/4


def test_single_resource_fairness():
    single = list(props.random_instances(10, kind="single"))
    for method in (drf.drf, drf.ceei, drf.asset_fairness, props.method_of("dcdrf", epsilon=0.1)):
        v = props.single_resource_fairness(method, single)
        assert v and v.checked == 10
    assert not props.single_resource_fairness(proportional, [[0.1], [0.5]])
    # instances with two demanded resources do not count
    assert props.single_resource_fairness(proportional, LECTURE).checked == 0
    assert props.single_resource_fairness(proportional, [[0.1, 0], [0.5, 0]]).checked == 1


def test_bottleneck_resource_fairness():
    bottleneck = list(props.random_instances(10, kind="bottleneck"))
    for method in (drf.drf, drf.ceei):
        v = props.bottleneck_resource_fairness(method, bottleneck)
        assert v and v.checked == 10
    v = props.bottleneck_resource_fairness(drf.asset_fairness, [[1, 0.9], [1, 0.1]])
    assert not v and v.counterexample.details["resource"] == 0
    assert props.bottleneck_resource_fairness(drf.drf, LECTURE).checked == 0   # no common bottleneck


def test_population_monotonicity():
    assert props.population_monotonicity(drf.drf, positive(20))
    assert props.population_monotonicity(equal_split, mixed())
    assert not props.population_monotonicity(drf.ceei, positive(20))
    # with zero demands DRF's later rounds break it: B leaves, C grows and squeezes A
    v = props.population_monotonicity(drf.drf, [[0, 1], [1, 0], [1, 0.5]])
    assert not v
    assert v.counterexample.details == {"leaving": 1, "user": 0, "before": [0.75, 0.5, 0.5],
                                        "after": [0.666667, 0.666667]}


def test_resource_monotonicity():
    assert props.resource_monotonicity(equal_split, mixed())
    # <1 CPU, 2 GB> and <2 CPU, 1 GB> on <4 CPU, 4 GB>: with 8 CPUs user 0 drops from 4/3 to 1
    v = props.resource_monotonicity(drf.drf, [[0.25, 0.5], [0.5, 0.25]])
    assert not v
    d = v.counterexample.details
    assert d["user"] == 0 and d["resource"] == 0 and d["before"][0] == pytest.approx(4 / 3)
    assert not props.resource_monotonicity(drf.ceei, positive(10))
    assert not props.resource_monotonicity(drf.asset_fairness, positive(10))


# --- DC-DRF and weights ------------------------------------------------------------------

def test_dcdrf_through_allocate_as_a_policy():
    def dcdrf_policy(D, w):
        return drfbench.allocate(D, "dcdrf", epsilon=0.2, weights=w, threads=1)   # an AllocationResult
    pool = mixed(25, seed=3)
    assert props.envy_freeness(dcdrf_policy, pool)
    assert props.share_guarantee(dcdrf_policy, pool)
    assert not props.pareto_efficiency(dcdrf_policy, pool)             # epsilon is left unused
    assert props.pareto_efficiency(props.method_of("dcdrf", epsilon=0.0), pool)


def test_weighted_instances():
    pool = list(props.random_instances(15, seed=4, weighted=True, zeros=0.2))
    assert all(inst.weights is not None for inst in pool)
    for check in (props.share_guarantee, props.envy_freeness, props.pareto_efficiency,
                  props.strategy_proofness):
        assert check(drf.drf, pool), check.__name__
    assert not props.envy_freeness(lambda D, w: drf.drf(D), pool)      # ignoring the weights


def test_check_runs_every_property():
    verdicts = props.CHECKS.check(drf.drf, count=5, seed=1, zeros=0.0)
    assert set(verdicts) == set(props.CHECKS.checks)
    assert [p for p, v in verdicts.items() if not v] == ["resource_monotonicity"]


# --- plumbing ----------------------------------------------------------------------------

def test_instances_in_every_form():
    D = [[0.1, 0.2], [0.3, 0.1]]
    for form in (D, np.array(D), sp.csr_array(np.array(D)), (D, [1, 2]), props.instance(D),
                 [np.array(D), np.array(D)], (np.array(D) for _ in range(3))):
        v = props.envy_freeness(drf.drf, form)
        assert v and v.checked >= 1
    assert props.envy_freeness(drf.drf, (np.array(D) for _ in range(3))).checked == 3


def test_one_argument_policies_and_other_outputs():
    v = props.share_guarantee(lambda D: sp.csr_array(drf.drf(D)), LECTURE)
    assert v and v.method == "<lambda>"
    with pytest.raises(ValueError, match="takes no weights"):
        props.share_guarantee(lambda D: drf.drf(D), props.instance([[0.1], [0.2]], [1, 2]))


def test_infeasible_or_malformed_allocations_are_errors():
    with pytest.raises(props.InfeasibleAllocation, match="resource 0"):
        props.share_guarantee(lambda D, w: np.ones_like(D), LECTURE)
    with pytest.raises(props.InfeasibleAllocation, match="negative"):
        props.share_guarantee(lambda D, w: -np.ones_like(D), LECTURE)
    with pytest.raises(ValueError, match="shape"):
        props.share_guarantee(lambda D, w: np.ones(3), LECTURE)


def test_bad_instances_are_refused():
    with pytest.raises(ValueError, match="demand nothing"):
        props.instance([[0.1, 0.2], [0, 0]])
    with pytest.raises(ValueError, match="non-negative"):
        props.instance([[-0.1, 0.2]])
    with pytest.raises(ValueError, match="positive finite numbers"):
        props.from_cluster([[1, 2]], [0, 3])


def test_table_reproduces_the_lecture_on_positive_demands():
    rows = props.CHECKS.table({"Asset": drf.asset_fairness, "CEEI": drf.ceei, "DRF": drf.drf},
                              count=8, seed=0, zeros=0.0)
    assert len(rows) == 24
    disagree = [(r["method"], r["property"]) for r in rows if not r["agrees"]]
    assert disagree == []


def test_cli_writes_table_and_examples(tmp_path):
    out, ex = tmp_path / "t.csv", tmp_path / "e.csv"
    main(["properties", "--out", str(out), "--examples", str(ex), "--instances", "2",
          "--epsilons", "0.1", "--zeros", "0", "--methods", "asset-fairness", "ceei", "drf", "edrf",
          "dcdrf"])
    lines = out.read_text().splitlines()
    assert lines[0].startswith("zeros,method,property,property_name,holds")
    assert len(lines) == 1 + 5 * 8                                     # 5 methods x 8 properties
    examples = ex.read_text()
    assert "CEEI, user 2 reports <3 CPU, 2 GB>" in examples and "online DRF (tasks)" in examples


def test_table_rows_come_from_the_registry():
    """One row per method, once per epsilon for those taking one, labelled as in the
    lecture's table; the registry's methods agree with the direct NumPy ones."""
    methods = props.table_methods(["asset-fairness", "ceei", "drf", "edrf", "dcdrf"], [0.01, 0.1])
    assert list(methods) == ["Asset", "CEEI", "DRF", "EDRF", "DC-DRF eps=0.01", "DC-DRF eps=0.1"]
    np.testing.assert_allclose(methods["CEEI"](LECTURE.demands), drf.ceei(LECTURE.demands), rtol=1e-12)
    with pytest.raises(ValueError, match="takes tasks, not demands"):
        props.method_of("online-drf")
