"""What DRFH's trace claims depend on (docs/families/drfh/choices.md, "The sensitivity study"):
Table II and Figs. 5-7 for one trace under one slot model, as compact tidy rows, and the
comparisons Figs. 6-7 draw.

    study(servers, tasks, grid, **options) -> rows      options: the run's (slot model too)
    under_each(servers, tasks, slot_models=..., slot_grid=..., ...) -> rows, stamped
    reduction_by_size(tasks, best, other)   Fig. 6b: mean completion time reduction by job size
    completion_gains(best, other)           Fig. 7: users better off, users done only under Best-Fit

Rows: figure ("table2", "fig5", "fig6", "fig7"), method, slots (k; 0 for the DRFH
methods), metric, value. Table II: each k's mean utilization per resource ("utilization_<r>")
under the slot model; Fig. 5: each method's (Slots at Table II's best k); Fig. 6: the
jobs done by the horizon under both Best-Fit and Slots ("jobs"), their median completion
time per method ("median_completion"), the mean reduction per size class
("reduction_<class>"); Fig. 7: the fraction of users with a higher task completion ratio
under Best-Fit than under Slots ("users_higher"), with every task done under Best-Fit and
not under Slots ("users_done_only_best"), each method's tasks done ("tasks_done").
"""
import math

import numpy as np
import pandas as pd

from .. import rows as tidy
from .catalog import SLOT_MODEL, SLOTS
from .simulation import best_slots, mean_utilization, recorded, settings, simulate, taken
from .trace import read_servers, tasks_frame

# Fig. 6b's job size classes: a job of n tasks is in the class whose [lo, hi) holds n
SIZE_CLASSES = {"1": (1, 2), "2-10": (2, 11), "11-50": (11, 51), "51-100": (51, 101),
                ">100": (101, math.inf)}


def reduction_by_size(tasks, best, other):
    """Fig. 6b: per size class, `(mean of other's completion times - mean of best's) / mean of
    other's`, over the jobs given.

    Parameters
    ----------
    tasks : array_like
        Tasks per job (SIZE_CLASSES).
    best, other : array_like
        Completion times per job.

    Returns
    -------
    pandas.Series
        By class; NaN for an empty class.
    """
    tasks, best, other = (np.asarray(x, dtype=np.float64) for x in (tasks, best, other))
    out = {}
    for label, (lo, hi) in SIZE_CLASSES.items():
        inside = (tasks >= lo) & (tasks < hi)
        mean = other[inside].mean() if inside.any() else np.nan
        out[label] = (mean - best[inside].mean()) / mean if inside.any() else np.nan
    return pd.Series(out)


def completion_gains(best, other):
    """Fig. 7: the users better off under `best` than under `other`.

    Parameters
    ----------
    best, other : pandas.DataFrame
        Per-user completion tables (DRFHSimulation.completion: user, submitted, ratio).

    Returns
    -------
    higher : float
        The fraction of users with a higher task completion ratio under `best`.
    done : float
        The fraction with every task done under `best` and not under `other`.
    """
    pair = best.merge(other, on=["user", "submitted"], suffixes=("_best", "_other"))
    return (float((pair["ratio_best"] > pair["ratio_other"]).mean()),
            float(((pair["ratio_best"] >= 1) & (pair["ratio_other"] < 1)).mean()))


def study(servers, tasks, grid, **options):
    """The rows of the module docstring: Slots under its slot model at every k of `grid`.

    Parameters
    ----------
    servers, tasks : DataFrame or path
        In the generic trace format; a path is read once (`trace.tasks_frame`).
    grid : sequence of int
    **options
        The run's (slot model, horizon, sample), as `simulate` takes them; the DRFH
        methods' runs take theirs (`simulation.taken`).

    Returns
    -------
    list of dict
    """
    frame, own = tasks_frame(tasks), settings(options)
    rows, search, slotted = [], [], {}
    for k in grid:
        res = simulate(servers, frame, "drfh-slots", **{SLOTS.name: k}, **options)
        mean = mean_utilization(res, own.horizon)
        search.append({SLOTS.name: k, **mean.to_dict()})
        slotted[k] = res
        rows += [{"figure": "table2", "method": "drfh-slots", SLOTS.name: k,
                  "metric": f"utilization_{r}", "value": float(v)} for r, v in mean.items()]
    k = best_slots(search, list(mean.index))
    runs = {**{name: simulate(servers, frame, name, **taken(name, options))
               for name in ("drfh-best-fit", "drfh-first-fit")}, "drfh-slots": slotted[k]}
    slots = {name: (k if name == "drfh-slots" else 0) for name in runs}
    for name, res in runs.items():
        rows += [{"figure": "fig5", "method": name, SLOTS.name: slots[name],
                  "metric": f"utilization_{r}", "value": float(v)}
                 for r, v in mean_utilization(res, own.horizon).items()]
        done = res.completion
        rows.append({"figure": "fig7", "method": name, SLOTS.name: slots[name],
                     "metric": "tasks_done", "value": float(done["completed"].sum()
                                                            / max(done["submitted"].sum(), 1))})
    both = runs["drfh-best-fit"].jobs.merge(runs["drfh-slots"].jobs, on=["job", "user", "submit"],
                                            suffixes=("_best", "_slots"))
    both = both[both["finish_best"].notna() & both["finish_slots"].notna()]
    size = frame.groupby("job").size()
    tasks_of = size.reindex(both["job"].to_numpy()).to_numpy()
    best_ct, slots_ct = both["finish_best"] - both["submit"], both["finish_slots"] - both["submit"]
    fig6 = {"jobs": len(both)}
    for name, ct in (("drfh-best-fit", best_ct), ("drfh-slots", slots_ct)):
        fig6[f"median_completion_{name.removeprefix('drfh-')}"] = (float(ct.median()) if len(ct)
                                                                   else np.nan)
    for label, value in reduction_by_size(tasks_of, best_ct, slots_ct).items():
        fig6[f"reduction_{label}"] = float(value)
    rows += [{"figure": "fig6", "method": "drfh-best-fit", SLOTS.name: k, "metric": m, "value": v}
             for m, v in fig6.items()]
    higher, only = completion_gains(runs["drfh-best-fit"].completion, runs["drfh-slots"].completion)
    rows += [{"figure": "fig7", "method": "drfh-best-fit", SLOTS.name: k, "metric": m, "value": v}
             for m, v in (("users_higher", higher), ("users_done_only_best", only))]
    return rows


def under_each(servers, tasks, *, slot_models, slot_grid, task_scale, seed, **options):
    """The sensitivity step's rows (python -m drfbench.drfh sensitivity): `study` under each of
    `slot_models` over `slot_grid`, stamped.

    Each row has its slot model, the tasks' scale (as recorded), the servers' count, the
    horizon and the seed.

    Parameters
    ----------
    servers, tasks : DataFrame or path
    slot_models : sequence of str
    slot_grid : sequence of int
    task_scale : float
        Recorded only.
    seed : int
        Recorded only.
    **options
        The run's (horizon, sample), as `simulate` takes them.

    Returns
    -------
    list of dict
    """
    keys = {"task_scale": task_scale, "servers": len(read_servers(servers)[1]),
            **recorded(options), "seed": seed, **tidy.stamp()}
    models = [{SLOT_MODEL.name: model} for model in slot_models]
    return [{**row, **model, **keys} for model in models
            for row in study(servers, tasks, slot_grid, **model, **options)]
