"""The fuzz suite of DRFH's two input kinds (tests/fuzz.py): "servers"
(drfbench.drfh.allocate, its property checks) and "trace" (drfbench.drfh.simulate,
scheduler, LiteralScheduler, capped, slot_counts and the trace readers). Every entry point,
on generated input of the right shape and of the wrong shape, returns a result that passes
the family's invariants or raises ValueError/TypeError; then the issue's worst cases
(issue 29) as regression tests."""
import datetime
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st

import fuzz
from drfbench import drfh, sim
from drfbench.drfh import exact
from drfbench.drfh import properties as props
from drfbench.drfh import simulation
from drfbench.drfh import trace as tr

FUZZED = ("servers", "trace")   # the input kinds this module fuzzes (tests/test_families.py)
NAN, INF = math.nan, math.inf
# numbers near the bounds and past them, beside ordinary ones
EXTREME = st.sampled_from([0.0, -0.0, 1e-4, 1e4, 1e-12, 1e-300, 5e-324, 1e6, 1e300, 1.7e308,
                           -1.0, NAN, INF, -INF])
NICE = st.one_of(st.floats(0.05, 10.0), st.sampled_from([0.0, 1.0, 2.0]))
WRONG = st.sampled_from([None, "x", [[1.0, "a"]], [[1.0], [1.0, 2.0]], [1.0, 2.0],
                         [[[1.0]]], [], [[]], {"cpu": "x"}, {1: [1.0]}, object()])
RESOURCES = ("cpu", "mem", "gpu")


def one_in(k):
    """True once in k draws (hypothesis favours the small end of a range: 0 would come up
    far more often than once in k)."""
    return st.sampled_from([False] * (k - 1) + [True])


@st.composite
def cells(draw, rows, cols, nice=NICE):
    """A rows x cols list of lists of `nice` numbers, one of them replaced by an EXTREME
    one a third of the time."""
    values = draw(st.lists(st.lists(nice, min_size=cols, max_size=cols), min_size=rows,
                           max_size=rows))
    if rows and cols and draw(one_in(3)):
        values[draw(st.integers(0, rows - 1))][draw(st.integers(0, cols - 1))] = draw(EXTREME)
    return values


def _table(values, names, form, permute):
    """values (rows, m) as the entry point would be given them: "array", "list", "frame"
    (named, columns permuted by `permute`) or "dict" (named)."""
    a = np.array(values, dtype=np.float64).reshape(len(values), len(names))
    if form == "array":
        return a
    if form == "list":
        return a.tolist()
    order = [names[i] for i in permute(len(names))]
    columns = {r: a[:, names.index(r)] for r in order}
    return pd.DataFrame(columns) if form == "frame" else columns


@st.composite
def server_inputs(draw):
    """(demands, servers, method, options) of drfh.allocate: mostly valid shapes with
    numbers near and past the bounds, sometimes a wrong-shaped argument."""
    n, L, m = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    names = list(RESOURCES[:m])
    permute = draw(st.sampled_from([lambda k: range(k), lambda k: reversed(range(k))]))
    a, C = draw(cells(n, m)), draw(cells(L, m))
    forms = st.sampled_from(["array", "list", "frame", "dict"])
    demands = _table(a, names, draw(forms), lambda k: range(k))
    servers = _table(C, names, draw(forms), permute)
    if draw(one_in(15)):
        demands = draw(WRONG)
    if draw(one_in(15)):
        servers = draw(WRONG)
    method = draw(st.sampled_from(["drfh", "drfh", "per-server-drf"]))
    options = {}
    if draw(st.booleans()):
        options["weights"] = draw(st.one_of(
            cells(1, n, st.floats(0.5, 4.0)).map(lambda w: w[0]),
            st.lists(st.floats(0.5, 4.0), min_size=n + 1, max_size=n + 1)))
    if draw(st.booleans()):
        options["tasks"] = draw(cells(1, n, st.one_of(
            st.floats(0.0, 20.0), st.sampled_from([INF, 2.0**62, 2.0**63]))).map(lambda x: x[0]))
    if draw(one_in(4)):
        options["solver"] = draw(st.sampled_from(["lp", "aggregate", "simplex", None]))
    if draw(one_in(30)):
        options["epsilon"] = 0.1                    # an option no DRFH method takes
    return demands, servers, method, options


def allocate_arrays(demands, servers, method, options):
    """drfh.allocate's result as plain arrays (picklable)."""
    r = drfh.allocate(demands, servers, method, **options)
    return {"tasks": r.tasks, "allocation": r.allocation, "level": r.level,
            "finished": r.finished, "no_demand": r.no_demand, "no_fit": r.no_fit}


def drfh_properties(a, C, w, x):
    """Whether DRFH's result on the instance passes the family's own checks (Pareto
    optimality and envy-freeness, drfbench.drfh.properties), with the worst departures.
    The Pareto LP lets every user lose 1e-9 of its tasks (relative): the gain that frees
    for another grows with the spread of the normalized demands, and so does the
    tolerance."""
    inst = props.server_instance(a, C, w, x)
    D = a / inst.pool
    tol = max(props.TOL, 1e-8 * D.max() / D[D > 0].min())
    verdicts = [props.server_pareto_efficiency("drfh", [inst], tol=tol),
                props.server_envy_freeness("drfh", [inst])]
    return [(v.property, v.holds, v.worst) for v in verdicts]


@fuzz.cases(server_inputs())
def test_allocate(case):
    """drfh.allocate: capacity respected on every server, allocations finite and >= 0,
    tasks within each user's count; DRFH's weighted global dominant shares equal among the
    users neither finished nor blocked (every demand and capacity positive: all block
    together), the aggregate solver equal to the literal LP, and the family's property
    checks passed."""
    check_allocate(case)


def check_allocate(case):
    """test_allocate's assertions on one case."""
    demands, servers, method, options = case
    outcome = fuzz.call(allocate_arrays, demands, servers, method, options)
    if outcome.refused:
        assert "\n" not in str(outcome.error)
        return
    a, C, w, x = exact.checked(demands, servers, options.get("weights"), options.get("tasks"))
    r = outcome.value
    A = r["allocation"]
    assert A.shape == (len(a), len(C), a.shape[1])
    assert np.isfinite(A).all() and (A >= 0).all() and np.isfinite(r["tasks"]).all()
    T = C.sum(axis=0)
    assert (A.sum(axis=0) <= C * (1 + 1e-6) + 1e-9 * T).all(), "a server's capacity exceeded"
    assert (r["tasks"] <= x * (1 + 1e-9)).all(), "more tasks than a user has"
    if method != "drfh":
        return
    if "solver" not in options:
        lp = fuzz.call(allocate_arrays, demands, servers, method, {**options, "solver": "lp"})
        np.testing.assert_allclose(r["tasks"], lp.value["tasks"], rtol=1e-5,
                                   atol=1e-9 * r["tasks"].max())
    if (a > 0).all() and (C > 0).all():
        free = np.setdiff1d(np.arange(len(a)), r["finished"])
        if free.size:
            top = r["level"][free].max()
            assert r["level"][free].min() >= top * (1 - 1e-5), "unequal levels"
            assert (r["level"] <= top * (1 + 1e-5)).all()
    if (a > 0).any(axis=1).all():
        for name, holds, worst in fuzz.call(drfh_properties, a, C, w, x).value:
            assert holds, f"{name}: worst departure {worst}"


# The long form's finds (FUZZ_EXAMPLES=4000): a cap of a subnormal number of tasks (5e-324)
# fell below the levels' resolution: users got nothing, twice their cap, unequal levels.
SUBNORMAL_CAPS = [([[1.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [2.0, 0.0]], [5e-324, INF]),
                  ([[1.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [2.0, 0.125]], [5e-324, INF]),
                  ([[1.0, 1.0]], [[1.0, 1.0], [1.0, 0.5]], [5e-324]),
                  ([[1.0], [0.25]], [[0.5]], [1.0, 5e-324]),
                  ([[1.0], [0.5]], [[1.0]], [1.0, 5e-324])]


@pytest.mark.parametrize("demands, servers, tasks", SUBNORMAL_CAPS)
def test_task_caps_below_the_levels_resolution(demands, servers, tasks):
    """Caps in (0, 2**-62) are refused; at 2**-62 the same instances pass every check."""
    fuzz.refused(drfh.allocate, np.array(demands), np.array(servers), "drfh", tasks=tasks,
                 match="tasks must be 0 or in [2**-62, 2**62]")
    smallest = [exact.MIN_TASKS if t == 5e-324 else t for t in tasks]
    check_allocate((np.array(demands), np.array(servers), "drfh", {"tasks": smallest}))


# -- trace --------------------------------------------------------------------------------

JOBS = {"a": 1, "b": 2, 3: 3}        # a job per user
SAMPLE = st.one_of(st.sampled_from([1.0, 5.0, 60.0]),
                   st.sampled_from([None, 1e-9, 1e300, 0.0, -1.0, NAN, INF, "x"]))
HORIZON = st.one_of(st.just(INF), st.sampled_from([10.0, 0.0, 1e300, -1.0, NAN, None]))


@st.composite
def trace_inputs(draw):
    """(servers, tasks, method, options) of drfh.simulate: DataFrames in the generic
    format (columns in any order), durations as numbers or timedelta, arrivals sometimes
    points in time, numbers near and past the bounds."""
    M, m, N = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(0, 6))
    names = list(RESOURCES[:m])
    C = draw(cells(M, m, st.one_of(st.floats(0.25, 1.0), st.just(1.0))))
    servers = pd.DataFrame(np.array(C).reshape(M, m), columns=names)
    if draw(st.booleans()):
        servers = servers[names[::-1]]
    user = draw(st.lists(st.sampled_from(["a", "b", 3]), min_size=N, max_size=N))
    gaps = draw(cells(1, N, st.sampled_from([0.0, 1.0, 2.5])))[0] if N else []
    arrival = np.cumsum(gaps) if N else np.zeros(0)
    duration = draw(cells(1, N, st.floats(0.5, 20.0)))[0] if N else []
    D = draw(cells(N, m, st.one_of(st.floats(0.0, 0.6), st.just(0.0))))
    tasks = pd.DataFrame({"user": pd.Series(user, dtype=object), "job": [JOBS[u] for u in user],
                          "arrival": arrival, "duration": duration})
    for j, r in enumerate(names):
        tasks[r] = np.array(D, dtype=np.float64).reshape(N, m)[:, j]
    times = draw(st.sampled_from(["seconds"] * 4 + ["timedelta", "datetime"]))
    if times == "timedelta" and np.isfinite(duration).all() and (np.abs(duration) < 1e6).all():
        tasks["duration"] = pd.to_timedelta(tasks["duration"], unit="s")
    elif times == "datetime":
        tasks["arrival"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(
            np.nan_to_num(np.clip(arrival, 0.0, 1e6)), unit="s")
    tasks = tasks[draw(st.permutations(list(tasks.columns)))]
    method = draw(st.sampled_from(["drfh-best-fit", "drfh-first-fit", "drfh-slots"]))
    options = {"sample": draw(SAMPLE), "horizon": draw(HORIZON)}
    if method == "drfh-slots":
        options["slots"] = draw(st.one_of(st.sampled_from([1, 3, 14]),
                                          st.sampled_from([2**40, 0, -1, 1.5, True])))
        options["slot_model"] = draw(st.sampled_from(["timeshare", "capped", "capped", "lax"]))
    if draw(one_in(4)):
        labels = list(pd.unique(tasks["user"])) if "user" in tasks else []
        options["weights"] = draw(st.one_of(
            cells(1, len(labels), st.floats(0.5, 4.0)).map(lambda w: w[0]),
            st.just({u: 2.0 for u in labels}), st.just({})))
    return servers, tasks, method, options


def simulate_arrays(servers, tasks, method, options):
    """drfh.simulate's result as plain arrays: the task table, the unschedulable rows, the
    utilization samples, the run's end."""
    res = drfh.simulate(servers, tasks, method, **options)
    return {"tasks": res.run.tasks, "unschedulable": res.run.unschedulable,
            "utilization": res.utilization.to_numpy(), "end": res.run.end,
            "resources": res.resources}


@fuzz.cases(trace_inputs())
def test_simulate(case):
    """drfh.simulate: samples finite and within [0, 1]; every task starts after it arrives
    on a server where it fits next to the tasks running there (slots: within the server's
    slots); without a horizon every schedulable task ends; the literal transcription makes
    the same decisions."""
    servers, tasks, method, options = case
    outcome = fuzz.call(simulate_arrays, servers, tasks, method, options)
    if outcome.refused:
        assert "\n" not in str(outcome.error)
        return
    r = outcome.value
    resources, C = drfh.read_servers(servers)
    assert r["resources"] == resources
    D = tasks[list(resources)].to_numpy(dtype=np.float64)
    T = r["tasks"]
    u = r["utilization"]
    assert np.isfinite(u).all() and (u >= 0).all() and (u <= 1 + 1e-9).all()
    started = np.flatnonzero(T["machine"] >= 0)
    assert (T["start"][started] >= T["arrival"][started]).all()
    slots = drfh.slot_counts(C, options.get("slots", 14)) if method == "drfh-slots" else None
    for t in started:
        k, s = T["machine"][t], T["start"][t]
        on = started[(T["machine"][started] == k) & (T["start"][started] <= s) &
                     ~(T["end"][started] <= s)]
        if slots is not None:
            assert len(on) <= slots[k], "more tasks than slots"
        elif options.get("slot_model") is None:
            assert (D[on].sum(axis=0) <= C[k] * (1 + 1e-9)).all(), "a server overcommitted"
    if options.get("horizon") == INF:
        schedulable = np.setdiff1d(np.arange(len(tasks)), r["unschedulable"])
        assert np.isfinite(T["end"][schedulable]).all()
    literal = fuzz.call(simulate_arrays, servers, tasks, method, {**options, "literal": True})
    assert literal.value["tasks"]["machine"].tolist() == T["machine"].tolist()
    np.testing.assert_array_equal(literal.value["tasks"]["start"], T["start"])


DAY = 86400.0


@st.composite
def month_trace_inputs(draw):
    """(servers, tasks, method, options) of drfh.simulate on a trace like the public
    ones (issue 34): arrivals over 30 to 90 days, durations log-uniform from 1 ms to 90
    days (sometimes as timedelta), the default sample (60 s) or an hour."""
    n = draw(st.integers(1, 6))
    span = draw(st.floats(30 * DAY, 90 * DAY))
    arrival = np.sort(draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-3, span)),
                                    min_size=n, max_size=n)))
    duration = 10.0 ** np.array(draw(st.lists(st.floats(-3.0, math.log10(90 * DAY)),
                                               min_size=n, max_size=n)))
    user = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    tasks = pd.DataFrame({"user": pd.Series(user, dtype=object), "job": [JOBS[u] for u in user],
                          "arrival": arrival, "duration": duration,
                          "cpu": draw(st.lists(st.floats(0.1, 0.6), min_size=n, max_size=n)),
                          "mem": draw(st.lists(st.one_of(st.just(0.0), st.floats(0.01, 0.6)),
                                               min_size=n, max_size=n))})
    if draw(st.booleans()):
        tasks["duration"] = pd.to_timedelta(tasks["duration"], unit="s")
    servers = pd.DataFrame({"cpu": [1.0, 0.5], "mem": [1.0, 0.75]})
    method = draw(st.sampled_from(["drfh-best-fit", "drfh-first-fit"]))
    options = {} if draw(st.booleans()) else {"sample": 3600.0}
    return servers, tasks, method, options


@fuzz.cases(month_trace_inputs())
def test_simulate_month_long_trace(case):
    """A month or more of trace at the default sample: never refused (it was, past 2**21 x
    the shortest duration, and a 30-day horizon too); every task ends at exactly its start
    plus its duration (DRFH never time-shares a server); the literal transcription agrees."""
    servers, tasks, method, options = case
    outcome = fuzz.call(simulate_arrays, servers, tasks, method, options)
    assert not outcome.refused, outcome.error
    T = outcome.value["tasks"]
    duration = tr.read_trace(tasks, drfh.read_servers(servers)[0])[1].duration   # seconds
    np.testing.assert_array_equal(T["end"], T["start"] + duration)
    assert (T["start"] >= T["arrival"]).all()
    literal = fuzz.call(simulate_arrays, servers, tasks, method, {**options, "literal": True})
    np.testing.assert_array_equal(literal.value["tasks"]["end"], T["end"])


def slots_and_capped(machines, k, demands, duration):
    """slot_counts(machines, k), and capped's durations and demands on a one-user trace."""
    trace = sim.Trace(np.zeros(len(demands), dtype=np.int64), np.arange(len(demands)),
                      np.zeros(len(demands)), duration, demands)
    out = drfh.capped(trace, machines, k)
    return drfh.slot_counts(machines, k), out.duration, out.demands


@fuzz.cases(st.integers(1, 3).flatmap(lambda M: cells(M, 2, st.floats(0.1, 1.0))),
            st.one_of(st.sampled_from([1, 2, 14]),
                      st.sampled_from([2**40, 2**62, 2**63, 0, -3, 1.5, None, True])),
            st.integers(1, 3).flatmap(lambda N: cells(N, 2, st.floats(0.0, 1.0))),
            st.floats(0.5, 10.0))
def test_slots_and_capped(machines, k, demands, duration):
    """slot_counts: whole slots between 0 and k per server; capped: tasks that fit hold at
    most a slot, durations finite and no shorter."""
    outcome = fuzz.call(slots_and_capped, machines, k, demands, np.full(len(demands), duration))
    if outcome.refused:
        return
    slots, stretched, held = outcome.value
    assert slots.dtype == np.int64 and (slots >= 0).all() and (slots <= k).all()
    assert np.isfinite(stretched).all() and (stretched >= duration).all()
    C = np.asarray(machines, dtype=np.float64)
    fits = sim.fits_somewhere(np.asarray(demands, dtype=np.float64), C)
    assert (held[fits] <= C.max(axis=0) / k * (1 + 1e-12)).all()


CELLS = st.sampled_from(["-1", "nan", "inf", "1e400", "x", "", "1e-300", "1,5", '"2"', "0"])
HEADERS = st.sampled_from(["cpu", "mem", "count", "user", "job", "arrival", "duration", "", "x"])


@st.composite
def csv_files(draw):
    """The texts of a servers file and a tasks file (as bytes): valid, or with one thing
    wrong: a cell, a header, a ragged row, a byte-order mark, a Latin-1 byte, no rows."""
    m = draw(st.integers(1, 2))
    names = list(RESOURCES[:m])
    servers = [names + (["count"] if draw(st.booleans()) else [])]
    for _ in range(draw(st.integers(1, 3))):
        servers.append([str(draw(st.sampled_from([0.5, 1.0, 2.0]))) for _ in names] +
                       [str(draw(st.integers(0, 2)))] * (len(servers[0]) - m))
    columns = draw(st.permutations(["user", "job", "arrival", "duration", *names]))
    tasks = [columns]
    for i in range(draw(st.integers(1, 4))):
        row = {"user": draw(st.sampled_from(["a", "b", "7"])), "job": str(i), "arrival": str(i),
               "duration": str(draw(st.sampled_from([1, 2.5, 10])))}
        tasks.append([row.get(c, str(draw(st.sampled_from([0.0, 0.25, 0.5])))) for c in columns])
    table = draw(st.sampled_from([servers, tasks]))
    spoil = draw(st.sampled_from(["none", "none", "cell", "header", "ragged", "bom", "latin-1",
                                  "no rows"]))
    if spoil == "cell":
        table[draw(st.integers(1, len(table) - 1))][0] = draw(CELLS)
    elif spoil == "header":
        table[0][-1] = draw(HEADERS)
    elif spoil == "ragged":
        table[-1] = table[-1][:-1]
    elif spoil == "no rows":
        del table[1:]
    texts = ["\n".join(",".join(row) for row in t).encode() + b"\n" for t in (servers, tasks)]
    if spoil == "bom":
        texts[0] = b"\xef\xbb\xbf" + texts[0]
    elif spoil == "latin-1":
        texts[1] = texts[1].replace(b"user", b"us\xe9r")
    return texts


def read_files(servers_text, tasks_text):
    """read_servers and read_tasks on the texts written to files, as plain arrays."""
    with tempfile.TemporaryDirectory() as tmp:
        s, t = Path(tmp) / "servers.csv", Path(tmp) / "tasks.csv"
        s.write_bytes(servers_text)
        t.write_bytes(tasks_text)
        resources, C = drfh.read_servers(s)
        trace = drfh.read_tasks(t, resources)
        return C, trace.demands, trace.arrival, trace.duration


@fuzz.cases(csv_files())
def test_read_files(texts):
    """read_servers and read_tasks on files: finite capacities >= 0 with every server some
    capacity, tasks finite, arrivals sorted, durations positive; else a one-line error
    naming the file."""
    outcome = fuzz.call(read_files, *texts)
    if outcome.refused:
        assert "\n" not in str(outcome.error) and "file" in str(outcome.error)
        return
    C, D, arrival, duration = outcome.value
    assert np.isfinite(C).all() and (C >= 0).all() and (C.max(axis=1) > 0).all()
    assert np.isfinite(D).all() and (D >= 0).all()
    assert (np.diff(arrival) >= 0).all() and (duration > 0).all() and np.isfinite(duration).all()


ALIBABA_SAMPLE = "0,j_1,t1,5,100,0.5,2\n3,j_2,t1,0,50,1.0,1\n7,j_3,t1,9,300,0.2,3\n"


def generators(n, seed, users, skew, fraction, cores, task_scale):
    """google_servers and alibaba_tasks (on a three-job sample) as plain arrays."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "sample.csv"
        source.write_text(ALIBABA_SAMPLE)
        servers = drfh.google_servers(n, seed=seed)
        tasks = drfh.alibaba_tasks(source=source, users=users, skew=skew, fraction=fraction,
                                   seed=seed, cores=cores, task_scale=task_scale)
    return servers.to_numpy(), tasks[["arrival", "duration", "cpu", "memory"]].to_numpy()


ARGUMENT = st.sampled_from([1, 3, 0, -1, 1.5, True, None, "3", 2**70, NAN, INF, 1e-300])


@fuzz.cases(st.one_of(st.integers(1, 50), ARGUMENT), st.one_of(st.integers(0, 9), ARGUMENT),
            st.one_of(st.integers(1, 10), ARGUMENT), st.one_of(st.floats(0, 3), ARGUMENT),
            st.one_of(st.floats(0.1, 1.0), ARGUMENT), st.one_of(st.floats(1, 96), ARGUMENT),
            st.one_of(st.floats(0.5, 5), ARGUMENT))
def test_generators(n, seed, users, skew, fraction, cores, task_scale):
    """google_servers and alibaba_tasks: finite servers and tasks, or a clear error."""
    outcome = fuzz.call(generators, n, seed, users, skew, fraction, cores, task_scale)
    if outcome.refused:
        assert "\n" not in str(outcome.error)
        return
    servers, tasks = outcome.value
    assert len(servers) == n and np.isfinite(servers).all() and (servers > 0).all()
    assert np.isfinite(tasks).all() and (tasks >= 0).all()


# -- the worst cases (issue 29), and the bugs the fuzzing found ---------------------

def fig1_trace(**columns):
    servers = pd.DataFrame({"cpu": [4.0, 2.0], "mem": [8.0, 2.0]})
    tasks = {"user": ["a"], "job": [1], "arrival": [0.0], "duration": [10.0], "cpu": [1.0],
             "mem": [1.0]}
    tasks.update(columns)
    return servers, pd.DataFrame(tasks)


def test_long_task_or_fine_samples_refused():
    """One task of 1e300 s, or sample=1e-9: more samples than the work bound, refused up
    front (they hung)."""
    outcome = fuzz.call(simulate_arrays, *fig1_trace(duration=[1e300]), "drfh-best-fit", {})
    assert "samples" in str(outcome.error) and isinstance(outcome.error, ValueError)
    outcome = fuzz.call(simulate_arrays, *fig1_trace(), "drfh-best-fit", {"sample": 1e-9})
    assert "samples" in str(outcome.error)
    # within the bound the same trace runs: the horizon, or a coarser sample
    outcome = fuzz.call(simulate_arrays, *fig1_trace(duration=[1e300]), "drfh-best-fit",
                        {"horizon": 600.0})
    assert outcome.value["end"] == 600.0 and np.isnan(outcome.value["tasks"]["end"]).all()


def test_the_clock_is_exact_at_any_scale():
    """A task of 1e-6 s at 1e9 s (the clock's spacing there is 1.2e-7 s) ends at its start
    plus its duration (it was refused: past RESOLUTION x the shortest duration); one of
    1e-8 s there, which float64 cannot tell from its start, is refused naming the task:
    before the run where it arrives there, when it would start where it queued till then
    (both loops)."""
    servers, tasks = fig1_trace(user=["a", "b"], job=[1, 2], arrival=[0.0, 1e9],
                                duration=[1.0, 1e-6], cpu=[1.0, 1.0], mem=[1.0, 1.0])
    outcome = fuzz.call(simulate_arrays, servers, tasks, "drfh-best-fit", {"sample": 1e9})
    assert outcome.value["tasks"]["end"].tolist() == [1.0, 1e9 + 1e-6]
    tasks["duration"] = [1.0, 1e-8]
    outcome = fuzz.call(simulate_arrays, servers, tasks, "drfh-best-fit", {"sample": 1e9})
    assert isinstance(outcome.error, ValueError)
    assert "row 1 (user 'b', job 2) lasts 1e-08 s" in str(outcome.error)
    assert "start, 1000000000.0 s" in str(outcome.error)
    servers = pd.DataFrame({"cpu": [1.0]})
    tasks = pd.DataFrame({"user": [1, 2], "job": [1, 2], "arrival": [0.0, 1.0],
                          "duration": [1e9, 1e-8], "cpu": [1.0, 1.0]})
    for literal in (False, True):
        outcome = fuzz.call(simulate_arrays, servers, tasks, "drfh-first-fit",
                            {"sample": None, "literal": literal})
        assert isinstance(outcome.error, ValueError)
        assert "row 1 (user 2, job 2)" in str(outcome.error)
        assert "start, 1000000000.0 s" in str(outcome.error)


def test_time_types():
    """A Timedelta duration of 10 s is 10 s (it was 1e10 ns); datetime arrivals are refused
    with a TypeError naming the column (they were nanoseconds since 1970)."""
    outcome = fuzz.call(simulate_arrays, *fig1_trace(duration=[pd.Timedelta(seconds=10)]),
                        "drfh-best-fit", {})
    assert outcome.value["tasks"]["end"].tolist() == [10.0]
    outcome = fuzz.call(simulate_arrays, *fig1_trace(arrival=[pd.Timestamp("2024-01-01")]),
                        "drfh-best-fit", {})
    assert isinstance(outcome.error, TypeError) and "'arrival'" in str(outcome.error)
    outcome = fuzz.call(simulate_arrays, *fig1_trace(cpu=[pd.Timedelta(seconds=1)]),
                        "drfh-best-fit", {})
    assert isinstance(outcome.error, TypeError) and "'cpu'" in str(outcome.error)


def test_option_a_method_does_not_take():
    """per-server-drf has no solver: refused (it was ignored)."""
    outcome = fuzz.call(allocate_arrays, [[1.0, 1.0]], [[4.0, 8.0]], "per-server-drf",
                        {"solver": "lp"})
    assert "takes no option solver" in str(outcome.error)


def test_servers_by_name():
    """Servers named in another order than the demands are read by name; named servers
    beside demands by position are ambiguous, refused."""
    demands = pd.DataFrame({"cpu": [1.0, 1.0], "mem": [4.0, 1.0]})
    named = fuzz.call(allocate_arrays, demands, pd.DataFrame({"mem": [8.0], "cpu": [4.0]}),
                      "drfh", {})
    by_position = fuzz.call(allocate_arrays, demands.to_numpy(), [[4.0, 8.0]], "drfh", {})
    np.testing.assert_array_equal(named.value["tasks"], by_position.value["tasks"])
    outcome = fuzz.call(allocate_arrays, [[1.0, 4.0]], pd.DataFrame({"mem": [8], "cpu": [4]}),
                        "drfh", {})
    assert "servers" in str(outcome.error) and "demands do not" in str(outcome.error)


def test_extreme_values(capfd):
    """Weights 1e308 apart, tasks past 2**62, demands of 1e-300 and capacities of 1e300
    beside ordinary ones: clear errors (they gave 0 tasks to everyone, exceeded a server's
    capacity, or hung: a subnormal demand, 0 as a share of the pool), before any solver
    runs (nothing printed)."""
    a, S = [[1.0, 1.0], [2.0, 1.0]], [[4.0, 8.0], [2.0, 2.0]]
    cases = [((a, S), {"weights": [1.0, 1e308]}, "weights"),
             ((a, S), {"tasks": [1e30, 1.0]}, "2**62"),
             (([[1e-300, 1.0], [1.0, 1.0]], S), {}, "demands: user 0"),
             (([[5e-324, 1.0], [1.0, 1.0]], S), {}, "demands: user 0"),
             (([[5e-324], [1.0]], [[1.0], [1.0]]), {}, "demands: user 0"),
             ((a, [[1e300, 8.0], [2.0, 1e300]]), {}, "demands: user 0"),
             ((a, [[1e-12, 8.0], [2.0, 2.0]]), {}, "servers: server 0"),
             ((a, [[1e308, 1.0], [1e308, 1.0]]), {}, "finite")]
    for (demands, servers), options, message in cases:
        for method in ("drfh", "per-server-drf"):
            outcome = fuzz.call(allocate_arrays, demands, servers, method, options)
            assert isinstance(outcome.error, ValueError) and message in str(outcome.error)
    # unbounded tasks, and counts up to 2**62, are fine
    outcome = fuzz.call(allocate_arrays, a, S, "drfh", {"tasks": [INF, 2.0**62]})
    assert np.isfinite(outcome.value["tasks"]).all()
    capfd.readouterr()
    for (demands, servers), options, message in cases:
        try:
            drfh.allocate(demands, servers, "drfh", **options)
        except ValueError:
            pass
    assert capfd.readouterr().err == ""


def test_work_bounds_documented():
    """The bounds the errors name are the ones the docstrings state."""
    assert simulation.MAX_SAMPLES == 10**6 and "10**6" in drfh.simulate.__doc__
    # one bound on sampled values, the simulator's: drfh's own (10**8) was never the one
    # that limited a run
    assert simulation.MAX_SAMPLE_VALUES == sim.workload.MAX_SAMPLE_VALUES == 2**26
    assert "MAX_SAMPLE_VALUES (`2**26`" in drfh.simulate.__doc__
    assert exact.MAX_RANGE == 1e4 and "(1e4)" in drfh.allocate.__doc__
    assert "2**-62" in drfh.allocate.__doc__


def many_users(users, duration=10.0, extra=()):
    """`users` users with one task of `duration` s each at time 0 (then `extra` rows: (user,
    job, arrival, duration)) on one server of 100 cpu and mem."""
    rows = [(u, u, 0.0, duration) for u in range(users)] + list(extra)
    tasks = pd.DataFrame(rows, columns=["user", "job", "arrival", "duration"])
    return pd.DataFrame({"cpu": [100.0], "mem": [100.0]}), tasks.assign(cpu=0.5, mem=0.5)


def test_small_trace_runs_at_the_default_sample():
    """100 users with one 10 s task each, sample=60: it runs (it was refused: the
    simulator's sample budget was judged over 2**21 x 10 s, the furthest the run might
    go, not over the 10 s it takes)."""
    outcome = fuzz.call(simulate_arrays, *many_users(100), "drfh-best-fit", {})
    assert outcome.value["end"] == 10.0
    assert (outcome.value["tasks"]["end"] == 10.0).all()
    # the bound that limits a run is drfh's, in the simulator's budget: 2**26 values of
    # 100 users x 3 are 223,696 samples, 1.34e7 s at sample=60; a task ending past it is
    # refused by drfh before the run (not by the simulator: "sample less often")
    samples = simulation.MAX_SAMPLE_VALUES // 300
    late = many_users(100, extra=[(0, 0, (samples - 1) * 60.0 - 5.0, 10.0)])
    outcome = fuzz.call(simulate_arrays, *late, "drfh-best-fit", {})
    assert isinstance(outcome.error, ValueError) and "223696 samples" in str(outcome.error)
    assert "less often" not in str(outcome.error)
    # ... and within it the same trace runs
    early = many_users(100, extra=[(0, 0, (samples - 1) * 60.0 - 20.0, 10.0)])
    outcome = fuzz.call(simulate_arrays, *early, "drfh-best-fit", {"sample": 6e4})
    assert np.isfinite(outcome.value["tasks"]["end"]).all()


def test_time_options_as_durations():
    """horizon and sample as datetime.timedelta, pandas.Timedelta or numpy.timedelta64 are
    seconds (they raised TypeError); a point in time is refused with a TypeError, NaT with
    a ValueError."""
    servers, tasks = fig1_trace(user=["a", "b"], job=[1, 2], arrival=[0.0, 3.0],
                                duration=[10.0, 10.0], cpu=[1.0, 1.0], mem=[1.0, 1.0])
    want = fuzz.call(simulate_arrays, servers, tasks, "drfh-best-fit",
                     {"horizon": 5.0, "sample": 2.0}).value
    assert want["end"] == 5.0 and len(want["utilization"]) == 3
    for horizon, sample in ((datetime.timedelta(seconds=5), datetime.timedelta(seconds=2)),
                            (pd.Timedelta(seconds=5), pd.Timedelta(seconds=2)),
                            (np.timedelta64(5, "s"), np.timedelta64(2000, "ms"))):
        got = fuzz.call(simulate_arrays, servers, tasks, "drfh-best-fit",
                        {"horizon": horizon, "sample": sample}).value
        assert got["end"] == want["end"]
        np.testing.assert_array_equal(got["utilization"], want["utilization"])
        np.testing.assert_array_equal(got["tasks"]["end"], want["tasks"]["end"])
    for option, value, error in (("horizon", datetime.datetime(2024, 1, 1), TypeError),
                                 ("sample", pd.Timestamp("2024-01-01"), TypeError),
                                 ("sample", np.datetime64("2024-01-01"), TypeError),
                                 ("horizon", np.timedelta64("NaT"), ValueError),
                                 ("sample", datetime.timedelta(seconds=-1), ValueError)):
        outcome = fuzz.call(simulate_arrays, servers, tasks, "drfh-best-fit", {option: value})
        assert isinstance(outcome.error, error) and option in str(outcome.error), outcome.error


def test_weights_naming_no_user_refused():
    """A weights dict with a label that is no user of the trace is refused, naming it (it
    was ignored: a misspelt label gave its user weight 1 unnoticed)."""
    servers, tasks = fig1_trace(user=["a", "b"], job=[1, 2], arrival=[0.0, 0.0],
                                duration=[10.0, 10.0], cpu=[1.0, 1.0], mem=[1.0, 1.0])
    outcome = fuzz.call(simulate_arrays, servers, tasks, "drfh-best-fit",
                        {"weights": {"a": 1.0, "b": 2.0, "c": 3.0}})
    assert isinstance(outcome.error, ValueError) and "['c']" in str(outcome.error)
    outcome = fuzz.call(simulate_arrays, servers, tasks, "drfh-best-fit",
                        {"weights": {"a": 1.0, "b": 2.0}})
    assert not outcome.refused


def files(tmp, **texts):
    """Write each text to tmp/<name>.csv; their paths."""
    out = {}
    for name, text in texts.items():
        out[name] = Path(tmp) / f"{name}.csv"
        out[name].write_text(text)
    return out


def read_and_run(servers, tasks, **options):
    """read_inputs on the two files, then simulate on the files: plain arrays."""
    frames = tr.read_inputs(servers, tasks)
    return [list(f.columns) for f in frames], simulate_arrays(servers, tasks, "drfh-best-fit",
                                                              options)


def test_csv_files_read_by_the_shared_reader(tmp_path):
    """The trace kind's files go through drfbench._inputs' reader: a header naming a column
    twice and a short row are refused naming the file and the line (pandas made them
    `cpu.1` and NaN); a column of numbers holds numbers, as pandas read it, and users are
    labels as written (user 7 is the text '7', issue 34)."""
    TASKS = "user,job,arrival,duration,cpu,mem\n7,1,0,10,1,1\n8,2,0,10,1,1\n"
    texts = {"servers": "cpu,mem\n4,8\n2,2\n", "tasks": TASKS}
    good = files(tmp_path, **texts)
    outcome = fuzz.call(read_and_run, good["servers"], good["tasks"], weights={"7": 1.0, "8": 2.0})
    assert outcome.value[0] == [["cpu", "mem"], ["user", "job", "arrival", "duration", "cpu",
                                                 "mem"]]
    assert (outcome.value[1]["tasks"]["end"] == 10.0).all()
    cases = {"servers": ("cpu,cpu\n4,8\n", "servers file", "line 1", "column 2"),
             "tasks": (TASKS.replace("8,2,0,10,1,1", "8,2,0,10,1"), "tasks file", "line 3",
                       "5 cells")}
    for which, (text, *names) in cases.items():
        (tmp_path / which).mkdir()
        bad = files(tmp_path / which, **{**texts, which: text})
        calls = [(read_and_run, bad["servers"], bad["tasks"])]
        if which == "servers":
            calls.append((drfh.read_servers, bad["servers"]))
        for function, *args in calls:
            outcome = fuzz.call(function, *args)
            assert isinstance(outcome.error, ValueError), outcome
            message = str(outcome.error)
            assert "\n" not in message and all(n in message for n in names), message
            assert str(bad[which]) in message


def alibaba_rows(source):
    return drfh.alibaba_tasks(source=source, users=2).to_numpy().tolist()


def test_generator_sources_read_by_the_shared_reader(tmp_path):
    """alibaba_tasks and google_servers read a plain CSV source with the shared reader
    (a short row, a missing column: one-line errors naming the file; google's missing
    column was a KeyError), the vendored gzip sample with pandas (_inputs reads no gzip)."""
    short = files(tmp_path, a=ALIBABA_SAMPLE + "9,j_4,t1,5,100\n", g="cpu,memory\n1,1\n",
                  j=ALIBABA_SAMPLE.replace("j_2", "job2"))
    outcome = fuzz.call(alibaba_rows, short["a"])
    assert "line 4" in str(outcome.error) and str(short["a"]) in str(outcome.error)
    outcome = fuzz.call(alibaba_rows, short["j"])
    assert "'job2'" in str(outcome.error) and "line 2" in str(outcome.error)
    outcome = fuzz.call(drfh.google_servers, 3, source=short["g"])
    assert isinstance(outcome.error, ValueError) and "['machines']" in str(outcome.error)
    assert len(fuzz.call(drfh.google_servers, 3).value) == 3
    assert len(fuzz.call(drfh.alibaba_tasks, fraction=0.001).value) > 0


# labels that YAML, pandas or a spreadsheet would read as one number (issue 34): each is a
# user or job of its own, as written
LOOKALIKES = ["007", "7", "7.0", "1000", "1e3", "1E3", "18446744073709551614",
              "18446744073709551615", "-0", "0", "nan", "NA", "inf", "True", "a", "0x10", "16"]


@st.composite
def labelled_files(draw):
    """(servers text, tasks text, users, jobs): a servers file whose first column may name
    the servers, and tasks whose users and jobs are drawn from LOOKALIKES, one user per
    job."""
    named = draw(st.sampled_from(["", "machine", "server", "name"]))
    servers = (f"{named}," if named else "") + "cpu,mem\n"
    count = draw(st.integers(1, 3))
    servers += "".join((f"s{i}," if named else "") + "2,2\n" for i in range(count))
    jobs = draw(st.lists(st.sampled_from(LOOKALIKES), min_size=1, max_size=6, unique=True))
    owner = {job: draw(st.sampled_from(LOOKALIKES)) for job in jobs}
    rows = draw(st.lists(st.sampled_from(jobs), min_size=1, max_size=8))
    tasks = "user,job,arrival,duration,cpu,mem\n" + "".join(
        f"{owner[j]},{j},{i},1,0.5,0.5\n" for i, j in enumerate(rows))
    users = list(dict.fromkeys(owner[j] for j in rows))
    return servers, tasks, users, list(dict.fromkeys(rows))


def simulate_files(servers_text, tasks_text):
    """drfh.simulate on the texts written to files: the users' and jobs' labels of its
    completion and jobs tables, and the tasks submitted per user."""
    with tempfile.TemporaryDirectory() as tmp:
        s, t = Path(tmp) / "servers.csv", Path(tmp) / "tasks.csv"
        s.write_text(servers_text)
        t.write_text(tasks_text)
        res = drfh.simulate(s, t, sample=None)
    return (res.completion["user"].tolist(), res.jobs["job"].tolist(),
            res.completion["submitted"].tolist())


@fuzz.cases(labelled_files())
def test_labels_stay_labels(case):
    """Users and jobs are text as written: `007` and `7`, `1000` and `1e3`, two 20-digit
    IDs differing in the last digit are distinct users and jobs, and the output names
    them as written; a servers file's name column names the servers."""
    servers, tasks, users, jobs = case
    outcome = fuzz.call(simulate_files, servers, tasks)
    assert not outcome.refused, outcome.error
    names, job_labels, submitted = outcome.value
    assert names == users
    assert sorted(job_labels) == sorted(jobs)
    rows = [line.split(",") for line in tasks.splitlines()[1:]]
    assert submitted == [sum(r[0] == u for r in rows) for u in users]
