"""The one-pass floors of drfbench/dcdrf/floor.pyx return what they compute, on any thread count."""
import numpy as np
import pytest

from drfbench import _isa
from drfbench.dcdrf import workloads


@pytest.fixture(scope="module")
def floor():
    return _isa.kernels().floor


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floors_sum_the_nonzeros(floor, threads, dtype):
    D = workloads.generate("U1", 5000, 700, seed=4, dtype=dtype).demands
    total, seconds = floor.stream_sum(D.data, threads)
    assert total == pytest.approx(D.data.sum(dtype=np.float64), rel=1e-12) and seconds >= 0
    by_resource, seconds = floor.scatter_sum(D.data, D.indices, D.shape[1], threads)
    expected = np.bincount(D.indices, weights=D.data.astype(np.float64), minlength=D.shape[1])
    np.testing.assert_allclose(by_resource, expected, rtol=1e-12)
    assert by_resource.shape == (D.shape[1],) and seconds >= 0


def test_floors_of_nothing(floor):
    empty = np.zeros(0, dtype=np.float32)
    assert floor.stream_sum(empty, 2)[0] == 0
    sums, _ = floor.scatter_sum(empty, np.zeros(0, dtype=np.int32), 4, 2)
    np.testing.assert_array_equal(sums, np.zeros(4))
