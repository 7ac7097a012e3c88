"""Discrete DRFH schedulers as drfbench.sim policies (kernels/drfh.pyx), and the literal
NumPy transcription they are tested against.

    scheduler(machines, trace, "drfh-best-fit" | "drfh-first-fit" | "drfh-slots", slots=14, ...)
    slot_counts(machines, k)       k slots per maximum-size server, scaled to each server
    LiteralScheduler(...)          the same decisions, written literally (the test oracle)

Sec. V-B of the paper: the user with the lowest global dominant share launches its next
task, on the first server where it fits (First-Fit DRFH) or on the server minimizing Eq. 9
(Best-Fit DRFH); Sec. VI's slot scheduler hands out k slots per maximum server. The kernel's
docstring states every choice made where the paper is silent.
"""
import numpy as np

from .. import _isa, api
from .. import _validation as check
from .._machine import resolve_threads
from ..sim import FIT_SLACK

DEFAULT_SLOTS = 14          # Table II's best


def slot_counts(machines, k=DEFAULT_SLOTS):
    """(M,) int64: slots per server. A slot is 1/k of the maximum server (each resource's
    largest capacity in the cluster); server l holds floor(k x min_r cap_lr / max cap_r)
    whole slots (Table I's <0.5, 0.25> holds 3 of 14; <0.5, 0.03> none: it stays idle)."""
    C = check.machines(machines)
    k = check.positive_int(k, "slots", allow_none=False)
    top = C.max(axis=0)
    frac = np.divide(C, top, out=np.ones_like(C), where=top > 0).min(axis=1)
    return np.floor(k * frac + 1e-9).astype(np.int64)


def _queues(trace, C):
    """The schedulable trace rows grouped by user (trace order within a user): order, start."""
    fits = trace.fits(C)
    rows = np.flatnonzero(fits)
    order = rows[np.argsort(trace.user[rows], kind="stable")]
    start = np.searchsorted(trace.user[order], np.arange(trace.users + 1)).astype(np.int64)
    return order.astype(np.int64), start


def _weights(weights, n):
    return np.ones(n) if weights is None else check.tenant_weights(weights, n)


def scheduler(machines, trace, name="drfh-best-fit", *, slots=DEFAULT_SLOTS, weights=None,
              index=True, threads=None, isa=None):
    """The kernel's DRFHScheduler for `trace` (a drfbench.sim.Trace) on `machines` ((M, m)
    capacities): a drfbench.sim.TaskPolicy.

    name     a registered trace scheduler (drfbench.methods(takes="trace")): "drfh-best-fit",
             "drfh-first-fit" or "drfh-slots"; slots: k per maximum server (drfh-slots only)
    weights  per user, > 0 (default equal); index: use the server index (False: the
             literal scan, the benchmark's baseline); threads: of the literal best-fit scan
    """
    api.method_info(name, api.TRACE)
    C = check.machines(machines, trace.resources)
    per_server = slot_counts(C, slots) if name == "drfh-slots" else np.zeros(len(C), dtype=np.int64)
    if name == "drfh-slots" and not per_server.any():
        raise ValueError(f"slots={slots}: no server holds a whole slot")
    order, start = _queues(trace, C)
    k = _isa.kernels(isa).drfh
    return k.DRFHScheduler(C, np.ascontiguousarray(trace.demands, dtype=np.float64), order,
                           start, _weights(weights, trace.users), per_server, k.MODES[name],
                           bool(index), resolve_threads(threads))


class LiteralScheduler:
    """The schedulers written literally, one decision at a time with NumPy: every user's
    share recomputed, every server tested (the specification the kernel is tested against,
    decision by decision). Same constructor arguments and protocol as scheduler(...)."""

    def __init__(self, machines, trace, name="drfh-best-fit", *, slots=DEFAULT_SLOTS, weights=None):
        api.method_info(name, api.TRACE)
        self.name = name
        self.C = check.machines(machines, trace.resources)
        self.limit = self.C * (1.0 + FIT_SLACK)
        self.total = self.C.sum(axis=0)
        self.D = np.asarray(trace.demands, dtype=np.float64)
        self.slots = slot_counts(self.C, slots) if name == "drfh-slots" else None
        self.all_slots = max(1.0, float(self.slots.sum())) if name == "drfh-slots" else 1.0
        self.w = _weights(weights, trace.users)
        order, start = _queues(trace, self.C)
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
        return np.array(users, dtype=np.int64), np.array(where, dtype=np.int64)

    def release_task(self, task, user, machine):
        self.tasks_on[machine] -= 1
        self.running[user] -= 1
        d = self.D[task]
        self.used[machine] = (0.0 if self.tasks_on[machine] == 0
                              else np.maximum(0.0, self.used[machine] - d))
        self.uused[user] = (0.0 if self.running[user] == 0
                            else np.maximum(0.0, self.uused[user] - d))
