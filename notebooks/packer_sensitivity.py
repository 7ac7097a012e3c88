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
# # What Packer's claims depend on: a sensitivity study
#
# Packer (Marcon and Barcellos, IFIP Networking 2017) reports that it accepts ≈ 30% more
# tasks than Tetris and ≈ 67% more than slot-based allocation (Fig. 3), with more
# utilization (Fig. 4) and ≈ 29% / ≈ 60% more revenue (Fig. 5). The paper leaves open
# choices that could decide those numbers; drfbench makes each a knob
# (docs/families/packer/choices.md) and runs Packer, Tetris and slots under every combination:
#
# * **view**, what a method is told of an application: its demands per instant (TI-MRA,
#   Packer's abstraction) or, as a tenant without TI-MRA would say, each node's peak held
#   over its whole span. Three comparisons: everyone told TI-MRA; Packer told TI-MRA and
#   its rivals the peaks; everyone told the peaks.
# * **temporal**, the load's shape over time: *jitter* (each instant's demand a random
#   fraction of the peak, no structure), *phased* (MapReduce stages: map CPU- and
#   disk-heavy, shuffle network-heavy, reduce disk-write-heavy), *complementary*
#   (resources and applications peak at different times, the paper's premise).
# * **bottleneck**, which resource binds: the network, both about together (balanced),
#   or computing.
# * **score**, the reading of Packer's Eq. 6-8: as written (*literal*: the maximum of
#   cubic residuals, i.e. worst fit, and a term per link of a path), *best-fit* on the
#   computing half, the network half one term *per path* (the mean over its links) or its
#   *bottleneck* link's, and best fit with either.
#
# Each cell is the paper's percentage difference, (Packer − rival) / Packer × 100, the
# mean over the seeds with its 95% confidence half-width; positive: Packer higher. Data:
# `python -m drfbench.packer sensitivity` (rules in workflows/rules/packer_sensitivity.smk).

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

runs = figs.start(results, "packer/packer_sensitivity")
machine = figs.machine(runs)
first = runs.iloc[0]
seeds = sorted(set(runs["seed"]))
setup = (f"{int(first['servers'])} servers ({int(first['per_rack'])} per rack, "
         f"{int(first['racks_per_agg'])} ToRs per aggregation switch), "
         f"{float(first['mapreduce']):.0%} MapReduce, seeds {seeds}")
SCORES = [s for s in ("literal", "best-fit", "per-path", "bottleneck", "best-fit-per-path",
                      "best-fit-bottleneck") if s in set(runs["score"].dropna())]
TEMPORAL = [t for t in ("jitter", "phased", "complementary") if t in set(runs["temporal"])]
BOTTLENECK = [b for b in ("network", "balanced", "compute") if b in set(runs["bottleneck"])]
VIEWS = {"everyone told TI-MRA": ("ti-mra", "ti-mra"),
         "Packer told TI-MRA, rivals the peaks": ("ti-mra", "peak"),
         "everyone told the peaks": ("peak", "peak")}
VIEWS = {k: v for k, v in VIEWS.items() if set(v) <= set(runs["view"])}
RIVALS = {"tetris": "Tetris", "packer-slots": "slots"}
METRICS = {"acceptance": "tasks accepted", "revenue": "revenue (on reservations)",
           "revenue_used": "revenue (on use)", "mean_util_cpu": "CPU utilization",
           "mean_util_band": "bandwidth utilization"}
PAPER = {("acceptance", "tetris"): 30, ("acceptance", "packer-slots"): 67,
         ("revenue", "tetris"): 29, ("revenue", "packer-slots"): 60,
         ("revenue_used", "tetris"): 29, ("revenue_used", "packer-slots"): 60,
         ("mean_util_band", "tetris"): 76, ("mean_util_band", "packer-slots"): 87}
LIKELY = ("Packer told TI-MRA, rivals the peaks", "complementary", "network", "literal")
columns = [(t, b) for t in TEMPORAL for b in BOTTLENECK]

# %%
packer = runs[runs["method"] == "packer"]
rows = []
for setting, (pv, rv) in VIEWS.items():
    for rival in RIVALS:
        other = runs[(runs["method"] == rival) & (runs["view"] == rv)]
        pair = packer[packer["view"] == pv].merge(
            other, on=["seed", "temporal", "bottleneck"], suffixes=("", "_rival"))
        for metric in METRICS:
            d = (pair[metric] - pair[f"{metric}_rival"]) / pair[metric] * 100
            rows.append(pair[["seed", "temporal", "bottleneck", "score"]].assign(
                view=setting, rival=rival, metric=metric, difference=d))
diff = pd.concat(rows, ignore_index=True)


cells = (diff.groupby(["metric", "rival", "view", "score", "temporal", "bottleneck"])["difference"]
         .apply(figs.interval).unstack().reset_index())


def heatmaps(metric_rows, name, title):
    """A grid of heat maps: a row per (metric, rival), a column per view setting; in each,
    a row per reading of Eq. 6-8 and a column per (temporal, bottleneck)."""
    fig, axes = plt.subplots(len(metric_rows), len(VIEWS), squeeze=False,
                             figsize=(5.4 * len(VIEWS), 0.5 * len(SCORES) * len(metric_rows) + 1.6))
    limit = 100.0                    # colours saturate beyond ±100%
    for i, (metric, rival) in enumerate(metric_rows):
        for j, setting in enumerate(VIEWS):
            ax = axes[i, j]
            part = cells[(cells["metric"] == metric) & (cells["rival"] == rival) & (cells["view"] == setting)]
            grid = part.pivot_table(index="score", columns=["temporal", "bottleneck"], values="mean")
            half = part.pivot_table(index="score", columns=["temporal", "bottleneck"], values="half")
            grid, half = (g.reindex(index=SCORES, columns=pd.MultiIndex.from_tuples(columns)) for g in (grid, half))
            image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
            for (y, x), v in np.ndenumerate(grid.to_numpy()):
                if np.isfinite(v):
                    h = half.to_numpy()[y, x]
                    ax.text(x, y, f"{v:+.0f}\n±{h:.0f}", ha="center", va="center", fontsize=5.5,
                            color="white" if abs(v) > 0.6 * limit else "black")
            ax.set_xticks(range(len(columns)), [f"{t}, {b}" for t, b in columns], fontsize=6,
                          rotation=35, ha="right")
            ax.set_yticks(range(len(SCORES)), SCORES if j == 0 else [""] * len(SCORES), fontsize=7)
            paper = PAPER.get((metric, rival))
            ax.set_title(f"{METRICS[metric]}, Packer vs {RIVALS[rival]}"
                         + (f" (paper: +{paper}%)" if paper else "") + f"\n{setting}", fontsize=8)
    fig.suptitle(title, fontsize=10)
    figs.caption(fig, f"Mean over seeds ± 95% half-width. {setup}. {machine}")
    fig.colorbar(image, ax=axes, shrink=0.8, pad=0.01, label="(Packer − rival) / Packer × 100 (%)")
    figs.save(fig, figures, name)


# %% [markdown]
# ## Acceptance (Fig. 3)
#
# Tasks accepted over tasks submitted over the whole run. The paper: Packer ≈ 30% above
# Tetris, ≈ 67% above slots. Blue: Packer accepts more; red: its rival does.

# %%
heatmaps([("acceptance", r) for r in RIVALS], "packer_sensitivity_acceptance",
         "Fig. 3's claim under every setting: tasks accepted")

# %% [markdown]
# ## Revenue (Fig. 5)
#
# What the accepted applications pay: for what they reserve (the paper's §IV: a tenant
# who gives peaks "is allocating such resources and paying for them"), and, for
# comparison, for what they use. The paper: ≈ 29% above Tetris, ≈ 60% above slots.

# %%
heatmaps([(m, r) for m in ("revenue", "revenue_used") for r in RIVALS],
         "packer_sensitivity_revenue", "Fig. 5's claim under every setting: revenue")

# %% [markdown]
# ## Utilization (Fig. 4)
#
# The mean utilization over the run of what the accepted applications use (not what they
# reserve): CPU (Fig. 4a; memory and disk follow it) and bandwidth (Fig. 4e: the paper,
# ≈ 76% above Tetris and ≈ 87% above slots).

# %%
heatmaps([(m, r) for m in ("mean_util_cpu", "mean_util_band") for r in RIVALS],
         "packer_sensitivity_utilization", "Fig. 4's claims under every setting: utilization")

# %% [markdown]
# ## The claims, setting by setting
#
# For each claim: the difference under drfbench's defaults (everyone told TI-MRA, jitter,
# network-bound, Eq. 6-8 as written), under the paper's most likely setting (Packer told
# TI-MRA and its rivals the peaks, complementary load, network-bound, as written), the
# best setting for Packer, and in how many settings Packer is significantly higher
# (confidence interval above 0), not significantly different, or significantly lower.

# %%
def cell(metric, rival, setting, temporal, bottleneck, score):
    c = cells[(cells["metric"] == metric) & (cells["rival"] == rival) & (cells["view"] == setting)
              & (cells["temporal"] == temporal) & (cells["bottleneck"] == bottleneck)
              & (cells["score"] == score)]
    return c.iloc[0] if len(c) else None


def show(c):
    return "—" if c is None else f"{c['mean']:+.1f} ± {c['half']:.1f}%"


default = (list(VIEWS)[0], "jitter", "network", "literal")
lines = ["| claim | paper | defaults | paper's likely setting | best setting for Packer | "
         "Packer higher / no difference / lower (settings) | the paper's size within reach "
         "(settings) |", "|---|---|---|---|---|---|---|"]
for (metric, rival), paper in PAPER.items():
    part = cells[(cells["metric"] == metric) & (cells["rival"] == rival)]
    best = part.loc[part["mean"].idxmax()]
    higher = int((part["mean"] - part["half"] > 0).sum())
    lower = int((part["mean"] + part["half"] < 0).sum())
    reach = int((part["mean"] + part["half"] >= paper).sum())
    lines.append(f"| {METRICS[metric]} vs {RIVALS[rival]} | +{paper}% | "
                 f"{show(cell(metric, rival, *default))} | {show(cell(metric, rival, *LIKELY))} | "
                 f"{show(best)}: {best['view']}, {best['temporal']}, {best['bottleneck']}, "
                 f"{best['score']} | {higher} / {len(part) - higher - lower} / {lower} | {reach} |")
by_score = (cells[(cells["metric"] == "acceptance") & (cells["rival"] == "tetris")]
            .groupby(["view", "score"])["mean"].mean().unstack().reindex(columns=SCORES))
text = "\n".join(lines + [
    "", f"*Mean ± 95% half-width over {len(seeds)} seeds; (Packer − rival) / Packer × 100. "
    f"{len(cells) // (len(METRICS) * len(RIVALS))} settings per claim. {setup}. {machine}.*", "",
    "Acceptance against Tetris, mean over the workloads (temporal × bottleneck), per view "
    "and reading of Eq. 6-8:", "",
    "| view | " + " | ".join(by_score.columns) + " |", "|---|" + "---|" * len(by_score.columns)]
    + [f"| {v} | " + " | ".join(f"{x:+.1f}%" for x in row) + " |"
       for v, row in zip(by_score.index, by_score.to_numpy())])
Path(figures).mkdir(parents=True, exist_ok=True)
(Path(figures) / "packer_sensitivity.md").write_text(text + "\n")
display(Markdown(text))
