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
# # DRF against slots: jobs finished over time
#
# The lecture's experiment ("Experiment: DRF vs Slots"): a cluster shared by two kinds of
# jobs, Type 1 with ⟨2 CPU, 2 GB⟩ tasks and Type 2 with ⟨1 CPU, 0.5 GB⟩ tasks, scheduled
# either by online DRF or by a Hadoop-style fair scheduler with k slots per machine. Each
# type is one user with an endless backlog of jobs, run one after another. The data come
# from the pipeline step `python -m drfbench.drf slots` (a discrete-event simulation whose
# scheduling decisions are made by the kernel in drfbench/drf/drf.pyx); this notebook only
# plots them.
#
# Model, where the lecture is silent: DRF launches a task only where it fits. The slot
# scheduler launches a task in any free slot whatever it needs; a machine whose tasks
# together need more than it has runs all of them slower, at speed 1 / (the most
# oversubscribed resource's load): time-sharing with no thrashing penalty, which is
# optimistic for slots.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figure is written

# %%
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display

from drfbench import figures as figs

rows = figs.start(results, "drf/drf_vs_slots")
first = rows.iloc[0]
machine = figs.machine(rows)
cpu, mem = (float(v) for v in str(first["machine"]).split())
setup = (f"{int(first['machines'])} machines of ⟨{cpu:g} CPU, {mem:g} GB⟩; jobs of "
         f"{int(first['tasks_per_job'])} tasks of {float(first['duration']):g} s "
         f"(jitter {float(first['jitter']):g})")
methods = list(dict.fromkeys(rows["method"]))
palette = dict(zip(methods, ["black"] + sns.color_palette("viridis", len(methods) - 1)))
styles = {s: "-" if s == "DRF" else "--" for s in methods}
horizon = rows["time"].max()

# %% [markdown]
# ## Jobs finished over time

# %%
done = rows[rows["metric"] == "jobs_finished"]
types = list(dict.fromkeys(rows["job_type"]))
fig, axes = plt.subplots(1, len(types), figsize=(5.2 * len(types), 4.0), sharey=False)
for ax, job_type in zip(axes, types):
    for method in methods:
        part = done[(done["job_type"] == job_type) & (done["method"] == method)]
        t = [0.0, *(part["time"] / 60), horizon / 60]
        y = [0, *part["value"], part["value"].max() if len(part) else 0]
        ax.step(t, y, where="post", color=palette[method], linestyle=styles[method], label=method)
    demand = first["type1"] if job_type == "Type 1" else first["type2"]
    c, g = (float(v) for v in str(demand).split())
    ax.set_title(f"{job_type} jobs ⟨{c:g} CPU, {g:g} GB⟩ tasks")
    ax.set_xlabel("time (minutes)")
    ax.set_ylabel(f"number of {job_type} jobs finished")
    ax.set_xlim(0, horizon / 60)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
axes[0].legend(title="method", fontsize=8)
figs.caption(fig, f"Simulated: {setup}. drfbench.drf.drf_vs_slots on drfbench.sim. {machine}")
figs.save(fig, figures, "drf_vs_slots")

# %% [markdown]
# ## What each scheduler gave each type
#
# Jobs finished by the end, the mean share of the cluster's CPUs and memory each type used
# (its running tasks' demands times their speed, sampled every minute), and the mean speed
# of its running tasks (1 = not slowed).

# %%
final = done.groupby(["method", "job_type"])["value"].max().unstack()
samples = rows[rows["metric"] != "jobs_finished"].groupby(["method", "job_type", "metric"])["value"].mean().unstack()
summary = samples.rename(columns={"share_0": "CPU share", "share_1": "memory share", "speed": "task speed"})
summary["jobs finished"] = final.stack()
summary = summary.reindex(methods, level=0)
display(summary.round(3))

# %% [markdown]
# DRF equalizes dominant shares: CPU is both types' dominant resource, so each holds half
# the CPUs and Type 2, whose tasks need half as much, runs twice as many tasks and finishes
# about twice as many jobs. Slots equalize task counts instead: with few slots per machine
# Type 2's small tasks leave CPUs idle (fewer jobs finished in total); with more slots,
# Type 1's tasks take two CPUs per slot, machines are oversubscribed and every task is
# slowed, and Type 1 holds about two thirds of the CPU time — the slot count cannot express
# a multi-resource fair share, whatever k is.

# %%
display(Markdown(f"*Caption: jobs finished over time under DRF and the slot scheduler. {setup}; "
                 f"{machine}.*"))
