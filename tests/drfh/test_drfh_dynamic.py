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
                           "--sample", "50", "--out", str(out), "--summary", str(summary)],
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
