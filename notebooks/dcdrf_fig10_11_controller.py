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
# # Figures 10 and 11: DC-DRF's outer loop, epsilon against the deadline
#
# DC-DRF (SoCC'18, sections 5.5 and 5.6) runs its inner loop once per control interval
# with the current epsilon and deadline; on a timeout its outer loop raises epsilon,
# otherwise it lowers it, so that on stable input it settles where the inner loop finishes
# just inside the deadline (drfbench.dcdrf.controller).
#
# * **Figure 10** ("Epsilon as function of deadline"): the epsilon the outer loop converges
#   to against the deadline, for DC-DRF (parallel, left y axis) and sDC-DRF (the same
#   algorithm on one thread, right y axis). The paper sees a steep fall for short
#   deadlines, a knee and then a plateau, and sDC-DRF's epsilons two orders of magnitude
#   above DC-DRF's. Ours: one run of `--schedule stable` per (method, thread count,
#   deadline), `converged_epsilon` = the median epsilon of the last 5 intervals that
#   finished. One line per thread count for DC-DRF; sDC-DRF ignores the thread count, so
#   its runs at every requested thread count are the same configuration, and we plot their
#   median. Both y axes are log and span the same decades: the right one is the left one
#   times a power of ten read from the data (the median gap between the two methods'
#   epsilons), so that the paper's "two orders of magnitude" would show as "x 100" and
#   the curves' heights stay comparable.
# * **Figure 11** ("Adapting to variable demand or deadline"): epsilon per control interval
#   over 80 intervals in which 5% of the tenants change their demand by 5% every interval,
#   half the tenants change theirs by 50% at interval 30, and the deadline goes up by a
#   factor 1.25 at interval 50 and back at 70 (the paper's 8 s -> 10 s -> 8 s;
#   drfbench.dcdrf.churn.Schedule.paper()). The interval numbers and deadlines are read from
#   the data (`events`, `deadline` columns), not assumed.
#
# Where we differ: the paper runs 1M tenants x 100K resources on a multi-socket server
# with wall-clock deadlines of seconds. Our deadlines are either seconds or, at the smoke
# profile, round budgets (`mode` column: an interval "times out" when the inner loop is
# stopped by the budget, which makes runs reproducible); with `relative` they are
# multiples of the exact run's time (or rounds) at the run's own thread count, so that
# they fall between a fast, coarse run and the exact one on whatever machine and input
# size the results come from. The controller's files have no repeats: every number below
# comes from one run.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display

from drfbench import figures as figs
from drfbench.dcdrf.churn import Schedule
from drfbench.dcdrf.controller import CONVERGED_LAST, converged_epsilon

figs.start(results)
NAMES = {"dcdrf": "DC-DRF", "sdcdrf": "sDC-DRF"}


def runs(rows, summary):
    """Number the runs of a controller rows file (a run restarts its interval count) and
    attach the summary's per-run columns: the summary has one row per run, in the same
    order. The rows' own `threads` is the thread count the kernel used (1 for sDC-DRF
    whatever was asked), the summary's the one requested."""
    rows = rows.copy()
    rows["run"] = (rows["interval"].diff().fillna(-1) <= 0).cumsum() - 1
    if rows["run"].nunique() != len(summary):
        raise ValueError(f"{rows['run'].nunique()} runs in the rows file, {len(summary)} in its summary")
    summary = summary.reset_index(drop=True).rename_axis("run").reset_index()
    check = rows.groupby("run")["base_deadline"].first()
    if not np.allclose(check.to_numpy(float), summary["base_deadline"].to_numpy(float)):
        raise ValueError("rows and summary disagree on the runs' base deadlines")
    rows = rows.rename(columns={"threads": "threads_used"})
    return rows.merge(summary[["run", "threads"]], on="run")


def parse_points(text):
    """'1:16;30:0;50:' -> {1: 16, 30: 0, 50: None}"""
    out = {}
    for item in str(text).split(";"):
        if item and item != "nan":
            j, _, s = item.partition(":")
            out[int(j)] = int(float(s)) if s else None
    return out


def log_floor(values):
    """A floor for log axes below the smallest positive value (epsilon 0 is drawn there)."""
    pos = np.asarray(values, float)
    pos = pos[np.isfinite(pos) & (pos > 0)]
    return 10 ** np.floor(np.log10(pos.min()) - 0.5) if pos.size else 1e-9


# %% [markdown]
# ## Figure 10: the epsilon DC-DRF converges to, against the deadline

# %%
controller_dir = Path(results) / "dcdrf" / "controller"
methods = sorted((p.name[len("epsilon_vs_deadline_"):-len("_summary.csv")]
                  for p in controller_dir.glob("epsilon_vs_deadline_*_summary.csv")),
                 key=lambda m: (m != "dcdrf", m))
if not methods:   # figs.read raises the error that says how to make it
    figs.read(results, "dcdrf/controller/epsilon_vs_deadline_dcdrf_summary")
summary = pd.concat([figs.read(results, f"dcdrf/controller/epsilon_vs_deadline_{m}_summary") for m in methods],
                    ignore_index=True)
rows10 = pd.concat([runs(figs.read(results, f"dcdrf/controller/epsilon_vs_deadline_{m}"),
                         figs.read(results, f"dcdrf/controller/epsilon_vs_deadline_{m}_summary"))
                    .assign(run_key=lambda d, m=m: m + ":" + d["run"].astype(str)) for m in methods],
                   ignore_index=True)
machine10 = figs.machine(summary)
first = summary.iloc[0]
mode = str(first["mode"])
unit = "s" if mode == "seconds" else "rounds"
budget_word = "deadline (s)" if mode == "seconds" else "round budget (rounds)"
setup10 = (f"{first['demand_profile']}, {int(first['tenants']):,} tenants x {int(first['resources']):,} resources, "
           f"{int(rows10.groupby('run_key')['interval'].max().median())} control intervals per run, stable input")
if str(first["relative"]) not in ("", "nan"):
    setup10 += ("; budgets are multiples of the exact run's "
                + ("kernel time" if mode == "seconds" else "rounds")
                + " at the run's own thread count (sDC-DRF: one thread)")

# per run: the finishing intervals whose epsilons make the converged value
def tail(run):
    done = run[~run["timed_out"].astype(bool)].tail(CONVERGED_LAST)
    return pd.Series({"fairness": done["fairness"].median(),
                      "utilization_ratio": done["utilization_ratio"].median(),
                      "elapsed": done["elapsed"].median(), "rounds": done["rounds"].median()})

tails = rows10.groupby(["method", "run"]).apply(tail, include_groups=False).reset_index()
per_run = summary.assign(run=summary.groupby("method").cumcount()).merge(tails, on=["method", "run"])
per_run["relative"] = pd.to_numeric(per_run["relative"], errors="coerce")
# sDC-DRF runs on one thread whatever was asked: its runs are repeats of one configuration
per_run["line"] = [f"{NAMES.get(m, m)}, {t} thread{'s' if t > 1 else ''}" if m == "dcdrf"
                   else f"{NAMES.get(m, m)} (1 thread)" for m, t in zip(per_run["method"], per_run["threads"])]
table10 = (per_run.groupby(["method", "line", "base_deadline"], sort=False)
           .agg(relative=("relative", "median"), converged_epsilon=("converged_epsilon", "median"),
                first_settled=("first_settled", "median"), timeouts=("timeouts", "median"),
                fairness=("fairness", "median"), utilization_ratio=("utilization_ratio", "median"),
                elapsed=("elapsed", "median"), rounds=("rounds", "median"), runs=("run", "size"))
           .reset_index())

lines = list(dict.fromkeys(table10["line"]))
dc_lines = [l for l in lines if l.startswith("DC-DRF")]
other = [l for l in lines if l not in dc_lines]
colors = dict(zip(dc_lines, sns.color_palette("Blues_d", len(dc_lines) + 1)[1:]))
colors.update(zip(other, sns.color_palette("Oranges_d", len(other) + 1)[1:]))

fig, ax = plt.subplots(figsize=(7.2, 4.6))
axes10 = {"dcdrf": ax}
if len(methods) > 1:
    axes10.update({m: ax.twinx() for m in methods if m != "dcdrf"})
zeros = []
for (method, line), part in table10.groupby(["method", "line"], sort=False):
    a = axes10.get(method, ax)
    part = part.sort_values("base_deadline")
    y = part["converged_epsilon"].to_numpy(float)
    style = "-" if method == "dcdrf" else "--"
    marker = "o" if method == "dcdrf" else "s"
    ok = np.isfinite(y) & (y > 0)
    a.plot(part["base_deadline"][ok], y[ok], style, marker=marker, color=colors[line], label=line)
    if (np.isfinite(y) & (y == 0)).any():
        zeros.append((a, part["base_deadline"][y == 0], colors[line]))
# Both y axes span the same decades; the right one is the left one times a power of ten
# (chosen from the data: the median gap between the methods' epsilons, rounded), so that
# the curves' relative heights stay honest while sDC-DRF's can sit beside DC-DRF's.
def positive(m):
    v = table10.loc[table10["method"] == m, "converged_epsilon"].to_numpy(float)
    return v[np.isfinite(v) & (v > 0)]

shift = {"dcdrf": 1.0}
for m in axes10:
    if m != "dcdrf" and len(positive(m)) and len(positive("dcdrf")):
        shift[m] = 10.0 ** np.round(np.median(np.log10(positive(m))) - np.median(np.log10(positive("dcdrf"))))
    shift.setdefault(m, 1.0)
scaled = np.concatenate([positive(m) / shift[m] for m in axes10])
if not scaled.size:   # no run converged to a positive epsilon
    scaled = np.array([1e-3])
lo, hi = scaled.min() / 1.6, scaled.max() * 1.6
if zeros:
    lo = min(lo, log_floor(scaled) / 2)
for m, a in axes10.items():
    a.set_yscale("log")
    a.set_ylim(lo * shift[m], hi * shift[m])
    side = ("" if len(axes10) == 1 else " (left)" if m == "dcdrf" else
            " (right" + (f", = left x {shift[m]:g})" if shift[m] != 1 else ", same scale)"))
    a.set_ylabel(f"converged ε, {NAMES.get(m, m)}{side}",
                 color=sns.color_palette("Blues_d", 3)[2] if m == "dcdrf" else sns.color_palette("Oranges_d", 3)[2])
for a, xs, c in zeros:   # epsilon 0: the exact run finished inside the deadline
    a.plot(xs, [a.get_ylim()[0] * 1.3] * len(xs), "v", color=c, markersize=9)
ax.set_xscale("log")
ticks = np.sort(table10["base_deadline"].unique())
if len(ticks) > 6 or ticks[-1] / ticks[0] > 100:   # too many to label each: 1, 2, 5 x 10^k
    xlo, xhi = np.log10(ticks[0]), np.log10(ticks[-1])
    ladder = (1, 2, 3, 5, 7) if xhi - xlo < 1 else (1, 2, 5)
    ticks = [m * 10.0 ** k for k in range(int(np.floor(xlo)), int(np.ceil(xhi)) + 1) for m in ladder
             if ticks[0] / 1.2 <= m * 10.0 ** k <= ticks[-1] * 1.2]
ax.set_xticks(ticks, [f"{t:.3g}" for t in ticks])
ax.xaxis.set_minor_formatter(NullFormatter())
ax.set_xlabel(f"base {budget_word}, log scale")
ax.grid(alpha=0.3, which="both")
handles = [h for a in axes10.values() for h in a.get_legend_handles_labels()[0]]
ax.legend(handles, [h.get_label() for h in handles], fontsize=8, loc="upper right")
ax.set_title(f"Figure 10: epsilon as a function of the {'deadline' if mode == 'seconds' else 'round budget'}\n"
             f"{setup10.split(';')[0]}", fontsize=10)
note = (" Triangles at the bottom: converged ε = 0 (the exact run finished in time)." if zeros else "")
figs.caption(fig, f"One run per point{' (sDC-DRF: median of its runs)' if 'sdcdrf' in methods else ''}. "
                  f"{setup10}.{note} {machine10}")
figs.save(fig, figures, "dcdrf_fig10_epsilon")
plt.show()

# %% [markdown]
# What to look for: epsilon falls as the deadline grows (steeply for short deadlines,
# then a plateau in the paper); with wall-clock deadlines, sDC-DRF needs a larger epsilon
# than DC-DRF at the same deadline (the paper: two orders of magnitude, at 1M x 100K on
# many cores). With round budgets (smoke profile) the thread count cannot matter and the
# two methods' curves coincide: a round costs the same number of rounds on any number of
# threads. `fairness` is the standard deviation of the relative dominant-share deviation
# from the exact allocation, and `utilization_ratio` the utilization relative to exact,
# both medians over the finishing intervals that make the converged epsilon.

# %%
show = table10.drop(columns=["method"]).rename(columns={
    "line": "configuration", "base_deadline": f"base deadline ({unit})",
    "relative": "x exact", "first_settled": "first settled interval",
    "elapsed": "elapsed (s)"})
display(show.style.format({"converged_epsilon": "{:.3g}", "fairness": "{:.3g}",
                           "utilization_ratio": "{:.5f}", "elapsed (s)": "{:.4g}",
                           "x exact": "{:.3g}", f"base deadline ({unit})": "{:.4g}",
                           "first settled interval": "{:.0f}", "timeouts": "{:.0f}",
                           "rounds": "{:.0f}"}))

# sDC-DRF / DC-DRF epsilon at the same deadline (log-log interpolation of sDC-DRF's
# curve at DC-DRF's deadlines, inside the range both cover; none where DC-DRF ran exact)
if "sdcdrf" in methods and "dcdrf" in methods:
    s = table10[table10["method"] == "sdcdrf"].groupby("base_deadline")["converged_epsilon"].median()
    s = s[s > 0]
    ratios = []
    for line in dc_lines:
        d = table10[table10["line"] == line].set_index("base_deadline")["converged_epsilon"]
        for x, e in d.items():
            inside = len(s) > 0 and s.index.min() <= x <= s.index.max() and e > 0
            se = (np.exp(np.interp(np.log(x), np.log(s.index.to_numpy(float)), np.log(s.to_numpy(float))))
                  if inside else np.nan)
            ratios.append({"DC-DRF": line, f"deadline ({unit})": x, "ε DC-DRF": e,
                           "ε sDC-DRF (interpolated)": se, "sDC-DRF / DC-DRF": se / e if inside else np.nan})
    ratios = pd.DataFrame(ratios)
    display(Markdown("**sDC-DRF's converged epsilon over DC-DRF's at the same deadline** "
                     "(NaN where the deadline lies outside the range sDC-DRF was run on):"))
    display(ratios.style.format("{:.3g}", subset=[c for c in ratios.columns if c != "DC-DRF"]))
    per_line = ratios.groupby("DC-DRF", sort=False)["sDC-DRF / DC-DRF"].median()
    display(Markdown("Median ratio: " + ", ".join(f"against {l}: **{r:.3g}**" for l, r in per_line.items())
                     + " (the paper, against parallel DC-DRF: about 100)."))

# %% [markdown]
# ## Figure 11: adapting to changes in demand and deadline

# %%
summary11 = figs.read(results, "dcdrf/controller/adaptation_summary")
rows11 = runs(figs.read(results, "dcdrf/controller/adaptation"), summary11)
machine11 = figs.machine(summary11)
first11 = summary11.iloc[0]
mode11 = str(first11["mode"])
unit11 = "s" if mode11 == "seconds" else "rounds"
used = "elapsed" if mode11 == "seconds" else "rounds"
method11 = NAMES.get(str(first11["method"]), str(first11["method"]))
setup11 = (f"{method11}, {first11['demand_profile']}, {int(first11['tenants']):,} tenants x "
           f"{int(first11['resources']):,} resources, {int(rows11.groupby('run')['interval'].max().max())} "
           f"control intervals, base {'deadline' if mode11 == 'seconds' else 'round budget'} "
           + ", ".join(f"{float(b):.4g} {unit11} ({int(t)} thread{'s' if int(t) > 1 else ''})"
                       for t, b in zip(summary11["threads"], summary11["base_deadline"])))
if str(first11["relative"]) not in ("", "nan"):
    setup11 += (f": {float(first11['relative']):g} x the exact run's "
                + ("time" if mode11 == "seconds" else "rounds") + " at each thread count")
churned = rows11.loc[rows11["events"].fillna("") == "churn", "changed_tenants"]
churn_text = (f"every interval from {int(rows11.loc[churned.index, 'interval'].min())} on, "
              f"{int(churned.median()):,} tenants change their demand" if len(churned) else "no churn")
if str(first11["schedule"]) == "paper" and len(churned):
    paper = Schedule.paper()
    churn_text += (f" by up to ±{100 * paper.churn_magnitude:g}% per entry, and at the shift "
                   f"{100 * paper.shift_fraction:g}% by up to ±{100 * paper.shift_magnitude:g}% "
                   "(drfbench.dcdrf.churn.Schedule.paper())")


def event_label(run, j):
    here = run[run["interval"] == j].iloc[0]
    events = set(str(here["events"]).split(";"))
    parts = []
    if "shift" in events:
        parts.append(f"demand shift\n{int(here['changed_tenants']):,} tenants")
    if "deadline" in events:
        before = run.loc[run["interval"] < j, "deadline"]
        old = before.iloc[-1] if len(before) else np.nan
        parts.append(f"deadline\n{'up' if here['deadline'] > old else 'down'} to {here['deadline']:.3g} {unit11}")
    return "\n".join(parts)


thread_runs = list(rows11.groupby("run")["threads"].first().items())
phase_colors = dict(zip(["zero", "exact", "expand", "bisect", "settled", "bound"],
                        ["black", "black", "tab:red", "tab:orange", "tab:green", "tab:purple"]))
fig, axes = plt.subplots(2, len(thread_runs), figsize=(6.2 * len(thread_runs), 6.4), sharex=True, sharey="row",
                         gridspec_kw={"height_ratios": [2.2, 1]}, squeeze=False)
floor = log_floor(rows11["epsilon"]) / 10   # room for the legend above epsilon 0
for col, (run_id, threads) in enumerate(thread_runs):
    run = rows11[rows11["run"] == run_id].sort_values("interval")
    top, bottom = axes[0, col], axes[1, col]
    eps = run["epsilon"].clip(lower=floor)
    top.plot(run["interval"], eps, "-", color="0.6", lw=1, zorder=1)
    for phase in sorted(set(run["phase"]), key=lambda f: (list(phase_colors) + [f]).index(f)):
        part = run[run["phase"] == phase]
        top.scatter(part["interval"], part["epsilon"].clip(lower=floor), s=16, zorder=2,
                    color=phase_colors.get(phase, "gray"), label=f"phase: {phase}")
    late = run[run["timed_out"].astype(bool)]
    top.scatter(late["interval"], late["epsilon"].clip(lower=floor), s=60, marker="x", zorder=3,
                color="black", linewidths=0.8, label="timed out")
    if (run["epsilon"] == 0).any():
        j0 = run.loc[run["epsilon"] == 0, "interval"]
        top.annotate("ε = 0 (exact)", (j0.iloc[0], floor), xytext=(6, 4),
                     textcoords="offset points", fontsize=7)
    top.set_yscale("log")
    top.set_ylabel("epsilon (log)")
    top.set_title(f"{method11}, {threads} thread{'s' if threads > 1 else ''}", fontsize=10)
    bottom.plot(run["interval"], run[used], ".-", color="tab:blue", lw=1, ms=4,
                label="elapsed (kernel s)" if used == "elapsed" else "rounds run")
    bottom.step(run["interval"], run["deadline"], where="mid", color="black", lw=1.2,
                label="deadline" if mode11 == "seconds" else "round budget")
    bottom.set_ylabel("elapsed (s)" if used == "elapsed" else "rounds run")
    bottom.set_xlabel("control interval")
    points = [j for j in sorted(parse_points(summary11.loc[run_id, "settle"])) if j != 1]
    for j in points:
        for a in (top, bottom):
            a.axvline(j, color="0.3", ls=":", lw=1)
        near_end = j > run["interval"].min() + 0.9 * (run["interval"].max() - run["interval"].min())
        top.annotate(event_label(run, j), (j, 1), xycoords=("data", "axes fraction"),
                     xytext=(-3 if near_end else 3, -3), textcoords="offset points", va="top",
                     ha="right" if near_end else "left", fontsize=7)
    for a in (top, bottom):
        a.grid(alpha=0.3)
        a.set_xlim(run["interval"].min() - 0.5, run["interval"].max() + 0.5)
axes[1, 0].set_ylim(0, 1.08 * max(rows11[used].max(), rows11["deadline"].max()))   # shared by the row
axes[0, 0].legend(fontsize=7, loc="lower right", ncol=3, framealpha=0.9)
axes[1, 0].legend(fontsize=7, loc="lower right")
fig.suptitle("Figure 11: adapting to variable demand or deadline\n"
             + setup11.replace(" control intervals, ", " control intervals,\n", 1), fontsize=10)
figs.caption(fig, f"{setup11}; {churn_text}. "
                  f"Dotted lines: the abrupt changes; one run per thread count. {machine11}")
figs.save(fig, figures, "dcdrf_fig11_adaptation")
plt.show()

# %% [markdown]
# What to look for (paper, section 5.6): epsilon starts at 0 (exact; the first interval
# runs into the deadline), the search walks it down over the next intervals and settles
# into a small oscillation around the value that just finishes; the demand shift is
# absorbed with a small adjustment; the longer deadline at the first deadline change lets
# epsilon fall to a new, lower level, and the return to the base deadline raises it again.
# The table counts, for the start and each change: `settle (band)` = intervals until
# epsilon stays within a factor 1.44 of the segment's converged value, `settle (phase)` =
# intervals until the controller is back in a settled phase after the first disturbance
# (drfbench.dcdrf.controller.settle_intervals / resettle_intervals); per segment (up to the
# next change), the converged epsilon, the timeouts, and the median fairness and
# utilization ratio of its finishing intervals.

# %%
table11 = []
for run_id, threads in thread_runs:
    run = rows11[rows11["run"] == run_id].sort_values("interval")
    settle = parse_points(summary11.loc[run_id, "settle"])
    resettle = parse_points(summary11.loc[run_id, "resettle"])
    starts = sorted(settle)
    for k, j in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else run["interval"].max() + 1
        seg = run[(run["interval"] >= j) & (run["interval"] < end)]
        done = seg[~seg["timed_out"].astype(bool)]
        table11.append({
            "threads": threads, "at interval": j,
            "event": ("start" if j == 1 else event_label(run, j).replace("\n", " ")
                      .replace("tenants", "tenants changed (with the churn)")),
            f"deadline ({unit11})": seg["deadline"].iloc[0],
            "settle (band)": settle[j], "settle (phase)": resettle.get(j),
            "converged ε": converged_epsilon(seg.to_dict("records")),
            "timeouts": int(seg["timed_out"].astype(bool).sum()), "intervals": len(seg),
            "fairness": done["fairness"].median(),
            "utilization_ratio": done["utilization_ratio"].median()})
table11 = pd.DataFrame(table11)
display(table11.style.format({"converged ε": "{:.3g}", "fairness": "{:.3g}",
                              "utilization_ratio": "{:.5f}", f"deadline ({unit11})": "{:.4g}",
                              "settle (band)": "{:.0f}", "settle (phase)": "{:.0f}"}, na_rep="never"))
display(summary11[["threads", "mode", "base_deadline", "converged_epsilon", "first_settled",
                   "timeouts", "restarts"]])

# %%
display(Markdown(f"*Caption, Figure 10: converged epsilon against the "
                 f"{'deadline' if mode == 'seconds' else 'round budget'}; {setup10}; {machine10}.*"))
display(Markdown(f"*Caption, Figure 11: epsilon per control interval under changing demand and "
                 f"deadline; {setup11}; {machine11}.*"))
