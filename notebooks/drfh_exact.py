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
# # DRFH, exact: the paper's worked example and its properties
#
# DRFH (Wang, Liang, Li: "Dominant Resource Fairness in Cloud Computing Systems with
# Heterogeneous Servers") equalizes users' *global* dominant shares subject to every
# server's capacity (problem (7)). The data come from the pipeline steps `python -m
# drfbench.drfh examples | properties` (drfbench.drfh.allocate, exact for divisible tasks;
# drfbench.drfh.properties for the checks); this notebook only draws them.
#
# Fig. 1 of the paper: servers ⟨2 CPU, 12 GB⟩ and ⟨12 CPU, 2 GB⟩, users ⟨0.2 CPU, 1 GB⟩ and
# ⟨1 CPU, 0.2 GB⟩ per task. Per-server DRF (Fig. 2) gives each user 6 tasks; DRFH (Fig. 3)
# gives each user a whole server and 10 tasks.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from drfbench import figures as figs

examples, properties = figs.start(results, "drfh/drfh_examples", "drfh/drfh_properties")
machine = figs.machine(properties)
methods = {"per-server-drf": "Per-server DRF (Fig. 2)", "drfh": "DRFH (Fig. 3)"}
servers = list(dict.fromkeys(examples["server_capacity"]))

# %% [markdown]
# ## Fig. 1 to 3: tasks per user, per server
#
# Stacked bars: the tasks each user runs on each server, under per-server DRF and DRFH;
# the dashed line is the paper's total for each.

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
colors = ["#4c72b0", "#dd8452"]
for ax, (method, title) in zip(axes, methods.items()):
    part = examples[examples["method"] == method]
    users = sorted(part["user"].unique())
    bottom = [0.0] * len(users)
    for k, server in enumerate(servers):
        heights = [float(part[(part["user"] == u) & (part["server_capacity"] == server)]
                         ["tasks_on_server"].iloc[0]) for u in users]
        ax.bar([f"user {u}" for u in users], heights, bottom=bottom, color=colors[k % 2],
               label=f"server {k + 1} {server}")
        bottom = [b + h for b, h in zip(bottom, heights)]
    paper = float(part["paper_tasks"].iloc[0])
    ax.axhline(paper, ls="--", color="k", lw=1, label="the paper's total per user")
    ax.set_title(title)
    ax.set_xlabel("user")
    ax.set_ylim(0, 13)
    ax.grid(axis="y", alpha=0.3)
axes[0].set_ylabel("tasks (divisible)")
axes[0].legend(fontsize=8, loc="upper left")
fig.suptitle("DRFH paper, Fig. 1 example: tasks per user under per-server DRF and DRFH")
figs.caption(fig, f"drfbench.drfh.allocate, exact (divisible tasks). {machine}")
figs.save(fig, figures, "drfh_fig1")

# %%
totals = examples.groupby(["method", "user"], sort=False)[["tasks", "paper_tasks"]].first()
totals = totals.unstack("user")
display(totals)

# %% [markdown]
# ## Sec. IV's properties on random heterogeneous instances
#
# Violated / checked instances for each property (drfbench.drfh.properties: the server
# checks, on Fig. 1's instance and random ones with duplicate configurations, weights and
# finite task counts; single-server DRF, single-resource and bottleneck fairness on
# instances of their own kind), with every user demanding every resource (the paper's
# assumption) and with a fraction of zero demands, and the paper's claim for DRFH. The
# sharing incentive against a dedicated proportional cloud is not claimed by the paper
# (Sec. IV-D); its counterexamples (with the most zero demands) are listed below.

# %%
labels = list(dict.fromkeys(properties["label"]))
properties["column"] = [f"{label}, {'every demand positive' if z == 0 else f'{z:.0%} zero demands'}"
                        for label, z in zip(properties["label"], properties["zeros"])]
columns = list(dict.fromkeys(properties.sort_values("zeros", kind="stable")["column"]))
checked = properties.pivot_table(index="property_name", columns="column", values="checked",
                                 aggfunc="first", sort=False)[columns].astype(int)
violated = properties.pivot_table(index="property_name", columns="column", values="violated",
                                  aggfunc="first", sort=False)[columns].astype(int)
prop_table = violated.astype(str) + " / " + checked.astype(str)
claims = properties[properties["method"] == "drfh"].groupby("property_name", sort=False)["paper"].first()
prop_table["paper's claim for DRFH"] = [
    {"True": "holds", "False": "not guaranteed"}.get(str(claims.get(p, "")), "")
    for p in prop_table.index]
prop_table.index.name = "property (violated / checked)"
display(prop_table)

# %%
si = properties[(properties["method"] == "drfh")
                & (properties["property"] == "dedicated_sharing_incentive")]
si = si[si["zeros"] == si["zeros"].max()]
listed = [c for c in str(si["counterexamples"].iloc[0]).split(" || ") if c and c != "nan"]
display(Markdown(f"**DRFH below its dedicated cloud** ({si['zeros'].iloc[0]:.0%} zero demands): "
                 f"{len(listed)} instance(s); the first few:\n\n"
                 + "\n".join(f"- {c}" for c in listed[:5])))

Path(figures).mkdir(parents=True, exist_ok=True)
(Path(figures) / "drfh_properties.md").write_text(
    "### DRFH's properties (violated / checked)\n\n" + figs.markdown(prop_table)
    + "\n\n### Sharing-incentive counterexamples (DRFH)\n\n"
    + "\n".join(f"- {c}" for c in listed) + f"\n\n*{machine}.*\n")
