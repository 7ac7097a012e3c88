"""Fig. 4's file (`python -m drfbench.drfh dynamic`) carries exact DRFH's shares beside
Best-Fit's: the column the claims table's DS1 reads (reference/claims/drfh.yaml). Written
as the rows stream, it was once added to rows the writer never saw (issue 36's
regeneration on fresh seeds found the column gone)."""
import subprocess
import sys

import numpy as np

from drfbench import rows


def test_the_dynamic_file_has_exact_shares_on_its_share_rows(tmp_path):
    out, summary = tmp_path / "dynamic.csv", tmp_path / "summary.csv"
    done = subprocess.run([sys.executable, "-m", "drfbench.drfh", "dynamic", "--servers", "20",
                           "--dynamic-sample", "50", "--out", str(out), "--summary", str(summary)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    table = rows.read(out)
    share = table["metric"] == "share"
    assert share.any() and (~share).any()
    assert table.loc[~share, "exact_share"].isna().all()
    exact = table.loc[share, "exact_share"]
    assert exact.notna().any() and ((exact.dropna() > 0) & (exact.dropna() <= 1)).all()
    present = table[share & exact.notna()]
    # users present at one instant get equal exact shares (DRFH equalizes them)
    spread = present.groupby("time")["exact_share"].agg(lambda s: np.ptp(s.to_numpy()))
    assert (spread < 1e-6).all()


def test_the_dynamic_experiment_under_first_fit(tmp_path):
    """DS7's file: Fig. 4's users under First-Fit (--method), exact DRFH beside them."""
    out, summary = tmp_path / "dynamic.csv", tmp_path / "summary.csv"
    done = subprocess.run([sys.executable, "-m", "drfbench.drfh", "dynamic", "--servers", "20",
                           "--dynamic-sample", "50", "--method", "drfh-first-fit", "--out", str(out),
                           "--summary", str(summary)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    table = rows.read(out)
    assert set(table["method"]) == {"drfh-first-fit"}
    share = table[table["metric"] == "share"]
    assert share["exact_share"].notna().any()
    assert set(rows.read(summary)["phase"]) >= {"users 1 and 2", "users 1, 2 and 3", "user 1 leaves"}
    refused = subprocess.run([sys.executable, "-m", "drfbench.drfh", "dynamic", "--method",
                              "drfh-slots", "--out", str(out), "--summary", str(summary)],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "drfh-slots" in refused.stderr
