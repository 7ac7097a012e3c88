"""drfbench.production.tradeoff: the sweep's fair shares, times to fair share and lost
work on a scenario small enough to follow by hand (in the docstrings)."""
import math

import pytest

from drfbench.production import tradeoff


def scenario():
    """One node of 4 cpu; queues a and b (guarantees 2 cpu each); a's jobs 0..3 (1 cpu,
    10 s) at 0; b's jobs 4 and 5 (1 cpu, 10 s) at 1 and 2."""
    a = [{"queue": "a", "demand": [1], "duration": 10, "arrival": 0}] * 4
    b = [{"queue": "b", "demand": [1], "duration": 10, "arrival": t} for t in (1, 2)]
    return {"resources": ["cpu"], "nodes": {"n": {"capacity": [4]}},
            "children": {"a": {"guarantee": [2]}, "b": {"guarantee": [2]}}, "jobs": a + b}


def test_targets_by_offered_load():
    """a offers 4 cpu at once (share 1), b 2 x 10 cpu-s over 1 s (5): both above the
    equal split, so each gets 1/2."""
    assert tradeoff.targets(scenario()) == {"a": 0.5, "b": 0.5}


def table(rows):
    return {(r["rule"], r["setting"], r["rate_limit"], r["queue"], r["metric"]): r["value"]
            for r in rows}


def test_sweep_by_hand():
    """b (from 1) reaches 0.95 x 1/2 once it holds 2 cpu. No preemption: at 10, when
    jobs 0..2 end (the sample at 11 shows it): 10 s. Kueue (each strategy set) and
    Armada (protected fraction 1: a holds 1 > 1/2): b's job 4 evicts a's job 3 at 1, job
    5 evicts job 2 at 2 (the sample at 3 shows 2 cpu): 2 s, losing 1 + 2 task-seconds.
    With at most 1 eviction a minute, only job 3 goes: 10 s, 1 task-second lost.
    Armada at protected fraction 2 never evicts: 10 s."""
    got = table(tradeoff.sweep(scenario(), protected_fractions=(1.0, 2.0),
                               rate_limits=(None, 1), sample=1.0))
    for rule in ("kueue", "armada"):
        assert got[(rule, "none", None, "b", "time_to_fair_share")] == 10.0
        assert got[(rule, "none", None, None, "preemptions")] == 0
    settings = [("kueue", "+".join(names)) for names in tradeoff.STRATEGY_SETS] + \
        [("armada", "protected_fraction=1")]
    for rule, setting in settings:
        assert got[(rule, setting, None, "b", "time_to_fair_share")] == 2.0
        assert got[(rule, setting, None, None, "mean_time_to_fair_share")] == 2.0
        assert got[(rule, setting, None, None, "lost_task_seconds")] == 3.0
        assert got[(rule, setting, None, None, "preemptions")] == 2
        assert got[(rule, setting, 1, "b", "time_to_fair_share")] == 10.0
        assert got[(rule, setting, 1, None, "lost_task_seconds")] == 1.0
        assert got[(rule, setting, 1, None, "lost_gpu_hours")] == 0.0
    assert got[("armada", "protected_fraction=2", None, None, "preemptions")] == 0
    assert ("kueue", "none", None, "a", "time_to_fair_share") not in got   # a arrives at 0


def test_a_queue_that_never_gets_there_is_inf():
    spec = scenario()
    spec["children"]["b"] = {"limit": [1]}               # b never holds more than 1 cpu
    got = table(tradeoff.sweep(spec, strategy_sets=(), protected_fractions=(),
                               rate_limits=(), sample=1.0))
    assert math.isinf(got[("kueue", "none", None, "b", "time_to_fair_share")])


def test_tolerance_checked():
    with pytest.raises(ValueError, match="tolerance must be in"):
        tradeoff.sweep(scenario(), tolerance=1.0)
