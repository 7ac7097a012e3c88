"""drfbench.hdrf.properties, the hierarchical properties the H-DRF slides claim, on random
trees: H-DRF and its Pareto rivals keep them, flattening, naive H-DRF and the capacity
scheduler break them; the table's rows."""
import pytest

from drfbench.hdrf import examples
from drfbench.hdrf import properties as props


@pytest.fixture(scope="module")
def random_trees():
    return list(props.random_trees(200, seed=11, room=4, machines=(1, 1)))


@pytest.mark.parametrize("method", ["hdrf", "static-hdrf", "capacity-pareto"])
def test_hdrf_keeps_the_hierarchical_properties(method, random_trees):
    for check in props.CHECKS.checks.values():
        verdict = check(method, random_trees)
        assert verdict.holds and verdict.checked == len(random_trees), verdict.counterexample


def test_the_rivals_break_them(random_trees):
    assert not props.hierarchical_share_guarantee("flatten", random_trees)
    assert not props.tree_pareto_efficiency("naive-hdrf", random_trees)
    assert not props.tree_pareto_efficiency("capacity", random_trees)
    ex = examples.EXAMPLES[0]
    v = props.hierarchical_share_guarantee("flatten", [(ex.tree, ex.machines)])
    assert v.counterexample.details["node"] == "n1" and v.counterexample.details["share"] == 0.34


def test_tree_property_table_rows():
    rows = props.CHECKS.table(["hdrf", "flatten"], count=5, room=4, machines=(1, 1))
    assert len(rows) == 2 * len(props.CHECKS.checks)
    assert {r["label"] for r in rows} == {"H-DRF", "Flattening"}
