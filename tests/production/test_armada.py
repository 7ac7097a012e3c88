"""drfbench.production.armada against armada's own unit tests (armadaproject/armada at
commit 207cc9e04ef07aaeacfb446d1517446bb702a8e6):

- internal/scheduler/scheduling/context/scheduling_test.go: TestCalculateFairShares (11
  cases), TestCalculateTheoreticalShare (6), TestCalculateFairnessError (6);
- internal/scheduler/scheduling/fairness/fairness_test.go: TestDominantResourceFairness
  (11 cases).

Each case keeps its upstream name as the test id. Upstream compares shares with
assert.Equal (exact floats); here they are compared to 1e-12, since the sums run in the
caller's queue order where upstream sorts queues by name.
"""
import numpy as np
import pytest

from drfbench.production import armada

APPROX = dict(rel=1e-12, abs=1e-15)

# TestCalculateFairShares: (capacity in cpu, [(weight, demand in cpu)], fair shares,
# demand-capped adjusted fair shares, uncapped adjusted fair shares), queues A, B, C.
FAIR_SHARES = {
    "one queue, demand exceeds capacity":
        (100, [(1, 1000)], [1.0], [1.0], [1.0]),
    "one queue, demand less than capacity":
        (100, [(1, 1)], [1.0], [0.01], [1.0]),
    "two queues, equal weights, demand exceeds capacity":
        (100, [(1, 1000), (1, 1000)], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]),
    "two queues, equal weights, demand less than capacity for both queues":
        (100, [(1, 1), (1, 1)], [0.5, 0.5], [0.01, 0.01], [0.99, 0.99]),
    "two queues, equal weights, demand less than capacity for one queue":
        (100, [(1, 1), (1, 1000)], [0.5, 0.5], [0.01, 0.99], [0.5, 0.99]),
    "two queues, non equal weights, demand exceeds capacity for both queues":
        (100, [(1, 1000), (3, 1000)], [0.25, 0.75], [0.25, 0.75], [0.25, 0.75]),
    "two queues, non equal weights, demand exceeds capacity for higher priority queue only":
        (100, [(1, 1), (3, 1000)], [0.25, 0.75], [0.01, 0.99], [0.25, 0.99]),
    "two queues, non equal weights, demand exceeds capacity for lower priority queue only":
        (100, [(1, 1000), (3, 1)], [0.25, 0.75], [0.99, 0.01], [0.99, 0.75]),
    "three queues, equal weights. Adjusted fair share requires multiple iterations":
        (100, [(1, 1), (1, 40), (1, 1000)], [1 / 3] * 3, [0.01, 0.4, 0.59],
         [0.3808333333333333, 0.495, 0.59]),
    "No demand":
        (100, [(1, 0)] * 3, [1 / 3] * 3, [0.0] * 3, [1.0] * 3),
    "No capacity":
        (0, [(1, 1)] * 3, [1 / 3] * 3, [1 / 3] * 3, [1 / 3] * 3),
}


@pytest.mark.parametrize("name", list(FAIR_SHARES))
def test_calculate_fair_shares(name):
    capacity, queues, fair, capped, uncapped = FAIR_SHARES[name]
    w = [q[0] for q in queues]
    demands = [[q[1]] for q in queues]
    got = armada.fair_shares([capacity], w, demands)
    for value, expected in zip(got, (fair, capped, uncapped)):
        assert value.tolist() == pytest.approx(expected, **APPROX)


# TestCalculateTheoreticalShare: 100 cpu, the queues as (weight, demand in cpu), a new
# queue of priority factor 1 with infinite demand, its expected demand-capped share.
THEORETICAL = {
    "Cluster Empty": ([], 1.0),
    "One user": ([(1, 1000)], 0.5),
    "Two users": ([(1, 1000), (1, 1000)], 1 / 3),
    "One user with lower priority": ([(0.5, 1000)], 2 / 3),
    "One user with higher priority": ([(2, 1000)], 1 / 3),
    "One user with a low demand": ([(1, 1)], 0.99),
}


@pytest.mark.parametrize("name", list(THEORETICAL))
def test_calculate_theoretical_share(name):
    queues, expected = THEORETICAL[name]
    demands = np.array([[q[1]] for q in queues], dtype=float).reshape(-1, 1)
    got = armada.theoretical_share([100], [q[0] for q in queues], demands, 1.0)
    assert got == pytest.approx(expected, abs=1e-6)     # upstream: InDelta 1e-6


# TestCalculateFairnessError: 100 cpu, (allocated cpu, demand-capped adjusted fair
# share) per queue, the expected error.
FAIRNESS_ERROR = {
    "one queue, no error": ([(50, 0.5)], 0.0),
    "two queues, no error": ([(50, 0.5), (50, 0.5)], 0.0),
    "one queue with error": ([(40, 0.5)], 0.1),
    "two queues with error": ([(40, 0.5), (10, 0.5)], 0.5),
    "above fair share is not counted": ([(100, 0.5)], 0.0),
    "empty": ([], 0.0),
}


@pytest.mark.parametrize("name", list(FAIRNESS_ERROR))
def test_calculate_fairness_error(name):
    queues, expected = FAIRNESS_ERROR[name]
    allocated = np.array([[q[0]] for q in queues], dtype=float).reshape(-1, 1)
    actual = armada.cost(allocated, [100]) if queues else []
    got = armada.fairness_error([q[1] for q in queues], actual)
    assert got == pytest.approx(expected, abs=1e-5)     # upstream: InDelta 1e-5


# TestDominantResourceFairness: total foo=1, bar=2, baz=3 (bar=0 where named), the
# considered resources' multipliers (foo, bar, baz), allocation, weight, expected cost.
# Upstream's config maps a multiplier <= 0 to 1 ("experimental config defaults multipliers
# to one"); a resource left out of the config has multiplier 0 here.
DRF_COST = {
    "single resource 1": ((1, 2, 3), (1, 1, 0), (0.5, 0, 0), 1.0, 0.5),
    "single resource 2": ((1, 2, 3), (1, 1, 0), (0, 0.5, 0), 1.0, 0.25),
    # upstream's case has the same config and values as "single resource 2": the pool
    # override it names is not set, so it checks nothing more.
    "pool override - experimental resource": ((1, 2, 3), (1, 1, 0), (0, 0.5, 0), 1.0, 0.25),
    "multiple resources": ((1, 2, 3), (1, 1, 0), (0.5, 1.1, 0), 1.0, 1.1 / 2),
    "considered resources": ((1, 2, 3), (1, 1, 0), (0.5, 0, 3), 1.0, 0.5),
    "zero available resource": ((1, 0, 3), (1, 1, 0), (0.5, 2.0, 0), 1.0, 0.5),
    "weight": ((1, 2, 3), (1, 1, 0), (0.5, 0, 0), 2.0, 0.25),
    "experimental config": ((1, 2, 3), (1, 1, 0), (0.5, 1.1, 0), 1.0, 1.1 / 2),
    "experimental config defaults multipliers to one":
        ((1, 2, 3), (1, 1, 0), (0.5, 1.1, 0), 1.0, 1.1 / 2),
    "experimental config non-unit multiplier": ((1, 2, 3), (4, 1, 0), (0.5, 1.1, 0), 1.0, 2.0),
    "pool override - experimental config": ((1, 2, 3), (1, 0.5, 0), (0.5, 2, 0), 1.0, 0.5),
}


@pytest.mark.parametrize("name", list(DRF_COST))
def test_dominant_resource_fairness(name):
    total, multipliers, allocation, weight, expected = DRF_COST[name]
    assert armada.cost(allocation, total, multipliers, weight) == pytest.approx(expected,
                                                                                **APPROX)


def test_weight_is_inverse_priority_factor():
    """The queue weight 1 / priority factor (queue.go's Weight), fed to the fair share."""
    w = armada.queue_weights([1.0, 1 / 3])
    assert w.tolist() == pytest.approx([1.0, 3.0])
    fair, _, _ = armada.fair_shares([100], w, [[1000], [1000]])
    assert fair.tolist() == pytest.approx([0.25, 0.75])


@pytest.mark.parametrize("call, message", [
    (lambda: armada.queue_weights([1.0, 0.0]), "priority_factors must be finite and positive"),
    (lambda: armada.fair_shares([100], [1, 1], [[1]]), "weights has 2 queues, demands 1"),
    (lambda: armada.fair_shares([100], [1], [[-1]]), "demands must be non-negative"),
    (lambda: armada.cost([1, 2], [1]), "allocation must be"),
    (lambda: armada.fairness_error([0.5], [0.1, 0.2]), "adjusted has 1 queues, actual 2"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()
