"""The discrete DRFH schedulers written literally, one decision at a time with NumPy: the
specification drfbench/drfh/drfh.pyx is tested against, decision by decision."""
import numpy as np

from .. import _validation as check
from .. import api
from ..sim import FIT_SLACK, take_back
from .catalog import TRACE
from .kernel import Launches
from .schedulers import DEFAULT_SLOTS, slot_counts, task_queues, user_weights


class LiteralScheduler:
    """The schedulers written literally, one decision at a time with NumPy: every user's share
    recomputed, every server tested (the specification the kernel is tested against,
    decision by decision). The protocol of the kernel's (kernel.trace_scheduler).

    Parameters
    ----------
    machines : numpy.ndarray
        (M, m) capacities.
    trace : drfbench.sim.Trace
    name : str
        "drfh-best-fit", "drfh-first-fit" or "drfh-slots".
    slots : int
        k per maximum server (drfh-slots).
    weights : array_like, optional
        Per user.
    """

    def __init__(self, machines, trace, name="drfh-best-fit", *, slots=DEFAULT_SLOTS, weights=None):
        api.method_info(name, TRACE)
        self.name = name
        self.C = check.machines(machines, trace.resources)
        self.limit = self.C * (1.0 + FIT_SLACK)
        self.total = self.C.sum(axis=0)
        self.D = np.asarray(trace.demands, dtype=np.float64)
        self.slots = slot_counts(self.C, slots) if name == "drfh-slots" else None
        self.all_slots = max(1.0, float(self.slots.sum())) if name == "drfh-slots" else 1.0
        self.w = user_weights(weights, trace.users)
        order, start = task_queues(trace, self.C)
        self.queue = [order[start[u]:start[u + 1]].tolist() for u in range(trace.users)]
        n, M, m = trace.users, len(self.C), self.C.shape[1]
        self.arrived = [0] * n
        self.launched = [0] * n
        self.running = [0] * n
        self.used = np.zeros((M, m))
        self.uused = np.zeros((n, m))
        self.tasks_on = np.zeros(M, dtype=np.int64)

    def key(self, u):
        """User u's global dominant share over its weight (slots: its tasks over all slots)."""
        if self.name == "drfh-slots":
            return self.running[u] / self.all_slots / self.w[u]
        s = 0.0
        for r in range(len(self.total)):
            if self.total[r] > 0.0:
                s = max(s, self.uused[u, r] / self.total[r])
        return s / self.w[u]

    def fits(self, t):
        """(M,) bool: the servers where task t fits now."""
        if self.name == "drfh-slots":
            return self.tasks_on < self.slots
        return (self.used + self.D[t] <= self.limit).all(axis=1)

    def fitness(self, t):
        """(M,) Eq. 9 on every server: sum_r |p_r - q_lr|, both vectors normalized by the
        pool's totals and then by their own sums (loops: the kernel's order of sums)."""
        M, m = self.C.shape
        p = [self.D[t, r] / self.total[r] if self.total[r] > 0.0 else 0.0 for r in range(m)]
        s = 0.0
        for v in p:
            s = s + v
        p = [v / s if s > 0.0 else 0.0 for v in p]
        H = np.empty(M)
        for k in range(M):
            q = []
            for r in range(m):
                v = self.C[k, r] - self.used[k, r]
                q.append(v / self.total[r] if self.total[r] > 0.0 and v > 0.0 else 0.0)
            s = 0.0
            for v in q:
                s = s + v
            h = 0.0
            for r in range(m):
                h = h + abs(p[r] - (q[r] / s if s > 0.0 else 0.0))
            H[k] = h
        return H

    def server_for(self, t):
        ok = self.fits(t)
        if not ok.any():
            return -1
        if self.name != "drfh-best-fit":
            return int(np.argmax(ok))
        H = np.where(ok, self.fitness(t), np.inf)
        return int(np.argmin(H))             # the first least

    def add_tasks(self, user, count):
        self.arrived[user] += count

    def schedule(self):
        users, where = [], []
        skipped = set()
        while True:
            waiting = [u for u in range(len(self.arrived))
                       if self.launched[u] < self.arrived[u] and u not in skipped]
            if not waiting:
                break
            u = min(waiting, key=lambda v: (self.key(v), v))
            t = self.queue[u][self.launched[u]]
            k = self.server_for(t)
            if k < 0:
                if self.name == "drfh-slots":
                    break
                skipped.add(u)
                continue
            self.used[k] = self.used[k] + self.D[t]
            self.uused[u] = self.uused[u] + self.D[t]
            self.tasks_on[k] += 1
            self.running[u] += 1
            self.launched[u] += 1
            users.append(u)
            where.append(k)
        return Launches(np.array(users, dtype=np.int64), np.array(where, dtype=np.int64))

    def release_task(self, task, user, machine):
        self.tasks_on[machine] -= 1
        self.running[user] -= 1
        take_back(self.used, machine, self.tasks_on[machine], self.D[task])
        take_back(self.uused, user, self.running[user], self.D[task])
