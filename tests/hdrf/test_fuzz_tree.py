"""The fuzz suite for the tree input kind (drfbench.hdrf: tree, schedule, allocate, the
H-DRF property checks, the tree file reader): arbitrary hierarchies, of the right and the
wrong shape, either give a run that respects the machines' capacities, the leaves' task
counts and the literal transcription (hdrf/literal.py), or a ValueError/TypeError
(tests/fuzz.py); and the issue's worst cases."""
import json
import math
import tempfile
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pandas as pd

import fuzz
from drfbench import _validation as check
from drfbench._validation import MAX_WEIGHT_RATIO
from drfbench import hdrf
from drfbench.hdrf import properties as props
from drfbench.hdrf.tasks import METHOD_MODES
from drfbench.hdrf.tree import MAX_DEPTH, read_inputs
from test_hdrf import reference_of

FUZZED = ("tree",)   # the input kinds this module fuzzes (tests/test_families.py)

WEIGHTS = st.sampled_from([1, 2, 3, 0.5, 1e-300, 1e-320, 1e7, 1e10, 1e300, 0, -1, float("nan"),
                           float("inf"), 10**400, "2", True])
DEMANDS = st.sampled_from([0, 1, 2, 4, 0.5, 1e-300, 1e300, -1, float("nan"), float("inf")])
TASKS = st.sampled_from([0, 1, 3, 15, float("inf"), 2.5, -1, 1e30, 2**62, 2**63, 10**400,
                         "3"])
NAMES = st.sampled_from(["a", "b", "c", "d", "e/f", ""])


def trees(m):
    """A tree's spec with `m` resources: mostly valid small nodes (integer weights and
    demands), some values from the bounds' edges, some wrong shapes."""
    weight = st.one_of(st.integers(1, 3), st.integers(1, 3), WEIGHTS)
    demand = st.one_of(st.lists(st.integers(0, 4), min_size=m, max_size=m),
                       st.lists(st.integers(1, 4), min_size=m, max_size=m),
                       st.lists(DEMANDS, min_size=m, max_size=m),
                       st.lists(st.integers(0, 4), max_size=m + 1), st.just("cpu"))
    leaf = st.fixed_dictionaries({"demand": demand},
                                 optional={"weight": weight,
                                           "tasks": st.one_of(st.integers(0, 15), TASKS)})
    odd = st.sampled_from([{}, {"colour": 1}, {"demand": [1] * m, "children": {"x": {}}},
                           {"tasks": 3}, [1, 2]])

    def inner(children):
        return st.fixed_dictionaries({"children": st.dictionaries(NAMES, children, min_size=1,
                                                                  max_size=3)},
                                     optional={"weight": weight})
    nodes = st.recursive(st.one_of(leaf, leaf, leaf, odd), inner, max_leaves=8)
    return st.fixed_dictionaries({
        "resources": st.just([f"r{j}" for j in range(m)]),
        "children": st.dictionaries(NAMES, nodes, min_size=1, max_size=3)})


SPECS = st.integers(1, 3).flatmap(lambda m: st.tuples(
    trees(m),
    st.one_of(st.lists(st.lists(st.sampled_from([8.0, 16.0, 40.0]), min_size=m, max_size=m),
                       min_size=1, max_size=3),
              st.lists(st.lists(st.sampled_from([8.0, 0.0, 1e300, -1.0, float("nan")]),
                                min_size=m, max_size=m), min_size=1, max_size=2),
              st.just([[8.0] * (m + 1)]), st.just([[8.0], [8.0, 8.0]]),
              st.permutations([f"r{j}" for j in range(m)]).map(
                  lambda names: pd.DataFrame([[8.0 * (j + 1) for j in range(m)]],
                                             columns=names)))))


def schedule_tree(spec, machines, method, options):
    """The run, the validated tree and machines (in the tree's resource order)."""
    res = hdrf.schedule(spec, machines, method, **options)
    t = hdrf.tree(spec)
    return res, t, check.machines(machines, len(t.resources), resources=t.resources)


@fuzz.cases(cluster=SPECS, method=st.sampled_from([*METHOD_MODES, "online-drf"]),
            tasks=st.one_of(st.none(), st.none(), st.lists(TASKS, min_size=1, max_size=4)),
            incremental=st.sampled_from([True, False, "yes"]),
            sets=st.sampled_from([None, 1, 4, 0, 10**9, 2**70]))
def test_schedule(cluster, method, tasks, incremental, sets):
    spec, machines = cluster
    options = {"tasks": tasks, "incremental": incremental, "sets": sets}
    outcome = fuzz.call(schedule_tree, spec, machines, method, options)
    if outcome.refused:
        return
    res, t, C = outcome.value
    launched = np.array([res.tasks[p] for p in t.leaf_paths], dtype=float)
    limit = t.tasks if tasks is None else np.asarray(tasks, dtype=float)
    assert (launched <= limit).all()
    assert all(np.isfinite(v) for v in res.shares.values()) and np.isfinite(res.free).all()
    used = np.zeros_like(C)
    leaf = {p: i for i, p in enumerate(t.leaf_paths)}
    for path, k in res.order:
        used[k] += t.demand[leaf[path]]
    assert (used <= C * (1 + 1e-12)).all()
    if launched.sum() <= 300:
        ref = reference_of(t, C, method, tasks)
        leaves, where = ref.schedule()
        assert res.order == [(t.leaf_paths[i], k) for i, k in zip(leaves.tolist(), where.tolist())]


def allocate_tree(spec, capacity, method, resolution):
    """The divisible allocation and the pool (in the tree's resource order)."""
    out = hdrf.allocate(spec, capacity, method, resolution=resolution)
    t = hdrf.tree(spec)
    return out, check.machines(capacity, len(t.resources), resources=t.resources)[0]


@fuzz.cases(cluster=SPECS, method=st.sampled_from(list(METHOD_MODES)),
            resolution=st.sampled_from([1, 10, 100, 0, 10**7, 2.5]))
def test_allocate(cluster, method, resolution):
    spec, machines = cluster
    capacity = machines[0] if isinstance(machines, list) else machines
    outcome = fuzz.call(allocate_tree, spec, capacity, method, resolution)
    if outcome.refused:
        return
    allocation, pool = outcome.value
    total = sum(allocation.values())
    assert np.isfinite(total).all() and (total <= pool * (1 + 1e-9)).all()


@fuzz.cases(cluster=SPECS, name=st.sampled_from(sorted(props.CHECKS.checks)))
def test_property_checks(cluster, name):
    spec, machines = cluster
    outcome = fuzz.call(props.CHECKS.checks[name], "hdrf", [(spec, machines)])
    if outcome.refused:
        return
    assert math.isfinite(outcome.value.worst) and outcome.value.checked <= 1


@fuzz.cases(cluster=SPECS, form=st.sampled_from(["json", "yaml", "yml"]))
def test_tree_files(cluster, form):
    spec, machines = cluster
    try:
        text = json.dumps(spec)                         # JSON is YAML too
    except (TypeError, ValueError):                     # 10**400: not JSON
        return
    rows = machines if isinstance(machines, list) else machines.to_numpy().tolist()
    names = spec["resources"] if isinstance(machines, list) else list(machines.columns)
    with tempfile.TemporaryDirectory() as folder:
        path, table = Path(folder, f"tree.{form}"), Path(folder, "machines.csv")
        path.write_text(text)
        table.write_text(",".join(names) + "\n" + "\n".join(",".join(map(str, r)) for r in rows))
        outcome = fuzz.call(read_inputs, str(path), str(table))
    if outcome.refused:
        assert str(path) in str(outcome.error) or str(table) in str(outcome.error)
        return
    t, C = outcome.value
    assert t.leaf_paths == hdrf.tree(spec).leaf_paths and C.shape[1] == len(t.resources)


# ---------------------------------------------------------------------------------------
# The worst cases
# ---------------------------------------------------------------------------------------

def leaves(**b):
    return {"resources": ["cpu", "mem"], "children": {"a": {"demand": [1, 1]},
                                                      "b": {"demand": [1, 2], **b}}}


def deep(levels):
    node = {"demand": [1]}
    for k in range(levels):
        node = {"children": {f"n{k}": node}}
    return {"resources": ["cpu"], **node}


def test_task_counts_must_fit_their_integer_type():
    fuzz.refused(hdrf.tree, leaves(tasks=1e30), match="leaf 'b': tasks must be a whole number >= 0, "
                                                 "at most 4611686018427387904")
    fuzz.refused(hdrf.schedule, leaves(), [4, 4], tasks=[1, 2**63], match="leaf 'b': tasks must be")
    fuzz.refused(hdrf.tree, leaves(tasks=10**400), match="node 'b': tasks is too large (401 digits")
    assert fuzz.call(hdrf.schedule, leaves(tasks=2**62), [4, 4]).value.tasks == {"a": 2, "b": 1}


def test_a_leaf_demanding_nothing_needs_a_task_count():
    spec = leaves(demand=[0, 0], tasks=1)
    fuzz.refused(hdrf.schedule, spec, [4, 4], tasks=[1, math.inf], match="leaf 'b': tasks demanding "
                                                                    "nothing")
    assert fuzz.call(hdrf.schedule, spec, [4, 4], tasks=[1, 3]).value.tasks == {"a": 1, "b": 3}
    fuzz.refused(hdrf.schedule, spec, [4, 4], tasks=[1, 2**62], match="beyond the work budget")
    fuzz.refused(hdrf.schedule, leaves(demand=[1e-300, 0]), [4, 4], match="beyond the work budget")
    fuzz.refused(hdrf.allocate, leaves(), [4, 4], resolution=2**62, match="resolution must be at most")


def test_trees_deeper_than_the_bound_are_refused_naming_the_depth(tmp_path):
    assert fuzz.call(hdrf.tree, deep(MAX_DEPTH)).value.depth.max() == MAX_DEPTH
    fuzz.refused(hdrf.tree, deep(MAX_DEPTH + 1), match=f"deeper than {MAX_DEPTH} levels")
    for levels, match in ((MAX_DEPTH + 1, f"deeper than {MAX_DEPTH} levels"),
                          (2000, "nested too deeply")):
        text = '{"resources": ["cpu"], ' + '"children": {"n": {' * levels + '"demand": [1]' + \
            "}}" * levels + "}"
        for form in ("json", "yaml"):
            path = tmp_path / f"t{levels}.{form}"
            path.write_text(text)
            assert str(path) in str(fuzz.refused(hdrf.tree, str(path), match=match))


def test_weights_keep_every_share_finite():
    fuzz.refused(hdrf.tree, leaves(weight=1e-320), match="node 'b': weight must lie in")
    heavy = 10 * MAX_WEIGHT_RATIO
    fuzz.refused(hdrf.tree, leaves(weight=heavy), match=f"node 'b': weight {heavy:g} is more than "
                                                   f"{MAX_WEIGHT_RATIO:g} times its sibling 'a''s")
    chain = {"demand": [1]}
    for k in range(60):                     # guarantees below 1e-6 ** 60: below the floor
        chain = {"children": {"light": {"weight": 1, **chain}, "heavy": {"weight": 1e6,
                                                                         "demand": [1]}}}
    fuzz.refused(hdrf.tree, {"resources": ["cpu"], **chain}, match="is below 1e-300")


def test_machines_are_matched_by_the_trees_resource_names():
    spec = {"resources": ["cpu", "mem"], "children": {"a": {"demand": [1, 4]},
                                                      "b": {"demand": [3, 1]}}}
    by_name = fuzz.call(hdrf.schedule, spec, pd.DataFrame({"mem": [18.0], "cpu": [9.0]}),
                        "flatten").value
    assert by_name.tasks == fuzz.call(hdrf.schedule, spec, [9, 18], "flatten").value.tasks
    assert by_name.tasks == {"a": 3, "b": 2}              # the lecture's <9 CPU, 18 GB>
    named = fuzz.call(props.tree_pareto_efficiency, "flatten",
                      [(spec, pd.DataFrame({"mem": [18.0], "cpu": [9.0]}))]).value
    assert named.checked == 1 and named.holds
    fuzz.refused(hdrf.schedule, spec, pd.DataFrame({"gpu": [1.0], "cpu": [9.0]}),
            match="must name the same ones")
    fuzz.refused(hdrf.schedule, spec, pd.DataFrame([[9, 18]], columns=[1, 0]), match="column labels")


def test_ragged_machines_are_refused_naming_them():
    fuzz.refused(hdrf.schedule, leaves(), [[1, 2], [3]], match="machines")


# ---------------------------------------------------------------------------------------
# YAML as people write it (issue 34): 1.2's core schema, merge keys, alias bombs
# ---------------------------------------------------------------------------------------

# names YAML 1.1 read as booleans, null, numbers or dates: as keys, names as written
YAML_NAMES = ["yes", "no", "on", "off", "y", "n", "null", "~", "true", "0x10", "010",
              "2024-01-01", "1:30", "1e3", "007", "7", "a"]
# values as written -> the number 1.2's core schema reads (None: text, refused)
YAML_NUMBERS = {"1": 1, "2": 2, "010": 10, "0o10": 8, "0x2": 2, "1e3": 1000, "1.5": 1.5,
                ".5": 0.5, "1:30": None, "yes": None, "on": None, "0b10": None}
# task counts as written -> the count read (None: refused)
YAML_COUNTS = {"1": 1, "010": 10, "0o10": 8, "0x10": 16, "1e3": 1000, ".inf": math.inf,
               "1:30": None, "yes": None, "0b10": None}


@st.composite
def yaml_trees(draw):
    """(text, names, weights, tasks, bomb): a tree file in block style, leaves named and
    valued by YAML 1.1's special scalars, the first leaf an anchor the others may merge
    (`<<: *base`, overriding the weight), and maybe an alias bomb of `bomb` levels of 9."""
    names = draw(st.lists(st.sampled_from(YAML_NAMES), min_size=1, max_size=4, unique=True))
    weights = [draw(st.sampled_from(sorted(YAML_NUMBERS))) for _ in names]
    tasks = draw(st.sampled_from(sorted(YAML_COUNTS)))
    merge = draw(st.booleans())
    lines = ["resources: [cpu, mem]", "children:"]
    for i, (name, weight) in enumerate(zip(names, weights)):
        if i == 0:
            lines.append(f"  {name}: &base {{demand: [1, 1], tasks: {tasks}, weight: {weight}}}")
        elif merge:
            lines.append(f"  {name}: {{<<: *base, weight: {weight}}}")
        else:
            lines.append(f"  {name}: {{demand: [1, 1], tasks: {tasks}, weight: {weight}}}")
    bomb = draw(st.sampled_from([0, 0, 3, 8, 9]))
    if bomb:
        lines.append("  bomb:\n    demand: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1]")
        lines += [f"    tasks: &l{k} [{', '.join([f'*l{k - 1}'] * 9)}]" if k == 1 else
                  f"    weight{k}: &l{k} [{', '.join([f'*l{k - 1}'] * 9)}]"
                  for k in range(1, bomb)]
    return "\n".join(lines) + "\n", names, weights, tasks, bomb


@fuzz.cases(yaml_trees())
def test_yaml_as_people_write_it(case):
    """Names stay names as written; 010 is 10, 1e3 a number, 1:30 and yes text (refused as
    a weight); a merge brings the anchor's keys and its own override them; a bomb
    expanding past MAX_NODES is refused before it is built, naming the file."""
    text, names, weights, tasks, bomb = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "tree.yaml")
        path.write_text(text)
        outcome = fuzz.call(hdrf.tree, str(path))
    if bomb and 9 ** bomb > check.MAX_NODES:
        assert outcome.refused and "expands to more than" in str(outcome.error)
    if outcome.refused:
        assert str(path) in str(outcome.error)
        assert bomb or YAML_COUNTS[tasks] is None or None in map(YAML_NUMBERS.get, weights)
        return
    assert not bomb
    t = outcome.value
    assert t.leaf_paths == tuple(names)
    assert t.weight[1:].tolist() == [YAML_NUMBERS[w] for w in weights]
    assert t.tasks.tolist() == [YAML_COUNTS[tasks]] * len(names)
