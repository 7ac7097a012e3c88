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
# # Figures 5 (left) and 6: thread scaling and configuration options
#
# Regenerates two figures of DC-DRF (Kash, O'Shea and Volos, SoCC'18), §4.4–4.8:
#
# * **Figure 5 (left)**, "Core-level scalability with hyperthreading enabled (two threads
#   per core)": the elapsed time of a DC-DRF microbenchmark against the number of cores
#   (float32, two threads per core), on a 2 x 24-core Xeon Platinum 8160. The paper finds
#   a clear but sublinear decrease in time as cores are added.
# * **Figure 6**, "Configuration options ranked by runtime. Key: double (d) or single (f)
#   precision, scalar (c), AVX256 (2), AVX512 (5), hyper-threading (h)": one bar per
#   configuration, ranked left to right by decreasing completion time. The paper's claims:
#   single precision beats double; AVX-256 and AVX-512 are both about 25% faster than
#   scalar and similar to each other; hyperthreading helps scalar code and hurts
#   vectorized code.
#
# Our data: the `configs` sweep (`dcdrf/configs.csv`): DC-DRF at one epsilon, no deadline, for
# every combination of precision (`dtype`), instruction set (`isa`: `scalar` = compiled
# with auto-vectorization off, `generic` = the compiler's default vector width, `avx2`
# = 256-bit, `avx512` = 512-bit), cores (1 or all) and threads per core (`tpc`, 1 or 2),
# each repeated. Where we differ from the paper:
#
# * the machine that made the reference results has **2 cores and no SMT**, so Figure 5
#   has two core counts (the paper's 16+-core scaling cannot be tested here), and
#   "2 threads per core" runs two OpenMP threads per physical core — **oversubscribed**,
#   not hyperthreading (column `oversubscribed`); read the `h` bars as "2 threads per
#   core without SMT", not as the paper's hyperthreading. Two threads per core run with
#   OMP_WAIT_POLICY=passive (column `omp_wait_policy`): a thread waiting at a barrier
#   sleeps instead of spinning, which would burn the time its partner on the same core
#   needs (runs made before this setting spun, and were up to 1,000x slower). What the
#   `h` bars then measure is sharing a core (its execution units with SMT, time slices
#   without) plus the cost of waking a sleeping thread at each of DC-DRF's barriers.
# * we add a key letter **g** for `generic`: the kernels compiled with `-O3` and the
#   compiler's default vector width (no `-mavx*` flags), between scalar (c) and the
#   explicit AVX variants (2, 5).
# * the input size is the profile's (read from the data and shown on the figures), not
#   the paper's 1M tenants x 100K resources, unless the `paper` profile was run.
# * beside it, the **many-core reference set** (`reference/many-core/`, one folder per
#   machine and day, `python -m drfbench.dcdrf many-core`): its `configs_<isa>.csv` are the
#   same configurations (`drfbench bench`, 100K x 10K) at 1 to 16 threads, one per core, on
#   a 16-core Xeon; drawn with dash-dot lines and square markers, and as panels of their own
#   in Figure 6, each labelled by its folder and machine.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written
many_core = None                        # the many-core sets' folder (None: the checkout's)

# %%
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from pathlib import Path

from IPython.display import Markdown, display

import drfbench
from drfbench import figures as figs
from drfbench import rows as tidy

rows = figs.start(results, "dcdrf/configs")
machine = figs.machine(rows)
# Runs the machine skipped (a kernel variant its CPU cannot run), said on the figures.
skipped_note = " ".join(f"Not run: {reason}." for reason in rows.attrs.get("skipped", []))
first = rows.iloc[0]

# The instruction set actually used: the requested one, or the loaded one for "default".
rows["isa_used"] = np.where(rows["isa"].astype(str) == "default", rows["isa_variant"].astype(str),
                            rows["isa"].astype(str))
rows["cores"] = rows["cores"].astype(str)
rows["tpc"] = rows["tpc"].astype(int)
rows["threads"] = rows["threads"].astype(int)
oversub = rows["oversubscribed"].astype(str) == "True"
smt = str(first["smt_present"]) == "True"
# Number of cores behind "all": threads / threads per core of the all-cores runs.
per_core = rows["threads"] // rows["tpc"]
n_all = int(per_core[rows["cores"] == "all"].max() if (rows["cores"] == "all").any()
            else per_core.max())
rows["n_cores"] = np.where(rows["cores"] == "all", n_all,
                           pd.to_numeric(rows["cores"], errors="coerce")).astype(int)
# OMP_PLACES given as a bare "cores"/"threads" lists every core the process may use, and
# OMP_PROC_BIND=close puts thread k on place k: a run asking for fewer cores than the
# machine has, with more than one thread, then runs its threads on more cores than asked.
rows["spread"] = ((rows["n_cores"] < n_all) & (rows["threads"] > rows["n_cores"])
                  & rows["omp_places"].astype(str).isin(["cores", "threads"]))



def many_core_sets(root):
    """{label: table in `summary`'s columns} of every many-core set under `root` with
    configs_<isa>.csv files (`drfbench bench` rows: one thread per core, `tpc` 1)."""
    sets = {}
    for folder in sorted(p for p in Path(root).glob("*") if p.is_dir()):
        files = sorted(folder.glob("configs_*.csv"))
        if not files:
            continue
        t = pd.concat([tidy.read(f) for f in files], ignore_index=True)
        label = f"{folder.name} ({t['cpu_model'].iloc[0]}, {int(t['cpu_count'].iloc[0])} CPUs)"
        threads = t["threads"].astype(int)
        sets[label] = pd.DataFrame({
            "dtype": t["dtype"], "isa_used": t["isa"].astype(str), "cores": threads.astype(str),
            "n_cores": threads, "tpc": 1, "threads": threads, "spread": False,
            "median": t["elapsed_median"], "min": t["elapsed_min"], "max": t["elapsed_max"],
            "count": t["repeats"]})
    return sets


sets = many_core_sets(many_core or Path(drfbench.__file__).resolve().parents[1]
                      / "reference" / "many-core")
ISA_ORDER = ["scalar", "generic", "avx2", "avx512"]
ISA_KEY = {"scalar": "c", "generic": "g", "avx2": "2", "avx512": "5"}
ISA_NAME = {"scalar": "scalar (c)", "generic": "generic (g)", "avx2": "AVX-256 (2)",
            "avx512": "AVX-512 (5)"}
used = set(rows["isa_used"]).union(*(set(m["isa_used"]) for m in sets.values()))
isas = [i for i in ISA_ORDER if i in used] + sorted(used - set(ISA_ORDER))
dtypes = [d for d in ["float32", "float64"] if d in set(rows["dtype"])]
palette = dict(zip(isas, sns.color_palette("colorblind", len(isas))))


def key(dtype, isa, tpc):
    """The paper's Figure 6 key: f/d precision, c/g/2/5 instruction set, h for 2 per core."""
    return ("f" if dtype == "float32" else "d") + ISA_KEY.get(isa, isa) + ("h" if tpc == 2 else "")


setup = (f"{first['demand_profile']} profile, {int(first['tenants']):,} tenants x "
         f"{int(first['resources']):,} resources, {first['method']} epsilon "
         f"{float(first['epsilon']):g}, {rows['repeat'].nunique()} repeats")
waits = set(rows.loc[rows["tpc"] == 2, "omp_wait_policy"].fillna("").astype(str))
wait_note = ("waiting passively (OMP_WAIT_POLICY=passive)" if waits == {"passive"} else
             "spin-waiting (OpenMP's default wait policy)" if waits <= {""} else
             f"wait policies {', '.join(sorted(w or 'default' for w in waits))}")
tpc2_note = ("2 threads per core = SMT (hyperthreading), " if smt else
             "2 threads per core = 2 threads on each physical core, OVERSUBSCRIBED (no SMT), "
             ) + wait_note

# Median (and min/max) elapsed over repeats per configuration.
group = ["dtype", "isa_used", "cores", "n_cores", "tpc", "threads", "spread"]
summary = (rows.groupby(group)["elapsed"].agg(["median", "min", "max", "count"])
           .reset_index())
spread_note = ""
if summary["spread"].any():
    bad = summary[summary["spread"]].iloc[0]
    spread_note = (f"NOTE: the {int(bad['n_cores'])}-core x {int(bad['tpc'])} runs set "
                   f"OMP_PLACES={rows.loc[rows['spread'], 'omp_places'].iloc[0]} with "
                   f"{int(bad['threads'])} threads, which the OpenMP runtime spreads over "
                   f"{min(int(bad['threads']), n_all)} cores: those points (marked x) are not "
                   f"confined to {int(bad['n_cores'])} core(s).")
summary["key"] = [key(d, i, t) for d, i, t in zip(summary["dtype"], summary["isa_used"],
                                                   summary["tpc"])]
one = summary[(summary["n_cores"] == 1) & (summary["tpc"] == 1)].set_index(["dtype", "isa_used"])
summary["speedup"] = [one["median"].get((d, i), np.nan) / m for d, i, m in
                      zip(summary["dtype"], summary["isa_used"], summary["median"])]
for m in sets.values():
    first_m = m[m["threads"] == 1].set_index(["dtype", "isa_used"])["median"]
    m["speedup"] = [first_m.get((d, i), np.nan) / t for d, i, t in
                    zip(m["dtype"], m["isa_used"], m["median"])]
    m["key"] = [key(d, i, 1) for d, i in zip(m["dtype"], m["isa_used"])]
# one marker per many-core set, in folder order, and its name for the caption
SET_MARKERS = {"s": "squares", "^": "triangles", "D": "diamonds", "v": "down triangles",
               "P": "crosses"}
set_marker = {label: list(SET_MARKERS)[k % len(SET_MARKERS)] for k, label in enumerate(sets)}
many_note = "".join(f" Dash-dot, {SET_MARKERS[set_marker[label]]}: {label}, `drfbench bench` "
                    f"medians of {int(m['count'].max())} repeats." for label, m in sets.items())

# %% [markdown]
# ## Figure 5 (left): elapsed time and speedup against threads
#
# One line per instruction set; solid with filled markers: one thread per core (1 thread
# on 1 core, then one per core on all cores); dashed with open markers: two threads per
# core (2 on 1 core, 2 per core on all cores); dash-dot: the many-core sets, one thread
# per core, a marker each (squares, triangles, ...). Colour is the instruction set, line
# and marker the machine: one legend each. The paper's Figure 5 is the float32,
# two-threads-per-core curve.
# Speedup is against the same configuration's one-thread run on the same machine.

# %%
fig, axes = plt.subplots(2, len(dtypes), figsize=(5.2 * len(dtypes), 7.2), sharex=True,
                         squeeze=False)
thread_ticks = sorted(set(summary["threads"]).union(*(set(m["threads"]) for m in sets.values())))
for col, dtype in enumerate(dtypes):
    for isa in isas:
        for tpc, style, fill in ((1, "-", "full"), (2, "--", "none")):
            part = summary[(summary["dtype"] == dtype) & (summary["isa_used"] == isa)
                           & (summary["tpc"] == tpc)].sort_values("threads")
            if part.empty:
                continue
            kw = dict(color=palette[isa], linestyle=style, marker="o", fillstyle=fill)
            axes[0, col].errorbar(part["threads"], part["median"],
                                  yerr=[part["median"] - part["min"], part["max"] - part["median"]],
                                  capsize=2, **kw)
            axes[1, col].plot(part["threads"], part["speedup"], **kw)
            flag = part[part["spread"]]
            axes[0, col].plot(flag["threads"], flag["median"], "x", color="red", markersize=9)
            axes[1, col].plot(flag["threads"], flag["speedup"], "x", color="red", markersize=9)
        for label, m in sets.items():
            part = m[(m["dtype"] == dtype) & (m["isa_used"] == isa)].sort_values("threads")
            if part.empty:
                continue
            kw = dict(color=palette[isa], linestyle="-.", marker=set_marker[label],
                      markersize=4)
            axes[0, col].errorbar(part["threads"], part["median"],
                                  yerr=[part["median"] - part["min"], part["max"] - part["median"]],
                                  capsize=2, **kw)
            axes[1, col].plot(part["threads"], part["speedup"], **kw)
    ax = axes[0, col]
    ax.set_title(f"{dtype}")
    ax.set_yscale("log")
    ax.set_ylabel("elapsed (s, median; bars min–max)")
    ax.grid(alpha=0.3, which="both")
    ax = axes[1, col]
    ax.plot(thread_ticks, [min(t, n_all) for t in thread_ticks], color="grey", linestyle=":",
            label=f"ideal (linear to {n_all} cores)")
    if sets:
        ax.plot(thread_ticks, thread_ticks, color="grey", linestyle="-.", linewidth=0.8,
                label="ideal (linear, many-core)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(thread_ticks, [
        f"{t}\n" + " | ".join(f"{c}c x {p}" for c, p in sorted(set(zip(
            summary.loc[summary["threads"] == t, "n_cores"],
            summary.loc[summary["threads"] == t, "tpc"])))) for t in thread_ticks], fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("threads (cores c x threads per core)")
    ax.set_ylabel("speedup over 1 thread (x)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
Line2D = matplotlib.lines.Line2D
styles = [Line2D([], [], color="black", linestyle=style, marker="o", fillstyle=fill,
                 label=f"this machine, {tpc} thread{'s' if tpc > 1 else ''}/core")
          for tpc, style, fill in ((1, "-", "full"), (2, "--", "none"))
          if (summary["tpc"] == tpc).any()]
styles += [Line2D([], [], color="black", linestyle="-.", marker=set_marker[label], markersize=4,
                  label=label) for label in sets]
styles += [line for line in axes[1, 0].get_lines() if line.get_label().startswith("ideal")]
axes[1, 0].legend(handles=styles, fontsize=7, loc="upper left", title="line, marker: machine",
                  title_fontsize=7)
axes[1, -1].legend(handles=[Line2D([], [], color=palette[i], linewidth=3,
                                   label=ISA_NAME.get(i, i)) for i in isas],
                   fontsize=7, loc="upper left", title="colour: instruction set",
                   title_fontsize=7)
fig.suptitle(f"Figure 5 (left): DC-DRF thread scaling — this results' machine has {n_all} "
             f"cores (1 and {n_all}); dash-dot: the many-core sets (paper: up to 24 per socket)",
             fontsize=10)
figs.caption(fig, f"configs sweep: {setup}. Open markers/dashed: {tpc2_note}. "
                  f"{spread_note} {skipped_note} {machine}.{many_note}")
_ = figs.save(fig, figures, "dcdrf_fig05_thread_scaling")

# %% [markdown]
# What to look for: the paper's curve falls as cores are added, sublinearly. Here the
# comparison is 1 core against all cores at one thread per core (the speedup at
# `threads = cores`), and what the second thread per core does.

# %%
table = summary.pivot_table(index=["dtype", "isa_used"], columns=["n_cores", "tpc"],
                            values="median")
table.columns = [f"{c} core{'s' if c > 1 else ''} x {t} tpc (s)" for c, t in table.columns]
speed = summary.pivot_table(index=["dtype", "isa_used"], columns=["n_cores", "tpc"],
                            values="speedup")
speed.columns = [f"speedup {c}c x {t}" for c, t in speed.columns]
display(Markdown("**Median elapsed (s) and speedup over 1 thread, per configuration**"))
display(pd.concat([table, speed], axis=1).round(5))

# %% [markdown]
# ## Figure 6: configurations ranked by runtime
#
# One bar per configuration (precision x instruction set x threads per core), median
# elapsed over repeats with min–max error bars, ranked left to right by decreasing time
# as in the paper. Top: all cores (the paper's setting), then one core; below, each
# many-core set's most cores and one core. Key: `f`/`d`
# single/double precision; `c` scalar, `g` generic (compiler default vector width),
# `2` AVX-256, `5` AVX-512; `h` two threads per core (here oversubscribed, not SMT,
# unless the machine has SMT).

# %%
core_counts = sorted(summary["n_cores"].unique(), reverse=True)
# (rows, cores, machine) per panel: this results' machine, then each many-core set's most
# cores and one core
panels = [(summary, n, "") for n in core_counts] + [
    (m, n, label) for label, m in sets.items() for n in (m["n_cores"].max(), 1)]
fig, axes = plt.subplots(len(panels), 1, figsize=(9.5, 3.4 * len(panels)), squeeze=False)
for ax, (rows_of, n, label) in zip(axes[:, 0], panels):
    part = rows_of[rows_of["n_cores"] == n].sort_values("median", ascending=False)
    x = np.arange(len(part))
    colors = [palette[i] for i in part["isa_used"]]
    bars = ax.bar(x, part["median"], color=colors, edgecolor="black", linewidth=0.5,
                  yerr=[part["median"] - part["min"], part["max"] - part["median"]],
                  capsize=2, error_kw=dict(elinewidth=0.8))
    for bar, d, t in zip(bars, part["dtype"], part["tpc"]):
        if t == 2:
            bar.set_hatch("///")
        if d == "float64":
            bar.set_alpha(0.55)
    ax.set_xticks(x, part["key"], fontsize=8)
    # A linear axis, cut above the bulk of the bars when an outlier would flatten them:
    # a cut bar carries its value.
    top = 2.5 * part["median"].quantile(0.75)
    if part["max"].max() > 1.2 * top:
        ax.set_ylim(0, top)
        for xi, value in zip(x, part["median"]):
            if value > top:
                ax.annotate(f"{value:.3g} s ↑", (xi, top), xytext=(0, -10),
                            textcoords="offset points", ha="center", fontsize=7,
                            color="darkred", fontweight="bold")
    ax.set_ylabel("elapsed (s, median)")
    title = (f"{label}: {n} core{'s' if n > 1 else ''}" if label else
             f"{n} core{'s' if n > 1 else ''}" + (" (all)" if n == n_all else ""))
    if part["spread"].any():
        title += f" — bars marked x: threads NOT confined to {n} core (see note)"
        for xi in x[part["spread"].to_numpy()]:
            ax.annotate("x", (xi, 0), xytext=(0, 2), textcoords="offset points", ha="center",
                        color="red", fontsize=9, fontweight="bold")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, axis="y")
handles = [matplotlib.patches.Patch(facecolor=palette[i], edgecolor="black",
                                    label=ISA_NAME.get(i, i)) for i in isas]
handles += [matplotlib.patches.Patch(facecolor="white", edgecolor="black", label="f: float32"),
            matplotlib.patches.Patch(facecolor="lightgrey", edgecolor="black", alpha=0.55,
                                     label="d: float64 (pale)"),
            matplotlib.patches.Patch(facecolor="white", edgecolor="black", hatch="///",
                                     label="h: 2 threads/core" + ("" if smt else " (oversubscribed)"))]
axes[0, 0].legend(handles=handles, fontsize=7, ncol=2)
figs.caption(fig, f"configs sweep: {setup}. Median over repeats, error bars min–max. "
                  f"{tpc2_note}. {spread_note} {skipped_note} {machine}. The many-core "
                  f"panels: `drfbench bench` medians of their repeats.")
height = fig.get_size_inches()[1]          # the title above the first panel's, not over it
fig.subplots_adjust(top=1 - 0.75 / height)
fig.suptitle("Figure 6: DC-DRF configuration options ranked by runtime (slowest left)",
             fontsize=10, y=1 - 0.12 / height)
_ = figs.save(fig, figures, "dcdrf_fig06_configurations")

# %% [markdown]
# ## The paper's claims, as ratios of median elapsed times
#
# Ratios below 1 mean the first configuration is faster. Rows for a core count below
# the machine's, at 2 threads per core, are affected by the placement note above
# (printed below when it applies). What to look for, against the
# paper: float32 / float64 < 1 for every instruction set; AVX-256 / scalar and
# AVX-512 / scalar about 0.75 and close to each other; 2-per-core / 1-per-core < 1 for
# scalar and > 1 for the vector variants (the paper's hyperthreading; here oversubscribed
# unless the machine has SMT).

# %%
if spread_note:
    display(Markdown(f"**{spread_note}**"))
LEVELS = {"n_cores": "cores", "tpc": "tpc", "dtype": "dtype", "isa_used": "isa"}


def ratio(level, num, den):
    """Median elapsed at level=num over level=den, the other settings equal."""
    others = [c for c in LEVELS if c != level]
    t = summary.pivot_table(index=others, columns=level, values="median")
    if num not in t.columns or den not in t.columns:
        return pd.Series(dtype=float, name=f"{num} / {den}")
    r = (t[num] / t[den]).dropna().rename(f"{num} / {den}")
    r.index = r.index.set_names([LEVELS[c] for c in others])
    return r


def show(series, columns, title):
    display(Markdown(title))
    if series.empty:
        display(Markdown("(no pairs in these results)"))
    else:
        display(series.unstack(columns).round(3))


show(ratio("dtype", "float32", "float64"), "isa",
     "**float32 / float64 elapsed, per instruction set**")
vec = [ratio("isa_used", i, "scalar") for i in isas if i != "scalar"]
vec = [v for v in vec if not v.empty]
display(Markdown("**vector / scalar elapsed, per precision**"))
display(pd.concat(vec, axis=1).round(3) if vec else Markdown("(no pairs in these results)"))
show(ratio("tpc", 2, 1), "isa",
     f"**2 threads per core / 1 thread per core elapsed, per precision and instruction set** "
     f"({tpc2_note})")

# %%
fastest = summary.loc[summary["median"].idxmin()]
display(Markdown(
    f"*Caption: Figure 5 (left) and Figure 6 regenerated from the configs sweep ({setup}). "
    f"Fastest configuration: `{fastest['key']}` on {int(fastest['n_cores'])} core(s), "
    f"{fastest['median']:.4g} s. {tpc2_note}. {machine}.*"))
