"""Online DRF's time per decision (drfbench/drf/decisions.py, the step `python -m drfbench.drf
decisions`, L15 in reference/claims/lecture.yaml): what the rows hold and that the decisions
timed are DRF's. Times themselves are not tested (no wall-clock thresholds)."""
import numpy as np
import pandas as pd
import pytest

from drfbench import drf
from drfbench.drf.__main__ import main
from drfbench.drf.decisions import decision_times


def test_a_row_per_users_and_repeat_each_timing_the_decisions_asked():
    rows = decision_times([3, 50], 40, 2, resources=3, seed=7)
    assert [(r["users"], r["repeat"]) for r in rows] == [(3, 0), (3, 1), (50, 0), (50, 1)]
    for r in rows:
        assert r["decisions"] == 40 and r["resources"] == 3 and r["seed"] == 7
        assert r["seconds"] > 0
        assert np.isclose(r["ns_per_decision"], r["seconds"] / 40 * 1e9)


def test_the_decisions_timed_are_online_drfs_launches():
    """The run timed launches what online DRF launches on the same demands: the lowest
    dominant share first, all on the one machine (its first decisions, as many as timed)."""
    n, k = 6, 30
    demands = np.random.default_rng([0, n]).uniform(0.1, 1.0, (n, 2))
    machine = k * demands.max(axis=0)
    s = drf.scheduler(demands, machine)
    users, machines = s.schedule(k)
    whole = drf.online_drf(demands, machine)
    assert np.array_equal(users, whole.order_users[:k]) and not machines.any()
    assert s.decisions == k                  # no user set aside: every task fits


def test_the_step_writes_its_rows(tmp_path):
    out = tmp_path / "d.csv"
    main(["decisions", "--users", "4", "16", "--decisions", "10", "--repeats", "3",
          "--out", str(out)])
    t = pd.read_csv(out)
    assert t.groupby("users").size().to_dict() == {4: 3, 16: 3}
    assert (t.decisions == 10).all() and (t.ns_per_decision > 0).all()
    assert t.git_commit.notna().all()        # stamped


def test_more_decisions_than_the_budget_are_refused_naming_them(tmp_path):
    out = tmp_path / "d.csv"
    with pytest.raises(SystemExit):
        main(["decisions", "--users", "4", "--decisions", "600000", "--out", str(out)])
    assert not out.exists()
    with pytest.raises(ValueError, match=r"600,000 decisions with tasks of 2 resources: at most 500,000"):
        decision_times([4], 600_000, 1)
