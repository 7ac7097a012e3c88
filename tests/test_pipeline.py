"""The Snakemake pipeline seed: runs, is idempotent, and rejects a bad config by name."""
import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--cores", "2"]


def run(workdir, *extra):
    return subprocess.run(SNAKEMAKE + ["--directory", str(workdir), *extra],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    pytest.importorskip("snakemake", reason="snakemake is part of the [test] extra")
    workdir = tmp_path_factory.mktemp("pipeline")
    config = workdir / "tiny.yaml"
    text = (ROOT / "workflows/config/smoke.yaml").read_text()
    config.write_text(text.replace("tenants: 5000", "tenants: 800").replace("resources: 500", "resources: 80"))
    proc = run(workdir, "--configfile", str(config))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return workdir, config


def test_smoke_pipeline_writes_tidy_rows(smoke_run):
    workdir, _ = smoke_run
    for profile in ("G0", "U2"):
        rows = list(csv.DictReader(open(workdir / f"results/smoke/compare/{profile}.csv")))
        methods = {r["method"] for r in rows}
        assert methods == {"edrf", "dcdrf", "sdcdrf", "pedrf", "pedrf1"}
        assert all(r["profile"] == profile and float(r["elapsed_median"]) > 0 for r in rows)
        exact = [r for r in rows if r["method"] in ("edrf", "pedrf", "sdcdrf") and float(r["epsilon"]) == 0]
        assert all(float(r["fairness"]) < 1e-6 for r in exact)
        assert (workdir / f"results/smoke/logs/compare/{profile}.log").stat().st_size > 0


def test_rerun_does_nothing(smoke_run):
    workdir, config = smoke_run
    proc = run(workdir, "--configfile", str(config), "--dry-run")
    assert proc.returncode == 0 and "Nothing to be done" in proc.stdout + proc.stderr


def test_bad_config_names_the_key(tmp_path):
    pytest.importorskip("snakemake", reason="snakemake is part of the [test] extra")
    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "workflows/config/smoke.yaml").read_text().replace("repeats: 3", "repeats: 0"))
    proc = run(tmp_path, "--configfile", str(bad), "--dry-run")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Error validating config" in out and "['repeats']" in out
