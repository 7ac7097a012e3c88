"""The fuzz suite for divisible demands (issue 29): drfbench.allocate and drfbench.run for
every method taking demands, the drf family's divisible policies, its property checker's
instances and the DC-DRF workload readers, on generated input near the bounds and of the
wrong shape. Each returns a result that passes the invariants below or refuses with a
ValueError/TypeError naming the argument (tests/fuzz.py: a hang or another exception
fails the example).

Invariants of a result: allocation finite and >= 0, each resource's column sum at most 1
(+ rounding), each tenant's allocation proportional to its demands (Leontief); the exact
methods (edrf, dcdrf at epsilon 0, edrf-event, drf) equal to each other and, on small
inputs, to drfbench.dcdrf.literal's transcription; threads 1 and 2 alike; timed_out False
without a deadline or round budget.
"""
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import strategies as st

import drfbench
import fuzz
from drfbench.dcdrf import literal, workloads
from drfbench.drf import divisible, properties

FUZZED = ("demands",)   # the input kinds this module fuzzes (tests/test_families.py)
METHODS = drfbench.methods(takes="demands")
EXACT = ("edrf", "dcdrf", "edrf-event", "drf")
THREADED = ("dcdrf", "pedrf", "pedrf1", "edrf-event")
NAMED = ("demands", "weights", "epsilon", "deadline", "max_rounds", "threads", "dtype", "isa",
         "method", "rates", "capacity", "user", "instance", "n_tenants", "n_resources",
         "seed", "profile")
SLACK = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-5}


# -- strategies ---------------------------------------------------------------------------

TINY64 = float(np.finfo(np.float64).tiny)
# demand values near the bounds: 0, the smallest normal numbers, wide ranges, 1
VALUES = st.one_of(st.just(0.0), st.just(1.0), st.just(TINY64), st.just(1e-300),
                   st.just(float(np.finfo(np.float32).tiny)),
                   st.floats(1e-12, 1.0), st.floats(0.0, 1.0, allow_subnormal=False),
                   st.integers(-300, 0).map(lambda e: 10.0 ** e))
# anything a float can be, for the wrong-valued inputs
ANY_FLOAT = st.one_of(VALUES, st.floats(allow_nan=True, allow_infinity=True),
                      st.just(5e-324), st.just(-0.0), st.just(1.0000001), st.just(-1e-300))


@st.composite
def demand_arrays(draw, values=VALUES, max_side=5):
    n = draw(st.integers(0, max_side))
    m = draw(st.integers(0, max_side))
    return np.array(draw(st.lists(st.lists(values, min_size=m, max_size=m), min_size=n,
                                  max_size=n)), dtype=np.float64).reshape(n, m)


@st.composite
def weights_for(draw, n):
    """None, or n weights within the bounds: a base in [1e-290, 1e290], spread over at
    most nine decades (MAX_WEIGHT_RATIO) less rounding (10.0**114 / 10.0**105 is a hair
    past 1e9: the long form found it)."""
    if n == 0 or draw(st.booleans()):
        return None
    base = draw(st.integers(-290, 281))
    return [10.0 ** (base + draw(st.floats(0.0, 8.999))) for _ in range(n)]


@st.composite
def valid_inputs(draw):
    D = draw(demand_arrays())
    return D, draw(weights_for(D.shape[0]))


def as_given(D, form):
    """D as a user might pass it: dense, CSR, COO, DOK, LIL, float32, a DataFrame (named or
    not), a masked array with nothing masked."""
    if form in ("csr", "dok", "lil"):
        return getattr(sp, f"{form}_array")(D)
    if form == "coo":
        return sp.coo_matrix(D)
    if form == "masked":
        return np.ma.masked_array(D, mask=False)
    if form == "list":
        return D.tolist()
    if form == "frame":
        return pd.DataFrame(D, columns=[f"r{j}" for j in range(D.shape[1])][::-1])
    return D


WRONG_DEMANDS = st.one_of(
    demand_arrays(ANY_FLOAT), st.just([]), st.just([[]]), st.just(np.zeros(3)),
    st.just(np.zeros((2, 2, 2))), st.just([[0.5, 0.5], [0.5]]), st.just("0.5"), st.just(None),
    st.just([["a", "b"]]), st.just(np.array([[1, 0]], dtype=bool)),
    st.just(np.array([[1, 0]], dtype=np.int64)), st.just(np.array([[1 + 1j]])),
    st.just(np.array([[np.timedelta64(1, "s")]])),
    st.just(pd.DataFrame({"cpu": [0.5], "mem": ["x"]})),
    st.just(pd.DataFrame([[0.5, 0.2]], columns=[3, 7])),
    st.just({"cpu": [0.5, 0.1], "mem": [0.2, 0.4]}),
    st.just(np.array([[0.5, 0.2], [0.1, 0.4]], dtype=np.float16)),
    st.just(sp.csr_array(np.array([[0.5, 1e-300], [0.1, 0.4]])).astype(np.float32)),
    st.just(np.ma.masked_array([[0.5, 0.2], [0.1, 0.4]], mask=[[0, 1], [0, 0]])))
OPTIONS = st.fixed_dictionaries({}, optional={
    "weights": st.one_of(st.lists(ANY_FLOAT, max_size=6), st.just("ones"), st.just([[1.0]])),
    "epsilon": st.one_of(st.floats(allow_nan=True), st.just(1), st.just("0.1"), st.none()),
    "deadline": st.one_of(st.floats(allow_nan=True), st.just(0), st.just(-1), st.none(),
                          st.just("1s"), st.just(True)),
    "max_rounds": st.one_of(st.integers(-2, 2**70), st.just(2.0), st.just(True), st.none()),
    "threads": st.one_of(st.integers(-1, 2**40), st.just(1.5), st.none()),
    "dtype": st.sampled_from([None, np.float32, "float64", "int32", np.float16, 5, "foo",
                              object]),
    "isa": st.one_of(st.none(), st.sampled_from(["scalar", "generic", "avx2", "avx512",
                                                 "foo", "", 5, ("avx2",)]))})


# -- workers: module-level, so that fuzz.call can send them to its process ----------------

def _dense(result):
    return (result.allocation.toarray().astype(np.float64), result.level, result.rounds,
            result.timed_out)


def allocate_dense(demands, method, **options):
    """drfbench.allocate, the result as plain arrays."""
    return _dense(drfbench.allocate(demands, method, **options))


def run_dense(method, demands, **options):
    """drfbench.run for a demands method, the result as plain arrays."""
    return _dense(drfbench.run(method, demands, **options))


def every_method(demands, weights):
    """{(method, threads): (A, level, rounds, timed_out)} for every demands method, and the
    literal transcription's EDRF (method "literal") on small inputs."""
    out = {}
    for method in METHODS:
        for threads in ((1, 2) if method in THREADED else (None,)):
            out[method, threads] = allocate_dense(demands, method, weights=weights,
                                                  threads=threads)
    if demands.size <= 16 and demands.shape[0]:
        out["literal", None] = literal.edrf(demands, weights)
    return out


# -- invariants ---------------------------------------------------------------------------

def assert_feasible(A, D, slack=1e-9, atol=0.0):
    """Finite, non-negative, within every resource's capacity, proportional to demands
    (to `atol` where a value is subnormal in the result's float type)."""
    assert A.shape == D.shape and np.isfinite(A).all() and (A >= 0).all()
    assert (A.sum(axis=0) <= 1 + slack).all(), A.sum(axis=0)
    peak = D.max(axis=1, initial=0.0)
    share = A.max(axis=1, initial=0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(peak[:, None] > 0, D / peak[:, None] * share[:, None], 0.0)
    np.testing.assert_allclose(A, expected, rtol=1e-6, atol=atol)


def assert_named(error):
    message = str(error)
    assert "\n" not in message.strip() and any(word in message for word in NAMED), message


# -- the tests ----------------------------------------------------------------------------

@fuzz.cases(valid_inputs())
def test_every_method_on_valid_demands(inputs):
    """Valid demands and weights: every method returns a feasible allocation; the exact
    ones agree with each other and with the literal transcription, on 1 and 2 threads."""
    D, w = inputs
    outcome = fuzz.call(every_method, D, w)
    assert not outcome.refused, outcome.error
    results = outcome.value
    reference = results["edrf", None]
    # light tenants' terms share sums with heavy ones: rounding over-allocates by about
    # ratio * 2**-52 (drfbench._validation.MAX_WEIGHT_RATIO)
    slack = 1e-9 + (max(w) / min(w) * 2.0**-50 if w else 0.0)
    for (method, threads), (A, level, rounds, timed_out) in results.items():
        assert_feasible(A, D, slack)
        assert np.isfinite(level).all() and (level >= 0).all()
        assert rounds <= D.shape[1] + 1 and timed_out == (method == "pedrf1" and rounds
                                                          < reference[2]), (method, rounds)
        if method in EXACT or method == "literal":
            np.testing.assert_allclose(A, reference[0], rtol=slack, atol=1e-12)
            np.testing.assert_allclose(level, reference[1], rtol=slack, atol=0)
    for method in THREADED:
        if (method, 1) in results:
            np.testing.assert_allclose(results[method, 1][0], results[method, 2][0],
                                       rtol=1e-12, atol=1e-15)


@fuzz.cases(valid_inputs(), st.sampled_from(METHODS),
            st.sampled_from(["dense", "csr", "coo", "dok", "lil", "list", "frame", "masked"]),
            st.sampled_from([None, np.float32]))
def test_allocate_in_every_form(inputs, method, form, dtype):
    """The same demands as an array, a sparse matrix, nested lists or a DataFrame with
    text labels (read in its column order), in float64 or float32: the same allocation."""
    D, w = inputs
    outcome = fuzz.call(allocate_dense, as_given(D, form), method, weights=w, dtype=dtype)
    if outcome.refused:
        # float32's own floor, or no rows: an empty list is not 2-D
        assert (dtype == np.float32 and "smallest normal float32" in str(outcome.error) or
                form == "list" and not len(D)), outcome.error
        return
    A = outcome.value[0]
    slack = SLACK[np.dtype(dtype or np.float64)] + (max(w) / min(w) * 2.0**-50 if w else 0.0)
    # the demands as the kernel saw them (a dense float64 array's values below float32's
    # range become 0: test_float32_drops_dense_demands_below_its_range)
    assert_feasible(A, D.astype(dtype or np.float64).astype(np.float64), slack,
                    atol=np.finfo(dtype or np.float64).tiny)
    if dtype is None:
        expected = fuzz.call(allocate_dense, D, method, weights=w).value[0]
        np.testing.assert_array_equal(A, expected)


@fuzz.cases(WRONG_DEMANDS, st.sampled_from(METHODS + ("no-such", "online-drf", 3)), OPTIONS,
            st.booleans())
def test_allocate_and_run_on_anything(demands, method, options, through_run):
    """Any demands, method and options: a feasible allocation or a one-line
    ValueError/TypeError naming the argument."""
    if options.get("weights") == "ones":       # the right length, when there is one
        options["weights"] = [1.0] * (demands.shape[0] if sp.issparse(demands) else
                                      len(demands) if hasattr(demands, "__len__") else 0)
    call = (run_dense, method, demands) if through_run else (allocate_dense, demands, method)
    outcome = fuzz.call(*call, **options)
    if outcome.refused:
        assert_named(outcome.error)
        return
    D = (demands.toarray() if sp.issparse(demands) else
         pd.DataFrame(demands).to_numpy() if isinstance(demands, dict) else
         np.asarray(demands, dtype=np.float64))
    A, level, rounds, timed_out = outcome.value
    dtype = np.dtype(options.get("dtype") or (np.float32 if getattr(demands, "dtype", None)
                                              == np.float32 else np.float64))
    assert_feasible(A, D, SLACK.get(dtype, 1e-5), atol=np.finfo(dtype).tiny)
    assert np.isfinite(level).all()
    if options.get("deadline") is None and options.get("max_rounds") is None:
        assert not timed_out or method == "pedrf1"


POLICIES = (divisible.drf, divisible.asset_fairness, divisible.ceei)


def policy_allocation(policy, demands, weights):
    return np.asarray(policy(demands, weights))


@fuzz.cases(st.one_of(demand_arrays(ANY_FLOAT), WRONG_DEMANDS,
                      demand_arrays(st.floats(0.0, 1e300))),
            st.one_of(st.none(), st.lists(ANY_FLOAT, max_size=6)),
            st.sampled_from(POLICIES))
def test_divisible_policies(demands, weights, policy):
    """drfbench.drf's drf, asset_fairness and ceei on anything (per-task demands may exceed
    1): a feasible allocation or a named refusal."""
    outcome = fuzz.call(policy_allocation, policy, demands, weights)
    if outcome.refused:
        assert_named(outcome.error)
        return
    if isinstance(demands, dict):                # columns given by name, in their order
        demands = np.column_stack([np.asarray(c, dtype=np.float64) for c in demands.values()])
    D = demands.toarray() if sp.issparse(demands) else np.asarray(demands, dtype=np.float64)
    assert_feasible(outcome.value, D.reshape(outcome.value.shape))


@fuzz.cases(demand_arrays(st.one_of(VALUES, st.floats(0.0, 1e300))),
            st.lists(st.one_of(ANY_FLOAT, st.floats(0.0, 1e300)), max_size=6))
def test_progressive_filling(demands, rates):
    """progressive_filling with any rates: feasible, users of rate 0 get nothing."""
    outcome = fuzz.call(divisible.progressive_filling, demands, rates)
    if outcome.refused:
        assert_named(outcome.error)
        return
    A = outcome.value
    assert_feasible(A, demands)
    assert not A[np.asarray(rates) == 0].any()


def check_properties(demands, weights):
    """The property checker's instance over the input, then two of its checks on DRF."""
    inst = properties.instance(demands, weights)
    drf = properties.DemandsMethod(divisible.drf, "DRF")
    return (properties.share_guarantee(drf, [inst]).holds,
            properties.envy_freeness(drf, [inst]).holds)


@fuzz.cases(st.one_of(demand_arrays(ANY_FLOAT), WRONG_DEMANDS),
            st.one_of(st.none(), st.lists(ANY_FLOAT, max_size=6)))
def test_property_checker_instances(demands, weights):
    """properties.instance on anything: a named refusal, or an instance the checks run on
    (DRF keeps its share guarantee and envy-freeness there)."""
    outcome = fuzz.call(check_properties, demands, weights)
    if outcome.refused:
        assert_named(outcome.error)
        return
    assert outcome.value == (True, True)


def cluster_instance(task_demands, capacity):
    inst = properties.from_cluster(task_demands, capacity)
    return inst.demands, properties.DemandsMethod(divisible.drf, "DRF")(inst.demands)


@fuzz.cases(st.one_of(demand_arrays(st.one_of(ANY_FLOAT, st.floats(0.0, 1e300))),
                      WRONG_DEMANDS),
            st.one_of(st.lists(st.one_of(ANY_FLOAT, st.floats(0.0, 1e300)), max_size=5),
                      st.just("abc"), st.just([None, 1.0]), st.just([[1.0, 2.0]])))
def test_from_cluster(task_demands, capacity):
    """properties.from_cluster with any capacities: an instance DRF runs on, or a named
    refusal."""
    outcome = fuzz.call(cluster_instance, task_demands, capacity)
    if outcome.refused:
        assert_named(outcome.error)
        return
    D, A = outcome.value
    assert_feasible(A, D)


def read_csv_demands(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.csv"
        path.write_text(text)
        return workloads.read_demands(path).toarray()


CSV_CELLS = st.one_of(VALUES.map(repr), ANY_FLOAT.map(repr),
                      st.sampled_from(["", "x", "1e-400", "5e-324", "0x1p-1", " 0.5", "nan"]))


@fuzz.cases(st.lists(st.lists(CSV_CELLS, min_size=1, max_size=4), max_size=4))
def test_read_demands_csv(rows):
    """A CSV of anything: demands that allocate accepts, or a ValueError naming the file."""
    text = "\n".join(",".join(row) for row in rows)
    outcome = fuzz.call(read_csv_demands, text)
    if outcome.refused:
        assert "d.csv" in str(outcome.error), outcome.error
        return
    assert fuzz.call(allocate_dense, outcome.value, "edrf-event").value is not None


def is_number(cell):
    try:
        return not np.isnan(float(cell))
    except ValueError:
        return False


@fuzz.cases(st.sampled_from(["", "tenant,", "user,", "name,"]),
            st.lists(st.lists(st.sampled_from(["NA", "0.5", "0.25", "0", "1e-400", "x", "cpu"]),
                              min_size=2, max_size=2), min_size=1, max_size=4),
            st.sampled_from(["", "cpu,mem"]))
def test_read_demands_keeps_every_tenant(names, rows, header):
    """A demands CSV, with or without a header and a name column: every data row is a
    tenant (a first row holding any number is data: `NA,0.5` is a tenant with a bad
    cell, never a header), its numbers as written, or a ValueError naming the file and
    the cell; 1e-400 is refused, not read as 0."""
    lines = ([names + header] if header else []) + [
        (f"t{i}," if names and header else "") + ",".join(r) for i, r in enumerate(rows)]
    outcome = fuzz.call(read_csv_demands, "\n".join(lines) + "\n")
    if outcome.refused:
        assert "d.csv" in str(outcome.error), outcome.error
        return
    data = rows if header or any(map(is_number, rows[0])) else rows[1:]
    assert outcome.value.tolist() == [[float(c) for c in r] for r in data]
    assert "1e-400" not in sum(data, [])


@fuzz.cases(st.sampled_from(["A1", "b2", "Z9", "", 5]),
            st.one_of(st.integers(-1, 2**70), st.just(2.5), st.just(True)),
            st.one_of(st.integers(-1, 2**70), st.just("3")),
            st.one_of(st.integers(-1, 2**70), st.just(-0.5)),
            st.sampled_from([np.float32, np.float64, "int8", None, "nope"]))
def test_generate(profile, n_tenants, n_resources, seed, dtype):
    """workloads.generate with any arguments: a workload allocate accepts, or a refusal
    naming the argument (the sizes of the generated workloads are kept small)."""
    if isinstance(n_tenants, int) and isinstance(n_resources, int) and \
            1 <= n_tenants and 2 <= n_resources and n_tenants * n_resources > 10**5:
        n_tenants, n_resources = 50, 20
    outcome = fuzz.call(workloads.generate, profile, n_tenants, n_resources, seed=seed,
                        dtype=dtype, threads=1)
    if outcome.refused:
        assert_named(outcome.error)
        return
    assert fuzz.call(allocate_dense, outcome.value.demands, "edrf-event").value is not None


# -- the worst cases --------------------------------------------------------------

D3 = np.array([[0.5, 0.2], [0.1, 0.4], [0.3, 0.3]])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("weights", [[1e300] * 3, [1e-300] * 3, [1.0, 1e9, 1.0]])
def test_extreme_weights_within_the_bounds(method, weights):
    """Weights far from 1 (ratio 1) or 1e9 apart: the unweighted allocation, levels for the
    weights as given (the issue's hang, NaN and inf)."""
    A, level, _, timed_out = fuzz.call(allocate_dense, D3, method, weights=weights).value
    assert_feasible(A, D3)
    assert np.isfinite(level).all() and (level > 0).all() and not timed_out
    if weights[0] == weights[1]:
        plain = fuzz.call(allocate_dense, D3, method).value
        np.testing.assert_allclose(A, plain[0], rtol=1e-9)
        np.testing.assert_allclose(level * weights[0], plain[1], rtol=1e-9)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("weights, bound", [([1, 1e308, 1], "within a factor"),
                                            ([1.7e308] * 3, "must lie in"),
                                            ([5e-324] * 3, "must lie in")])
def test_weights_beyond_the_bounds(method, weights, bound):
    outcome = fuzz.call(allocate_dense, D3, method, weights=weights)
    assert isinstance(outcome.error, ValueError) and bound in str(outcome.error)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("demands, dtype", [
    ([[5e-324, 0.2], [0.1, 0.4]], None), ([[1e-310, 1e-310], [0.1, 0.4]], None),
    ([[1e-40, 0.2], [0.1, 0.4]], np.float32), ([[1e-300, 0.2], [0.1, 0.4]], np.float32)])
def test_demands_below_the_smallest_normal_number(method, demands, dtype):
    """Subnormal demands (or ones that become 0 or subnormal in float32) are refused: with
    them a tenant's scale 1 / max_r D_ir overflowed (hangs, NaN)."""
    D = sp.csr_array(np.array(demands)) if dtype else np.array(demands)
    outcome = fuzz.call(allocate_dense, D, method, dtype=dtype)
    assert isinstance(outcome.error, ValueError)
    assert "smallest normal" in str(outcome.error), outcome.error


@pytest.mark.parametrize("method", ["dcdrf", "sdcdrf", "pedrf"])
def test_dcdrf_cancellation(method):
    """Tenant 2's 1e-17 on resource 0 is below the rounding of 1 + 2e-17: once tenants 0
    and 1 leave, line 17's subtractions left mu_0 = -1e-17 and DC-DRF gave tenant 2 a
    level of -5e16. mu_r now stops at 0: the exact answer."""
    D = np.array([[1.0, 0.0, 1.0], [1e-17, 0.0, 1.0], [1e-17, 1.0, 0.0]])
    A, level, _, _ = fuzz.call(allocate_dense, D, method, threads=1).value
    np.testing.assert_allclose(level, [0.5, 0.5, 1.0], rtol=1e-12)
    assert_feasible(A, D)


def test_float32_drops_dense_demands_below_its_range():
    """A tenant whose every demand is below float32's range would get nothing, silently."""
    outcome = fuzz.call(allocate_dense, [[1e-300, 1e-300], [0.5, 0.5]], "edrf-event",
                        dtype=np.float32)
    assert outcome.refused and "smallest normal float32" in str(outcome.error)


@pytest.mark.parametrize("method", METHODS)
def test_tiny_normal_demands_with_weights(method):
    """The smallest normal demands beside large weight ratios: finite, the exact answer."""
    D = np.array([[TINY64, 0.0], [TINY64, TINY64], [0.2, 0.1]])
    w = [1e294, 1e300, 1e294]
    A, level, _, _ = fuzz.call(allocate_dense, D, method, weights=w).value
    assert_feasible(A, D)
    assert np.isfinite(level).all() and (level > 0).all()


@pytest.mark.parametrize("demands", [np.full((3, 2), 1e-300), [[1e-300, 1.0], [1.0, 1e-300]],
                                     [[TINY64, 0.5], [0.2, 0.1]]])
def test_ceei_on_tiny_demands(demands, capfd):
    """CEEI on 1e-300 demands: the allocation of the normalized rows, and nothing from
    LAPACK on stderr (it printed "DLASCL parameter 4" and raised LinAlgError)."""
    D = np.asarray(demands, dtype=np.float64)
    A = divisible.ceei(D)
    assert_feasible(A, D)
    np.testing.assert_allclose(A, divisible.ceei(D / D.max(axis=1, keepdims=True)), rtol=1e-9)
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("option, value, words", [
    ("max_rounds", 2**70, "max_rounds must lie in [1, 4611686018427387904]"), ("max_rounds", 0, "max_rounds"),
    ("deadline", 0, "deadline must lie in (0, inf]"), ("deadline", -1.0, "deadline"),
    ("deadline", float("nan"), "deadline must not be NaN"), ("epsilon", 1.0, "epsilon"),
    ("epsilon", float("nan"), "epsilon"), ("threads", 2**40, "threads must lie in [1, 1024]"),
    ("threads", 0, "threads"), ("dtype", "int32", "dtype"), ("dtype", 5, "dtype"),
    ("isa", "foo", "isa"), ("isa", ["avx2"], "isa")])
def test_options_out_of_bounds(option, value, words):
    outcome = fuzz.call(allocate_dense, D3, "dcdrf", **{option: value})
    assert outcome.refused and words in str(outcome.error), outcome.error


@pytest.mark.parametrize("deadline", [float("inf"), 1e308])
def test_deadline_without_a_bound(deadline):
    A, _, _, timed_out = fuzz.call(allocate_dense, D3, "dcdrf", deadline=deadline).value
    assert_feasible(A, D3) and not timed_out


def test_named_demands_are_read_in_their_column_order():
    """allocate has no table to match resource names against: a DataFrame with text labels
    is read in its column order; integer labels other than 0..m-1 are refused."""
    frame = pd.DataFrame(D3, columns=["mem", "cpu"])
    A = fuzz.call(allocate_dense, frame, "edrf-event").value[0]
    np.testing.assert_array_equal(A, fuzz.call(allocate_dense, D3, "edrf-event").value[0])
    outcome = fuzz.call(allocate_dense, pd.DataFrame(D3, columns=[2, 5]), "edrf-event")
    assert isinstance(outcome.error, TypeError) and "demands" in str(outcome.error)


def rounds_of(D, method):
    return drfbench.allocate(D, method, threads=1).rounds


@pytest.mark.parametrize("method", ["edrf", "dcdrf", "edrf-event"])
def test_round_budget_is_not_reached_on_many_resources(method):
    """A staircase exhausting one resource per round takes n_resources rounds, within the
    budget of n_resources + 2."""
    m = 30
    D = np.tril(np.ones((m, m))) / m
    assert fuzz.call(rounds_of, D, method).value <= m + 1
