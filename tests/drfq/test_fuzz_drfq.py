"""The fuzz suite for the flows input kind (drfbench.drfq): costs, every option of
simulate, the costs file, lecture and sweep, given values near the bounds and of the
wrong shape or type, either answer with finite results within the invariants (each
resource busy at most the duration, the flows' work adding up to it, packets conserved)
and, on small valid input, the decisions of the literal transcription; or refuse with a
ValueError/TypeError (tests/fuzz.py). And the issue's cases as regressions."""
import datetime
import os
import tempfile

import numpy as np
import pandas as pd
from hypothesis import strategies as st

import drfbench
import fuzz
from drfbench import drfq
from drfbench.drfq import model
from conftest import assert_same
from test_drfq import OUTPUTS, own

FUZZED = ("flows",)   # the input kinds this module fuzzes (tests/test_families.py)

US = 1e-6
LECTURE = [[1 * US, 6 * US], [7 * US, 1 * US]]
METHODS = drfbench.methods(takes="flows")
BIG = 10**400                # an integer too large for a float: OverflowError in float()
WILD = st.sampled_from([0, -1, 1e-300, float("nan"), float("inf"), 1e308, True, "1", None,
                        [1], 2**70, BIG, pd.Timestamp("2024-01-01")])
COSTS = st.sampled_from([0.0, 1e-300, 1 * US, 3 * US, 1e-3, model.MAX_SECONDS])
TIMES = st.sampled_from([1e-300, 1e-5, 1e-3, 0.01, model.MAX_SECONDS, pd.Timedelta(milliseconds=2),
                         datetime.timedelta(microseconds=500), np.timedelta64(1, "ms")])


def maybe(strategy, wild=WILD):
    """Mostly `strategy`, one time in six a wild value (not where hypothesis starts)."""
    return st.tuples(st.integers(0, 5), strategy, wild).map(lambda x: x[2] if x[0] == 5 else x[1])


def run(costs, method, options):
    """drfq.simulate's result as plain arrays."""
    r = drfq.simulate(costs, method, **options)
    return dict(duration=r.settings.duration, served=r.served, dispatched=r.dispatched,
                arrived=r.arrived, dropped=r.dropped, work=r.work, busy=r.busy_seconds,
                blocked=r.blocked_seconds, series=r.series, rows=r.rows())


def read(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "costs.csv")
        with open(path, "w") as f:
            f.write(text)
        return drfq.read_inputs(path)


def check(r):
    """The invariants of a run."""
    T = r["duration"]
    assert np.isfinite(r["work"]).all() and (r["work"] >= 0).all()
    assert (r["busy"] <= T * (1 + 1e-9)).all() and (r["busy"] + r["blocked"] <= T * (1 + 1e-9)).all()
    np.testing.assert_allclose(r["work"].sum(axis=0), r["busy"], rtol=1e-9, atol=1e-12 * T)
    assert (r["served"] <= r["dispatched"]).all() and (r["dropped"] <= r["arrived"]).all()
    assert r["series"].sum() <= r["served"].sum() and (r["series"] >= 0).all()
    assert all(np.isfinite(v) for row in r["rows"] for k, v in row.items()   # rate: NaN
               if isinstance(v, float) and k != "rate")                        # without one


@st.composite
def costs(draw):
    n, K, m = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(1, 3))
    c = np.array(draw(st.lists(COSTS, min_size=n * K * m, max_size=n * K * m))).reshape(n, K, m)
    c[..., 0] = np.where(c.max(axis=2) == 0, US, c[..., 0])
    return c[:, 0, :].tolist() if K == 1 and draw(st.booleans()) else c


OPTIONS = st.fixed_dictionaries({}, optional={
    "duration": maybe(TIMES), "rtt": maybe(TIMES), "interval": maybe(TIMES),
    "weights": maybe(st.lists(st.sampled_from([1e-12, 1.0, 3.0, 1e6, 1e12, BIG]), min_size=1,
                              max_size=3)),
    "rates": maybe(st.one_of(st.sampled_from([1.0, 1e5, 1e9, 1e300]),
                             st.lists(st.sampled_from([None, 1e4, 1e6]), min_size=1, max_size=3))),
    "source": maybe(st.one_of(st.sampled_from(model.SOURCES),
                              st.lists(st.sampled_from(model.SOURCES), min_size=1, max_size=3))),
    "packet_costs": maybe(st.sampled_from(model.PACKET_COSTS)),
    "resource": maybe(st.integers(0, 3)), "buffer": maybe(st.sampled_from([1, 3, 100, 2**40])),
    "stage_buffer": maybe(st.sampled_from([1, 2, 32, 2**40])),
    "initial_window": maybe(st.sampled_from([1, 10, 2**40])),
    "bins": maybe(st.sampled_from([0, 1, 7, 2**40])), "seed": maybe(st.integers(0, 2**64)),
})


@fuzz.cases(c=maybe(costs(), st.sampled_from([[1e-6, 2e-6], [[1e-6], [1e-6, 2e-6]], [["a", 1]],
                                              [[np.nan, 1.0]], [], 5, [[BIG, 1e-6]], {},
                                              pd.DataFrame(LECTURE, columns=[3, 7]),
                                              pd.DataFrame(LECTURE, columns=["cpu", "nic"]),
                                              {"cpu": [1e-6, 7e-6], "nic": [6e-6, 1e-6]},
                                              {"cpu": 1e-6, "nic": 1e-6}, [[0.0, 0.0]]])),
            method=maybe(st.sampled_from(METHODS), st.sampled_from(["wfq", "drf", 3])),
            options=OPTIONS)
def test_simulate(c, method, options):
    if method in METHODS:
        options = own(options, method)
    outcome = fuzz.call(run, c, method, options)
    if not outcome.refused:
        check(outcome.value)


@st.composite
def small_case(draw):
    """Small valid flows, weights and costs at the bounds' scales, every source and
    method: a few hundred decisions."""
    n, m, K = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
    units = np.array(draw(st.lists(st.integers(0, 3), min_size=n * K * m, max_size=n * K * m)),
                     dtype=float).reshape(n, K, m)
    units[..., 0] = np.where(units.max(axis=2) == 0, 1.0, units[..., 0])
    unit = draw(st.sampled_from([1e-9, US, 1e-3]))
    scale = draw(st.sampled_from([1e-12, 1.0, 1e6]))
    source = draw(st.lists(st.sampled_from(model.SOURCES), min_size=n, max_size=n))
    rates = [draw(st.sampled_from([0.2, 0.5, 1.0])) / unit if s in model.OPEN_LOOP else None
             for s in source]
    duration = 200 * unit
    options = dict(weights=[scale * draw(st.sampled_from([1.0, 3.0, 1e6])) for _ in range(n)],
                   source=source, rates=rates, duration=duration, interval=duration / 7,
                   rtt=draw(st.sampled_from([1, 5])) * unit, resource=draw(st.integers(0, m - 1)),
                   packet_costs=draw(st.sampled_from(model.PACKET_COSTS)),
                   buffer=draw(st.integers(1, 4)), stage_buffer=draw(st.integers(1, 3)),
                   initial_window=draw(st.integers(1, 3)), bins=5, seed=draw(st.integers(0, 9)))
    return units * unit, draw(st.sampled_from(METHODS)), options


def kernel_and_literal(costs, method, options):
    options = own(options, method)
    return (drfq.simulate(costs, method, decisions=True, **options),
            drfq.simulate(costs, method, decisions=True, literal=True, **options))


@fuzz.cases(case=small_case())
def test_kernel_decides_as_the_literal_transcription(case):
    outcome = fuzz.call(kernel_and_literal, *case)
    if outcome.refused:                      # weights beyond MAX_WEIGHT_RATIO
        assert "factor" in str(outcome.error)
        return
    kernel, literal = outcome.value
    assert_same(kernel, literal, OUTPUTS)
    assert np.isfinite(kernel.work).all() and (kernel.busy_seconds <= kernel.settings.duration * (1 + 1e-9)).all()


@fuzz.cases(text=st.sampled_from(["cpu,nic\n1e-6,2e-6\n", "cpu,nic\n0,0\n", "cpu,nic\n1e-6\n",
                                  "cpu,nic\nx,1\n", "", "cpu\n-1\n", "cpu,nic\nnan,1\n",
                                  "\ufeffcpu,nic\n1e-6,1e-6\n", "cpu,cpu\n1,1\n", "cpu,nic\n1e400,1\n"]))
def test_read_inputs(text):
    outcome = fuzz.call(read, text)
    if outcome.refused:
        assert "costs file" in str(outcome.error)
    else:
        assert np.isfinite(outcome.value).all() and (outcome.value.max(axis=1) > 0).all()


@fuzz.cases(duration=maybe(st.sampled_from([1e-4, 1e-3])), rtt=maybe(st.sampled_from([1e-5, 1e-4])),
            interval=maybe(st.sampled_from([1e-5, 1e-4])), seed=maybe(st.integers(0, 3)))
def test_lecture(duration, rtt, interval, seed):
    outcome = fuzz.call(drfq.lecture, duration=duration, rtt=rtt, interval=interval, seed=seed,
                        sources=("backlogged",))
    if not outcome.refused:
        assert all(np.isfinite(r["throughput"]) and 0 <= r["dominant_share"] <= 1 + 1e-9
                   for r in outcome.value)


@fuzz.cases(flows=maybe(st.sampled_from([(2,), (3,)]), st.sampled_from([(0,), (-1,), (2.5,), 2,
                                                                         (BIG,), (2**40,)])),
            resources=maybe(st.sampled_from([(1,), (2,)]), st.sampled_from([(0,), ("x",), (BIG,)])),
            packets=maybe(st.sampled_from([1, 5])), interval=maybe(st.sampled_from([1e-5, 1e-4])))
def test_sweep(flows, resources, packets, interval):
    outcome = fuzz.call(drfq.sweep, flows=flows, resources=resources, packets=packets,
                        interval=interval, sources=("backlogged",), methods=("drfq", "fifo"))
    if not outcome.refused:
        assert all(np.isfinite(r["busy_max"]) and r["busy_max"] <= 1 + 1e-9 for r in outcome.value)


# ---------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------


def test_work_beyond_the_budget_is_refused_before_it_starts():
    for options in [dict(duration=1e9), dict(rates=[1e300, 1e300], source="constant"),
                    dict(source="tcp", rtt=1e-15), dict(stage_buffer=2**40),
                    dict(initial_window=2**40, source="tcp"), dict(bins=2**40)]:
        outcome = fuzz.call(run, LECTURE, "drfq", options)
        assert isinstance(outcome.error, ValueError), options
        assert any(k in str(outcome.error) for k in ("budget", "at most", "must lie in")), outcome.error
    assert "budget" in str(fuzz.call(run, [[1e-300, 1e-300]], "drfq", {}).error)


def test_times_are_seconds_and_points_in_time_refused():
    seconds = fuzz.call(run, LECTURE, "drfq", dict(duration=0.002)).value
    timedelta = fuzz.call(run, LECTURE, "drfq", dict(duration=pd.Timedelta(milliseconds=2))).value
    assert timedelta["duration"] == 0.002 and np.array_equal(seconds["served"], timedelta["served"])
    outcome = fuzz.call(run, LECTURE, "drfq", dict(duration=pd.Timestamp("2024-01-01")))
    assert isinstance(outcome.error, TypeError) and "points in time" in str(outcome.error)


def test_weights_are_bounded():
    for weights, message in [([1, 1e10], "factor"), ([1e-300, 1e-300], "flow 0's weight"),
                             ([1, 1e300], "flow 1's weight")]:
        outcome = fuzz.call(run, LECTURE, "drfq", dict(weights=weights))
        assert isinstance(outcome.error, ValueError) and message in str(outcome.error)


def test_resource_out_of_range_and_costs_out_of_bounds():
    assert "resource must be" in str(fuzz.call(run, LECTURE, "fq", dict(resource=2)).error)
    assert "resource must lie in [0, inf), got -1" in str(fuzz.call(run, LECTURE, "fq", dict(resource=-1)).error)
    assert "at most 1e+09" in str(fuzz.call(run, [[1e300, 1]], "drfq", {}).error)


def test_weights_within_the_documented_factor():
    """simulate's docstring says weights lie within a factor MAX_WEIGHT_RATIO (1e9) of each
    other (it said 1e6): 1e9 is accepted, past it refused."""
    from drfbench._validation import MAX_WEIGHT_RATIO
    assert "MAX_WEIGHT_RATIO (1e9)" in drfq.simulate.__doc__ and "1e6" not in drfq.simulate.__doc__
    assert not fuzz.call(run, LECTURE, "drfq", dict(weights=[1, MAX_WEIGHT_RATIO])).refused
    outcome = fuzz.call(run, LECTURE, "drfq", dict(weights=[1, MAX_WEIGHT_RATIO * 1.5]))
    assert isinstance(outcome.error, ValueError) and "factor" in str(outcome.error)


def test_costs_by_name_are_read_as_drfbench_allocate_reads_demands():
    """Text labels (a DataFrame's, a dict's) are resources in column order, labels 0..m-1
    positions; other labels that are not text are refused, as allocate refuses them (they
    were read by position), and a dict that is not one cost per flow per column is refused
    naming the dict (it got "got shape ()")."""
    array = fuzz.call(run, LECTURE, "drfq", {}).value
    for costs in [pd.DataFrame(LECTURE, columns=["cpu", "nic"]), pd.DataFrame(LECTURE),
                  {"cpu": [LECTURE[0][0], LECTURE[1][0]], "nic": [LECTURE[0][1], LECTURE[1][1]]},
                  pd.DataFrame({"cpu": pd.to_timedelta([1, 7], unit="us"),
                                "nic": pd.to_timedelta([6, 1], unit="us")})]:
        named = fuzz.call(run, costs, "drfq", {}).value
        assert np.array_equal(named["served"], array["served"]), costs
    swapped = fuzz.call(run, pd.DataFrame(LECTURE, columns=["nic", "cpu"]), "drfq", {}).value
    assert np.array_equal(swapped["served"], array["served"])         # column order: pipeline
    frame = pd.DataFrame(LECTURE, columns=[3, 7])
    outcome = fuzz.call(run, frame, "drfq", {})
    assert isinstance(outcome.error, TypeError) and "column labels" in str(outcome.error)
    assert type(fuzz.call(drfbench.allocate, frame * 1e5).error) is type(outcome.error)
    for costs, message in [({"cpu": 1e-6, "nic": 2e-6}, "one value per row (a list), got shape ()"),
                           ({"cpu": [1e-6, 1e-6], "nic": [1e-6]}, "lengths [1, 2]"),
                           ({}, "at least one resource"), ({0: [1e-6], 1: [1e-6]}, "column labels"),
                           (pd.DataFrame(LECTURE, columns=["cpu", "cpu"]), "twice")]:
        outcome = fuzz.call(run, costs, "drfq", {})
        assert outcome.refused and message in str(outcome.error), (costs, outcome)


def test_integers_too_large_for_a_float_are_refused_naming_the_argument():
    for costs, options, message in [
            ([[BIG, 1e-6]], {}, "costs at index (0, 0) is too large (401 digits"),
            (LECTURE, dict(weights=[1, BIG]), "weights at index (1,) is too large"),
            (LECTURE, dict(duration=BIG), "duration must lie in (0, 1e+09], got an integer of 401 digits"),
            (LECTURE, dict(rtt=BIG, source="tcp"), "rtt must lie in (0, 1e+09]"),
            (LECTURE, dict(rates=[None, BIG], source=["tcp", "constant"]),
             "rates: flow 1's rate is too large"),
            (LECTURE, dict(bins=10**5000), "an integer of 5001 digits")]:
        outcome = fuzz.call(run, costs, "drfq", options)
        assert isinstance(outcome.error, ValueError) and message in str(outcome.error), outcome
    for keywords, message in [(dict(packets=BIG), "packets is too large"),
                              (dict(interval=BIG), "interval is too large"),
                              (dict(flows=(BIG,)), "an integer of 401 digits"),
                              (dict(flows=(2**20,), resources=(2**10,)), "MAX_STATE")]:
        outcome = fuzz.call(drfq.sweep, **{**dict(flows=(2,), resources=(2,), packets=1,
                                                 methods=("drfq",)), **keywords})
        assert isinstance(outcome.error, ValueError) and message in str(outcome.error), outcome
    outcome = fuzz.call(drfq.lecture_series, duration=1e-3, bin_width=0)
    assert isinstance(outcome.error, ValueError) and "bin_width" in str(outcome.error)


def test_a_flow_costing_nothing_anywhere_is_refused():
    """model.MAX_SECONDS' comment: a cost may be 0 on some resources, not on all."""
    assert not fuzz.call(run, [[0.0, 1e-6], [1e-6, 0.0]], "drfq", {}).refused
    for costs, message in [([[1e-6, 1e-6], [0.0, 0.0]], "flow 1 is zero on every resource"),
                           ([[[1e-6, 0.0], [0.0, 0.0]]], "flow 0's cost vector 1 of its cycle")]:
        outcome = fuzz.call(run, costs, "drfq", {})
        assert isinstance(outcome.error, ValueError) and message in str(outcome.error)
    assert "line 3 costs 0 on every resource" in str(fuzz.call(read, "cpu,nic\n1,1\n0,0\n").error)
