"""Figure 2's Azure activity (drfbench.dcdrf.azure) on small synthetic traces with known
fractions: the paper's active rule written out literally, the idle proxy, the per-window
95th percentiles, and the step's tidy table."""
import gzip
import math

import numpy as np
import pandas as pd
import pytest

from drfbench import rows as tidy
from drfbench.dcdrf import azure
from drfbench.dcdrf.__main__ import main as dcdrf_main
from conftest import ROOT

DATA = ROOT / "data"


def paper_active(cpu_max, cpu_avg):
    """§2.2 as the paper states it: a VM becomes active within an interval when its maximum
    CPU is at least 3x its average or at least 10 percentage points above it."""
    return cpu_max >= 3 * cpu_avg or cpu_max >= cpu_avg + 10


# 4 intervals x 5 VMs (CPU %; None: missing). Per interval, by the rule:
#   t0: a (30 >= 3*10), b (25 >= 15+10, equality), d (12 >= 3*4, equality) active; c, e not: 3/5
#   t1: a, e active (e: 60 >= 40+10); b, c, d not; 4 valid (d missing): 2/4
#   t2: none of the 5 active: 0/5
#   t3: c active (50 >= 3*12); e missing: 1/4
MAX = [[30.0, 25.0, 20.0, 12.0, 20.0],
       [40.0, 24.9, 20.0, None, 60.0],
       [10.0, 16.0, 20.0, 8.0, 45.0],
       [11.0, 15.0, 50.0, 6.0, None]]
AVG = [[10.0, 15.0, 18.0, 4.0, 15.0],
       [10.0, 15.0, 18.0, 4.0, 40.0],
       [10.0, 15.0, 18.0, 4.0, 40.0],
       [10.0, 15.0, 12.0, 4.0, None]]
ACTIVE = [3 / 5, 2 / 4, 0 / 5, 1 / 4]
# Idle proxy: active in t-1, not in t, avg(t-1) >= 5, valid in both.
#   t1: b (active at t0, avg 15) and d (missing at t1: not counted); base: a, b, c, e: 1/4
#   t2: a (avg 10) and e (avg 40) stop; base: a, b, c, e (d missing at t1): 2/4
#   t3: nobody was active at t2; base a, b, c, d: 0/4
IDLE = [math.nan, 1 / 4, 2 / 4, 0 / 4]
ACTIVE_OR_IDLE = [math.nan, 3 / 4, 2 / 5, 1 / 4]


def frames():
    return (pd.DataFrame(MAX, dtype=float, columns=list("abcde")),
            pd.DataFrame(AVG, dtype=float, columns=list("abcde")))


def test_active_is_the_papers_rule_as_written():
    cpu_max, cpu_avg = frames()
    s = azure.states(cpu_max, cpu_avg)
    for t in range(len(MAX)):
        for v in range(len(MAX[0])):
            mx, av = MAX[t][v], AVG[t][v]
            want = mx is not None and av is not None and paper_active(mx, av)
            assert bool(s.active.iat[t, v]) == want, (t, v)
    rng = np.random.default_rng(0)      # and on random values around both thresholds
    avg = rng.uniform(0, 40, size=(50, 30)).round(1)
    mx = avg + rng.choice([0, 5, 9.9, 10, 10.1, 30], size=avg.shape)
    mx = np.where(rng.random(avg.shape) < 0.3, 3 * avg, mx)
    got = azure.states(pd.DataFrame(mx), pd.DataFrame(avg)).active.to_numpy()
    want = [[paper_active(m, a) for m, a in zip(rm, ra)] for rm, ra in zip(mx, avg)]
    assert (got == np.array(want)).all()


def test_fractions_of_the_synthetic_trace():
    frac = azure.fractions(azure.states(*frames()))
    np.testing.assert_allclose(frac["active_fraction"], ACTIVE)
    np.testing.assert_allclose(frac["idle_fraction"], IDLE)
    np.testing.assert_allclose(frac["active_or_idle_fraction"], ACTIVE_OR_IDLE)
    assert list(frac["vms"]) == [5, 4, 5, 4]
    assert list(frac["idle_base_vms"]) == [0, 4, 4, 4]
    assert list(frac["idle_vms"]) == [0, 1, 2, 0]


def test_window_p95_over_complete_windows():
    rng = np.random.default_rng(1)
    frac = pd.DataFrame({"active_fraction": rng.random(23), "idle_fraction": rng.random(23),
                         "active_or_idle_fraction": rng.random(23)})
    frac.iloc[0, 1:] = np.nan
    w = azure.window_p95(frac, window=10)
    assert list(w["window"]) == [0, 1] and list(w["first_interval"]) == [0, 10]
    assert list(w["last_interval"]) == [9, 19]                  # the 3-interval tail left out
    for k in range(2):
        part = frac.iloc[10 * k:10 * k + 10]
        for kind in ("active", "idle", "active_or_idle"):
            values = part[f"{kind}_fraction"].dropna().to_numpy()
            assert math.isclose(w[f"{kind}_p95"][k], np.percentile(values, 95))


def write_sample(root, cpu_max, cpu_avg):
    for kind, frame in (("max", cpu_max), ("avg", cpu_avg)):
        path = root / azure.FILES[kind]
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt") as f:
            frame.to_csv(f)


def test_step_writes_tidy_rows(tmp_path):
    write_sample(tmp_path, *frames())
    out = tmp_path / "azure_activity.csv"
    dcdrf_main(["azure", "--data", str(tmp_path), "--out", str(out), "--window", "2"])
    table = tidy.read(out)
    assert set(tidy.PROVENANCE_NAMES) <= set(table.columns)
    intervals = table[table["level"] == "interval"]
    windows = table[table["level"] == "window"]
    assert list(intervals["interval"]) == [0, 1, 2, 3] and list(intervals["window"]) == [0, 0, 1, 1]
    np.testing.assert_allclose(intervals["active_fraction"], ACTIVE)
    np.testing.assert_allclose(intervals["idle_fraction"], IDLE)
    assert list(windows["window"]) == [0, 1] and list(windows["intervals"]) == [2, 2]
    np.testing.assert_allclose(windows["active_p95"],
                               [np.percentile(ACTIVE[:2], 95), np.percentile(ACTIVE[2:], 95)])
    np.testing.assert_allclose(windows["idle_p95"], [IDLE[1], np.percentile(IDLE[2:], 95)])
    assert (table["idle_rule"] == azure.IDLE_RULE).all()


def test_missing_data_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="data/README.md"):
        azure.read_cpu(tmp_path)


def test_vendored_sample_has_22_windows():
    frac = azure.fractions(azure.states(*azure.read_cpu(DATA)))
    assert len(frac) == 8004
    w = azure.window_p95(frac)
    assert len(w) == 22 and (w["last_interval"] == w["first_interval"] + 349).all()
    assert ((w["active_p95"] > 0) & (w["active_p95"] < 1)).all()
