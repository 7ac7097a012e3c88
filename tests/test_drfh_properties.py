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
    capacity included): a policy off by 1% fails it, on the user it shorts."""
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
