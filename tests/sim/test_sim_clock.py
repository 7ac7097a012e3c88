"""The simulator's clock at the scale of public traces (issue 34): completions are events
at their due times, so a task that runs alone at speed 1 ends at exactly its start plus its
duration at any time, in the kernel and in the literal loop; a month or more of trace runs,
and only a task that float64 cannot tell from nothing at its start is refused."""
import numpy as np
import pytest

from drfbench import sim
from cases import SIM_FIELDS
from conftest import assert_same
from test_sim import Pinned

DAY = 86400.0
LOOPS = (sim.simulate, sim.literal.simulate)


def ninety_days(seed=0, n=300):
    """n tasks arriving over 90 days, each lasting 1 s or 60 days, demand 1 each: on n
    machines of capacity 1 every task runs alone (FIFO first fit), at speed 1."""
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.uniform(0.0, 90 * DAY, n))
    duration = np.where(rng.random(n) < 0.5, 1.0, 60 * DAY)
    user = rng.integers(0, 3, n)
    trace = sim.Trace(user, np.arange(n), arrival, duration, np.ones((n, 1)))
    return np.ones((n, 1)), trace


@pytest.mark.parametrize("simulate", LOOPS, ids=["kernel", "literal"])
def test_ninety_days_end_exactly_at_start_plus_duration(simulate):
    C, trace = ninety_days()
    run = simulate(C, trace, sim.FifoFirstFit(C, trace), sample=3600.0)
    T = run.tasks
    np.testing.assert_array_equal(T["start"], trace.arrival)
    np.testing.assert_array_equal(T["end"], trace.arrival + trace.duration)   # bit for bit
    assert run.end == (trace.arrival + trace.duration).max() > 140 * DAY


def test_ninety_days_kernel_matches_literal():
    C, trace = ninety_days(seed=1, n=120)
    runs = [simulate(C, trace, sim.FifoFirstFit(C, trace), sample=3600.0) for simulate in LOOPS]
    assert_same(*runs, SIM_FIELDS)


def test_a_speed_change_moves_only_the_shared_stretch():
    """A 60-day task shares its machine (speed 1/2) with a 1 s task arriving 30 days in:
    the short one ends 2 s after its start, the long one 1 s of work later than alone; a
    task alone on the other machine ends exactly at start + duration. Both loops agree."""
    start = 30 * DAY + 0.1
    trace = sim.Trace([0, 0, 1], [0, 0, 1], [0.0, start, start], [60 * DAY, 1.0, 1.0],
                      [[1.0], [1.0], [1.0]])
    C = np.ones((2, 1))
    runs = [simulate(C, trace, Pinned([0, 1])) for simulate in LOOPS]
    assert_same(*runs, SIM_FIELDS)
    end = runs[0].tasks["end"]
    assert end[1] == start + 2.0 and end[2] == start + 1.0
    assert end[0] == pytest.approx(60 * DAY + 1.0, rel=1e-15)


@pytest.mark.parametrize("simulate", LOOPS, ids=["kernel", "literal"])
def test_only_a_task_lost_in_the_clock_is_refused(simulate):
    """A 1 ms task 90 days in runs (the old bound, 2**21 x its duration, was 35 min); one
    of 1e-10 s there (below float64's spacing, 1.9e-9 s) is refused naming its row, user and
    job; so is one arriving earlier that would start there, when it would."""
    C = np.ones((1, 1))

    def two(arrival, duration):
        trace = sim.Trace(["a", "b"], [7, 8], arrival, duration, [[1.0], [1.0]], users=["a", "b"])
        return simulate(C, trace, sim.FifoFirstFit(C, trace))
    assert two([0.0, 90 * DAY], [1.0, 1e-3]).tasks["end"].tolist() == [1.0, 90 * DAY + 1e-3]
    with pytest.raises(ValueError, match=r"row 1 \(user 'b', job 8\) lasts 1e-10 s"):
        two([0.0, 90 * DAY], [1.0, 1e-10])
    with pytest.raises(ValueError, match=r"row 1 \(user 'b', job 8\).* start, 7776000.0 s"):
        two([0.0, 1.0], [90 * DAY, 1e-10])
