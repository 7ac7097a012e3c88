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
# # DRFQ against bottleneck fairness, fair queueing and FIFO
#
# DRFQ (Ghodsi, Sekar, Zaharia, Stoica, SIGCOMM'12) fair-queues packets that need several
# resources of a middlebox in turn: each packet's virtual start and finish times count its
# dominant processing time, so that flows get equal dominant shares in time, as DRF gives
# them in space. The cs262a lecture's closing experiment: a middlebox whose packets use
# the CPU, then the NIC; flow 1 costs ⟨1, 6⟩ µs per packet (bandwidth-bound), flow 2
# ⟨7, 1⟩ µs (CPU-bound); bottleneck fairness (fair queueing on the resource found busiest
# every 300 ms, in Click) makes TCP oscillate. The data come from the pipeline steps
# `python -m drfbench.drfq lecture | series | sweep` (the packet-level simulator in
# drfbench/drfq/drfq.pyx); this notebook only draws them. The lecture's Click machine's speeds
# are not ours, so each rate is compared as its ratio to the flow running alone.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

import drfbench
from drfbench import figures as figs

lecture, series, sweep = figs.start(
    results, "drfq/drfq_lecture", "drfq/drfq_series", "drfq/drfq_sweep")
machine = figs.machine(lecture)
first = lecture.iloc[0]
setup = (f"the lecture's flows ⟨1, 6⟩ and ⟨7, 1⟩ µs (CPU, NIC), {float(first['duration']):g} s "
         f"simulated per run; TCP round trip {float(first['rtt']) * 1e3:g} ms; bottleneck "
         f"re-decided every {float(first['interval']) * 1e3:g} ms")
FLOWS = {0: "flow 1 (bandwidth-bound, ⟨1, 6⟩ µs)", 1: "flow 2 (CPU-bound, ⟨7, 1⟩ µs)"}
SCENARIOS = list(dict.fromkeys(lecture["scenario"]))


def label(method):
    """A method's label in tables and figures (the registry's)."""
    return drfbench.method_info(method).label


# %% [markdown]
# ## The lecture's table, as ratios to each flow alone
#
# Each flow's throughput under each method over its throughput alone; the lecture's
# (191 / 33 Mbps alone, 75 / 32 under bottleneck fairness, 160 / 28 under DRFQ) as the
# same ratios. `fq-cpu` and `fq-nic` are fair queueing on one resource; DRF's allocation
# of these two flows gives each 6/7 ≈ 0.857 of its rate alone.

# %%
ratios = lecture.pivot_table(index=["source", "scenario"], columns="flow", values="ratio_to_alone",
                             sort=False)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
for ax, source in zip(axes, dict.fromkeys(lecture["source"])):
    part = ratios.loc[source].reindex(SCENARIOS)
    x = range(len(part))
    for i, flow in enumerate(part.columns):
        ax.bar([p + (i - 0.5) * 0.38 for p in x], part[flow], width=0.38, label=FLOWS[flow],
               color=("tab:blue", "tab:orange")[i])
        quoted = lecture[(lecture["source"] == source) & (lecture["flow"] == flow)]
        quoted = quoted.set_index("scenario")["lecture_ratio"].reindex(SCENARIOS)
        ax.scatter([p + (i - 0.5) * 0.38 for p in x], quoted, marker="_", s=300, color="black",
                   zorder=3, label="the lecture (Click)" if i == 0 else None)
    ax.set_xticks(list(x), part.index, rotation=30, ha="right")
    ax.set_title(f"{source} sources")
    ax.set_ylim(0, 1.3)
    ax.grid(axis="y", alpha=0.3)
axes[0].set_ylabel("throughput / throughput alone")
axes[0].legend(fontsize=7, loc="upper left", ncol=3)
figs.caption(fig, f"Simulated: {setup}. Bars: drfbench.drfq; black marks: the lecture's Mbps "
             f"over its flows' rates alone. {machine}")
figs.save(fig, figures, "drfq_lecture")

# %%
ours = lecture[lecture["lecture_mbps"].notna()]
lecture_table = ours.pivot_table(index=["scenario"], columns=["flow", "source"],
                                 values="ratio_to_alone", sort=False)
lecture_table.columns = [f"{['flow 1', 'flow 2'][f]}, {s}" for f, s in lecture_table.columns]
quoted = ours.drop_duplicates(["scenario", "flow"]).pivot(index="scenario", columns="flow",
                                                          values="lecture_ratio")
for f in (0, 1):
    lecture_table[f"{['flow 1', 'flow 2'][f]}, lecture"] = quoted[f]
lecture_table = lecture_table[sorted(lecture_table.columns)]
lecture_table.index.name = "scenario (ratio to alone)"
display(lecture_table.round(3))

# %% [markdown]
# ## Rates over time: bottleneck fairness oscillates, DRFQ does not
#
# Each flow's departures per second in short bins, TCP sources, the lecture's two flows.
# Bottleneck fairness fair-queues on one resource and flips it at every re-decision: the
# flow that resource favours takes nearly all of its capacity, the other starves, and TCP
# sees the swings. DRFQ holds both near DRF's allocation.

# %%
methods = list(dict.fromkeys(series["method"]))
fig, axes = plt.subplots(len(methods), 1, figsize=(10, 2.6 * len(methods)), sharex=True,
                         sharey=True, squeeze=False)
for ax, method in zip(axes[:, 0], methods):
    part = series[series["method"] == method]
    for flow, color in zip((0, 1), ("tab:blue", "tab:orange")):
        one = part[part["flow"] == flow]
        ax.step(one["time"], one["rate"] / 1e3, where="post", color=color, lw=1, label=FLOWS[flow])
    ax.set_title(label(method))
    ax.set_ylabel("rate (thousand packets/s)")
    ax.grid(alpha=0.3)
axes[-1, 0].set_xlabel("time (s)")
axes[0, 0].legend(fontsize=7, loc="upper right")
width = float(series["time"].drop_duplicates().sort_values().diff().median())
figs.caption(fig, f"Simulated: {setup}; TCP sources; departures in bins of {width * 1e3:g} ms. "
             f"{machine}")
figs.save(fig, figures, "drfq_oscillation")

# %% [markdown]
# ## The sweep: fairness, utilization and drops per method
#
# Flows × resources × per-flow cost distributions, every method on the same flows,
# averaged over the resources and distributions: fairness is the spread of the flows'
# weighted dominant shares ((max − min) / mean; 0 is equal), utilization the resources'
# mean busy fraction, drops the TCP sources' lost packets over those that arrived
# (backlogged flows never drop).

# %%
grouped = sweep.groupby(["source", "method", "flows"], sort=False)
summary = grouped[["share_spread", "busy_mean", "drop_rate"]].mean().reset_index()
panels = (("share_spread", "spread of dominant shares", "backlogged"),
          ("share_spread", "spread of dominant shares", "tcp"),
          ("busy_mean", "mean busy fraction", "backlogged"),
          ("drop_rate", "dropped / arrived", "tcp"))
sources = set(summary["source"])
panels = [p for p in panels if p[2] in sources]
fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.6), squeeze=False)
for ax, (column, what, source) in zip(axes[0], panels):
    part = summary[summary["source"] == source]
    for method in dict.fromkeys(part["method"]):
        one = part[part["method"] == method]
        ax.plot(one["flows"], one[column], marker="o", ms=3, label=label(method))
    ax.set_xscale("log")
    if column == "share_spread":       # DRFQ's spreads are 1e-5 .. 1e-2, the others' 0.1 .. 30
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.set_ylim(bottom=0)
    ax.set_xlabel("flows")
    ax.set_title(f"{what}\n({source} sources)", fontsize=9)
    ax.grid(alpha=0.3)
axes[0, 0].legend(fontsize=7)
first = sweep.iloc[0]
sweep_setup = (f"flows {sorted(set(sweep['flows']))}, resources {sorted(set(sweep['resources']))}, "
               f"cost distributions {', '.join(dict.fromkeys(sweep['distribution']))}; each run "
               f"about {int(first['packets_per_flow'])} packets per flow, at least 10 bottleneck "
               f"intervals; packet costs {first['packet_costs']}; seed {int(first['seed'])}")
figs.caption(fig, f"Simulated: {sweep_setup}; means over resources and distributions. "
             f"{figs.machine(sweep)}")
figs.save(fig, figures, "drfq_sweep")

# %%
sweep_table = summary.pivot_table(index=["source", "method"], values=["share_spread", "busy_mean",
                                                                          "drop_rate"], sort=False)
sweep_table.index = [f"{s}, {label(x)}" for s, x in sweep_table.index]
sweep_table.index.name = "source, method (mean over the sweep)"
display(sweep_table.round(3))

# %%
text = "\n\n".join([
    "### The lecture's experiment: throughput over throughput alone\n\n" + figs.markdown(lecture_table, 3),
    "### The sweep (means over flows, resources and distributions)\n\n" + figs.markdown(sweep_table, 3),
    f"*{setup}. {sweep_setup}. {machine}.*"])
Path(figures).mkdir(parents=True, exist_ok=True)
(Path(figures) / "drfq_tables.md").write_text(text + "\n")
display(Markdown(text))
