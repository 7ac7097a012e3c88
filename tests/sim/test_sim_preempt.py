"""Preemption in the simulator (drfbench.sim, a policy's preempt()): a hand-computed
eviction with restart and with resume, the lost work and its rows, capacity, bad
evictions refused, and the kernel against the literal loop, eviction by eviction."""
import numpy as np
import pytest
from cases import SIM_FIELDS
from conftest import assert_same
from drfbench import _isa, sim

FIELDS = SIM_FIELDS + ("evictions",)


class Evicting:
    """First fit with evictions, clocked by what it is told (it never oversubscribes, so
    a task ends its work after it starts): at each decision it evicts the running tasks
    `choose(running, now)` names (task ids), then first-fits pending tasks in arrival
    order (an evicted task queues again), each user's evicted tasks first (as the
    simulator relaunches them). Tracks each task's work left (resume) or its full work
    (restart) as the simulator does."""

    def __init__(self, machines, trace, choose, resume=False):
        self.cap = np.asarray(machines, dtype=float)
        self.used = np.zeros_like(self.cap)
        self.trace, self.choose, self.resume = trace, choose, resume
        fits = trace.fits(self.cap)
        self.fresh = [list(np.flatnonzero((trace.user == u) & fits)) for u in range(trace.users)]
        self.added = [0] * trace.users
        self.requeued = [[] for _ in range(trace.users)]
        self.work = trace.duration.astype(float).copy()
        self.due, self.where = {}, {}                 # running tasks: due time, machine
        self.queue = []                               # pending users, in order
        self.next_fresh = [0] * trace.users
        self.now = 0.0

    def add_tasks(self, user, count):
        self.added[user] += count
        self.now = max(self.now, float(self.trace.arrival[self.fresh[user][self.added[user] - 1]]))
        self.queue += [user] * count

    def preempt(self):
        out = [t for t in self.choose(sorted(self.due), self.now) if self.due[t] > self.now]
        for t in out:
            if self.resume:
                self.work[t] = self.due[t] - self.now
            del self.due[t]
            k = self.where.pop(t)
            self.used[k] -= self.trace.demands[t]
            u = int(self.trace.user[t])
            self.requeued[u].append(t)
            self.queue.append(u)
        return np.array(out, dtype=np.int64)

    def schedule(self):
        users, machines = [], []
        while self.queue:
            u = self.queue[0]
            t = self.requeued[u][0] if self.requeued[u] else self.fresh[u][self.next_fresh[u]]
            d = self.trace.demands[t]
            fit = np.flatnonzero((self.used + d <= self.cap * (1 + 1e-12)).all(axis=1))
            if not fit.size:
                break
            k = int(fit[0])
            self.queue.pop(0)
            if self.requeued[u]:
                self.requeued[u].pop(0)
            else:
                self.next_fresh[u] += 1
            self.used[k] += d
            self.due[t], self.where[t] = self.now + self.work[t], k
            users.append(u)
            machines.append(k)
        return np.array(users, dtype=np.int64), np.array(machines, dtype=np.int64)

    def release_task(self, task, user, machine):
        self.now = max(self.now, self.due.pop(task))
        del self.where[task]
        self.used[machine] -= self.trace.demands[task]


def one_machine_trace():
    """User 0's task 0 (10 s, <1, 2>) at 0; user 1's task 1 (3 s, <1, 1>) at 4."""
    return sim.Trace([0, 1], [0, 1], [0.0, 4.0], [10.0, 3.0], [[1.0, 2.0], [1.0, 1.0]])


def evict_for_user_1(running, now):
    """Evict task 0 when task 1 has arrived and task 0 runs."""
    return [0] if now == 4.0 and 0 in running else []


@pytest.mark.parametrize("simulate", [sim.simulate, sim.literal.simulate])
@pytest.mark.parametrize("resume", [False, True])
def test_eviction_hand_computed(simulate, resume):
    """Task 0 runs 0..4, is evicted at 4 for task 1 (4..7), and starts again at 7: with
    its full 10 s (restart: ends at 17, 4 task-seconds lost, <4, 8> resource-seconds), or
    with the 6 s it had left (resume: ends at 13, nothing lost)."""
    trace = one_machine_trace()
    C = [[1.0, 2.0]]
    res = simulate(C, trace, Evicting(C, trace, evict_for_user_1, resume), resume=resume,
                   sample=5.0)
    end = 13.0 if resume else 17.0
    np.testing.assert_array_equal(res.tasks["start"], [7.0, 4.0])
    np.testing.assert_array_equal(res.tasks["end"], [end, 7.0])
    E = res.evictions
    assert (E["time"].tolist(), E["task"].tolist(), E["user"].tolist(),
            E["machine"].tolist()) == ([4.0], [0], [0], [0])
    lost = 0.0 if resume else 4.0
    assert E["lost"].tolist() == [lost]
    assert res.preempted.tolist() == [1, 0]
    assert res.lost_work.tolist() == [lost, 0.0]
    assert res.lost_resources.tolist() == [[lost, 2 * lost], [0.0, 0.0]]
    assert res.events == 2 + 3 + 2 + 1          # arrivals, launches, completions, eviction
    assert res.end == end and res.pending.tolist() == [0, 0]
    rows = [r for r in res.rows if r["metric"] in ("preemptions", "lost_work", "lost_0",
                                                   "lost_1")]
    assert rows == [{"time": 4.0, "metric": "preemptions", "user": 0, "value": 1},
                    {"time": 4.0, "metric": "lost_work", "user": 0, "value": lost},
                    {"time": 4.0, "metric": "lost_0", "user": 0, "value": lost},
                    {"time": 4.0, "metric": "lost_1", "user": 0, "value": 2 * lost}]
    times = [r["time"] for r in res.rows]
    assert times == sorted(times)


def test_a_policy_without_preempt_is_never_asked_and_loses_nothing():
    trace = one_machine_trace()
    C = [[1.0, 2.0]]
    res = sim.simulate(C, trace, sim.FifoFirstFit(C, trace))
    assert res.evictions["time"].size == 0 and res.lost_resources.shape == (2, 2)
    assert res.lost_work.tolist() == [0.0, 0.0]
    assert all(r["metric"] not in ("preemptions", "lost_work") for r in res.rows)


def test_evicted_task_waits_at_the_horizon_as_pending():
    trace = one_machine_trace()
    C = [[1.0, 2.0]]
    for simulate in (sim.simulate, sim.literal.simulate):
        res = simulate(C, trace, Evicting(C, trace, evict_for_user_1), horizon=5.0)
        assert res.pending.tolist() == [1, 0]


class Named(Evicting):
    """Evicts the task ids given, at the first decision where anything runs."""

    def __init__(self, machines, trace, victims):
        super().__init__(machines, trace, lambda running, now: [])
        self.victims = victims

    def preempt(self):
        if self.due and self.victims is not None:
            victims, self.victims = self.victims, None
            return victims
        return np.zeros(0, dtype=np.int64)


@pytest.mark.parametrize("victims, message", [
    ([1], "policy evicted task 1 at time 4.0, which is not running"),
    ([7], "policy evicted task 7 at time 4.0, which is not running"),
    ([0, 0], "policy evicted task 0 at time 4.0, which is not running"),
    (np.array([0.0]), "must return integer task ids"),
    (np.zeros((1, 1), dtype=int), "must return a sequence of task ids"),
])
def test_bad_evictions_refused(victims, message):
    trace = sim.Trace([0, 1], [0, 1], [0.0, 4.0], [10.0, 3.0], [[0.5, 1.0], [0.5, 1.0]])
    C = [[0.5, 1.0]]
    for simulate in (sim.simulate, sim.literal.simulate):
        policy = Named(C, trace, victims)             # asked at 4, when task 1 arrives
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
            simulate(C, trace, policy)


class AtTen(Evicting):
    """Evicts task 1 at time 10."""

    def preempt(self):
        return np.array([1] if self.now == 10.0 else [], dtype=np.int64)


def test_evicting_a_task_as_it_finishes_is_refused():
    """Tasks 0 and 1 both end at 10 on machines 0 and 1: after machine 0's completion,
    task 1 (due at 10, its own completion next) cannot be evicted."""
    trace = sim.Trace([0, 1], [0, 1], [0.0, 0.0], [10.0, 10.0], [[1.0, 1.0], [1.0, 1.0]])
    C = [[1.0, 1.0], [1.0, 1.0]]
    for simulate in (sim.simulate, sim.literal.simulate):
        with pytest.raises(ValueError, match="evicted task 1 at time 10.0, when it finishes"):
            simulate(C, trace, AtTen(C, trace, None))


def test_resume_must_be_a_bool():
    trace = one_machine_trace()
    with pytest.raises(TypeError, match="resume must be True or False"):
        sim.simulate([[1.0, 2.0]], trace, sim.FifoFirstFit([[1.0, 2.0]], trace), resume=1)


def random_trace(rng, n_tasks, n_users=4, resources=2, span=60.0):
    arrival = np.sort(np.round(rng.uniform(0, span, n_tasks), 1))      # some ties
    user = rng.integers(0, n_users, n_tasks)
    return sim.Trace(user, user * 100 + rng.integers(0, 3, n_tasks), arrival,
                     np.round(rng.uniform(1, 20, n_tasks), 1),
                     rng.uniform(0.05, 0.6, (n_tasks, resources)), users=n_users)


def random_evictions(seed, p=0.15):
    rng = np.random.default_rng(seed)
    return lambda running, now: [t for t in running if rng.random() < p]


@pytest.mark.parametrize("seed", range(8))
def test_kernel_matches_reference_eviction_by_eviction(seed):
    rng = np.random.default_rng(700 + seed)
    trace = random_trace(rng, int(rng.integers(20, 120)), resources=int(rng.integers(1, 4)))
    C = rng.choice([0.75, 1.0], size=(int(rng.integers(1, 5)), trace.resources))
    resume = bool(seed % 2)
    horizon = [np.inf, 50.0][seed % 4 // 2]

    def run(simulate, **kw):
        policy = Evicting(C, trace, random_evictions(seed), resume)
        return simulate(C, trace, policy, horizon=horizon, sample=2.5, resume=resume, **kw), policy
    expected, _ = run(sim.literal.simulate)
    assert expected.evictions["time"].size > 0
    for isa in _isa.runnable():
        res, policy = run(sim.simulate, isa=isa)
        assert_same(res, expected, FIELDS)
    # capacity: at every sample, what runs fits (never oversubscribed: every speed 1)
    speed = res.samples["speed"]
    assert ((speed == 0) | (speed == 1)).all()
    assert (res.samples["utilization"] <= 1 + 1e-12).all()
    # the lost work: restart loses what each evicted task had run since it started
    if not resume:
        assert (res.evictions["lost"] > 0).all()
    else:
        assert (res.evictions["lost"] == 0).all()
    # every task that finished ran its full work after its last start (restart)
    done = ~np.isnan(res.tasks["end"])
    if not resume:
        np.testing.assert_allclose((res.tasks["end"] - res.tasks["start"])[done],
                                   trace.duration[done])
