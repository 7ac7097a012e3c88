"""Metrics on hand-computed examples."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import drfbench
from drfbench.dcdrf import metrics

BASE = sp.csr_array(np.array([[0.2, 0.4], [0.5, 0.1], [0.0, 0.0], [0.3, 0.3]]))
# Tenant 0 gets half its baseline, tenant 1 exactly it, tenant 3 20% more.
TEST = sp.csr_array(np.array([[0.1, 0.2], [0.5, 0.1], [0.0, 0.0], [0.36, 0.36]]))


def test_dominant_shares_skip_empty_rows():
    np.testing.assert_allclose(metrics.dominant_shares(BASE), [0.4, 0.5, 0.0, 0.3])


def test_utilization():
    assert metrics.utilization(BASE) == pytest.approx(1.8)
    assert metrics.utilization_ratio(TEST, BASE) == pytest.approx(1.62 / 1.8)


def test_fairness_is_sd_of_relative_deviation():
    dev = np.array([-0.5, 0.0, 0.2])                 # tenant 2 has no baseline share
    np.testing.assert_allclose(metrics.relative_deviation(TEST, BASE), dev)
    assert metrics.fairness(TEST, BASE) == pytest.approx(dev.std())
    assert metrics.fairness(BASE, BASE) == 0.0


def test_shortfall_and_outliers():
    np.testing.assert_allclose(metrics.shortfall(TEST, BASE), [0.5, 0.0, 0.0])
    assert metrics.shortfall_outliers(TEST, BASE) == (0.5, 0.5)
    # 2000 tenants: the 0.1% tail is the 2nd worst
    base = sp.csr_array(np.ones((2000, 1)) * 0.0005)
    got = base.copy()
    got.data[:3] *= [0.1, 0.7, 0.8]
    worst, tail = metrics.shortfall_outliers(got, base)
    assert worst == pytest.approx(0.9) and tail == pytest.approx(0.3)


def test_saturated_fraction():
    A = sp.csr_array(np.array([[0.5, 0.2, 0.0], [0.5, 0.3, 0.0]]))
    assert metrics.saturated_fraction(A) == 0.5       # column 2 is not demanded


def test_compare_against_exact_edrf():
    rng = np.random.default_rng(0)
    D = np.where(rng.random((200, 30)) < 0.2, rng.random((200, 30)), 0.0)
    exact = drfbench.allocate(D, "edrf")
    same = metrics.compare(drfbench.allocate(D, "dcdrf"), exact)
    assert same["fairness"] < 1e-9 and same["utilization_ratio"] == pytest.approx(1.0)
    assert same["rounds_ratio"] == 1.0 and same["saturated_fraction"] > 0
    one = metrics.compare(drfbench.allocate(D, "pedrf1"), exact)
    assert one["utilization_ratio"] < 1.0 and one["fairness"] > 0.01
    assert one["rounds"] == 1 and one["shortfall_worst"] > 0


def test_mismatched_shapes_rejected():
    with pytest.raises(ValueError, match="tenants"):
        metrics.fairness(BASE, BASE[:2])
    assert math.isnan(metrics.fairness(sp.csr_array((2, 2)), sp.csr_array((2, 2))))
