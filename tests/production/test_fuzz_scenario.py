"""The fuzz suite for the scenario input kind (drfbench.production.scenario and the rules
on it through their entry point, drfbench.production.simulate): arbitrary scenarios, of
the right and the wrong shape, are either refused with a ValueError/TypeError
(tests/fuzz.py) or read, and then every rule (Kueue's with Admission Fair Sharing too)
runs them to the end without a node holding more than its capacity."""
import hypothesis.strategies as st
import numpy as np

import drfbench
import fuzz
from drfbench.production import scenario, simulate

FUZZED = ("scenario",)

NUMBERS = st.sampled_from([0, 1, 2, 4, 0.5, 1e-300, 1e300, -1, float("nan"), float("inf"),
                           10**400, "2", True, None])
NAMES = st.sampled_from(["a", "b", "c", "d/e", "", "yes"])


def vectors(m, low=0, high=8, noisy=True):
    valid = st.lists(st.integers(low, high), min_size=m, max_size=m)
    if not noisy:
        return valid
    return st.one_of(valid, valid, st.lists(NUMBERS, min_size=m, max_size=m),
                     st.lists(st.integers(0, 4), max_size=m + 1), st.just("cpu"))


def leaf_paths(queues, prefix=""):
    out = []
    for name, q in queues.items():
        path = f"{prefix}{name}"
        if isinstance(q, dict) and isinstance(q.get("children"), dict) and q["children"]:
            out += leaf_paths(q["children"], path + "/")
        else:
            out.append(path)
    return out


def scenarios(m, noisy):
    """A scenario's spec with `m` resources: small queues, nodes and jobs; with `noisy`,
    values from the bounds' edges and wrong shapes too (mostly refused), else valid
    values (jobs naming leaf queues), of which most are read."""
    scalar = st.one_of(st.integers(1, 3), NUMBERS) if noisy else st.integers(1, 3)
    queue_fields = {"weight": scalar, "guarantee": vectors(m, 0, 2, noisy),
                    "limit": vectors(m, 6, 16, noisy), "borrowing_limit": vectors(m, 0, 8, noisy),
                    "lending_limit": vectors(m, 0, 8, noisy), "priority_factor": scalar,
                    "shares": scalar}
    local = st.fixed_dictionaries({}, optional={"weight": scalar})
    local_queues = (st.one_of(st.dictionaries(st.one_of(NAMES, st.just("default")), local,
                                              max_size=3), NUMBERS) if noisy else
                    st.fixed_dictionaries({"default": local, "x": local}))
    leaf = st.fixed_dictionaries({}, optional={**queue_fields, "local_queues": local_queues})
    odd = st.sampled_from([{"colour": 1}, {"demand": [1] * m}, {"children": {}}, [1, 2]])
    names = NAMES if noisy else st.sampled_from("abc")

    def inner(children):
        return st.fixed_dictionaries(
            {"children": st.dictionaries(names, children, min_size=1, max_size=3)},
            optional=queue_fields)
    queues = st.dictionaries(names, st.recursive(st.one_of(leaf, leaf, leaf, odd) if noisy
                                                 else leaf, inner, max_leaves=6),
                             min_size=1, max_size=3)
    number = (lambda low, high: st.one_of(st.integers(low, high), NUMBERS)) if noisy else \
        st.integers
    nodes = st.dictionaries(st.sampled_from(["cpu", "gpu", "big"]), st.fixed_dictionaries(
        {"capacity": vectors(m, 4, 16, noisy)}, optional={"count": number(0, 3)}),
        min_size=1, max_size=3)

    def jobs(queue_names):
        job = st.fixed_dictionaries(
            {"queue": st.sampled_from(queue_names + (["x", "a"] if noisy else [])),
             "demand": vectors(m, 0 if noisy else 1, 6, noisy),
             "duration": number(1, 30)},
            optional={"arrival": number(0, 50), "tasks": number(1, 4),
                      "priority": number(-2, 2),
                      "local_queue": st.sampled_from(["default", "x"] + (["a", 1] if noisy
                                                                         else [])),
                      "preemptible": st.sampled_from([True, False] + (["yes", 1] if noisy
                                                                      else []))})
        return st.lists(job, min_size=1, max_size=12)
    top = st.fixed_dictionaries({"resources": st.just([f"r{j}" for j in range(m)]),
                                 "nodes": nodes, "children": queues})
    if noisy:
        top = st.one_of(top, top.map(lambda t: {**t, "colour": 1}))
    return top.flatmap(lambda t: jobs(leaf_paths(t["children"])).map(
        lambda js: {**t, "jobs": js}))


def run_all(spec):
    """The scenario read, and each rule's Simulation on it (Kueue's with Admission Fair
    Sharing too, sampled often enough to decay within the jobs' times)."""
    s = scenario(spec)
    runs = {rule: simulate(s, rule).simulation for rule in drfbench.methods(takes="scenario")}
    runs["kueue-afs"] = simulate(s, "kueue", admission_fair_sharing=True, usage_half_life=20,
                                 usage_sampling_interval=5).simulation
    return s, runs


SPECS = st.tuples(st.integers(1, 3), st.sampled_from([False, False, True])).flatmap(
    lambda a: scenarios(*a))


@fuzz.cases(spec=SPECS)
def test_scenario_read_and_run(spec):
    outcome = fuzz.call(run_all, spec)
    if outcome.refused:
        return
    s, runs = outcome.value
    for rule, res in runs.items():
        t = res.tasks
        assert (t["machine"] >= 0).all() and np.isfinite(t["end"]).all(), rule
        demand = s.demand[t["user"]]
        for i in range(len(t["machine"])):
            k, at = t["machine"][i], t["start"][i]
            on = (t["machine"] == k) & (t["start"] <= at) & (t["end"] > at)
            assert (demand[on].sum(axis=0) <= s.capacity[k] * (1 + 1e-12)).all(), rule
