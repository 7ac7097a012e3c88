"""drfbench.production.mesos.DRFSorter against mesos's own unit tests: src/tests/
sorter_tests.cpp of apache/mesos at commit c1b42f79d157aa900be5cbb0c1023f1479962aa7, each
test below named after its upstream TEST (DRFSorterTest, or CommonSorterTest run on the
DRF sorter), its calls and expected orders in upstream's sequence.

Not ported: the RandomSorter and WeightedShuffle tests (another sorter), the shared
resources tests (SharedResources, SameDominantSharedResourcesAcrossClients,
SameSharedResourcesSameClient, SharedResourcesUnallocated: shared resources are not
modelled), MultipleSlavesUpdateAllocation (a persistent volume on two agents: with scalars
only it repeats UpdateAllocation), the BENCHMARK tests and RoleTreeTest (not the sorter).
"""
import pytest

from drfbench.production.mesos import DRFSorter

AGENT = "agentId"


def r(text):
    """Upstream's "cpus:5;mem:5" resource strings as {name: quantity}."""
    return {k: float(v) for k, v in (part.split(":") for part in text.split(";"))}


def sorter_with(total, *clients):
    s = DRFSorter()
    s.add_agent(AGENT, r(total))
    for c in clients:
        s.add(c)
        s.activate(c)
    return s


def flat_drf_sequence(a, b, c, d, e, f):
    """DRFSorterTest.DRF's sequence with the clients' names as given (ShallowHierarchy
    and DeepHierarchy rerun it with nested names)."""
    s = DRFSorter()
    s.add_agent(AGENT, r("cpus:100;mem:100"))
    assert s.sort() == []
    for name, res in ((a, "cpus:5;mem:5"), (b, "cpus:6;mem:6")):
        s.add(name)
        s.activate(name)
        s.allocated(name, AGENT, r(res))
    assert s.sort() == [a, b]                           # a = .05, b = .06
    for name, res in ((c, "cpus:1;mem:1"), (d, "cpus:3;mem:1")):
        s.add(name)
        s.activate(name)
        s.allocated(name, AGENT, r(res))
    assert s.sort() == [c, d, a, b]                     # .01, .03, .05, .06
    s.remove(a)
    s.unallocated(b, AGENT, r("cpus:4;mem:4"))
    assert s.sort() == [c, b, d]                        # .01, .02, .03
    s.add(e)
    s.activate(e)
    s.allocated(e, AGENT, r("cpus:1;mem:5"))
    s.remove_agent(AGENT)
    s.add_agent(AGENT, r("cpus:50;mem:100"))
    assert s.sort() == [c, b, e, d]                     # .02, .04, .05, .06
    s.remove_agent(AGENT)
    s.add_agent(AGENT, r("cpus:50;mem:200"))
    s.add(f)
    s.activate(f)
    s.allocated(f, AGENT, r("cpus:5;mem:1"))
    s.allocated(c, AGENT, r("cpus:0;mem:15"))
    assert s.sort() == [e, b, d, c, f]                  # .025, .04, .06, .08, .1
    assert s.contains(b) and not s.contains(a)
    assert s.count() == 5
    s.deactivate(d)
    assert s.contains(d)
    assert s.sort() == [e, b, c, f]
    assert s.count() == 5
    s.activate(d)
    assert s.sort() == [e, b, d, c, f]


def test_drf():
    flat_drf_sequence("a", "b", "c", "d", "e", "f")


def test_shallow_hierarchy():
    flat_drf_sequence("a/a", "b/b", "c/c", "d/d", "e/e", "f/f")


def test_deep_hierarchy():
    flat_drf_sequence("a/a/a/a/a", "b/b/b/b", "c/c/c", "d/d", "e/e/e/e/e/e", "f/f")


def test_wdrf():
    s = sorter_with("cpus:100;mem:100", "a")
    s.allocated("a", AGENT, r("cpus:5;mem:5"))
    s.add("b")
    s.activate("b")
    s.update_weight("b", 2)
    s.allocated("b", AGENT, r("cpus:6;mem:6"))
    assert s.sort() == ["b", "a"]                       # a = .05, b = .03
    s.add("c")
    s.activate("c")
    s.allocated("c", AGENT, r("cpus:4;mem:4"))
    assert s.sort() == ["b", "c", "a"]
    s.add("d")
    s.activate("d")
    s.update_weight("d", 10)
    s.allocated("d", AGENT, r("cpus:10;mem:20"))
    assert s.sort() == ["d", "b", "c", "a"]             # d = .02
    s.remove("b")
    assert s.sort() == ["d", "c", "a"]
    s.allocated("d", AGENT, r("cpus:10;mem:25"))
    assert s.sort() == ["c", "d", "a"]                  # d = .045
    s.add("e")
    s.activate("e")
    s.update_weight("e", 0.1)
    s.allocated("e", AGENT, r("cpus:1;mem:1"))
    assert s.sort() == ["c", "d", "a", "e"]             # e = .1
    s.remove("a")
    assert s.sort() == ["c", "d", "e"]


def test_update_weight():
    s = sorter_with("cpus:100;mem:100", "a", "b")
    s.allocated("a", AGENT, r("cpus:5;mem:5"))
    s.allocated("b", AGENT, r("cpus:6;mem:6"))
    assert s.sort() == ["a", "b"]
    s.update_weight("b", 2)
    assert s.sort() == ["b", "a"]


def test_allocation_count_tie_break():
    s = sorter_with("cpus:100;mem:100", "a", "b", "c", "d", "e")
    for client, res in (("a", "cpus:3;mem:3"), ("b", "cpus:3;mem:3"), ("c", "cpus:1;mem:1"),
                        ("c", "cpus:1;mem:1"), ("c", "cpus:1;mem:1"), ("d", "cpus:2;mem:2"),
                        ("d", "cpus:1;mem:1"), ("e", "cpus:3;mem:3")):
        s.allocated(client, AGENT, r(res))
    assert s.sort() == ["a", "b", "e", "d", "c"]        # counts: a, b, e 1; d 2; c 3
    s.unallocated("c", AGENT, r("cpus:3;mem:3"))
    assert s.sort() == ["c", "a", "b", "e", "d"]
    s.allocated("c", AGENT, r("cpus:3;mem:3"))
    assert s.sort() == ["a", "b", "e", "d", "c"]        # c 4
    s.deactivate("c")
    s.activate("c")
    assert s.sort() == ["a", "b", "e", "d", "c"]
    s.unallocated("c", AGENT, r("cpus:3;mem:3"))
    s.allocated("c", AGENT, r("cpus:3;mem:3"))
    assert s.sort() == ["a", "b", "e", "d", "c"]        # c 5
    s.deactivate("a")
    s.unallocated("a", AGENT, r("cpus:1;mem:3"))
    s.allocated("a", AGENT, r("cpus:1;mem:3"))
    assert s.sort() == ["b", "e", "d", "c"]
    s.activate("a")
    assert s.sort() == ["b", "e", "a", "d", "c"]        # a 2


def test_hierarchical_allocation():
    s = sorter_with("cpus:100;mem:100", "a", "b/c", "b/d")
    assert s.count() == 3
    assert s.contains("a") and not s.contains("b")
    assert s.contains("b/c") and s.contains("b/d")
    assert s.sort() == ["a", "b/c", "b/d"]
    s.allocated("a", AGENT, r("cpus:6;mem:6"))
    assert s.sort() == ["b/c", "b/d", "a"]
    s.allocated("b/c", AGENT, r("cpus:4;mem:4"))
    s.allocated("b/d", AGENT, r("cpus:3;mem:3"))
    assert s.sort() == ["a", "b/d", "b/c"]              # a = .06 < b = .07
    assert s.allocation("a", AGENT) == r("cpus:6;mem:6")
    assert s.allocation("b/c", AGENT) == r("cpus:4;mem:4")
    assert s.allocation("b/d", AGENT) == r("cpus:3;mem:3")
    assert s.allocation("b/c") == r("cpus:4;mem:4")
    assert s.allocation() == r("cpus:13;mem:13")
    s.allocated("a", AGENT, r("cpus:2;mem:2"))
    assert s.sort() == ["b/d", "b/c", "a"]
    s.add("b/e/f")
    s.activate("b/e/f")
    assert not s.contains("b/e") and s.contains("b/e/f")
    assert s.sort() == ["b/e/f", "b/d", "b/c", "a"]
    s.allocated("b/e/f", AGENT, r("cpus:3.5;mem:3.5"))
    assert s.sort() == ["a", "b/d", "b/e/f", "b/c"]
    s.remove("b/e/f")
    assert not s.contains("b/e/f")
    assert s.count() == 3
    assert s.sort() == ["b/d", "b/c", "a"]
    s.update("b/c", AGENT, r("cpus:4;mem:4"), r("cpus:1;mem:1"))
    assert s.sort() == ["b/c", "b/d", "a"]
    s.add("b/e/f")
    s.activate("b/e/f")
    s.allocated("b/e/f", AGENT, r("cpus:3.5;mem:3.5"))
    assert s.sort() == ["b/c", "b/d", "b/e/f", "a"]
    assert s.count() == 4


def test_hierarchical_iteration_order():
    s = sorter_with("cpus:100;mem:100", "a/b", "c", "d", "d/e")
    assert s.sort() == ["a/b", "c", "d", "d/e"]
    s.allocated("c", AGENT, r("cpus:8;mem:8"))
    assert s.sort() == ["a/b", "d", "d/e", "c"]
    s.allocated("d", AGENT, r("cpus:3;mem:3"))
    s.allocated("d/e", AGENT, r("cpus:2;mem:2"))
    assert s.sort() == ["a/b", "d/e", "d", "c"]
    s.allocated("a/b", AGENT, r("cpus:6;mem:6"))
    assert s.sort() == ["d/e", "d", "a/b", "c"]


def test_add_child_to_leaf():
    s = sorter_with("cpus:100;mem:100", "a")
    s.allocated("a", AGENT, r("cpus:10;mem:10"))
    s.add("b")
    s.activate("b")
    s.allocated("b", AGENT, r("cpus:6;mem:6"))
    assert s.sort() == ["b", "a"]
    s.add("a/c")
    s.activate("a/c")
    s.allocated("a/c", AGENT, r("cpus:5;mem:5"))
    assert s.sort() == ["b", "a/c", "a"]
    s.remove("a")
    assert not s.contains("a")
    assert s.sort() == ["a/c", "b"]
    s.add("a")
    s.activate("a")
    s.allocated("a", AGENT, r("cpus:10;mem:10"))
    assert s.contains("a")
    assert s.sort() == ["b", "a/c", "a"]
    s.update_weight("a/c", 0.2)         # the virtual leaf "a/." competes at weight 1
    assert s.sort() == ["b", "a", "a/c"]
    s.update_weight("a", 3)             # "a" against "b", not against "a/c"
    assert s.sort() == ["a", "a/c", "b"]
    s.update_weight("a/c", 1)
    assert s.sort() == ["a/c", "a", "b"]


def test_add_child_to_internal():
    s = sorter_with("cpus:100;mem:100", "x/a")
    s.allocated("x/a", AGENT, r("cpus:10;mem:10"))
    s.add("x/b")
    s.activate("x/b")
    s.allocated("x/b", AGENT, r("cpus:6;mem:6"))
    assert s.sort() == ["x/b", "x/a"]
    s.add("x")
    s.activate("x")
    s.allocated("x", AGENT, r("cpus:7;mem:7"))
    assert s.sort() == ["x/b", "x", "x/a"]
    s.add("z")
    s.activate("z")
    s.allocated("z", AGENT, r("cpus:20;mem:20"))
    assert s.sort() == ["z", "x/b", "x", "x/a"]
    s.remove("x")
    assert s.sort() == ["x/b", "x/a", "z"]


def test_add_child_to_inactive_leaf():
    s = sorter_with("cpus:100;mem:100", "a", "b")
    s.allocated("a", AGENT, r("cpus:10;mem:10"))
    s.allocated("b", AGENT, r("cpus:6;mem:6"))
    s.deactivate("a")
    assert s.sort() == ["b"]
    s.add("a/c")
    s.activate("a/c")
    s.allocated("a/c", AGENT, r("cpus:5;mem:5"))
    assert s.sort() == ["b", "a/c"]


def collapse_sorter():
    s = sorter_with("cpus:100;mem:100", "a", "b", "a/c")
    for client, res in (("a", "cpus:10;mem:10"), ("b", "cpus:6;mem:6"),
                        ("a/c", "cpus:5;mem:5")):
        s.allocated(client, AGENT, r(res))
    return s


def test_remove_leaf_collapse_parent():
    s = collapse_sorter()
    assert sorted(s.sort()) == ["a", "a/c", "b"]        # upstream sorts before comparing
    s.remove("a/c")
    assert sorted(s.sort()) == ["a", "b"]


def test_remove_leaf_collapse_parent_inactive():
    s = collapse_sorter()
    s.deactivate("a")
    assert sorted(s.sort()) == ["a/c", "b"]
    s.remove("a/c")
    assert s.sort() == ["b"]            # "a", collapsed, keeps its virtual leaf's state


def test_change_weight_on_subtree():
    s = DRFSorter()
    s.add_agent(AGENT, r("cpus:100;mem:100"))
    s.update_weight("b", 3)
    s.update_weight("a", 2)
    for c in ("a/x", "b/y"):
        s.add(c)
        s.activate(c)
    assert s.sort() == ["a/x", "b/y"]
    s.allocated("a/x", AGENT, r("cpus:10;mem:10"))
    s.allocated("b/y", AGENT, r("cpus:10;mem:10"))
    assert s.sort() == ["b/y", "a/x"]
    for client, res, order in (
            ("b/z", "cpus:5;mem:5", ["b/z", "b/y", "a/x"]),
            ("b", "cpus:4;mem:4", ["a/x", "b", "b/z", "b/y"]),
            ("a/zz", "cpus:2;mem:2", ["a/zz", "a/x", "b", "b/z", "b/y"])):
        s.add(client)
        s.activate(client)
        s.allocated(client, AGENT, r(res))
        assert s.sort() == order


def test_split_resource_shares():
    """Upstream gives b two persistent volumes of 5 disk each: here simply disk 10, so
    this checks only that b's disk share (.1) sorts it after a (.09)."""
    s = sorter_with("cpus:100;mem:100;disk:100", "a", "b")
    s.allocated("a", AGENT, r("cpus:9;mem:9;disk:9"))
    s.allocated("b", AGENT, r("cpus:9;mem:9;disk:10"))
    assert s.sort() == ["a", "b"]


def test_update_allocation():
    """CommonSorterTest.UpdateAllocation: creating a persistent volume changes no
    quantity; an allocation updated to nothing leaves the client with none."""
    s = sorter_with("cpus:10;mem:10;disk:10", "a", "b")
    s.allocated("a", AGENT, r("cpus:10;mem:10;disk:10"))
    s.update("a", AGENT, r("cpus:10;mem:10;disk:10"), r("cpus:10;mem:10;disk:10"))
    assert s.allocation("a", AGENT) == r("cpus:10;mem:10;disk:10")
    assert s.allocation("a") == r("cpus:10;mem:10;disk:10")
    assert s.allocation() == r("cpus:10;mem:10;disk:10")
    s.add("c")
    s.activate("c")
    s.allocated("c", "agent2", r("cpus:10;mem:10;disk:10"))
    s.update("c", "agent2", r("cpus:10;mem:10;disk:10"), {})
    assert s.allocation("c") == {}


def test_update_allocation_nested_client():
    s = sorter_with("cpus:10;mem:10;disk:10", "a/x", "b/y")
    s.allocated("a/x", AGENT, r("cpus:10;mem:10;disk:10"))
    s.update("a/x", AGENT, r("cpus:10;mem:10;disk:10"), r("cpus:10;mem:10;disk:10"))
    assert s.allocation("a/x", AGENT) == r("cpus:10;mem:10;disk:10")
    assert s.allocation() == r("cpus:10;mem:10;disk:10")


def test_allocation_for_inactive_client():
    s = DRFSorter()
    s.add_agent(AGENT, r("cpus:10;mem:10"))
    s.add("a")
    s.add("b")
    s.activate("b")
    s.allocated("a", AGENT, r("cpus:2;mem:2"))
    s.allocated("b", AGENT, r("cpus:3;mem:3"))
    assert s.allocation("a", AGENT) == r("cpus:2;mem:2")
    assert s.allocation("b", AGENT) == r("cpus:3;mem:3")
    assert s.allocation() == r("cpus:5;mem:5")


def test_multiple_slaves():
    """Upstream's ports range is not a scalar and is not kept here."""
    s = sorter_with("cpus:0", "framework")
    s.remove_agent(AGENT)
    for agent in ("agentA", "agentB"):
        s.add_agent(agent, r("cpus:2;mem:512"))
        s.allocated("framework", agent, r("cpus:2;mem:512"))
    assert s.allocation("framework", "agentA") == r("cpus:2;mem:512")
    assert s.allocation("framework", "agentB") == r("cpus:2;mem:512")
    assert s.allocation("framework") == r("cpus:4;mem:1024")
    assert s.allocation() == r("cpus:4;mem:1024")


def test_update_total():
    s = sorter_with("cpus:10;mem:100", "a", "b")
    s.allocated("a", AGENT, r("cpus:2;mem:1"))
    s.allocated("b", AGENT, r("cpus:1;mem:2"))
    assert s.sort() == ["b", "a"]
    s.remove_agent(AGENT)
    s.add_agent(AGENT, r("cpus:100;mem:10"))
    assert s.sort() == ["a", "b"]


def test_multiple_slaves_update_total():
    s = DRFSorter()
    for c in ("a", "b"):
        s.add(c)
        s.activate(c)
    s.add_agent("agentA", r("cpus:5;mem:50"))
    s.add_agent("agentB", r("cpus:5;mem:50"))
    s.allocated("a", "agentA", r("cpus:2;mem:1"))
    s.allocated("b", "agentB", r("cpus:1;mem:3"))
    assert s.sort() == ["b", "a"]
    s.remove_agent("agentA")
    s.add_agent("agentA", r("cpus:95;mem:50"))
    assert s.sort() == ["a", "b"]


def test_remove_resources():
    s = sorter_with("cpus:10", "a", "b")
    s.allocated("a", AGENT, r("cpus:6"))
    s.allocated("b", AGENT, r("cpus:4"))
    assert s.sort() == ["b", "a"]
    s.remove_agent(AGENT)
    s.add_agent(AGENT, r("cpus:5"))
    s.update("a", AGENT, r("cpus:6"), r("cpus:1"))
    assert s.sort() == ["a", "b"]


def test_revocable_resources():
    """Revocable cpus count as cpus in the quantities (upstream's ResourceQuantities):
    total cpus 20, a's share .1, b's (1 + 9 revocable) / 20 = .5."""
    s = sorter_with("cpus:20;mem:100", "a", "b")
    s.allocated("a", AGENT, r("cpus:2;mem:1"))
    s.allocated("b", AGENT, r("cpus:10;mem:1"))
    assert s.allocation("a", AGENT) == r("cpus:2;mem:1")
    assert s.share("a") == pytest.approx(0.1) and s.share("b") == pytest.approx(0.5)
    assert s.sort() == ["a", "b"]


@pytest.mark.parametrize("call, message", [
    (lambda s: s.add("a"), "already added"),
    (lambda s: s.add("x//y"), "client must be a path"),
    (lambda s: s.activate("nope"), "no client 'nope'"),
    (lambda s: s.unallocated("a", AGENT, r("cpus:1")), "holds"),
    (lambda s: s.update_weight("a", 0), "must be finite and positive"),
    (lambda s: s.allocated("a", AGENT, {"cpus": -1}), "finite quantity >= 0"),
])
def test_bad_calls_are_named(call, message):
    s = sorter_with("cpus:10", "a")
    with pytest.raises(ValueError, match=message):
        call(s)


def test_unallocated_zero_quantity():
    """Giving back a quantity of 0 of a resource the client never held is nothing to give
    back (it raised KeyError); the other resources go back."""
    s = DRFSorter()
    s.add_agent(AGENT, {"cpus": 10, "gpus": 2})
    s.add("a")
    s.activate("a")
    s.allocated("a", AGENT, {"cpus": 2, "gpus": 0})
    s.unallocated("a", AGENT, {"cpus": 2, "gpus": 0})
    assert s.allocation("a") == {}
    s.allocated("a", AGENT, {"cpus": 1, "gpus": 1})
    s.unallocated("a", AGENT, {"cpus": 1, "gpus": 0})
    assert s.allocation("a") == {"gpus": 1}
