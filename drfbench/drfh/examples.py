"""The paper's worked example (Fig. 1 to 3) as tidy rows: DRFH against per-server DRF."""
import numpy as np

from .exact import allocate

RESOURCES = ("CPU", "GB")


def worked_example():
    """Fig. 1: servers <2 CPU, 12 GB> and <12 CPU, 2 GB>; users <0.2 CPU, 1 GB> and
    <1 CPU, 0.2 GB> per task.

    Returns
    -------
    demands : numpy.ndarray
    servers : numpy.ndarray
    """
    return np.array([[0.2, 1.0], [1.0, 0.2]]), np.array([[2.0, 12.0], [12.0, 2.0]])


PAPER_TASKS = {"drfh": (10.0, 10.0), "per-server-drf": (6.0, 6.0)}   # Sec. III-D, IV-A


def example_rows():
    """One row per (method, user, server): tasks there and the resources they use, with
    the user's total and the paper's total (Fig. 2: 6 each; Fig. 3: 10 each)."""
    demands, servers = worked_example()
    rows = []
    for method in ("drfh", "per-server-drf"):
        res = allocate(demands, servers, method)
        for i in range(len(demands)):
            for l in range(len(servers)):
                rows.append({"method": method, "user": i + 1, "server": l + 1,
                             "server_capacity": "<" + ", ".join(f"{c:g} {r}" for c, r in
                                                                zip(servers[l], RESOURCES)) + ">",
                             "tasks_on_server": float(res.placement[i, l]),
                             **{f"{r}_on_server": float(res.allocation[i, l, k])
                                for k, r in enumerate(RESOURCES)},
                             "tasks": float(res.tasks[i]), "global_dominant_share":
                             float(res.shares[i]), "paper_tasks": PAPER_TASKS[method][i]})
    return rows
