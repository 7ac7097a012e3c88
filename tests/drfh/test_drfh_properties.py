"""drfbench.drfh.properties, Sec. IV's properties on heterogeneous servers: DRFH keeps
Propositions 1 to 4 and fails the dedicated-cloud sharing incentive somewhere (counted and
listed); per-server DRF is not Pareto optimal on Fig. 1; a malformed instance is refused."""
from types import SimpleNamespace

import numpy as np
import pytest

from drfbench.drfh import allocate
from drfbench.drfh import properties as props


def test_drfh_properties_hold_and_sharing_incentive_fails_somewhere():
    pool = [props.fig1_instance(), *props.random_server_instances(25, seed=1)]
    for check in (props.server_pareto_efficiency, props.server_envy_freeness):
        assert check("drfh", pool).holds, check
    assert props.server_strategy_proofness("drfh", pool[:8]).holds
    assert props.single_server_drf(
        "drfh", props.random_server_instances(15, seed=2, kind="single-server")).holds
    found = []
    v = props.dedicated_sharing_incentive("drfh", props.random_server_instances(40, seed=0),
                                          collect=found)
    assert not v.holds and v.violated == len(found) > 0      # counted and listed, not hidden
    assert "dedicated" in str(found[0])


def test_per_server_drf_is_not_pareto_optimal_on_fig1():
    v = props.server_pareto_efficiency("per-server-drf", props.fig1_instance())
    assert not v.holds
    assert v.worst == pytest.approx(2 / 3)                  # both users could run 10, not 6
    np.testing.assert_allclose(v.counterexample.details["better"], [10, 10], rtol=1e-6)


def test_single_server_drf_compares_with_registered_drf():
    """The single-server check's DRF is the registry's "drf" (demands above one server's
    capacity included): a method off by 1% fails it, on the user it shorts."""
    pool = list(props.random_server_instances(5, seed=3, kind="single-server"))
    assert any((inst.demands > inst.servers.sum(axis=0)).any() for inst in pool)
    assert props.single_server_drf("drfh", pool).holds

    def short_first(a, C, w, x):
        tasks = allocate(a, C, "drfh", weights=w, tasks=x).tasks
        return SimpleNamespace(tasks=np.where(np.arange(len(tasks)) == 0, 0.99 * tasks, tasks))
    v = props.single_server_drf(short_first, pool)
    assert v.violated == 5 and v.worst == pytest.approx(0.01)
    assert v.counterexample.details["user"] == 0


def test_bad_server_instances_are_refused():
    with pytest.raises(ValueError, match="must demand something"):
        props.server_instance([[1, 0], [0, 0]], [[2, 2]])
    with pytest.raises(ValueError, match="resource"):
        props.server_instance([[1, 0]], [[2, 2, 2]])


def test_drfh_keeps_propositions_5_to_7():
    """Single-resource fairness, bottleneck fairness and population monotonicity, each on
    random instances of the kind it applies to; population monotonicity only where every
    user demands every resource (the paper's assumption): with zero demands a user leaving
    unblocks another, which takes more of what a third needed."""
    for check, kind in ((props.server_single_resource_fairness, "single-resource"),
                        (props.server_bottleneck_fairness, "bottleneck")):
        pool = list(props.random_server_instances(15, seed=4, kind=kind))
        v = check("drfh", pool)
        assert v.holds and v.checked == len(pool), (check, v)
    v = props.server_population_monotonicity(
        "drfh", props.random_server_instances(15, seed=5, zeros=0))
    assert v.holds and v.checked == 15
    v = props.server_population_monotonicity("drfh", props.random_server_instances(15, seed=5))
    assert not v.holds and (v.counterexample.instance.demands == 0).any()


def test_max_min_fairness_across_servers():
    """One resource, servers of 4 and 2 units, tasks of 1 and 2 units: max-min fairness
    gives each user 3 units, 3 and 1.5 tasks, whichever server they sit on; two tasks
    each is not max-min fair (user 0 could run 4, taking only from the richer user 1,
    who keeps user 0's share of 2 units)."""
    inst = props.server_instance([[1.0], [2.0]], [[4.0], [2.0]])
    np.testing.assert_allclose(allocate(inst.demands, inst.servers, "drfh").tasks, [3, 1.5])
    assert props.server_single_resource_fairness("drfh", inst).holds
    v = props.server_single_resource_fairness(
        lambda a, C, w, x: SimpleNamespace(tasks=np.array([2.0, 2.0])), inst)
    assert not v.holds and v.worst == pytest.approx(1.0)
    assert v.counterexample.details["user"] == 0
    # a second resource nobody lacks: memory makes CPU every user's bottleneck
    both = props.server_instance([[1.0, 0.1], [2.0, 0.1]], [[4.0, 10.0], [2.0, 10.0]])
    assert props.server_bottleneck_fairness("drfh", both).holds
    assert not props.server_bottleneck_fairness(
        lambda a, C, w, x: SimpleNamespace(tasks=np.array([2.0, 2.0])), both).holds
    # neither applies where the users' dominant resources differ (Fig. 1)
    assert props.server_bottleneck_fairness("drfh", props.fig1_instance()).checked == 0


def test_population_monotonicity_finds_a_user_losing_when_another_leaves():
    def fewer_alone(a, C, w, x):            # every user runs as many tasks as there are users
        return SimpleNamespace(tasks=np.full(len(a), float(len(a))))
    v = props.server_population_monotonicity(fewer_alone, props.fig1_instance())
    assert not v.holds and v.worst == pytest.approx(0.5)
    assert "leaves" in v.counterexample.description
