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
# # Figures 8 and 9: utilization and fairness against the deadline
#
# Regenerates Figures 8 and 9 of DC-DRF (Kash, O'Shea and Volos, SoCC'18), §5.3–5.4. On the
# G0 profile (1M tenants x 100K resources) the paper compares four configurations
# against the deadline (seconds): parallel DC-DRF (DC-DRF), single-threaded DC-DRF
# (sDC-DRF), parallel EDRF stopped at the deadline (pEDRF) and parallel EDRF allowed one
# round (pEDRF-1), all normalized to exact single-threaded EDRF.
#
# * **Figure 8**, "Resource utilization against baseline": total allocation over the
#   baseline's against the deadline. DC-DRF and sDC-DRF are near-optimal to the right
#   of a knee; pEDRF converges to the baseline as the deadline approaches its completion
#   time; pEDRF-1 is poor throughout.
# * **Figure 9 (left)**: the standard deviation of the allocation from the baseline
#   (log scale) against the deadline; **(right)**: the under-allocation (shortfall) of
#   the tenant with the greatest shortfall ("outlier", solid lines) and at the first
#   tenth of a percentile (dotted). The paper's caption says "0.01 percentile" but its
#   text describes the 0.1th percentile ("the 1000 tenants with the greatest shortfall"
#   of 1M); our column `shortfall_p0.1` is the 0.1th percentile, as in the text.
#
# Our data: the `deadlines` sweep (`dcdrf/deadlines.csv`): methods `dcdrf`, `sdcdrf` (several
# fixed epsilons each), `pedrf` and `pedrf1` (epsilon 0), each stopped at each
# `deadline` (seconds of kernel time), repeated. Where we differ from the paper: its
# DC-DRF picks epsilon per deadline with the outer loop (Figure 10); here each epsilon is
# a fixed-epsilon run, so every (method, epsilon) is its own line (colour = method,
# line style and marker = epsilon). To approximate the outer loop we also draw a
# **best-epsilon envelope** per multi-epsilon method (wide translucent band): at each
# deadline, the epsilon with the best median metric among those whose runs finished
# within the deadline (at least half the repeats); where none finished, the best of
# all (those envelope points are drawn hollow). Deadlines and input size are the
# profile's (read from the data; the default profile's deadlines are fractions of a
# second at 100K x 10K), and the machine has 2 cores (DC-DRF's and pEDRF's parallelism
# is 2 threads, not the paper's 48).

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display

from drfbench import figures as figs

rows = figs.start(results, "dcdrf/deadlines")
machine = figs.machine(rows)
first = rows.iloc[0]
rows["deadline_s"] = pd.to_numeric(rows["deadline"], errors="coerce")
rows = rows[rows["deadline_s"].notna()].copy()
rows["epsilon"] = rows["epsilon"].astype(float)
# timed_out: stopped before completing, at the deadline (or, for pEDRF-1, after its one
# round); "finished" is the opposite.
rows["finished"] = rows["timed_out"].astype(str) != "True"
FLOOR = 1e-6  # log axes: values below this (exact up to rounding) are drawn at it

METHOD_ORDER = ["dcdrf", "sdcdrf", "pedrf", "pedrf1"]
NAMES = {"dcdrf": "DC-DRF", "sdcdrf": "sDC-DRF", "pedrf": "pEDRF", "pedrf1": "pEDRF-1"}
methods = [m for m in METHOD_ORDER if m in set(rows["method"])] + sorted(
    set(rows["method"]) - set(METHOD_ORDER))
_cb = sns.color_palette("colorblind", 10)
colors = dict(zip(methods, [_cb[i] for i in (0, 1, 2, 4, 3, 5, 6, 7)]))
eps_all = sorted(rows.loc[rows["epsilon"] > 0, "epsilon"].unique())
STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "v", "P"]
eps_style = {e: (STYLES[k % len(STYLES)], MARKERS[k % len(MARKERS)]) for k, e in enumerate(eps_all)}
eps_style[0.0] = ("-", "D")
threads = rows.groupby("method")["threads"].max().astype(int).to_dict()

deadlines = sorted(rows["deadline_s"].unique())
log_x = len(deadlines) > 1 and deadlines[-1] / deadlines[0] >= 10
sizes = rows[["demand_profile", "tenants", "resources"]].drop_duplicates()
size = "; ".join(f"{p} profile, {int(t):,} tenants x {int(r):,} resources"
                 for p, t, r in sizes.to_numpy())
setup = (f"deadlines sweep: {size}; {rows['repeat'].nunique()} repeats; baseline "
         f"{first['baseline_method']}; threads: "
         + ", ".join(f"{NAMES.get(m, m)} {threads[m]}" for m in methods))

METRICS = ["utilization_ratio", "fairness", "shortfall_worst", "shortfall_p0.1",
           "rounds_ratio", "elapsed"]
med = (rows.groupby(["method", "epsilon", "deadline_s"])
       .agg(**{m: (m, "median") for m in METRICS}, finished=("finished", "mean"),
            repeats=("repeat", "nunique"))
       .reset_index())


def label(method, eps):
    return NAMES.get(method, method) + (f", eps {eps:g}" if eps > 0 else "")


def best_epsilon(method, metric, higher_better):
    """Per deadline, the epsilon with the best median `metric` among the method's epsilons
    that finished (at least half the repeats); if none finished, the best of all."""
    part = med[med["method"] == method]
    out = []
    for d, at in part.groupby("deadline_s"):
        done = at[at["finished"] >= 0.5]
        pool, finished = (done, True) if len(done) else (at, False)
        pick = pool.loc[pool[metric].idxmax() if higher_better else pool[metric].idxmin()]
        out.append({"deadline_s": d, "epsilon": pick["epsilon"], "finished": finished,
                    **{m: pick[m] for m in METRICS}})
    return pd.DataFrame(out)


multi = [m for m in methods if med.loc[med["method"] == m, "epsilon"].nunique() > 1]


def floored(values, log):
    return np.maximum(values, FLOOR) if log else values


def draw_lines(ax, metric, higher_better, envelope=True, log=False):
    for method in methods:
        for eps in sorted(med.loc[med["method"] == method, "epsilon"].unique()):
            part = med[(med["method"] == method) & (med["epsilon"] == eps)].sort_values("deadline_s")
            style, marker = eps_style[eps]
            ax.plot(part["deadline_s"], floored(part[metric], log), color=colors[method], linestyle=style,
                    linewidth=1.2, label=label(method, eps))
            # Filled markers: most repeats finished; hollow: most hit the deadline.
            for done, fill in ((True, "full"), (False, "none")):
                sel = part[(part["finished"] >= 0.5) == done]
                ax.plot(sel["deadline_s"], floored(sel[metric], log), linestyle="none", marker=marker,
                        fillstyle=fill, color=colors[method], markersize=5)
        if envelope and method in multi:
            env = best_epsilon(method, metric, higher_better)
            ax.plot(env["deadline_s"], floored(env[metric], log), color=colors[method], linewidth=7,
                    alpha=0.25, solid_capstyle="round",
                    label=f"{NAMES.get(method, method)}, best epsilon")
            hollow = env[~env["finished"]]
            ax.plot(hollow["deadline_s"], floored(hollow[metric], log), linestyle="none", marker="o",
                    markersize=11, fillstyle="none", color=colors[method], alpha=0.5)


def knee(part, level=0.99):
    """The smallest deadline at which the median utilization ratio reaches `level`."""
    hit = part[part["utilization_ratio"] >= level].sort_values("deadline_s")
    return hit["deadline_s"].iloc[0] if len(hit) else np.nan


def knee_stable(part, level=0.99):
    """The smallest deadline from which on the median utilization ratio stays >= `level`
    at every larger deadline of the sweep (robust to a noisy early success)."""
    part = part.sort_values("deadline_s")
    ok = (part["utilization_ratio"] >= level).to_numpy()
    if not len(ok) or not ok[-1]:
        return np.nan
    k = len(ok) - 1
    while k > 0 and ok[k - 1]:
        k -= 1
    return part["deadline_s"].iloc[k]


def deadline_axis(ax):
    if log_x:
        ax.set_xscale("log")
    ax.set_xticks(deadlines, [f"{d:g}" for d in deadlines], rotation=90)   # dense below 0.1 s
    ax.minorticks_off() if log_x else None
    ax.set_xlabel("deadline (s)")
    ax.grid(alpha=0.3, which="both")


# %% [markdown]
# ## Figure 8: resource utilization against the baseline
#
# Hollow markers: most repeats of that run stopped before completing — at the deadline,
# or for pEDRF-1 after its single round (the allocation is what the method had then).
# The dotted grey line is the 0.99 level used for the knee below; the vertical line marks
# DC-DRF's (best-epsilon) knee.

# %%
fig, ax = plt.subplots(figsize=(9.5, 5.0))
draw_lines(ax, "utilization_ratio", higher_better=True)
ax.axhline(1.0, color="grey", linewidth=0.8)
ax.axhline(0.99, color="grey", linewidth=0.8, linestyle=":")
if "dcdrf" in methods:
    dc = (best_epsilon("dcdrf", "utilization_ratio", True) if "dcdrf" in multi
          else med[med["method"] == "dcdrf"])
    k = knee_stable(dc)
    if np.isfinite(k):
        ax.axvline(k, color=colors["dcdrf"], linewidth=0.8, linestyle="-.")
        ax.annotate(f"DC-DRF knee {k:g} s", (k, 0.02), xycoords=("data", "axes fraction"),
                    xytext=(3, 0), textcoords="offset points", fontsize=7, color=colors["dcdrf"])
deadline_axis(ax)
ax.set_ylabel("utilization / baseline utilization")
ax.legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0))
ax.set_title("Figure 8: resource utilization against baseline (exact EDRF)", fontsize=10)
figs.caption(fig, f"{setup}. Median over repeats. Filled markers: finished within the "
                  f"deadline; hollow: stopped before completing (at the deadline; pEDRF-1 "
                  f"after its one round). Bands: best epsilon per deadline among "
                  f"those that finished (large rings: none finished, best of all). Knee: first "
                  f"deadline from which DC-DRF's best-epsilon utilization stays >= 0.99. {machine}")
_ = figs.save(fig, figures, "dcdrf_fig08_utilization")

# %% [markdown]
# What to look for, against the paper: DC-DRF and sDC-DRF at about 1 to the right of a
# knee; pEDRF rising to 1 as the deadline reaches its completion time; pEDRF-1 flat and
# low. The knee: the smallest deadline at which the median utilization ratio reaches 0.99,
# per method and epsilon and for the best-epsilon envelope.

# %%
knees = []
for method in methods:
    for eps in sorted(med.loc[med["method"] == method, "epsilon"].unique()):
        part = med[(med["method"] == method) & (med["epsilon"] == eps)]
        knees.append({"method": NAMES.get(method, method), "epsilon": f"{eps:g}",
                      "knee (s)": knee(part), "stays >= 0.99 from (s)": knee_stable(part)})
    if method in multi:
        env = best_epsilon(method, "utilization_ratio", True)
        knees.append({"method": NAMES.get(method, method), "epsilon": "best",
                      "knee (s)": knee(env), "stays >= 0.99 from (s)": knee_stable(env)})
knees = pd.DataFrame(knees).set_index(["method", "epsilon"])
display(Markdown("**Knee: smallest deadline (s) with median utilization ratio >= 0.99, "
                 "and the smallest from which it stays >= 0.99** (NaN: not reached within "
                 "the sweep)"))
display(knees)
if "dcdrf" in methods:
    which = ("best" if "dcdrf" in multi
             else f"{med.loc[med['method'] == 'dcdrf', 'epsilon'].iloc[0]:g}")
    k, ks = knees.loc[(NAMES["dcdrf"], which), ["knee (s)", "stays >= 0.99 from (s)"]]
    fmt = lambda v: "not reached" if np.isnan(v) else f"{v:g} s"
    display(Markdown(f"**DC-DRF knee ({which} epsilon): {fmt(k)}; stays >= 0.99 from "
                     f"{fmt(ks)}** (sweep deadlines: {', '.join(f'{d:g}' for d in deadlines)} s)"))

# %%
def pivot(metric, digits=4):
    t = med.pivot_table(index=["method", "epsilon"], columns="deadline_s", values=metric)
    t.index = pd.MultiIndex.from_tuples([(NAMES.get(m, m), e) for m, e in t.index],
                                        names=["method", "epsilon"])
    t.columns = [f"{d:g} s" for d in t.columns]
    return t


display(Markdown("**Median utilization ratio per method, epsilon and deadline**"))
display(pivot("utilization_ratio").round(4))
display(Markdown("**Fraction of repeats that finished within the deadline**"))
display(pivot("finished").round(2))
display(Markdown("**Median rounds ratio (rounds / baseline rounds)**"))
display(pivot("rounds_ratio").round(3))

# %% [markdown]
# ## Figure 9: fairness against the deadline
#
# Left: standard deviation of the allocation from the baseline (log scale), every run
# and the best-epsilon bands. Right: shortfall against the baseline, per method —
# solid: the tenant with the greatest shortfall; dotted: the 0.1th percentile (the worst
# 0.1% of tenants fall short by at least this). For a multi-epsilon method the right panel
# shows its best epsilon per deadline (smallest worst-case shortfall among the epsilons
# that finished; both lines from the same runs); every epsilon is in the tables below.
# On the left, values below 1e-6 (a run that completed exactly, up to rounding) are drawn
# at 1e-6.

# %%
fig, (ax_l, ax_r) = plt.subplots(1, 2, figsize=(13, 6.4))
draw_lines(ax_l, "fairness", higher_better=False, log=True)
ax_l.set_yscale("log")
if (med["fairness"] < FLOOR).any():
    ax_l.axhline(FLOOR, color="grey", linewidth=0.8, linestyle=":")
    ax_l.annotate(f"<= {FLOOR:g}: exact up to rounding", (0.99, FLOOR),
                  xycoords=("axes fraction", "data"), xytext=(0, 3),
                  textcoords="offset points", ha="right", fontsize=7, color="grey")
deadline_axis(ax_l)
ax_l.set_ylabel("standard deviation from baseline (log)")
ax_l.set_title("(left) std dev of allocation from baseline", fontsize=10)
ax_l.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.13))

for method in methods:
    if method in multi:
        env = best_epsilon(method, "shortfall_worst", higher_better=False)
        name = f"{NAMES.get(method, method)} (best eps)"
    else:
        env = med[med["method"] == method].sort_values("deadline_s")
        name = label(method, env["epsilon"].iloc[0])
    ax_r.plot(env["deadline_s"], env["shortfall_worst"], color=colors[method], marker="o",
              markersize=4, label=f"{name}: worst tenant")
    ax_r.plot(env["deadline_s"], env["shortfall_p0.1"], color=colors[method], marker=".",
              linestyle=":", label=f"{name}: 0.1th percentile")
ax_r.set_ylim(-0.02, 1.02)
ax_r.set_ylabel("shortfall (fraction of baseline dominant share not given)")
deadline_axis(ax_r)
ax_r.set_title("(right) under-allocation: worst tenant (solid), 0.1th percentile (dotted)",
               fontsize=10)
ax_r.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.13))
fig.suptitle("Figure 9: fairness of DRF configurations against the deadline", fontsize=11)
figs.caption(fig, f"{setup}. Median over repeats. Left: hollow markers = stopped before "
                  f"completing; values below {FLOOR:g} drawn at {FLOOR:g}; bands = best epsilon among those that finished. Right: the "
                  f"paper's caption says 0.01 percentile, its text (and this figure) the "
                  f"0.1th percentile. {machine}")
_ = figs.save(fig, figures, "dcdrf_fig09_fairness")

# %% [markdown]
# What to look for, against the paper: DC-DRF's and sDC-DRF's standard deviation small to
# the right of the knee; pEDRF's high at short deadlines and falling towards 0 as it
# completes; pEDRF-1's high throughout; DC-DRF's shortfall (worst and 0.1th percentile)
# below sDC-DRF's. Medians over repeats:

# %%
display(Markdown("**Median standard deviation from baseline**"))
display(pivot("fairness").map(lambda v: f"{v:.3g}"))
display(Markdown("**Median worst-tenant shortfall**"))
display(pivot("shortfall_worst").map(lambda v: f"{v:.3g}"))
display(Markdown("**Median shortfall at the 0.1th percentile**"))
display(pivot("shortfall_p0.1").map(lambda v: f"{v:.3g}"))

chosen = []
for method in multi:
    for metric, hb in (("utilization_ratio", True), ("fairness", False),
                       ("shortfall_worst", False)):
        env = best_epsilon(method, metric, hb)
        for _, r in env.iterrows():
            chosen.append({"method": NAMES.get(method, method), "chosen by": metric,
                           "deadline (s)": r["deadline_s"],
                           "epsilon": f"{r['epsilon']:g}" + ("" if r["finished"] else " (none finished)"),
                           "value": r[metric]})
if chosen:
    display(Markdown("**The best-epsilon envelopes: which epsilon each deadline picked**"))
    display(pd.DataFrame(chosen).pivot_table(index=["method", "chosen by"], columns="deadline (s)",
                                             values="epsilon", aggfunc="first"))

if {"dcdrf", "sdcdrf"} <= set(multi):
    a = best_epsilon("dcdrf", "shortfall_worst", False).set_index("deadline_s")
    b = best_epsilon("sdcdrf", "shortfall_worst", False).set_index("deadline_s")
    cmp = pd.DataFrame({"DC-DRF worst": a["shortfall_worst"], "sDC-DRF worst": b["shortfall_worst"],
                        "DC-DRF p0.1": a["shortfall_p0.1"], "sDC-DRF p0.1": b["shortfall_p0.1"]})
    cmp["DC-DRF / sDC-DRF (worst)"] = cmp["DC-DRF worst"] / cmp["sDC-DRF worst"]
    cmp["DC-DRF / sDC-DRF (p0.1)"] = cmp["DC-DRF p0.1"] / cmp["sDC-DRF p0.1"]
    display(Markdown("**DC-DRF against sDC-DRF, best epsilon by worst shortfall, per deadline (s)**"))
    display(cmp.round(4))

# %%
display(Markdown(f"*Caption: Figures 8 and 9 regenerated from the deadlines sweep: "
                 f"utilization over the baseline's, standard deviation from the baseline and "
                 f"shortfall (worst tenant, 0.1th percentile) against the deadline, per method "
                 f"and fixed epsilon, with best-epsilon envelopes. {setup}. {machine}.*"))
