"""The paper's evaluation (§III, Figs. 3-8) as tidy rows: every method on the same seeded
workloads, per seed; and the sensitivity study, every method under each combination of
the evaluation's choices (what a method is told, the load's shape over time, the resource
that binds, Packer's reading of Eq. 6-8).

  series       per method, seed and time instant (every `every`-th): tasks submitted and
               accepted so far (Fig. 3), utilization of CPU, memory, disk write, disk read
               and bandwidth (Fig. 4 a-e), revenue in that instant (Fig. 5)
  apps         per method and application of the first seed arriving in the steady state's
               first APPS_INSTANTS instants: accepted or not, the time to decide it (Fig. 6),
               its revenue
  summary      per method, seed and window: totals and medians (`summarize`) over the
               steady state (the paper's measurements), the drain after the last arrival
               (reported apart) and the whole run
  rates        Algorithm 2 on the busiest server of Packer's first run, per instant and
               node: guarantee, demand, rate (Figs. 7-8)
  sensitivity  per seed, method and setting: the summary (`sensitivity`)
"""
import numpy as np

from ..api import method_info, methods as registered
from ..declarations import take_only
from .catalog import APPLICATIONS, RECORDED, SCORE, VIEW
from .simulate import revenue, simulate
from .workload import workload

UTILIZATION = ("util_cpu", "util_mem", "util_io_write", "util_io_read", "util_band")
APPS_INSTANTS = 50    # the apps table's arrivals: a sample of the steady state (its size)


def summarize(res, window=None):
    """One run's totals over the instants [lo, hi) of a window.

    Tasks submitted and accepted (of the applications arriving in it), acceptance, revenue in
    it (charged on what was reserved; `revenue_used` on what is used), allocation times (of
    its arrivals; NaN with none), mean utilization per resource (of what is used), peak
    utilization of servers and links (of what is reserved).

    Parameters
    ----------
    res : Result
    window : tuple of int, optional
        (lo, hi); default: the whole run.

    Returns
    -------
    dict
    """
    H = res.server.shape[1]
    lo, hi = window if window is not None else (0, H)
    util = res.utilization()[lo:hi]
    arrival = np.array([a.arrival for a in res.applications], dtype=np.int64)
    mine = (arrival >= lo) & (arrival < hi)
    tasks = np.array([a.tasks for a in res.applications], dtype=np.int64)
    submitted, accepted = int(tasks[mine].sum()), int(tasks[mine & res.accepted].sum())
    seconds = res.allocation_seconds[mine]
    cap = res.infrastructure.capacity[:, None, :]
    link_cap = res.infrastructure.link_capacity[:, None]
    return {"window_from": lo, "window_to": hi, "submitted_tasks": submitted,
            "accepted_tasks": accepted, "acceptance": accepted / max(submitted, 1),
            "revenue": float(res.revenue()[lo:hi].sum()),
            "revenue_used": float(res.revenue(used=True)[lo:hi].sum()),
            "median_allocation_seconds": float(np.median(seconds)) if seconds.size else np.nan,
            "mean_allocation_seconds": float(np.mean(seconds)) if seconds.size else np.nan,
            **{f"mean_{u}": float(util[:, j].mean()) if hi > lo else np.nan
               for j, u in enumerate(UTILIZATION)},
            "peak_server_utilization": float((1.0 - res.server[:, lo:hi] / cap).max(initial=0.0)),
            "peak_link_utilization": float((1.0 - res.link[:, lo:hi] / link_cap).max(initial=0.0))}


def windows(apps, steady):
    """The summary's windows of a run of applications.

    Parameters
    ----------
    apps : list of Application
    steady : tuple of int
        (lo, hi) instants within the arrivals, `0 <= lo < hi <= the last arrival + 1`.

    Returns
    -------
    dict
        Name -> [lo, hi): the steady state, the drain (from the instant after the last
        arrival to the last end: reported apart) and the whole run.

    Raises
    ------
    ValueError
        A steady state out of bounds, naming it.
    """
    last = max((a.arrival for a in apps), default=0)
    lo, hi = steady
    if not 0 <= lo < hi <= last + 1:
        raise ValueError(f"steady window [{lo}, {hi}) must lie within the arrivals, instants "
                         f"0 to {last}: lower its end or raise apps")
    H = max((a.arrival + a.duration for a in apps), default=0)
    return {"steady": (lo, hi), "drain": (last + 1, H), "run": (0, H)}


def evaluate(infra, count, rate, mapreduce, seeds, methods, *, steady, every=1, views=None,
             temporal="jitter", bottleneck="network", **options):
    """The evaluation's rows (see the module docstring).

    Parameters
    ----------
    infra : Infrastructure
    count, rate, mapreduce
        The workload's (`workload`).
    seeds : list of int
    methods : list of str
        Registered names (drfbench.methods(takes="applications")).
    steady : tuple of int
        The steady state's instants [lo, hi) (`windows`).
    every : int
        The series' step in instants.
    views : dict, optional
        Per method what it is told (default "ti-mra").
    temporal, bottleneck : str
        The workload's (`workload`).
    **options
        The methods' other declared options (threads, Packer's score), each given to the
        methods that take it.

    Returns
    -------
    series, apps, summary, rates : list of dict

    Raises
    ------
    TypeError
        An option no application method declares.
    """
    take_only("evaluate", options, _declared())
    views = views or {}
    series, app_rows, summary, rates = [], [], [], []
    for seed in seeds:
        apps = workload(count, seed, rate=rate, mapreduce=mapreduce, infrastructure=infra,
                        temporal=temporal, bottleneck=bottleneck)
        spans = windows(apps, steady)          # checked before the runs
        for method in methods:
            label = method_info(method).label
            told = {VIEW.name: views.get(method, VIEW.default)}
            res = simulate(infra, apps, method, **_options(method, {**told, **options}))
            keys = {"method": method, "label": label, "seed": seed, **_recorded(res)}
            series += [{**row, **keys} for row in res.rows() if row["time"] % every == 0]
            if seed == seeds[0]:
                lo = steady[0]
                app_rows += [{**keys, "application": a.name, "kind": a.name.split("-")[0],
                              "tasks": a.tasks, "arrival": a.arrival, "duration": a.duration,
                              "accepted": p is not None, "allocation_seconds": s,
                              "revenue": float(revenue(a, infra).sum()) if p is not None else 0.0}
                             for a, p, s in zip(res.applications, res.placements,
                                                res.allocation_seconds.tolist())
                             if lo <= a.arrival < lo + APPS_INSTANTS]
            summary += [{**keys, "window": name, **summarize(res, span)}
                        for name, span in spans.items()]
            if seed == seeds[0] and res.method == "packer":
                load = np.zeros(infra.servers)
                for a, p in zip(res.applications, res.placements):
                    if p is not None:
                        on = p[p < infra.servers]
                        np.add.at(load, on, a.duration)
                server = int(load.argmax())
                rates = [{**keys, "server": server, **row} for row in res.server_rates(server, seed)]
    return series, app_rows, summary, rates


def _declared():
    """The options the application methods declare, by name."""
    return sorted({o for m in registered(takes=APPLICATIONS) for o in method_info(m).options})


def _options(method, options):
    """simulate()'s options for `method`: those of `options` it takes."""
    spec = method_info(method)
    return {k: v for k, v in options.items() if spec.takes_option(k)}


def _recorded(res):
    """A run's options its rows record, by name: its view and the catalog's RECORDED."""
    return {o.name: getattr(res, o.name) for o in (VIEW, *RECORDED)}


def sensitivity(infra, count, rate, mapreduce, seeds, methods, scores, *, temporal,
                bottleneck, **options):
    """The sensitivity study's rows for one setting of the workload (temporal, bottleneck) and
    of what the methods are told (view).

    Per seed, every method on the same workload, Packer once per reading in `scores`; each
    row `summarize`'s, keyed by seed, method, label, view, score (empty for the others),
    temporal and bottleneck.

    Parameters
    ----------
    infra : Infrastructure
    count, rate, mapreduce
        The workload's (`workload`).
    seeds : list of int
    methods : list of str
    scores : list of str
        Packer's readings of Eq. 6-8.
    temporal, bottleneck : str
    **options
        The methods' other declared options (the view, threads), each given to the methods
        that take it.

    Returns
    -------
    list of dict

    Raises
    ------
    TypeError
        An option no application method declares.
    """
    take_only("sensitivity", options, _declared())
    out = []
    for seed in seeds:
        apps = workload(count, seed, rate=rate, mapreduce=mapreduce, infrastructure=infra,
                        temporal=temporal, bottleneck=bottleneck)
        for method in methods:
            runs = [{SCORE.name: s} for s in scores] \
                if method_info(method).takes_option(SCORE.name) else [{}]
            for swept in runs:
                res = simulate(infra, apps, method, **_options(method, {**options, **swept}))
                out.append({"seed": seed, "method": method, "label": method_info(method).label,
                            **_recorded(res), "temporal": temporal,
                            "bottleneck": bottleneck, **summarize(res)})
    return out
