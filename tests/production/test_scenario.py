"""drfbench.production.scenario: the scenario input kind's reader and checks (good files
read to the arrays expected, every bad input a one-line ValueError naming the file, the
queue, node type or job and the field as written)."""
import copy
import json
import math

import numpy as np
import pytest

from drfbench.production.scenario import MAX_TASKS, Scenario, scenario

GOOD = {
    "resources": ["cpu", "mem", "gpu"],
    "nodes": {"cpu": {"capacity": [32, 128, 0], "count": 2},
              "gpu": {"capacity": [16, 64, 4]}},
    "children": {
        "research": {"weight": 2, "guarantee": [32, 128, 2], "children": {
            "train": {"limit": [48, 192, 4], "priority_factor": 2,
                      "borrowing_limit": [8, 32, 1]},
            "eval": {"shares": 3, "guarantee": [8, 32, 0]}}},
        "web": {"guarantee": [16, 64, 0], "lending_limit": [8, 32, 0]}},
    "jobs": [
        {"queue": "research/train", "arrival": 5, "tasks": 2, "demand": [4, 16, 1],
         "duration": 600, "priority": 1, "preemptible": False},
        {"queue": "web", "tasks": 3, "demand": [2, 4, 0], "duration": 60}],
}

YAML = """\
resources: [cpu, mem, gpu]
nodes:
  cpu: {capacity: [32, 128, 0], count: 2}
  gpu: {capacity: [16, 64, 4]}
children:
  research:
    weight: 2
    guarantee: [32, 128, 2]
    children:
      train: {limit: [48, 192, 4], priority_factor: 2, borrowing_limit: [8, 32, 1]}
      eval: {shares: 3, guarantee: [8, 32, 0]}
  web: {guarantee: [16, 64, 0], lending_limit: [8, 32, 0]}
jobs:
  - {queue: research/train, arrival: 5, tasks: 2, demand: [4, 16, 1], duration: 600,
     priority: 1, preemptible: false}
  - {queue: web, tasks: 3, demand: [2, 4, 0], duration: 60}
"""


def check_good(s):
    assert isinstance(s, Scenario)
    assert s.resources == ("cpu", "mem", "gpu")
    assert s.paths == ("", "research", "web", "research/train", "research/eval")
    assert s.parent.tolist() == [-1, 0, 0, 1, 1]
    assert s.leaves.tolist() == [3, 4, 2]                  # depth-first, as given
    assert s.capacity.tolist() == [[32, 128, 0], [32, 128, 0], [16, 64, 4]]
    assert s.node_types == ("cpu", "gpu") and s.node_type.tolist() == [0, 0, 1]
    assert s.guarantee[0].tolist() == [80, 320, 4]          # the root: the capacity
    assert s.guarantee[4].tolist() == [8, 32, 0]
    assert s.limit[3].tolist() == [48, 192, 4] and np.isinf(s.limit[2]).all()
    assert s.borrowing_limit[3].tolist() == [8, 32, 1] and np.isinf(s.borrowing_limit[4]).all()
    assert s.lending_limit[2].tolist() == [8, 32, 0]
    assert s.priority_factor.tolist() == [1, 0.5, 1, 2, 1]  # default 1 / weight
    assert s.shares.tolist() == [1, 2, 1, 1, 3]             # default the weight
    assert s.queue.tolist() == [3, 2] and s.tasks.tolist() == [2, 3]
    assert s.arrival.tolist() == [5, 0] and s.duration.tolist() == [600, 60]
    assert s.priority.tolist() == [1, 0] and s.preemptible.tolist() == [False, True]
    assert s.demand.tolist() == [[4, 16, 1], [2, 4, 0]]


def test_dict_yaml_and_json_read_alike(tmp_path):
    check_good(scenario(GOOD))
    (tmp_path / "s.yaml").write_text(YAML)
    check_good(scenario(tmp_path / "s.yaml"))
    (tmp_path / "s.json").write_text(json.dumps(GOOD))
    check_good(scenario(str(tmp_path / "s.json")))
    s = scenario(GOOD)
    assert scenario(s) is s


def test_trace_one_user_per_job_sorted_by_arrival():
    """Job 1 arrives at 0, job 0 at 5: the trace has job 1's three tasks first; user j is
    job j."""
    t = scenario(GOOD).trace()
    assert t.user.tolist() == [1, 1, 1, 0, 0] and t.job.tolist() == [1, 1, 1, 0, 0]
    assert t.arrival.tolist() == [0, 0, 0, 5, 5] and t.users == 2
    assert t.demands[3].tolist() == [4, 16, 1]


def mutated(path, value):
    """GOOD with the entry at `path` (keys and indices) set to `value` (or deleted when
    value is DELETE)."""
    spec = copy.deepcopy(GOOD)
    node = spec
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return spec


DELETE = object()
R = ("children", "research")
T = R + ("children", "train")
BAD = [
    (("colour",), "x", "scenario: unknown key(s) ['colour']"),
    (("nodes",), DELETE, "scenario: missing ['nodes']"),
    (("resources",), ["cpu", "cpu", "gpu"], "resources must be a non-empty list of distinct"),
    (("nodes", "gpu", "count"), 2.5, "node type 'gpu': count must be a whole number, got 2.5"),
    (("nodes", "gpu", "count"), 2**40, "node type 'gpu': count must lie in"),
    (("nodes", "gpu", "capacity"), [16, 64], "node type 'gpu': capacity has 2 entries, the "
                                            "scenario has 3 resources"),
    (("nodes", "gpu", "capacity"), [16, -1, 4], "node type 'gpu': capacity must be finite "
                                               "and >= 0"),
    (("nodes", "gpu", "ram"), 1, "node type 'gpu': unknown key(s) ['ram']"),
    (R + ("weight",), 0, "queue 'research': weight must lie in"),
    (R + ("weight",), True, "queue 'research': weight must be a number, got True"),
    (R + ("guarantee",), [1e9, 1, 0], "the top queues' guarantees of 'cpu' sum to "
                                      "1e+09, above the cluster's capacity 80"),
    (R + ("children", "eval", "guarantee"), [40, 0, 0],
     "queue 'research': its children's guarantees of 'cpu' sum to 40, above its guarantee 32"),
    (T + ("limit",), [1, 192, 4], "job 0 (queue 'research/train'): a task's 'cpu' 4 is "
                                  "above queue 'research/train''s limit 1"),
    (T + ("guarantee",), [100, 0, 0], "queue 'research/train': guarantee 100 of 'cpu' is "
                                      "above its limit 48"),
    (T + ("quota",), 1, "queue 'research/train': unknown key(s) ['quota']"),
    (T + ("demand",), [1, 1, 1], "queue 'research/train': a queue has no demand or tasks"),
    (T + ("priority_factor",), -1, "queue 'research/train': priority_factor must lie in"),
    (T + ("borrowing_limit",), "8", "queue 'research/train': borrowing_limit must be a list"),
    (T + ("lending_limit",), [1, math.nan, 1], "queue 'research/train': lending_limit must "
                                               "be a number, got nan"),
    (R + ("children",), {}, "queue 'research': children must be a non-empty mapping"),
    (("jobs", 0, "queue"), "research", "job 0: queue 'research' has children; jobs go to "
                                       "leaf queues"),
    (("jobs", 0, "queue"), "nope", "job 0: queue 'nope' is not a queue of the tree"),
    (("jobs", 1, "demand"), [0, 0, 0], "job 1 (queue 'web'): demand is all 0"),
    (("jobs", 1, "demand"), [33, 0, 0], "job 1 (queue 'web'): a task <33, 0, 0> fits on no "
                                        "node"),
    (("jobs", 0, "demand"), [1, 1, 5], "job 0 (queue 'research/train'): a task <1, 1, 5> "
                                       "fits on no node"),
    (("jobs", 0, "demand"), [1, 1, 4], None),
    (("jobs", 1, "arrival"), -1, "job 1 (queue 'web'): arrival must be finite and >= 0"),
    (("jobs", 1, "duration"), 0, "job 1 (queue 'web'): duration must be positive"),
    (("jobs", 1, "tasks"), 0, "job 1 (queue 'web'): tasks must lie in [1, 10000000]"),
    (("jobs", 1, "tasks"), MAX_TASKS + 1, "tasks must lie in"),
    (("jobs", 1, "priority"), 1.5, "job 1 (queue 'web'): priority must be a whole number"),
    (("jobs", 1, "preemptible"), "yes", "job 1 (queue 'web'): preemptible must be true or "
                                        "false, got 'yes'"),
    (("jobs", 1, "user"), "x", "job 1: unknown key(s) ['user']"),
    (("jobs", 1, "duration"), DELETE, "job 1: missing duration"),
    (("jobs",), {"a": 1}, "scenario: jobs must be a list"),
    (("jobs", 1, "local_queue"), "team-a", "job 1 (queue 'web'): local_queue 'team-a' is not "
                                           "a local queue of queue 'web' (it has ['default'])"),
    (("jobs", 1, "local_queue"), 7, "job 1 (queue 'web'): local_queue 7 is not a local queue"),
    (R + ("local_queues",), {"a": {}}, "queue 'research': local_queues belong to a leaf queue"),
    (T + ("local_queues",), {}, "queue 'research/train': local_queues must be a non-empty "
                                "mapping"),
    (T + ("local_queues",), None, "queue 'research/train': local_queues must be a non-empty "
                                  "mapping"),
    (T + ("local_queues",), {"a": {"weight": 0}}, "queue 'research/train', local queue 'a': "
                                                  "weight must lie in [1e-300, 1e+300], got 0"),
    (T + ("local_queues",), {"a": {"weigth": 2}}, "queue 'research/train', local queue 'a': "
                                                  "unknown key(s) ['weigth']"),
    (T + ("local_queues",), {"a": 2}, "queue 'research/train', local queue 'a': expected a "
                                      "mapping, got int"),
    (T + ("local_queues",), {True: {}}, "queue 'research/train': a local queue's name is a "
                                        "non-empty string, got True"),
    (T + ("local_queues",), {"a": {}}, "job 0 (queue 'research/train'): local_queue 'default' "
                                       "is not a local queue of queue 'research/train' (it has "
                                       "['a'])"),
]


@pytest.mark.parametrize("path, value, message", BAD, ids=[" ".join(map(str, p)) + f"={v!r:.20}"
                                                           for p, v, _ in BAD])
def test_bad_input_names_the_place(path, value, message):
    spec = mutated(path, value)
    if message is None:
        scenario(spec)                   # the control: a task exactly at its queue's limit
        return
    with pytest.raises(ValueError) as info:
        scenario(spec)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_job_above_an_ancestors_limit_names_that_queue():
    spec = mutated(R + ("limit",), [48, 192, 2])
    spec["jobs"][0]["demand"] = [4, 16, 3]
    with pytest.raises(ValueError, match=r"job 0 \(queue 'research/train'\): a task's 'gpu' "
                                         r"3 is above queue 'research''s limit 2"):
        scenario(spec)


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(YAML.replace("duration: 60}", "duration: sixty}"))
    with pytest.raises(ValueError, match=rf"scenario file {path}: job 1 \(queue 'web'\): "
                                         "duration must be a number, got 'sixty'"):
        scenario(path)
    path.write_text(YAML.replace("web: {", "web: {{"))
    with pytest.raises(ValueError, match=r"s.yaml, line \d+, column \d+: not valid YAML"):
        scenario(path)


def test_bounds_on_expanded_sizes():
    with pytest.raises(ValueError, match="node type 'more': the nodes expand past"):
        scenario(mutated(("nodes", "more"), {"capacity": [1, 1, 1], "count": 2**24}))
    spec = mutated(("jobs",), [{"queue": "web", "demand": [1, 0, 0], "duration": 1,
                                "tasks": MAX_TASKS // 2 + 1}] * 2)
    with pytest.raises(ValueError, match=r"job 1 \(queue 'web'\): the jobs have more than "
                                         "10,000,000 tasks"):
        scenario(spec)
    deep = {"x": {"children": {}}}
    node = deep["x"]
    for _ in range(101):
        node["children"] = {"x": {"children": {}}}
        node = node["children"]["x"]
    node.pop("children")
    with pytest.raises(ValueError, match="deeper than 100 levels"):
        scenario(mutated(("children",), deep))


def test_vectors_as_arrays_and_empty_jobs():
    """A dict may give its vectors as 1-D NumPy arrays; a 2-D one is refused; a scenario
    without jobs is read (nothing to run)."""
    spec = mutated(("nodes", "gpu", "capacity"), np.array([16, 64, 4]))
    assert scenario(spec).capacity[2].tolist() == [16, 64, 4]
    with pytest.raises(ValueError, match="node type 'gpu': capacity must be a list of 3 "
                                         "numbers"):
        scenario(mutated(("nodes", "gpu", "capacity"), np.array([[16, 64, 4]])))
    s = scenario(mutated(("jobs",), []))
    assert s.demand.shape == (0, 3) and len(s.trace()) == 0


def test_local_queues_default_one_per_leaf_and_name_their_jobs():
    """Without `local_queues` each leaf has one, `default`, of weight 1, and every job is
    in its leaf's; declared ones are numbered leaf by leaf (in queue order), each leaf's
    in the order given, and a job names its own by `local_queue`."""
    s = scenario(GOOD)
    assert s.local_queue_names == ("default",) * 3
    assert s.local_queue_leaf.tolist() == [2, 3, 4] and s.local_queue_weight.tolist() == [1] * 3
    assert s.local_queue.tolist() == [1, 0]
    spec = mutated(T + ("local_queues",), {"heavy": {}, "light": {"weight": 2.5}})
    spec["jobs"][0]["local_queue"] = "light"
    spec["jobs"].append({"queue": "research/train", "local_queue": "heavy", "demand": [1, 1, 0],
                         "duration": 1})
    s = scenario(spec)
    assert s.local_queue_names == ("default", "heavy", "light", "default")
    assert s.local_queue_leaf.tolist() == [2, 3, 3, 4]
    assert s.local_queue_weight.tolist() == [1, 1, 2.5, 1]
    assert s.local_queue.tolist() == [2, 0, 1]
