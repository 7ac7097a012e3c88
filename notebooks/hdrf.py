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
# # H-DRF against flattening, naive hierarchical DRF, static H-DRF and the capacity scheduler
#
# H-DRF (Bhattacharya, Culler, Friedman, Ghodsi, Shenker, Stoica, SoCC'13) shares a cluster
# along a tree of weighted queues: top-down, the child with the lowest dominant share gets
# the next task, siblings' usage is rescaled to the lowest non-blocked one's, and blocked
# nodes are ignored. The data come from the pipeline steps `python -m drfbench.hdrf
# examples | properties | evaluate` (decisions by the kernel in drfbench/hdrf/hdrf.pyx; the
# evaluation on the cluster simulator drfbench.sim); this notebook only draws them.
#
# The slides' evaluation gives neither its hierarchy nor its job list. Ours
# (drfbench.hdrf.evaluation): a GPU subtree (train ⟨2 CPU, 3 GB, 1 GPU⟩ weight 2, infer
# ⟨1, 1, 1⟩ weight 1) and a CPU subtree (etl ⟨2, 2, 0⟩, query ⟨1, 2, 0⟩, batch ⟨1, 1, 0⟩)
# of equal weight; 100 jobs, each to a leaf drawn uniformly, one in five large (100–300
# tasks of 60–180 s), the rest small (5–20 tasks of 20–60 s), arriving uniformly over the
# first 20 minutes.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
from pathlib import Path

import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display

from drfbench import figures as figs

examples, properties, throughput, summary = figs.start(
    results, "hdrf/hdrf_examples", "hdrf/hdrf_properties", "hdrf/hdrf_throughput", "hdrf/hdrf_summary")
machine = figs.machine(summary)
first = summary.iloc[0]
window = float(throughput["window"].iloc[0])
setup = (f"{int(first['machines'])} machines of ⟨{str(first['machine']).replace(' ', ', ')}⟩ "
         f"(CPU, GB, GPU); {int(first['jobs'])} jobs, {float(first['large']):.0%} large, "
         f"arriving over {float(first['span']) / 60:g} min; seed {int(first['seed'])}")
labels = list(dict.fromkeys(summary["label"]))
leaves = list(dict.fromkeys(throughput["leaf"]))
palette = dict(zip(leaves, sns.color_palette("tab10", len(leaves))))


# %% [markdown]
# ## Throughput of the leaf nodes over time
#
# Tasks each leaf finishes per minute, in windows of a few minutes, one panel per method
# (the slides' "Throughput: leaf nodes").

# %%
fig, axes = figs.panels(len(labels), "time (minutes)", "tasks finished per minute")
for ax, label in zip(axes.flat, labels):
    part = throughput[throughput["label"] == label]
    for leaf in leaves:
        one = part[part["leaf"] == leaf]
        ax.step(one["time"] / 60, one["tasks_per_minute"], where="post", color=palette[leaf],
                lw=1.2, label=leaf)
    ax.set_title(label)
    ax.grid(alpha=0.3)
axes.flat[0].legend(title="leaf", fontsize=7, title_fontsize=8)
figs.caption(fig, f"Simulated: {setup}; throughput in windows of {window:g} s. "
             f"drfbench.hdrf.evaluation on drfbench.sim. {machine}")
figs.save(fig, figures, "hdrf_throughput")

# %% [markdown]
# ## Guarantees and idle resources per method
#
# Over the sampled instants where some task waits: how often a node with tasks waiting held
# less than its hierarchical guarantee (less one task of each leaf), by how much on
# average, the capacity left idle per resource, and how often a waiting task would have fit
# on some machine (0 for a method that never leaves usable room idle); then the top-level
# subtrees' mean dominant shares while both have tasks waiting, and job completion.

# %%
columns = {"violation_fraction": "below guarantee (fraction of time)",
           "mean_shortfall": "mean shortfall", "idle_cpu": "idle CPU", "idle_mem": "idle memory",
           "idle_gpu": "idle GPU", "waiting_fits_fraction": "a waiting task fits (fraction)",
           "contended_share_gpu": "GPU subtree share (contended)",
           "contended_share_cpu": "CPU subtree share (contended)",
           "mean_completion": "mean job completion (s)", "makespan": "makespan (s)"}
summary_table = summary.set_index("label")[list(columns)].rename(columns=columns)
summary_table.index.name = "method"
display(summary_table.round(3))

# %% [markdown]
# ## The slides' claims as worked examples
#
# Tasks each leaf runs under each method (drfbench.hdrf.examples: the slides' figures are
# lost, so each example is the smallest tree we found that shows the claim), and the
# capacity left idle.

# %%
leaf_rows = examples[examples["leaf"].astype(str) == "True"]
tasks = leaf_rows.pivot_table(index=["example", "node"], columns="label", values="tasks",
                              sort=False)[labels].astype(int).astype(str)
idle_columns = [c for c in examples.columns if c.startswith("idle_")]
idle = examples.groupby(["example", "label"], sort=False)[idle_columns].first().max(axis=1)
parts = []
for ex in dict.fromkeys(examples["example"]):
    part = tasks.loc[ex].copy()
    part.loc["idle (largest fraction of a resource)"] = [f"{idle[ex][label]:.3g}" for label in labels]
    part.index = [f"{ex}: {node}" for node in part.index]
    parts.append(part)
example_table = pd.concat(parts)
example_table.index.name = "example: leaf"
display(example_table)

# %% [markdown]
# ## The hierarchical properties on random trees
#
# Violated / checked random trees for each property (drfbench.hdrf.properties: the tree checks,
# each a one-machine cluster sized so that every leaf's guarantee holds a few of its tasks).

# %%
prop_table = properties.pivot_table(index="property_name", columns="label", aggfunc="first",
                                    values="violated", sort=False)[labels].astype(int).astype(str)
prop_table = prop_table + " / " + str(int(properties["checked"].max()))
prop_table.index.name = "property (violated / checked)"
display(prop_table)

# %%
text = "\n\n".join([
    "### Guarantees and idle resources (simulated)\n\n" + figs.markdown(summary_table, 3),
    "### Worked examples: tasks per leaf\n\n" + figs.markdown(example_table, 3),
    "### Hierarchical properties on random trees\n\n" + figs.markdown(prop_table, 3),
    f"*{setup}. {machine}.*"])
Path(figures).mkdir(parents=True, exist_ok=True)
(Path(figures) / "hdrf_tables.md").write_text(text + "\n")
display(Markdown(f"*Caption: tasks finished per minute by each leaf over time under each "
                 f"policy. {setup}; {machine}.*"))
