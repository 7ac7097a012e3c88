"""The side-by-side comparison (drfbench.production.compare) and its pipeline step: the
scenario converted to the other families' kinds holds what it held, the rows measure
what they say, bad input is one line."""
import json

import numpy as np
import pandas as pd
import pytest

import drfbench
from drfbench import rows
from drfbench.production import compare, scenario, simulate
from drfbench.production.__main__ import main

SPEC = {"resources": ["cpu", "mem", "gpu"],
        "nodes": {"cpu": {"capacity": [8, 32, 0], "count": 2}, "gpu": {"capacity": [4, 16, 2]}},
        "children": {"a": {"guarantee": [4, 16, 0]},
                     "r": {"weight": 2, "children": {"c": {}, "g": {}}}},
        "jobs": [*({"queue": "a", "arrival": 10 * i, "tasks": 2, "demand": [2, 4, 0],
                    "duration": 100} for i in range(6)),
                 *({"queue": "r/c", "arrival": 50 + 10 * i, "demand": [1, 8, 0],
                    "duration": 60} for i in range(4)),
                 {"queue": "r/g", "arrival": 70, "tasks": 2, "demand": [2, 4, 1],
                  "duration": 80}]}


@pytest.fixture(scope="module")
def table():
    return pd.DataFrame(compare.compare(SPEC, sample=10.0, series=10.0))


def test_every_method_is_measured(table):
    simulated = [*drfbench.methods(takes="scenario"), compare.BEST_FIT]
    assert list(dict.fromkeys(table["method"])) == simulated
    distance = table[table["metric"] == "distance"]
    assert set(distance["reference"]) == set(compare.REFERENCES)
    assert (distance["value"] >= 0).all()
    for metric in ("preemptions", "lost_task_seconds", "lost_gpu_hours"):
        assert (table.loc[table["metric"] == metric, "value"] == 0).all()


def test_dominant_shares_are_the_runs(table):
    s = scenario(SPEC)
    run = simulate(s, "kueue")
    times = np.arange(0.0, run.simulation.tasks["end"].max() + 10.0, 10.0)
    mine = table[(table["method"] == "kueue") & (table["metric"] == "dominant_share")]
    expected = run.shares(times).max(axis=2)
    assert mine["value"].to_numpy() == pytest.approx(expected.ravel())


def test_the_hdrf_tree_is_the_queue_tree():
    s = scenario(SPEC)
    tree = compare.tree(s, compare.shapes(s), [1, 2, np.inf])
    assert tree == {"resources": ["cpu", "mem", "gpu"], "children": {
        "a": {"weight": 1.0, "demand": [2, 4, 0], "tasks": 1.0},
        "r": {"weight": 2.0, "children": {
            "c": {"weight": 1.0, "demand": [1, 8, 0], "tasks": 2.0},
            "g": {"weight": 1.0, "demand": [2, 4, 1], "tasks": np.inf}}}}}


def test_references_fit_the_cluster_and_the_tasks():
    """A reference never gives a leaf more tasks than it has outstanding, nor more than the
    cluster holds; with one leaf alone, each gives it all it can hold."""
    s = scenario(SPEC)
    shape = compare.shapes(s)
    tasks = np.array([[0, 0, 0], [3, 0, 0], [40, 40, 40], [0, 1, 0]])
    refs = compare.references(s, shape, tasks, {})
    per_task = (shape / s.capacity.sum(axis=0)).max(axis=1)
    for method, share in refs.items():
        assert (share <= tasks * per_task + 1e-12).all(), method
        assert (share[0] == 0).all() and share[1, 0] == pytest.approx(3 * per_task[0]), method
        assert share[3, 1] == pytest.approx(per_task[1]), method


def test_best_fit_runs_the_scenario_s_tasks():
    s = scenario(SPEC)
    t = compare.best_fit(s)
    trace = s.trace()
    assert np.array_equal(np.sort(t.arrival), np.sort(trace.arrival))
    assert np.isfinite(t.end).all() and (t.start >= t.arrival).all()
    used = t.held(np.unique(t.start), "machine", len(s.capacity))
    assert (used <= s.capacity * (1 + 1e-12)).all()


def test_time_to_share_is_the_first_sample_within_5_percent(table):
    mine = table[table["method"] == "armada"]
    share = mine[mine["metric"] == "dominant_share"]
    ref = mine[mine["metric"] == "reference_share"]
    for leaf, first in (("a", 0.0), ("r/c", 50.0), ("r/g", 70.0)):
        s = share[share["queue"] == leaf].set_index("time")["value"]
        r = ref[ref["queue"] == leaf].set_index("time")["value"]
        ok = (s.index >= first) & (r > 0) & (s >= 0.95 * r)
        got = mine[(mine["metric"] == "time_to_share") & (mine["queue"] == leaf)]["value"]
        assert got.item() == s.index[ok.to_numpy()][0] - first


def test_series_are_written_every_series_seconds_the_means_from_every_sample(table):
    coarse = pd.DataFrame(compare.compare(SPEC, sample=10.0, series=30.0))
    for metric in ("dominant_share", "reference_share", "distance"):
        fine, kept = (t[t["metric"] == metric] for t in (table, coarse))
        assert set(kept["time"]) == {t for t in fine["time"] if t % 30 == 0} | {fine["time"].max()}
        assert kept.merge(fine, on=list(kept.columns.drop("value")))["value_x"].tolist() == \
            kept["value"].tolist()
    means = table[table["metric"] == "distance"].groupby(["method", "reference"])["value"].mean()
    for t in (table, coarse):
        got = t[t["metric"] == "mean_distance"].set_index(["method", "reference"])["value"]
        assert got.to_numpy() == pytest.approx(means.loc[got.index].to_numpy())


def test_peak_load_is_the_fullest_node_at_any_start(table):
    assert (table.loc[table["metric"] == "peak_load", "value"] <= 1 + 1e-12).all()
    capacity = np.array([[4.0, 8.0], [2.0, 0.0]])
    two = compare.Timeline(np.zeros(2, int), np.array([0, 0]), np.zeros(2), np.array([0.0, 5.0]),
                           np.array([10.0, 10.0]), np.array([[1.0, 4.0], [2.0, 6.0]]))
    assert compare.peak_load(capacity, two) == 10 / 8
    gpu = compare.Timeline(np.zeros(1, int), np.array([1]), np.zeros(1), np.zeros(1),
                           np.ones(1), np.array([[1.0, 1.0]]))
    assert compare.peak_load(capacity, gpu) == np.inf


def test_one_task_shape_per_leaf():
    spec = {**SPEC, "jobs": SPEC["jobs"] + [{"queue": "a", "demand": [1, 1, 0],
                                              "duration": 5}]}
    with pytest.raises(ValueError, match="queue 'a': its jobs have different task shapes"):
        compare.compare(spec)


def test_the_step_writes_stamped_rows(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SPEC))
    out = tmp_path / "out.csv"
    main(["side-by-side", "--scenario", str(path), "--sample", "10", "--seed", "4",
          "--max-tres", "false", "--out", str(out)])
    written = rows.read_rows(out)
    assert {r["seed"] for r in written} == {"4"} and len(written) > 100
    assert f"production side-by-side -> {out}" in capsys.readouterr().err


def test_the_step_takes_the_rules_declared_options(tmp_path, monkeypatch):
    """The step's flags are the catalog's STEP_OPTIONS, handed to compare by name; the
    pipeline passes the config's values as those flags."""
    from drfbench import pipeline
    from drfbench.production import __main__ as step
    seen = {}
    monkeypatch.setattr(step, "compare", lambda spec, sample, series, **options:
                        seen.update(options, sample=sample, series=series) or [])
    main(["side-by-side", "--half-life", "60", "--max-tres", "false", "--fixed", "false",
          "--series", "120", "--out", str(tmp_path / "out.csv")])
    assert seen == {"half_life": 60.0, "max_tres": False, "fixed": False, "sample": 60.0,
                    "series": 120.0}
    section = {"half_life": 60.0, "max_tres": False, "fixed": True}
    assert pipeline.flags(section, "production", "side-by-side") == \
        "--half-life 60.0 --max-tres False --fixed True"


def test_the_step_s_bad_input_is_one_line(tmp_path, capsys):
    out = tmp_path / "out.csv"
    with pytest.raises(SystemExit) as exit:
        main(["side-by-side", "--half-life", "0.5", "--out", str(out)])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "half_life must exceed 0.693 seconds" in err
    assert not out.exists()
