"""The simulator's samples: the state of the running tasks at 0, sample, 2 sample, ...

    Sampler(sample, state, width)   takes them as the loop goes (record(until))
    snapshot(...)                   (share, speed) per user of the running tasks
    mean_by_group(values, groups, n), sample_budget(sample, until, width)
"""
import numpy as np

from . import workload as wl


def mean_by_group(values, groups, n):
    """`np.mean(values[groups == g])` for each g (0 where empty), bit for bit.

    Users with the same number of values are averaged together as the rows of one 2-D
    array: numpy reduces each row with the same pairwise summation as a 1-D np.mean, so the
    result does not depend on how many users share the call (np.add.reduceat, by contrast,
    sums sequentially and differs in the last bits).

    Parameters
    ----------
    values : numpy.ndarray
    groups : numpy.ndarray
        Each value's group, in [0, n).
    n : int

    Returns
    -------
    numpy.ndarray
        (n,) float64.
    """
    out = np.zeros(n)
    count = np.bincount(groups, minlength=n)
    order = np.argsort(groups, kind="stable")
    start = np.cumsum(count) - count
    for c in np.unique(count[count > 0]).tolist():
        who = np.flatnonzero(count == c)
        rows = values[order[start[who][:, None] + np.arange(c)]]
        out[who] = rows.mean(axis=1)
    return out


def sample_budget(sample, until, width):
    """Refuse samples beyond MAX_SAMPLE_VALUES values in all (the simulator's work budget).

    Parameters
    ----------
    sample : float
        Seconds between samples, from 0.
    until : float
        Seconds.
    width : int
        Values per sample.

    Raises
    ------
    ValueError
        Past the budget.
    """
    instants = until // sample + 1
    if instants * width > wl.MAX_SAMPLE_VALUES:
        raise ValueError(f"sample: a sample every {sample:g} s up to {until:g} s takes "
                         f"{instants:.3g} samples of {width} values, beyond the simulator's "
                         f"work budget ({wl.MAX_SAMPLE_VALUES:,} values): sample less often")


def snapshot(ids, user, task_speed, demand, n, total, shapes=None):
    """The shares and speeds of the running tasks `ids` (machines in index order).

    `share[u, r]` is the sum over u's tasks of `demand[t, r] x speed / total[r]` (with one
    shape per user: `(sum of u's speeds) x shapes[u, r] / total[r]`); `speed[u]` the mean of
    u's tasks' speeds, 0 if none. Sums run in the order of `ids`. A resource the cluster has
    none of (total 0) is a share 0.

    Parameters
    ----------
    ids : numpy.ndarray
    user : numpy.ndarray
        Each task's user.
    task_speed : numpy.ndarray
    demand : numpy.ndarray
        Each task's demands.
    n : int
        Users.
    total : numpy.ndarray
        (m,) the cluster's.
    shapes : numpy.ndarray, optional
        (n, m) one shape per user.

    Returns
    -------
    share : numpy.ndarray
        (n, m).
    speed : numpy.ndarray
        (n,).
    """
    m = len(total)
    total = np.where(total > 0, total, np.inf)
    share = np.zeros((n, m))
    speed = np.zeros(n)
    if ids.size:
        u = user[ids]
        s = task_speed
        if shapes is not None:
            share = np.bincount(u, weights=s, minlength=n)[:, None] * shapes / total
        else:
            for r in range(m):
                share[:, r] = np.bincount(u, weights=s * demand[ids, r], minlength=n) / total[r]
        speed = mean_by_group(s, u, n)
    return share, speed


class Sampler:
    """Takes samples at 0, sample, 2 sample, ...

    `record(until)` takes every one not yet taken up to `until` (all showing the state now)
    and returns the next instant.

    Parameters
    ----------
    sample : float or None
        Seconds between samples.
    state : callable
        `state()`: (share, speed) now.
    width : int
        Values each (users x (resources + 1)), at most MAX_SAMPLE_VALUES in all.

    Raises
    ------
    ValueError
        Past MAX_SAMPLE_VALUES.
    """

    def __init__(self, sample, state, width=1):
        self.sample, self.state, self.width = sample, state, width
        self.times, self.shares, self.speeds = [], [], []

    def record(self, until):
        """Take every sample not yet taken at or before `until`, all showing the state now.

        Parameters
        ----------
        until : float
            Seconds.

        Returns
        -------
        float
            The next sample's instant.

        Raises
        ------
        ValueError
            The samples up to `until` would pass MAX_SAMPLE_VALUES.
        """
        next_sample = len(self.times) * self.sample
        if next_sample <= until:
            sample_budget(self.sample, until, self.width)
            share, speed = self.state()
            while next_sample <= until:
                self.times.append(next_sample)
                self.shares.append(share)
                self.speeds.append(speed)
                next_sample = len(self.times) * self.sample
        return next_sample

    def arrays(self, n, m):
        """The samples taken, as Simulation.samples holds them.

        Parameters
        ----------
        n, m : int
            Users and resources.

        Returns
        -------
        dict
            "time" (S,), "share" (S, n, m), "speed" (S, n), "utilization" (S, m).
        """
        share = np.array(self.shares).reshape(len(self.times), n, m)
        return {"time": np.array(self.times, dtype=np.float64), "share": share,
                "speed": np.array(self.speeds).reshape(len(self.times), n),
                "utilization": share.sum(axis=1)}
