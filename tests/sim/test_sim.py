"""The discrete-event cluster simulator (drfbench.sim): hand-computed examples with and
without processor sharing, arrivals, capacity, jobs, determinism, unschedulable tasks,
and bad input."""
import numpy as np
import pytest

from cases import SIM_FIELDS, task_policy
from conftest import assert_same
from drfbench import drf, sim

# ---------------------------------------------------------------------------------------
# Small policies for the tests
# ---------------------------------------------------------------------------------------


class Pinned:
    """Launches every pending task at once on its user's machine, whatever it needs
    (oversubscribes: processor sharing decides the speeds)."""

    def __init__(self, machine_of_user):
        self.machine_of = list(machine_of_user)
        self.pending = [0] * len(self.machine_of)

    def add_tasks(self, user, count):
        self.pending[user] += count

    def schedule(self):
        users = [u for u, c in enumerate(self.pending) for _ in range(c)]
        self.pending = [0] * len(self.pending)
        return np.array(users, dtype=int), np.array([self.machine_of[u] for u in users], dtype=int)

    def release(self, user, machine):
        pass


class RandomFit:
    """A random pending task (user chosen at random) on a random machine where it fits;
    never oversubscribes. Tracks each task's demand (a TaskPolicy)."""

    def __init__(self, machines, trace, seed):
        self.cap = np.asarray(machines, dtype=float)
        self.used = np.zeros_like(self.cap)
        self.rng = np.random.default_rng(seed)
        fits = trace.fits(self.cap)
        self.tasks_of = [list(np.flatnonzero((trace.user == u) & fits)) for u in range(trace.users)]
        self.D = trace.demands
        self.pending = [0] * trace.users
        self.next = [0] * trace.users

    def add_tasks(self, user, count):
        self.pending[user] += count

    def schedule(self):
        users, machines = [], []
        while True:
            options = []
            for u in np.flatnonzero(self.pending):
                d = self.D[self.tasks_of[u][self.next[u]]]
                ks = np.flatnonzero((self.used + d <= self.cap * (1 + 1e-12)).all(axis=1))
                options += [(u, k) for k in ks]
            if not options:
                return np.array(users, dtype=int), np.array(machines, dtype=int)
            u, k = options[self.rng.integers(len(options))]
            self.used[k] += self.D[self.tasks_of[u][self.next[u]]]
            self.next[u] += 1
            self.pending[u] -= 1
            users.append(u)
            machines.append(k)

    def release_task(self, task, user, machine):
        self.used[machine] -= self.D[task]

    def release(self, user, machine):
        raise AssertionError("the simulator must call release_task")


class RandomAnywhere:
    """Launches a random number of random pending users' tasks on random machines,
    whatever they need (oversubscribes: machine speeds below 1, not powers of 2)."""

    def __init__(self, n_users, n_machines, seed):
        self.pending = np.zeros(n_users, dtype=int)
        self.M = n_machines
        self.rng = np.random.default_rng(seed)

    def add_tasks(self, user, count):
        self.pending[user] += count

    def schedule(self):
        users = []
        for _ in range(int(self.rng.integers(0, 4))):
            waiting = np.flatnonzero(self.pending)
            if not waiting.size:
                break
            u = int(self.rng.choice(waiting))
            self.pending[u] -= 1
            users.append(u)
        return np.array(users, dtype=np.int32), self.rng.integers(0, self.M, len(users))

    def release(self, user, machine):
        pass


class Liar:
    """Launches user 0 whether or not it has anything pending."""

    def add_tasks(self, user, count):
        pass

    def schedule(self):
        return np.array([0]), np.array([0])

    def release(self, user, machine):
        pass


def random_trace(rng, n_tasks=60, n_users=4, resources=2, span=50.0):
    arrival = np.sort(np.round(rng.uniform(0, span, n_tasks), 1))      # some ties
    user = rng.integers(0, n_users, n_tasks)
    job = user * 100 + rng.integers(0, 4, n_tasks)
    duration = rng.uniform(1, 20, n_tasks)
    demands = rng.uniform(0.05, 0.6, (n_tasks, resources))
    return sim.Trace(user, job, arrival, duration, demands, users=n_users)


def random_machines(rng, M=5, resources=2):
    return rng.choice([0.5, 0.75, 1.0], size=(M, resources))


# ---------------------------------------------------------------------------------------
# Hand-computed examples
# ---------------------------------------------------------------------------------------


def test_processor_sharing_hand_computed():
    # Machine 0 <4 CPU>: A (4 CPU, 10 s) from 0; B (4 CPU, 4 s) joins at 2, load 8/4 = 2,
    # both at speed 1/2: B's 4 s of work end at 2 + 8 = 10, when A has 10 - 2 - 4 = 4 left,
    # alone again at speed 1: A ends at 14. Machine 1: C (2 CPU, 3 s) alone, ends at 3.
    trace = sim.Trace(user=[0, 2, 1], job=[1, 3, 2], arrival=[0.0, 0.0, 2.0],
                      duration=[10.0, 3.0, 4.0], demands=[[4.0], [2.0], [4.0]])
    res = sim.simulate([[4.0], [4.0]], trace, Pinned([0, 0, 1]), sample=1.0)
    assert res.tasks["end"].tolist() == [14.0, 3.0, 10.0]
    assert res.tasks["start"].tolist() == [0.0, 0.0, 2.0]
    assert res.tasks["machine"].tolist() == [0, 1, 0]
    assert res.jobs["finish"].tolist() == [14.0, 10.0, 3.0]        # jobs 1, 2, 3
    assert res.end == 14.0
    t = res.samples["time"]
    assert t.tolist() == [float(s) for s in range(15)]
    speed, share = res.samples["speed"], res.samples["share"][:, :, 0]
    np.testing.assert_array_equal(speed[t < 2, 0], 1.0)
    np.testing.assert_array_equal(speed[(t > 2) & (t < 10)],          # C ends at 3
                                  [[0.5, 0.5, 1.0]] + [[0.5, 0.5, 0.0]] * 6)
    np.testing.assert_array_equal(share[5], [4 * 0.5 / 8, 4 * 0.5 / 8, 0.0])
    np.testing.assert_array_equal(speed[t > 10], [[1.0, 0.0, 0.0]] * 4)
    # a sample at an event's time shows the state just before it
    assert speed[10].tolist() == [0.5, 0.5, 0.0] and speed[14].tolist() == [1.0, 0.0, 0.0]
    np.testing.assert_array_equal(res.samples["utilization"][:, 0], share.sum(axis=1))


def test_speed_one_without_oversubscription_hand_computed():
    # One machine <1, 1>; tasks of <1, 0.5> never fit two at a time: FIFO back to back.
    trace = sim.Trace(user=[0, 1, 0, 1], job=[0, 1, 0, 2], arrival=[0.0, 0.5, 1.0, 1.0],
                      duration=[2.0, 3.0, 0.25, 4.0], demands=[[1, 0.5]] * 4)
    C = [[1.0, 1.0]]
    res = sim.simulate(C, trace, sim.FifoFirstFit(C, trace), sample=0.5)
    assert res.tasks["start"].tolist() == [0.0, 2.0, 5.0, 5.25]
    assert res.tasks["end"].tolist() == [2.0, 5.0, 5.25, 9.25]
    assert res.jobs["job"].tolist() == [0, 1, 2]
    assert res.jobs["submit"].tolist() == [0.0, 0.5, 1.0]
    assert res.jobs["finish"].tolist() == [5.25, 5.0, 9.25]
    busy = res.samples["speed"][res.samples["speed"] > 0]
    assert busy.size and (busy == 1.0).all()
    assert res.completions["user"].tolist() == [1, 0, 1]
    assert res.completions["count"].tolist() == [1, 1, 2]
    assert res.events == 12                                       # 4 arrivals, launches, ends


# ---------------------------------------------------------------------------------------
# Properties on random instances
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_arrivals_respected_and_fifo_starts_in_arrival_order(seed):
    rng = np.random.default_rng(seed)
    trace, C = random_trace(rng), random_machines(rng)
    res = sim.simulate(C, trace, sim.FifoFirstFit(C, trace))
    ran = np.setdiff1d(np.arange(len(trace)), res.unschedulable)
    start = res.tasks["start"][ran]
    assert not np.isnan(start).any()
    assert (start >= trace.arrival[ran]).all()
    assert (np.diff(start) >= 0).all()                  # FIFO: starts follow trace order
    assert (res.tasks["end"][ran] > start).all() and res.pending.sum() == 0


@pytest.mark.parametrize("seed", range(8))
def test_capacity_never_exceeded_without_oversubscription(seed):
    rng = np.random.default_rng(100 + seed)
    trace, C = random_trace(rng, resources=3), random_machines(rng, M=4, resources=3)
    res = sim.simulate(C, trace, RandomFit(C, trace, seed), sample=2.0)
    start, end, machine = res.tasks["start"], res.tasks["end"], res.tasks["machine"]
    ran = np.setdiff1d(np.arange(len(trace)), res.unschedulable)
    assert (start[ran] >= trace.arrival[ran]).all() and np.isnan(start[res.unschedulable]).all()
    for k in range(len(C)):
        on = np.flatnonzero(machine == k)
        for t in start[on]:                              # usage peaks right after a start
            running = on[(start[on] <= t) & (end[on] > t)]
            assert (trace.demands[running].sum(axis=0) <= C[k] * (1 + 1e-9)).all()
    # never oversubscribed: every task takes exactly its duration
    np.testing.assert_allclose(end[ran] - start[ran], trace.duration[ran], rtol=1e-9)
    speed = res.samples["speed"]
    assert ((speed == 0) | (speed == 1)).all()
    assert (res.samples["utilization"] <= 1 + 1e-9).all()


@pytest.mark.parametrize("seed", range(4))
def test_job_finishes_with_its_last_task(seed):
    rng = np.random.default_rng(200 + seed)
    trace, C = random_trace(rng), random_machines(rng)
    res = sim.simulate(C, trace, RandomFit(C, trace, seed))
    for j, finish in zip(res.jobs["job"], res.jobs["finish"]):
        mine = res.tasks["job"] == j
        np.testing.assert_array_equal(finish, res.tasks["end"][mine].max())   # NaN: never
        assert res.jobs["submit"][res.jobs["job"] == j] == trace.arrival[mine].min()
    done, finish = res.completions, res.jobs["finish"]
    assert sorted(done["time"].tolist()) == sorted(finish[~np.isnan(finish)].tolist())
    for u in range(trace.users):
        mine = done["count"][done["user"] == u]
        assert mine.tolist() == list(range(1, mine.size + 1))


def test_horizon_cuts_the_run_short():
    rng = np.random.default_rng(7)
    trace, C = random_trace(rng), random_machines(rng, M=2)
    res = sim.simulate(C, trace, sim.FifoFirstFit(C, trace), horizon=30.0, sample=10.0)
    assert res.end == 30.0
    assert res.samples["time"].tolist() == [0.0, 10.0, 20.0, 30.0]
    assert (res.tasks["end"][~np.isnan(res.tasks["end"])] <= 30.0).all()
    assert np.isnan(res.tasks["end"]).any() and np.isnan(res.jobs["finish"]).any()
    assert res.pending.sum() > 0


def test_backlog_is_deterministic():
    C = np.tile([4.0, 15.0], (6, 1))
    backlog = sim.Backlog([[2, 2], [1, 0.5]], [5, 3], [30.0, 20.0], jitter=0.3, seed=11)

    def run(b, slots):
        return sim.simulate(C, b, task_policy(b.demands, C, slots), horizon=400.0,
                            sample=25.0)
    for slots in (0, 3):
        a, b = run(backlog, slots), run(backlog, slots)
        assert a.rows == b.rows and len(a.rows) > 0
        np.testing.assert_array_equal(a.tasks["end"], b.tasks["end"])
    other = sim.Backlog(backlog.demands, [5, 3], [30.0, 20.0], jitter=0.3, seed=12)
    assert run(other, 0).rows != run(backlog, 0).rows


def test_backlog_jobs_and_rows():
    C = np.tile([4.0, 15.0], (2, 1))
    backlog = sim.Backlog([[2, 2], [1, 0.5]], [2, 4], [10.0, 10.0])
    res = sim.simulate(C, backlog, drf.scheduler(backlog.demands, C), horizon=100.0, sample=50.0)
    # 8 CPUs: DRF gives 2 type-0 tasks and 4 type-1 tasks, 10 s each: one job each per 10 s
    assert res.completions["count"][res.completions["user"] == 0].max() == 10
    assert res.completions["count"][res.completions["user"] == 1].max() == 10
    jobs = res.jobs
    assert (jobs["user"][:2] == [0, 1]).all() and (jobs["submit"][:2] == 0).all()
    assert jobs["finish"][0] == 10.0
    keys = {tuple(row) for row in res.rows}
    assert keys == {("time", "metric", "user", "value")}
    metrics = [r["metric"] for r in res.rows if r["time"] == 50.0]
    assert metrics == ["share_0", "share_1", "speed"] * 2 + ["utilization_0", "utilization_1"] \
        + ["jobs_finished"] * 2
    util = [r["value"] for r in res.rows if r["metric"] == "utilization_0"]
    assert util == [1.0, 1.0, 1.0]


def test_unschedulable_tasks_reported_and_the_rest_runs():
    trace = sim.Trace(user=[0, 1, 0, 1], job=[1, 2, 1, 3], arrival=[0.0, 0.0, 1.0, 2.0],
                      duration=[5.0, 5.0, 5.0, 5.0],
                      demands=[[1.0, 1.0], [3.0, 1.0], [1.0, 1.0], [1.0, 3.0]])
    C = [[2.0, 4.0], [4.0, 2.0]]          # [3, 1] fits machine 1; [1, 3] fits machine 0
    ok = sim.simulate(C, trace, sim.FifoFirstFit(C, trace))
    assert ok.unschedulable.size == 0
    big = sim.Trace(trace.user, trace.job, trace.arrival, trace.duration,
                    [[1.0, 1.0], [3.0, 3.0], [1.0, 1.0], [1.0, 3.0]])
    res = sim.simulate(C, big, sim.FifoFirstFit(C, big))
    assert res.unschedulable.tolist() == [1]
    assert res.tasks["machine"][1] == -1 and np.isnan(res.tasks["start"][1])
    assert not np.isnan(res.tasks["end"][[0, 2, 3]]).any()
    assert np.isnan(res.jobs["finish"][res.jobs["job"] == 2]).all()       # its job never ends
    assert res.pending.sum() == 0
    fits = sim.fits_somewhere([[3.0, 3.0], [4.0, 2.0], [0.0, 0.0]], C)
    assert fits.tolist() == [False, True, True]


def test_trace_from_columns_and_user_names():
    table = {"user": np.array(["b", "a", "b"]), "job": [7, 8, 7], "arrival": [0.0, 1.0, 1.0],
             "duration": [1.0, 2.0, 3.0], "cpu": [0.5, 0.5, 0.25], "mem": [0.1, 0.2, 0.3]}
    trace = sim.Trace.from_columns(table, resources=["cpu", "mem"], users=["a", "b"])
    assert trace.user.tolist() == [1, 0, 1] and trace.names == ("a", "b") and trace.users == 2
    np.testing.assert_array_equal(trace.demands, [[0.5, 0.1], [0.5, 0.2], [0.25, 0.3]])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(table)
    again = sim.Trace.from_columns(frame, resources=["cpu", "mem"], users=["a", "b"])
    np.testing.assert_array_equal(again.demands, trace.demands)


def test_empty_trace():
    trace = sim.Trace([], [], [], [], np.empty((0, 2)), users=2)
    for simulate in (sim.simulate, sim.literal.simulate):
        res = simulate(np.ones((2, 2)), trace, sim.FifoFirstFit(np.ones((2, 2)), trace), sample=5.0)
        assert res.end == 0.0 and res.events == 0 and res.jobs["job"].size == 0
        assert res.samples["time"].tolist() == [0.0] and (res.samples["share"] == 0).all()


def test_policies_satisfy_the_protocol():
    C = np.ones((2, 2))
    assert isinstance(drf.scheduler([[0.5, 0.5]], C), sim.Policy)
    trace = sim.Trace([0], [0], [0.0], [1.0], [[0.5, 0.5]])
    assert isinstance(sim.FifoFirstFit(C, trace), sim.TaskPolicy)


# ---------------------------------------------------------------------------------------
# Bad input: a clear ValueError naming the problem
# ---------------------------------------------------------------------------------------

GOOD = dict(user=[0, 1], job=[0, 1], arrival=[0.0, 1.0], duration=[1.0, 2.0],
            demands=[[0.5, 0.5], [0.5, 0.5]])


@pytest.mark.parametrize("change, message", [
    (dict(arrival=[1.0, 0.0]), "sorted"),
    (dict(arrival=[np.nan, 1.0]), "arrival times must be finite"),
    (dict(duration=[1.0, -2.0]), "durations must be positive"),
    (dict(duration=[np.nan, 2.0]), "durations must be positive and finite"),
    (dict(duration=[0.0, 2.0]), "durations must be positive"),
    (dict(demands=[[0.5, -0.5], [0.5, 0.5]]), "task demands must be non-negative"),
    (dict(demands=[[0.5, np.nan], [0.5, 0.5]]), "task demands must be finite"),
    (dict(demands=[[0.5, 0.5]]), "one row per task"),
    (dict(job=[0, 0]), "job 0 has tasks of several users"),
    (dict(user=[0, 3], users=2), "unknown user 3"),
    (dict(user=["x", "y"], users=["x"]), "unknown user 'y'"),
])
def test_bad_trace(change, message):
    with pytest.raises(ValueError, match=message):
        sim.Trace(**{**GOOD, **change})


def test_bad_machines_and_shapes():
    trace = sim.Trace(**GOOD)
    C = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"machines \[1\] have no capacity at all"):
        sim.simulate([[1.0, 1.0], [0.0, 0.0]], trace, sim.FifoFirstFit(C, trace))
    with pytest.raises(ValueError, match="machines' capacities must be non-negative"):
        sim.machines([[1.0, -1.0]])
    with pytest.raises(ValueError, match="machines' capacities must be finite"):
        sim.machines([[1.0, np.inf]])
    with pytest.raises(ValueError, match="demand vectors of 2 resources but the machines have 3"):
        sim.simulate(np.ones((2, 3)), trace, sim.FifoFirstFit(C, trace))
    with pytest.raises(ValueError, match="a Backlog never drains"):
        sim.simulate(C, sim.Backlog([[1, 1]], [1], [1.0]), drf.scheduler([[1, 1]], C))
    with pytest.raises(ValueError, match="sample must be > 0"):
        sim.simulate(C, trace, sim.FifoFirstFit(C, trace), sample=0)
    with pytest.raises(ValueError, match="horizon must not be NaN"):
        sim.simulate(C, trace, sim.FifoFirstFit(C, trace), horizon=np.nan)
    with pytest.raises(ValueError, match="tasks_per_job must be positive integers"):
        sim.Backlog([[1, 1]], [0], [1.0])
    with pytest.raises(ValueError, match="durations must be positive"):
        sim.Backlog([[1, 1]], [1], [-1.0])
    with pytest.raises(ValueError, match="task demands must be finite"):
        sim.Backlog([[1, np.nan]], [1], [1.0])
    with pytest.raises(TypeError, match="lacks"):
        sim.simulate(C, trace, object())


def test_policy_launching_a_user_with_nothing_pending():
    trace = sim.Trace(user=[1], job=[0], arrival=[0.0], duration=[1.0], demands=[[0.5]], users=2)
    with pytest.raises(ValueError, match="launched user 0 at time 0.0, which has no pending task"):
        sim.simulate([[1.0]], trace, Liar())


# ---------------------------------------------------------------------------------------
# The kernel (drfbench/sim/sim.pyx) against the literal loop in Python, bit for bit
# ---------------------------------------------------------------------------------------


def kernel_variants():
    from drfbench import _isa
    return _isa.runnable()


@pytest.mark.parametrize("seed", range(10))
def test_kernel_matches_reference_on_traces(seed):
    rng = np.random.default_rng(300 + seed)
    trace = random_trace(rng, n_tasks=int(rng.integers(1, 120)), resources=int(rng.integers(1, 4)))
    C = random_machines(rng, M=int(rng.integers(1, 6)), resources=trace.resources)
    horizon = [np.inf, 40.0][seed % 2]
    policies = [lambda: RandomAnywhere(trace.users, len(C), seed),     # processor sharing
                lambda: RandomFit(C, trace, seed), lambda: sim.FifoFirstFit(C, trace)]
    for policy in policies:
        expected = sim.literal.simulate(C, trace, policy(), horizon=horizon, sample=3.0)
        for isa in kernel_variants():
            assert_same(sim.simulate(C, trace, policy(), horizon=horizon, sample=3.0, isa=isa),
                        expected, SIM_FIELDS)
        assert_same(sim.simulate(C, trace, policy(), horizon=horizon),
                    sim.literal.simulate(C, trace, policy(), horizon=horizon), SIM_FIELDS)


@pytest.mark.parametrize("slots", [0, 1, 3])
def test_kernel_matches_reference_on_backlogs(slots):
    rng = np.random.default_rng(400 + slots)
    C = np.tile([4.0, 15.0], (5, 1))
    backlog = sim.Backlog(rng.uniform(0.3, 3.0, (4, 2)).round(2), rng.integers(1, 6, 4),
                          rng.uniform(5, 30, 4), jitter=0.25, seed=slots)

    def run(simulate, **kw):
        return simulate(C, backlog, task_policy(backlog.demands, C, slots),
                        horizon=500.0, sample=7.0, **kw)
    expected = run(sim.literal.simulate)
    assert expected.completions["time"].size > 10
    for isa in kernel_variants():
        assert_same(run(sim.simulate, isa=isa), expected, SIM_FIELDS)


def test_kernel_reports_the_same_errors():
    trace = sim.Trace(user=[1], job=[0], arrival=[0.0], duration=[1.0], demands=[[0.5]], users=2)
    for simulate in (sim.simulate, sim.literal.simulate):
        with pytest.raises(ValueError, match="policy launched user 0 at time 0.0, which has no"):
            simulate([[1.0]], trace, Liar())


def test_drf_kernel_schedules_a_trace():
    # One task shape per user: the online DRF kernel is a Policy for traces too (queues
    # start empty; the simulator adds arrivals), and never oversubscribes.
    rng = np.random.default_rng(500)
    shapes = np.array([[1.0, 4.0], [3.0, 1.0], [1.0, 1.0]])
    N = 200
    user = rng.integers(0, 3, N)
    trace = sim.Trace(user, user * 10 + rng.integers(0, 5, N), np.sort(rng.uniform(0, 100, N)),
                      rng.uniform(1, 30, N), shapes[user])
    C = np.tile([9.0, 18.0], (3, 1))

    def policy():
        return drf.scheduler(shapes, C, tasks=[0, 0, 0])
    res = sim.simulate(C, trace, policy(), sample=5.0)
    assert_same(res, sim.literal.simulate(C, trace, policy(), sample=5.0), SIM_FIELDS)
    assert res.pending.sum() == 0 and not np.isnan(res.tasks["end"]).any()
    assert ((res.samples["speed"] == 0) | (res.samples["speed"] == 1)).all()
    assert (res.samples["utilization"] <= 1 + 1e-12).all()
