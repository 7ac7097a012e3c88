"""drfbench.production.policies: the production rules as simulator policies on small
scenarios whose admission orders are derived by hand from each rule's formula (in each
test's docstring); capacity never exceeded, the same result twice, a heterogeneous
cluster of CPU and GPU nodes."""
import numpy as np
import pytest

from drfbench import sim
from drfbench.production import policies, sidebyside
from drfbench.production.policies import RULES, RulePolicy
from drfbench.production.scenario import scenario


class Recorder:
    """A policy that passes every call on and keeps the launches' jobs in order."""

    def __init__(self, policy):
        self.policy, self.order = policy, []

    def add_tasks(self, user, count):
        self.policy.add_tasks(user, count)

    def schedule(self):
        users, machines = self.policy.schedule()
        self.order += users.tolist()
        return users, machines

    def release_task(self, task, user, machine):
        self.policy.release_task(task, user, machine)


def launches(spec, rule, **options):
    """(the jobs launched, one entry per task, in order; the Simulation)."""
    s = scenario(spec)
    rec = Recorder(RulePolicy(s, rule, **options))
    res = sim.simulate(s.capacity, s.trace(), rec)
    return rec.order, res


def two_queues(a, b, jobs_a=4, jobs_b=4, demand=(1, 0), node=(4, 4)):
    """Queues a and b (their specs), one node, jobs of one task each arriving at 0 (a's
    first in the file, jobs 0..jobs_a-1; then b's), 10 s each."""
    jobs = [{"queue": "a", "demand": list(demand), "duration": 10}] * jobs_a + \
           [{"queue": "b", "demand": list(demand), "duration": 10}] * jobs_b
    return {"resources": ["cpu", "gpu"], "nodes": {"n": {"capacity": list(node)}},
            "children": {"a": a, "b": b}, "jobs": jobs}


def names(order, jobs_a=4):
    return [f"a{j}" if j < jobs_a else f"b{j - jobs_a}" for j in order]


def test_armada_cost_over_weight():
    """Armada, b with priority factor 2 (weight 1/2), node of 4 cpu, jobs of 1 cpu: the
    leaf with the lowest cost with the job added, cost = (cpu held + 1) / 4 / weight.
    t=0: a 1/4 < b 1/2: a0; a 2/4 = b 2/4: tie, the older job (a1, job 1, before b0, job
    4): a1; a 3/4 > b 1/2: b0; a 3/4 < b 1: a2 (node full). t=10 all four end: a 1/4 < b
    1/2: a3; then only b: b1 b2 b3."""
    order, _ = launches(two_queues({}, {"priority_factor": 2}), "armada")
    assert names(order) == ["a0", "a1", "b0", "a2", "a3", "b1", "b2", "b3"]


def test_kueue_tournament_weights_and_borrowing():
    """Kueue, guarantees (nominal quotas) of 1 cpu each, the root cohort's own quota the 2
    cpu left (lendable 4), b's fair weight 2. t=0: neither borrows with its job: tie, a0
    (job 0); a would borrow, b not: b0; both borrow 1 cpu, DRS 1000 x 1/4 = 250, a 250/1
    > b 250/2: b1; a 250 = b 500/2: tie, the older job: a1 (node full)."""
    spec = two_queues({"guarantee": [1, 0]}, {"guarantee": [1, 0], "weight": 2})
    order, _ = launches(spec, "kueue")
    assert names(order)[:4] == ["a0", "b0", "b1", "a1"]


def test_kueue_borrowing_limit():
    """Kueue, a with borrowing limit 0: it takes its 1 cpu quota and no more (available
    = quota 1 - usage), b borrows the rest. t=0: a0, b0, b1, b2; t=10: a1, b3, a2 cannot
    start beside a1 (a holds its quota), so a2 and a3 follow one at a time."""
    spec = two_queues({"guarantee": [1, 0], "borrowing_limit": [0, 0]},
                      {"guarantee": [1, 0]})
    order, res = launches(spec, "kueue")
    assert names(order) == ["a0", "b0", "b1", "b2", "a1", "b3", "a2", "a3"]
    start = dict(zip(res.tasks["user"].tolist(), res.tasks["start"].tolist()))
    assert [start[j] for j in range(4)] == [0, 10, 20, 30]


def test_mesos_quota_first_then_sorter():
    """Mesos, a guaranteed 2 cpu: a is below its quota until it holds 2, so a0, a1; then
    the sorter: shares a 2/4, b 0: b0; a 2/4 > b 1/4: b1. Without the guarantee the
    sorter alternates: a0 (tie at 0, by allocation count, then the path), b0, a1, b1."""
    order, _ = launches(two_queues({"guarantee": [2, 0]}, {}), "mesos-drf")
    assert names(order)[:4] == ["a0", "a1", "b0", "b1"]
    order, _ = launches(two_queues({}, {}), "mesos-drf")
    assert names(order)[:4] == ["a0", "b0", "a1", "b1"]


def test_mesos_hierarchy_by_subtree_share():
    """Mesos, queues x (children x1, x2) and y, one node of 6 cpu, jobs of 1 cpu: the root
    picks between x and y by their subtrees' shares, then x's children by theirs. x1 x2 y
    all at 0 share: x, x1 (path order); x 1/6 > y 0: y; x = y = 1/6, allocation counts
    equal, path "x" < "y": x, x2 (0 < 1/6); x 2/6 > y: y; x = y: x, x1; y."""
    jobs = [{"queue": q, "demand": [1], "duration": 10} for q in ("x/x1", "x/x2", "y")
            for _ in range(3)]
    spec = {"resources": ["cpu"], "nodes": {"n": {"capacity": [6]}},
            "children": {"x": {"children": {"x1": {}, "x2": {}}}, "y": {}}, "jobs": jobs}
    order, _ = launches(spec, "mesos-drf")
    queue = {0: "x1", 1: "x1", 2: "x1", 3: "x2", 4: "x2", 5: "x2", 6: "y", 7: "y", 8: "y"}
    assert [queue[j] for j in order][:6] == ["x1", "y", "x2", "y", "x1", "y"]


def test_yarn_min_share_then_fair_share_ratio():
    """YARN, a with min share 2 cpu: a is needy while it holds less than 2 cpu (its
    dominant resource), and goes first: a0, a1; then neither is needy, fair-share ratios
    a 2/4 > b 0: b0; a 2/4 > b 1/4: b1."""
    order, _ = launches(two_queues({"guarantee": [2, 0]}, {}), "yarn-fair-drf")
    assert names(order)[:4] == ["a0", "a1", "b0", "b1"]


def test_yarn_11482_pre_fix_comparison():
    """YARN-11482 with two resources: a with min share 2 cpu, b with none. The sort asks
    compare(b, a) (TimSort compares the second item with the first). Fixed: a is needy
    while it holds under 2 cpu: a0, a1, then b0, b1 (fair-share ratios). Before the fix
    a's neediness is read from b's usage of a's dominant resource: b holds no cpu (0 < 2),
    so a stays needy for ever: a0, a1, a2, a3 while b waits."""
    spec = two_queues({"guarantee": [2, 0]}, {})
    fixed, _ = launches(spec, "yarn-fair-drf")
    buggy, _ = launches(spec, "yarn-fair-drf", fixed=False)
    assert names(fixed)[:4] == ["a0", "a1", "b0", "b1"]
    assert names(buggy)[:4] == ["a0", "a1", "a2", "a3"]


def test_slurm_decayed_usage_orders_jobs():
    """Slurm Fair Tree, one node of 4 cpu: a0 (4 cpu, 10 s) runs alone from 0; a1 then b0
    (4 cpu each) arrive at 5. At 10 a has 10 s of billing (MAX_TRES: 4/4 = 1 per second,
    barely decayed), b none: Level FS a = 0.5 / 1, b = 0.5 / 0 = inf, so b ranks first
    (FairShare 1 against 1/2): b0 before a1, though a1 is older in the file. Armada, by
    cost (both 0 with nothing running), takes a1 first."""
    jobs = [{"queue": "a", "demand": [4], "duration": 10},
            {"queue": "a", "demand": [4], "duration": 10, "arrival": 5},
            {"queue": "b", "demand": [4], "duration": 10, "arrival": 5}]
    spec = {"resources": ["cpu"], "nodes": {"n": {"capacity": [4]}},
            "children": {"a": {}, "b": {}}, "jobs": jobs}
    assert launches(spec, "slurm-fairtree")[0] == [0, 2, 1]
    assert launches(spec, "armada")[0] == [0, 1, 2]


def test_gang_rules_start_whole_jobs():
    """A job of 3 tasks of 1 cpu on a node of 4 beside a running 2-cpu job: the gang rules
    start it only when all 3 fit; mesos-drf and yarn-fair-drf start tasks one by one."""
    jobs = [{"queue": "a", "demand": [2], "duration": 10},
            {"queue": "b", "demand": [1], "duration": 10, "tasks": 3, "arrival": 1}]
    spec = {"resources": ["cpu"], "nodes": {"n": {"capacity": [4]}},
            "children": {"a": {}, "b": {}}, "jobs": jobs}
    for rule in RULES:
        _, res = launches(spec, rule)
        starts = sorted(res.tasks["start"][res.tasks["user"] == 1].tolist())
        assert starts == ([10, 10, 10] if rule in policies.GANG else [1, 1, 10]), rule


HETERO = {
    "resources": ["cpu", "mem", "gpu"],
    "nodes": {"cpu": {"capacity": [8, 32, 0], "count": 3},
              "gpu": {"capacity": [4, 16, 2], "count": 2}},
    "children": {
        "ml": {"weight": 2, "guarantee": [6, 24, 4], "children": {
            "train": {"guarantee": [4, 16, 3], "limit": [12, 48, 4]},
            "infer": {"guarantee": [2, 8, 1], "priority_factor": 0.5, "shares": 2}}},
        "batch": {"guarantee": [12, 48, 0], "lending_limit": [6, 24, 0]}},
    "jobs": [{"queue": q, "demand": d, "duration": dur, "tasks": n, "arrival": t,
              "priority": p}
             for i in range(12)
             for q, d, dur, n, t, p in [("ml/train", [2, 8, 1], 30 + i, 2, 4 * i, i % 2),
                                        ("ml/infer", [1, 2, 1], 7, 1, 3 * i, 0),
                                        ("batch", [2, 4, 0], 20, 3, 2 * i, 0)]],
}


def peak_use(res, s):
    """(M, m): the most each node held at any task start (the tasks running then)."""
    t = res.tasks
    demand = s.demand[t["user"]]
    peak = np.zeros_like(s.capacity)
    for i in np.flatnonzero(t["machine"] >= 0):
        k, at = t["machine"][i], t["start"][i]
        on = (t["machine"] == k) & (t["start"] <= at) & (t["end"] > at)
        peak[k] = np.maximum(peak[k], demand[on].sum(axis=0))
    return peak


@pytest.mark.parametrize("rule", RULES)
def test_heterogeneous_cluster_within_capacity_and_deterministic(rule):
    """CPU and GPU nodes: every job runs to the end, GPU tasks only on GPU nodes, no node
    and no queue limit exceeded at any start, every task at speed 1 (its end its start
    plus its duration), and the same run twice gives the same task table."""
    s = scenario(HETERO)
    order, res = launches(s, rule)
    again, res2 = launches(s, rule)
    assert order == again
    for key in ("machine", "start", "end"):
        np.testing.assert_array_equal(res.tasks[key], res2.tasks[key])
    t = res.tasks
    assert (t["machine"] >= 0).all() and np.isfinite(t["end"]).all()
    assert len(order) == s.tasks.sum()
    gpu = s.demand[t["user"], 2] > 0
    assert (s.node_type[t["machine"][gpu]] == 1).all()
    assert (peak_use(res, s) <= s.capacity).all()
    np.testing.assert_allclose(t["end"] - t["start"], s.duration[t["user"]])
    train = s.paths.index("ml/train")
    mine = s.queue[t["user"]] == train
    for i in np.flatnonzero(mine):
        on = mine & (t["start"] <= t["start"][i]) & (t["end"] > t["start"][i])
        assert (s.demand[t["user"][on]].sum(axis=0) <= s.limit[train]).all()


def test_policy_checks_its_options():
    with pytest.raises(ValueError, match="rule must be one of 'kueue'"):
        RulePolicy(HETERO, "drf")
    with pytest.raises(ValueError, match="fixed=False reproduces YARN-11482 with two "
                                         "resources only; the scenario has 3"):
        RulePolicy(HETERO, "yarn-fair-drf", fixed=False)
    with pytest.raises(ValueError, match="half_life must exceed"):
        RulePolicy(HETERO, "slurm-fairtree", half_life=0.5)
    with pytest.raises(ValueError, match="half_life must not be NaN"):
        RulePolicy(HETERO, "slurm-fairtree", half_life=float("nan"))
    with pytest.raises(TypeError, match="fixed must be True or False, got 'no'"):
        RulePolicy(HETERO, "yarn-fair-drf", fixed="no")
    with pytest.raises(TypeError, match="release_task"):
        RulePolicy(HETERO, "armada").release(0, 0)
    with pytest.raises(TypeError, match="RulePolicy takes no option bogus; its options: "
                                        "half_life, max_tres, fixed, strategies"):
        RulePolicy(HETERO, "kueue", bogus=1)


def test_policy_takes_the_registry_s_strategies():
    """strategies as the registry has it: a comma list, "none" no preemption."""
    assert RulePolicy(HETERO, "kueue", strategies="none").rules is None
    both = policies.preemption.DEFAULT_STRATEGIES
    assert RulePolicy(HETERO, "kueue", strategies=",".join(both)).rules == \
        policies.preemption.strategies(both)


def test_run_is_simulate_with_the_policy():
    s = scenario(HETERO)
    res = policies.run(s, "armada")
    _, ref = launches(s, "armada")
    np.testing.assert_array_equal(res.tasks["start"], ref.tasks["start"])


def test_side_by_side_file_is_the_function(tmp_path):
    """The committed scenario file is what sidebyside.write makes (seed 0): the two
    cannot drift apart."""
    sidebyside.write(tmp_path / "s.yaml")
    assert (tmp_path / "s.yaml").read_text() == sidebyside.PATH.read_text()
    s = scenario(sidebyside.PATH)
    assert len(s.capacity) == 16 and s.node_types == ("cpu", "gpu")
    assert s.node_type.tolist() == [0] * 12 + [1] * 4
    assert s.arrival[s.queue == s.paths.index("batch")].max() < 1800


@pytest.mark.parametrize("rule", RULES)
def test_side_by_side_runs_within_capacity(rule):
    """Every rule runs the side-by-side scenario to the end: every task starts once, no
    node holds more than its capacity, GPU tasks only on GPU nodes."""
    s = scenario(sidebyside.PATH)
    res = policies.run(s, rule)
    t = res.tasks
    assert (t["machine"] >= 0).all() and np.isfinite(t["end"]).all()
    assert (peak_use(res, s) <= s.capacity).all()
    gpu = s.demand[t["user"], 2] > 0
    assert (s.node_type[t["machine"][gpu]] == 1).all()


def test_a_job_never_started_is_refused():
    """A ClusterQueue with no quota and borrowing limit 0 admits nothing (Kueue); a gang
    of 3 tasks of 3 cpu on two 4-cpu nodes never fits at once (the gang rules), while
    mesos-drf starts its tasks one by one; a gang above its queue's limit."""
    spec = {"resources": ["cpu"], "nodes": {"n": {"capacity": [4], "count": 2}},
            "children": {"a": {"borrowing_limit": [0]}, "b": {"limit": [6]}},
            "jobs": [{"queue": "a", "demand": [1], "duration": 1}]}
    with pytest.raises(ValueError, match=r"job 0 \(queue 'a'\): kueue would never start it: "
                                         r"1 task\(s\) of <1> exceed what its ClusterQueue"):
        RulePolicy(spec, "kueue")
    RulePolicy(spec, "armada")
    spec["jobs"] = [{"queue": "a", "demand": [3], "duration": 1, "tasks": 3}]
    with pytest.raises(ValueError, match=r"armada would never start it: 3 task\(s\) of <3> "
                                         "exceed the nodes"):
        RulePolicy(spec, "armada")
    RulePolicy(spec, "mesos-drf")
    spec["jobs"] = [{"queue": "b", "demand": [2], "duration": 1, "tasks": 4}]
    with pytest.raises(ValueError, match="slurm-fairtree would never start it: 4 task"
                                         r"\(s\) of <2> exceed queue 'b''s limit of 'cpu'"):
        RulePolicy(spec, "slurm-fairtree")


def test_first_fit_places_a_gang_node_by_node():
    """First fit per task, the nodes scanned once: on nodes of 4 cpu holding 3, 0 and 0,
    three tasks of 2 cpu go to nodes 1, 1 and 2 (node 0 has room for none, node 1 for
    two); a fourth and fifth would fill node 2, a sixth fits nowhere."""
    spec = {"resources": ["cpu"], "nodes": {"n": {"capacity": [4], "count": 3}},
            "children": {"a": {}}, "jobs": [{"queue": "a", "demand": [2], "duration": 1}]}
    p = RulePolicy(spec, "armada")
    p.used[0] = 3
    assert p._place(1, 0, 3) == [1, 1, 2]
    assert p._place(1, 0, 4) == [1, 1, 2, 2]
    assert p._place(1, 0, 5) is None
    assert p.used.tolist() == [[3], [0], [0]]


class Checker(Recorder):
    """A Recorder that, at every decision, asserts that Kueue's Cohorts kept up to date
    leaf by leaf hold the usage of those made afresh."""

    def schedule(self):
        kept = self.policy._cohorts().usage
        assert kept == self.policy._make_cohorts().usage
        self.checked = getattr(self, "checked", 0) + 1
        return super().schedule()

    def preempt(self):
        return self.policy.preempt()


@pytest.mark.parametrize("strategies", [None, list(policies.preemption.DEFAULT_STRATEGIES)])
def test_kueue_cohorts_kept_are_made_afresh(strategies):
    """Kueue's Cohorts are made once and their usage changed leaf by leaf: at every
    decision of the side-by-side scenario, with and without preemption, equal to the
    Cohorts made from the usage then."""
    s = scenario(sidebyside.PATH)
    rec = Checker(RulePolicy(s, "kueue", strategies=strategies))
    res = sim.simulate(s.capacity, s.trace(), rec)
    assert rec.checked > 100
    assert (res.evictions["task"].size > 0) == (strategies is not None)
