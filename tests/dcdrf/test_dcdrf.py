"""Every allocator against the literal transcriptions of drfbench.dcdrf.literal, plus worked examples
and invariants."""
import mmap

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import drfbench
from drfbench.dcdrf import demands, literal
from drfbench import _isa, api
from cases import DCDRF_FIELDS, random_instance, seeds
from conftest import assert_same

FAST_METHODS = ("dcdrf", "sdcdrf", "pedrf", "pedrf1")
# Every method computing DRF's allocation: the DC-DRF family and classic divisible DRF
DRF_METHODS = drfbench.methods(family="dcdrf") + ("drf",)
DIVISIBLE = drfbench.methods(takes="demands")


@pytest.mark.parametrize("seed", seeds(300))
def test_edrf_matches_algorithm_1(seed):
    D, w = random_instance(np.random.default_rng(seed))
    assert_same(drfbench.allocate(D, "edrf", weights=w), literal.edrf(D, w), DCDRF_FIELDS,
                rtol=1e-9)


@pytest.mark.parametrize("seed", seeds(300))
def test_dcdrf_matches_algorithm_2(seed):
    rng = np.random.default_rng(1000 + seed)
    D, w = random_instance(rng)
    eps = [0.0, 0.01, 0.1, 0.3][seed % 4]
    threads = 1 + seed % 2
    assert_same(drfbench.allocate(D, "dcdrf", weights=w, epsilon=eps, threads=threads),
                literal.dcdrf(D, w, epsilon=eps), DCDRF_FIELDS, rtol=1e-9)


@pytest.mark.parametrize("seed", seeds(100))
def test_round_budget_matches_both_algorithms(seed):
    rng = np.random.default_rng(2000 + seed)
    D, w = random_instance(rng)
    budget = int(rng.integers(1, 4))
    assert_same(drfbench.allocate(D, "edrf", weights=w, max_rounds=budget),
                literal.edrf(D, w, max_rounds=budget), DCDRF_FIELDS, rtol=1e-9)
    assert_same(drfbench.allocate(D, "pedrf", weights=w, max_rounds=budget),
                literal.dcdrf(D, w, max_rounds=budget), DCDRF_FIELDS, rtol=1e-9)
    assert_same(drfbench.allocate(D, "pedrf1", weights=w),
                literal.dcdrf(D, w, max_rounds=1), DCDRF_FIELDS, rtol=1e-9)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)),
              elements=st.sampled_from([0.0, 0.0, 0.125, 0.25, 0.5, 0.75, 1.0, 0.3, 0.7])),
       st.sampled_from([0.0, 0.05, 0.2]))
def test_ties_and_zeros_hypothesis(D, eps):
    assert_same(drfbench.allocate(D, "sdcdrf", epsilon=eps),
                literal.dcdrf(D, epsilon=eps), DCDRF_FIELDS, rtol=1e-9)
    assert_same(drfbench.allocate(D, "edrf"), literal.edrf(D), DCDRF_FIELDS, rtol=1e-9)


@pytest.mark.parametrize("method", DRF_METHODS)
def test_textbook_drf_example(method):
    """<9 CPU, 18 GB>; user 1 wants <1 CPU, 4 GB> per task, user 2 <3 CPU, 1 GB>:
    DRF gives user 1 three tasks' worth and user 2 two (DRF lecture, 'DRF example')."""
    per_task = np.array([[1 / 9, 4 / 18], [3 / 9, 1 / 18]])
    res = drfbench.allocate(per_task, method)
    tasks = res.allocation.toarray() / per_task
    np.testing.assert_allclose(tasks, [[3, 3], [2, 2]], rtol=1e-12)
    assert res.rounds == 1 and not res.timed_out


@pytest.mark.parametrize("method", DIVISIBLE)
def test_weights_scale_dominant_shares(method):
    """Two tenants on one resource with weights 1 and 3 split it 1:3."""
    res = drfbench.allocate(np.array([[0.5], [0.5]]), method, weights=[1, 3])
    np.testing.assert_allclose(res.allocation.toarray().ravel(), [0.25, 0.75])


def test_edge_shapes():
    one_tenant = drfbench.allocate(np.array([[0.2, 0.4, 0.0]]), "dcdrf")
    np.testing.assert_allclose(one_tenant.allocation.toarray(), [[0.5, 1.0, 0.0]])
    one_resource = drfbench.allocate(np.array([[0.2], [0.0], [0.9]]), "edrf")
    np.testing.assert_allclose(one_resource.allocation.toarray().ravel(), [0.5, 0.0, 0.5])
    for method in DIVISIBLE:
        empty = drfbench.allocate(np.zeros((3, 4)), method)
        assert empty.allocation.nnz == 0 and empty.rounds == 0 and not empty.timed_out
        none = drfbench.allocate(np.zeros((0, 4)), method)
        assert none.allocation.shape == (0, 4) and none.rounds == 0


def random_sparse(n, m, density, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    D = sp.random_array((n, m), density=density, format="csr", rng=rng, dtype=np.float64)
    D.data = np.maximum(D.data, 1e-3)
    return D.astype(dtype)


@pytest.fixture(scope="module")
def medium():
    return random_sparse(3000, 400, 0.03, seed=7)


@pytest.mark.parametrize("method,eps", [("edrf", 0.0), ("dcdrf", 0.0), ("dcdrf", 1e-3),
                                        ("pedrf1", 0.0)])
def test_invariants_on_larger_input(medium, method, eps):
    res = drfbench.allocate(medium, method, epsilon=eps)
    A = res.allocation
    assert A.shape == medium.shape and (A.indices == medium.indices).all()
    assert A.sum(axis=0).max() <= 1 + 1e-9, "a resource is over-allocated"
    ratio = A.data / medium.data                     # A_ir / D_ir is constant along a row
    row = np.repeat(np.arange(medium.shape[0]), np.diff(medium.indptr))
    lo = np.full(medium.shape[0], np.inf)
    hi = np.zeros(medium.shape[0])
    np.minimum.at(lo, row, ratio)
    np.maximum.at(hi, row, ratio)
    has = np.diff(medium.indptr) > 0
    np.testing.assert_allclose(lo[has], hi[has], rtol=1e-9)
    if eps == 0.0 and method != "pedrf1":
        # exact EDRF is non-wasteful: every tenant demands some saturated resource
        saturated = A.sum(axis=0) >= 1 - 1e-9
        assert all(saturated[medium.indices[medium.indptr[i]:medium.indptr[i + 1]]].any()
                   for i in np.flatnonzero(has))


def test_edrf_and_dcdrf_agree_at_eps_zero(medium):
    a = drfbench.allocate(medium, "edrf")
    b = drfbench.allocate(medium, "dcdrf")
    assert a.rounds == b.rounds > 10
    np.testing.assert_allclose(b.allocation.data, a.allocation.data, rtol=1e-9)


def test_epsilon_cuts_rounds(medium):
    rounds = [drfbench.allocate(medium, "dcdrf", epsilon=e).rounds for e in (0.0, 1e-2, 1e-1)]
    assert rounds[0] > rounds[1] > rounds[2]


@pytest.mark.parametrize("isa", _isa.runnable())
@pytest.mark.parametrize("threads", (2, 3, 7))
def test_threads_give_identical_results(medium, threads, isa):
    """Fixed tiles and fixed summation order: the same bits for 1 and more threads, in
    every variant built (line 17 splits the 400 resources into one range per thread,
    which 3 and 7 split unevenly, each thread entering a leaver's row where its range
    begins)."""
    for eps in (0.0, 1e-3):
        one = drfbench.allocate(medium, "dcdrf", epsilon=eps, threads=1, isa=isa)
        many = drfbench.allocate(medium, "dcdrf", epsilon=eps, threads=threads, isa=isa)
        assert one.isa == many.isa == isa
        np.testing.assert_array_equal(one.allocation.data, many.allocation.data)
        np.testing.assert_array_equal(one.level, many.level)
        assert one.rounds == many.rounds


@pytest.mark.parametrize("eps", (0.0, 1e-3))
def test_dcdrf_matches_algorithm_2_across_tiles_and_threads(eps):
    """Line 16 from the exhausted resources' tenant lists: 5,000 tenants fill three tenant
    tiles, which 2 and 3 threads split into ranges, each entering a resource's tenants
    where its range begins; every level and round as Algorithm 2's."""
    D = random_sparse(5000, 300, 0.03, seed=11)
    expected = literal.dcdrf(D.toarray(), epsilon=eps)
    for threads in (1, 2, 3):
        assert_same(drfbench.allocate(D, "dcdrf", epsilon=eps, threads=threads), expected,
                    DCDRF_FIELDS, rtol=1e-9)


@pytest.mark.parametrize("method", ("edrf", "dcdrf"))
def test_float32_matches_float64(medium, method):
    f64 = drfbench.allocate(medium, method, dtype=np.float64)
    f32 = drfbench.allocate(medium, method, dtype=np.float32)
    assert f32.allocation.dtype == np.float32 and f64.allocation.dtype == np.float64
    np.testing.assert_allclose(f32.allocation.data, f64.allocation.data, rtol=1e-5)


def test_deadline_stops_and_freezes_remaining_tenants(medium):
    res = drfbench.allocate(medium, "pedrf", deadline=1e-9)
    assert res.timed_out and res.rounds == 1, "the first round always completes (line 19)"
    first = drfbench.allocate(medium, "pedrf1")
    np.testing.assert_array_equal(res.allocation.data, first.allocation.data)


def test_deterministic():
    D = random_sparse(500, 80, 0.05, seed=3)
    a, b = (drfbench.allocate(D, "dcdrf", epsilon=1e-3) for _ in range(2))
    np.testing.assert_array_equal(a.allocation.data, b.allocation.data)


@pytest.mark.parametrize("n", [0, 5, demands.OWN_PAGES_BYTES // 4 + 3])
def test_output_arrays_are_plain_writable_arrays(n):
    """Small outputs come from numpy, large ones from pages of their own (see
    demands.output_array): either way an ordinary, writable, contiguous array that outlives
    what made it."""
    out = demands.output_array(n, np.float32)
    assert out.shape == (n,) and out.dtype == np.float32
    assert out.flags.writeable and out.flags.c_contiguous
    out[:] = 1.5
    assert out.sum(dtype=np.float64) == 1.5 * n
    own_pages = isinstance(getattr(out.base, "obj", None), mmap.mmap)   # memoryview of it
    assert own_pages == (n * 4 >= demands.OWN_PAGES_BYTES)


@pytest.mark.parametrize("seed", seeds(40))
def test_numpy_policies_through_allocate(seed):
    """Classic DRF's divisible policies behind drfbench.allocate give the same allocation
    as calling them directly, and level is the weighted dominant share."""
    from drfbench import drf
    D, w = random_instance(np.random.default_rng(5000 + seed))
    for method, policy in (("drf", drf.drf), ("asset-fairness", drf.asset_fairness),
                           ("ceei", drf.ceei)):
        res = drfbench.allocate(D, method, weights=w)
        A = policy(D, w)
        np.testing.assert_allclose(res.allocation.toarray(), A, rtol=1e-12, atol=1e-15)
        weights = np.ones(len(D)) if w is None else w
        np.testing.assert_allclose(res.level, A.max(axis=1, initial=0.0) / weights, rtol=1e-12)
        assert res.isa == "numpy" and res.threads == 1 and not res.timed_out


def test_registry_facts():
    """What the pipeline, the controller and the benchmark ask the registry."""
    assert set(DIVISIBLE) >= {"edrf", "dcdrf", "edrf-event", "drf", "ceei"}
    assert drfbench.methods(takes="tasks") == ("online-drf", "hadoop-slots")
    assert [m for m in DIVISIBLE if api.method_info(m).conventional] == ["edrf"]
    assert {m for m in DIVISIBLE if api.method_info(m).takes_option("epsilon")} == {
        "dcdrf", "sdcdrf", "edrf-event"}
    assert not api.method_info("sdcdrf").takes_option("threads")
    with pytest.raises(ValueError, match="already registered"):
        api.register(api.method_info("edrf"))
    with pytest.raises(ValueError, match="drfbench.drf.schedule"):
        drfbench.allocate(np.ones((2, 2)) / 2, "online-drf")


@pytest.mark.parametrize("method, option, value", [
    ("edrf", "epsilon", 0.1), ("sdcdrf", "threads", 2), ("ceei", "deadline", 1.0),
    ("drf", "max_rounds", 3), ("ceei", "isa", "avx2"), ("pedrf1", "max_rounds", 2)])
def test_an_option_a_method_does_not_take_is_refused(method, option, value):
    with pytest.raises(ValueError, match=method):
        drfbench.allocate(np.array([[0.5, 0.2]]), method, **{option: value})


def test_allocate_checks_its_options_as_declared():
    """demands.allocate takes its options (demands.OPTIONS) as the catalogs declare them
    (issue 35: declared once): every option of a demands method is one of them, each read
    and then checked within its declared bounds, None for those whose default is None; a
    keyword of none of them and an isa that is not text refused as before."""
    from datetime import timedelta
    D = np.array([[0.5, 0.25], [0.25, 0.5]])
    names = [o.name for o in demands.OPTIONS]
    assert names == ["epsilon", "deadline", "max_rounds", "threads", "isa"]
    for method in drfbench.methods(takes="demands"):
        assert set(api.method_info(method).options) <= set(names), method
    assert drfbench.allocate(D, "dcdrf", deadline=timedelta(seconds=5), max_rounds=2**62,
                             threads=1, isa=None).level.tolist() == drfbench.allocate(D).level.tolist()
    with pytest.raises(ValueError, match=r"max_rounds must lie in \[1, 4611686018427387904\], "
                                         r"got 4611686018427387905"):
        drfbench.allocate(D, max_rounds=2**62 + 1)
    with pytest.raises(ValueError, match=r"threads must lie in \[1, 1024\], got 1025"):
        drfbench.allocate(D, threads=1025)
    with pytest.raises(ValueError, match="threads must be a positive integer, got 0"):
        drfbench.allocate(D, threads=0)         # a count's reading, then its bounds
    with pytest.raises(TypeError, match="max_rounds must be a positive integer, got 1.5"):
        drfbench.allocate(D, max_rounds=1.5)
    with pytest.raises(TypeError, match="epsilon must be a real number, got None"):
        drfbench.allocate(D, epsilon=None)
    with pytest.raises(TypeError, match="isa must be a kernel variant's name"):
        drfbench.allocate(D, isa=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'rounds'"):
        drfbench.allocate(D, rounds=3)


def test_a_run_id_gives_allocate_its_declared_options():
    """sweeps.run_options: a run id's epsilon, its deadline ("none": None), its kernel
    variant ("default": the one allocate picks) and the job's threads for a method that runs
    threads, one for another."""
    from drfbench.dcdrf import sweeps
    params = sweeps.parse_run_id(sweeps.run_id(dict(
        demand_profile="G0", tenants=30, resources=4, seed=0, method="sdcdrf", epsilon=0.01)))
    assert sweeps.run_options(params, 4) == {
        "epsilon": 0.01, "deadline": None, "threads": 1, "isa": _isa.resolve()}
    params = {**params, "method": "dcdrf", "deadline": "0.5", "isa": "generic"}
    assert sweeps.run_options(params, 4) == {
        "epsilon": 0.01, "deadline": 0.5, "threads": 4, "isa": "generic"}
