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
# # DRFH, Fig. 8: sharing incentive, dedicated against shared cloud
#
# Sec. IV-D: each user's tasks run alone on a dedicated cloud of M/n servers drawn from the
# same configuration distribution (Table I); its task completion ratio there (tasks done
# by the horizon over tasks submitted) is compared with the ratio in the shared cloud under
# Best-Fit DRFH. Points above the diagonal: users who gain by sharing. Data:
# `python -m drfbench.drfh sharing` on the Alibaba 2018 sample (the paper: Google 2011).

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from drfbench import figures as figs

table = figs.start(results, "drfh/sharing")
machine = figs.machine(table)
worse = table["shared"] < table["dedicated"] - 1e-12
setup = (f"{len(table)} users, dedicated clouds of {int(table['dedicated_servers'].iloc[0])} "
         f"servers each; horizon {float(table['horizon'].iloc[0]):g} s")

# %%
fig, ax = plt.subplots(figsize=(5.5, 5))
size = 20 + 30 * np.log10(table["submitted"].clip(lower=1))
ax.scatter(table["dedicated"], table["shared"], s=size, alpha=0.6,
           c=np.where(worse, "tab:red", "tab:blue"))
ax.plot([0, 1], [0, 1], "k--", lw=0.8)
ax.set_xlim(-0.02, 1.02)
ax.set_ylim(-0.02, 1.02)
ax.set_xlabel("task completion ratio, dedicated cloud")
ax.set_ylabel("task completion ratio, shared cloud (Best-Fit DRFH)")
ax.set_title("Fig. 8: sharing incentive")
figs.caption(fig, f"{setup}; red: fewer tasks done when sharing ({worse.mean():.0%} of "
                  f"users; the paper: 2%). Circle area ~ log tasks submitted. {machine}")
figs.save(fig, figures, "drfh_fig8_sharing")

# %%
display(Markdown(f"Users worse off sharing: {int(worse.sum())} of {len(table)} "
                 f"({worse.mean():.1%}); largest loss "
                 f"{(table['dedicated'] - table['shared']).max():.3f}."))
