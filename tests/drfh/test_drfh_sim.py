"""DRFH's discrete schedulers, traces and simulate(): the kernel (drfbench/drfh/drfh.pyx) against
the literal NumPy transcription decision by decision, the server index against the literal
scan, no overcommitment, the paper's Fig. 1 example, the generic trace format and its
errors."""
import numpy as np
import pandas as pd
import pytest

import drfbench
from drfbench import _isa, drfh, sim
from drfbench.drfh import trace as tr
from drfbench.drfh.literal import LiteralScheduler
from drfbench.drfh.schedulers import slot_counts
from drfbench.drfh.simulation import scheduler
from cases import seeds

VARIANTS = list(_isa.runnable())


def random_case(seed, n_servers=None, resources=2, users=4, tasks=60):
    """A small heterogeneous cluster (a few configurations, so that ties happen) and a
    trace of tasks of mixed shapes."""
    rng = np.random.default_rng(seed)
    configs = rng.choice([0.25, 0.5, 0.75, 1.0], size=(3, resources))
    M = n_servers or int(rng.integers(2, 12))
    C = configs[rng.integers(0, 3, size=M)]
    shapes = rng.choice([0.05, 0.1, 0.2, 0.3], size=(6, resources))
    shapes[rng.integers(0, 6), rng.integers(0, resources)] = 0.0    # a zero demand
    D = shapes[rng.integers(0, 6, size=tasks)]
    if seed % 5 == 0:
        D[rng.integers(0, tasks)] = 2.0                               # fits no server
    arrival = np.sort(rng.integers(0, 30, size=tasks)).astype(float)
    user = rng.integers(0, users, size=tasks)
    trace = sim.Trace(user, user * 1000 + rng.integers(0, 3, size=tasks), arrival,
                      rng.integers(1, 20, size=tasks).astype(float), D, users=users)
    return C, trace


class Logged:
    """A policy wrapper that records every call and every decision."""

    def __init__(self, policy):
        self.policy = policy
        self.log = []

    def add_tasks(self, user, count):
        self.log.append(("add", user, count))
        self.policy.add_tasks(user, count)

    def schedule(self):
        users, where = self.policy.schedule()
        self.log.append(("launch", users.tolist(), where.tolist()))
        return users, where

    def release_task(self, task, user, machine):
        self.log.append(("release", task, user, machine))
        self.policy.release_task(task, user, machine)


@pytest.mark.parametrize("seed", seeds(30))
@pytest.mark.parametrize("name", drfbench.methods(takes="trace"))
def test_kernel_equals_literal_transcription(name, seed):
    C, trace = random_case(seed, resources=2 + seed % 3, tasks=50)
    logs = []
    slots = {"slots": 8} if name == "drfh-slots" else {}
    for policy in (LiteralScheduler(C, trace, name, slots=8),
                   scheduler(C, trace, name, **slots),
                   scheduler(C, trace, name, **slots, index=False)):
        wrapped = Logged(policy)
        res = sim.simulate(C, trace, wrapped, sample=5.0)
        logs.append((wrapped.log, res.tasks["machine"].tolist(),
                     np.nan_to_num(res.tasks["start"], nan=-1).tolist()))
    assert logs[1] == logs[0]
    assert logs[2] == logs[0]


@pytest.mark.parametrize("name", drfbench.methods(takes="trace"))
def test_the_scheduler_takes_the_registry_s_options(name):
    """drfh.scheduler checks its options as drfh.simulate does (one declaration, the
    catalog's): literal=True is the transcription; the run's own options are refused; both
    launch as named Launches."""
    C, trace = random_case(4, tasks=40)
    policies = [scheduler(C, trace, name, literal=literal) for literal in (False, True)]
    assert isinstance(policies[1], LiteralScheduler)
    for policy in policies:
        policy.add_tasks(0, int((trace.user == 0).sum()))
        launches = policy.schedule()
        assert launches._fields == ("users", "servers") and (launches.users == 0).all()
    with pytest.raises(ValueError, match=r"sample: option\(s\) of the simulation"):
        scheduler(C, trace, name, sample=1.0)
    with pytest.raises(ValueError, match="the literal transcription has none"):
        scheduler(C, trace, name, literal=True, isa="generic")
    if name != "drfh-slots":
        with pytest.raises(ValueError, match=f"method '{name}' takes no option slots"):
            scheduler(C, trace, name, slots=8)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["drfh-best-fit", "drfh-first-fit"])
def test_index_equals_scan_at_scale(name):
    """Hundreds of servers of ten configurations (ties everywhere), many tasks: the index
    and the scan choose the same server every time; 1 or 2 threads, every kernel variant."""
    rng = np.random.default_rng(7)
    C = np.asarray(tr.google_servers(300, seed=3), dtype=float)
    n = 3000
    D = rng.choice([0.01, 0.02, 0.05, 0.1, 0.2], size=(n, 2))
    trace = sim.Trace(rng.integers(0, 20, n), np.arange(n), np.sort(rng.random(n) * 500),
                      rng.integers(5, 200, n).astype(float), D, users=20)
    runs = []
    cases = [(True, 1, isa) for isa in VARIANTS] + [(False, 1, None), (False, 2, None)]
    for index, threads, isa in cases:
        p = scheduler(C, trace, name, index=index, threads=threads, isa=isa)
        res = sim.simulate(C, trace, p, sample=50.0, isa=isa)
        runs.append((res.tasks["machine"].tolist(),
                     np.nan_to_num(res.tasks["start"], nan=-1).tolist()))
    assert all(r == runs[0] for r in runs)


@pytest.mark.parametrize("name", ["drfh-best-fit", "drfh-first-fit"])
def test_never_overcommits(name):
    C, trace = random_case(3, n_servers=6, users=5, tasks=200)
    res = sim.simulate(C, trace, scheduler(C, trace, name), sample=1.0)
    T = res.tasks
    for t in np.unique(T["start"][np.isfinite(T["start"])]):
        on = (T["start"] <= t) & ~(T["end"] <= t)
        for k in range(len(C)):
            used = trace.demands[on & (T["machine"] == k)].sum(axis=0)
            assert (used <= C[k] * (1 + 1e-12)).all()
    assert (res.samples["speed"] <= 1.0).all()


def fig1():
    servers = pd.DataFrame({"cpu": [2.0, 12.0], "mem": [12.0, 2.0]})
    tasks = pd.DataFrame({"user": [1] * 30 + [2] * 30, "job": [1] * 30 + [2] * 30,
                          "arrival": 0.0, "duration": 10.0,
                          "cpu": [0.2] * 30 + [1.0] * 30, "mem": [1.0] * 30 + [0.2] * 30})
    return servers, tasks


def test_fig1_best_fit_reaches_drfh_first_fit_per_server():
    """Fig. 1: Best-Fit gives each server wholly to one user, 10 tasks each (Fig. 3's DRFH
    allocation); First-Fit lands on 6 each here."""
    servers, tasks = fig1()
    best = drfh.simulate(servers, tasks, "drfh-best-fit", sample=1.0)
    assert best.shares.iloc[0].tolist() == pytest.approx([10 / 14, 10 / 14])
    T = best.run.tasks
    first = T["start"] == 0
    assert np.bincount(T["user"][first]).tolist() == [10, 10]
    assert set(T["machine"][first & (T["user"] == 0)]) == {0}
    ff = drfh.simulate(servers, tasks, "drfh-first-fit", sample=1.0)
    assert ff.shares.iloc[0].tolist() == pytest.approx([6 / 14, 6 / 14])


def test_slot_counts_scale_to_each_server():
    C = np.array([[1.0, 1.0], [0.5, 0.25], [0.5, 0.5], [0.5, 0.03], [1.0, 0.5]])
    assert slot_counts(C, 14).tolist() == [14, 3, 7, 0, 7]


def test_simulate_contract_and_rows():
    servers = tr.google_servers(30, seed=1)
    tasks = tr.alibaba_tasks(fraction=0.002, users=5, seed=2)
    tasks.loc[3, "cpu"] = 5.0                                   # larger than every server
    res = drfh.simulate(servers, tasks, "drfh-best-fit", sample=100.0)
    assert list(res.utilization.columns) == ["cpu", "memory"]
    assert res.utilization.index.name == "time"
    assert sorted(res.shares.columns) == sorted(tasks["user"].unique())
    assert list(res.jobs.columns) == ["job", "user", "submit", "finish"]
    assert len(res.unschedulable) == 1 and res.unschedulable["cpu"].iloc[0] == 5.0
    job = tasks.loc[3, "job"]
    assert np.isnan(res.jobs.set_index("job").loc[job, "finish"])
    assert res.jobs["finish"].notna().sum() == len(res.jobs) - 1
    assert ((res.utilization >= 0) & (res.utilization <= 1 + 1e-9)).all().all()
    rows = res.rows(trace="t")
    assert {"method", "metric", "time", "value", "git_commit", "trace"} <= set(rows[0])
    again = drfh.simulate(servers, tasks, "drfh-best-fit", sample=100.0)
    pd.testing.assert_frame_equal(res.jobs, again.jobs)


def test_any_number_of_resources():
    servers = pd.DataFrame({"cpu": [1.0, 0.5], "mem": [1.0, 0.5], "gpu": [0.0, 2.0],
                            "count": [2, 1]})
    tasks = pd.DataFrame({"user": ["a", "b", "a"], "job": ["x", "y", "z"],
                          "arrival": [0.0, 0.0, 1.0], "duration": [5.0, 5.0, 5.0],
                          "gpu": [0.0, 1.0, 0.0], "cpu": [0.5, 0.25, 0.5],
                          "mem": [0.5, 0.25, 0.5]})
    for name in drfbench.methods(takes="trace"):
        res = drfh.simulate(servers, tasks, name, sample=1.0)
        assert list(res.utilization.columns) == ["cpu", "mem", "gpu"]
        assert res.jobs["finish"].notna().all()
        assert res.run.tasks["machine"][1] == 2          # the GPU task: the GPU server


def test_converters():
    s = tr.google_servers(1000, seed=0)
    assert list(s.columns) == ["cpu", "memory"] and len(s) == 1000
    assert s.equals(tr.google_servers(1000, seed=0))
    assert (s.max() <= 1.0).all()
    t = tr.alibaba_tasks(fraction=0.01, users=10, seed=0)
    assert list(t.columns) == ["user", "job", "arrival", "duration", "cpu", "memory"]
    assert t["arrival"].is_monotonic_increasing and (t["duration"] >= 1).all()
    assert t.groupby("job")["user"].nunique().max() == 1
    assert t.equals(tr.alibaba_tasks(fraction=0.01, users=10, seed=0))


@pytest.mark.parametrize("change, message", [
    (lambda s, t: (s.assign(cpu=[-1.0, 1.0]), t), "finite numbers >= 0"),
    (lambda s, t: (s.assign(cpu=[np.nan, 1.0]), t), "finite numbers >= 0"),
    (lambda s, t: (s.assign(mem=[np.inf, 1.0]), t), "finite numbers >= 0"),
    (lambda s, t: (s.assign(cpu=[0.0, 1.0], mem=[0.0, 1.0]), t), "no capacity at all"),
    (lambda s, t: (s.rename(columns={"mem": "ram"}), t), "resource columns"),
    (lambda s, t: (s, t.assign(cpu=-t["cpu"])), "finite numbers >= 0"),
    (lambda s, t: (s, t.assign(mem=np.nan)), "finite numbers >= 0"),
    (lambda s, t: (s, t.assign(arrival=t["arrival"][::-1].to_numpy() + 1)), "sorted"),
    (lambda s, t: (s, t.assign(duration=0.0)), "duration"),
    (lambda s, t: (s, t.drop(columns="job")), "lacks column"),
])
def test_bad_input(change, message):
    servers, tasks = fig1()
    tasks = tasks.assign(arrival=np.arange(len(tasks), dtype=float))
    s, t = change(servers, tasks)
    with pytest.raises(ValueError, match=message):
        drfh.simulate(s, t)


def test_unknown_method_and_files(tmp_path):
    servers, tasks = fig1()
    with pytest.raises(ValueError, match="unknown method 'worst-fit'; registered methods taking trace"):
        drfh.simulate(servers, tasks, "worst-fit")
    with pytest.raises(ValueError, match="does not exist"):
        drfh.simulate(tmp_path / "none.csv", tasks)
    servers.to_csv(tmp_path / "s.csv", index=False)
    tasks.to_csv(tmp_path / "t.csv", index=False)
    res = drfh.simulate(tmp_path / "s.csv", tmp_path / "t.csv", "drfh-first-fit")
    assert res.jobs["finish"].notna().all()


def test_registry():
    """The trace methods run through the registry by their registered names, and an
    option a method does not take is refused, naming it."""
    assert drfbench.methods(takes="trace") == ("drfh-first-fit", "drfh-best-fit", "drfh-slots")
    servers, tasks = fig1()
    via_registry = drfbench.run("drfh-slots", servers, tasks, slots=8, sample=1.0)
    direct = drfh.simulate(servers, tasks, "drfh-slots", slots=8, sample=1.0)
    assert via_registry.method == "drfh-slots" and via_registry.slots == 8
    assert via_registry.run.tasks["machine"].tolist() == direct.run.tasks["machine"].tolist()
    with pytest.raises(ValueError, match="takes no option slots"):
        drfh.simulate(servers, tasks, "drfh-best-fit", slots=8)
    with pytest.raises(ValueError, match="takes trace, not servers"):
        drfh.allocate([[1.0, 1.0]], [[2.0, 2.0]], "drfh-best-fit")
