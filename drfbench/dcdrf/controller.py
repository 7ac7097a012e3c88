"""DC-DRF's outer loop: adapting epsilon over control intervals (Algorithm 2 lines 1-5,
24-27; sections 3, 5.5 and 5.6 of the SoCC'18 paper).

Once per control interval DC-DRF runs its inner loop (`drfbench.allocate(...,
method="dcdrf")`) with the current epsilon and deadline; on a timeout it raises epsilon,
otherwise it lowers it, so that on stable input it settles where the inner loop finishes
just inside the deadline::

    from drfbench.dcdrf import workloads
    from drfbench.dcdrf.churn import Schedule
    from drfbench.dcdrf.controller import converged_epsilon, run_intervals
    wl = workloads.generate("G0", 20_000, 2_000, seed=0)
    rows = run_intervals(wl.demands, 80, deadline=0.5, schedule=Schedule.paper(), seed=0)
    converged_epsilon(rows), rows[-1]["timed_out"], rows[-1]["utilization_ratio"]

Two modes, drfbench.allocate's two budgets of the inner loop given by their declared names
(catalog.DEADLINE, catalog.MAX_ROUNDS): a wall-clock deadline in seconds, as in the paper,
or a round budget: an interval "times out" when the inner loop is stopped by the budget.
The round budget makes every interval, and so the whole run, reproducible bit for bit;
tests use it.

Command line (one progress line per interval; tidy rows to --csv):

    python -m drfbench.dcdrf controller --demand-profile G0 --tenants 100000 --resources 10000 \\
        --intervals 80 --budgets 0.15 --threads all --schedule paper --csv fig11.csv
    python -m drfbench.dcdrf controller --demand-profile G0 --tenants 100000 --resources 10000 \\
        --intervals 30 --budgets 0.08 0.12 0.2 0.3 --threads 1 2 \\
        --csv fig10.csv --summary fig10-summary.csv

Budgets are deadlines in seconds (--mode seconds, the default) or round budgets (--mode
rounds): each interval's `deadline` or `max_rounds`. --threads is the declared option
`threads`, a run per value (`all`: the default count; catalog.STEP_SWEEPS).
The second form is Figure 10: one run of stable input per (threads, deadline), each
reporting the epsilon it converged to (`converged_epsilon`: the median epsilon of the
last 5 intervals that finished, i.e. the finishing end of the settled oscillation).
The first is Figure 11: 80 intervals under `Schedule.paper()` (drfbench.dcdrf.churn), with
the intervals it took to settle after the start and after each change in the summary.

Scaling deadlines to the machine and the workload. The paper's 8 s deadline belongs to
1M tenants x 100K resources on its server; what matters is where a deadline falls
between the time of a run at a large epsilon (1e-2: a few dozen rounds) and the time of
the exact run (epsilon 0: thousands of rounds), the knee of Figure 10 lying in between.
Deadlines are given in seconds, or with --relative as multiples of a reference measured
before each run on the initial demands, with the run's own thread count: the exact run's
kernel time (one call to warm up, then the median of 5) or, in round-budget mode, its
rounds. Each thread count's budgets thus span its own range: at the default pipeline
profile (G0, 100K x 10K) on the 2-core development machine the exact run takes about
0.12 s on 1 thread and 0.07-0.10 s on 2, and epsilon 1e-2 about half of that, because the
work before the first round is the same at any epsilon (epsilon 0.1: 0.47 of the exact
time); so the pipeline sweeps 0.45 to 1.2 times the reference for Figure 10 and uses 0.7
of it for Figure 11, and one reference for both thread counts would leave each outside
the other's range. The schedule's deadline changes are factors on the base deadline
(8 s -> 10 s -> 8 s: 1.25 at interval 50, 1 at 70), so they scale with it. Wall-clock
runs see everything else the machine does: on a shared machine, contention makes runs
time out that would finish, and the controller raises epsilon accordingly (as DC-DRF
should); `patience` makes it wait for a repeated timeout before it does.
"""
from __future__ import annotations

import math
import statistics
import sys
import time

import numpy as np

from .. import _validation as check
from .. import api
from . import metrics, workloads
from .. import rows as tidy
from .._command import COUNT, NATURAL, input_file, options_of, output, run, steps
from .._machine import resolve_threads
from ..api import THREADS
from .catalog import DEADLINE, DEMANDS, EPSILON, MAX_ROUNDS, STEP_SWEEPS
from .churn import Churn, Schedule
from .demands import allocate
from .methods import BASELINE

__all__ = ["EpsilonController", "run_intervals", "converged_epsilon", "settle_intervals",
           "resettle_intervals", "default_baseline", "main"]

EPS_MIN = 1e-9       # smallest epsilon the search may try
EPS_MAX = 0.5        # largest: at 0.5 the inner loop runs a round or two on any input
EPS_START = 1e-2     # raise(0): the first positive epsilon, after the exact first interval
GROWTH = 2.0         # the first fast-start step multiplies or divides epsilon by this
RESOLUTION = 1.2     # settled once the finishing and timing-out epsilons are this close
CONVERGED_LAST = 5   # converged epsilon: median of the last this many finishing epsilons
REFERENCE_CALLS = 5  # --relative: the reference is the median of this many exact runs' times
SETTLE_BAND = RESOLUTION ** 2   # settling time: epsilon stays within this factor of where it converged

ZERO, EXACT, EXPAND, BISECT, SETTLED, BOUND = "zero", "exact", "expand", "bisect", "settled", "bound"
SETTLED_PHASES = (SETTLED, BOUND, EXACT)


class EpsilonController:
    """raise() and lower() of Algorithm 2 (lines 24-27): a search for the smallest
    epsilon whose inner loop finishes inside the deadline.

    The paper leaves raise() and lower() open ("a search window with initial fast-start
    gradient"); this is the choice made here, and why:

    * The search runs on log(epsilon). Time and rounds depend on epsilon over orders of
      magnitude (Lemma 3.1: O(1 / -log(1 - eps)) rounds), and the useful epsilons span
      1e-9 to 1e-1, so only relative steps make sense.
    * Epsilon starts at 0 (line 2, `initial=0`): exact EDRF, which times out at any scale
      worth approximating. raise(0) is `start` (1e-2 by default), a value that is safe
      rather than good: a high epsilon finishes in a few rounds with an error bounded by
      epsilon, whereas a timeout leaves the allocation of an early-terminated EDRF, which
      can be far worse (section 2, "Early termination"). So the search begins on the
      finishing side and walks down, as in Figure 11. While 0 finishes (a generous
      deadline), the controller stays exact at 0.
    * The window is [lo, hi]: lo the epsilon that last timed out, hi the one that last
      finished. While one side is unknown the search expands toward it with a fast-start
      gradient: the first step is a factor `growth` (2), and each further step in the
      same direction doubles the step in log(epsilon) (factors 2, 4, 16, 256, ...), so
      any target within [eps_min, eps_max] is bracketed in O(log log(eps_max/eps_min))
      intervals. Once both sides are known it bisects geometrically, sqrt(lo * hi),
      halving the window in log(epsilon) each interval.
    * Once hi / lo <= `resolution` (1.2) the search has settled and oscillates, as the
      paper intends, between hi, which finishes just inside the deadline, and lo, which
      tests a slightly lower epsilon and times out. The cost of probing is every other
      interval running to the deadline at an epsilon only 20% below one that finishes;
      what it buys is that the controller notices at once when the input becomes easier.
    * Knowledge goes stale when the input or the deadline changes. If lo finishes, or hi
      times out, the window is wrong (a restart): the stale end is dropped, the epsilon
      just seen becomes the other end (a hi that timed out is the new lo; a lo that
      finished, the new hi), and the search expands again from it, first by the window's
      own width (a factor `resolution`) and then with the doubling fast-start steps. So
      one surprise, such as timing noise or a small change in demand, only slides the
      window by one step and settles again at once, while a real change in input or
      deadline is chased with the same O(log log) steps as the first search
      (`recovery_bound()`).
    * Two knobs, off by default, trade reaction time for steadiness. `hold` (1): in the
      settled state, run hi this many times before probing lo, so that only one
      interval in hold + 1 times out (a timeout delivers the allocation of an
      early-terminated inner loop, well below that of a finishing one) at the cost of
      noticing an easier input up to hold intervals later. `patience` (1): believe a
      stale end only after seeing it this many times in a row, retrying the same
      epsilon meanwhile; for wall-clock runs on shared machines, where contention makes
      single runs time out that normally finish.
    * Epsilon stays in [eps_min, eps_max] (or is 0 before the first timeout): steps are
      clipped to the bounds, and a bound that keeps finishing (eps_min) or timing out
      (eps_max) is held, phase "bound".

    `convergence_bound()` gives the number of intervals within which the search
    settles on stable input whose outcome is monotone in epsilon (every epsilon at or
    above some threshold finishes, every one below times out).

    Parameters
    ----------
    eps_min, eps_max : float
        The bounds on epsilon, `0 < eps_min < eps_max < 1`.
    start : float
        raise(0), in [eps_min, eps_max].
    initial : float
        The first interval's epsilon: 0 (line 2) or in [eps_min, eps_max].
    growth : float
        The fast start's first factor, `> 1`.
    resolution : float
        The settled window's hi / lo, `> 1`.
    hold : int
        Settled: hi runs this many times before lo is probed.
    patience : int
        A stale end is believed after this many times in a row.

    Raises
    ------
    ValueError
        A value out of its bounds, naming it.
    """

    def __init__(self, *, eps_min=EPS_MIN, eps_max=EPS_MAX, start=EPS_START, initial=0.0,
                 growth=GROWTH, resolution=RESOLUTION, hold=1, patience=1):
        eps_min = check.real(eps_min, "eps_min", finite=True)
        eps_max = check.real(eps_max, "eps_max", finite=True)
        if not 0.0 < eps_min < eps_max < 1.0:
            raise ValueError(f"epsilon bounds must satisfy 0 < eps_min < eps_max < 1, "
                             f"got eps_min={eps_min}, eps_max={eps_max}")
        start = check.real(start, "start", finite=True)
        if not eps_min <= start <= eps_max:
            raise ValueError(f"start must lie in [eps_min, eps_max] = [{eps_min}, {eps_max}], got {start}")
        initial = check.real(initial, "initial", finite=True)
        if initial != 0.0 and not eps_min <= initial <= eps_max:
            raise ValueError(f"initial must be 0 or lie in [eps_min, eps_max] = "
                             f"[{eps_min}, {eps_max}], got {initial}")
        growth = check.real(growth, "growth", finite=True)
        resolution = check.real(resolution, "resolution", finite=True)
        if growth <= 1.0:
            raise ValueError(f"growth must be greater than 1, got {growth}")
        if resolution <= 1.0:
            raise ValueError(f"resolution must be greater than 1, got {resolution}")
        self.hold = check.positive_int(hold, "hold", allow_none=False)
        self.patience = check.positive_int(patience, "patience", allow_none=False)
        self.eps_min, self.eps_max, self.start, self.initial = eps_min, eps_max, start, initial
        self.growth, self.resolution = growth, resolution
        self._width = math.log(eps_max / eps_min)
        self.reset()

    def reset(self):
        """Forget everything: the next interval runs at `initial` (0 by default)."""
        self.epsilon = self.initial   # the epsilon for the next interval
        self.lo = None                # last epsilon that timed out (window's lower end)
        self.hi = None                # last epsilon that finished (window's upper end)
        self._step = math.log(self.growth)
        self._direction = 0           # +1 / -1 while expanding up / down, else 0
        self._held = 0                # settled finishes at hi since lo was last probed
        self._surprises = 0           # stale-end outcomes in a row
        self._exact = False           # epsilon 0 finished last time it ran
        self.restarts = 0             # times the window slid because an end went stale

    @property
    def phase(self):
        """What the search is doing when it runs `epsilon`: 'zero' (exact, the paper's
        start), 'exact' (epsilon 0 has finished inside the deadline: nothing to search),
        'expand' (fast start, one side of the window unknown), 'bisect', 'settled'
        (hi / lo <= resolution), or 'bound' (held at eps_min or eps_max). The search
        has settled in 'settled', 'bound' and 'exact' (SETTLED_PHASES)."""
        e = self.epsilon
        if e == 0.0:
            return EXACT if self._exact else ZERO
        if self.lo is not None and self.hi is not None and self.lo < self.hi:
            return SETTLED if self.hi <= self.lo * self.resolution else BISECT
        if (e == self.eps_min and self.hi == e) or (e == self.eps_max and self.lo == e):
            return BOUND
        return EXPAND

    @property
    def settled(self):
        return self.phase in SETTLED_PHASES

    def update(self, timed_out):
        """Record the outcome of running `epsilon`; return the epsilon for the next interval
        (raise() on a timeout, lower() otherwise).

        Parameters
        ----------
        timed_out : bool

        Returns
        -------
        float
        """
        e = self.epsilon
        if timed_out:
            self.epsilon = self._raise(e)
        else:
            self.epsilon = self._lower(e)
        return self.epsilon

    def _clip(self, e):
        return min(self.eps_max, max(self.eps_min, e))

    def _expand(self, e, direction, first_step=None):
        """One fast-start step from e: the first step in a direction is `first_step`
        (default log(growth)), each further one in the same direction doubles."""
        if direction == self._direction:
            self._step = min(2.0 * self._step, self._width)
        else:
            self._step = math.log(self.growth) if first_step is None else first_step
            self._direction = direction
        return self._clip(e * math.exp(direction * self._step))

    def _surprised(self):
        """A stale end of the window was seen; True once it has been seen `patience`
        times in a row (then the window slides), False while the end is retried."""
        self._surprises += 1
        if self._surprises < self.patience:
            return False
        self._surprises = 0
        self.restarts += 1
        self._direction = 0
        return True

    def _raise(self, e):
        if e == 0.0:
            self._exact = False
            return self.start                 # raise(0): leave exact EDRF
        first = None
        if self.hi is not None and self.hi <= e:   # a finishing epsilon timed out
            if not self._surprised():
                return e                      # retry it before believing the change
            self.hi = None                    # stale end: slide the window up by its
            first = math.log(self.resolution)  # own width, fast start from there
        else:
            self._surprises = 0
        self.lo = e
        self._held = 0
        if self.hi is None:
            return self._expand(e, +1, first)
        self._direction = 0
        if self.hi <= self.lo * self.resolution:
            return self.hi                    # settled: back to the finishing end
        return self._clip(math.sqrt(self.lo * self.hi))

    def _lower(self, e):
        if e == 0.0:
            self._exact = True
            return 0.0                        # exact EDRF fits the deadline: stay exact
        first = None
        if self.lo is not None and self.lo >= e:   # a timing-out epsilon finished
            if not self._surprised():
                return e
            self.lo = None                    # stale end: slide the window down
            first = math.log(self.resolution)
        else:
            self._surprises = 0
        self.hi = e
        if self.lo is None:
            self._held = 0
            return self._expand(e, -1, first)
        self._direction = 0
        if self.hi <= self.lo * self.resolution:   # settled: probe the lower end
            self._held += 1                   # after `hold` finishing intervals
            if self._held < self.hold:
                return e
            self._held = 0
            return self.lo
        return self._clip(math.sqrt(self.lo * self.hi))

    def _bound(self, first_step):
        # k expanding steps of first_step * (1, 2, 4, ...) cover W once
        # first_step * (2^k - 1) >= W; the last one leaves a window of width
        # w <= min(W, first_step * 2^(k - 1)), and ceil(log2(w / log(resolution)))
        # bisections narrow it to the resolution.
        k = max(0, math.ceil(math.log2(self._width / first_step + 1.0)))
        w = min(self._width, first_step * 2.0 ** max(k - 1, 0))
        return k + max(0, math.ceil(math.log2(w / math.log(self.resolution))))

    def convergence_bound(self):
        """On stable input whose outcome is monotone in epsilon (every epsilon at or above
        some threshold finishes, every one below times out), the interval with this
        number (counting from 1) and all after it run in phase 'settled' or 'bound':
        one interval at epsilon 0 (when initial is 0), one at `start`, at most
        k = ceil(log2(W / log(growth) + 1)) expanding steps (W = log(eps_max / eps_min);
        the steps add up to log(growth) * (2^k - 1)), and ceil(log2(w / log(resolution)))
        bisections of the last window, of width w <= min(W, log(growth) * 2^(k - 1))."""
        return (1 if self.initial == 0.0 else 0) + 1 + self._bound(math.log(self.growth)) + 1

    def recovery_bound(self):
        """After the threshold moves (new input or deadline) while the search is settled,
        it is settled again within this many intervals, input then being stable and
        monotone: at most hold + 1 intervals until the stale end is run, patience - 1
        retries of it, then expansion from a first step of log(resolution) and
        bisection as in `convergence_bound`, plus the settled interval itself."""
        return self.hold + self.patience + self._bound(math.log(self.resolution)) + 1

    def state(self):
        """The search state as a dict, for the tidy rows."""
        return {"phase": self.phase, "window_lo": self.lo, "window_hi": self.hi,
                "restarts": self.restarts}


def default_baseline():
    """The exact method each interval is compared with (drfbench.dcdrf.BASELINE).

    Returns
    -------
    str
    """
    return BASELINE


def _threads_for(method, threads):
    """`threads` for a method that runs threads, 1 for one that does not."""
    return threads if api.method_info(method).takes_option("threads") else 1


def tunable_methods():
    """The registered methods the controller can tune: those that take epsilon.

    Returns
    -------
    tuple of str
    """
    return tuple(m for m in api.methods(takes=DEMANDS)
                 if api.method_info(m).takes_option(EPSILON.name))


def run_intervals(demands, n_intervals, *, controller=None, method="dcdrf", threads=None,
                  weights=None, schedule=None, seed=0, baseline="auto", on_row=None,
                  first_interval=1, **budget):
    """Run DC-DRF's outer loop for `n_intervals` control intervals; return one dict per
    interval.

    Parameters
    ----------
    demands : Workload or scipy.sparse CSR matrix
        A `drfbench.dcdrf.workloads.Workload` (its weights are used unless `weights` is
        given) or CSR demands, float32 or float64 data in (0, 1]; when `schedule` changes
        demands, their data array is modified in place.
    n_intervals : int
    controller : EpsilonController, optional
        Default: a fresh one with default settings; it is used as is, not reset, so a run
        can continue another.
    method : str
        The DC-DRF method run each interval ('dcdrf' or 'sdcdrf').
    threads : int, optional
        OpenMP threads, as drfbench.allocate takes them.
    weights : array_like, optional
        Per tenant, as drfbench.allocate takes them.
    schedule : Schedule, optional
        A `drfbench.dcdrf.churn.Schedule` (default: stable input).
    seed : int
        The schedule's seed.
    baseline : str or None
        Exact method for the metrics ('auto': `default_baseline()`), or None to skip them
        (metrics NaN). It runs again only when the demands have changed.
    on_row : callable, optional
        Called with each row as soon as it is complete (progress lines).
    first_interval : int
        The first interval's number.
    **budget
        Exactly one of drfbench.allocate's budgets, by name: the deadline, a base wall-clock
        deadline in seconds, or max_rounds, a base round budget; the schedule's deadline
        factors multiply it (a round budget rounded, at least 1).

    Returns
    -------
    list of dict
        One row per interval: interval, events ('churn;shift;deadline' as they happen, ''
        otherwise), changed_tenants, mode ('seconds' or 'rounds'), deadline (seconds or
        rounds), epsilon, phase, window_lo, window_hi (the search window when epsilon was
        chosen), elapsed (the kernel's own seconds), rounds, timed_out, utilization_ratio,
        fairness, shortfall_worst (against the exact allocation of the same interval's
        demands), baseline, baseline_rounds, baseline_elapsed, next_epsilon.

    Raises
    ------
    ValueError
        Not exactly one of deadline and max_rounds, a method without epsilon, a baseline
        that is not exact, demands that are not canonical CSR, a bad controller or schedule.
    """
    if hasattr(demands, "demands") and hasattr(demands, "weights"):   # a Workload
        weights = demands.weights if weights is None else weights
        demands = demands.demands
    unknown = sorted(set(budget) - {DEADLINE.name, MAX_ROUNDS.name})
    if unknown:
        raise TypeError(f"run_intervals() got unexpected keyword argument(s) {', '.join(unknown)}")
    given = [(name, value) for name, value in budget.items() if value is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of deadline (seconds) and max_rounds (a round budget)")
    (name, base), = given
    seconds = name == DEADLINE.name
    if seconds:
        base = check.real(base, name, finite=True)
        if base <= 0:
            raise ValueError(f"deadline must be positive (seconds), got {base}")
    else:
        base = check.positive_int(base, name, allow_none=False)
    n_intervals = check.positive_int(n_intervals, "n_intervals", allow_none=False)
    first_interval = check.positive_int(first_interval, "first_interval", allow_none=False)
    if controller is None:
        controller = EpsilonController()
    elif not isinstance(controller, EpsilonController):
        raise ValueError(f"controller must be an EpsilonController, got {controller!r}")
    if not api.method_info(method).takes_option(EPSILON.name):
        raise ValueError(f"method {method!r} takes no epsilon; the controller needs one that "
                         f"does: {', '.join(tunable_methods())}")
    if baseline == "auto":
        baseline = default_baseline()
    if baseline is not None and not api.method_info(baseline).exact:
        raise ValueError(f"baseline {baseline!r} is not an exact method")
    schedule = Schedule.stable() if schedule is None else schedule
    if not isinstance(schedule, Schedule):
        raise ValueError(f"schedule must be a drfbench.dcdrf.churn.Schedule, got {schedule!r}")
    matrix = check.demand_matrix(demands)
    shared = getattr(demands, "data", None)
    if schedule != Schedule.stable() and not (
            isinstance(shared, np.ndarray) and shared.shape == matrix.data.shape
            and np.shares_memory(shared, matrix.data)):
        raise ValueError("demands must be a canonical CSR matrix (float32/float64, int32 "
                         "indices, int64 indptr) for the schedule to change them in place")
    churn = Churn(matrix, schedule, seed)
    threads = resolve_threads(threads)

    rows, exact = [], None
    for interval in range(first_interval, first_interval + n_intervals):
        change = churn.apply(interval)
        factor = schedule.deadline_factor(interval)
        if seconds:
            mode, shown = "seconds", base * factor
        else:
            mode, shown = "rounds", max(1, int(math.floor(base * factor + 0.5)))
        epsilon, state = controller.epsilon, controller.state()
        options = {EPSILON.name: epsilon, THREADS.name: _threads_for(method, threads), name: shown}
        result = allocate(matrix, method, weights=weights, **options)
        next_epsilon = controller.update(result.timed_out)
        row = {"interval": interval, "events": ";".join(change.events),
               "changed_tenants": int(change.tenants.size), "mode": mode, DEADLINE.name: shown,
               EPSILON.name: epsilon, **state, "elapsed": result.elapsed,
               "rounds": result.rounds, "timed_out": result.timed_out,
               THREADS.name: result.threads}
        if baseline is not None:
            if exact is None or change.demands_changed:
                exact = allocate(matrix, baseline, weights=weights,
                                     threads=_threads_for(baseline, threads))
            row.update(utilization_ratio=metrics.utilization_ratio(result.allocation, exact.allocation),
                       fairness=metrics.fairness(result.allocation, exact.allocation),
                       shortfall_worst=metrics.shortfall_outliers(result.allocation, exact.allocation)[0],
                       baseline=baseline, baseline_rounds=exact.rounds,
                       baseline_elapsed=exact.elapsed)
        else:
            row.update(utilization_ratio=math.nan, fairness=math.nan, shortfall_worst=math.nan,
                       baseline="", baseline_rounds=0, baseline_elapsed=math.nan)
        row["next_epsilon"] = next_epsilon
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def converged_epsilon(rows, last=CONVERGED_LAST):
    """The epsilon a run converged to: the median of the epsilons of its last `last` intervals
    that finished inside the deadline.

    In the settled oscillation these are the window's upper end, the epsilon that just
    finishes.

    Parameters
    ----------
    rows : list of dict
        `run_intervals`' rows.
    last : int

    Returns
    -------
    float
        NaN if none finished.
    """
    last = check.positive_int(last, "last", allow_none=False)
    done = [r[EPSILON.name] for r in rows if not r["timed_out"]][-last:]
    return statistics.median(done) if done else math.nan


def _segment(rows, at):
    """Rows from interval `at` up to the next abrupt change ('shift' or 'deadline' event)."""
    out = []
    for r in sorted(rows, key=lambda r: r["interval"]):
        if r["interval"] < at:
            continue
        if out and {"shift", "deadline"} & set(str(r["events"]).split(";")):
            break
        out.append(r)
    if not out or out[0]["interval"] != at:
        raise ValueError(f"no row for interval {at}")
    return out


def settle_intervals(rows, at, band=SETTLE_BAND, last=CONVERGED_LAST):
    """Intervals the search took to settle after a change at interval `at` (or after the
    start, at=1): the classic settling time.

    The segment runs from `at` up to the next abrupt change (a 'shift' or 'deadline' event)
    or the end of the run; v is the epsilon it converged to (`converged_epsilon` of the
    segment). The band, `resolution**2` by default, holds the settled oscillation between
    hi = v and lo = v / resolution and one slide of the window by a timing blip.

    Parameters
    ----------
    rows : list of dict
        `run_intervals`' rows.
    at : int
    band : float
        At least 1.
    last : int
        As `converged_epsilon` takes it.

    Returns
    -------
    int or None
        The smallest `s >= 0` such that every epsilon of intervals at + s to the segment's
        end lies within [v / band, v * band]; 0: the change was absorbed without leaving the
        band; None when the segment converged to nothing (no interval finished) or never
        entered the band.

    Raises
    ------
    ValueError
        A band below 1.
    """
    band = check.real(band, "band", finite=True)
    if band < 1:
        raise ValueError(f"band must be at least 1, got {band}")
    segment = _segment(rows, at)
    v = converged_epsilon(segment, last)
    if math.isnan(v):
        return None
    lo, hi = v / band * (1 - 1e-12), v * band * (1 + 1e-12)
    s = len(segment)
    while s > 0 and lo <= segment[s - 1][EPSILON.name] <= hi:
        s -= 1
    return s if s < len(segment) else None


def resettle_intervals(rows, at):
    """Intervals from a change at interval `at` until the search is settled again.

    Unlike `settle_intervals`, it needs no converged value, and it counts from the first
    disturbance after the change, which on a noisy machine may be a timing blip rather than
    the change itself.

    Parameters
    ----------
    rows : list of dict
        `run_intervals`' rows.
    at : int

    Returns
    -------
    int or None
        0 if every interval from `at` to the next abrupt change (or the end) ran in a
        settled phase; otherwise j - at for the first settled interval j after the first
        unsettled one; None if it never settled again.
    """
    segment = _segment(rows, at)
    settled = [r["phase"] in SETTLED_PHASES for r in segment]
    if all(settled):
        return 0
    first = settled.index(False)
    return next((j for j in range(first + 1, len(segment)) if settled[j]), None)


# ----------------------------------------------------------------------- command line

def _ints(text):
    return [int(x) for x in text.split(",") if x]


def _changes(text):
    pairs = []
    for item in (x for x in text.split(",") if x):
        j, _, f = item.partition(":")
        pairs.append((int(j), float(f)))
    return tuple(pairs)


def parser():
    """The controller's parser on its own (main, parse_args): the step's, its declared
    options' flags made as under python -m drfbench.dcdrf (_command.steps)."""
    _, sub = steps("dcdrf", __doc__.split("\n\n")[0], {"controller": ""}, flags=(),
                   sweeps={"controller": STEP_SWEEPS["controller"]})
    arguments(sub["controller"])
    return sub["controller"]


def arguments(p):
    """The step's flags, added to `p` (its parser, alone or under python -m drfbench.dcdrf)."""
    p.add_argument("--demand-profile", default="G0", choices=workloads.DEMAND_PROFILES, help="Table 3")
    p.add_argument("--tenants", type=COUNT, default=20_000)
    p.add_argument("--resources", type=COUNT, default=2_000)
    p.add_argument("--seed", type=NATURAL, default=0, help="workload and churn seed")
    p.add_argument("--workload", type=input_file,
                   help="load this .npz workload instead of generating one")
    p.add_argument("--intervals", type=COUNT, default=80, help="control intervals per run")
    p.add_argument("--mode", choices=("seconds", "rounds"), default="seconds",
                   help="budgets in seconds (each interval's deadline) or in rounds (its "
                        "max_rounds: deterministic)")
    p.add_argument("--budgets", type=float, nargs="+", required=True,
                   help="base budget(s): one run each")
    p.add_argument("--relative", action="store_true",
                   help="budgets are multiples of a reference measured on the initial "
                        "demands with each run's thread count: the exact run's kernel time "
                        "(median of 5, after one call) in seconds mode, its rounds in "
                        "round-budget mode")
    p.add_argument("--method", default="dcdrf", choices=tunable_methods())
    p.add_argument("--baseline", default="auto",
                   help="exact method for the metrics ('auto': edrf-event; 'none' skips them)")
    p.add_argument("--schedule", default="stable", choices=("stable", "paper"),
                   help="demand and deadline changes (paper: section 5.6, Figure 11)")
    p.add_argument("--churn-fraction", type=float)
    p.add_argument("--churn-magnitude", type=float)
    p.add_argument("--shift-at", type=_ints)
    p.add_argument("--shift-fraction", type=float)
    p.add_argument("--shift-magnitude", type=float)
    p.add_argument("--deadline-changes", type=_changes,
                   help="INTERVAL:FACTOR,... e.g. 50:1.25,70:1 (the paper's)")
    p.add_argument("--eps-min", type=float, default=EPS_MIN)
    p.add_argument("--eps-max", type=float, default=EPS_MAX)
    p.add_argument("--eps-start", type=float, default=EPS_START, help="raise(0)")
    p.add_argument("--growth", type=float, default=GROWTH)
    p.add_argument("--resolution", type=float, default=RESOLUTION)
    p.add_argument("--hold", type=COUNT, default=1,
                   help="settled: finishing intervals at hi before each probe of lo")
    p.add_argument("--patience", type=COUNT, default=1,
                   help="surprises in a row at an end of the window before it slides")
    p.add_argument("--converged-last", type=COUNT, default=CONVERGED_LAST,
                   help="converged epsilon: median of this many last finishing epsilons")
    p.add_argument("--csv", type=output, required=True, help="tidy rows, one per interval")
    p.add_argument("--summary", type=output,
                   help="one row per run: converged epsilon, settling times")


def parse_args(argv):
    p = parser()
    args = p.parse_args(argv)
    return checked(p, args)


def checked(p, args):
    """The parsed arguments, with what depends on several of them checked (p.error)."""
    if any(not (v > 0 and math.isfinite(v)) for v in args.budgets):
        p.error("--budgets need positive, finite values")
    if args.mode == "rounds" and not args.relative:
        if any(v != int(v) for v in args.budgets):
            p.error("--budgets in rounds need whole round counts (or --relative)")
        args.budgets = [int(v) for v in args.budgets]
    threads = options_of(args)["threads"]
    try:
        args.threads = ([1] if not api.method_info(args.method).takes_option("threads") else
                        list(dict.fromkeys(resolve_threads(t) for t in threads)))
    except (TypeError, ValueError) as exc:
        p.error(f"--threads: {exc}")
    overrides = {k: getattr(args, k) for k in ("churn_fraction", "churn_magnitude", "shift_at",
                                                "shift_fraction", "shift_magnitude",
                                                "deadline_changes")
                 if getattr(args, k) is not None}
    base = Schedule.paper() if args.schedule == "paper" else Schedule.stable()
    try:
        args.schedule_obj = Schedule(**{**base.__dict__, **overrides})
        EpsilonController(**_controller_settings(args))
    except ValueError as exc:
        p.error(str(exc))
    if args.baseline == "none":
        args.baseline = None
    elif args.baseline != "auto" and args.baseline not in api.methods(takes=DEMANDS):
        p.error(f"unknown baseline {args.baseline!r}; registered: "
                f"{', '.join(api.methods(takes=DEMANDS))}")
    return args


def _controller_settings(args):
    return dict(eps_min=args.eps_min, eps_max=args.eps_max, start=args.eps_start,
                growth=args.growth, resolution=args.resolution, hold=args.hold,
                patience=args.patience)


def _reference(matrix, method, weights, threads, rounds_mode):
    """Exact run of `method` at epsilon 0 on `threads`: its rounds, or the median of
    REFERENCE_CALLS kernel times after one untimed call (the first touches the memory)."""
    def run():
        return allocate(matrix, method, weights=weights, threads=_threads_for(method, threads))
    if rounds_mode:
        return run().rounds
    run()
    return statistics.median(run().elapsed for _ in range(REFERENCE_CALLS))


def _progress(row):
    def fmt(v):
        return "-" if v is None else f"{v:.3g}"
    window = f"[{fmt(row['window_lo'])}, {fmt(row['window_hi'])}]"
    unit = "s" if row["mode"] == "seconds" else " rounds"
    print(f"interval {row['interval']:3d}  deadline {row[DEADLINE.name]:.4g}{unit}  "
          f"eps {row[EPSILON.name]:9.3e}  {row['phase']:7s} {window:22s} "
          f"elapsed {row['elapsed']:7.4f} s  rounds {row['rounds']:5d}  "
          f"{'TIMEOUT' if row['timed_out'] else 'ok     '}  "
          f"util {row['utilization_ratio']:.5f}  fair {row['fairness']:.2e}"
          + (f"  [{row['events']}]" if row["events"] else ""), flush=True)


def main(argv=None):
    """The controller's step on its own: its --csv and --summary written together, or
    neither; (rows, summary)."""
    p = parser()
    return run(p, lambda args: _main(checked(p, args)), argv, command=None)


def step(p, args):
    """The step under python -m drfbench.dcdrf (`p` its parser): as `main`; the file to
    report, --csv."""
    _main(checked(p, args))
    return args.csv


def _main(args):
    stamp = tidy.stamp()
    print(f"# drfbench {stamp['drfbench_version']} on {stamp['cpu_model']} "
          f"({stamp['cpu_count']} cpus, openmp={stamp['openmp']})", flush=True)
    t0 = time.perf_counter()
    wl = (workloads.load(args.workload) if args.workload else
          workloads.generate(args.demand_profile, args.tenants, args.resources, seed=args.seed))
    matrix = check.demand_matrix(wl.demands)
    original = matrix.data.copy()
    print(f"# workload {wl.demand_profile} {wl.n_tenants} x {wl.n_resources}, {wl.nnz} non-zeros, "
          f"{time.perf_counter() - t0:.2f} s", flush=True)
    rounds_mode = args.mode == "rounds"
    values = args.budgets
    schedule = args.schedule_obj
    rows, summary = [], []
    reference = None
    for threads in args.threads:
        if args.relative:          # each thread count's own: its budgets span its own range
            matrix.data[:] = original
            reference = _reference(matrix, args.method, wl.weights, threads, rounds_mode)
            print(f"# reference (exact {args.method}, {threads} threads): "
                  f"{reference:.6g} {'rounds' if rounds_mode else 's'}", flush=True)
        for value in values:
            matrix.data[:] = original          # every run starts from the same demands
            base = value * reference if args.relative else value
            if rounds_mode:
                base = max(1, int(math.floor(base + 0.5)))
            print(f"# run: {threads} threads, base {'round budget' if rounds_mode else 'deadline'} "
                  f"{base:.6g}{'' if rounds_mode else ' s'}"
                  + (f" ({value} x reference)" if args.relative else ""), flush=True)
            ctl = EpsilonController(**_controller_settings(args))
            run_rows = run_intervals(
                matrix, args.intervals, controller=ctl, method=args.method,
                threads=threads, weights=wl.weights,
                schedule=schedule, seed=args.seed, baseline=args.baseline, on_row=_progress,
                **{(MAX_ROUNDS if rounds_mode else DEADLINE).name: base})
            head = {"demand_profile": wl.demand_profile, "tenants": wl.n_tenants, "resources": wl.n_resources,
                    "nnz": wl.nnz, "seed": args.seed, "method": args.method,
                    "schedule": args.schedule, "base_deadline": base,
                    "relative": value if args.relative else "", "reference": reference or "",
                    **_controller_settings(args)}
            rows += [{**head, **r, **stamp} for r in run_rows]
            eps = converged_epsilon(run_rows, args.converged_last)
            points = [j for j in (1,) + schedule.change_points
                      if any(r["interval"] == j for r in run_rows)]
            settle = {j: settle_intervals(run_rows, j, band=args.resolution ** 2,
                                          last=args.converged_last) for j in points}
            resettle = {j: resettle_intervals(run_rows, j) for j in points}
            first = next((r["interval"] for r in run_rows if r["phase"] in SETTLED_PHASES), None)
            summary.append({**head, "threads": threads, "mode": run_rows[0]["mode"],
                            "converged_epsilon": eps, "first_settled": first,
                            "settle": ";".join(f"{j}:{'' if s is None else s}" for j, s in settle.items()),
                            "resettle": ";".join(f"{j}:{'' if s is None else s}"
                                                 for j, s in resettle.items()),
                            "timeouts": sum(r["timed_out"] for r in run_rows),
                            "restarts": ctl.restarts, **stamp})
            print(f"# converged epsilon {eps:.4g} (median of the last {args.converged_last} "
                  f"finishing intervals); first settled at interval {first}"
                  + "".join(f"; after {'the start' if j == 1 else f'the change at {j}'}: "
                            f"settled in {settle[j]} (band), {resettle[j]} (phase) intervals"
                            for j in points), flush=True)
    tidy.write(rows, args.csv)
    if args.summary:
        tidy.write(summary, args.summary)
    return rows, summary

