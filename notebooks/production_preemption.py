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
# # Fairness against the cost of getting there: preemption in Kueue and Armada
#
# A queue that arrives on a cluster others have filled by borrowing gets its share back
# only as the borrowers' jobs end, unless the scheduler preempts them; preemption buys
# time at the price of the work the evicted jobs had done (they restart). Kueue's fair
# preemption decides by comparing dominant resource shares (strategies
# LessThanOrEqualToFinalShare, LessThanInitialShare, or both in that order, upstream's
# default); Armada evicts from queues above a protected fraction of their fair share;
# either can be held to a rate of evictions. The data come from the pipeline step that
# runs `drfbench.production.tradeoff.sweep` on the side-by-side scenario
# (`drfbench/production/data/side_by_side.yaml`: 12 CPU and 4 GPU nodes, `batch` filling
# the cluster from 0 s, `prod` and `research` arriving at 600 s); this notebook only draws
# them. Time to fair share: from a queue's first arrival until its dominant share is
# within 5% of its fair share (weighted water-filling of the queues' offered loads).

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from drfbench import figures as figs

sweep = figs.start(results, "production/production_preemption")
machine = figs.machine(sweep)
sweep["rate_limit"] = sweep["rate_limit"].fillna(0).astype(int)
runs = sweep[sweep["queue"].isna()].pivot_table(
    index=["rule", "setting", "rate_limit"], columns="metric", values="value", sort=False)
queues = sweep[sweep["queue"].notna()].pivot_table(
    index=["rule", "setting", "rate_limit"], columns="queue", values="value", sort=False)

# %% [markdown]
# ## Time to fair share against preempted work
#
# One point per run: its mean time to fair share over the queues that arrive after the
# start, against the work its preemptions threw away, in task-hours (left) and GPU-hours
# (right). Filled markers: no rate limit; hollow: at most that many evictions a minute.
# A run whose queue never gets within 5% of its share is drawn at the top edge.

# %%
top = runs["mean_time_to_fair_share"].replace(np.inf, np.nan).max() * 1.15
colours = {"kueue": "tab:blue", "armada": "tab:orange"}


def short(rule, setting, limit):
    """A run's label: S2-a, S2-b for Kueue's strategies, pf for Armada's fraction."""
    text = setting.replace("LessThanOrEqualToFinalShare", "S2-a").replace(
        "LessThanInitialShare", "S2-b").replace("protected_fraction=", "pf ")
    return f"{rule} {text}" + (f" ≤{limit}/min" if limit else "")


fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
for ax, (metric, scale, unit) in zip(axes, [("lost_task_seconds", 3600.0, "task-hours"),
                                            ("lost_gpu_hours", 1.0, "GPU-hours")]):
    labels = {}                       # runs drawn on one spot share one label
    for (rule, setting, limit), row in runs.iterrows():
        y = row["mean_time_to_fair_share"]
        y = top if not np.isfinite(y) else y
        x = row[metric] / scale
        ax.scatter(x, y, s=45, color=colours[rule], marker="o" if limit == 0 else "s",
                   facecolors=colours[rule] if limit == 0 else "none")
        spot = (round(x / (runs[metric].max() / scale) * 6), round(y / top * 30))
        labels.setdefault(spot, [x, y, []])[2].append(short(rule, setting, limit))
    for x, y, names in labels.values():
        ax.annotate("\n".join(names), (x, y), fontsize=5.5, xytext=(6, 0),
                    textcoords="offset points", va="center")
    ax.set_xlim(-0.05 * runs[metric].max() / scale, 1.6 * runs[metric].max() / scale)
    ax.set_ylim(0.8 * runs["mean_time_to_fair_share"].min(), 1.05 * top)
    ax.set_xlabel(f"preempted work ({unit})")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("mean time to fair share (s)")
for rule, colour in colours.items():
    axes[0].scatter([], [], color=colour, label=rule)
axes[0].scatter([], [], color="grey", marker="s", facecolors="none", label="rate-limited")
axes[0].legend(fontsize=7, loc="upper left")
figs.caption(fig, "Simulated: the side-by-side scenario (drfbench.production.sidebyside), "
             "each rule's preemption settings with and without a rate limit; evicted jobs "
             f"restart. {machine}")
figs.save(fig, figures, "production_preemption")

# %% [markdown]
# ## The runs as a table
#
# Per run: each late queue's time to fair share (s), then the mean, the evictions (tasks)
# and the work lost.

# %%
table = queues.join(runs[["mean_time_to_fair_share", "preemptions", "lost_task_seconds",
                          "lost_gpu_hours"]])
display(table.round(2))
