"""DC-DRF's outer loop (drfbench.dcdrf.controller) and the demand churn of section 5.6
(drfbench.dcdrf.churn). Exact assertions use the round-budget mode, which is deterministic;
nothing here asserts on wall-clock times."""
import csv
import math

import numpy as np
import pytest

import drfbench
from drfbench.dcdrf import controller, workloads
from drfbench.dcdrf.churn import Churn, Schedule, perturb_rows
from drfbench.dcdrf.controller import (BOUND, EXACT, EXPAND, SETTLED, SETTLED_PHASES, ZERO,
                                 EpsilonController,
                                 converged_epsilon, default_baseline, main,
                                 resettle_intervals, run_intervals, settle_intervals)

THRESHOLDS = np.geomspace(1e-11, 0.95, 97)   # beyond both default bounds on purpose
SETTINGS = [{}, dict(growth=10.0, resolution=1.05),
            dict(eps_min=1e-4, eps_max=0.1, start=0.05, growth=1.5, resolution=1.5),
            dict(hold=3, patience=2)]


def drive(ctl, threshold, n):
    """Run n intervals against a monotone oracle: epsilon below `threshold` times out.
    Returns [(phase, epsilon, timed_out)] per interval."""
    out = []
    for _ in range(n):
        phase, eps = ctl.phase, ctl.epsilon
        timed_out = eps < threshold
        out.append((phase, eps, timed_out))
        ctl.update(timed_out)
    return out


def last_unsettled(trace):
    """1-based number of the last interval not run in a settled phase (0 if none)."""
    return max((j + 1 for j, (phase, _, _) in enumerate(trace) if phase not in SETTLED_PHASES),
               default=0)


def in_bounds(ctl, eps):
    return eps == 0.0 or ctl.eps_min <= eps <= ctl.eps_max


# ---------------------------------------------------------------- the search itself

@pytest.mark.parametrize("settings", SETTINGS)
def test_converges_within_bound_on_stable_input(settings):
    bound = EpsilonController(**settings).convergence_bound()
    assert bound <= 20   # defaults: 14 intervals over eps in [1e-9, 0.5]
    for threshold in THRESHOLDS:
        ctl = EpsilonController(**settings)
        trace = drive(ctl, threshold, bound + 30)
        assert last_unsettled(trace) < bound, threshold
        assert all(in_bounds(ctl, eps) for _, eps, _ in trace)


def test_settled_search_oscillates_around_the_threshold():
    ctl = EpsilonController()
    trace = drive(ctl, 3.7e-4, 40)[ctl.convergence_bound():]
    finishing = {eps for _, eps, t in trace if not t}
    timing_out = {eps for _, eps, t in trace if t}
    assert len(finishing) == 1 and len(timing_out) == 1       # two epsilons, alternating
    hi, lo = finishing.pop(), timing_out.pop()
    assert lo < 3.7e-4 <= hi <= lo * ctl.resolution
    outcomes = [t for _, _, t in trace]
    assert all(a != b for a, b in zip(outcomes, outcomes[1:]))   # finish, timeout, finish...


def test_starts_exact_then_jumps_to_start():
    ctl = EpsilonController(start=3e-3)
    assert ctl.epsilon == 0.0 and ctl.phase == ZERO
    assert ctl.update(True) == 3e-3                 # raise(0) = start
    ctl = EpsilonController()
    assert [ctl.update(False) for _ in range(3)] == [0.0] * 3   # exact fits: stay exact
    assert ctl.phase == EXACT and ctl.settled
    assert ctl.update(True) == ctl.start and ctl.phase == EXPAND   # until it times out
    ctl = EpsilonController(initial=1e-3)
    assert ctl.epsilon == 1e-3 and ctl.phase == EXPAND


def test_fast_start_steps_double_in_log_epsilon():
    ctl = EpsilonController(start=1e-2, growth=2.0)
    ctl.update(True)
    eps = [ctl.epsilon] + [ctl.update(False) for _ in range(4)]
    assert np.allclose(np.array(eps[:-1]) / np.array(eps[1:]), [2, 4, 16, 256])


@pytest.mark.parametrize("settings", SETTINGS)
def test_recovers_within_bound_after_the_threshold_moves(settings):
    bound = EpsilonController(**settings).recovery_bound()
    assert bound <= 20
    for old in THRESHOLDS[::4]:
        for new in THRESHOLDS[::4]:
            ctl = EpsilonController(**settings)
            drive(ctl, old, 40)
            assert ctl.settled
            trace = drive(ctl, new, bound + 20)
            assert last_unsettled(trace) < bound, (old, new)
            assert all(in_bounds(ctl, eps) for _, eps, _ in trace)
            if ctl.eps_min < new <= ctl.eps_max:
                assert ctl.lo < new <= ctl.hi <= ctl.lo * ctl.resolution


def test_one_surprise_slides_the_window_by_one_step():
    ctl = EpsilonController()
    drive(ctl, 1e-3, 40)
    lo, hi = ctl.lo, ctl.hi
    if ctl.epsilon != hi:
        ctl.update(True)                       # lo times out as expected: now at hi
    assert ctl.epsilon == hi
    ctl.update(True)                           # a timing blip: hi times out once
    assert ctl.restarts == 1 and ctl.phase == EXPAND
    assert ctl.epsilon == pytest.approx(hi * ctl.resolution)
    ctl.update(False)                          # ... and the next step up finishes
    assert ctl.settled and ctl.lo == hi and ctl.hi == pytest.approx(hi * ctl.resolution)
    assert lo < hi


def test_hold_probes_the_lower_end_once_in_hold_plus_one():
    ctl = EpsilonController(hold=3)
    trace = drive(ctl, 3.7e-4, 60)[ctl.convergence_bound():]
    outcomes = [t for _, _, t in trace]
    start = outcomes.index(True)
    assert outcomes[start:start + 16] == [True, False, False, False] * 4
    assert all(phase == SETTLED for phase, _, _ in trace)


def test_patience_retries_a_stale_end_before_sliding():
    ctl = EpsilonController(patience=2)
    drive(ctl, 1e-3, 40)
    if ctl.epsilon != ctl.hi:
        ctl.update(True)
    lo, hi = ctl.lo, ctl.hi
    assert ctl.update(True) == hi and ctl.restarts == 0      # one blip: retry hi
    assert ctl.update(False) == lo and (ctl.lo, ctl.hi) == (lo, hi)   # it finishes: as before
    ctl.update(True)                                          # lo times out as expected
    ctl.update(True)
    assert ctl.update(True) == pytest.approx(hi * ctl.resolution) and ctl.restarts == 1


def test_held_at_the_bounds():
    ctl = EpsilonController(eps_min=1e-6, eps_max=1e-2, start=1e-3)
    trace = drive(ctl, 0.5, 30)                # nothing finishes: held at eps_max
    assert trace[-1][:2] == (BOUND, 1e-2) and max(e for _, e, _ in trace) == 1e-2
    ctl = EpsilonController(eps_min=1e-6, eps_max=1e-2, start=1e-3, initial=1e-3)
    trace = drive(ctl, 1e-9, 30)               # everything finishes: held at eps_min
    assert trace[-1][:2] == (BOUND, 1e-6) and min(e for _, e, _ in trace) == 1e-6


@pytest.mark.parametrize("kwargs, name", [
    (dict(eps_min=0.0), "eps_min"), (dict(eps_min=-1e-3), "eps_min"),
    (dict(eps_max=1.0), "eps_max"), (dict(eps_min=0.1, eps_max=0.01), "eps_min"),
    (dict(eps_min=math.nan), "eps_min"), (dict(eps_max="0.5"), "eps_max"),
    (dict(start=0.9), "start"), (dict(start=1e-12), "start"),
    (dict(initial=0.7), "initial"), (dict(growth=1.0), "growth"),
    (dict(resolution=0.5), "resolution"), (dict(resolution=True), "resolution"),
    (dict(hold=0), "hold"), (dict(patience=1.5), "patience"),
])
def test_bad_controller_settings_are_named(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):   # TypeError: not a number
        EpsilonController(**kwargs)


# ---------------------------------------------------------------- churn

@pytest.fixture
def workload():
    return workloads.generate("G0", 2000, 200, seed=3)


def test_churn_changes_only_the_chosen_tenants_in_place(workload):
    d = workload.demands
    indptr, indices, data = d.indptr, d.indices, d.data
    before = (indptr.copy(), indices.copy(), data.copy())
    churn = Churn(d, Schedule.paper(), seed=7)
    change = churn.apply(5)
    assert change.events == ("churn",) and change.tenants.size == 100   # 5% of 2000
    assert d.indptr is indptr and d.indices is indices and d.data is data   # in place
    assert np.array_equal(indptr, before[0]) and np.array_equal(indices, before[1])
    rows = np.repeat(np.arange(d.shape[0]), np.diff(indptr))
    moved = np.unique(rows[data != before[2]])
    assert set(moved) <= set(change.tenants) and moved.size >= 0.95 * change.tenants.size
    assert data.min() > 0 and data.max() <= 1
    ratio = data.astype(np.float64) / before[2]
    unclipped = data < 1
    assert np.all(ratio[unclipped] >= 0.95 - 1e-6) and np.all(ratio[unclipped] <= 1.05 + 1e-6)
    # each entry has its own factor: a whole-row scaling would be invisible to EDRF
    first = change.tenants[0]
    row = slice(indptr[first], indptr[first + 1])
    assert np.ptp(ratio[row]) > 1e-3


def test_churn_is_deterministic_by_seed_and_interval(workload):
    def after(seed, intervals):
        wl = workloads.generate("G0", 2000, 200, seed=3)
        churn = Churn(wl.demands, Schedule.paper(), seed=seed)
        for j in intervals:
            churn.apply(j)
        return wl.demands.data

    a, b = after(1, range(1, 32)), after(1, range(1, 32))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, after(2, range(1, 32)))
    # interval j's change depends on (seed, j) only, not on what ran before
    c = Churn(workload.demands, Schedule.paper(), seed=1).apply(12).tenants
    wl = workloads.generate("G0", 2000, 200, seed=3)
    churn = Churn(wl.demands, Schedule.paper(), seed=1)
    for j in range(1, 12):
        churn.apply(j)
    assert np.array_equal(churn.apply(12).tenants, c)


def test_paper_schedule_events_and_deadlines(workload):
    s = Schedule.paper()
    churn = Churn(workload.demands, s, seed=0)
    assert churn.apply(1).events == ()                       # interval 1: generated demands
    shift = churn.apply(30)
    assert shift.events == ("churn", "shift") and shift.tenants.size >= 1000
    assert s.events(50) == ("churn", "deadline") and s.change_points == (30, 50, 70)
    assert [s.deadline_factor(j) for j in (1, 49, 50, 69, 70, 80)] == [1, 1, 1.25, 1.25, 1, 1]
    assert workload.demands.data.min() > 0 and workload.demands.data.max() <= 1
    assert Schedule.stable().events(30) == () and Schedule.stable().deadline_factor(60) == 1


def test_perturb_rows_clips_to_the_unit_interval():
    wl = workloads.generate("G0", 50, 40, seed=0)
    d = wl.demands
    d.data[:] = 1.0
    perturb_rows(d, np.arange(50), 1.0, np.random.default_rng(0))
    assert d.data.min() > 0 and d.data.max() == 1.0


@pytest.mark.parametrize("kwargs, name", [
    (dict(churn_fraction=1.5), "churn_fraction"), (dict(churn_fraction=-0.1), "churn_fraction"),
    (dict(churn_magnitude=2.0), "churn_magnitude"), (dict(shift_fraction=math.nan), "shift_fraction"),
    (dict(shift_magnitude=-1), "shift_magnitude"), (dict(shift_at=(0,)), "shift_at"),
    (dict(churn_start=0), "churn_start"), (dict(deadline_changes=((50, 0.0),)), "factor"),
    (dict(deadline_changes=((50, 1.2), (50, 1.3))), "twice"),
    (dict(deadline_changes=(50,)), "deadline_changes"),
])
def test_bad_schedules_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        Schedule(**kwargs)


def test_churn_needs_csr(workload):
    with pytest.raises(ValueError, match="CSR"):
        Churn(workload.demands.toarray(), Schedule.paper())
    with pytest.raises(ValueError, match="seed"):
        Churn(workload.demands, Schedule.paper(), seed=-1)


# ---------------------------------------------------------------- the loop on the kernel

BUDGET = 25   # rounds; exact dcdrf on the 2000 x 200 workload takes more


def test_stable_input_converges_with_the_kernel(workload):
    exact = drfbench.allocate(workload.demands, "dcdrf", threads=1)
    assert exact.rounds > BUDGET
    ctl = EpsilonController()
    rows = run_intervals(workload.demands, 40, max_rounds=BUDGET, controller=ctl, threads=1)
    bound = ctl.convergence_bound()
    assert rows[0]["epsilon"] == 0.0 and rows[0]["timed_out"] and rows[1]["epsilon"] == 1e-2
    assert all(r["phase"] in SETTLED_PHASES for r in rows[bound - 1:])
    assert all(in_bounds(ctl, r["epsilon"]) for r in rows)
    tail = rows[bound - 1:]
    hi = {r["epsilon"] for r in tail if not r["timed_out"]}
    lo = {r["epsilon"] for r in tail if r["timed_out"]}
    assert len(hi) == 1 and len(lo) == 1 and min(hi) <= max(lo) * ctl.resolution
    assert converged_epsilon(rows) == min(hi)
    # the converged epsilon really finishes inside the budget and improves on a timeout
    run = drfbench.allocate(workload.demands, "dcdrf", epsilon=min(hi), max_rounds=BUDGET, threads=1)
    assert not run.timed_out
    good = [r for r in tail if not r["timed_out"]]
    assert all(0.9 < r["utilization_ratio"] <= 1 + 1e-6 for r in good)
    assert all(r["baseline"] == default_baseline() for r in rows)
    assert settle_intervals(rows, 1) <= bound


def test_recovers_after_shift_and_deadline_changes(workload):
    schedule = Schedule(shift_at=(30,), shift_fraction=0.5, shift_magnitude=0.5,
                        deadline_changes=((50, 1.6), (70, 1.0)))
    ctl = EpsilonController()
    rows = run_intervals(workload.demands, 90, max_rounds=BUDGET, controller=ctl, threads=1,
                         schedule=schedule, seed=4)
    assert [r["deadline"] for r in rows[48:51]] == [25, 40, 40] and rows[69]["deadline"] == 25
    assert rows[29]["events"] == "shift" and rows[29]["changed_tenants"] == 1000
    bound = ctl.recovery_bound()
    by = {r["interval"]: r for r in rows}
    for change, end in ((30, 50), (50, 70), (70, 91)):
        assert all(by[j]["phase"] in SETTLED_PHASES for j in range(change + bound, end)), change
        assert settle_intervals(rows, change) <= bound
    # the larger budget lets a smaller epsilon finish, and the search found it
    assert converged_epsilon(rows[50:69]) < converged_epsilon(rows[30:49])
    # back to the first budget: the new window brackets the same threshold as before
    def window(segment):
        return (max(r["epsilon"] for r in segment if r["timed_out"]),
                min(r["epsilon"] for r in segment if not r["timed_out"]))
    (lo1, hi1), (lo2, hi2) = window(rows[29 + bound:49]), window(rows[69 + bound:])
    assert lo1 < hi1 and lo2 < hi2 and lo1 < hi2 and lo2 < hi1


def test_paper_schedule_settles_with_churn(workload):
    ctl = EpsilonController()
    rows = run_intervals(workload.demands, 80, max_rounds=BUDGET, controller=ctl, threads=1,
                         schedule=Schedule.paper(), seed=0, baseline=None)
    assert all(in_bounds(ctl, r["epsilon"]) for r in rows)
    assert [r["interval"] for r in rows if "deadline" in r["events"]] == [50, 70]
    assert all(r["deadline"] == (31 if 50 <= r["interval"] < 70 else 25) for r in rows)
    for change in (30, 50, 70):
        s = settle_intervals(rows, change)
        assert s is not None and s <= ctl.recovery_bound()
    assert all(math.isnan(r["fairness"]) for r in rows)


def test_round_budget_mode_reproduces_bit_for_bit():
    def run(threads):
        wl = workloads.generate("G0", 2000, 200, seed=3)
        return run_intervals(wl.demands, 45, max_rounds=BUDGET, threads=threads,
                             schedule=Schedule.paper(), seed=9)

    a, b, c = run(1), run(1), run(2)
    timing = {"elapsed", "baseline_elapsed", "threads"}
    strip = [[{k: v for k, v in r.items() if k not in timing} for r in rows] for rows in (a, b, c)]
    assert strip[0] == strip[1] == strip[2]   # floats compared exactly; any thread count


def test_accepts_a_workload_and_its_weights():
    wl = workloads.generate("G0", 500, 60, seed=1, weights="random")
    weighted = run_intervals(wl, 4, max_rounds=5, threads=1)
    explicit = run_intervals(wl.demands, 4, max_rounds=5, threads=1, weights=wl.weights)
    unweighted = run_intervals(wl.demands, 4, max_rounds=5, threads=1)
    assert [r["fairness"] for r in weighted] == [r["fairness"] for r in explicit]
    assert [r["fairness"] for r in weighted] != [r["fairness"] for r in unweighted]


def test_wall_clock_mode_runs(workload):
    rows = run_intervals(workload.demands, 6, deadline=10.0, threads=1)
    assert all(r["mode"] == "seconds" and r["deadline"] == 10.0 for r in rows)
    assert rows[0]["epsilon"] == 0.0 and rows[0]["elapsed"] > 0
    # a generous deadline: exact EDRF finishes and the controller stays exact
    assert not rows[0]["timed_out"] and all(r["epsilon"] == 0.0 for r in rows)
    assert [r["phase"] for r in rows] == [ZERO] + [EXACT] * 5


@pytest.mark.parametrize("kwargs, name", [
    (dict(), "exactly one"), (dict(deadline=1.0, max_rounds=5), "exactly one"),
    (dict(deadline=0.0), "deadline"), (dict(deadline=-1.0), "deadline"),
    (dict(deadline=math.inf), "deadline"), (dict(max_rounds=0), "max_rounds"),
    (dict(max_rounds=2.5), "max_rounds"), (dict(max_rounds=5, n_intervals=0), "n_intervals"),
    (dict(max_rounds=5, method="pedrf"), "epsilon"), (dict(max_rounds=5, threads=0), "threads"),
    (dict(max_rounds=5, controller="fast"), "controller"),
    (dict(max_rounds=5, baseline="nope"), "unknown method"),
    (dict(max_rounds=5, schedule="paper"), "schedule"),
])
def test_bad_run_settings_are_named(workload, kwargs, name):
    n = kwargs.pop("n_intervals", 3)
    with pytest.raises((ValueError, TypeError), match=name):
        run_intervals(workload.demands, n, **kwargs)


def test_schedule_needs_demands_it_can_change_in_place(workload):
    with pytest.raises(ValueError, match="in place"):
        run_intervals(workload.demands.toarray(), 3, max_rounds=5,
                      schedule=Schedule.paper())


def test_settle_and_converged_helpers():
    outcomes = [(0.0, True), (1e-2, False), (5e-3, False), (4.5e-3, True),
                (1e-2, True), (2e-2, False), (1.9e-2, True), (2e-2, False)]
    rows = [{"interval": j, "events": "deadline" if j == 5 else "", "timed_out": t,
             "epsilon": e, "phase": SETTLED} for j, (e, t) in enumerate(outcomes, start=1)]
    assert converged_epsilon(rows[:3]) == 7.5e-3 and converged_epsilon(rows, last=2) == 2e-2
    assert math.isnan(converged_epsilon(rows[:1]))
    assert settle_intervals(rows, 1, last=1) == 2   # segment 1-4 converged to 5e-3
    assert settle_intervals(rows, 5, last=1) == 1   # 1e-2 lies outside 2e-2 / 1.44
    assert settle_intervals(rows, 6, last=1) == 0
    assert resettle_intervals(rows, 5) == 0
    rows[5]["phase"] = rows[6]["phase"] = EXPAND
    assert resettle_intervals(rows, 5) == 3 and resettle_intervals(rows, 7) == 1
    rows[7]["phase"] = EXPAND
    assert resettle_intervals(rows, 5) is None
    with pytest.raises(ValueError, match="interval 9"):
        settle_intervals(rows, 9)


# ---------------------------------------------------------------- command line

def test_cli_writes_tidy_rows_and_summary(tmp_path, capsys):
    out, summary = tmp_path / "sub" / "fig11.csv", tmp_path / "summary.csv"
    main(["--tenants", "1500", "--resources", "150", "--intervals", "35", "--mode", "rounds",
          "--budgets", "20", "--threads", "1", "--schedule", "paper", "--shift-at", "20", "--csv", str(out),
          "--summary", str(summary)])
    printed = capsys.readouterr().out
    assert printed.count("\ninterval ") == 35 and "converged epsilon" in printed
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 35 and [int(r["interval"]) for r in rows] == list(range(1, 36))
    assert rows[19]["events"] == "churn;shift" and rows[0]["mode"] == "rounds"
    assert {"epsilon", "elapsed", "rounds", "timed_out", "utilization_ratio", "fairness",
            "deadline", "git_commit", "cpu_model"} <= set(rows[0])
    (s,) = list(csv.DictReader(open(summary)))
    assert float(s["converged_epsilon"]) > 0 and s["settle"].startswith("1:")
    assert [p.name for p in out.parent.iterdir()] == ["fig11.csv"]   # no temporary left


def test_cli_figure10_runs_one_per_deadline_and_thread_count(tmp_path):
    out = tmp_path / "fig10.csv"
    rows, summary = main(["--tenants", "1500", "--resources", "150", "--intervals", "20",
                          "--mode", "rounds", "--budgets", "10", "20", "--threads", "1", "2", "--baseline", "none",
                          "--csv", str(out)])
    assert len(rows) == 80 and len(summary) == 4
    eps = {(s["threads"], s["base_deadline"]): s["converged_epsilon"] for s in summary}
    assert eps[(1, 10)] == eps[(2, 10)] > eps[(1, 20)] == eps[(2, 20)]   # deterministic
    assert len(list(csv.DictReader(open(out)))) == 80


def test_cli_relative_deadlines(tmp_path):
    rows, summary = main(["--tenants", "1500", "--resources", "150", "--intervals", "12",
                          "--mode", "rounds", "--budgets", "0.5", "--relative", "--threads", "1",
                          "--baseline", "none", "--csv", str(tmp_path / "r.csv")])
    exact = drfbench.allocate(workloads.generate("G0", 1500, 150, seed=0).demands, "dcdrf",
                              threads=1).rounds
    assert summary[0]["base_deadline"] == max(1, int(math.floor(0.5 * exact + 0.5)))


def test_relative_budgets_follow_each_thread_counts_own_reference(tmp_path, monkeypatch):
    # each thread count's deadlines are multiples of its own exact run, measured with it
    measured = []

    def reference(matrix, method, weights, threads, rounds_mode):
        measured.append(threads)
        return 0.1 * threads
    monkeypatch.setattr(controller, "_reference", reference)
    rows, summary = main(["--tenants", "600", "--resources", "60", "--intervals", "2",
                          "--budgets", "0.5", "2", "--relative", "--threads", "1", "2",
                          "--baseline", "none", "--csv", str(tmp_path / "r.csv")])
    assert measured == [1, 2]
    deadlines = {(s["threads"], s["relative"]): s["base_deadline"] for s in summary}
    assert deadlines == pytest.approx({(1, 0.5): 0.05, (1, 2.0): 0.2,
                                       (2, 0.5): 0.1, (2, 2.0): 0.4})
    assert {s["threads"]: s["reference"] for s in summary} == pytest.approx({1: 0.1, 2: 0.2})


ROUNDS = ["--mode", "rounds", "--threads", "1", "--budgets"]


@pytest.mark.parametrize("argv, message", [
    ([*ROUNDS, "0"], "positive"), (["--threads", "1", "--budgets", "-1"], "positive"),
    (["--threads", "1", "--budgets", "inf"], "positive"), ([*ROUNDS, "2.5"], "whole"),
    ([*ROUNDS, "5", "--intervals", "0"], "--intervals"),
    ([*ROUNDS, "5", "--eps-min", "0"], "eps_min"),
    ([*ROUNDS, "5", "--schedule", "paper", "--churn-fraction", "2"], "churn_fraction"),
    ([*ROUNDS, "5", "--baseline", "nope"], "unknown baseline"),
    ([*ROUNDS, "5", "--mode", "minutes"], "--mode"),
    (["--budgets", "5", "--threads", "0"], "--threads"),
    (["--budgets", "5"], "required: --threads"),
    ([], "required"),
])
def test_cli_rejects_bad_settings(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        main(argv + ["--csv", str(tmp_path / "x.csv")] if argv else ["--csv", "x.csv"])
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


def test_cli_threads_are_the_declared_option_s_sweep():
    """--threads is api.THREADS as a sweep (catalog.STEP_SWEEPS): whole numbers within its
    bounds, "all" (its `none` text) for the default count; the pipeline's values as they
    are in the config."""
    from drfbench import pipeline
    from drfbench._command import options_of
    from drfbench.dcdrf.controller import parser
    args = parser().parse_args(["--budgets", "5", "--threads", "all", "2", "--csv", "x.csv"])
    assert options_of(args) == {"threads": [None, 2]}
    assert pipeline.flags({"threads": [1, "all"], "budgets": [0.1]}, "dcdrf", "controller") == \
        "--threads 1 all"
