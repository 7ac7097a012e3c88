"""Preemption in the production rules (drfbench.production.preemption, the policies'
preempt()): small scenarios whose evictions are derived by hand (in each test's
docstring), the lost work accounted exactly, the rate limit, the protected fraction,
runs without preemption unchanged, bad options refused, and the side-by-side scenario
within capacity and deterministic with preemption on."""
import numpy as np
import pytest
from cases import SIM_FIELDS
from conftest import assert_same

from drfbench import sim
from drfbench.production import kueue, policies, preemption, sidebyside
from drfbench.production.policies import RulePolicy
from drfbench.production.scenario import scenario

KUEUE = {"strategies": preemption.DEFAULT_STRATEGIES}


def borrowed_node(b_arrivals=(1.0,), b_priority=0, a_preemptible=True):
    """One node of 4 cpu; queues a and b, each guaranteed 2 cpu. a's jobs 0..3 (1 cpu,
    10 s) at 0 fill the node (a borrows b's 2 cpu); b's jobs 4.. (1 cpu, 10 s) at
    `b_arrivals`."""
    a = [{"queue": "a", "demand": [1], "duration": 10, "arrival": 0,
          "preemptible": a_preemptible}] * 4
    b = [{"queue": "b", "demand": [1], "duration": 10, "arrival": t, "priority": b_priority}
         for t in b_arrivals]
    return {"resources": ["cpu"], "nodes": {"n": {"capacity": [4]}},
            "children": {"a": {"guarantee": [2]}, "b": {"guarantee": [2]}}, "jobs": a + b}


def run(spec, rule, **options):
    s = scenario(spec)
    return sim.simulate(s.capacity, s.trace(), RulePolicy(s, rule, **options))


def starts(res):
    """{task row: (start, end)} (the trace's rows are the jobs' tasks in arrival order)."""
    return {t: (s, e) for t, s, e in zip(res.tasks["task"].tolist(),
                                         res.tasks["start"].tolist(), res.tasks["end"].tolist())}


@pytest.mark.parametrize("rule, options", [("kueue", KUEUE),
                                           ("armada", {"protected_fraction": 1.0})])
def test_a_queue_below_its_share_evicts_the_newest_borrowed_job(rule, options):
    """a holds 4 cpu (2 borrowed) when b's job 4 arrives at 1. Kueue: b's share with its
    job is 0 (1 cpu within its 2 cpu quota), a's is 2 x 1000 / 4 = 500 before and 250
    after losing a job: S2-a (0 <= 250) preempts a's most recently started job, the last
    of the ones started together (job 3). Armada: fair shares 1/2 each, b's demand 1/4
    caps it, a gets 3/4; a's cost 1 > 1.0 x 3/4 and, without job 3, 3/4 > b's 1/4 with
    its job: job 3 goes. b's job runs 1..11; job 3 ran 1 s, lost (1 task-second, 1
    cpu-second) and starts again at 10, when jobs 0..2 end: 10..20."""
    res = run(borrowed_node(), rule, **options)
    E = res.evictions
    assert (E["time"].tolist(), E["task"].tolist(), E["user"].tolist()) == ([1.0], [3], [3])
    assert E["lost"].tolist() == [1.0] and E["lost_resources"].tolist() == [[1.0]]
    assert res.lost_work.sum() == 1.0 and res.preempted.tolist() == [0, 0, 0, 1, 0]
    assert starts(res)[4] == (1.0, 11.0) and starts(res)[3] == (10.0, 20.0)


def test_armada_protected_fraction_keeps_the_job():
    """The same with protected_fraction 2: a's cost 1 is not above 2 x 3/4, so nothing is
    evicted and b's job waits until a's jobs end at 10."""
    res = run(borrowed_node(), "armada", protected_fraction=2.0)
    assert res.evictions["time"].size == 0
    assert starts(res)[4] == (10.0, 20.0)


def test_kueue_strategies_one_by_one():
    """b's second job (5) at 2, after job 4 took job 3's place at 1: b with it holds 2
    cpu, within its quota: share 0; a holds 3 (1 borrowed): 250 before, 0 after losing
    job 2. S2-a: 0 <= 0, preempt (job 2 at 2); S2-b alone: 0 < 250, preempt too. Then a
    third job (6) at 3: b would borrow 1 of the 4 lendable: 250; a at its quota, not
    borrowing: no candidate under either strategy."""
    spec = borrowed_node(b_arrivals=(1.0, 2.0, 3.0))
    for strategies in (["LessThanOrEqualToFinalShare"], ["LessThanInitialShare"],
                       preemption.DEFAULT_STRATEGIES):
        res = run(spec, "kueue", strategies=strategies)
        assert res.evictions["task"].tolist() == [3, 2]
        assert res.evictions["time"].tolist() == [1.0, 2.0]
        assert res.lost_work.sum() == 1.0 + 2.0


def test_strategies_differ_where_the_target_ends_below_the_preemptor():
    """Kueue's two rules on one decision: ClusterQueues a and b of 3 cpu quota each in a
    cohort of 6 (lendable 6), a holding 5 (2 borrowed: 2000 / 6 = 333), b 3; candidates
    a 2-cpu job, then a 1-cpu job. b with 2 more borrows 2 (333): the 2-cpu job would
    leave a at 0 (S2-a: 333 <= 0, no; S2-b: 333 < 333, no), the 1-cpu one at 167 (no,
    no): nothing. b with 1 more borrows 1 (167): S2-a refuses the 2-cpu job (167 <= 0)
    and takes the 1-cpu one (167 <= 167); S2-b takes the first, the 2-cpu job (167 <
    333): S2-a prefers the smaller workload, as upstream's docs say."""
    cpu = ("f", "cpu")
    tree = kueue.Cohorts({"": {"parent": None, "quotas": {}},
                          "a": {"parent": "", "quotas": {cpu: kueue.Quota(3)},
                                "usage": {cpu: 5}},
                          "b": {"parent": "", "quotas": {cpu: kueue.Quota(3)},
                                "usage": {cpu: 3}}})
    big = preemption.Candidate(0, "a", {cpu: 2})
    small = preemption.Candidate(1, "a", {cpu: 1})
    for rules in (["LessThanOrEqualToFinalShare"], ["LessThanInitialShare"]):
        got = preemption.kueue_targets(tree, "b", {cpu: 2}, [big, small],
                                       preemption.strategies(rules), lambda chosen: True)
        assert got is None
    rules = preemption.strategies(["LessThanOrEqualToFinalShare"])
    assert preemption.kueue_targets(tree, "b", {cpu: 1}, [big, small], rules,
                                    lambda chosen: True) == [small]
    rules = preemption.strategies(["LessThanInitialShare"])
    assert preemption.kueue_targets(tree, "b", {cpu: 1}, [big, small], rules,
                                    lambda chosen: True) == [big]


def test_rate_limit_holds_the_second_eviction():
    """As test_kueue_strategies_one_by_one with at most 1 eviction per 60 s: job 3 goes at
    1; job 5 cannot take job 2's place at 2 and waits until 10 (jobs 0..2 end)."""
    res = run(borrowed_node(b_arrivals=(1.0, 2.0)), "kueue", rate_limit=1, **KUEUE)
    assert res.evictions["task"].tolist() == [3]
    assert starts(res)[5][0] == 10.0
    res = run(borrowed_node(b_arrivals=(1.0, 2.0)), "kueue", rate_limit=1, rate_interval=0.5,
              **KUEUE)
    assert res.evictions["task"].tolist() == [3, 2]


def test_jobs_not_preemptible_stay():
    res = run(borrowed_node(a_preemptible=False), "kueue", **KUEUE)
    assert res.evictions["time"].size == 0 and starts(res)[4] == (10.0, 20.0)


def test_without_preemption_nothing_changes():
    """Preemption off (the default) is the policy as before: no evictions, the same
    starts as with preemption options that never fire (a protected fraction no queue
    exceeds)."""
    spec = borrowed_node()
    plain = run(spec, "armada")
    never = run(spec, "armada", protected_fraction=1e9)
    assert plain.evictions["time"].size == 0 and never.evictions["time"].size == 0
    np.testing.assert_array_equal(plain.tasks["start"], never.tasks["start"])
    assert starts(plain)[4] == (10.0, 20.0)


def kueue_7101():
    """kueue#7101 (v0.13.5, fair sharing with [LessThanOrEqualToFinalShare,
    LessThanInitialShare]): a cohort of 8 pods, ClusterQueues proj-1 and proj-2 of 4 each;
    proj-1's 4 workloads of 2 pods (jobs 0..3) at 0 take all 8; proj-2 then submits
    workloads of 6 pods (job 4, at 1), 5 (job 5, at 2) and 4 (job 6, at 3), 100 s each."""
    one = [{"queue": "proj-1", "demand": [1], "tasks": 2, "duration": 100, "arrival": 0}] * 4
    two = [{"queue": "proj-2", "demand": [1], "tasks": n, "duration": 100, "arrival": t}
           for n, t in ((6, 1), (5, 2), (4, 3))]
    return {"resources": ["pods"], "nodes": {"n": {"capacity": [8]}},
            "children": {"proj-1": {"guarantee": [4]}, "proj-2": {"guarantee": [4]}},
            "jobs": one + two}


def test_kueue_7101_missed_preemption_with_and_without_the_fix():
    """kueue#7101: proj-1 borrows 4 of 8 pods (share 4 x 1000 / 8 = 500). The 6-pod
    workload would borrow 2 (250): S2-a takes one of proj-1's (500 -> 250, 250 <= 250),
    not a second (250 <= 0 fails), S2-b none (250 < 250 fails): 4 pods free, too few.
    The 5-pod one (125) takes two (S2-a 125 <= 250, S2-b 125 < 250), then proj-1 is not
    borrowing: 4 free, too few. The 4-pod one borrows nothing (0): S2-a takes two (0 <=
    250, 0 <= 0) and it fits, 4:4, as the report expects. With the head of proj-2's line
    blocking it (the default), the 4-pod workload never gets to preempt: no eviction,
    and it waits its turn behind the other two: 6 pods at 100, when proj-1's workloads
    end, 5 at 200, then it at 300. With best_effort (the blocked heads set aside, the fix's effect),
    it evicts proj-1's two most recently admitted workloads (jobs 3 and 2, 4 pods) at 3
    and starts then; they lose 3 s each, 4 tasks: 12 task-seconds."""
    missed = run(kueue_7101(), "kueue", **KUEUE)
    assert missed.evictions["time"].size == 0
    job6 = missed.tasks["user"] == 6
    assert set(missed.tasks["start"][job6].tolist()) == {300.0}
    fixed = run(kueue_7101(), "kueue", best_effort=True, **KUEUE)
    E = fixed.evictions
    assert sorted(set(fixed.tasks["user"][E["task"]].tolist())) == [2, 3]
    assert E["time"].tolist() == [3.0] * 4 and fixed.lost_work.sum() == 12.0
    job6 = fixed.tasks["user"] == 6
    assert set(fixed.tasks["start"][job6].tolist()) == {3.0}


@pytest.mark.parametrize("options, error, message", [
    ({"strategies": ["Fastest"]}, ValueError, "'Fastest' is not one of"),
    ({"strategies": []}, ValueError, "give at least one"),
    ({"strategies": ["LessThanInitialShare"] * 2}, ValueError, "names one twice"),
    ({"protected_fraction": 1.0}, ValueError, "protected_fraction is Armada's"),
    ({"rate_limit": 0}, ValueError, "rate_limit must be a positive integer"),
    ({"rate_limit": 1.5}, TypeError, "rate_limit must be a positive integer"),
    ({"rate_interval": 0}, ValueError, "rate_interval must be > 0"),
    ({"rate_interval": float("inf")}, ValueError, "rate_interval must be finite"),
    ({"best_effort": 1}, TypeError, "best_effort must be True or False"),
])
def test_bad_options_refused(options, error, message):
    with pytest.raises(error, match=message):
        RulePolicy(borrowed_node(), "kueue", **options)
    with pytest.raises(ValueError, match="strategies are Kueue's"):
        RulePolicy(borrowed_node(), "armada", strategies="LessThanInitialShare")
    with pytest.raises(ValueError, match="protected_fraction must be >= 0"):
        RulePolicy(borrowed_node(), "armada", protected_fraction=-1)


@pytest.mark.parametrize("rule, options", [("kueue", KUEUE),
                                           ("armada", {"protected_fraction": 0.5})])
def test_side_by_side_with_preemption_within_capacity_and_deterministic(rule, options):
    s = scenario(sidebyside.PATH)
    res = policies.run(s, rule, sample=60.0, **options)
    again = policies.run(s, rule, sample=60.0, **options)
    np.testing.assert_array_equal(res.tasks["start"], again.tasks["start"])
    np.testing.assert_array_equal(res.evictions["task"], again.evictions["task"])
    assert res.evictions["time"].size > 0
    assert (res.samples["speed"][res.samples["speed"] > 0] == 1.0).all()   # never shared
    assert (res.samples["utilization"] <= 1 + 1e-9).all()
    # an eviction loses what its task had run (0 if it started at that instant), at most
    # its duration; on the GPU column, that times its GPUs
    T, E = res.tasks, res.evictions
    assert ((E["lost"] >= 0) & (E["lost"] < s.duration[T["user"][E["task"]]])).all()
    gpu = s.resources.index("gpu")
    np.testing.assert_allclose(E["lost_resources"][:, gpu],
                               E["lost"] * s.demand[T["user"][E["task"]], gpu])


class Hidden:
    """A policy passed on without its preempt(): the simulator never asks it to evict."""

    def __init__(self, policy):
        self.add_tasks, self.schedule = policy.add_tasks, policy.schedule
        self.release_task = policy.release_task


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["kueue", "armada"])
def test_preemption_off_is_the_policy_without_preempt_bit_for_bit(rule):
    """With preemption off, asking preempt() at every decision changes nothing: the same
    run, every table and sample, as the policy the simulator never asks."""
    s = scenario(sidebyside.PATH)
    res = sim.simulate(s.capacity, s.trace(), RulePolicy(s, rule), sample=30.0)
    ref = sim.simulate(s.capacity, s.trace(), Hidden(RulePolicy(s, rule)), sample=30.0)
    assert ref.evictions["time"].size == 0
    assert_same(res, ref, SIM_FIELDS + ("evictions",))
