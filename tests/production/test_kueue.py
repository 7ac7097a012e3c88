"""drfbench.production.kueue against kueue's own unit tests (kubernetes-sigs/kueue at
commit ff69552e79ad21652c36caa97038382e55625cf7):

- pkg/cache/scheduler/fair_sharing_test.go: TestDominantResourceShare (16 cases, every
  node's rounded share, dominant resource and borrowing flag), TestIsBorrowingOn (5),
  TestPreciseWeightedShareSerialized (4);
- pkg/scheduler/preemption/preemption_fair_test.go: TestFairPreemptions, the 5 cases
  below whose outcome follows from the shares alone (one flat cohort, one resource): each
  is replayed as the sequence of strategy checks the preemptor makes, asserting the
  verdict that gives upstream's wantPreempted. The test's other 30 cases turn on the
  candidates' order, priorities, preemption within a ClusterQueue or the nominal-quota
  rules, which these pure functions do not model.

Amounts are as upstream holds them: cpu in millicores, GPUs in units.
"""
import pytest

from drfbench.production import kueue
from drfbench.production.kueue import Quota

CPU, GPU = ("default", "cpu"), ("default", "example.com/gpu")


def cq(parent, weight=1.0, usage=None, q=None):
    """A ClusterQueue node: its cohort, fair weight, usage and quotas q."""
    node = {"parent": parent, "weight": weight, "quotas": dict(q or {})}
    if usage:
        node["usage"] = usage
    return node


def pair(cq_quota, lending_quota, weight=1.0, lending_weight=1.0, usage=None):
    """The test's ClusterQueue "cq" and "lending-cq" in "test-cohort"."""
    return {"test-cohort": {"parent": None},
            "cq": cq("test-cohort", weight, usage, q=cq_quota),
            "lending-cq": cq("test-cohort", lending_weight, q=lending_quota)}


NOT_BORROWING = (0, "", False)

# TestDominantResourceShare: (nodes, request, {node: (rounded DRS, resource, borrowing)}).
DRS_CASES = {
    "no cohort": (
        {"cq": cq(None, usage={CPU: 1000, GPU: 2}, q={CPU: 2000, GPU: 5})}, None,
        {"cq": NOT_BORROWING}),
    "usage below nominal": (
        pair({CPU: 2000, GPU: 5}, {CPU: 8000, GPU: 5}, usage={CPU: 1000, GPU: 2}), None,
        {"cq": NOT_BORROWING, "lending-cq": NOT_BORROWING, "test-cohort": NOT_BORROWING}),
    "usage above nominal": (
        pair({CPU: 2000, GPU: 5}, {CPU: 8000, GPU: 5}, usage={CPU: 3000, GPU: 7}), None,
        {"cq": (200, "example.com/gpu", True), "lending-cq": NOT_BORROWING,
         "test-cohort": NOT_BORROWING}),
    "usage slightly above nominal in a cohort with large quotas": (
        pair({GPU: 500}, {GPU: 1000}, lending_weight=300, usage={GPU: 501}), None,
        {"cq": (1, "example.com/gpu", True), "lending-cq": NOT_BORROWING,
         "test-cohort": NOT_BORROWING}),
    "usage way above nominal in a cohort with large quotas and weights": (
        pair({GPU: 500}, {GPU: 1000}, weight=300, lending_weight=300, usage={GPU: 800}), None,
        {"cq": (1, "example.com/gpu", True), "lending-cq": NOT_BORROWING,
         "test-cohort": NOT_BORROWING}),
    "one resource above nominal": (
        pair({CPU: 2000, GPU: 5}, {CPU: 8000, GPU: 5}, usage={CPU: 3000, GPU: 3}), None,
        {"cq": (100, "cpu", True), "lending-cq": NOT_BORROWING, "test-cohort": NOT_BORROWING}),
    "usage with workload above nominal": (
        pair({CPU: 2000, GPU: 5}, {CPU: 8000, GPU: 5}, usage={CPU: 1000, GPU: 2}),
        {CPU: 4000, GPU: 4},
        {"cq": (300, "cpu", True), "lending-cq": NOT_BORROWING, "test-cohort": NOT_BORROWING}),
    "A resource with zero lendable": (
        pair({CPU: 2000, GPU: Quota(2, lending_limit=0)},
             {CPU: 8000, GPU: Quota(64, lending_limit=0)}, usage={CPU: 1000, GPU: 1}),
        {CPU: 4000, GPU: 4},
        {"cq": (300, "cpu", True), "lending-cq": NOT_BORROWING, "test-cohort": NOT_BORROWING}),
    "multiple flavors": (
        pair({("on-demand", "cpu"): 20000, ("spot", "cpu"): 80000}, {CPU: 100000},
             usage={("on-demand", "cpu"): 15000, ("spot", "cpu"): 5000}),
        {("on-demand", "cpu"): 10000},
        {"cq": (25, "cpu", True), "lending-cq": NOT_BORROWING, "test-cohort": NOT_BORROWING}),
    "above nominal with integer weight": (
        pair({GPU: 5}, {GPU: 5}, weight=2, usage={GPU: 7}), None,
        {"cq": (100, "example.com/gpu", True), "lending-cq": NOT_BORROWING,
         "test-cohort": NOT_BORROWING}),
    "above nominal with decimal weight": (
        pair({GPU: 5}, {GPU: 5}, weight=0.5, usage={GPU: 7}), None,
        {"cq": (400, "example.com/gpu", True), "lending-cq": NOT_BORROWING,
         "test-cohort": NOT_BORROWING}),
    "above nominal with zero weight": (
        pair({GPU: 5}, {GPU: 10}, weight=0, usage={GPU: 7}), None,
        {"cq": (kueue.MAX_INT64, "example.com/gpu", True), "lending-cq": NOT_BORROWING,
         "test-cohort": NOT_BORROWING}),
    "cohort has resource share": (
        {"root": {"parent": None, "quotas": {GPU: 45}},
         "child-cohort": {"parent": "root", "weight": 2},
         "cq": cq("child-cohort", usage={GPU: 10}, q={GPU: 5})}, None,
        {"cq": (100, "example.com/gpu", True), "child-cohort": (50, "example.com/gpu", True),
         "root": NOT_BORROWING}),
    "resource share defined for resources only available at the root cohort": (
        {"root": {"parent": None, "quotas": {GPU: 50}},
         "child-cohort": {"parent": "root", "weight": 2},
         "cq": cq("child-cohort", usage={GPU: 10}, q={GPU: 0})}, None,
        {"cq": (200, "example.com/gpu", True), "child-cohort": (100, "example.com/gpu", True),
         "root": NOT_BORROWING}),
    "resource share affected by borrowing limit": (
        {"root": {"parent": None, "quotas": {GPU: 50}},
         "child-cohort": {"parent": "root", "quotas": {GPU: Quota(0, borrowing_limit=10)}},
         "cq": cq("child-cohort", usage={GPU: 10}, q={GPU: 0})}, None,
        {"cq": (1000, "example.com/gpu", True), "child-cohort": (200, "example.com/gpu", True),
         "root": NOT_BORROWING}),
    # Upstream's 1E cpu quota saturates kueue's int64 millicores at MaxInt64; with floats
    # nothing saturates, and 1000 * 1000 / 1e21 still rounds up to 1 as upstream pins.
    "borrowing against unlimited lendable capacity (exabyte-scale quota)": (
        pair({CPU: 0}, {CPU: 1e21}, usage={CPU: 1000}), None,
        {"cq": (1, "cpu", True), "lending-cq": NOT_BORROWING, "test-cohort": NOT_BORROWING}),
}


@pytest.mark.parametrize("name", list(DRS_CASES))
def test_dominant_resource_share(name):
    nodes, request, want = DRS_CASES[name]
    tree = kueue.Cohorts(nodes)
    assert set(want) == set(nodes)
    for node, expected in want.items():
        # upstream passes the request to every node's dominantResourceShare
        share = kueue.dominant_resource_share(tree, node, request)
        assert (share.rounded(), share.resource, share.borrowing) == expected, node


# TestIsBorrowingOn: cq (cpu 2, gpu 5) and lending-cq (cpu 8, gpu 5) in one cohort;
# (usage of cq, requested, borrowing on the requested, borrowing).
BORROWING_ON = {
    "borrows on requested flavor": ({CPU: 3000}, {CPU: 1000}, True, True),
    "borrows on unrequested flavor only": ({CPU: 1000, GPU: 7}, {CPU: 1000}, False, True),
    "borrows on both, requests one": ({CPU: 3000, GPU: 7}, {GPU: 1}, True, True),
    "no borrowing": ({CPU: 1000, GPU: 2}, {CPU: 1000}, False, False),
    "nil requestedFRs": ({CPU: 3000}, None, False, True),
}


@pytest.mark.parametrize("name", list(BORROWING_ON))
def test_is_borrowing_on(name):
    usage, requested, on_requested, borrowing = BORROWING_ON[name]
    tree = kueue.Cohorts(pair({CPU: 2000, GPU: 5}, {CPU: 8000, GPU: 5}, usage=usage))
    share = kueue.dominant_resource_share(tree, "cq")
    assert share.borrowing is borrowing
    assert share.borrowing_on(requested) is on_requested


@pytest.mark.parametrize("weight, ratio, expected", [
    (0, 100, float("inf")),      # "zero weight returning Inf"
    (1, 0, 0.0),                 # "zero unweighted ratio returns 0"
    (2, 400, 200.0),             # "regular integer division"
    (4, 10, 2.5),                # "decimal division"
], ids=["zero weight returning Inf", "zero unweighted ratio returns 0",
        "regular integer division", "decimal division"])
def test_precise_weighted_share(weight, ratio, expected):
    """TestPreciseWeightedShareSerialized: the value behind the string upstream checks."""
    assert kueue.Share(weight, ratio, "", ratio > 0, ()).value == expected


# TestFairPreemptions: ClusterQueues a, b, c (3 cpu each) and "preemptible" (0) in cohort
# "all"; unit workloads of 1 cpu. A case: (cpu each queue holds, fair weights, the
# preemptor's queue, its incoming workload's cpu, steps); a step: (target queue, the
# candidate's cpu, expected S2-a verdict, expected S2-b verdict, the rule that preempts
# it in upstream's run or None); steps run in order, a preempted candidate removed.
def fair_cohort(usage, weights=None):
    weights = weights or {}
    nodes = {"all": {"parent": None}}
    for name, nominal in (("a", 3000), ("b", 3000), ("c", 3000), ("preemptible", 0)):
        nodes[name] = cq("all", weights.get(name, 1.0), {CPU: usage.get(name, 0)},
                         q={CPU: nominal})
    return kueue.Cohorts(nodes)


def verdicts(tree, preemptor, incoming, target, candidate):
    new = kueue.dominant_resource_share(tree, preemptor, {CPU: incoming})
    old = kueue.dominant_resource_share(tree, target)
    after = kueue.dominant_resource_share(tree.with_usage(target, {CPU: -candidate}), target)
    return tuple(rule(new, old, after) for rule in kueue.DEFAULT_STRATEGIES)


FAIR_PREEMPTIONS = {
    # a: 3 + 1 incoming; b: 5; wantPreempted b1 (InCohortFairSharing).
    "reclaim borrowable quota from user using the most":
        ({"a": 3000, "b": 5000, "c": 1000}, {}, "a", 1000, [("b", 1000, True, True, "S2-a")]),
    # a: 3 + 2 incoming; b: 5: preempting any of b's unit workloads fails both rules.
    "can't preempt when it would switch the imbalance":
        ({"a": 3000, "b": 5000}, {}, "a", 2000, [("b", 1000, False, False, None)]),
    # a: 3.5 incoming; b: 2 + 1 + 2, c: 1; b1 (2 cpu) fails S2-a (S2-b would take it), b2
    # (1 cpu) passes S2-a: wantPreempted b2.
    "prefer to preempt workloads that don't make the target CQ have the biggest share":
        ({"b": 5000, "c": 1000}, {}, "a", 3500,
         [("b", 2000, False, True, None), ("b", 1000, True, True, "S2-a")]),
    # a (weight 2): 3 + 2 incoming; b: 6: wantPreempted b1, b2, both by S2-a.
    "CQ with higher weight can preempt more":
        ({"a": 3000, "b": 6000}, {"a": 2.0}, "a", 2000,
         [("b", 1000, True, True, "S2-a"), ("b", 1000, True, True, "S2-a")]),
    # a: 3 + 3 incoming; b (weight 0): 6: b1, b2 by S2-a; b3 would bring b to its nominal
    # (share 0), so S2-a fails and S2-b (b's share before, +inf) takes it.
    "can preempt anything borrowing from CQ with 0 weight":
        ({"a": 3000, "b": 6000}, {"b": 0.0}, "a", 3000,
         [("b", 1000, True, True, "S2-a"), ("b", 1000, True, True, "S2-a"),
          ("b", 1000, False, True, "S2-b")]),
}


@pytest.mark.parametrize("name", list(FAIR_PREEMPTIONS))
def test_fair_preemptions(name):
    usage, weights, preemptor, incoming, steps = FAIR_PREEMPTIONS[name]
    tree = fair_cohort(usage, weights)
    for target, candidate, s2a, s2b, taken in steps:
        assert verdicts(tree, preemptor, incoming, target, candidate) == (s2a, s2b)
        if taken:
            tree = tree.with_usage(target, {CPU: -candidate})


def test_lending_limit_keeps_quota_from_the_cohort():
    """A lending limit keeps subtree quota - limit in the queue (localQuota): the cohort's
    subtree quota and the lendable amount count only the part lent (4 of cq's 10)."""
    tree = kueue.Cohorts(pair({GPU: Quota(10, lending_limit=4)}, {GPU: 6}, usage={GPU: 12}))
    assert tree.subtree["test-cohort"][GPU] == 10
    share = kueue.dominant_resource_share(tree, "cq")
    assert share.ratio == pytest.approx(2 * 1000 / 10)   # lendable: 4 lent + 6


@pytest.mark.parametrize("nodes, message", [
    ({"a": {"parent": "x"}}, "parent 'x' is not a node"),
    ({"a": {"parent": "b"}, "b": {"parent": "a"}}, "cycle"),
    ({"r": {"parent": None, "usage": {CPU: 1}}, "a": {"parent": "r"}}, "leaves"),
    ({"a": {"parent": None, "quotas": {CPU: -1}}}, "nominal quota must be"),
    ({"a": {"parent": None, "weight": float("nan")}}, "weight must be"),
])
def test_bad_trees_are_named(nodes, message):
    with pytest.raises(ValueError, match=message):
        kueue.Cohorts(nodes)
