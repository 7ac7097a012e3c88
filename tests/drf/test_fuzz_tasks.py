"""The fuzz suite for the tasks input kind (drfbench.drf.schedule / scheduler, the DRF-vs-
slots experiment) and the cluster simulator (drfbench.sim.simulate, Trace, Backlog):
arbitrary values of the right and the wrong shape either give a result that respects the
machines' capacities, the task counts and the literal transcriptions (drf/literal.py,
sim/literal.py), or a ValueError/TypeError (tests/fuzz.py); and the issue's worst cases."""
import datetime
import importlib
import tempfile
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest

import fuzz
from drfbench import drf, sim
from drfbench import _validation as check
from drfbench.drf import literal
from cases import SIM_FIELDS
from conftest import assert_same

FUZZED = ("tasks",)   # the input kinds this module fuzzes (tests/test_families.py)

# Numbers near every bound: zero, tiny, huge, non-finite, negative, fractional.
NUMBERS = st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5, 1e-300, 1e-9, 1e9, 1e300, float("inf"),
                           float("nan"), -1.0, 5e-324])
SMALL = st.sampled_from([1.0, 2.0, 3.0, 0.5, 0.0])
COUNTS = st.sampled_from([0, 1, 3, float("inf"), 2.5, -1, float("nan"), 1e30, 2**62, 2**63,
                          np.int64(2), "x"])


def matrices(values, rows=(0, 4), columns=(0, 3)):
    """Lists of lists, sometimes ragged or not 2-D."""
    def shaped(n, m):
        return st.one_of(st.lists(st.lists(values, min_size=m, max_size=m), min_size=n, max_size=n),
                         st.lists(st.lists(values, min_size=0, max_size=3), min_size=1, max_size=3),
                         st.lists(values, min_size=1, max_size=3))
    return st.integers(*rows).flatmap(lambda n: st.integers(*columns).flatmap(
        lambda m: shaped(n, m)))


def named(values, names=("cpu", "mem", "gpu")):
    """A DataFrame with named columns in some order (a permutation of `names`' first m)."""
    return st.integers(1, 3).flatmap(lambda m: st.permutations(names[:m]).flatmap(
        lambda order: st.lists(st.lists(values, min_size=m, max_size=m), min_size=1,
                               max_size=3).map(lambda rows: pd.DataFrame(rows, columns=order))))


def schedule_outcome(demands, machines, method, options):
    """The run and the validated inputs (demands, machines in the demands' order), so that
    the invariants are checked against what the scheduler saw."""
    res = drf.schedule(demands, machines, method, **options)
    names, D = drf.tasks._named_demands(demands)
    return res, D, check.machines(machines, D.shape[1], resources=names)


def mostly(valid, other):
    """`valid` three times in four, else a value of `other`."""
    return st.one_of(st.just(valid), st.just(valid), st.just(valid), other)


def clusters(values=SMALL, capacities=st.sampled_from([4.0, 10.0, 3.0])):
    """(demands, machines) of the same resources, small: mostly valid."""
    return st.integers(1, 3).flatmap(lambda m: st.tuples(
        st.lists(st.lists(values, min_size=m, max_size=m), min_size=1, max_size=4),
        st.lists(st.lists(capacities, min_size=m, max_size=m), min_size=1, max_size=3)))


@fuzz.cases(cluster=st.one_of(
                clusters(), clusters(), clusters(), clusters(NUMBERS, NUMBERS),
                st.tuples(st.one_of(matrices(NUMBERS), named(SMALL), st.just("demands"),
                                    st.just([[1, 2], [3]])),
                          st.one_of(matrices(NUMBERS, (1, 3)),
                                    named(st.sampled_from([4.0, 10.0, 0.0, 1e300])),
                                    st.just(pd.DataFrame([[4, 8]], columns=[0, 1]))))),
            method=st.sampled_from(["online-drf", "online-drf", "hadoop-slots", "edrf", 3]),
            weights=st.one_of(st.none(), st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=1,
                                                  max_size=4),
                              st.lists(st.sampled_from([1.0, 2.0, 1e-300, 1e7, 1e10, 0.0,
                                                        float("nan")]), min_size=1, max_size=4)),
            tasks=st.one_of(st.none(), st.lists(st.sampled_from([0, 1, 3, float("inf")]),
                                                min_size=1, max_size=4),
                            st.lists(COUNTS, min_size=1, max_size=4)),
            slots=st.sampled_from([None, 1, 2, 0, 2**62, 1.5, True]), fit=st.booleans())
def test_schedule(cluster, method, weights, tasks, slots, fit):
    demands, machines = cluster
    if fit and isinstance(demands, list):        # one weight and one count per user
        n = len(demands)
        weights, tasks = ((x * n)[:n] if x else x for x in (weights, tasks))
    options = {"weights": weights, "tasks": tasks}
    if method == "hadoop-slots":
        options["slots"] = 2 if slots is None else slots
    elif slots == 0:
        options["slots"] = slots
    outcome = fuzz.call(schedule_outcome, demands, machines, method, options)
    if outcome.refused:
        return
    res, D, C = outcome.value
    k = options.get("slots", 0)
    assert np.isfinite(res.shares).all() and np.isfinite(res.allocation).all()
    if tasks is not None:
        assert (res.tasks <= np.asarray(tasks, dtype=float)).all()
    np.testing.assert_array_equal(np.bincount(res.order_users, minlength=len(D)), res.tasks)
    if not k:
        used = np.zeros_like(C)
        np.add.at(used, res.order_machines, D[res.order_users])
        assert (used <= C * (1 + 1e-12)).all()
    else:
        assert (np.bincount(res.order_machines, minlength=len(C)) <= k).all()
    if res.tasks.sum() <= 200:
        expected = literal.online(D, C, weights, tasks, k)
        assert (res.order_users.tolist(), res.order_machines.tolist()) == \
            (expected.users.tolist(), expected.machines.tolist())


def run_trace(machines, user, arrival, duration, demands, sample, horizon):
    """The simulator on a trace with online DRF (one shape per user: the trace's first), by
    the kernel and by the literal loop."""
    trace = sim.Trace(user, np.asarray(user), arrival, duration, demands)
    shapes = np.zeros((trace.users, trace.resources))
    shapes[trace.user[::-1]] = trace.demands[::-1]
    trace = sim.Trace(trace.user, trace.job, trace.arrival, trace.duration, shapes[trace.user])
    C = sim.machines(machines)
    out = []
    for simulate in (sim.simulate, sim.literal.simulate):
        policy = drf.scheduler(shapes, C, tasks=[0] * trace.users)
        out.append(simulate(C, trace, policy, sample=sample, horizon=horizon))
    return trace, C, out


TIMES = st.sampled_from([0.0, 1.0, 2.5, 1e9, 1e300, -1.0, float("nan"), float("inf"),
                         datetime.timedelta(seconds=3), np.timedelta64(2, "s"),
                         np.datetime64("2020-01-01T00:00:00"), "1"])


ARRIVALS = st.one_of(st.lists(st.sampled_from([0.0, 1.0, 2.5, 7.0, 1e9]), max_size=6).map(sorted),
                     st.lists(TIMES, max_size=6))
DURATIONS = st.lists(st.sampled_from([1.0, 4.0, 0.5, 1e300, 1e-300]), max_size=6)


@fuzz.cases(machines=st.one_of(matrices(SMALL, (1, 3), (1, 2)), matrices(NUMBERS, (1, 2))),
            arrival=ARRIVALS, duration=st.one_of(DURATIONS, st.lists(TIMES, max_size=6)),
            user=st.lists(st.integers(0, 2), max_size=6),
            demand=st.lists(SMALL, min_size=1, max_size=2),
            sample=st.sampled_from([None, 1.0, 1e-9, 0.0, -1.0, datetime.timedelta(seconds=2),
                                    np.timedelta64(500, "ms"), np.datetime64("2020-01-01")]),
            horizon=st.sampled_from([float("inf"), 5.0, 0.0, 1e300, float("nan"),
                                     datetime.timedelta(seconds=4)]))
def test_simulate_trace(machines, arrival, duration, user, demand, sample, horizon):
    n = min(len(arrival), len(duration), len(user))
    user, arrival, duration = user[:n], arrival[:n], duration[:n]
    if isinstance(machines[0], list) and machines[0]:      # demands of the machines' width
        demand = (demand * 3)[:len(machines[0])]
    demands = [[v * (u + 1) / 4 for v in demand] for u in user] or np.zeros((0, len(demand)))
    outcome = fuzz.call(run_trace, machines, user, arrival, duration, demands, sample, horizon)
    if outcome.refused:
        return
    trace, C, (kernel, expected) = outcome.value
    assert_same(kernel, expected, SIM_FIELDS)
    assert np.isfinite(kernel.samples["share"]).all()
    assert (kernel.samples["utilization"] <= 1 + 1e-12).all()
    started = ~np.isnan(kernel.tasks["start"])
    assert (kernel.tasks["start"][started] >= kernel.tasks["arrival"][started]).all()


DAY = 86400.0


@st.composite
def month_traces(draw):
    """(machines, user, arrival, duration, demands) of a trace like the public ones (issue
    34): arrivals spread over 30 to 90 days, durations log-uniform from 1 ms to 90 days."""
    n = draw(st.integers(1, 8))
    span = draw(st.floats(30 * DAY, 90 * DAY))
    arrival = sorted(draw(st.lists(st.floats(0.0, span), min_size=n, max_size=n)))
    duration = [10.0 ** e for e in draw(st.lists(st.floats(-3.0, np.log10(90 * DAY)),
                                                 min_size=n, max_size=n))]
    user = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    machines = draw(st.sampled_from([[[4.0, 8.0]], [[4.0, 8.0], [8.0, 4.0]], [[1.0, 1.0]]]))
    demands = [[(u + 1) / 4, (u + 1) / 8] for u in user]
    return machines, user, arrival, duration, demands


@fuzz.cases(case=month_traces(), sample=st.sampled_from([None, 3600.0, DAY]))
def test_simulate_month_long_trace(case, sample):
    """A month or more of trace, sub-second to month-long tasks: never refused (it was, past
    2**21 x the shortest duration); both loops agree; every task ends, at exactly its start
    plus its duration (online DRF never time-shares a machine)."""
    machines, user, arrival, duration, demands = case
    outcome = fuzz.call(run_trace, machines, user, arrival, duration, demands, sample,
                        float("inf"))
    assert not outcome.refused, outcome.error
    trace, C, (kernel, expected) = outcome.value
    assert_same(kernel, expected, SIM_FIELDS)
    T = kernel.tasks
    np.testing.assert_array_equal(T["end"], T["start"] + trace.duration)
    assert (T["start"] >= T["arrival"]).all()


def run_backlog(machines, demands, per_job, duration, jitter, slots, horizon, sample):
    backlog = sim.Backlog(demands, per_job, duration, jitter=jitter)
    C = sim.machines(machines)
    out = []
    for simulate in (sim.simulate, sim.literal.simulate):
        policy = (drf.scheduler(backlog.demands, C, "hadoop-slots", slots=slots) if slots
                  else drf.scheduler(backlog.demands, C))
        out.append(simulate(C, backlog, policy, horizon=horizon, sample=sample))
    return backlog, C, out


@fuzz.cases(machines=mostly([[4.0, 8.0], [8.0, 4.0]],
                           matrices(st.sampled_from([4.0, 8.0, 1e300, 0.0]), (1, 2), (2, 2))),
            demands=mostly([[1.0, 2.0], [2.0, 0.5]],
                           matrices(st.sampled_from([1.0, 2.0, 0.0, 1e-300, -1.0]), (1, 2),
                                    (2, 2))),
            per_job=mostly([2, 3], st.lists(st.sampled_from([1, 2, 0, 2**63, 1.5]), min_size=1,
                                            max_size=2)),
            duration=mostly([5.0, 3.0], st.lists(st.sampled_from([5.0, 0.0, float("inf"),
                                                                  datetime.timedelta(seconds=7)]),
                                                 min_size=1, max_size=2)),
            jitter=st.sampled_from([0.0, 0.3, 10.0, 0.0, 0.3, 1e300, -1.0, float("nan"), True]),
            slots=st.sampled_from([0, 2]),
            horizon=st.sampled_from([30.0, float("inf"), datetime.timedelta(seconds=20)]),
            sample=st.sampled_from([None, 5.0, 1e-12]))
def test_simulate_backlog(machines, demands, per_job, duration, jitter, slots, horizon,
                          sample):
    outcome = fuzz.call(run_backlog, machines, demands, per_job, duration, jitter, slots,
                        horizon, sample)
    if outcome.refused:
        return
    backlog, C, (kernel, expected) = outcome.value
    assert_same(kernel, expected, SIM_FIELDS)
    assert np.isfinite(kernel.samples["share"]).all()
    if not slots:
        assert (kernel.samples["utilization"] <= 1 + 1e-12).all()


@fuzz.cases(cluster=st.one_of(matrices(SMALL, (1, 2), (1, 2)), st.just([[4.0, 15.0]])),
            demand=st.sampled_from([(1.0, 2.0), (2.0,), (1.0, -1.0), "ab", 3]),
            slot_counts=st.sampled_from([[], [2], [0], [2**62], ["2"]]),
            horizon=st.sampled_from([20.0, -1.0, datetime.timedelta(seconds=10)]),
            sample=st.sampled_from([5.0, 0.0, np.timedelta64(5, "s")]))
def test_drf_vs_slots(cluster, demand, slot_counts, horizon, sample):
    types = [drf.JobType("a", demand, 2, 4.0), drf.JobType("b", (1.0, 1.0), 3, 3.0)]
    outcome = fuzz.call(drf.drf_vs_slots, cluster, types, slot_counts, horizon=horizon,
                        jitter=0.2, seed=1, sample=sample)
    if outcome.refused:
        return
    assert all(np.isfinite(r["value"]) for r in outcome.value)
    assert {r["slots"] for r in outcome.value} == {0, *slot_counts}


# ---------------------------------------------------------------------------------------
# The worst cases
# ---------------------------------------------------------------------------------------


def test_task_counts_must_fit_their_integer_type():
    fuzz.refused(drf.schedule, [[1, 1]], [4, 4], tasks=[1e30], match="at most 4611686018427387904")
    fuzz.refused(drf.schedule, [[1, 1]], [4, 4], tasks=[2**63], match="user 0: tasks must be")
    assert fuzz.call(drf.schedule, [[1, 1]], [4, 4], tasks=[2**62]).value.tasks.tolist() == [4]


def test_tiny_tasks_on_huge_machines_are_a_work_budget_not_a_hang():
    fuzz.refused(drf.schedule, [[1e-300, 0]], [4, 4], match="beyond the work budget")
    fuzz.refused(drf.schedule, [[1, 1]], [1e300, 1e300], match="beyond the work budget")
    fuzz.refused(drf.schedule, [[1, 1]], [[4, 4], [4, 4]], "hadoop-slots", slots=10**7,
                 tasks=[10**8], match="beyond the work budget")
    fuzz.refused(drf.schedule, [[0, 0]], [4, 4], tasks=[2**62], match="beyond the work budget")


def test_the_long_forms_finds_are_refused():
    """Found by FUZZ_EXAMPLES=4000: 2**62 slots overflowed the kernel's int (with no task
    queued, the work budget let it through); a task's dominant share of a subnormal
    capacity was infinite (NaN shares); a task of 1e-300 s at 1 s never finished (the
    kernel's and the literal loop looped at one instant): float64 cannot tell its end from
    its start, refused naming it."""
    fuzz.refused(drf.schedule, [[1.0]], [[4.0]], "hadoop-slots", tasks=[0], slots=2**62,
                 match="slots must lie in [1, 1e7], got 4611686018427387904")
    fuzz.refused(drf.schedule, [[1.0]], [[5e-324]], match="past a float's range")
    fuzz.refused(run_trace, [[1.0], [1.0]], [0, 0], [0.0, 1.0], [1.0, 1e-300],
                 [[0.25], [0.25]], None, 1e300, match="row 1 (user 0, job 0) lasts 1e-300 s")


def test_subnormal_weights_are_refused():
    fuzz.refused(drf.schedule, [[1, 1], [1, 1]], [10, 10], weights=[1e-320, 1e-320], match="weights")


def test_named_machines_are_matched_by_name():
    demands = pd.DataFrame({"cpu": [1.0, 3.0], "mem": [4.0, 1.0]})
    machines = pd.DataFrame({"mem": [18.0], "cpu": [9.0]})
    res = fuzz.call(drf.schedule, demands, machines).value
    assert res.tasks.tolist() == [3, 2]                     # the lecture's <9 CPU, 18 GB>
    fuzz.refused(drf.schedule, [[1, 4], [3, 1]], machines, match="but the demands do not")
    fuzz.refused(drf.schedule, demands, pd.DataFrame({"mem": [18.0], "gpu": [9.0]}),
            match="must name the same ones")
    fuzz.refused(drf.schedule, [[1, 2], [3]], [9, 18], match="task demands")
    fuzz.refused(drf.schedule, [[1, 4]], pd.DataFrame([[9, 18]], columns=[1, 0]), match="column labels")


def simulate_drf(machines, workload, **options):
    """sim.simulate with online DRF on the workload's shapes (made in the worker: a kernel
    object does not pickle)."""
    if isinstance(workload, sim.Backlog):
        return sim.simulate(machines, workload, drf.scheduler(workload.demands, machines),
                            **options)
    policy = drf.scheduler(workload.demands[:1], machines, tasks=[0])
    return sim.simulate(machines, workload, policy, **options)


def test_time_units_in_the_simulator():
    trace = sim.Trace([0], [0], [pd.Timedelta(seconds=2)], [pd.Timedelta(seconds=10)], [[1.0]])
    assert trace.arrival.tolist() == [2.0] and trace.duration.tolist() == [10.0]
    fuzz.refused(sim.Trace, [0], [0], [pd.Timestamp("2020-01-01")], [1.0], [[1.0]],
            match="points in time")
    res = fuzz.call(simulate_drf, [[1.0]], trace, horizon=datetime.timedelta(seconds=5),
                    sample=np.timedelta64(2, "s")).value
    assert res.end == 5.0 and res.samples["time"].tolist() == [0.0, 2.0, 4.0]
    fuzz.refused(simulate_drf, [[1.0]], trace, horizon=np.datetime64("2020-01-01"),
            match="points in time")


def test_the_simulators_work_budgets():
    trace = sim.Trace([0], [0], [0.0], [1e300], [[1.0]])
    fuzz.refused(simulate_drf, [[1.0]], trace, sample=1.0, match="sample less often")
    backlog = sim.Backlog([[1.0]], [1], [1.0])
    fuzz.refused(simulate_drf, [[1.0]], backlog, horizon=1e5, sample=1e-3, match="sample less often")
    fuzz.refused(simulate_drf, [[1.0]], sim.Backlog([[1.0]], [1], [1e-300]), horizon=1.0,
            match="runs more than 1,048,576 tasks of 1e-300 s one after another")
    fuzz.refused(simulate_drf, [[1e6]], sim.Backlog([[1.0]], [1], [1.0]), horizon=10.0,
            match="the backlog launched 1,048,576 tasks before the horizon")
    fuzz.refused(sim.Backlog, [[1.0]], [1], [1.0], jitter=1e300, match="jitter must lie in")
    fuzz.refused(sim.Backlog, [[1.0]], [2**63], [1.0], match="tasks_per_job must be")


def test_a_trace_that_drains_early_is_not_judged_by_its_horizon():
    """Samples every second up to a horizon of 1e12 s were refused up front (10**12
    samples), though the trace drains at 20 s; the budget is held as the run goes, and up
    front only over what the trace surely takes (its last arrival)."""
    trace = sim.Trace([0] * 3, [0, 1, 2], [0.0, 1.0, 2.0], [10.0] * 3, [[0.5]] * 3)
    C = sim.machines([[1.0]])
    for simulate in (sim.simulate, sim.literal.simulate):
        run = simulate(C, trace, drf.scheduler([[0.5]], C, tasks=[0]), horizon=1e12, sample=1.0)
        assert run.end == 20.0 and len(run.samples["time"]) == 21
    late = sim.Trace([0], [0], [1e12], [10.0], [[0.5]])
    with pytest.raises(ValueError, match="sample less often"):        # before the run
        sim.simulate(C, late, drf.scheduler([[0.5]], C, tasks=[0]), sample=1.0)


# row names that read as numbers, duplicates among them (issue 34)
ROW_NAMES = st.lists(st.sampled_from(["007", "7", "1e3", "1000", "18446744073709551615",
                                      "18446744073709551614", "NA", "a"]), min_size=2,
                     max_size=2)


def read_task_files(demands_text, machines_text):
    """The tasks kind's reader (drf.tasks.read_inputs) on the texts written to files."""
    with tempfile.TemporaryDirectory() as tmp:
        d, m = Path(tmp) / "demands.csv", Path(tmp) / "machines.csv"
        d.write_text(demands_text)
        m.write_text(machines_text)
        return importlib.import_module("drfbench.drf.tasks").read_inputs(d, m)


@fuzz.cases(demand_names=ROW_NAMES, machine_names=ROW_NAMES,
            demand_column=st.sampled_from(["", *check.NAME_COLUMNS]),
            machine_column=st.sampled_from(["", *check.NAME_COLUMNS]))
def test_name_columns(demand_names, machine_names, demand_column, machine_column):
    """A first column headed by a name (check.NAME_COLUMNS) names the rows of a demands or
    machines file: the numbers read are those of the file without it; a name given twice
    is refused naming it and both lines."""
    def text(column, names, rows):
        head = (f"{column}," if column else "") + "cpu,mem\n"
        return head + "".join((f"{n}," if column else "") + row + "\n"
                              for n, row in zip(names, rows))
    outcome = fuzz.call(read_task_files, text(demand_column, demand_names, ["1,4", "3,1"]),
                        text(machine_column, machine_names, ["9,18", "9,18"]))
    twice = [(c, n) for c, n in ((demand_column, demand_names), (machine_column, machine_names))
             if c and n[0] == n[1]]
    if twice:
        assert outcome.refused and f"{twice[0][0]} {twice[0][1][0]!r} is named twice" in \
            str(outcome.error)
        return
    assert not outcome.refused, outcome.error
    D, C = outcome.value
    assert D.tolist() == [[1, 4], [3, 1]] and C.tolist() == [[9, 18], [9, 18]]
