"""The Snakemake pipeline: grids and run ids, the schema, each profile's DAG, and a real
run on tiny inputs that is idempotent and reruns only what a deleted file needs."""
import csv
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from drfbench import pipeline

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--cores", "2"]
PROFILES = ("smoke", "default", "paper")


def snakemake(workdir, *extra):
    proc = subprocess.run(SNAKEMAKE + ["--directory", str(workdir), *extra], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def load(profile):
    return yaml.safe_load((ROOT / f"workflows/config/{profile}.yaml").read_text())


def test_run_id_round_trip():
    params = dict(profile="G0", tenants=10, resources=5, seed=1, method="edrf-event",
                  epsilon=1e-05, deadline="0.5", dtype="float64", isa="avx2", cores="all", tpc=2)
    rid = pipeline.run_id(params)
    assert pipeline.parse_run_id(rid) == params
    with pytest.raises(ValueError, match="parameters"):
        pipeline.parse_run_id("profile~G0_method~edrf")


def test_grid_skips_variants_the_cpu_cannot_run():
    config = load("smoke")
    runs = pipeline.grid(config, ["scalar", "generic", "avx2"])
    isas = {pipeline.parse_run_id(r)["isa"] for r in runs["configs"]}
    assert isas == {"scalar", "generic", "avx2"}
    assert pipeline.skipped_isas(config, ["scalar", "generic", "avx2"]) == ["avx512"]
    c = config["configs"]
    assert len(runs["configs"]) == len(c["dtypes"]) * 3 * len(c["cores"]) * len(c["threads_per_core"])
    # edrf is timed within its budget; dcdrf once per epsilon
    edrf = [pipeline.parse_run_id(r) for r in runs["profiles"] if "method~edrf_" in r]
    assert edrf and all(p["deadline"] == str(config["profiles"]["budget"]) for p in edrf)


def test_oversubscription_without_smt():
    env = pipeline.omp_environment("all", 2, smt=False)
    assert env["OMP_PLACES"] == "cores" and int(env["OMP_NUM_THREADS"]) % 2 == 0


@pytest.mark.parametrize("profile", PROFILES)
def test_dry_run_builds_each_profile(tmp_path, profile):
    code, out = snakemake(tmp_path, "--configfile", str(ROOT / f"workflows/config/{profile}.yaml"), "--dry-run")
    assert code == 0, out[-3000:]
    assert "measure" in out and "baseline" in out and "gather" in out


@pytest.mark.parametrize("key,value", [("repeats", 0), ("baseline", "magic"), ("colour", "red")])
def test_schema_rejects_bad_config_naming_the_key(tmp_path, key, value):
    config = load("smoke")
    config[key] = value
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    code, out = snakemake(tmp_path, "--configfile", str(bad), "--dry-run")
    assert code != 0 and "Error validating config" in out and key in out


def test_schema_rejects_unknown_variant(tmp_path):
    config = load("smoke")
    config["configs"]["isas"] = ["avx1024"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    code, out = snakemake(tmp_path, "--configfile", str(bad), "--dry-run")
    assert code != 0 and "isas" in out


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """The smoke config shrunk to a few runs per family, run for real."""
    workdir = tmp_path_factory.mktemp("pipeline")
    config = load("smoke")
    config["configs"].update(tenants=600, resources=60, dtypes=["float32"], isas=["generic", "scalar"], cores=["all"])
    config["profiles"].update(profiles=["G0", "U2"], tenants=600, resources=60, epsilons=[1e-2], budget=1e-5)
    config["deadlines"].update(tenants=600, resources=60, deadlines=[1e-3], epsilons=[1e-2])
    config["scaling"].update(ratios=[2], resources=[20, 40, 80])
    path = workdir / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    code, out = snakemake(workdir, "--configfile", str(path))
    assert code == 0, out[-3000:]
    return workdir, path


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_tiny_pipeline_writes_every_family(tiny_run):
    workdir, _ = tiny_run
    results = workdir / "results/smoke"
    for family in pipeline.FAMILIES:
        got = rows(results / f"{family}.csv")
        assert got and all(r["family"] == family for r in got)
        assert {r["repeat"] for r in got} == {"0", "1", "2"}
        for r in got:   # provenance on every row
            assert r["git_commit"] and r["cpu_model"] and r["isa_variant"] and r["timestamp"]
            assert r["omp_num_threads"] == r["threads_run"]
    configs = rows(results / "configs.csv")
    assert {r["isa_variant"] for r in configs} == {"generic", "scalar"}
    assert {r["oversubscribed"] for r in configs if r["tpc"] == "2"} == {"True"}  # no SMT here
    exact = [r for r in rows(results / "deadlines.csv") if r["method"] == "pedrf" and r["timed_out"] == "False"]
    assert all(float(r["fairness"]) < 1e-6 for r in exact)
    for table in ("epsilon_vs_deadline", "adaptation"):   # DC-DRF's outer loop, Figures 10, 11
        got = rows(results / f"controller/{table}.csv")
        assert got and all(0 <= float(r["epsilon"]) < 1 for r in got)
    assert len(rows(results / "controller/adaptation.csv")) == 80 * len(load("smoke")["controller"]["threads"])
    extrapolated = rows(results / "edrf_extrapolated.csv")
    assert {r["profile"] for r in extrapolated} == {"G0", "U2"}, "edrf past its budget is extrapolated"
    assert all(float(r["elapsed"]) > 0 and r["extrapolated"] == "True" for r in extrapolated)


def job_counts(out):
    """{rule: count} from Snakemake's job stats table."""
    return {w[0]: int(w[1]) for w in map(str.split, out.splitlines())
            if len(w) == 2 and w[1].isdigit() and not w[0].endswith(":")}


def test_rerun_does_nothing_and_a_deleted_file_reruns_only_its_dependents(tiny_run):
    workdir, config = tiny_run
    code, out = snakemake(workdir, "--configfile", str(config), "--dry-run")
    assert code == 0 and "Nothing to be done" in out
    (workdir / "results/smoke/deadlines.csv").unlink()
    code, out = snakemake(workdir, "--configfile", str(config), "--dry-run")
    assert code == 0 and job_counts(out) == {"gather": 1, "all": 1, "total": 2}
    (workdir / "results/smoke/profiles.csv").unlink()
    code, out = snakemake(workdir, "--configfile", str(config), "--dry-run")
    assert code == 0 and job_counts(out) == {"gather": 2, "extrapolate": 1, "all": 1, "total": 4}


def test_a_config_is_not_merged_with_the_smoke_profile(tmp_path):
    config = load("smoke")
    del config["scaling"], config["deadlines"], config["configs"]
    path = tmp_path / "profiles_only.yaml"
    path.write_text(yaml.safe_dump(config))
    code, out = snakemake(tmp_path, "--configfile", str(path), "--dry-run")
    assert code == 0 and "extended by additional config" not in out
    assert "results/smoke/profiles.csv" in out and "results/smoke/configs.csv" not in out
