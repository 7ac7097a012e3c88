"""drfbench.production.yarn against hadoop's own unit tests: TestDominantResourceFairness-
Policy (hadoop-yarn-server-resourcemanager, scheduler/fair/policies), as read at commit
09b476e6dabe8039a41dde7930c8a9c0d14bb750 and in the later version that runs every
comparator test twice, with a third resource type "test" (ComparatorN) and with memory and
vcores only (Comparator2, the tests named ...2).

In upstream's ComparatorN runs the third resource has cluster capacity 0 and usage 0, a
NaN ratio that compares equal to anything; the same is done here. Not ported:
testModWhileSorting (a concurrency test of Java's TreeSet).
"""
import math

import pytest

from drfbench.production import yarn
from drfbench.production.yarn import Schedulable


def sched(mem, cpu, weight=1.0, min_mem=0, min_cpu=0):
    """createSchedulable: usage, weight, min share (two resources; see `with_test`)."""
    return Schedulable((mem, cpu), (min_mem, min_cpu), weight)


def with_test(s):
    """The same schedulable with the "test" resource, usage 0 and min share 0."""
    return s._replace(usage=tuple(s.usage) + (0,), min_share=tuple(s.min_share) + (0,))


# (test, cluster (memory, vcores), a, b, expected sign of compare(a, b))
COMPARATOR_CASES = [
    ("testSameDominantResource", (8000, 4), sched(1000, 1), sched(2000, 1), -1),
    ("testDifferentDominantResource", (8000, 8), sched(4000, 3), sched(2000, 5), -1),
    ("testOneIsNeedy", (8000, 8), sched(2000, 5, min_cpu=6), sched(4000, 3), -1),
    ("testBothAreNeedy", (8000, 100), sched(2000, 5), sched(4000, 3), -1),
    ("testBothAreNeedy", (8000, 100), sched(2000, 5, min_mem=3000, min_cpu=6),
     sched(4000, 3, min_mem=5000, min_cpu=4), -1),
    ("testEvenWeightsSameDominantResource", (8000, 8), sched(3000, 1, 2.0), sched(2000, 1), -1),
    ("testEvenWeightsSameDominantResource", (8000, 8), sched(1000, 3, 2.0), sched(1000, 2), -1),
    ("testEvenWeightsDifferentDominantResource", (8000, 8), sched(1000, 3, 2.0),
     sched(2000, 1), -1),
    ("testEvenWeightsDifferentDominantResource", (8000, 8), sched(3000, 1, 2.0),
     sched(1000, 2), -1),
    ("testCompareSchedulablesWithClusterResourceChanges", (4000, 5), sched(2000, 1),
     sched(1000, 2), 1),
    ("testCompareSchedulablesWithClusterResourceChanges", (8000, 6), sched(2000, 1),
     sched(1000, 2), -1),
]


@pytest.mark.parametrize("test, cluster, a, b, expected", COMPARATOR_CASES,
                         ids=[c[0] for c in COMPARATOR_CASES])
@pytest.mark.parametrize("variant", ["N", "2"])
def test_comparator(variant, test, cluster, a, b, expected):
    if variant == "N":
        a, b, cluster = with_test(a), with_test(b), tuple(cluster) + (0,)
    assert yarn.compare(a, b, cluster) == expected
    if variant == "2":   # the cases do not depend on YARN-11482's bug
        assert yarn.compare(a, b, cluster, fixed=False) == expected


def test_sort_shares():
    ratios1 = [[0.3, 2.0], [0.2, 1.0], [0.4, 0.1]]
    ratios2 = [[0.2, 9.0], [0.3, 2.0], [0.25, 0.1]]
    assert yarn.sort_by_usage(ratios1) == [[0.4, 0.1], [0.3, 2.0], [0.2, 1.0]]
    assert yarn.sort_by_usage(ratios2) == [[0.3, 2.0], [0.25, 0.1], [0.2, 9.0]]


def test_calculate_cluster_and_fair_ratios():
    rows, dominant = yarn.ratios((10, 5, 2), (100, 10, 5))
    assert [r[0] for r in rows] == pytest.approx([0.1, 0.5, 0.4], abs=1e-5)
    assert dominant == 1                                   # vcores


def test_calculate_cluster_and_fair_ratios2():
    rows, dominant = yarn.ratios((10, 5), (100, 10))
    assert [r[0] for r in rows] == pytest.approx([0.1, 0.5], abs=1e-5)
    assert dominant == 1


def test_calculate_min_share_ratios():
    assert yarn.min_share_ratios((10, 5, 2), (5, 10, 0)) == [2.0, 0.5, math.inf]


def test_calculate_min_share_ratios2():
    assert yarn.min_share_ratios((10, 5), (5, 10)) == [2.0, 0.5]


R1 = [[0.4, 0.1, 2.0], [0.3, 2.0, 0.1], [0.2, 1.0, 9.0]]
R2 = [[0.3, 2.0, 1.0], [0.2, 0.1, 0.5], [0.2, 1.0, 2.0]]
R3 = [[0.3, 2.0, 1.0], [0.2, 0.1, 2.0], [0.1, 2.0, 1.0]]
COMPARE_SHARES = [  # testCompareShares, its 18 assertions in order
    (R1, R2, 0, 1), (R2, R1, 0, -1), (R1, R1, 0, 0), (R2, R2, 0, 0), (R3, R3, 0, 0),
    (R2, R3, 0, 1),
    (R1, R2, 1, -1), (R2, R1, 1, 1), (R1, R1, 1, 0), (R2, R2, 1, 0), (R3, R3, 1, 0),
    (R2, R3, 1, -1),
    (R1, R2, 2, 1), (R2, R1, 2, -1), (R1, R1, 2, 0), (R2, R2, 2, 0), (R3, R3, 2, 0),
    (R2, R3, 2, -1),
]


@pytest.mark.parametrize("rows1, rows2, index, expected", COMPARE_SHARES)
def test_compare_shares(rows1, rows2, index, expected):
    assert yarn.compare_rows(rows1, rows2, index) == expected


def test_ties_by_start_time_then_name():
    """compareAttribrutes: equal shares, the earlier start, then the smaller name first."""
    a = Schedulable((1000, 1), start_time=5, name="b")
    b = Schedulable((1000, 1), start_time=7, name="a")
    assert yarn.compare(a, b, (8000, 8)) == -1
    assert yarn.compare(a, b._replace(start_time=5), (8000, 8)) == 1


def test_yarn_11482():
    """YARN-11482 (our case, not upstream's): b uses 6000 MB of 8000 against a min share
    of 5000, so it is not needy; before the fix Comparator2 judged b by a's 1000 MB,
    found it needy and put it first. Fixed, a (dominant share .125) goes before b (.75)."""
    a = sched(1000, 1)
    b = sched(6000, 3, min_mem=5000)
    assert yarn.compare(a, b, (8000, 8)) == -1
    assert yarn.compare(a, b, (8000, 8), fixed=False) == 1


@pytest.mark.parametrize("call, message", [
    (lambda: yarn.compare(sched(1, 1), Schedulable((1,)), (8, 8)), "need 2 values"),
    (lambda: yarn.compare(sched(1, 1), sched(-1, 1), (8, 8)), "finite and >= 0"),
    (lambda: yarn.compare(with_test(sched(1, 1)), with_test(sched(1, 1)), (8, 8, 0),
                          fixed=False), "two-resource comparator only"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()
