"""The production rules through their public function, drfbench.production.simulate (the
registry's methods on the scenario kind): every rule runs the side-by-side scenario to
the end within each node's capacity and each queue's limit, the same scenario gives the
same run, options reach the rule, bad input is one line naming it."""
import json

import numpy as np
import pytest

import drfbench
from drfbench.production import scenario, sidebyside, simulate

RULES = drfbench.methods(takes="scenario")
SMALL = {"resources": ["cpu", "gpu"],
         "nodes": {"cpu": {"capacity": [4, 0], "count": 2}, "gpu": {"capacity": [2, 1]}},
         "children": {"a": {"guarantee": [2, 0]},
                      "b": {"weight": 2, "limit": [3, 1]}},
         "jobs": [{"queue": "a", "tasks": 3, "demand": [2, 0], "duration": 10},
                  {"queue": "b", "arrival": 1, "demand": [1, 1], "duration": 4},
                  {"queue": "b", "arrival": 2, "tasks": 2, "demand": [1, 0], "duration": 5}]}


@pytest.fixture(scope="module")
def side_by_side():
    s = scenario(str(sidebyside.PATH))
    return s, {rule: simulate(s, rule) for rule in RULES}


def test_the_rules_are_the_policies():
    assert RULES == ("kueue", "armada", "mesos-drf", "slurm-fairtree", "yarn-fair-drf")


@pytest.mark.parametrize("rule", RULES)
def test_capacity_and_limits_never_exceeded(side_by_side, rule):
    """At every task's start, the tasks running on its node fit the node, and those of
    every queue fit its limit (the side-by-side scenario's vision queue: 12 GPUs)."""
    s, runs = side_by_side
    t = runs[rule].simulation.tasks
    assert np.isfinite(t["end"]).all() and (t["machine"] >= 0).all()
    demand, queue = s.demand[t["user"]], s.queue[t["user"]]
    for at in np.unique(t["start"]):
        on = (t["start"] <= at) & (at < t["end"])
        used = np.zeros_like(s.capacity)
        np.add.at(used, t["machine"][on], demand[on])
        assert (used <= s.capacity * (1 + 1e-12)).all(), at
        for q in range(1, len(s.paths)):
            under = on & np.isin(queue, [k for k in range(len(s.paths)) if q in s.ancestry(k)])
            assert (demand[under].sum(axis=0) <= s.limit[q] * (1 + 1e-12)).all(), (at, q)


@pytest.mark.parametrize("rule", RULES)
def test_the_same_scenario_gives_the_same_run(side_by_side, rule):
    s, runs = side_by_side
    again = simulate(json.loads(json.dumps(sidebyside.side_by_side(0))), rule)
    for column in ("user", "machine", "start", "end"):
        assert np.array_equal(again.simulation.tasks[column], runs[rule].simulation.tasks[column])


@pytest.mark.parametrize("rule", RULES)
def test_rows_one_per_job(side_by_side, rule):
    """A job starts no earlier than it arrives and ends after its longest task's work."""
    s, runs = side_by_side
    table = list(runs[rule].rows(seed=3))
    assert [r["job"] for r in table] == list(range(len(s.arrival)))
    assert all(r["method"] == rule and r["seed"] == 3 for r in table)
    start = np.array([r["start"] for r in table])
    finish = np.array([r["finish"] for r in table])
    assert (start >= s.arrival).all() and (finish >= start + s.duration).all()
    assert np.array_equal(np.array([r["wait"] for r in table]), start - s.arrival)


def test_shares_are_the_running_tasks():
    run = simulate(SMALL, "armada")
    shares = run.shares([0.0, 1.0, 100.0])
    assert shares.shape == (3, 2, 2)
    total = np.array([10.0, 1.0])
    t = run.simulation.tasks
    for k, now in enumerate([0.0, 1.0]):
        on = (t["start"] <= now) & (now < t["end"])
        assert shares[k].sum(axis=0) == pytest.approx(run.scenario.demand[t["user"][on]].sum(axis=0) / total)
    assert (shares[2] == 0).all()


def test_options_reach_the_rule():
    """Slurm's billing and half-life decide who goes next: a's job billed 1 (its cpu, 4 of
    4), b's 0.75 by MAX_TRES (12 of 16 GiB) but 1.25 summed; with a half-life of 1 s, a's
    usage, older by 100 s, has decayed to less than b's. b's next job goes first by
    default and a's otherwise (jobs 2 and 3 are a's and b's, arriving at 300 and 301)."""
    spec = {"resources": ["cpu", "mem"], "nodes": {"n": {"capacity": [4, 16]}},
            "children": {"a": {}, "b": {}},
            "jobs": [{"queue": "a", "demand": [4, 1], "duration": 100},
                     {"queue": "b", "demand": [2, 12], "duration": 100},
                     *({"queue": q, "arrival": 300 + i, "demand": [4, 4], "duration": 50}
                       for i in range(2) for q in ("a", "b"))]}
    b_first, a_first = [0, 100, 350, 300, 450, 400], [0, 100, 300, 350, 400, 450]
    assert simulate(spec, "slurm-fairtree").jobs()[0].tolist() == b_first
    assert simulate(spec, "slurm-fairtree", half_life=0).jobs()[0].tolist() == b_first
    assert simulate(spec, "slurm-fairtree", max_tres=False).jobs()[0].tolist() == a_first
    assert simulate(spec, "slurm-fairtree", half_life=1).jobs()[0].tolist() == a_first
    assert np.isfinite(simulate(spec, "yarn-fair-drf", fixed=False).jobs()[0]).all()


@pytest.mark.parametrize("call, message", [
    (lambda: simulate(SMALL, "drfh"), "method 'drfh' takes servers, not scenario"),
    (lambda: simulate(SMALL, "armada", fixed=False), "method 'armada' takes no option fixed"),
    (lambda: simulate(SMALL, "slurm-fairtree", half_life=-1), "half_life must lie in [0, inf]"),
    (lambda: simulate(str(sidebyside.PATH), "yarn-fair-drf", fixed=False),
     "fixed=False reproduces YARN-11482 with two resources only"),
    (lambda: simulate({**SMALL, "jobs": [{"queue": "b", "demand": [4, 0], "duration": 1}]},
                      "kueue"), "job 0 (queue 'b'): a task's 'cpu' 4 is above queue 'b''s "
                                "limit 3"),
])
def test_bad_input_is_one_line_naming_it(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert message in str(err.value) and "\n" not in str(err.value)
