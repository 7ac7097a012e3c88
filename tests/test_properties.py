"""drfbench.properties, the property checker's core: every input kind with checks finds them
through the registry's string, each family's CHECKS is whole (its table runs on its own
random instances with its own registered methods), and the shared helpers (shortfall,
violation, the instance reader, the method wrapper) do what they say. The checks
themselves: test_drf_properties.py, test_hdrf_properties.py, test_drfh_properties.py."""
import importlib

import numpy as np
import pytest

from drfbench import api, properties

KINDS = [kind for kind, spec in api.KINDS.items() if spec.properties]


def test_the_families_declare_the_checks_of_demands_trees_and_servers():
    assert KINDS == ["demands", "servers", "tree"]          # families in name order


@pytest.mark.parametrize("kind", KINDS)
def test_checks_for_imports_the_module_the_registry_names(kind):
    checks = properties.checks_for(kind)
    assert checks is importlib.import_module(f"drfbench.{api.KINDS[kind].properties}").CHECKS
    assert checks.kind == kind and checks.method.takes == kind
    assert list(checks.names) == list(checks.checks)
    assert all(set(marks) <= set(checks.checks) for marks in checks.claims.values())


@pytest.mark.parametrize("kind", KINDS)
def test_each_family_table_runs_on_its_random_instances(kind):
    checks = properties.checks_for(kind)
    assert all(isinstance(inst, checks.instance) for inst in checks.random(3, seed=1))
    method = api.methods(takes=kind)[0]
    rows = checks.table([method], count=2, seed=0)
    assert [r["property"] for r in rows] == list(checks.checks)
    assert all(list(r) == list(checks.columns) for r in rows)
    assert all(isinstance(r["holds"], bool) and r["checked"] >= 1 for r in rows)
    verdicts = checks.check(method, checks.random(2, seed=0))
    assert list(verdicts) == list(checks.checks)
    assert all(v.method == api.method_info(method).label for v in verdicts.values())


def test_checks_for_refuses_a_kind_without_checks():
    with pytest.raises(ValueError, match="'tasks' has no property checks; kinds with some: "
                                         "demands, servers, tree"):
        properties.checks_for("tasks")
    with pytest.raises(ValueError, match="'nope' has no property checks"):
        properties.checks_for("nope")


def test_a_method_of_another_kind_is_refused():
    with pytest.raises(ValueError, match="takes servers, not tree"):
        properties.checks_for("tree").method.of("drfh")


def test_shortfall_below_what_is_owed_and_gains_above():
    got, owed = [1.0, 3.0, 0.0, 2.0, 4.0], [2.0, 3.0, 0.0, 0.0, 2.0]
    np.testing.assert_array_equal(properties.shortfall(got, owed), [0.5, 0.0, 0.0, -np.inf, -1.0])
    assert -properties.shortfall(3.0, 2.0) == 0.5            # a relative gain: 3 / 2 - 1
    assert -properties.shortfall(1.0, 0.0) == np.inf         # something where nothing was had


def test_violation_names_the_first_largest_above_tol():
    seen = []
    assert properties.violation([0.1, 0.5, 0.5], 0.2, lambda i: seen.append(i) or i) == (0.5, 1)
    assert properties.violation([0.1, 0.2], 0.2, seen.append) == (0.2, None)   # not above tol
    assert properties.violation([], 0.2, seen.append) == (0.0, None)
    assert properties.violation(3, 0.5, lambda i: "three") == (3.0, "three")     # a count
    assert seen == [1]


def test_instances_in_their_forms():
    checks = properties.checks_for("servers")
    fig1 = checks.pool("server_envy_freeness", 0)[0]
    args = (fig1.demands, fig1.servers)
    read = [list(checks.read(form)) for form in (fig1, [fig1, args], (a for a in [args]))]
    assert [len(r) for r in read] == [1, 2, 1]
    assert all(isinstance(inst, checks.instance) for r in read for inst in r)
    np.testing.assert_array_equal(read[1][1].servers, fig1.servers)
