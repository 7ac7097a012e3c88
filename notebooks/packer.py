# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Packer against Tetris and slots: acceptance, utilization, revenue, overhead (Figs. 3-6)
#
# Packer (Marcon and Barcellos, IFIP Networking 2017) places each application of
# time-varying demands (TI-MRA) whole, node by node, on the server of best score (Eq.
# 6-8), reserving bandwidth along the tree's paths; Tetris scores the alignment of demand
# and residual and only penalizes the network; the slot scheme cuts each server into four
# slots. The data come from `python -m drfbench.packer evaluate` (drfbench.packer, the
# scoring in drfbench/packer/packer.pyx); this notebook only draws them. As in the paper, each
# comparison is the percentage difference (Packer - other) / Packer x 100: positive values
# mean Packer is higher. Every number is the steady state's (shaded in the figures over
# time: the run's `steady` window), the drain after the last arrival apart.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from drfbench import figures as figs

series, apps, summary = figs.start(
    results, "packer/packer_series", "packer/packer_apps", "packer/packer_summary")
machine = figs.machine(summary)
drain = summary[summary["window"] == "drain"]
summary = summary[summary["window"] == "steady"]
first = summary.iloc[0]
lo, hi = int(first["steady_from"]), int(first["steady_to"])
setup = (f"{int(first['servers'])} servers ({int(first['per_rack'])} per rack, "
         f"{int(first['racks_per_agg'])} ToRs per aggregation switch); {int(first['apps'])} "
         f"applications per run at {float(first['arrival_rate']):g} per instant, "
         f"{float(first['mapreduce']):.0%} MapReduce; seeds {sorted(set(summary['seed']))}; "
         f"steady state: instants {lo}-{hi} (shaded)")
labels = list(dict.fromkeys(summary["label"]))
packer_label = summary.loc[summary["method"] == "packer", "label"].iloc[0]
others = [label for label in labels if label != packer_label]
colors = dict(zip(others, ["tab:orange", "tab:green", "tab:red"]))


def difference(frame, column):
    """(Packer - other) / Packer x 100 per instant and other method, mean over seeds."""
    wide = frame.pivot_table(index=["seed", "time"], columns="label", values=column)
    out = {}
    for other in others:
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (wide[packer_label] - wide[other]) / wide[packer_label] * 100
        out[other] = d.replace([np.inf, -np.inf], np.nan).groupby(level="time").mean()
    return pd.DataFrame(out)


def steady(ax):
    """Shade the steady state, the window every number is taken over."""
    ax.axvspan(lo, hi, color="0.85", zorder=0, lw=0)


# %% [markdown]
# ## Fig. 3: acceptance ratio of application tasks over time
#
# The tasks accepted so far over the tasks submitted so far, per method, while applications
# arrive; then Packer's percentage difference against each rival (the paper: ≈ 30% over
# Tetris, ≈ 67% over slots; its gains stabilize around time 1,000).

# %%
series["acceptance"] = series["accepted_tasks"] / series["submitted_tasks"].where(series["submitted_tasks"] > 0)
arriving = series[series["time"] < hi]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
for label in labels:
    one = arriving[arriving["label"] == label].groupby("time")["acceptance"].mean()
    ax1.plot(one.index, one.values, label=label, lw=1.4)
ax1.set_xlabel("time (instants)")
ax1.set_ylabel("accepted / submitted tasks")
ax1.set_title("Acceptance ratio per method")
ax1.legend()
diff = difference(arriving, "acceptance")
for other in others:
    ax2.plot(diff.index, diff[other], label=f"Packer vs {other}", color=colors[other], lw=1.4)
ax2.axhline(0, color="k", lw=0.6)
ax2.set_xlabel("time (instants)")
ax2.set_ylabel("difference (%)")
ax2.set_title("Fig. 3: acceptance ratio, (Packer - other) / Packer")
ax2.legend()
for ax in (ax1, ax2):
    ax.grid(alpha=0.3)
    steady(ax)
figs.caption(fig, f"Simulated: {setup}. {machine}")
figs.save(fig, figures, "packer_fig3_acceptance")

# %% [markdown]
# ## Fig. 4: utilization per resource
#
# The datacenter's utilization (reserved over capacity) of CPU, memory, disk write, disk
# read and bandwidth (all directed links) per instant, as Packer's percentage difference
# (the paper: ≈ 76% and ≈ 87% more bandwidth than Tetris and slots), mean over the seeds;
# after the steady state, the drain (the cluster emptying: few applications left, so the
# differences swing).

# %%
resources = {"util_cpu": "(a) CPU", "util_mem": "(b) memory", "util_io_write": "(c) disk write",
             "util_io_read": "(d) disk read", "util_band": "(e) bandwidth"}
fig, axes = plt.subplots(1, 5, figsize=(17, 3.4), sharey=True)
for ax, (column, title) in zip(axes, resources.items()):
    diff = difference(series, column)
    for other in others:
        ax.plot(diff.index, diff[other], label=f"vs {other}", color=colors[other], lw=1.2)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_title(f"Fig. 4{title}")
    ax.set_xlabel("time (instants)")
    ax.grid(alpha=0.3)
    steady(ax)
axes[0].set_ylabel("utilization difference (%)")
axes[0].legend()
figs.caption(fig, f"Simulated: {setup}. {machine}")
figs.save(fig, figures, "packer_fig4_utilization")

# %% [markdown]
# ## Fig. 5: revenue
#
# What tenants pay over the steady state (computing per unit time, bandwidth per unit volume:
# drfbench.packer.revenue), as Packer's percentage difference per seed; bars the mean, error
# bars the 95% confidence interval over seeds (the paper: ≈ 29% and ≈ 60%).

# %%
revenue = summary.pivot_table(index="seed", columns="label", values="revenue")
rows = []
for other in others:
    d = figs.interval((revenue[packer_label] - revenue[other]) / revenue[packer_label] * 100)
    rows.append((other, d["mean"], d["half"]))
fig, ax = plt.subplots(figsize=(5, 3.6))
ax.bar([f"vs {o}" for o, _, _ in rows], [m for _, m, _ in rows],
       yerr=[h for _, _, h in rows], color=[colors[o] for o, _, _ in rows], capsize=6)
ax.axhline(0, color="k", lw=0.6)
ax.set_ylabel("revenue difference (%)")
ax.set_title("Fig. 5: provider revenue, (Packer - other) / Packer")
ax.grid(alpha=0.3, axis="y")
figs.caption(fig, f"Simulated: {setup}; 95% CI over seeds. {machine}")
figs.save(fig, figures, "packer_fig5_revenue")

# %% [markdown]
# ## Fig. 6: time to allocate an application
#
# Left: Packer's percentage difference in the mean time to decide an application (the
# paper: +53% over Tetris, +81% over slots); right: the distribution per method, medians
# marked (the paper's medians: 15.4 s, 3.5 s, 0.3 s).

# %%
mean_time = apps.groupby("label")["allocation_seconds"].mean()
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
ax1.bar([f"vs {o}" for o in others],
        [(mean_time[packer_label] - mean_time[o]) / mean_time[packer_label] * 100 for o in others],
        color=[colors[o] for o in others])
ax1.axhline(0, color="k", lw=0.6)
ax1.set_ylabel("overhead difference (%)")
ax1.set_title("Fig. 6: mean allocation time, (Packer - other) / Packer")
ax1.grid(alpha=0.3, axis="y")
for label in labels:
    t = np.sort(apps.loc[apps["label"] == label, "allocation_seconds"].to_numpy() * 1e3)
    line, = ax2.plot(t, np.arange(1, len(t) + 1) / len(t), label=f"{label} (median {np.median(t):.1f} ms)")
    ax2.axvline(np.median(t), color=line.get_color(), ls=":", lw=1)
ax2.set_xscale("log")
ax2.set_xlabel("time to allocate one application (ms)")
ax2.set_ylabel("fraction of applications")
ax2.set_title("Allocation time per application")
ax2.legend(fontsize=8)
ax2.grid(alpha=0.3)
figs.caption(fig, f"Simulated: {setup}; the first seed's applications arriving in the steady "
                 f"state's first {int(apps['arrival'].max()) - lo + 1} instants; one thread. {machine}")
figs.save(fig, figures, "packer_fig6_overhead")

# %% [markdown]
# ## Summary per method (mean over seeds): the steady state, then the drain
#
# The drain (from the last arrival until the last application ends) has no arrivals, so no
# acceptance nor allocation times: its utilization and revenue, reported apart.

# %%
columns = {"acceptance": "accepted tasks (fraction)", "revenue": "revenue",
           "median_allocation_seconds": "median allocation (s)", "mean_util_cpu": "CPU",
           "mean_util_mem": "memory", "mean_util_io_write": "disk write",
           "mean_util_io_read": "disk read", "mean_util_band": "bandwidth",
           "peak_link_utilization": "peak link"}
parts = []
for name, frame, keep in (("steady state", summary, list(columns)),
                          ("drain", drain, [c for c in columns if "allocation" not in c
                                            and c != "acceptance"])):
    table = frame.groupby("label", sort=False)[keep].mean().rename(columns=columns)
    table.index.name = "method"
    display(table.round(4))
    span = f"instants {int(frame['window_from'].min())}-{int(frame['window_to'].max())}"
    head = [f"method ({name}, {span})"] + list(table.columns)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join([str(i)] + [f"{v:.4g}" for v in row]) + " |"
              for i, row in zip(table.index, table.itertuples(index=False))]
    parts.append("\n".join(lines))
text = "\n\n".join(parts) + f"\n\n*Simulated: {setup}. {machine}*"
(Path(figures) / "packer_tables.md").write_text(text + "\n")
display(Markdown(text))
