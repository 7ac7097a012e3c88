"""The hierarchical schedulers of drfbench/hdrf/hdrf.pyx, written literally in plain Python: the
specification the kernel is tested against, decision by decision, bit for bit.

At every decision, everything is computed from scratch, as the slides' Algorithm does
("Recompute s: UpdateS(n_r); Allocate the resources: Alloc(W)"):

- which leaves are blocked: a leaf is open (not blocked) if it has tasks left and its task
  fits on some machine, tested against every machine; an inner node is open if one of its
  children is (slide "Ignore Blocked Nodes": no more demand, cannot be allocated more, or
  all children blocked);
- Y, the resources "to allocate" (slides: the nonzero resources in W): for H-DRF those
  not used up cluster-wide (free more than EXHAUSTED of the total), every resource for the
  other methods;
- UpdateS(n), recursively. A leaf's U is its running tasks times its task demand, its
  share s_i the largest of U_ij / R_j over j in Y, computed as tasks x (one task's
  dominant share over Y) / weight, the very number online DRF computes; an inner node's U
  is the sum of its children's, H-DRF first rescaling each open child's vector by f / s_c
  (f the lowest weighted share among the open children: slide "Re-scaling: choose sibling
  with lowest dominant share M, rescale all siblings to have a dominant share M"; the
  slides' pseudo-code says "maximum", its prose and the paper's intent the lowest);
- Alloc(W), from the root down, the child with the lowest key (weighted share) among the
  eligible ones (see drfbench/hdrf/hdrf.pyx for each method), its task on the first machine
  where it fits.
"""
import math

import numpy as np

from .kernel import Launches

FIT_SLACK = 1e-12
EXHAUSTED = 1e-9
HDRF, STATIC, NAIVE, CAPACITY, CAPACITY_PARETO = "hdrf", "static", "naive", "capacity", \
    "capacity-pareto"


class Reference:
    """The slides' algorithm written literally: the same protocol as the kernel's TreeScheduler
    (schedule, release, add_tasks) and its state (keys, node_usage, blocked, running,
    launched, queued, usage).

    Parameters
    ----------
    tree : drfbench.hdrf.Tree
    capacity : numpy.ndarray
        (M, m).
    mode : str
        "hdrf", "static", "naive", "capacity", "capacity-pareto".
    queued : numpy.ndarray
        Tasks per leaf (-1 unbounded).
    """

    def __init__(self, tree, capacity, mode, queued):
        self.tree, self.mode = tree, mode
        self.cap = np.array(capacity, dtype=np.float64)
        self.total = self.cap.sum(axis=0)
        M, m = self.cap.shape
        self.used = np.zeros((M, m))
        self.tasks_on = [0] * M
        self.consumed = np.zeros(m)
        self.queue = [int(q) for q in queued]
        self.running = [0] * len(tree.leaves)
        self.launched = [0] * len(tree.leaves)
        self.leaf_of = {int(k): i for i, k in enumerate(tree.leaves.tolist())}
        self.decisions = 0
        self.update()

    # -- blocked, Y ---------------------------------------------------------------------

    def fits(self, i, k):
        d = self.tree.demand[i]
        return not any(self.used[k, r] + d[r] > self.cap[k, r] * (1.0 + FIT_SLACK)
                       for r in range(len(d)))

    def first_fit(self, i):
        return next((k for k in range(len(self.cap)) if self.fits(i, k)), -1)

    def resources_left(self):
        return [self.total[r] > 0.0 and (self.mode != HDRF or self.total[r] - self.consumed[r]
                                         > EXHAUSTED * self.total[r])
                for r in range(len(self.total))]

    # -- UpdateS --------------------------------------------------------------------------

    def update(self):
        """UpdateS(n_r): every node's U, key, open and demanding flags, from scratch."""
        t = self.tree
        N = len(t.paths)
        self.Y = self.resources_left()
        self.U = [None] * N
        self.key = [0.0] * N
        self.open = [False] * N
        self.demanding = [False] * N
        self.update_s(0)

    def share(self, U, weight):
        s = 0.0
        for r in range(len(U)):
            if self.Y[r] and U[r] / self.total[r] > s:
                s = U[r] / self.total[r]
        return s / weight

    def update_s(self, n):
        t = self.tree
        if n in self.leaf_of:
            i = self.leaf_of[n]
            d = t.demand[i]
            unit = self.share(d, t.weight[n])          # one task's weighted dominant share
            self.U[n] = float(self.running[i]) * d
            self.key[n] = float(self.running[i]) * unit
            self.demanding[n] = self.queue[i] != 0
            self.open[n] = self.queue[i] != 0 and self.first_fit(i) >= 0
            return
        children = t.children(n)
        for c in children:
            self.update_s(c)
        f = min([self.key[c] for c in children if self.open[c]], default=math.inf)
        U = np.zeros(len(self.total))
        for c in children:
            factor = 1.0
            if self.mode == HDRF and self.open[c] and self.key[c] > 0.0:
                factor = f / self.key[c]
            U = U + self.U[c] * factor
        self.U[n] = U
        self.key[n] = self.share(U, t.weight[n])
        self.open[n] = any(self.open[c] for c in children)
        self.demanding[n] = any(self.demanding[c] for c in children)

    # -- Alloc ----------------------------------------------------------------------------

    def descend(self, eligible):
        n = 0
        if not eligible[0]:
            return -1
        while n not in self.leaf_of:
            n = min((c for c in self.tree.children(n) if eligible[c]),
                    key=lambda c: (self.key[c], c))
        return self.leaf_of[n]

    def within_guarantees(self, i):
        t, a = self.tree, int(self.tree.leaves[i])
        while a > 0:
            if any(self.U[a][r] + t.demand[i, r] > t.guarantee[a] * self.total[r] * (1.0 + FIT_SLACK)
                   for r in range(len(self.total))):
                return False
            a = int(t.parent[a])
        return True

    def search(self, n):
        """Capacity: depth-first in key order, the first leaf within its guarantees."""
        if n in self.leaf_of:
            return self.leaf_of[n] if self.within_guarantees(self.leaf_of[n]) else -1
        for c in sorted((c for c in self.tree.children(n) if self.open[c]),
                        key=lambda c: (self.key[c], c)):
            found = self.search(c)
            if found >= 0:
                return found
        return -1

    def choose(self):
        if self.mode == NAIVE:
            i = self.descend(self.demanding)
            return i if i >= 0 and self.first_fit(i) >= 0 else -1
        if self.mode in (CAPACITY, CAPACITY_PARETO):
            i = self.search(0) if self.open[0] else -1
            if i >= 0 or self.mode == CAPACITY:
                return i
        return self.descend(self.open)

    # -- the protocol ---------------------------------------------------------------------

    def schedule(self, max_tasks=-1):
        leaves, machines = [], []
        while max_tasks < 0 or len(leaves) < max_tasks:
            self.decisions += 1
            i = self.choose()
            if i < 0:
                break
            k = self.first_fit(i)
            d = self.tree.demand[i]
            self.used[k] = self.used[k] + d
            self.consumed = self.consumed + d
            self.tasks_on[k] += 1
            self.running[i] += 1
            self.launched[i] += 1
            if self.queue[i] > 0:
                self.queue[i] -= 1
            self.update()
            leaves.append(i)
            machines.append(k)
        return Launches(np.array(leaves, dtype=np.int32), np.array(machines, dtype=np.int32))

    def release(self, leaf, machine):
        d = self.tree.demand[leaf]
        self.running[leaf] -= 1
        self.tasks_on[machine] -= 1
        empty = sum(self.running) == 0
        self.used[machine] = 0.0 if self.tasks_on[machine] == 0 else \
            np.maximum(0.0, self.used[machine] - d)
        self.consumed = np.zeros_like(self.consumed) if empty else \
            np.maximum(0.0, self.consumed - d)
        self.update()

    def add_tasks(self, leaf, count):
        if count != 0 and self.queue[leaf] >= 0:
            self.queue[leaf] = -1 if count == -1 else self.queue[leaf] + count
        self.update()

    @property
    def keys(self):
        return np.array(self.key)

    @property
    def node_usage(self):
        return np.array(self.U)

    @property
    def blocked(self):
        return ~np.array(self.open)
