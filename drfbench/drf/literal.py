"""The online schedulers of drfbench/drf/drf.pyx written literally in Python: the kernel's
test oracle, launch by launch."""
import numpy as np

from .kernel import Launches


def online(demands, capacity, weights=None, tasks=None, slots=0):
    """Online DRF (the lecture's "Online DRF Scheduler"), or hadoop-slots with `slots` per
    machine, written literally.

    Repeatedly launch a task of the user with the smallest (share, index) among those whose
    next task fits on some machine, on the first machine where it fits. (In a static run a
    task that does not fit now never fits later, so this equals the kernel's heap with
    blocked users set aside.)

    Parameters
    ----------
    demands : numpy.ndarray
        (n, m) one task per user.
    capacity : numpy.ndarray
        (M, m).
    weights : array_like, optional
    tasks : array_like, optional
        Tasks per user (default: unbounded).
    slots : int
        0: online DRF.

    Returns
    -------
    kernel.Launches
        The launches in order.
    """
    D = np.asarray(demands, dtype=float)
    C = np.atleast_2d(np.asarray(capacity, dtype=float))
    n, m = D.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    queue = [np.inf] * n if tasks is None else [float(t) for t in tasks]
    total = C.sum(axis=0)
    if slots:
        unit = 1.0 / (slots * len(C)) / w
    else:
        dom = np.array([max([D[i, r] / total[r] for r in range(m) if total[r] > 0] + [0.0])
                        for i in range(n)])
        unit = dom / w
    used = np.zeros_like(C)
    count = np.zeros(len(C), dtype=int)
    running = np.zeros(n, dtype=int)
    users, machines = [], []
    while True:
        best = None
        for i in range(n):
            if queue[i] <= 0:
                continue
            for k in range(len(C)):
                fits = count[k] < slots if slots else bool(
                    np.all(used[k] + D[i] <= C[k] * (1 + 1e-12)))
                if fits:
                    key = (running[i] * unit[i], i)
                    if best is None or key < best[0]:
                        best = (key, i, k)
                    break
        if best is None:
            return Launches(np.array(users, np.int32), np.array(machines, np.int32))
        _, i, k = best
        used[k] += D[i]
        count[k] += 1
        running[i] += 1
        queue[i] -= 1
        users.append(i)
        machines.append(k)
