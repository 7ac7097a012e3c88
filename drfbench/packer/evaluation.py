"""The paper's evaluation (§III, Figs. 3-8) as tidy rows: every policy on the same seeded
workloads, per seed; and the sensitivity study, every policy under each combination of
the evaluation's choices (what a policy is told, the load's shape over time, the resource
that binds, Packer's reading of Eq. 6-8).

  series       per policy, seed and time instant: tasks submitted and accepted so far
               (Fig. 3), utilization of CPU, memory, disk write, disk read and bandwidth
               (Fig. 4 a-e), revenue in that instant (Fig. 5)
  apps         per policy and application of the first seed: accepted or not, the time to
               decide it (Fig. 6), its revenue
  summary      per policy and seed: totals and medians (`summarize`)
  rates        Algorithm 2 on the busiest server of Packer's first run, per instant and
               node: guarantee, demand, rate (Figs. 7-8)
  sensitivity  per seed, policy and setting: the summary (`sensitivity`)
"""
import numpy as np

from ..api import method_info
from .simulate import revenue, simulate
from .workload import workload

UTILIZATION = ("util_cpu", "util_mem", "util_io_write", "util_io_read", "util_band")


def summarize(res):
    """One run's totals: tasks submitted and accepted, acceptance, revenue (charged on what
    was reserved; `revenue_used` on what is used), allocation times, mean utilization per
    resource over the run (of what is used), peak utilization of servers and links (of
    what is reserved)."""
    util = res.utilization()
    return {"submitted_tasks": res.submitted_tasks, "accepted_tasks": res.accepted_tasks,
            "acceptance": res.accepted_tasks / max(res.submitted_tasks, 1),
            "revenue": float(res.revenue().sum()),
            "revenue_used": float(res.revenue(used=True).sum()),
            "median_allocation_seconds": float(np.median(res.allocation_seconds)),
            "mean_allocation_seconds": float(np.mean(res.allocation_seconds)),
            **{f"mean_{u}": float(util[:, j].mean()) for j, u in enumerate(UTILIZATION)},
            "peak_server_utilization": res.peak_server_utilization,
            "peak_link_utilization": res.peak_link_utilization}


def evaluate(infra, count, rate, mapreduce, seeds, policies, threads=1, *, views=None,
             temporal="jitter", bottleneck="network", score="literal"):
    """(series, apps, summary, rates) rows, see the module docstring; `policies` are
    registered names (drfbench.methods(takes="applications")); views: per policy what it
    is told (default "ti-mra"); temporal, bottleneck: the workload's (workload); score:
    Packer's reading of Eq. 6-8."""
    views = views or {}
    series, app_rows, summary, rates = [], [], [], []
    for seed in seeds:
        apps = workload(count, seed, rate=rate, mapreduce=mapreduce, infrastructure=infra,
                        temporal=temporal, bottleneck=bottleneck)
        for policy in policies:
            label = method_info(policy).label
            res = simulate(infra, apps, policy, threads=threads,
                           **_options(policy, views.get(policy, "ti-mra"), score))
            keys = {"policy": policy, "label": label, "seed": seed, "view": res.view,
                    "score": res.score}
            table = res.rows()
            series += [{**row, **keys} for row in table]
            if seed == seeds[0]:
                app_rows += [{**keys, "application": a.name, "kind": a.name.split("-")[0],
                              "tasks": a.tasks, "arrival": a.arrival, "duration": a.duration,
                              "accepted": p is not None, "allocation_seconds": s,
                              "revenue": float(revenue(a, infra).sum()) if p is not None else 0.0}
                             for a, p, s in zip(res.applications, res.placements,
                                                res.allocation_seconds.tolist())]
            summary.append({**keys, **summarize(res)})
            if seed == seeds[0] and res.policy == "packer":
                load = np.zeros(infra.servers)
                for a, p in zip(res.applications, res.placements):
                    if p is not None:
                        on = p[p < infra.servers]
                        np.add.at(load, on, a.duration)
                server = int(load.argmax())
                rates = [{**keys, "server": server, **row} for row in res.server_rates(server, seed)]
    return series, app_rows, summary, rates


def _options(policy, view, score):
    """simulate()'s options for `policy`: its view, and Packer's score."""
    return {"view": view, **({"score": score} if policy == "packer" else {})}


def sensitivity(infra, count, rate, mapreduce, seeds, policies, scores, *, view, temporal,
                bottleneck, threads=1):
    """The sensitivity study's rows for one setting of the workload (temporal, bottleneck)
    and of what the policies are told (view): per seed, every policy on the same workload,
    Packer once per reading in `scores`; each row `summarize`'s, keyed by seed, policy,
    label, view, score (empty for the others), temporal and bottleneck."""
    out = []
    for seed in seeds:
        apps = workload(count, seed, rate=rate, mapreduce=mapreduce, infrastructure=infra,
                        temporal=temporal, bottleneck=bottleneck)
        for policy in policies:
            for score in (scores if policy == "packer" else [None]):
                res = simulate(infra, apps, policy, threads=threads, **_options(policy, view, score))
                out.append({"seed": seed, "policy": policy, "label": method_info(policy).label,
                            "view": view, "score": score, "temporal": temporal,
                            "bottleneck": bottleneck, **summarize(res)})
    return out
