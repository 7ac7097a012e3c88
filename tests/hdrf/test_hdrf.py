"""H-DRF and its rivals (drfbench.hdrf, drfbench/hdrf/hdrf.pyx): the tree model and its checks,
the kernel against the literal transcription of the slides' algorithm (literal.py),
incremental shares against the full recompute, at a full cluster too (kept open-sets; a
long churn is marked slow), H-DRF on a flat tree against online DRF, the slides' examples
with their numbers, the divisible mode and the simulator (the hierarchical properties:
test_hdrf_properties.py)."""
import json
import math

import numpy as np
import pytest

import drfbench
from drfbench import _isa, drf, hdrf, sim
from drfbench.hdrf import examples
from drfbench.hdrf.evaluation import EVALUATION_TREE, evaluate, jobs
from drfbench.hdrf.literal import Reference
from drfbench.hdrf.properties import random_tree
from drfbench.hdrf.tasks import METHOD_MODES, _queues
from cases import seeds

CONTRACT = {"resources": ["cpu", "mem", "gpu"],
            "children": {
                "research": {"weight": 2, "children": {
                    "train": {"demand": [4, 16, 1], "tasks": 40},
                    "eval": {"weight": 3, "demand": [1, 2, 0]}}},
                "web": {"weight": 1, "demand": [2, 4, 0], "tasks": 200}}}
METHODS = tuple(METHOD_MODES)


def reference_of(t, machines, method, tasks=None):
    mode, flat = METHOD_MODES[method]
    return Reference(t.flattened() if flat else t, machines, mode, _queues(t, tasks))


# ---------------------------------------------------------------------------------------
# The tree
# ---------------------------------------------------------------------------------------


def test_the_contract_tree():
    t = hdrf.tree(CONTRACT)
    assert t.paths == ("", "research", "web", "research/train", "research/eval")
    assert t.leaf_paths == ("research/train", "research/eval", "web")
    assert t.parent.tolist() == [-1, 0, 0, 1, 1]
    assert t.first_child.tolist() == [1, 3, -1, -1, -1]
    assert t.next_sibling.tolist() == [-1, 2, -1, 4, -1]
    assert t.depth.tolist() == [0, 1, 1, 2, 2]
    assert t.weight.tolist() == [1, 2, 1, 1, 3]                       # weight defaults to 1
    np.testing.assert_allclose(t.guarantee, [1, 2 / 3, 1 / 3, 1 / 6, 1 / 2])
    assert t.tasks.tolist() == [40, math.inf, 200]                    # tasks default to inf
    res = hdrf.schedule(CONTRACT, [[16, 64, 2]] * 4)
    assert set(res.tasks) == set(res.allocation) == set(t.leaf_paths)
    assert res.order[0] == ("research/train", 0)
    assert sum(res.tasks.values()) == len(res.order)
    np.testing.assert_allclose(res.allocation["web"], res.tasks["web"] * np.array([2, 4, 0]))
    np.testing.assert_allclose(res.free, np.array([64, 256, 8]) - sum(res.allocation.values()))


def test_tree_loads_from_yaml_and_json(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps(CONTRACT))
    (tmp_path / "t.yaml").write_text("""
resources: [cpu, mem, gpu]
children:
  research:
    weight: 2
    children:
      train: {demand: [4, 16, 1], tasks: 40}
      eval: {weight: 3, demand: [1, 2, 0]}
  web: {weight: 1, demand: [2, 4, 0], tasks: 200}
""")
    for path in (tmp_path / "t.json", str(tmp_path / "t.yaml")):
        t = hdrf.tree(path)
        assert t.leaf_paths == ("research/train", "research/eval", "web")
        assert hdrf.schedule(path, [16, 64, 2]).tasks == hdrf.schedule(CONTRACT, [16, 64, 2]).tasks


def bad(spec_change):
    spec = json.loads(json.dumps(CONTRACT))
    spec_change(spec)
    return spec


def cycle():
    spec = bad(lambda s: None)
    spec["children"]["research"]["children"]["loop"] = spec["children"]["research"]
    return spec


@pytest.mark.parametrize("spec,error", [
    (cycle(), "node 'research/loop': a cycle"),
    (bad(lambda s: s["children"]["web"].update(weight=0)), "node 'web': weight must be positive"),
    (bad(lambda s: s["children"]["research"].update(weight=-1)), "node 'research': weight must be positive"),
    (bad(lambda s: s["children"]["web"].update(demand=[2, 4])), "leaf 'web': demand has 2 entries, the tree has 3"),
    (bad(lambda s: s["children"]["web"].update(demand=[2, -4, 0])), "leaf 'web': demand must be finite and non-negative"),
    (bad(lambda s: s["children"]["web"].update(demand=[2, float("nan"), 0])), "leaf 'web': demand must be finite"),
    (bad(lambda s: s["children"]["web"].update(children={"x": {"demand": [1, 1, 1]}})), "leaf 'web': has both a demand and children"),
    (bad(lambda s: s["children"]["web"].update(tasks=2.5)), "leaf 'web': tasks must be a whole number"),
    (bad(lambda s: s["children"]["web"].update(demand=[0, 0, 0], tasks=math.inf)), "leaf 'web': tasks demanding nothing"),
    (bad(lambda s: s["children"]["research"].update(children={})), "node 'research': an inner node needs"),
    (bad(lambda s: s["children"].update({"a/b": {"demand": [1, 1, 1]}})), "node 'a/b': a name is"),
    (bad(lambda s: s["children"]["web"].update(colour="red")), "node 'web': unknown key"),
    (bad(lambda s: s.update(resources=["cpu", "cpu", "gpu"])), "resources must be a non-empty list of distinct"),
])
def test_bad_trees_are_refused_naming_the_node(spec, error):
    with pytest.raises(ValueError, match=error):
        hdrf.tree(spec)


def test_duplicate_paths_in_files_are_refused(tmp_path):
    (tmp_path / "t.yaml").write_text("resources: [cpu]\nchildren:\n  a: {demand: [1]}\n  a: {demand: [2]}\n")
    with pytest.raises(ValueError, match="duplicate key 'a'"):
        hdrf.tree(tmp_path / "t.yaml")
    (tmp_path / "t.json").write_text('{"resources": ["cpu"], "children": {"a": {"demand": [1]}, "a": {"demand": [2]}}}')
    with pytest.raises(ValueError, match="duplicate key 'a'"):
        hdrf.tree(tmp_path / "t.json")


def test_bad_runs_are_refused_and_leave_nothing_half_built():
    spec = json.loads(json.dumps(CONTRACT))
    with pytest.raises(ValueError, match="unknown method 'drf-tree'"):
        hdrf.schedule(spec, [16, 64, 2], "drf-tree")
    with pytest.raises(ValueError, match="takes tasks, not tree"):
        hdrf.schedule(spec, [16, 64, 2], "online-drf")
    with pytest.raises(ValueError, match=r"leaf 'research/train': a task <4, 16, 1> fits on no machine"):
        hdrf.schedule(spec, [[3, 64, 1], [16, 64, 0]])
    with pytest.raises(ValueError, match="must have 3 resource"):
        hdrf.schedule(spec, [16, 64])
    with pytest.raises(ValueError, match="leaf 'web': tasks must be a whole number"):
        hdrf.scheduler(spec, [16, 64, 2], tasks=[1, 2, -3])
    assert spec == CONTRACT                                  # the input is not touched


# ---------------------------------------------------------------------------------------
# The kernel against the transcription, and incremental against full recompute
# ---------------------------------------------------------------------------------------


def drive(schedulers, rng, steps):
    """The same random events on every scheduler: schedule one task (60%), release a
    running task, or add tasks to a leaf; after each schedule, the launches, the keys
    (bit for bit) and the blocked flags agree."""
    first = schedulers[0]
    running = []
    L = len(first.running)
    for _ in range(steps):
        event = rng.random()
        if event < 0.6 or not running:
            launched = [list(zip(*s.schedule(1))) for s in schedulers]
            assert all(got == launched[0] for got in launched)
            running += launched[0]
            for s in schedulers[1:]:
                assert np.array_equal(s.keys, first.keys)
                assert np.array_equal(s.node_usage, first.node_usage)
                assert np.array_equal(s.blocked, first.blocked)
        elif event < 0.85:
            leaf, machine = running.pop(int(rng.integers(len(running))))
            for s in schedulers:
                s.release(leaf, machine)
        else:
            leaf, count = int(rng.integers(L)), int(rng.choice([0, 1, 3, -1]))
            for s in schedulers:
                s.add_tasks(leaf, count)
    final = [list(zip(*s.schedule())) for s in schedulers]
    assert all(got == final[0] for got in final)
    for s in schedulers[1:]:
        assert np.array_equal(s.running, first.running)
        assert np.array_equal(s.keys, first.keys)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", seeds(40))
def test_kernel_matches_the_transcription_decision_by_decision(method, seed):
    rng = np.random.default_rng(seed)
    inst = random_tree(rng, machines=(1, 3), finite=0.4)
    t, C = inst.tree, inst.machines
    drive([hdrf.scheduler(t, C, method), reference_of(t, C, method),
           hdrf.scheduler(t, C, method, incremental=False)], rng, 60)


@pytest.mark.parametrize("seed", range(5))
def test_incremental_recomputes_less_than_the_full_recompute(seed):
    rng = np.random.default_rng(100 + seed)
    inst = random_tree(rng, levels=4, fanout=(3, 5), machines=(3, 6), room=3)
    fast = hdrf.scheduler(inst.tree, inst.machines)
    slow = hdrf.scheduler(inst.tree, inst.machines, incremental=False)
    assert list(zip(*fast.schedule())) == list(zip(*slow.schedule()))
    assert np.array_equal(fast.keys, slow.keys)
    assert fast.recomputed < slow.recomputed


def test_every_kernel_variant_decides_the_same():
    inst = random_tree(np.random.default_rng(3), levels=3, fanout=(2, 4), room=3)
    runs = [hdrf.schedule(inst.tree, inst.machines, isa=v).order for v in _isa.runnable()]
    assert all(r == runs[0] for r in runs)


# ---------------------------------------------------------------------------------------
# A full cluster: tasks finish one by one, the method fills the room (the kept open-sets)
# ---------------------------------------------------------------------------------------


def full_cluster(rng, leaves=(2, 60), machines=(1, 4), finite=0.2):
    """A random tree on a small cluster: 1-4 resources, a pool of 2-50 integer task shapes
    the leaves draw theirs from (equal shapes and weights: ties), depth 1-4, integer
    weights 1-3, unbounded queues but for `finite` of the leaves (1-9 tasks), on
    `machines` machines of two random kinds, every shape fitting on both."""
    m = int(rng.integers(1, 5))
    count = int(rng.integers(2, 51))
    pool = rng.integers(0, 7, size=(count, m))
    pool[np.arange(count), rng.integers(m, size=count)] = rng.integers(1, 7, size=count)

    def leaf():
        node = {"weight": int(rng.integers(1, 4)), "demand": pool[rng.integers(count)].tolist()}
        if rng.random() < finite:
            node["tasks"] = int(rng.integers(1, 10))
        return node

    def subtree(n, depth):
        if depth == 4 or (n == 1 and rng.random() < 0.6):
            return {f"l{j}": leaf() for j in range(n)}
        k = int(rng.integers(1, min(n, 5) + 1))
        cuts = np.sort(rng.choice(np.arange(1, n), size=k - 1, replace=False))
        parts = np.diff(np.concatenate([[0], cuts, [n]])).tolist()
        return {f"n{j}": {"weight": int(rng.integers(1, 4)), "children": subtree(part, depth + 1)}
                for j, part in enumerate(parts)}
    t = hdrf.tree({"resources": [f"r{j}" for j in range(m)],
                   "children": subtree(int(rng.integers(leaves[0], leaves[1] + 1)), 1)})
    kinds = rng.integers(8, 31, size=(2, m)).astype(float)
    return t, kinds[rng.integers(2, size=int(rng.integers(machines[0], machines[1] + 1)))]


def churn(schedulers, rng, steps, every=1):
    """From an idle cluster, `steps` times: a random running task finishes (90%), or a
    leaf gets tasks; then every scheduler launches until it launches nothing more, the
    same tasks on the same machines; every `every` steps, the keys (bit for bit), the
    usage vectors and the blocked flags agree."""
    first = schedulers[0]
    running = []
    for step in range(steps):
        if running and rng.random() < 0.9:
            leaf, machine = running.pop(int(rng.integers(len(running))))
            for s in schedulers:
                s.release(leaf, machine)
        elif step:
            leaf, count = int(rng.integers(len(first.running))), int(rng.choice([1, 3, -1]))
            for s in schedulers:
                s.add_tasks(leaf, count)
        launched = [list(zip(*s.schedule())) for s in schedulers]
        assert all(got == launched[0] for got in launched), f"step {step}"
        running += launched[0]
        if step % every == 0:
            for s in schedulers[1:]:
                assert np.array_equal(s.keys, first.keys), f"step {step}"
                assert np.array_equal(s.node_usage, first.node_usage), f"step {step}"
                assert np.array_equal(s.blocked, first.blocked), f"step {step}"


@pytest.mark.parametrize("method,seed", [("hdrf", s) for s in range(12)]
                         + [(p, s) for p in METHODS[1:] for s in range(2)])
def test_a_full_cluster_decides_as_the_transcription(method, seed):
    """Few kept sets (1, 2: evicted all the time) or many, against the transcription and
    the full recompute; shares compared at every step, or every 5 (settled only when a
    decision needs them)."""
    rng = np.random.default_rng(seed)
    t, C = full_cluster(rng)
    churn([hdrf.scheduler(t, C, method), reference_of(t, C, method),
           hdrf.scheduler(t, C, method, sets=1), hdrf.scheduler(t, C, method, sets=2),
           hdrf.scheduler(t, C, method, incremental=False)], rng, 120, every=1 + 4 * (seed % 2))


def test_kept_sets_are_reused_bounded_and_evicted():
    rng = np.random.default_rng(7)
    t, C = full_cluster(rng, leaves=(400, 400), machines=(30, 30), finite=0.0)
    fast, few = hdrf.scheduler(t, C), hdrf.scheduler(t, C, sets=3)
    slow = hdrf.scheduler(t, C, incremental=False)
    churn([slow, fast, few], rng, 4000, every=50)
    assert fast.sets_kept == fast.sets_built + 1 <= fast.sets        # nothing evicted
    assert fast.sets_reused > 10 * fast.sets_built
    assert few.sets_kept == 3 and few.sets_built > fast.sets_built   # evicted, rebuilt
    assert fast.recomputed < slow.recomputed / 20
    assert fast.set_bytes * fast.sets <= 64 * 2**20 and few.sets == 3


@pytest.mark.parametrize("sets,error", [(0, ValueError), (-2, ValueError), (1.5, TypeError),
                                        (True, TypeError)])
def test_sets_must_be_a_positive_integer(sets, error):
    with pytest.raises(error, match=r"sets must (be a positive integer|lie in \[1, 1024\])"):
        hdrf.scheduler(CONTRACT, [16, 64, 2], sets=sets)


@pytest.mark.parametrize("method", METHODS)
def test_the_kernel_and_the_transcription_name_their_launches(method):
    """Both fill kernel.Launches, the same launches; hdrf.scheduler reaches either through
    the registry's options."""
    machines = [[16.0, 64, 2]]
    kernel, literal = (hdrf.scheduler(CONTRACT, machines, method, literal=lit).schedule()
                       for lit in (False, True))
    assert kernel._fields == literal._fields == ("leaves", "machines")
    assert kernel.leaves.tolist() == literal.leaves.tolist() and kernel.leaves.size
    with pytest.raises(ValueError, match=f"method '{method}' takes no option slots"):
        hdrf.scheduler(CONTRACT, machines, method, slots=2)


def test_the_kernel_refuses_a_mode_outside_modes():
    """The kernel reads each method's rule from a table indexed by its mode."""
    kernels = _isa.kernels().hdrf
    t = hdrf.tree(CONTRACT)
    shapes, shape = np.unique(t.demand, axis=0, return_inverse=True)
    inputs = dict(parent=t.parent, first_child=t.first_child, next_sibling=t.next_sibling,
                  weight=t.weight, guarantee=t.guarantee, leaves=t.leaves, demand=t.demand,
                  shape=shape.reshape(-1), shapes=shapes, queued=_queues(t, None),
                  capacity=np.array([[16.0, 64, 2]]))
    assert kernels.TreeScheduler(**inputs, mode=kernels.MODES["capacity-pareto"]).schedule()[0].size
    for mode in (-1, len(kernels.MODES)):
        with pytest.raises(ValueError, match=f"mode must be a value of MODES, got {mode}"):
            kernels.TreeScheduler(**inputs, mode=mode)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_a_long_churn_decides_as_the_transcription(seed):
    """100,000 release-and-launch steps in all (20,000 per tree), H-DRF."""
    rng = np.random.default_rng(1000 + seed)
    t, C = full_cluster(rng, leaves=(2, 16), machines=(1, 3))
    churn([hdrf.scheduler(t, C), reference_of(t, C, "hdrf"), hdrf.scheduler(t, C, sets=2)],
          rng, 20_000, every=100)


def wide_tree(rng, leaves, inner, machines, room):
    """`leaves` leaves under the root beside `inner` inner nodes (weight 100) of `leaves`
    // 2 leaves each: every leaf of weight 1-2 with one of three shapes (ties), 1-3 tasks
    or, one in five, unbounded; `machines` machines of `room` of each of two resources."""
    pool = [[1, 2], [2, 1], [1, 1]]

    def leaf():
        node = {"weight": int(rng.integers(1, 3)), "demand": pool[rng.integers(3)]}
        if rng.random() < 0.8:
            node["tasks"] = int(rng.integers(1, 4))
        return node
    children = {f"l{j}": leaf() for j in range(leaves)}
    children.update({f"n{k}": {"weight": 100, "children": {
        f"l{j}": leaf() for j in range(leaves // 2)}} for k in range(inner)})
    return hdrf.tree({"resources": ["cpu", "mem"], "children": children}), \
        np.full((machines, 2), float(room))


@pytest.mark.parametrize("method", METHODS)
def test_a_flat_tree_of_many_leaves_decides_as_the_transcription(method):
    """1,000 leaves under the root, most of them never launched (equal keys: the first
    wins), from an idle cluster to a full one, then releases (issue 34: the kernel picks
    a child through tournaments, not a scan)."""
    rng = np.random.default_rng(34)
    t, C = wide_tree(rng, 1000, 0, 1, 150)
    churn([hdrf.scheduler(t, C, method), reference_of(t, C, method),
           hdrf.scheduler(t, C, method, sets=1)], rng, 6)


@pytest.mark.parametrize("method", METHODS)
def test_leaves_beside_inner_nodes_decide_as_the_transcription(method):
    """130 leaves under the root beside two inner nodes of 65, on a cluster where the
    capacity methods launch within the guarantees and beyond them."""
    rng = np.random.default_rng(35)
    t, C = wide_tree(rng, 130, 2, 12, 30)
    churn([hdrf.scheduler(t, C, method), reference_of(t, C, method),
           hdrf.scheduler(t, C, method, incremental=False)], rng, 12, every=3)


@pytest.mark.parametrize("method", ["capacity", "capacity-pareto"])
def test_a_leaf_within_its_guarantee_under_a_full_parent_is_passed_over(method):
    """Small trees (leaves beside inner nodes of 2-3 leaves, three shapes) at a full
    cluster: the capacity methods' search passes over a leaf within its own guarantee
    whose parent would go past its own, as the transcription does (a fallback launch
    took the parent past it: capacity-pareto at seeds 1 and 15)."""
    for seed in range(40):
        rng = np.random.default_rng(seed)
        pool = rng.integers(1, 4, size=(3, 2)).tolist()

        def leaf():
            node = {"weight": int(rng.integers(1, 4)), "demand": pool[rng.integers(3)]}
            if rng.random() < 0.5:
                node["tasks"] = int(rng.integers(1, 6))
            return node
        children = {f"l{j}": leaf() for j in range(int(rng.integers(1, 4)))}
        children.update({f"n{k}": {"weight": int(rng.integers(1, 4)), "children": {
            f"l{j}": leaf() for j in range(int(rng.integers(2, 4)))}}
            for k in range(int(rng.integers(1, 3)))})
        t = hdrf.tree({"resources": ["cpu", "mem"], "children": children})
        C = np.full((int(rng.integers(1, 3)), 2), float(rng.integers(8, 17)))
        churn([hdrf.scheduler(t, C, method), reference_of(t, C, method)],
              np.random.default_rng(seed), 30)


@pytest.mark.parametrize("method", ["capacity", "capacity-pareto"])
def test_a_wide_nodes_leaf_within_its_guarantee_is_passed_over_if_its_parent_is_full(method):
    """n (64 leaves: a tournament picks among them) holds 128 of its 128 CPU guarantee
    (capacity-pareto's fallback took it to 130); b, within its own guarantee of 2, has a
    task of 1 CPU again: the search passes it over, and the fallback takes c, of the same
    key 0 and the lower id. (Capacity, with no fallback, left n at 124 then: b.)"""
    leaves = {"c": {"demand": [0, 5], "tasks": 0}, "b": {"demand": [1, 0], "tasks": 2}}
    leaves.update({f"o{j}": {"demand": [2, 0], "tasks": 2} for j in range(2)})
    leaves.update({f"f{j}": {"demand": [2, 0], "tasks": 1} for j in range(60)})
    t = hdrf.tree({"resources": ["cpu", "mem"], "children": {
        "x": {"demand": [1, 1], "tasks": 100}, "n": {"children": leaves}}})
    C = [[256.0, 256.0]]
    b, c = t.leaf_paths.index("n/b"), t.leaf_paths.index("n/c")
    runs = []
    for s in (hdrf.scheduler(t, C, method), reference_of(t, C, method)):
        first = list(zip(*s.schedule()))
        for leaf, machine in [(leaf, k) for leaf, k in first if leaf == b]:
            s.release(leaf, machine)
        s.add_tasks(c, 1)
        s.add_tasks(b, 1)
        runs.append((first, list(zip(*s.schedule(1)))))
    assert runs[0] == runs[1]
    assert runs[0][1] == [(c if method == "capacity-pareto" else b, 0)]


# ---------------------------------------------------------------------------------------
# H-DRF on a flat tree is online DRF
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", seeds(150))
def test_hdrf_on_a_flat_tree_is_online_drf(seed):
    rng = np.random.default_rng(seed)
    n, m, M = int(rng.integers(1, 8)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    D = rng.integers(0, 6, size=(n, m)).astype(float)
    D[np.arange(n), rng.integers(m, size=n)] = rng.integers(1, 6, size=n)
    C = rng.integers(6, 25, size=(M, m)).astype(float)
    w = rng.integers(1, 4, size=n).astype(float)
    tasks = rng.choice([1, 3, 10, np.inf], size=n)
    tree = {"resources": [f"r{j}" for j in range(m)],
            "children": {f"u{i}": {"weight": w[i], "demand": D[i].tolist(),
                                   **({} if np.isinf(tasks[i]) else {"tasks": int(tasks[i])})}
                         for i in range(n)}}
    fractions = hdrf.tree(tree).guarantee[1:]                # flattening's weights: w / sum w
    for method, weights in (("hdrf", w), ("static-hdrf", w), ("flatten", fractions)):
        expected = drf.online_drf(D, C, weights=weights, tasks=tasks)
        got = hdrf.schedule(tree, C, method)
        assert got.order == [(f"u{i}", k) for i, k in zip(expected.order_users.tolist(),
                                                         expected.order_machines.tolist())]


# ---------------------------------------------------------------------------------------
# The slides' examples, with their numbers
# ---------------------------------------------------------------------------------------


def outcome(name, method):
    ex = next(e for e in examples.EXAMPLES if e.name == name)
    tasks, t, s = examples.run(ex, method)
    return tasks, s


def test_flattening_violates_the_hierarchical_share_guarantee():
    """<100 CPU, 100 GPU>; n1 = {n11 <1 CPU>, n12 <1 GPU>}, n2 = {n21 <1 CPU, 1 GPU>}:
    flattening weights the leaves 1/4, 1/4, 1/2, so n2 gets twice each of n1's leaves,
    and n1 ends at a dominant share of 0.34 < its guarantee 0.5."""
    tasks, _ = outcome("flattening", "flatten")
    assert tasks == {"n1/n11": 34, "n1/n12": 34, "n2/n21": 66}
    for method in ("hdrf", "static-hdrf"):
        assert outcome("flattening", method)[0] == {"n1/n11": 50, "n1/n12": 50, "n2/n21": 50}


def test_naive_hierarchical_drf_starves_and_hdrf_does_not():
    """n12 <1 GPU> runs 80 tasks alone, then n11 and n21 (<1 CPU> each) and n12 want
    more. On raw usage n1 is 80% full: n21 takes 80 CPUs, n11 gets 20. H-DRF rescales n12
    to n11's share (0): 50 CPUs each, and n12 then fills the 20 GPUs left."""
    assert outcome("rescaling", "naive-hdrf")[0] == {"n1/n11": 20, "n1/n12": 80, "n2/n21": 80}
    assert outcome("rescaling", "static-hdrf")[0] == {"n1/n11": 20, "n1/n12": 100, "n2/n21": 80}
    assert outcome("rescaling", "hdrf")[0] == {"n1/n11": 50, "n1/n12": 100, "n2/n21": 50}


def test_used_up_resources_starve_without_ignoring_blocked_nodes():
    """n12 first takes all 100 GPUs: on raw usage n1 is full, and n11 gets no CPU at all;
    H-DRF leaves the used-up GPUs out of the shares and splits the CPUs evenly."""
    for method in ("naive-hdrf", "static-hdrf"):
        assert outcome("blocked", method)[0] == {"n1/n11": 0, "n1/n12": 100, "n2/n21": 100}
    tasks, s = outcome("blocked", "hdrf")
    assert tasks == {"n1/n11": 50, "n1/n12": 100, "n2/n21": 50}
    assert s.exhausted.tolist() == [True, True]


def test_naive_hierarchical_drf_leaves_resources_idle():
    """a <3 CPU>, b <1 CPU> on two machines of <4 CPU>: after a, b, b, b the lowest share
    is a's, whose task fits nowhere; naive DRF waits for it with 2 CPUs idle, H-DRF skips
    the blocked node and gives them to b."""
    tasks, s = outcome("reservation", "naive-hdrf")
    assert tasks == {"a": 1, "b": 3} and s.usage.sum() == 6
    tasks, s = outcome("reservation", "hdrf")
    assert tasks == {"a": 1, "b": 5} and s.usage.sum() == 8


@pytest.mark.parametrize("method", METHODS)
def test_the_slides_drf_example_gives_each_user_60_percent(method):
    """<100 CPU, 100 GPU>, u1 <3 CPU, 2 GPU>, u2 <2 CPU, 3 GPU>: DRF's dominant shares are
    60% each (20 tasks each: 60 CPUs and 40 GPUs, 40 and 60), under every tree method but
    the capacity scheduler, which stops each user at its half of the dominant resource."""
    tasks, s = outcome("drf", method)
    if method == "capacity":
        assert tasks == {"u1": 16, "u2": 16}
    else:
        assert tasks == {"u1": 20, "u2": 20} and s.usage.sum(axis=0).tolist() == [100, 100]


def test_example_rows_cover_every_policy_and_node():
    rows = examples.example_rows(METHODS)
    assert {r["method"] for r in rows} == set(METHODS)
    flat = {r["node"]: r for r in rows if r["example"] == "flattening" and r["method"] == "flatten"}
    assert flat["n1"]["share"] == pytest.approx(0.34) and flat["n1"]["guarantee"] == 0.5


# ---------------------------------------------------------------------------------------
# Divisible mode
# ---------------------------------------------------------------------------------------


def test_divisible_flattening_is_weighted_drf():
    t = hdrf.tree(examples.EXAMPLES[0].tree)
    A = hdrf.allocate(t, [100, 100], "flatten", resolution=2000)
    D = t.demand / 100.0
    expected = drf.drf(D, t.guarantee[t.leaves]) * 100.0
    got = np.array([A[p] for p in t.leaf_paths])
    np.testing.assert_allclose(got, expected, atol=100 / 2000 + 1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_divisible_allocations_are_feasible_and_hdrf_keeps_its_guarantees(seed):
    inst = random_tree(np.random.default_rng(seed), machines=(1, 1))
    capacity = inst.machines[0]
    for method in METHODS:
        A = hdrf.allocate(inst.tree, capacity, method, resolution=500)
        used = sum(A.values())
        assert (used <= capacity * (1 + 1e-9)).all()
    A = np.array(list(hdrf.allocate(inst.tree, capacity, "hdrf", resolution=2000).values()))
    t = inst.tree
    share = (t.subtree_sums(A) / capacity).max(axis=1)
    wants = np.isinf(t.tasks) | ((A / np.maximum(t.demand, 1e-300)).max(axis=1) < t.tasks - 1e-9)
    waiting = t.subtree_sums(wants) > 0
    slack = len(t.leaves) * 2 / 2000                          # one quantum of each leaf
    assert (share[waiting] >= t.guarantee[waiting] - slack).all()


# ---------------------------------------------------------------------------------------
# On the simulator: tasks finish, nodes unblock, new jobs arrive
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_the_simulator_drives_the_kernel_as_it_drives_the_transcription(method):
    t = hdrf.tree(EVALUATION_TREE)
    machines = np.tile([4.0, 6.0, 1.0], (6, 1))
    trace, _, _ = jobs(t, 12, 0.3, 300.0, seed=2)
    zero = np.zeros(len(t.leaves))
    fast = sim.simulate(machines, trace, hdrf.scheduler(t, machines, method, tasks=zero))
    slow = sim.simulate(machines, trace, reference_of(t, machines, method, tasks=zero))
    for column in ("machine", "start", "end"):
        np.testing.assert_array_equal(fast.tasks[column], slow.tasks[column])
    assert np.isfinite(fast.jobs["finish"]).all()


def test_the_evaluation_rows():
    t = hdrf.tree(EVALUATION_TREE)
    machines = np.tile([4.0, 6.0, 1.0], (10, 1))
    trace, leaf, large = jobs(t, 20, 0.2, 600.0, seed=0)
    assert len(leaf) == len(large) == 20
    throughput, summary = evaluate(t, machines, trace, ["hdrf", "capacity"], sample=30.0,
                                   window=60.0)
    assert {r["leaf"] for r in throughput} == set(t.leaf_paths)
    by = {r["method"]: r for r in summary}
    assert by["hdrf"]["waiting_fits_fraction"] == 0.0            # work-conserving
    assert by["capacity"]["waiting_fits_fraction"] > 0.0          # capped at the guarantees
    assert by["hdrf"]["jobs_finished"] == 20


def test_the_registry_lists_the_tree_policies():
    assert drfbench.methods(family="hdrf") == METHODS
    assert drfbench.methods(takes="tree") == METHODS
    with pytest.raises(ValueError, match="takes tree"):
        drfbench.allocate([[0.5]], "hdrf")


def test_cli_writes_every_step(tmp_path):
    from drfbench import rows
    from drfbench.hdrf.__main__ import main
    main(["examples", "--out", str(tmp_path / "e.csv"), "--methods", "hdrf", "flatten"])
    main(["properties", "--out", str(tmp_path / "p.csv"), "--instances", "3"])
    main(["evaluate", "--out", str(tmp_path / "t.csv"), "--summary", str(tmp_path / "s.csv"),
          "--machines", "5", "--jobs", "6", "--span", "100", "--sample", "30", "--window", "60",
          "--methods", "hdrf"])
    main(["scale", "--out", str(tmp_path / "a.csv"), "--fanout", "3", "--machines", "4",
          "--tasks", "500", "--span", "60", "--methods", "hdrf", "static-hdrf"])
    for name in ("e", "p", "t", "s", "a"):
        table = rows.read(tmp_path / f"{name}.csv")
        assert len(table) and table["git_commit"].notna().all()
    scale = rows.read(tmp_path / "a.csv")
    assert scale["tasks_finished"].tolist() == [500, 500] and (scale["leaves"] == 81).all()


def test_the_trace_at_scale():
    from drfbench.hdrf.evaluation import scale_jobs, scale_tree
    t = scale_tree(fanout=3)
    trace = scale_jobs(t, 1000, 100.0, seed=4)
    assert len(trace) == 1000 and trace.users == len(t.leaves) == 81
    sizes = np.bincount(trace.job)
    assert sizes[:-1].min() >= 5 and sizes.max() <= 50 and sizes.sum() == 1000
    np.testing.assert_array_equal(trace.demands, t.demand[trace.user])
    assert (np.diff(trace.arrival) >= 0).all() and trace.arrival.max() < 100.0
