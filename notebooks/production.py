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
# # Production fairness rules beside DRF, H-DRF and DRFH on one scenario
#
# Five production schedulers' fairness rules (Kueue, Armada, Mesos's hierarchical DRF
# sorter, Slurm's Fair Tree, YARN's FairScheduler DRF comparator; drfbench.production)
# and DRFH Best-Fit run the same jobs on the same heterogeneous cluster in the cluster
# simulator (drfbench.sim); DRF (online), H-DRF and DRFH's exact allocation give the
# references. The data come from the pipeline step `python -m drfbench.production
# side-by-side` (drfbench/production/compare.py says what each row measures); this
# notebook only draws them.
#
# The scenario (drfbench/production/sidebyside.py): 12 CPU nodes ⟨32 CPU, 128 GiB⟩ and 4 GPU
# nodes ⟨16 CPU, 64 GiB, 4 GPUs⟩; `batch` alone at first fills the cluster by borrowing and
# stops submitting at 30 min; `prod/web` and `research`'s `cpu` and `mem` (complementary
# demands under one parent, weight 2) arrive at 10 min, `research/vision`'s GPU gangs at
# 20 min; all submit until 60 min. No rule preempts here.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display

import drfbench
from drfbench import figures as figs

table = figs.start(results, "production/production_side_by_side")
machine = figs.machine(table)
shown = float(np.diff(np.unique(table["time"].dropna()))[0])
methods = list(dict.fromkeys(table["method"]))
label = {m: drfbench.method_info(m).label for m in methods + ["hdrf", "drfh", "online-drf"]}
leaves = list(dict.fromkeys(table.loc[table["metric"] == "dominant_share", "queue"]))
palette = dict(zip(leaves, sns.color_palette("tab10", len(leaves))))
setup = (f"the side-by-side scenario, seed {int(table['seed'].iloc[0])}; series drawn "
         f"every {shown:g} s")

# %% [markdown]
# ## Each leaf's dominant share over time
#
# One panel per method: each leaf queue's dominant share (its largest share of a resource
# of the cluster's total) over time, solid, and H-DRF's share for it at that time on the
# tasks it has outstanding then (arrived, not finished), dashed.

# %%
shares = table[table["metric"] == "dominant_share"]
refs = table[table["metric"] == "reference_share"]
fig, axes = figs.panels(len(methods), "time (minutes)", "dominant share")
for ax, method in zip(axes.flat, methods):
    for leaf in leaves:
        one = shares[(shares["method"] == method) & (shares["queue"] == leaf)]
        ref = refs[(refs["method"] == method) & (refs["queue"] == leaf)]
        ax.plot(one["time"] / 60, one["value"], color=palette[leaf], lw=1.3, label=leaf)
        ax.plot(ref["time"] / 60, ref["value"], color=palette[leaf], lw=0.9, ls="--")
    ax.set_title(label[method])
    ax.grid(alpha=0.3)
axes.flat[0].legend(title="leaf queue (dashed: H-DRF's share)", fontsize=7, title_fontsize=7)
figs.caption(fig, f"Simulated: {setup}. drfbench.production.compare on drfbench.sim. "
             f"{machine}")
figs.save(fig, figures, "production_shares")

# %% [markdown]
# ## Distance from the reference allocations
#
# The sum over the leaves of |dominant share − the reference's|, over time, per method:
# against H-DRF's allocation on the queue tree and DRFH's exact allocation on the servers,
# each computed on the tasks outstanding in that method's run.

# %%
distance = table[table["metric"] == "distance"]
fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
colours = dict(zip(methods, sns.color_palette("tab10", len(methods))))
for ax, ref in zip(axes, ["hdrf", "drfh"]):
    for method in methods:
        one = distance[(distance["method"] == method) & (distance["reference"] == ref)]
        ax.plot(one["time"] / 60, one["value"], color=colours[method], lw=1.2,
                label=label[method])
    ax.set_title(f"from {label[ref]}'s allocation")
    ax.set_xlabel("time (minutes)")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("Σ over leaves |dominant share − reference|")
axes[0].legend(fontsize=7)
figs.caption(fig, f"Simulated: {setup}. {machine}")
figs.save(fig, figures, "production_distance")

# %% [markdown]
# ## Per method: time to share, waits, distance, utilization, preemption
#
# Minutes from each leaf's first arrival until its dominant share first reaches 95% of
# H-DRF's for it (at the samples; "never": not while it had tasks), the mean wait of a
# task, the makespan, the fullest node's load at any task's start (capacity exceeded above
# 1), the mean distance from each reference (over every sample), the mean utilization of each
# node type's resources while jobs arrive, and the work preemption threw away (none: no
# rule preempts here).

# %%
one = table[table["time"].isna()]
to_share = one[one["metric"] == "time_to_share"].pivot(index="method", columns="queue",
                                                       values="value")[leaves] / 60
to_share = to_share.map(lambda v: "never" if np.isnan(v) else f"{v:g}")
to_share.columns = [f"to share: {c} (min)" for c in to_share.columns]
scalars = one[one["metric"].isin(["mean_wait", "makespan", "peak_load", "preemptions",
                                  "lost_task_seconds", "lost_gpu_hours"])].pivot(index="method", columns="metric",
                                                            values="value")
scalars["mean_wait"] /= 60
scalars["makespan"] /= 60
scalars = scalars.rename(columns={"mean_wait": "mean wait (min)", "makespan": "makespan (min)",
                                  "peak_load": "peak load of a node",
                                  "lost_task_seconds": "lost task-s",
                                  "lost_gpu_hours": "lost GPU-h"})
gaps = one[one["metric"] == "mean_distance"].pivot(index="method", columns="reference",
                                                   values="value")
gaps.columns = [f"mean distance from {label[c]}" for c in gaps.columns]
use = one[one["metric"] == "utilization"]
use = use.assign(where=use["node_type"] + " nodes: " + use["resource"]).pivot(
    index="method", columns="where", values="value")
use.columns = [f"utilization, {c}" for c in use.columns]
summary = pd.concat([to_share, scalars.round(1), gaps.round(3), use.round(3)], axis=1)
summary = summary.loc[methods]
summary.index = [label[m] for m in methods]
summary.index.name = "method"
display(summary.T)

# %%
text = "\n\n".join([
    "### The scenario under every method\n\n" + figs.markdown(summary.T),
    f"*{setup}. {machine}.*"])
Path(figures).mkdir(parents=True, exist_ok=True)
(Path(figures) / "production_tables.md").write_text(text + "\n")
display(Markdown(f"*Caption: each leaf queue's dominant share over time under each method, "
                 f"beside H-DRF's share for it; {setup}; {machine}.*"))
