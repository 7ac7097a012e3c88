"""DRFH's knobs (drfbench.drfh): the slot model (how a task runs in a slot) and the task
scale of converted traces, and the sensitivity study's rows. Each changes what it should and
nothing else: a capped slot never gives a task more than the slot, and never holds more than
the server; the literal transcription decides as the kernel under both models; unknown
values are refused naming the knob and its choices."""
import numpy as np
import pandas as pd
import pytest

import drfbench
from drfbench import drfh, sim
from drfbench.drfh import trace as tr
from drfbench.drfh.schedulers import capped, slot_counts
from drfbench.drfh.sensitivity import SIZE_CLASSES, completion_gains, reduction_by_size, study

from test_drfh_sim import Logged, random_case


def test_capped_trace_holds_at_most_a_slot_and_runs_longer():
    C, trace = random_case(5, n_servers=6, tasks=80)
    k = 4
    slot = C.max(axis=0) / k
    out = capped(trace, C, k)
    run = trace.fits(C)
    assert (out.demands[run] <= slot * (1 + 1e-15)).all()            # never more than the slot
    stretch = np.maximum(1.0, (trace.demands / slot).max(axis=1))
    np.testing.assert_allclose(out.duration[run], trace.duration[run] * stretch[run])
    small = run & (trace.demands <= slot).all(axis=1)                 # within a slot: unchanged
    assert np.array_equal(out.demands[small], trace.demands[small])
    assert np.array_equal(out.duration[small], trace.duration[small])
    assert np.array_equal(out.demands[~run], trace.demands[~run])     # unschedulable stays so
    assert (~out.fits(C) == ~run).all()
    assert np.array_equal(out.user, trace.user) and np.array_equal(out.job, trace.job)
    assert np.array_equal(out.arrival, trace.arrival)


def test_a_capped_slot_never_gives_a_task_more_than_the_slot():
    """Simulated: each task holds at most a slot's resources, no server ever holds more than
    it has (so nothing is time-shared: every task runs at speed 1, for its stretched
    duration), and the decisions are the literal transcription's."""
    servers = tr.google_servers(12, seed=2)
    tasks = tr.alibaba_tasks(fraction=0.002, users=6, seed=1, task_scale=20.0)
    k = 16
    res = drfh.simulate(servers, tasks, "drfh-slots", slots=k, slot_model="capped", sample=30.0)
    assert res.slot_model == "capped" and res.slots == k
    C = servers.to_numpy()
    ran = capped(drfh.read_tasks(tasks, ("cpu", "memory")), C, k)
    slot = C.max(axis=0) / k
    T = res.run.tasks
    started = np.isfinite(T["start"])
    assert (ran.demands[started] <= slot * (1 + 1e-12)).all()
    assert (tasks[["cpu", "memory"]].to_numpy()[started] > slot).any()   # some needed more
    done = np.isfinite(T["end"])
    np.testing.assert_allclose(T["end"][done] - T["start"][done], ran.duration[done], rtol=1e-9)
    assert (res.run.samples["speed"] <= 1.0).all()
    for t in np.unique(T["start"][started]):
        on = (T["start"] <= t) & ~(T["end"] <= t)
        for m in range(len(C)):
            assert (ran.demands[on & (T["machine"] == m)].sum(axis=0) <= C[m] * (1 + 1e-9)).all()
    assert (T["machine"][started] >= 0).all() and slot_counts(C, k)[T["machine"][started]].min() > 0
    lit = drfh.simulate(servers, tasks, "drfh-slots", slots=k, slot_model="capped", sample=30.0,
                        literal=True)
    assert lit.run.tasks["machine"].tolist() == T["machine"].tolist()
    pd.testing.assert_frame_equal(lit.jobs, res.jobs)


def test_timeshare_is_the_default_and_capped_changes_only_oversized_tasks():
    servers = pd.DataFrame({"r0": [1.0, 1.0, 0.5], "r1": [1.0, 0.5, 1.0]})   # 2, 1, 1 slots of k = 2
    rng = np.random.default_rng(4)
    n = 40
    D = rng.choice([0.1, 0.3, 0.5], size=(n, 2))
    tasks = pd.DataFrame({"user": rng.integers(0, 3, n), "job": np.arange(n),
                          "arrival": np.sort(rng.uniform(0, 50, n)), "duration": rng.uniform(5, 30, n),
                          "r0": D[:, 0], "r1": D[:, 1]})
    run = lambda t, **kw: drfh.simulate(servers, t, "drfh-slots", slots=2, sample=5.0, **kw)
    default, share, cap = run(tasks), run(tasks, slot_model="timeshare"), run(tasks, slot_model="capped")
    assert default.slot_model == "timeshare"
    for res in (share, cap):                   # every task within a slot: the models agree
        pd.testing.assert_frame_equal(default.jobs, res.jobs)
        pd.testing.assert_frame_equal(default.utilization, res.utilization)
    big = tasks.assign(r0=np.where(np.arange(n) % 3 == 0, 0.9, tasks["r0"]))
    share, cap = run(big), run(big, slot_model="capped")
    speed = share.run.samples["speed"], cap.run.samples["speed"]    # 0: nothing running
    assert ((speed[0] > 0) & (speed[0] < 1)).any()           # oversubscribed, time-shared
    assert (speed[1][speed[1] > 0] == 1).all()                # capped: never
    # the DRFH schedulers have no slots: the option is refused, naming it
    with pytest.raises(ValueError, match="takes no option slot_model"):
        drfh.simulate(servers, tasks, "drfh-best-fit", slot_model="capped")
    with pytest.raises(ValueError, match=r"^slot_model must be one of 'timeshare', 'capped'; got 'lax'"):
        drfh.simulate(servers, tasks, "drfh-slots", slot_model="lax")
    assert drfbench.api.method_info("drfh-slots").defaults()["slot_model"] == "timeshare"


def test_the_kernel_decides_as_the_literal_transcription_under_capped_slots():
    for seed in range(6):
        C, trace = random_case(seed, resources=2 + seed % 2, tasks=50)
        ran = capped(trace, C, 8)
        logs = []
        for policy in (drfh.LiteralScheduler(C, ran, "drfh-slots", slots=8),
                       drfh.scheduler(C, ran, "drfh-slots", slots=8)):
            wrapped = Logged(policy)
            sim.simulate(C, ran, wrapped, sample=5.0)
            logs.append(wrapped.log)
        assert logs[0] == logs[1], seed


def test_task_scale_scales_the_demands_and_nothing_else():
    base = tr.alibaba_tasks(fraction=0.005, users=8, seed=3)
    assert base.equals(tr.alibaba_tasks(fraction=0.005, users=8, seed=3, task_scale=1.0))
    big = tr.alibaba_tasks(fraction=0.005, users=8, seed=3, task_scale=tr.PAPER_TASK_SCALE)
    pd.testing.assert_frame_equal(big.drop(columns=["cpu", "memory"]),
                                  base.drop(columns=["cpu", "memory"]))
    np.testing.assert_allclose(big[["cpu", "memory"]], base[["cpu", "memory"]] * tr.PAPER_TASK_SCALE)
    for bad in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="task_scale must be a positive finite number"):
            tr.alibaba_tasks(fraction=0.005, task_scale=bad)


def test_the_paper_task_scale_is_what_table_2_implies():
    """With every slot of Table I's servers at k = 14 taken, 43.9% CPU and 28.0% memory
    mean tasks 4.8 and 5.2 times the Alibaba sample's mean task."""
    g = pd.read_csv(tr.GOOGLE)
    C, n = g[["cpu", "memory"]].to_numpy(), g["machines"].to_numpy()
    slots = (slot_counts(C, 14) * n).sum()
    implied = np.array([0.439, 0.280]) * (C * n[:, None]).sum(axis=0) / slots
    mean = tr.alibaba_tasks()[["cpu", "memory"]].mean().to_numpy()
    assert implied / mean == pytest.approx([4.8, 5.2], abs=0.05)
    assert tr.PAPER_TASK_SCALE == pytest.approx((implied / mean).mean(), abs=0.1)


def test_the_study_rows():
    servers = tr.google_servers(15, seed=0)
    tasks = tr.alibaba_tasks(fraction=0.003, users=6, seed=0, task_scale=10.0)
    rows = pd.DataFrame(study(servers, tasks, [4, 8, 16], slot_model="capped", horizon=1800.0,
                              sample=60.0))
    assert set(rows["figure"]) == {"table2", "fig5", "fig6", "fig7"}
    table = rows[rows["figure"] == "table2"].pivot(index="slots", columns="metric", values="value")
    best = int(table.mean(axis=1).idxmax())
    fig5 = rows[rows["figure"] == "fig5"].set_index(["method", "metric"])
    assert fig5.loc[("drfh-slots", "utilization_cpu"), "slots"] == best
    assert fig5.loc[("drfh-slots", "utilization_cpu"), "value"] == table.loc[best, "utilization_cpu"]
    fig6 = rows[rows["figure"] == "fig6"].set_index("metric")["value"]
    assert {f"reduction_{c}" for c in SIZE_CLASSES} | {"jobs"} <= set(fig6.index)
    fig7 = rows[rows["figure"] == "fig7"]
    assert ((fig7["value"] >= 0) & (fig7["value"] <= 1)).all()


def test_fig6_and_fig7_comparisons():
    r = reduction_by_size([1, 1, 5, 200], [1.0, 3.0, 5.0, 10.0], [4.0, 4.0, 10.0, 5.0])
    assert r["1"] == pytest.approx(0.5) and r["2-10"] == pytest.approx(0.5)
    assert r[">100"] == pytest.approx(-1.0) and np.isnan(r["11-50"])
    best = pd.DataFrame({"user": [1, 2, 3], "submitted": [4, 4, 4], "ratio": [1.0, 0.5, 1.0]})
    other = pd.DataFrame({"user": [1, 2, 3], "submitted": [4, 4, 4], "ratio": [0.5, 0.5, 1.0]})
    assert completion_gains(best, other) == pytest.approx((1 / 3, 1 / 3))
