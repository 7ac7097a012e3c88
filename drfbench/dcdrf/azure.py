"""How often Azure VMs become active or idle within 5 minutes (Figure 2 and §2.2 of Kash,
O'Shea and Volos, SoCC'18), from the Azure CPU sample vendored in data/azure/
(`python -m drfbench.dcdrf azure`).

    from drfbench.dcdrf import azure
    cpu_max, cpu_avg = azure.read_cpu("data")
    frac = azure.fractions(azure.states(cpu_max, cpu_avg))   # one row per 5-minute interval
    per_window = azure.window_p95(frac)                     # p95 per window of 350 intervals

The paper plots, per 5-minute interval of an Azure VM CPU trace, the fraction of VMs that
become active or idle at least once within it, and reports the 95th percentile over 350
intervals: 29% become active, 13% idle. Its §2.2 adds the two and spreads them uniformly
over 10-30 s control intervals: 1.4-4.2% of VMs change state per control interval.

Active (the paper's rule, as written): a VM becomes active within an interval when its
maximum CPU is at least 3x its average (max >= 3 avg) or at least 10 percentage points above
it (max >= avg + 10).

Idle (a PROXY; where we differ): the paper's idle rule needs the interval's minimum CPU (a
VM with avg >= 5% becomes idle when min <= avg/3 or min <= avg - 10), which the sample does
not have. We use a transition between consecutive intervals: a VM becomes idle in interval
t when it was active in t-1, is not active in t, and its average CPU in t-1 was at least 5%
(the paper's "non-negligible utilization"). It cannot see a dip inside an interval, so it
is a different quantity from the paper's.

Missing samples: a (VM, interval) with either value missing is excluded; fractions are over
the VMs with both values in that interval (for the idle proxy, in both t-1 and t). The first
interval has no predecessor, so no idle proxy (empty).

The table (`table`, COLUMNS, stamped): one row per interval (`level` "interval") and one per
complete, non-overlapping window of `window` intervals (`level` "window"); `active_rule`
"paper" and `idle_rule` "proxy" name the rules above, `source` the data (data/azure/). Not
measured by drfbench: the same rows on any machine.
"""
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .. import rows as tidy
from .._command import COUNT, output

INTERVAL_MIN = 5         # minutes per sample interval
WINDOW = 350             # intervals per window: the paper's Figure 2 spans 350 intervals
P95 = 0.95               # the paper reports the 95th percentile
BURST_RATIO = 3.0        # active: max >= 3 avg ...
BURST_POINTS = 10.0      # ... or max >= avg + 10 (percentage points)
BUSY = 5.0               # idle proxy: previous average at least 5% (non-negligible)
FILES = {kind: f"azure/azure_v1_vm_cpu_{kind}_5min_100vms.csv.gz" for kind in ("max", "avg")}
IDLE_RULE = "proxy"      # active in t-1, not active in t, avg(t-1) >= 5% (the paper's needs the minimum)
ATTRIBUTION = ("Derived from the Azure Public Dataset (https://github.com/Azure/AzurePublicDataset), "
               "licensed CC-BY-4.0; Cortez et al., SOSP'17.")
COLUMNS = ("level", "interval", "window", "first_interval", "last_interval", "intervals",
           "vms", "active_vms", "active_fraction", "idle_vms", "idle_base_vms", "idle_fraction",
           "active_or_idle_fraction", "active_p95", "idle_p95",
           "active_or_idle_p95", "active_rule", "idle_rule", "source")
ACTIVE_RULE = "paper"    # max >= 3 avg or max >= avg + 10, as the paper states it


class States(NamedTuple):
    """Per (interval, VM) booleans, intervals as rows and VMs as columns.

    Attributes
    ----------
    valid : pandas.DataFrame
        Both values present.
    active : pandas.DataFrame
        Becomes active (the paper's rule).
    idle : pandas.DataFrame
        Becomes idle (the proxy).
    both_valid : pandas.DataFrame
        Valid in t-1 and t: the idle proxy's denominator.
    """
    valid: pd.DataFrame        # both values present
    active: pd.DataFrame       # becomes active (the paper's rule)
    idle: pd.DataFrame         # becomes idle (the proxy)
    both_valid: pd.DataFrame   # valid in t-1 and t: the idle proxy's denominator


def read_cpu(data):
    """The vendored sample under a data directory, as DataFrames of CPU % (rows: intervals,
    columns: VMs; missing values NaN).

    Parameters
    ----------
    data : str or Path
        The data directory.

    Returns
    -------
    cpu_max, cpu_avg : pandas.DataFrame
    """
    frames = []
    for kind in ("max", "avg"):
        path = Path(data) / FILES[kind]
        if not path.is_file():
            raise FileNotFoundError(f"{path} does not exist: point `data` at the repository's "
                                    f"data/ directory (see data/README.md)")
        frames.append(pd.read_csv(path, index_col=0).apply(pd.to_numeric, errors="coerce"))
    cpu_max, cpu_avg = frames
    if not (cpu_max.index.equals(cpu_avg.index) and cpu_max.columns.equals(cpu_avg.columns)):
        raise ValueError("the max and avg CPU files do not have the same intervals and VMs")
    return cpu_max, cpu_avg


def states(cpu_max, cpu_avg):
    """Which VM becomes active (the paper's rule) or idle (the proxy) in which interval, and
    which (VM, interval) samples count (see the module's docstring).

    Parameters
    ----------
    cpu_max, cpu_avg : pandas.DataFrame
        `read_cpu`'s.

    Returns
    -------
    States
    """
    cpu_max, cpu_avg = pd.DataFrame(cpu_max), pd.DataFrame(cpu_avg)
    valid = cpu_max.notna() & cpu_avg.notna()
    active = valid & ((cpu_max >= BURST_RATIO * cpu_avg) | (cpu_max >= cpu_avg + BURST_POINTS))
    prev_active = active.shift(1, fill_value=False)
    prev_valid = valid.shift(1, fill_value=False)
    prev_busy = (cpu_avg.shift(1) >= BUSY).fillna(False)
    both_valid = valid & prev_valid
    idle = both_valid & prev_active & ~active & prev_busy
    return States(valid, active, idle, both_valid)


def fractions(s):
    """Per interval (index as the sample's), the VMs becoming active or idle and their
    fractions.

    Parameters
    ----------
    s : States

    Returns
    -------
    pandas.DataFrame
        vms, active_vms, active_fraction, idle_vms, idle_base_vms, idle_fraction,
        active_or_idle_fraction; the first interval's idle and active-or-idle fractions NaN
        (no predecessor).
    """
    vms = s.valid.sum(axis=1)
    base = s.both_valid.sum(axis=1)
    frac = pd.DataFrame({
        "vms": vms, "active_vms": s.active.sum(axis=1),
        "active_fraction": s.active.sum(axis=1) / vms.where(vms > 0),
        "idle_vms": s.idle.sum(axis=1), "idle_base_vms": base,
        "idle_fraction": s.idle.sum(axis=1) / base.where(base > 0),
        "active_or_idle_fraction": (s.active | s.idle).sum(axis=1) / vms.where(vms > 0),
    })
    frac.iloc[0, frac.columns.get_indexer(["idle_fraction", "active_or_idle_fraction"])] = np.nan
    return frac


def window_p95(frac, window=WINDOW):
    """One row per complete, non-overlapping window of `window` consecutive intervals (a tail
    shorter than `window` is left out).

    Parameters
    ----------
    frac : pandas.DataFrame
        `fractions`'.
    window : int

    Returns
    -------
    pandas.DataFrame
        window, first_interval, last_interval (positions), intervals, and the 95th
        percentile over the window's intervals of each fraction (NaN entries left out;
        pandas' linear interpolation): active_p95, idle_p95, active_or_idle_p95.
    """
    out = []
    for k, start in enumerate(range(0, len(frac) - window + 1, window)):
        w = frac.iloc[start:start + window]
        out.append({"window": k, "first_interval": start, "last_interval": start + window - 1,
                    "intervals": window,
                    **{f"{kind}_p95": w[f"{kind}_fraction"].dropna().quantile(P95)
                       for kind in ("active", "idle", "active_or_idle")}})
    return pd.DataFrame(out, columns=["window", "first_interval", "last_interval", "intervals",
                                      "active_p95", "idle_p95", "active_or_idle_p95"])


def table(data, window=WINDOW):
    """Fig. 2's fractions of Azure VMs becoming active or idle, as tidy rows (COLUMNS, stamped).

    One row per interval of the sample (level "interval": its position, the window it falls
    in, empty past the last complete one, and its counts and fractions) and one per window
    (level "window": its span and the 95th percentiles).

    Parameters
    ----------
    data : str or Path
        The data directory holding the vendored sample.
    window : int
        Intervals per window.

    Returns
    -------
    drfbench.rows.Rows
    """
    frac = fractions(states(*read_cpu(data)))
    per_window = window_p95(frac, window)
    complete = len(per_window) * window
    common = {"active_rule": ACTIVE_RULE, "idle_rule": IDLE_RULE,
              "source": "data/azure"}
    rows = []
    for position, (_, r) in enumerate(frac.iterrows()):
        rows.append({"level": "interval", "interval": position,
                     "window": position // window if position < complete else "",
                     "vms": int(r.vms), "active_vms": int(r.active_vms),
                     "active_fraction": r.active_fraction, "idle_vms": int(r.idle_vms),
                     "idle_base_vms": int(r.idle_base_vms),
                     "idle_fraction": "" if np.isnan(r.idle_fraction) else r.idle_fraction,
                     "active_or_idle_fraction": ("" if np.isnan(r.active_or_idle_fraction)
                                                 else r.active_or_idle_fraction), **common})
    for r in per_window.to_dict("records"):
        rows.append({"level": "window", **r, **common})
    return tidy.stamped([{c: row.get(c, "") for c in COLUMNS} for row in rows])


def arguments(p):
    """The step's flags, added to `p` (its parser under python -m drfbench.dcdrf)."""
    p.add_argument("--data", default="data", help="the repository's data directory")
    p.add_argument("--out", required=True, type=output, help="the table (CSV)")
    p.add_argument("--window", type=COUNT, default=WINDOW, help="intervals per window")


def step(args):
    """The step: the table, written to --out."""
    rows = table(args.data, args.window)
    tidy.write(rows, args.out)
    windows = [r for r in rows if r["level"] == "window"]
    print(f"{len(rows) - len(windows)} intervals, {len(windows)} windows of {args.window}",
          file=sys.stderr)
