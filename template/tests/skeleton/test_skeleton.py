"""The skeleton family (the template): its method against DRF's definition on small
random instances, its bad input, its command's rows."""
import numpy as np
import pytest

from drfbench.skeleton import share
from cases import seeds


@pytest.mark.parametrize("seed", seeds(20))
def test_dominant_shares_are_equal_and_a_resource_runs_out(seed):
    rng = np.random.default_rng(seed)
    demands = rng.random((rng.integers(1, 6), rng.integers(1, 5))) + 0.01
    result = share(demands, scale=0.5)
    a = result.allocation
    assert np.allclose(a.max(axis=1), result.share)                  # equal dominant shares
    assert np.allclose(a * demands.max(axis=1)[:, None], result.share * demands)  # in proportion
    assert np.isclose(a.sum(axis=0).max(), 0.5)                       # the busiest is given out


@pytest.mark.parametrize("demands,message", [([[0.0, 0.0]], "every user must demand"),
                                             ([[1.0, -1.0]], "non-negative")])
def test_bad_demands_are_named(demands, message):
    with pytest.raises(ValueError, match=message):
        share(demands)


def test_scale_out_of_bounds_is_refused():
    with pytest.raises(ValueError, match=r"scale must lie in \(0, 1\]"):
        share([[0.5, 0.5]], scale=2)
