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
# # The skeleton family: equal dominant shares
#
# The template's one figure: how much of each resource the users get when DRF gives them
# equal dominant shares (the pipeline step `python -m drfbench.skeleton share`); the
# busiest resource is given out whole (times the `scale` option), the others in part.

# %% tags=["parameters"]
results = "../reference/default"      # a profile's results directory
figures = "../results/default/figures"  # where the figures are written

# %%
import matplotlib.pyplot as plt

from drfbench import figures as figs

shares = figs.start(results, "skeleton/skeleton_shares")
columns = sorted((c for c in shares if c.startswith("share_")), key=lambda c: int(c[6:]))
given = shares[columns].sum()

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(range(len(columns)), given.to_numpy())
ax.set_xlabel("resource")
ax.set_ylabel("fraction given out")
figs.caption(fig, f"{len(shares)} users, dominant share {shares['dominant_share'].iloc[0]:.3g} "
             f"each. {figs.machine(shares)}")
figs.save(fig, figures, "skeleton_shares")
