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
# # Packer's network sharing: guarantees and work conservation (Figs. 7-8)
#
# Algorithm 2 (Marcon and Barcellos, IFIP Networking 2017, §II-C) runs on every server's
# link each instant: each node gets at least min(demand, guarantee), and bandwidth left
# over goes to the nodes that want more than their guarantee, in proportion to their
# applications' weights. The data: `python -m drfbench.packer evaluate` runs
# drfbench.packer.work_conserving on the busiest server of Packer's first run, with bursty
# current demands (each node's guarantee times a factor uniform in [0.5, 2] per instant).

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
import matplotlib.pyplot as plt

from drfbench import figures as figs

rates = figs.start(results, "packer/packer_rates")
machine = figs.machine(rates)
server = int(rates["server"].iloc[0])
capacity = float(rates["capacity"].iloc[0])
rates["node_id"] = rates["application"] + "/" + rates["node"]
rates["hungry"] = rates["demand"] > rates["guarantee"]
met = (rates["rate"] >= rates[["guarantee", "demand"]].min(axis=1) - 1e-12).mean()

# %% [markdown]
# ## Fig. 7: one task's bandwidth against its guarantee
#
# The node on the server that most often wanted more than its guarantee: its guarantee σ,
# its current demand and the rate Algorithm 2 gave it. The rate is never below
# min(demand, guarantee).

# %%
node = rates[rates["hungry"]].groupby("node_id").size().idxmax()
one = rates[rates["node_id"] == node].sort_values("time")
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.step(one["time"], one["demand"], where="post", label="demand", color="tab:gray")
ax.step(one["time"], one["guarantee"], where="post", label="guarantee (σ)", color="tab:blue", ls="--")
ax.step(one["time"], one["rate"], where="post", label="rate (Algorithm 2)", color="tab:red")
ax.set_xlabel("time (instants)")
ax.set_ylabel("bandwidth (Gbps)")
ax.set_title(f"Fig. 7: bandwidth of {node} on server {server}")
ax.legend()
ax.grid(alpha=0.3)
figs.caption(fig, f"Rates at or above min(demand, guarantee): {met:.1%} of node-instants. {machine}")
figs.save(fig, figures, "packer_fig7_guarantee")

# %% [markdown]
# ## Fig. 8: work-conserving sharing on the server
#
# Per instant, the server's total demand, total guarantees and total rate against its link
# capacity: when demand exceeds the guarantees the rate rises above them, up to the link.

# %%
agg = rates.groupby("time")[["demand", "guarantee", "rate"]].sum()
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.step(agg.index, agg["demand"], where="post", label="total demand", color="tab:gray")
ax.step(agg.index, agg["guarantee"], where="post", label="total guarantees", color="tab:blue", ls="--")
ax.step(agg.index, agg["rate"], where="post", label="total rate", color="tab:red")
ax.axhline(capacity, color="k", lw=0.8, ls=":", label="link capacity")
ax.axvspan(int(rates["steady_from"].iloc[0]), int(rates["steady_to"].iloc[0]), color="0.85",
           zorder=0, lw=0, label="steady state")
ax.set_xlabel("time (instants)")
ax.set_ylabel("bandwidth (Gbps)")
ax.set_title(f"Fig. 8: work-conserving sharing on server {server}")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
figs.caption(fig, f"Algorithm 2 per instant on the server's uplink. {machine}")
figs.save(fig, figures, "packer_fig8_work_conserving")
