"""The pipeline on a real single-node SLURM cluster, through Snakemake's SLURM executor.

Starts the project's test cluster, tests/slurm/local-slurm (Debian's slurmctld, slurmd,
munge; needs root), runs a tiny smoke config with `--profile workflows/profiles/slurm`,
and checks the results against a local run; then cancels a running job and checks that a
rerun finishes the work without redoing what was done. Skipped, with the reason, where
SLURM cannot start; under CI (CI=true) that fails instead, so CI never passes them unrun.
"""
import csv
import importlib.util
import os
import subprocess
import sys
import time

import pytest
import yaml

from drfbench.dcdrf import sweeps
from cases import NOTEBOOK_RULES, few_instances
from conftest import ROOT

pytestmark = pytest.mark.slurm
LOCAL_SLURM = ROOT / "tests/slurm/local-slurm"
# up to every family's rows: the figures are the same notebooks on the same rows
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
             "--omit-from", *NOTEBOOK_RULES]
# This node has few cores and little memory: override the profile's site settings, and
# poll SLURM often so the test is quick. Retries off, so a cancelled job is reported.
SLURM_FLAGS = ["--profile", str(ROOT / "workflows/profiles/slurm"), "--slurm-no-account",
               "--slurm-status-command", "squeue", "--cores", str(os.cpu_count()),
               "--set-resources", "measure:mem_mb=2000", "baseline:mem_mb=2000",
               "workload:mem_mb=1000", "--slurm-init-seconds-before-status-checks", "1",
               "--seconds-between-status-checks", "1", "--retries", "0"]
# Columns that hold timings or provenance: everything else must match a local run.
TIMING_OR_PROVENANCE = {"elapsed", "git_commit", "drfbench_version", "host", "slurm_job_id",
                        "timestamp", "cpu_model", "omp_places", "omp_proc_bind"}


def unavailable():
    if os.geteuid() != 0:
        return "tests/slurm/local-slurm needs root"
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "snakemake-executor-plugin-slurm is not installed (pip install -e '.[slurm]')"
    return None


def cannot_run(reason):
    """Skip, saying why; under CI, fail: CI runs these tests to see them pass."""
    print(f"SLURM tests not run: {reason}")
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI could not run the SLURM tests: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def cluster():
    """The test cluster, up for this module's tests."""
    reason = unavailable()
    if reason:
        cannot_run(reason)
    started = subprocess.run([str(LOCAL_SLURM), "start"], capture_output=True, text=True, timeout=900)
    try:
        if started.returncode != 0:
            cannot_run(f"local-slurm start failed: {(started.stdout + started.stderr)[-800:]}")
        yield
    finally:
        subprocess.run([str(LOCAL_SLURM), "stop"], capture_output=True, timeout=120)


def tiny_config(path):
    config = yaml.safe_load((ROOT / "workflows/config/smoke.yaml").read_text())
    dcdrf = config["dcdrf"]
    dcdrf["configs"].update(tenants=600, resources=60, dtypes=["float32"], isas=["generic"],
                            cores=["all"], threads_per_core=[1])
    dcdrf["demands"].update(demand_profiles=["G0", "U1"], tenants=600, resources=60,
                            epsilons={"dcdrf": [1e-2]}, budget=1e-5)
    dcdrf["deadlines"].update(tenants=600, resources=60, methods=["dcdrf", "pedrf1"], deadlines=[1e-3],
                              epsilons={"dcdrf": [1e-2]})
    dcdrf["scaling"].update(ratios=[2], resources=[20, 40, 80])
    path.write_text(yaml.safe_dump(few_instances(config)))
    return path


def snakemake(workdir, config, *extra, **popen):
    cmd = SNAKEMAKE + ["--directory", str(workdir), "--configfile", str(config), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1800, **popen)


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def comparable(rows):
    """Rows keyed by (sweep, run, repeat), without timing/provenance columns; runs with a
    deadline depend on timing, so only their keys are compared."""
    out = {}
    for r in rows:
        key = (r["sweep"], r["run"], r["repeat"])
        out[key] = None if r["deadline"] != "none" else {
            k: v for k, v in r.items() if k not in TIMING_OR_PROVENANCE}
    return out


def half_written(results):
    """Temporary files left behind, and result files that do not parse."""
    bad = [str(p) for p in results.rglob(".*tmp*")]
    for p in results.rglob("*.csv"):
        try:
            read(p)
        except Exception:  # a truncated or garbled CSV
            bad.append(str(p))
    return bad


def test_slurm_run_matches_a_local_run(cluster, tmp_path):
    config = tiny_config(tmp_path / "tiny.yaml")
    local, remote = tmp_path / "local", tmp_path / "slurm"
    local.mkdir(), remote.mkdir()
    start = time.perf_counter()
    proc = snakemake(remote, config, *SLURM_FLAGS)
    print(f"pipeline through SLURM: {time.perf_counter() - start:.0f} s")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert snakemake(local, config, "--cores", "2").returncode == 0

    for name in [f"dcdrf/{f}.csv" for f in sweeps.SWEEPS] + ["dcdrf/edrf_extrapolated.csv"]:
        assert (remote / "results/smoke" / name).stat().st_size > 0, name
    for sweep in sweeps.SWEEPS:
        rows = read(remote / f"results/smoke/dcdrf/{sweep}.csv")
        assert rows and all(r["slurm_job_id"] for r in rows), f"{sweep}: a row did not run as a SLURM job"
        assert comparable(rows) == comparable(read(local / f"results/smoke/dcdrf/{sweep}.csv"))
    assert half_written(remote / "results") == []


def test_cancelled_job_is_reported_and_a_rerun_finishes_without_redoing(cluster, tmp_path):
    config = tiny_config(tmp_path / "tiny.yaml")
    cmd = SNAKEMAKE + ["--directory", str(tmp_path), "--configfile", str(config), *SLURM_FLAGS]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cancelled, deadline = None, time.time() + 600
    runs = tmp_path / "results/smoke/dcdrf/runs"
    while cancelled is None and time.time() < deadline and first.poll() is None:
        # wait until some runs are done, then cancel the next job found running
        done = len(list(runs.rglob("*.csv"))) if runs.exists() else 0
        if done >= 2:
            queue = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i"],
                                   capture_output=True, text=True).stdout.split()
            if queue:
                subprocess.run(["scancel", queue[0]], check=True)
                cancelled = queue[0]
        time.sleep(0.2)
    out, _ = first.communicate(timeout=1800)
    assert cancelled, "no running job was found to cancel"
    print(f"cancelled SLURM job {cancelled}; snakemake exited with {first.returncode}")
    assert first.returncode != 0, "the cancelled job went unreported"
    assert "Error in rule" in out and "exiting because a job execution failed" in out.lower()
    assert half_written(tmp_path / "results") == []

    before = {p: p.stat().st_mtime_ns for p in runs.rglob("*.csv")}
    assert before, "nothing had finished before the cancellation"
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    assert second.returncode == 0, (second.stdout + second.stderr)[-4000:]
    assert all(p.stat().st_mtime_ns == t for p, t in before.items()), "finished runs were redone"
    for sweep in sweeps.SWEEPS:
        assert read(tmp_path / f"results/smoke/dcdrf/{sweep}.csv")
    assert half_written(tmp_path / "results") == []
