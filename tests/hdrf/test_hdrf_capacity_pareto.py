"""Why `capacity-pareto` and `static-hdrf` give the same schedule, task for task, in the
H-DRF evaluation (reference/default/hdrf/hdrf_summary.csv; issue 36): not a dispatch that
skips the capacity search, but the workload. Capacity with Pareto fill launches first a
leaf below its capacity guarantee, then fills as static H-DRF does; in the evaluation,
whenever such a leaf has a task that fits, static H-DRF picks that leaf too. A trace where
a leaf's sibling holds its parent's share (infer every GPU) while it waits below its
guarantee (train) tells them apart."""
import numpy as np

from drfbench import sim
from drfbench.hdrf import evaluation
from drfbench.hdrf.tasks import scheduler
from drfbench.hdrf.tree import tree as as_tree

TREE = as_tree(evaluation.EVALUATION_TREE)
MACHINES = np.tile([4.0, 6.0, 1.0], (50, 1))


def tasks(trace, method):
    return sim.simulate(MACHINES, trace, scheduler(TREE, MACHINES, method,
                                                   tasks=np.zeros(len(TREE.leaves)))).tasks


def test_the_evaluation_gives_both_the_same_schedule():
    trace, _, _ = evaluation.jobs(evaluation.EVALUATION_TREE, 100, 0.2, 1200.0, 0)
    static, pareto = tasks(trace, "static-hdrf"), tasks(trace, "capacity-pareto")
    assert np.array_equal(static["start"], pareto["start"], equal_nan=True)
    assert np.array_equal(static["machine"], pareto["machine"])


def test_a_leaf_below_its_guarantee_beside_a_sibling_holding_its_parent_tells_them_apart():
    leaf = {path: i for i, path in enumerate(TREE.leaf_paths)}
    jobs = [("gpu/infer", 200, 0.0), ("cpu/query", 200, 0.0), ("gpu/train", 100, 5.0)]
    user = np.concatenate([np.full(n, leaf[path]) for path, n, _ in jobs])
    job = np.concatenate([np.full(n, j) for j, (_, n, _) in enumerate(jobs)])
    arrival = np.concatenate([np.full(n, a) for _, n, a in jobs])
    duration = np.random.default_rng(0).uniform(100.0, 200.0, len(user))
    trace = sim.Trace(user, job, arrival, duration, TREE.demand[user], users=len(TREE.leaves))
    static, pareto = tasks(trace, "static-hdrf"), tasks(trace, "capacity-pareto")
    assert not np.array_equal(static["start"], pareto["start"], equal_nan=True)
    assert np.nanmax(static["end"]) != np.nanmax(pareto["end"])
