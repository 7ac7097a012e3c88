"""What the simulator asks of a policy, and a small example policy.

    Policy      the protocol: add_tasks(user, count), schedule(), release(user, machine)
    TaskPolicy  a Policy that also wants to know which task finished (release_task)
    PreemptingPolicy  a TaskPolicy that also evicts running tasks (preempt)
    FifoFirstFit  strict first-come-first-served, first fit (tests, benchmarks)

The online DRF and slot schedulers of drfbench/drf/drf.pyx (drfbench.drf.scheduler(...)) are
Policies; this package never imports them (drfbench.drf imports drfbench.sim).
"""
from collections import deque
from typing import Protocol, runtime_checkable

import numpy as np

from .workload import FIT_SLACK, machines as _machines


@runtime_checkable
class Policy(Protocol):
    """What the simulator asks of a policy (the online DRF and slot schedulers of
    drfbench/drf/drf.pyx, built by drfbench.drf.scheduler(...), have it).

    Methods
    -------
    add_tasks(user, count)
        `count` more tasks of `user` became pending (trace arrivals; backlog users' queues
        are infinite from the start and never get this call).
    schedule()
        The launches, in order, as (users, machines): two integer sequences of equal length;
        each entry launches that user's oldest pending task on that machine.
    release(user, machine)
        One of `user`'s tasks on `machine` finished.
    """

    def add_tasks(self, user: int, count: int) -> None: ...

    def schedule(self) -> tuple[np.ndarray, np.ndarray]: ...

    def release(self, user: int, machine: int) -> None: ...


@runtime_checkable
class TaskPolicy(Policy, Protocol):
    """A policy whose tasks differ within one user (per-task demand vectors) needs to know
    which task finished.

    Methods
    -------
    release_task(task, user, machine)
        If the policy has it, the simulator calls it instead of release. `task` is the
        trace's row index (for a backlog: the task's launch index).
    """

    def release_task(self, task: int, user: int, machine: int) -> None: ...


@runtime_checkable
class PreemptingPolicy(TaskPolicy, Protocol):
    """A policy that evicts.

    Methods
    -------
    preempt()
        If the policy has it, the simulator asks it at every decision, before schedule(),
        for the running tasks to evict (task ids, as release_task names them), in order.
        Each leaves its machine without a release call (the policy has already let its
        resources go) and goes back to its user's pending tasks, behind the ones evicted
        before and ahead of the rest (the user's next launches take them first, in eviction
        order), with its full work (a restart) or, with simulate(resume=True), the work it
        has left; no add_tasks call either. A task due to finish at that instant cannot be
        evicted.
    """

    def preempt(self) -> np.ndarray: ...


def take_back(usage, i, remaining, demand):
    """Take a finished task's demand back from a row of `usage`, in place.

    Exactly zero once none is left (no rounding left behind on an empty machine or an idle
    user), never below zero.

    Parameters
    ----------
    usage : numpy.ndarray
        Changed in place.
    i : int
        The row.
    remaining : int
        Tasks still counted in that row.
    demand : numpy.ndarray
        The task's.
    """
    usage[i] = 0.0 if remaining == 0 else np.maximum(usage[i] - demand, 0.0)


class FifoFirstFit:
    """Strict first-come-first-served over all users.

    The oldest pending task (in arrival order, across users) goes to the first machine, in
    index order, where it fits; when it fits nowhere, nothing behind it starts either
    (head-of-line blocking). Never oversubscribes. A TaskPolicy: it tracks each task's own
    demand vector. Written in Python with NumPy (one vectorized fit test per launch): an
    example and a benchmark load, not a fast scheduler.

    Parameters
    ----------
    machines : array_like
        The machines given to simulate().
    trace : Trace
        The Trace given to simulate().
    """

    def __init__(self, machines, trace):
        C = _machines(machines)
        self.limit = C * (1.0 + FIT_SLACK)
        self.used = np.zeros_like(C)
        self.count = np.zeros(len(C), dtype=np.int64)
        self.demands = trace.demands
        fits = trace.fits(C)              # the simulator withholds the others
        order = np.argsort(trace.user, kind="stable")
        order = order[fits[order]]
        bounds = np.searchsorted(trace.user[order], np.arange(trace.users + 1))
        self.tasks_of = [order[bounds[u]:bounds[u + 1]] for u in range(trace.users)]
        self.next = np.zeros(trace.users, dtype=np.int64)   # next task to launch per user
        self.queue = deque()                                # pending users, arrival order

    def add_tasks(self, user, count):
        self.queue.extend([user] * count)

    def schedule(self):
        users, machines = [], []
        while self.queue:
            u = self.queue[0]
            task = self.tasks_of[u][self.next[u]]
            d = self.demands[task]
            fit = np.flatnonzero((self.used + d <= self.limit).all(axis=1))
            if not fit.size:
                break
            k = int(fit[0])
            self.queue.popleft()
            self.next[u] += 1
            self.used[k] += d
            self.count[k] += 1
            users.append(u)
            machines.append(k)
        return np.array(users, dtype=np.int64), np.array(machines, dtype=np.int64)

    def release_task(self, task, user, machine):
        self.count[machine] -= 1
        take_back(self.used, machine, self.count[machine], self.demands[task])

    def release(self, user, machine):
        raise TypeError("FifoFirstFit needs to know which task finished: the simulator calls "
                        "release_task(task, user, machine)")
