"""The paper's evaluation (§III, Figs. 3-8) as tidy rows: every policy on the same seeded
workloads, per seed.

  series   per policy, seed and time instant: tasks submitted and accepted so far (Fig. 3),
           utilization of CPU, memory, disk write, disk read and bandwidth (Fig. 4 a-e),
           revenue in that instant (Fig. 5)
  apps     per policy and application of the first seed: accepted or not, the time to
           decide it (Fig. 6), its revenue
  summary  per policy and seed: totals and medians
  rates    Algorithm 2 on the busiest server of Packer's first run, per instant and node:
           guarantee, demand, rate (Figs. 7-8)
"""
import numpy as np

from ..api import method_info
from .simulate import revenue, simulate
from .workload import workload

UTILIZATION = ("util_cpu", "util_mem", "util_io_write", "util_io_read", "util_band")


def evaluate(infra, count, rate, mapreduce, seeds, policies, threads=1):
    """(series, apps, summary, rates) rows, see the module docstring; `policies` are
    registered names (drfbench.methods(takes="applications"))."""
    series, app_rows, summary, rates = [], [], [], []
    for seed in seeds:
        apps = workload(count, seed, rate=rate, mapreduce=mapreduce, infrastructure=infra)
        for policy in policies:
            label = method_info(policy).label
            res = simulate(infra, apps, policy, threads=threads)
            keys = {"policy": policy, "label": label, "seed": seed}
            table = res.rows()
            series += [{**row, **keys} for row in table]
            if seed == seeds[0]:
                app_rows += [{**keys, "application": a.name, "kind": a.name.split("-")[0],
                              "tasks": a.tasks, "arrival": a.arrival, "duration": a.duration,
                              "accepted": p is not None, "allocation_seconds": s,
                              "revenue": float(revenue(a, infra).sum()) if p is not None else 0.0}
                             for a, p, s in zip(res.applications, res.placements,
                                                res.allocation_seconds.tolist())]
            util = res.utilization()
            summary.append({**keys, "submitted_tasks": res.submitted_tasks,
                            "accepted_tasks": res.accepted_tasks,
                            "acceptance": res.accepted_tasks / max(res.submitted_tasks, 1),
                            "revenue": float(res.revenue().sum()),
                            "median_allocation_seconds": float(np.median(res.allocation_seconds)),
                            "mean_allocation_seconds": float(np.mean(res.allocation_seconds)),
                            **{f"mean_{u}": float(util[:, j].mean()) for j, u in enumerate(UTILIZATION)},
                            "peak_server_utilization": res.peak_server_utilization,
                            "peak_link_utilization": res.peak_link_utilization})
            if seed == seeds[0] and res.policy == "packer":
                load = np.zeros(infra.servers)
                for a, p in zip(res.applications, res.placements):
                    if p is not None:
                        on = p[p < infra.servers]
                        np.add.at(load, on, a.duration)
                server = int(load.argmax())
                rates = [{**keys, "server": server, **row} for row in res.server_rates(server, seed)]
    return series, app_rows, summary, rates
