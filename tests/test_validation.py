"""Bad input gets a clear ValueError or TypeError naming the problem."""
import numpy as np
import pytest
import scipy.sparse as sp

import drfbench

GOOD = np.array([[0.2, 0.5], [0.4, 0.0]])


@pytest.mark.parametrize("demands,error,match", [
    (np.array([[0.2, -0.1]]), ValueError, "non-negative"),
    (np.array([[0.2, np.nan]]), ValueError, "NaN or infinite"),
    (np.array([[0.2, np.inf]]), ValueError, "NaN or infinite"),
    (np.array([[0.2, 1.5]]), ValueError, "at most 1"),
    (np.array([0.2, 0.5]), ValueError, "2-D"),
    (np.zeros((2, 2, 2)), ValueError, "2-D"),
    (np.array([["a", "b"]]), TypeError, "real numbers"),
    ([[0.1, 0.2], [0.3]], TypeError, "2-D array"),
    (sp.csr_array(np.array([[0.2, -0.1]])), ValueError, "non-negative"),
    (sp.coo_array(([0.6, 0.6], ([0, 0], [1, 1])), shape=(1, 2)), ValueError, "at most 1"),
])
def test_bad_demands(demands, error, match):
    with pytest.raises(error, match=match):
        drfbench.allocate(demands)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"method": "drf2"}, ValueError, "unknown method 'drf2'.*dcdrf"),
    ({"method": None}, ValueError, "unknown method"),
    ({"weights": [1.0]}, ValueError, "one entry per tenant"),
    ({"weights": [1.0, 0.0]}, ValueError, "positive"),
    ({"weights": [1.0, -2.0]}, ValueError, "positive"),
    ({"weights": [1.0, np.nan]}, ValueError, "NaN"),
    ({"weights": ["a", "b"]}, TypeError, "weights"),
    ({"epsilon": 1.0}, ValueError, r"\[0, 1\)"),
    ({"epsilon": -0.1}, ValueError, r"\[0, 1\)"),
    ({"epsilon": float("nan")}, ValueError, "NaN"),
    ({"epsilon": "0.1"}, TypeError, "epsilon"),
    ({"deadline": 0}, ValueError, r"deadline must lie in \(0, inf\], got 0.0"),
    ({"deadline": -1.0}, ValueError, r"deadline must lie in \(0, inf\], got -1.0"),
    ({"max_rounds": 0}, ValueError, "max_rounds"),
    ({"max_rounds": 2.5}, TypeError, "max_rounds"),
    ({"threads": 0}, ValueError, "threads"),
    ({"threads": True}, TypeError, "threads"),
    ({"dtype": np.int32}, ValueError, "float32 or float64"),
    ({"method": "edrf", "epsilon": 0.1}, ValueError, "takes no epsilon"),
    ({"method": "pedrf", "epsilon": 0.1}, ValueError, "takes no epsilon"),
    ({"method": "edrf", "threads": 2}, ValueError, "single-threaded"),
    ({"method": "sdcdrf", "threads": 2}, ValueError, "single-threaded"),
    ({"method": "pedrf1", "max_rounds": 3}, ValueError, "1 round"),
])
def test_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        drfbench.allocate(GOOD, **kwargs)


def test_valid_corner_cases():
    """All-zero rows, undemanded resources, integer and boolean input, explicit zeros and
    unsorted duplicates in sparse input are all valid; the caller's arrays are untouched."""
    D = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    res = drfbench.allocate(D)
    np.testing.assert_allclose(res.allocation.toarray(), [[0, 0, 0], [1, 0, 0]])
    assert res.level[0] == 0.0
    assert drfbench.allocate(np.array([[1, 0], [0, 1]])).allocation.dtype == np.float64
    messy = sp.csr_array((np.array([0.25, 0.0, 0.25, 0.5]), np.array([1, 0, 1, 0]),
                          np.array([0, 3, 4])), shape=(2, 2))
    before = messy.data.copy()
    res = drfbench.allocate(messy, "edrf")
    np.testing.assert_array_equal(messy.data, before)
    np.testing.assert_allclose(res.allocation.toarray(), [[0, 1], [1, 0]])
    assert drfbench.allocate(sp.csr_matrix(D), dtype="float32").allocation.dtype == np.float32
    assert drfbench.allocate(GOOD, "pedrf1", max_rounds=1).rounds == 1


def test_negative_duplicate_cannot_hide_in_a_sum():
    """-0.5 and 0.7 at the same position would sum to a valid 0.2: rejected before summing."""
    D = sp.coo_array(([-0.5, 0.7], ([0, 0], [0, 0])), shape=(1, 1))
    with pytest.raises(ValueError, match="non-negative"):
        drfbench.allocate(D)


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.bool_, np.longdouble])
def test_other_real_dtypes_are_converted(dtype):
    """float16 (which scipy.sparse cannot hold), integers, booleans, long doubles: converted
    to the kernel's float type, float32 when asked, else float64."""
    D = np.array([[0.5, 0.25], [0.0, 1.0]]).astype(dtype)
    for asked, got in ((np.float32, np.float32), (None, np.float64)):
        res = drfbench.allocate(D, "dcdrf", dtype=asked)
        assert res.allocation.dtype == got
        np.testing.assert_allclose(res.allocation.toarray(),
                                   drfbench.allocate(D.astype(np.float64), "dcdrf").allocation.toarray(),
                                   rtol=1e-6)


def test_machines_whose_total_overflows_are_refused():
    """Capacities each finite whose sum per resource is not (2 x 1e308) are refused, naming
    the resource, instead of a cluster total of inf (numpy's overflow warning on stderr and
    every share 0). Found by tests/test_fuzz_cli.py's mutated server file."""
    with pytest.raises(ValueError, match=r"servers: the capacities of resource\(s\) \[1\] sum"):
        drfbench._validation.machines([[2.0, 1e308], [2.0, 1e308]], name="servers")
    assert drfbench._validation.machines([[2.0, 1e308], [2.0, 1.0]]).shape == (2, 2)
