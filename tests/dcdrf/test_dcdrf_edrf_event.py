"""edrf-event (exact, event-driven EDRF) against the literal transcriptions of drfbench.dcdrf.literal
and against the round-based kernels, from tiny tied instances to 100K x 10K.

The round-based kernels run on one thread here (sdcdrf, pedrf with threads=1): their
per-round parallel regions slow down by orders of magnitude when another process holds
the second core, and the results do not depend on the thread count."""
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import drfbench
from drfbench import _validation as check
from drfbench.dcdrf import literal
from cases import DCDRF_FIELDS, random_instance, seeds
from conftest import assert_same
from drfbench.dcdrf import workloads

METHOD = "edrf-event"


@pytest.mark.parametrize("seed", seeds(300))
def test_matches_algorithm_1(seed):
    D, w = random_instance(np.random.default_rng(seed))
    res = drfbench.allocate(D, METHOD, weights=w, threads=1 + seed % 4)
    assert_same(res, literal.edrf(D, w), DCDRF_FIELDS, rtol=1e-9)


@pytest.mark.parametrize("seed", seeds(300))
def test_matches_algorithm_2_at_epsilon(seed):
    D, w = random_instance(np.random.default_rng(5000 + seed))
    eps = [0.0, 0.01, 0.1, 0.3, 0.6][seed % 5]
    res = drfbench.allocate(D, METHOD, weights=w, epsilon=eps, threads=1 + seed % 2)
    assert_same(res, literal.dcdrf(D, w, epsilon=eps), DCDRF_FIELDS, rtol=1e-9)


@pytest.mark.parametrize("seed", seeds(100))
def test_round_budget(seed):
    rng = np.random.default_rng(6000 + seed)
    D, w = random_instance(rng)
    budget = int(rng.integers(1, 4))
    assert_same(drfbench.allocate(D, METHOD, weights=w, max_rounds=budget),
                literal.edrf(D, w, max_rounds=budget), DCDRF_FIELDS, rtol=1e-9)
    eps = [0.01, 0.1, 0.3][seed % 3]
    assert_same(drfbench.allocate(D, METHOD, weights=w, epsilon=eps, max_rounds=budget),
                literal.dcdrf(D, w, epsilon=eps, max_rounds=budget), DCDRF_FIELDS, rtol=1e-9)


@pytest.mark.parametrize("seed", seeds(100))
def test_float32_matches_algorithm_1_on_the_same_values(seed):
    D, w = random_instance(np.random.default_rng(7000 + seed))
    D32 = D.astype(np.float32)
    res = drfbench.allocate(D32, METHOD, weights=w)
    assert res.allocation.dtype == np.float32
    A, z, rounds, timed_out = literal.edrf(D32.astype(np.float64), w)
    np.testing.assert_allclose(res.allocation.toarray(), A, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(res.level, z, rtol=1e-9, atol=1e-12)
    assert (res.rounds, res.timed_out) == (rounds, timed_out)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 6)),
              elements=st.sampled_from([0.0, 0.0, 0.125, 0.25, 0.5, 0.75, 1.0, 0.3, 0.7])),
       st.sampled_from([0.0, 0.05, 0.2]))
def test_ties_and_zeros_hypothesis(D, eps):
    assert_same(drfbench.allocate(D, METHOD, epsilon=eps),
                literal.dcdrf(D, epsilon=eps), DCDRF_FIELDS, rtol=1e-9)
    assert_same(drfbench.allocate(D, METHOD), literal.edrf(D), DCDRF_FIELDS, rtol=1e-9)


def test_identical_tenants_leave_together():
    """Five identical tenants, dominant resource 2 (d = D / 0.6): all leave in one round
    at y = 1/5, each with a fifth of resource 2."""
    D = np.tile([0.3, 0.0, 0.6, 0.1], (5, 1))
    res = drfbench.allocate(D, METHOD)
    assert res.rounds == 1
    np.testing.assert_allclose(res.level, np.full(5, 0.2), rtol=1e-12)
    np.testing.assert_allclose(res.allocation.toarray(), np.tile([0.1, 0.0, 0.2, 1 / 30], (5, 1)),
                               rtol=1e-12)


def test_edge_shapes():
    one_tenant = drfbench.allocate(np.array([[0.2, 0.4, 0.0]]), METHOD)
    np.testing.assert_allclose(one_tenant.allocation.toarray(), [[0.5, 1.0, 0.0]])
    one_resource = drfbench.allocate(np.array([[0.2], [0.0], [0.9]]), METHOD)
    np.testing.assert_allclose(one_resource.allocation.toarray().ravel(), [0.5, 0.0, 0.5])
    np.testing.assert_allclose(one_resource.level, [0.5, 0.0, 0.5])
    for shape in ((3, 4), (0, 4), (3, 0), (0, 0)):
        empty = drfbench.allocate(np.zeros(shape), METHOD)
        assert empty.allocation.shape == shape and empty.allocation.nnz == 0
        assert empty.rounds == 0 and not empty.timed_out
        np.testing.assert_array_equal(empty.level, np.zeros(shape[0]))


def test_deadline_stops_after_the_first_round():
    D = workloads.generate("G0", 3000, 400, seed=2).demands
    res = drfbench.allocate(D, METHOD, deadline=1e-9)
    assert res.timed_out and res.rounds == 1, "the first round always completes (line 19)"
    first = drfbench.allocate(D, METHOD, max_rounds=1)
    np.testing.assert_array_equal(res.allocation.data, first.allocation.data)
    np.testing.assert_array_equal(res.level, first.level)
    pedrf1 = drfbench.allocate(D, "pedrf1", threads=1)
    np.testing.assert_allclose(res.allocation.data, pedrf1.allocation.data, rtol=1e-9)


def test_round_budget_at_scale_matches_dcdrf():
    D = workloads.generate("U1", 20_000, 2_000, seed=3).demands.astype(np.float64)
    for budget in (1, 7, 100):
        a = drfbench.allocate(D, METHOD, max_rounds=budget)
        b = drfbench.allocate(D, "pedrf", max_rounds=budget, threads=1)
        assert a.timed_out and b.timed_out and a.rounds == b.rounds == budget
        np.testing.assert_allclose(a.allocation.data, b.allocation.data, rtol=1e-9)


@pytest.mark.parametrize("profile", workloads.DEMAND_PROFILES)
def test_every_profile_matches_dcdrf(profile):
    """All six demand profiles (locality changes which resources tie and when), with
    random weights, against round-based DC-DRF at epsilon 0 and 1e-3."""
    wl = workloads.generate(profile, 20_000, 2_000, seed=4, weights="random")
    D = wl.demands.astype(np.float64)
    for eps in (0.0, 1e-3):
        a = drfbench.allocate(D, METHOD, weights=wl.weights, epsilon=eps)
        b = drfbench.allocate(D, "sdcdrf", weights=wl.weights, epsilon=eps)
        assert a.rounds == b.rounds and not a.timed_out
        np.testing.assert_allclose(a.allocation.data, b.allocation.data, rtol=1e-9)
        np.testing.assert_allclose(a.level, b.level, rtol=1e-9)


@pytest.fixture(scope="module")
def g0_100k():
    """Issue 3's comparison size: G0, 100K tenants x 10K resources (6.5M non-zeros),
    with Algorithm 1 on it in float64 (the slow part of this file, a few seconds)."""
    D32 = workloads.generate("G0", 100_000, 10_000, seed=0).demands
    D64 = D32.astype(np.float64)
    return D32, D64, drfbench.allocate(D64, "edrf")


def max_relative_difference(a, b):
    return float(np.max(np.abs(a - b) / np.abs(b)))


def test_100k_matches_edrf_and_dcdrf(g0_100k):
    D32, D64, edrf = g0_100k
    event = drfbench.allocate(D64, METHOD)
    dcdrf = drfbench.allocate(D64, "sdcdrf")
    assert event.rounds == edrf.rounds == dcdrf.rounds > 1000
    assert not event.timed_out
    assert max_relative_difference(event.allocation.data, edrf.allocation.data) <= 1e-9
    assert max_relative_difference(event.allocation.data, dcdrf.allocation.data) <= 1e-9
    np.testing.assert_allclose(event.level, edrf.level, rtol=1e-9)


def test_100k_float32_within_1e4_of_float64_edrf(g0_100k):
    D32, D64, edrf = g0_100k
    event = drfbench.allocate(D32, METHOD)
    assert event.allocation.dtype == np.float32 and event.rounds == edrf.rounds
    assert max_relative_difference(event.allocation.data.astype(np.float64),
                                   edrf.allocation.data) <= 1e-4


@pytest.mark.parametrize("eps", [1e-4, 1e-3, 1e-2, 0.1])
def test_100k_epsilon_matches_dcdrf(g0_100k, eps):
    D32, D64, _ = g0_100k
    event = drfbench.allocate(D64, METHOD, epsilon=eps)
    dcdrf = drfbench.allocate(D64, "sdcdrf", epsilon=eps)
    assert event.rounds == dcdrf.rounds
    np.testing.assert_allclose(event.allocation.data, dcdrf.allocation.data, rtol=1e-9)


@pytest.mark.parametrize("eps", [0.0, 1e-3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_identical_results(g0_100k, eps, dtype, threads):
    """Fixed blocks, fixed summation order, a serial event loop: the same bits on 1, 2
    and 3 threads (on 2 or more a second thread takes the output's page faults beside
    the loop and all write the allocation after it; 3 on this 2-core machine: more
    threads than cores)."""
    D = g0_100k[0].astype(dtype)
    one = drfbench.allocate(D, METHOD, epsilon=eps, threads=1)
    many = drfbench.allocate(D, METHOD, epsilon=eps, threads=threads)
    np.testing.assert_array_equal(one.allocation.data, many.allocation.data)
    np.testing.assert_array_equal(one.level, many.level)
    assert one.rounds == many.rounds


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("max_rounds", [1, 5, 2**62])
def test_every_row_of_the_allocation_is_written(threads, max_rounds):
    """The kernel writes every entry of its output (after the event loop, on every
    thread; on 2 or more one stores into each page beside the loop; tenants frozen by a
    stop included): called directly on a NaN-filled buffer, with an all-zero row stored
    as explicit zeros (which the public API would have removed)."""
    from drfbench import _isa
    kernel = _isa.kernels(_isa.resolve(None)).edrf_event.edrf_event
    D = workloads.generate("U0", 3000, 200, seed=3).demands.astype(np.float64)
    D.data[D.indptr[7]:D.indptr[8]] = 0.0
    n, m = D.shape
    results = []
    for t in (1, threads):
        allocation = np.full(D.nnz, np.nan)
        level = np.full(n, np.nan)
        rounds, timed_out, _ = kernel(D.data, D.indices.astype(np.int32),
                                      D.indptr.astype(np.int64), m, np.ones(n), 0.0,
                                      np.inf, max_rounds, t, allocation, level)
        assert not np.isnan(allocation).any() and not np.isnan(level).any()
        assert timed_out == (max_rounds < 2**62)
        results.append(allocation)
    np.testing.assert_array_equal(results[0], results[1])
    assert (results[0][D.indptr[7]:D.indptr[8]] == 0).all()
    expected = drfbench.allocate(D, "sdcdrf", max_rounds=max_rounds).allocation.data
    stored = np.ones(D.nnz, dtype=bool)        # allocate drops the explicit zeros
    stored[D.indptr[7]:D.indptr[8]] = False
    np.testing.assert_allclose(results[0][stored], expected, rtol=1e-9)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("eps", [0.0, 1e-3])
def test_resources_left_with_rounding_residue_or_tiny_rates(threads, eps):
    """No per-resource count of active tenants is kept: once every tenant on a list has
    left, mu is what rounding leaves. Here resource 0 is left with mu = 1.1e-16 > 0
    (0.1 + 0.2 + 0.3 subtracted again) while the only tenant still active, of weight
    1e-20, demands resource 3 alone: the dead resource's key (about 7e15) comes out below
    the live one (1e20) and must be dropped, not exhausted. Resource 2 keeps a live
    tenant of rate 2^-30 after a rate-0.5 tenant leaves: mu far below a millionth of its
    initial value, yet live (rates chosen so that mu cancels exactly, as Algorithm 1,
    which re-sums, would have it). The weights lie 1e20 apart, past allocate's
    MAX_WEIGHT_RATIO: the kernel is called through the method's implementation."""
    D = np.array([[0.1, 1.0, 0.0, 0.0, 0.0],      # tenants 0-2 leave at y = 1/3 when
                  [0.2, 1.0, 0.0, 0.0, 0.0],      # resource 1 runs out, leaving resource 0
                  [0.3, 1.0, 0.0, 0.0, 0.0],      # with nobody and mu = 1.1e-16
                  [0.0, 0.0, 0.0, 1.0, 0.0],      # weight 1e-20: leaves at y = 1e20
                  [0.0, 0.0, 0.5, 0.0, 1.0],      # leaves at y = 1 (resource 4)
                  [0.0, 0.0, 1.0, 0.0, 0.0]])     # weight 2^-30: leaves at y = 2^29
    w = np.array([1.0, 1.0, 1.0, 1e-20, 1.0, 2.0**-30])
    spec, matrix = drfbench.method_info(METHOD), check.demand_matrix(D)
    values, level, rounds, timed_out, _, _ = spec.run(
        spec, matrix, w, epsilon=eps, deadline=None, max_rounds=None, threads=threads, isa=None)
    res = SimpleNamespace(allocation=check.csr_from_arrays(values, matrix.indices,
                                                           matrix.indptr, matrix.shape),
                          level=level, rounds=rounds, timed_out=timed_out)
    expected = literal.edrf(D, w) if eps == 0 else literal.dcdrf(D, w, epsilon=eps)
    assert_same(res, expected, DCDRF_FIELDS, rtol=1e-9)
    assert res.level[3] > 1e19 and 1e8 < res.level[5] < 1e10
    assert res.allocation.toarray()[:, 0].sum() < 1    # resource 0 was never exhausted


def test_invariants_on_random_sparse_input():
    rng = np.random.default_rng(11)
    D = sp.random_array((3000, 400), density=0.03, format="csr", rng=rng, dtype=np.float64)
    D.data = np.maximum(D.data, 1e-3)
    res = drfbench.allocate(D, METHOD)
    A = res.allocation
    assert A.shape == D.shape and (A.indices == D.indices).all()
    used = A.sum(axis=0)
    assert used.max() <= 1 + 1e-9, "a resource is over-allocated"
    saturated = used >= 1 - 1e-9          # exact EDRF is non-wasteful
    has = np.diff(D.indptr) > 0
    assert all(saturated[D.indices[D.indptr[i]:D.indptr[i + 1]]].any()
               for i in np.flatnonzero(has))
    np.testing.assert_allclose(res.allocation.data, drfbench.allocate(D, "edrf").allocation.data,
                               rtol=1e-9)


@pytest.mark.slow
def test_more_than_16_tenant_blocks():
    """Past 16 x 65,536 tenants the transposition's 16-bit tenant ids span more blocks:
    still the same allocation as round-based DC-DRF, and the same bits on 1 and 2 threads."""
    D = workloads.generate("U1", 1_200_000, 300, seed=5).demands.astype(np.float64)
    one = drfbench.allocate(D, METHOD, threads=1)
    two = drfbench.allocate(D, METHOD, threads=2)
    dcdrf = drfbench.allocate(D, "sdcdrf")
    assert one.rounds == two.rounds == dcdrf.rounds
    np.testing.assert_array_equal(one.allocation.data, two.allocation.data)
    assert max_relative_difference(one.allocation.data, dcdrf.allocation.data) <= 1e-9
