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
# # DRFH, Fig. 4: Best-Fit DRFH as users join and leave
#
# Three users on 100 servers drawn from the Google 2011 configurations (Table I): user 1
# ⟨0.2 CPU, 0.3 memory⟩ per task from 0 s, user 2 ⟨0.5, 0.1⟩ from 200 s, user 3 ⟨0.1, 0.3⟩
# from 500 s (Wang, Liang, Li, Sec. VI). The paper gives neither task counts nor durations:
# ours are 700, 1,000 and 1,000 tasks of uniform [50, 150) s each
# (drfbench.drfh.simulation.DYNAMIC_USERS), so that user 1 leaves near the paper's 1,080 s.
# Data: `python -m drfbench.drfh dynamic` (Best-Fit DRFH, drfbench/drfh/drfh.pyx, on drfbench.sim).
# A column `exact_share` in the shares file, where present, is drawn as dashed lines: the
# exact DRFH allocation of the same users at the same instants.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from drfbench import figures as figs

rows, summary = figs.start(results, "drfh/dynamic", "drfh/dynamic_summary")
machine = figs.machine(rows)
pool = str(rows["pool"].iloc[0]).split()
setup = (f"{int(rows['servers'].iloc[0])} servers drawn from Table I (seed "
         f"{int(rows['seed'].iloc[0])}), a pool of {pool[0]} CPU and {pool[1]} memory units "
         "(the paper's: 52.75 and 51.32)")

# %% [markdown]
# ## Global dominant shares over time
#
# Each user's global dominant share (the largest of its shares of the pool's CPU and
# memory), and the pool's CPU and memory utilization.

# %%
shares = rows[rows["metric"] == "share"]
util = rows[rows["metric"] == "utilization"]
fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
for user, part in shares.groupby("user", sort=True):
    user = int(float(user)) if str(user).replace(".", "", 1).isdigit() else user
    line, = top.plot(part["time"], part["value"], label=f"user {user}")
    if "exact_share" in part and part["exact_share"].notna().any():
        top.plot(part["time"], part["exact_share"], "--", color=line.get_color(),
                 label=f"user {user}, exact DRFH")
top.set_ylabel("global dominant share")
top.set_ylim(0, 1)
top.legend(loc="upper right", fontsize=8)
top.set_title("Fig. 4: Best-Fit DRFH with users joining and leaving")
for resource, part in util.groupby("resource", sort=False):
    bottom.plot(part["time"], part["value"], label=f"{resource} utilization")
bottom.set_xlabel("time (s)")
bottom.set_ylabel("pool utilization")
bottom.set_ylim(0, 1)
bottom.legend(loc="lower right", fontsize=8)
figs.caption(fig, f"Simulated: {setup}. {machine}")
figs.save(fig, figures, "drfh_fig4_dynamic")

# %% [markdown]
# ## The phases, measured beside the paper's numbers
#
# Mean shares from 100 s after a join to the next join (three users: until user 1 leaves).

# %%
table = summary[["phase", "user", "share", "measured", "paper"]].copy()
table["measured"] = table["measured"].round(3)
display(Markdown(table.to_markdown(index=False)))
