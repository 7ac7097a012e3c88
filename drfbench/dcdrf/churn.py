"""Demand churn and deadline changes over control intervals (DC-DRF paper, section 5.6).

Figure 11 runs DC-DRF's outer loop over 80 control intervals while the input changes:

* every interval a random 5% of tenants change their demand by 5% ("churn");
* at interval 30 half the tenants change their demand by 50% ("shift");
* at interval 50 the deadline goes from 8 s to 10 s, and at interval 70 back to 8 s
  ("deadline"): a factor 1.25 on the base deadline, then 1.0 again.

`Schedule` holds these settings (`Schedule.paper()` is the above, `Schedule.stable()`
changes nothing) and `Churn` applies them, interval by interval, to a demand matrix::

    churn = Churn(workload.demands, Schedule.paper(), seed=0)
    change = churn.apply(interval)     # modifies workload.demands.data in place
    change.events, change.tenants      # ('churn', 'shift'), sorted indices of changed rows
    schedule.deadline_factor(interval) # multiplies the base deadline (seconds or rounds)

Choices made where the paper is silent:

* "Change their demand by f" is read per entry: each non-zero D_ir of a changing tenant
  is multiplied by its own factor, uniform on [1 - f, 1 + f], and clipped to
  [tiny, 1] (tiny: the smallest normal number of the data's float type), so values stay
  in (0, 1]. Per entry, not per tenant, because EDRF normalises each row by its largest
  entry (d_ir = D_ir / max_r D_ir): multiplying a whole row by one constant leaves the
  allocation problem unchanged, and the change would be invisible to the allocator.
* The sparsity pattern never changes (no tenant gains or drops a resource), so the
  demand matrix is updated in place, in its data array, without regenerating the
  workload; a tenant's changes compound over the intervals in which it is chosen.
* Churn starts at interval 2 (interval 1 runs on the generated demands); the shift at
  interval 30 comes on top of that interval's churn. "k% of tenants" is round(k% n),
  drawn without replacement, and the shift's tenants are drawn independently of the
  churn's.
* Every draw comes from numpy's default generator seeded by (seed, interval, kind), so
  interval j's change depends only on the seed and j, never on what ran before: the
  same seed gives the same demands, bit for bit, in every interval.
* Deadline changes are factors on the base deadline, so the same schedule serves
  wall-clock seconds and round budgets (which are rounded to whole rounds, at least 1):
  the paper's 8 s -> 10 s -> 8 s becomes factor 1.25 at interval 50 and 1.0 at 70,
  whatever base deadline suits the machine and workload.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["Schedule", "Change", "Churn", "perturb_rows"]

_CHURN, _SHIFT = 0, 1   # generator streams


def _fraction(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    return float(value)


def _interval(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive interval number, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Schedule:
    """What changes in which control interval (intervals are numbered from 1).

    Parameters
    ----------
    churn_fraction : float
        The fraction of the tenants that change each entry by up to `+-churn_magnitude`
        (relative) in every interval from `churn_start` on.
    churn_magnitude : float
    churn_start : int
    shift_at : tuple of int
        At each of these intervals, `shift_fraction` of the tenants change each entry by up
        to `+-shift_magnitude`.
    shift_fraction : float
    shift_magnitude : float
    deadline_changes : tuple of (int, float)
        (interval, factor): from that interval on the deadline is factor times the base
        deadline (factor 1 before the first change).

    Raises
    ------
    ValueError
        A malformed shift_at or deadline_changes, naming it.
    """
    churn_fraction: float = 0.0
    churn_magnitude: float = 0.0
    churn_start: int = 2
    shift_at: tuple = ()
    shift_fraction: float = 0.0
    shift_magnitude: float = 0.0
    deadline_changes: tuple = ()

    def __post_init__(self):
        for name in ("churn_fraction", "churn_magnitude", "shift_fraction", "shift_magnitude"):
            object.__setattr__(self, name, _fraction(getattr(self, name), name))
        object.__setattr__(self, "churn_start", _interval(self.churn_start, "churn_start"))
        try:
            shifts = tuple(sorted({_interval(j, "shift_at") for j in self.shift_at}))
        except TypeError:
            raise ValueError(f"shift_at must be a sequence of intervals, got {self.shift_at!r}") from None
        object.__setattr__(self, "shift_at", shifts)
        changes = {}
        try:
            pairs = [tuple(p) for p in self.deadline_changes]
        except TypeError:
            raise ValueError("deadline_changes must be (interval, factor) pairs, "
                             f"got {self.deadline_changes!r}") from None
        for pair in pairs:
            if len(pair) != 2:
                raise ValueError(f"deadline_changes must be (interval, factor) pairs, got {pair!r}")
            j, factor = _interval(pair[0], "deadline_changes interval"), pair[1]
            if (isinstance(factor, bool) or not isinstance(factor, numbers.Real)
                    or not math.isfinite(factor) or factor <= 0):
                raise ValueError(f"deadline_changes factor must be a positive number, got {factor!r}")
            if j in changes:
                raise ValueError(f"deadline_changes names interval {j} twice")
            changes[j] = float(factor)
        object.__setattr__(self, "deadline_changes", tuple(sorted(changes.items())))

    @classmethod
    def paper(cls, **overrides):
        """Section 5.6: 5% of tenants by 5% each interval, half by 50% at interval 30, deadline
        x1.25 from interval 50 and back at 70 (8 s -> 10 s -> 8 s).

        Parameters
        ----------
        **overrides
            Fields set otherwise.

        Returns
        -------
        Schedule
        """
        settings = dict(churn_fraction=0.05, churn_magnitude=0.05, shift_at=(30,),
                        shift_fraction=0.5, shift_magnitude=0.5,
                        deadline_changes=((50, 1.25), (70, 1.0)))
        settings.update(overrides)
        return cls(**settings)

    @classmethod
    def stable(cls):
        """Nothing changes: the input of Figure 10's convergence runs."""
        return cls()

    def deadline_factor(self, interval):
        """The factor on the base deadline in force during `interval`."""
        factor = 1.0
        for j, f in self.deadline_changes:
            if j <= interval:
                factor = f
        return factor

    def events(self, interval):
        """Names of the changes that happen at the start of `interval`, in a fixed order."""
        out = []
        if self.churn_fraction > 0 and self.churn_magnitude > 0 and interval >= self.churn_start:
            out.append("churn")
        if interval in self.shift_at and self.shift_fraction > 0 and self.shift_magnitude > 0:
            out.append("shift")
        if any(j == interval for j, _ in self.deadline_changes):
            out.append("deadline")
        return tuple(out)

    @property
    def change_points(self):
        """Intervals of the abrupt changes (shifts and deadline changes), sorted."""
        return tuple(sorted(set(self.shift_at) | {j for j, _ in self.deadline_changes}))


@dataclass(frozen=True)
class Change:
    """What `Churn.apply` did.

    Attributes
    ----------
    interval : int
    events : tuple of str
        Event names.
    tenants : numpy.ndarray
        The sorted indices of the changed tenants.
    """
    interval: int
    events: tuple
    tenants: np.ndarray

    @property
    def demands_changed(self):
        return self.tenants.size > 0


def perturb_rows(demands, tenants, magnitude, rng):
    """Multiply every stored entry of rows `tenants` of CSR `demands` by its own factor,
    uniform on [1 - magnitude, 1 + magnitude], clipped to [tiny, 1]; in place, in
    demands.data (same sparsity pattern). Factors are drawn in the order of `tenants`."""
    tenants = np.asarray(tenants, dtype=np.int64)
    data, indptr = demands.data, demands.indptr
    starts = indptr[tenants].astype(np.int64)
    lengths = indptr[tenants + 1].astype(np.int64) - starts
    total = int(lengths.sum())
    if total == 0 or magnitude == 0:
        return
    # position of each changed entry: its row's start plus its rank within the row
    first = np.cumsum(lengths) - lengths
    positions = np.repeat(starts - first, lengths) + np.arange(total, dtype=np.int64)
    factors = rng.uniform(1.0 - magnitude, 1.0 + magnitude, size=total)
    values = data[positions].astype(np.float64) * factors
    np.clip(values, np.finfo(data.dtype).tiny, 1.0, out=values)
    data[positions] = values.astype(data.dtype)


class Churn:
    """Applies a `Schedule` to a CSR demand matrix in place, one interval at a time.

    Parameters
    ----------
    demands : scipy.sparse CSR matrix or array
        Float data in (0, 1], e.g. `Workload.demands`; its data array is modified in place,
        its index arrays never.
    schedule : Schedule
    seed : int
        `>= 0`; interval j's draws depend only on (seed, j).

    Raises
    ------
    ValueError
        Demands that are not float32/float64 CSR, a bad schedule or seed.
    """

    def __init__(self, demands, schedule: Schedule, seed: int = 0):
        if not (sp.issparse(demands) and demands.format == "csr"):
            raise ValueError("churn needs the demands as a scipy.sparse CSR matrix")
        if demands.dtype not in (np.float32, np.float64):
            raise ValueError(f"churn needs float32 or float64 demands, got {demands.dtype}")
        if not isinstance(schedule, Schedule):
            raise ValueError(f"schedule must be a drfbench.dcdrf.churn.Schedule, got {schedule!r}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.demands = demands
        self.schedule = schedule
        self.seed = int(seed)

    def _tenants(self, interval, stream, fraction):
        n = self.demands.shape[0]
        k = min(n, int(math.floor(fraction * n + 0.5)))
        rng = np.random.default_rng([self.seed, interval, stream])
        return np.sort(rng.choice(n, size=k, replace=False)), rng

    def apply(self, interval) -> Change:
        """Make the demand changes scheduled for the start of `interval`.

        Parameters
        ----------
        interval : int
            `>= 1`.

        Returns
        -------
        Change
        """
        interval = _interval(interval, "interval")
        s = self.schedule
        events = s.events(interval)
        changed = []
        if "churn" in events:
            tenants, rng = self._tenants(interval, _CHURN, s.churn_fraction)
            perturb_rows(self.demands, tenants, s.churn_magnitude, rng)
            changed.append(tenants)
        if "shift" in events:
            tenants, rng = self._tenants(interval, _SHIFT, s.shift_fraction)
            perturb_rows(self.demands, tenants, s.shift_magnitude, rng)
            changed.append(tenants)
        tenants = np.unique(np.concatenate(changed)) if changed else np.zeros(0, dtype=np.int64)
        return Change(interval, events, tenants)
