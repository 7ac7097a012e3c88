"""Kueue's Admission Fair Sharing (drfbench.production.kueue's afs_* functions and the
`kueue` rule's admission_fair_sharing option) against kueue's own tests
(kubernetes-sigs/kueue at commit ff69552e79ad21652c36caa97038382e55625cf7), 42 of their 58
AFS cases:

- pkg/util/admissionfairsharing/admission_fair_sharing_test.go: TestCalculateUsageWithDRA
  (6 of 6), TestCalculateUsageWithNonPositiveWeight (2 of 3: a negative weight is refused
  here, where upstream gives +inf), TestCalculateDecayedConsumedAccumulatesSubMilli (1),
  TestCalculateDecayedConsumedConvergesToUsage (1), ...KeepsLargeQuantitiesPositive (3 of
  3), TestCalculateEntryPenaltyWithDRAResources (1), ...WithLongHalfLife (1); not
  TestResolveLQWeight (4: the API client's LocalQueue lookups);
- pkg/controller/core/localqueue_controller_test.go, TestLocalQueueReconcile: 9 of its 15
  AFS cases (the decay, the half-life of 0, the sampling interval, the empty start); not
  the future LastUpdate of a concurrent writer (a negative elapsed is refused here) nor
  the 5 cases of restart recovery from the persisted status;
- pkg/controller/core/workload_controller_test.go, TestUpdateAfsConsumedUsage: 2 of 3
  (not the concurrent writer's future LastUpdate);
- pkg/cache/queue/cluster_queue_test.go: TestFsAdmission (6 of 6),
  TestSnapshotUsesDefaultWeightForMissingLocalQueue, TestHeapOrderingStableOnLocalQueue-
  LookupError, TestSnapshotStableWithConcurrentFSUpdates (its two valid orders); not
  TestSnapshotFallsBackToBaseOrderingOnLocalQueueLookupError (a failed API lookup);
- pkg/cache/queue/manager_test.go: TestHeadsRespectLocalQueueWeightForPreexisting-
  Workloads (1 of the 2 AFS tests: a scenario's weights do not change, so not
  TestUpdateLocalQueueWeightReheapifies);
- pkg/scheduler/scheduler_afs_test.go, TestScheduleForAFS: 6 of 8 cases, 5 of them run
  by the simulator (not the two deleting a LocalQueue, which a scenario does not do).

Quantities: upstream's resource.Quantity rounds to nano units (6828427124n), floats here.
"""
import math

import numpy as np
import pytest

import drfbench
from drfbench import sim
from drfbench.production import kueue, policies, simulate
from drfbench.production.kueue import Pending
from drfbench.production.scenario import scenario

GI, TI = 2**30, 2**40
MINUTE, HOUR = 60.0, 3600.0


# admission_fair_sharing_test.go ------------------------------------------------------------

@pytest.mark.parametrize("consumed, penalty, weight, resource_weights, want", [
    ({"gpu-logical": 2}, {}, 1, {}, 2),                              # default weight
    ({"gpu-logical": 2}, {}, 1, {"gpu-logical": 3.0}, 6),            # explicit weight
    ({"cpu": 4, "gpu-logical": 2}, {}, 1, {"cpu": 1.0, "gpu-logical": 5.0}, 14),
    ({"gpu-logical": 10}, {}, 1, {"gpu-logical": 0}, 0),             # weight 0: nothing
    ({}, {"gpu-logical": 3}, 1, {}, 3),                              # penalty only
    ({"gpu-logical": 2}, {"gpu-logical": 1}, 2, {"gpu-logical": 4.0}, 6),   # both
], ids=["default weight", "explicit weight", "mixed", "weight zero", "penalty only", "both"])
def test_calculate_usage_with_dra(consumed, penalty, weight, resource_weights, want):
    """TestCalculateUsageWithDRA: sum_r w_r (consumed_r + penalty_r) / LQ weight."""
    assert kueue.afs_usage(consumed, penalty, weight, resource_weights) == want


def test_calculate_usage_with_non_positive_weight():
    """TestCalculateUsageWithNonPositiveWeight: weight 0 gives +inf (never NaN), idle or
    not; a negative weight is refused here (upstream: +inf too)."""
    assert kueue.afs_usage({}, None, 0) == math.inf
    assert kueue.afs_usage({"cpu": 4}, None, 0) == math.inf
    with pytest.raises(ValueError, match="weight must be a finite number >= 0, got -1"):
        kueue.afs_usage({"cpu": 4}, None, -1)


def test_decayed_consumed_accumulates_sub_milli():
    """TestCalculateDecayedConsumedAccumulatesSubMilli: a week's half-life sampled every
    five minutes still grows each sample."""
    consumed, previous = {}, {"cpu": 0.0, "nvidia.com/gpu": 0.0}
    for _ in range(3):
        consumed = kueue.afs_decayed(consumed, {"cpu": 2, "nvidia.com/gpu": 1}, 5 * MINUTE,
                                     168 * HOUR)
        assert all(consumed[r] > previous[r] for r in previous)
        previous = consumed


def test_decayed_consumed_converges_to_usage():
    """TestCalculateDecayedConsumedConvergesToUsage: 1 - 0.5^n of the way to the usage after
    n half-lives (2016 samples each), within a milli-unit, never above it."""
    consumed = {}
    for half_lives, want in ((1, 1.0), (2, 1.5), (3, 1.75)):
        for _ in range(2016):
            consumed = kueue.afs_decayed(consumed, {"cpu": 2}, 5 * MINUTE, 168 * HOUR)
        assert consumed["cpu"] == pytest.approx(want, abs=1e-3) and consumed["cpu"] <= 2


@pytest.mark.parametrize("size", [16 * GI, TI, 64 * TI], ids=["16Gi", "1Ti", "64Ti"])
def test_decayed_consumed_keeps_large_quantities_positive(size):
    """TestCalculateDecayedConsumedKeepsLargeQuantitiesPositive."""
    consumed = kueue.afs_decayed({}, {"memory": size}, 5 * MINUTE, 168 * HOUR)
    assert consumed["memory"] > 0


def test_entry_penalty_with_dra_resources():
    """TestCalculateEntryPenaltyWithDRAResources: every resource requested is penalised,
    alpha(5 min, 10 min) = 1 - 0.5^0.5 of it."""
    penalty = kueue.afs_penalty({"cpu": 4, "gpu-logical": 2}, 5 * MINUTE, 10 * MINUTE)
    alpha = 1 - 0.5 ** 0.5
    assert penalty == pytest.approx({"cpu": 4 * alpha, "gpu-logical": 2 * alpha})


def test_entry_penalty_with_long_half_life():
    """TestCalculateEntryPenaltyWithLongHalfLife: positive with a week's half-life."""
    penalty = kueue.afs_penalty({"cpu": 2, "nvidia.com/gpu": 1}, 5 * MINUTE, 168 * HOUR)
    assert penalty["cpu"] > 0 and penalty["nvidia.com/gpu"] > 0


# localqueue_controller_test.go, TestLocalQueueReconcile ---------------------------------------

@pytest.mark.parametrize("consumed, usage, half_life, want", [
    ({"cpu": 8}, {}, 5 * MINUTE, {"cpu": 4}),
    ({"cpu": 8}, {"cpu": 4}, 5 * MINUTE, {"cpu": 6}),
    ({"cpu": 8, "GPU": 16}, {"cpu": 4, "GPU": 4}, 5 * MINUTE, {"cpu": 6, "GPU": 10}),
    ({"cpu": 8}, {"cpu": 4}, 10 * MINUTE, {"cpu": 6.828427124}),
    ({"cpu": 8}, {}, 24 * HOUR, {"cpu": 7.980769063}),
    ({"GPU": 8}, {"GPU": 4}, 10 * MINUTE, {"GPU": 6.828427124}),
], ids=["no running workloads", "previous state and running", "flavors and resources",
        "half time twice the sampling", "long half time", "GPU half time twice"])
def test_local_queue_decaying_usage(consumed, usage, half_life, want):
    """The 'local queue decaying usage ...' cases: one sample 5 minutes after the last."""
    got = kueue.afs_decayed(consumed, usage, 5 * MINUTE, half_life)
    assert got == pytest.approx(want, abs=1e-9)


def one_queue(jobs, local_queues=("lq",), quota=8.0):
    """A scenario of one ClusterQueue `cq` (cpu only, its quota on one node) and its local
    queues, weight 1; jobs as (local queue, cpu), all there at 0, in creation order."""
    return scenario({
        "resources": ["cpu"], "nodes": {"n": {"capacity": [quota]}},
        "children": {"cq": {"guarantee": [quota],
                            "local_queues": {name: {} for name in local_queues}}},
        "jobs": [{"queue": "cq", "local_queue": lq, "demand": [cpu], "duration": 100}
                 for lq, cpu in jobs]})


def afs_policy(s, half_life, interval, seeded=None):
    """The kueue policy with AFS on `s`, each local queue's consumed usage seeded as
    upstream's AfsUsageLedger.SetForTest does ({name: {resource: amount}}, at time 0)."""
    p = policies.policy(s, "kueue", admission_fair_sharing=True, usage_half_life=half_life,
                        usage_sampling_interval=interval)
    for lq, consumed in (seeded or {}).items():
        p.consumed[s.local_queue_names.index(lq)] = dict(consumed)
    p._afs_rekey(int(s.leaves[0]))
    return p


def test_local_queue_sampled_every_interval_with_what_it_holds():
    """'...sums the previous state and running workloads', '...is not reconciled if not
    enough time has passed' and '...initializes status' (empty at the start): the
    policy's local queue, 8 consumed and 4 held, is not sampled 4 minutes after its last
    update and is 6 at 5 minutes."""
    s = one_queue([("lq", 4)])
    p = afs_policy(s, 5 * MINUTE, 5 * MINUTE)
    assert p.consumed == [{}] and p.last.tolist() == [0]
    p.consumed[0], p.lq_usage[0] = {"cpu": 8.0}, [4.0]
    p.now = 4 * MINUTE
    assert not p._afs_sample(0) and p.consumed[0] == {"cpu": 8.0}
    p.now = 5 * MINUTE
    assert p._afs_sample(0) and p.consumed[0] == {"cpu": 6.0} and p.last[0] == 5 * MINUTE


def test_local_queue_decaying_usage_resets_when_half_life_is_0():
    """'...resets to 0 when half life is 0': a sample keeps nothing."""
    s = one_queue([("lq", 4)])
    p = afs_policy(s, 0.0, 5 * MINUTE, {"lq": {"cpu": 8}})
    p.lq_usage[0], p.now = [4.0], 5 * MINUTE
    assert p._afs_sample(0) and p.consumed[0] == {}


# workload_controller_test.go, TestUpdateAfsConsumedUsage --------------------------------------

@pytest.mark.parametrize("seeded, want", [(None, 2.0), ({"lq": {"cpu": 8}}, 10.0)],
                         ids=["penalty-only entry on a cache miss", "folds into an entry"])
def test_update_afs_consumed_usage(seeded, want):
    """Admitting a 4 CPU workload with half-life = sampling interval settles a 2 CPU
    penalty into the consumed usage at once: the policy's admission."""
    s = one_queue([("lq", 4)])
    p = afs_policy(s, 5 * MINUTE, 5 * MINUTE, seeded)
    p.add_tasks(0, 1)
    users, _ = p.schedule()
    assert users.tolist() == [0] and p.consumed[0] == {"cpu": pytest.approx(want)}


# cluster_queue_test.go and manager_test.go: the order --------------------------------------

def first(pending, consumed, weights=None, resource_weights=None):
    usage = {lq: kueue.afs_usage(c, None, (weights or {}).get(lq, 1.0), resource_weights)
             for lq, c in consumed.items()}
    return kueue.afs_order(pending, usage)[0]


@pytest.mark.parametrize("consumed, weights, resource_weights, pending, want", [
    ({"A": {"cpu": 2}, "B": {"cpu": 1}}, None, None,
     [Pending("A", 2, uid="wlA-high"), Pending("B", 1, uid="wlB-low")], 1),
    ({"A": {"cpu": 1, "gpu": 10}, "B": {"cpu": 1000, "gpu": 1}}, None, {"cpu": 0, "gpu": 1},
     [Pending("A", 2, uid="wlA-high"), Pending("B", 1, uid="wlB-low")], 1),
    ({"A": {"cpu": 10}, "B": {"cpu": 6}}, {"B": 2}, None,
     [Pending("A", 2, uid="wlA-high"), Pending("B", 1, uid="wlB-low")], 1),
    ({"A": {"cpu": 10}}, None, None,
     [Pending("A", 1, uid="wlA-low"), Pending("A", 2, uid="wlA-high")], 1),
    ({"A": {}}, None, None, [Pending("A", 1, uid="wlA-low"), Pending("A", 2, uid="wlA-high")],
     1),
    ({"A": {}}, None, None, [Pending("A", 1, uid="wlA-low"), Pending("A", 2, uid="wlA-high")],
     1),
], ids=["by LQ usage, not priority", "resource weights", "LQ weights", "same usage: priority",
        "NoFairSharing: priority", "no FS config: priority"])
def test_fs_admission(consumed, weights, resource_weights, pending, want):
    """TestFsAdmission: the workload popped first (without AFS, as with equal usage)."""
    assert first(pending, consumed, weights, resource_weights) == want


def test_lower_usage_before_priority_and_the_default_weight():
    """TestSnapshotUsesDefaultWeightForMissingLocalQueue (10 < 15 at weight 1, over
    priority) and TestHeapOrderingStableOnLocalQueueLookupError (1 < 10)."""
    assert first([Pending("existing", 1, uid="uid-1"), Pending("missing", 2, uid="uid-2")],
                 {"existing": {"gpu": 10}, "missing": {"gpu": 15}}) == 0
    assert first([Pending("lq1", 2, uid="high"), Pending("lq2", 1, uid="low")],
                 {"lq1": {"gpu": 10}, "lq2": {"gpu": 1}}) == 1


def test_snapshot_orders_of_equal_and_penalised_usage():
    """TestSnapshotStableWithConcurrentFSUpdates' two valid orders: equal usage by UID;
    lq1 with a penalty of 100 after lq2."""
    pending = [Pending("lq1", uid="uid-1"), Pending("lq2", uid="uid-2"),
               Pending("lq1", uid="uid-3"), Pending("lq2", uid="uid-4")]
    for penalty, want in ((None, ["lq1", "lq2", "lq1", "lq2"]),
                          ({"gpu": 100}, ["lq2", "lq2", "lq1", "lq1"])):
        usage = {"lq1": kueue.afs_usage({"gpu": 5}, penalty), "lq2": kueue.afs_usage({"gpu": 5})}
        assert [pending[i].local_queue for i in kueue.afs_order(pending, usage)] == want


def test_zero_weight_local_queue_goes_last():
    """TestHeadsRespectLocalQueueWeightForPreexistingWorkloads and TestScheduleForAFS's
    'does not prioritize a zero-weight localqueue': weight 0 is +inf usage, after a
    later workload of weight 1, both idle."""
    pending = [Pending("lq-zero", created=0, uid="wl-zero"),
               Pending("lq-normal", created=1, uid="wl-normal")]
    usage = {"lq-zero": kueue.afs_usage({"cpu": 0}, None, 0),
             "lq-normal": kueue.afs_usage({"cpu": 0}, None, 1)}
    assert kueue.afs_order(pending, usage) == [1, 0]


# scheduler_afs_test.go, TestScheduleForAFS: run by the simulator -----------------------------

@pytest.mark.parametrize("afs, seeded, jobs, admitted", [
    (True, {"lq-a": {"cpu": 8}, "lq-b": {"cpu": 2}}, [("lq-a", 8), ("lq-b", 8)], [1]),
    (False, {"lq-a": {"cpu": 8}, "lq-b": {"cpu": 2}}, [("lq-a", 8), ("lq-b", 8)], [0]),
    (True, {"lq-a": {"cpu": 4}, "lq-b": {"cpu": 4}},
     [("lq-a", 4), ("lq-a", 4), ("lq-b", 4), ("lq-b", 4)], [0, 2]),
    (True, {"lq-a": {"cpu": 2}, "lq-b": {"cpu": 2}, "lq-c": {"cpu": 2}},
     [("lq-a", 4), ("lq-b", 3), ("lq-c", 1)], [0, 1, 2]),
    (True, {"lq-a": {"cpu": 8}}, [("lq-a", 8), ("lq-b", 8)], [1]),
], ids=["less active localqueue", "without AFS", "one from each localqueue",
        "equal usage", "uninitialized cache"])
def test_schedule_for_afs(afs, seeded, jobs, admitted):
    """ClusterQueue cq1 with 8 CPUs, half-life 10 s, sampling 1 s; the jobs admitted at
    the start (the others wait for them to end). 'One from each localqueue': wl-a1 first
    (equal usage, created first), then its entry penalty puts wl-b1 before wl-a2."""
    s = one_queue(jobs, ("lq-a", "lq-b", "lq-c"))
    p = afs_policy(s, 10.0, 1.0, seeded) if afs else policies.policy(s, "kueue")
    start = np.full(len(jobs), np.inf)
    t = sim.simulate(s.capacity, s.trace(), p).tasks
    np.minimum.at(start, t["user"], t["start"])
    assert np.flatnonzero(start == 0).tolist() == admitted


# the rule on a scenario -----------------------------------------------------------------------

def heavy_and_light(afs):
    """One ClusterQueue of 8 CPUs: `heavy` runs a job of 8 CPUs for an hour; at 1800 s
    `heavy`, then at 1801 s `light` (weight 1 each) submit one job each, both waiting for
    the first to end: with AFS (half-life an hour, sampled every minute), light's goes
    first, heavy's decayed usage being higher."""
    spec = {"resources": ["cpu"], "nodes": {"n": {"capacity": [8]}},
            "children": {"cq": {"local_queues": {"heavy": {}, "light": {}}}},
            "jobs": [{"queue": "cq", "local_queue": "heavy", "demand": [8], "duration": 3600},
                     {"queue": "cq", "local_queue": "heavy", "arrival": 1800, "demand": [8],
                      "duration": 600},
                     {"queue": "cq", "local_queue": "light", "arrival": 1801, "demand": [8],
                      "duration": 600}]}
    return simulate(spec, "kueue", admission_fair_sharing=afs, usage_half_life=3600,
                    usage_sampling_interval=60)


def test_light_local_queue_admitted_first_with_afs():
    start, _ = heavy_and_light(False).jobs()
    assert start.tolist() == [0, 3600, 4200]            # FIFO within the ClusterQueue
    start, _ = heavy_and_light(True).jobs()
    assert start.tolist() == [0, 4200, 3600]            # the light local queue first


def test_afs_deterministic():
    a, b = heavy_and_light(True).simulation.tasks, heavy_and_light(True).simulation.tasks
    assert all(np.array_equal(a[k], b[k]) for k in ("user", "machine", "start", "end"))


def test_local_queues_change_nothing_without_afs():
    """AFS off (the default), declaring local queues runs as before, bit for bit."""
    def run(local):
        spec = {"resources": ["cpu", "gpu"], "nodes": {"n": {"capacity": [8, 2], "count": 2}},
                "children": {"a": {"guarantee": [4, 1], **local}, "b": {"weight": 2}},
                "jobs": [{"queue": q, "arrival": t, "demand": [c, g], "duration": d,
                          "tasks": n, **({"local_queue": "x" if t % 2 else "y"}
                                         if local and q == "a" else {})}
                         for q, t, c, g, d, n in [("a", 0, 2, 0, 10, 3), ("b", 1, 4, 1, 5, 2),
                                                  ("a", 2, 1, 1, 7, 2), ("a", 3, 3, 0, 4, 1),
                                                  ("b", 3, 2, 0, 9, 2)]]}
        return simulate(spec, "kueue").simulation.tasks
    plain, with_local = run({}), run({"local_queues": {"x": {}, "y": {"weight": 3}}})
    assert all(np.array_equal(plain[k], with_local[k]) for k in plain)


@pytest.mark.parametrize("rule, options, error, message", [
    ("armada", {"admission_fair_sharing": True}, ValueError, "admission_fair_sharing is "
     "Kueue's; rule is 'armada'"),
    ("kueue", {"admission_fair_sharing": True, "resource_weights": [1, 2]}, ValueError,
     r"resource_weights must be a list of one number per resource \(cpu\), got \[1, 2\]"),
    ("kueue", {"admission_fair_sharing": True, "resource_weights": [-1]}, ValueError,
     "resource_weights of 'cpu' must be a finite number >= 0, got -1"),
    ("kueue", {"admission_fair_sharing": 1}, TypeError, "admission_fair_sharing must be True "
     "or False"),
    ("kueue", {"usage_sampling_interval": 0}, ValueError, "sampling_interval must be a finite "
     "number of seconds > 0, got 0"),
    ("kueue", {"usage_half_life": float("inf")}, ValueError, "half_life must be a finite "
     "number of seconds >= 0, got inf"),
])
def test_bad_options_refused(rule, options, error, message):
    with pytest.raises(error, match=message):
        policies.policy(one_queue([("lq", 1)]), rule, **options)


def test_pure_functions_refuse_bad_input():
    """Each names the argument and the value as given."""
    with pytest.raises(ValueError, match="elapsed must be a finite number of seconds >= 0, "
                                         "got -1"):
        kueue.afs_decayed({}, {}, -1, 60)
    with pytest.raises(ValueError, match="usage of 'cpu' must be a finite number >= 0, got "
                                         "nan"):
        kueue.afs_decayed({}, {"cpu": math.nan}, 1, 60)
    with pytest.raises(ValueError, match="consumed must be a mapping of resource names"):
        kueue.afs_usage([1, 2])
    with pytest.raises(ValueError, match="no usage given for local queue 'b'"):
        kueue.afs_order([Pending("a"), Pending("b")], {"a": 0.0})


def test_options_declared_once_and_checked_by_the_registry():
    info = drfbench.method_info("kueue")
    assert info.defaults()["admission_fair_sharing"] is False
    assert info.defaults()["usage_sampling_interval"] == 300.0
    with pytest.raises(ValueError, match=r"usage_half_life must lie in \[0, inf\), got -1"):
        simulate(one_queue([("lq", 1)]), "kueue", usage_half_life=-1)


def test_from_the_command(tmp_path, capsys):
    """`drfbench run kueue FILE --admission-fair-sharing true ...`: the options parsed by
    their declared types (resource_weights a comma list), the light local queue first;
    a bad one is one line naming it."""
    from drfbench import rows
    from drfbench.cli import main
    path = tmp_path / "s.yaml"
    path.write_text("resources: [cpu]\nnodes: {n: {capacity: [8]}}\n"
                    "children: {cq: {local_queues: {heavy: {}, light: {weight: 2}}}}\njobs:\n"
                    "  - {queue: cq, local_queue: heavy, demand: [8], duration: 3600}\n"
                    "  - {queue: cq, local_queue: heavy, arrival: 1800, demand: [8], "
                    "duration: 600}\n"
                    "  - {queue: cq, local_queue: light, arrival: 1801, demand: [8], "
                    "duration: 600}\n")
    out = tmp_path / "rows.csv"
    assert main(["run", "kueue", str(path), "--admission-fair-sharing", "true",
                 "--usage-half-life", "3600", "--resource-weights", "2", "--out",
                 str(out)]) == 0
    assert [float(r["start"]) for r in rows.read_rows(out)] == [0, 4200, 3600]
    assert main(["run", "kueue", str(path), "--admission-fair-sharing", "true",
                 "--resource-weights", "1,2"]) != 0
    err = capsys.readouterr().err
    assert "resource_weights must be a list of one number per resource (cpu)" in err
