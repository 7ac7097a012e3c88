"""The Snakemake pipeline: grids and run ids, the schema, each profile's DAG, and a real
run on tiny inputs that is idempotent and reruns only what a deleted file needs."""
import csv
import os
import subprocess
import sys

import pytest
import yaml

import drfbench
from drfbench import _isa, _machine, pipeline
from drfbench.dcdrf import sweeps
from cases import NOTEBOOK_RULES, few_instances
from conftest import ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--cores", "2"]
PROFILES = ("smoke", "default", "paper")


def snakemake(workdir, *extra):
    proc = subprocess.run(SNAKEMAKE + ["--directory", str(workdir), *extra], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


SCHEMAS = ROOT / "workflows/schemas"


def load(profile):
    """A profile as the workflow reads it: its file, with every family's defaults."""
    raw = yaml.safe_load((ROOT / f"workflows/config/{profile}.yaml").read_text())
    return pipeline.with_defaults(raw, pipeline.schema(SCHEMAS))


def test_run_id_round_trip():
    params = dict(demand_profile="G0", tenants=10, resources=5, seed=1, method="edrf-event",
                  epsilon=1e-05, deadline="0.5", dtype="float64", isa="avx2", cores="all", tpc=2)
    rid = sweeps.run_id(params)
    assert sweeps.parse_run_id(rid) == params
    with pytest.raises(ValueError, match="parameters"):
        sweeps.parse_run_id("demand_profile~G0+method~edrf")


def test_grid_names_every_variant_and_asks_the_registry():
    """The grid does not depend on the CPU of the machine reading the workflow: every
    configured variant is in it (a job skips one its CPU cannot run)."""
    config = load("smoke")
    runs = sweeps.grid(config)
    c = config["dcdrf"]["configs"]
    assert {sweeps.parse_run_id(r)["isa"] for r in runs["configs"]} == set(c["isas"])
    assert len(runs["configs"]) == len(c["dtypes"]) * len(c["isas"]) * len(c["cores"]) * len(c["threads_per_core"])
    # the conventional method (edrf) is timed within its budget; dcdrf once per epsilon
    profiles = [sweeps.parse_run_id(r) for r in runs["demands"]]
    edrf = [p for p in profiles if p["method"] == "edrf"]
    assert edrf and all(p["deadline"] == str(config["dcdrf"]["demands"]["budget"]) for p in edrf)
    eps = {p["epsilon"] for p in profiles if p["method"] == "dcdrf"}
    assert eps == set(config["dcdrf"]["demands"]["epsilons"]["dcdrf"])
    assert {p["epsilon"] for p in profiles if p["method"] == "edrf-event"} == {0.0}


def test_the_snakefile_decides_nothing_from_the_cpu():
    text = (ROOT / "Snakefile").read_text() + "".join(
        p.read_text() for p in (ROOT / "workflows").rglob("*.smk"))
    assert "_isa" not in text and "cpu_info" not in text and "runnable" not in text


def test_oversubscription_without_smt():
    env = _machine.omp_environment("all", 2, smt=False)
    cores = int(env["OMP_NUM_THREADS"]) // 2
    assert env["OMP_PLACES"] == f"cores({cores})" and int(env["OMP_NUM_THREADS"]) % 2 == 0
    # one core at 2 threads per core: both threads on that core, with or without SMT
    assert _machine.omp_environment(1, 2, smt=False) == {
        "OMP_NUM_THREADS": "2", "OMP_PLACES": "cores(1)", "OMP_PROC_BIND": "close",
        "OMP_WAIT_POLICY": "passive"}
    assert "OMP_WAIT_POLICY" not in _machine.omp_environment("all", 1, smt=False)
    assert _machine.omp_environment(1, 2, smt=True)["OMP_PLACES"] == "threads(2)"


def test_importing_drfbench_loads_no_openmp_runtime():
    """The measuring job sets OMP_* itself before the kernels load OpenMP (which reads its
    environment once): so importing the package and the pipeline steps must not load it."""
    code = ("import drfbench, drfbench.dcdrf.sweeps, drfbench.dcdrf.controller, drfbench.drf, "
            "drfbench.properties, drfbench.drf.properties, drfbench.hdrf.properties, "
            "drfbench.drfh.properties, drfbench.dcdrf.bench, drfbench.dcdrf.workloads, "
            "drfbench.pipeline\n"
            "from drfbench import _machine\n"
            "assert not _machine.openmp_loaded()\n"
            "drfbench.allocate([[0.5]], 'dcdrf')\n"
            "assert _machine.openmp_loaded()\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_threads_are_decided_once(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert _machine.resolve_threads() == 3 and _machine.resolve_threads(5) == 5
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert _machine.resolve_threads() == _machine.usable_cpus()
    monkeypatch.setenv("OMP_NUM_THREADS", "zero")
    with pytest.raises(ValueError, match="OMP_NUM_THREADS"):
        _machine.resolve_threads()


def make_workload(tmp_path):
    wl = tmp_path / "W.npz"
    base = tmp_path / "B.npz"
    sweeps.main(["workload", "--workload", "G0-300x40-s0", "--out", str(wl)])
    sweeps.main(["baseline", "--workload-file", str(wl), "--method", "edrf-event", "--out", str(base)])
    return wl, base


def run_step(tmp_path, run, wl, base, name="rows.csv"):
    """The rows of `run` (a run id, or a batch of them) measured by the step, from the
    workload files `wl` and their baselines `base` (a file or a list)."""
    out = tmp_path / name
    code = ("import sys; from drfbench.dcdrf import sweeps; sweeps.main(sys.argv[1:])")
    listed = lambda x: [str(f) for f in (x if isinstance(x, list) else [x])]
    proc = subprocess.run([sys.executable, "-c", code, "run", "--sweep", "configs", "--run",
                           *([run] if isinstance(run, str) else run),
                           "--workload-file", *listed(wl), "--baseline-file", *listed(base),
                           "--repeats", "2", "--out", str(out)], capture_output=True, text=True,
                          env={**os.environ, "OMP_NUM_THREADS": "7"})
    assert proc.returncode == 0, proc.stderr
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def test_a_run_sets_its_openmp_environment_itself(tmp_path):
    """No re-exec: the step sets OMP_* from its cores and threads per core before the
    kernels load, whatever the job's environment said (Snakemake sets OMP_NUM_THREADS)."""
    wl, base = make_workload(tmp_path)
    run = sweeps.run_id(dict(demand_profile="G0", tenants=300, resources=40, seed=0, method="dcdrf",
                             epsilon=1e-3, cores=1, tpc=2))
    got = run_step(tmp_path, run, wl, base)
    assert len(got) == 2 and all(r["skipped"] == "" for r in got)
    assert {(r["omp_num_threads"], r["omp_places"], r["threads_run"], r["threads"]) for r in got} == {
        ("2", "cores(1)" if not _machine.cpu_info()[2] else "threads(2)", "2", "2")}
    assert {r["omp_wait_policy"] for r in got} == {"passive"}   # two threads per core


TIMINGS = ("elapsed", "timestamp")   # what differs between two measurements of a run


def test_a_batch_is_its_runs_measured_one_by_one_in_order(tmp_path):
    """A batch of runs of two OpenMP environments (a child process each) and two
    workloads (each file found by its name) writes the rows its runs write alone, in the
    batch's order, each measured under its own environment."""
    folder = tmp_path / "inputs"
    folder.mkdir()
    for profile in ("G0", "U1"):
        for step in (["workload", "--workload", f"{profile}-300x40-s0", "--out", str(folder / f"{profile}-300x40-s0.npz")],
                     ["baseline", "--workload-file", str(folder / f"{profile}-300x40-s0.npz"),
                      "--method", "edrf-event", "--out", str(folder / f"base/{profile}-300x40-s0.npz")]):
            sweeps.main(step)
    wl = sorted(folder.glob("*.npz"))
    base = sorted(folder.glob("base/*.npz"))
    one = dict(demand_profile="G0", tenants=300, resources=40, seed=0, method="dcdrf", epsilon=1e-3, cores=1)
    batch = [sweeps.run_id({**one, **change}) for change in (
        {}, {"tpc": 2}, {"demand_profile": "U1"}, {"isa": "generic", "tpc": 2}, {"method": "edrf-event"})]
    together = run_step(tmp_path, batch, wl, base, "batch.csv")
    alone = [row for i, run in enumerate(batch) for row in run_step(
        tmp_path, run, wl[1] if "U1" in run else wl[0], base[1] if "U1" in run else base[0], f"{i}.csv")]
    assert [r["run"] for r in together] == [run for run in batch for _ in range(2)]
    assert list(together[0]) == list(alone[0])
    assert [{k: v for k, v in r.items() if k not in TIMINGS} for r in together] == \
           [{k: v for k, v in r.items() if k not in TIMINGS} for r in alone]
    assert [r["omp_wait_policy"] == "passive" for r in together] == [r["tpc"] == "2" for r in together]


def test_a_batch_missing_a_workload_file_is_refused_before_any_run(tmp_path):
    wl, base = make_workload(tmp_path)
    run = sweeps.run_id(dict(demand_profile="G0", tenants=300, resources=40, seed=0, method="dcdrf"))
    other = run.replace("G0", "U1")
    proc = subprocess.run([sys.executable, "-m", "drfbench.dcdrf", "run", "--sweep", "configs",
                           "--run", run, other, "--workload-file", str(wl), "--baseline-file", str(base),
                           "--out", str(tmp_path / "rows.csv"), "--log", str(tmp_path / "log")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "--workload-file: none of the 1 file(s) given is G0-300x40-s0.npz" in proc.stderr
    assert not (tmp_path / "rows.csv").exists() and not (tmp_path / "log").exists()


def test_a_variant_the_cpu_cannot_run_is_skipped_by_its_job(tmp_path, monkeypatch):
    """The job, not the workflow, finds that its CPU cannot run a variant: it writes one
    row saying so, and the run succeeds."""
    wl, base = make_workload(tmp_path)
    monkeypatch.setattr(_isa, "cpu_flags", lambda: frozenset())      # a CPU with no AVX at all
    monkeypatch.setattr(sweeps, "openmp_loaded", lambda: False)      # kernels loaded in-process
    out = tmp_path / "skip.csv"
    run = sweeps.run_id(dict(demand_profile="G0", tenants=300, resources=40, seed=0, method="dcdrf",
                             isa="avx2"))
    monkeypatch.setattr(os, "environ", dict(os.environ))            # the step sets OMP_*
    sweeps.main(["run", "--sweep", "configs", "--run", run, "--workload-file", str(wl),
                 "--baseline-file", str(base), "--out", str(out)])
    with open(out, newline="") as f:
        (row,) = csv.DictReader(f)
    assert "avx2" in row["skipped"] and "needs CPU features" in row["skipped"]
    assert row["isa"] == row["isa_variant"] == "avx2" and row["git_commit"]


@pytest.mark.parametrize("profile", PROFILES)
def test_dry_run_builds_each_profile(tmp_path, profile):
    code, out = snakemake(tmp_path, "--configfile", str(ROOT / f"workflows/config/{profile}.yaml"), "--dry-run")
    assert code == 0, out[-3000:]
    assert "measure" in out and "baseline" in out and "gather" in out
    # a run of a kernel variant waits for its build; the default variant needs none
    counts = job_counts(out)
    assert counts["kernel_variant"] == 4, counts     # scalar, generic, avx2, avx512
    # a measuring job per batch of runs_per_job runs of a sweep (the smoke: a sweep each)
    config = load(profile)
    size = config["dcdrf"]["runs_per_job"]
    assert counts["measure"] == sum(len(sweeps.batches(runs, size)) for runs in sweeps.grid(config).values())
    assert counts["measure"] == (len(sweeps.SWEEPS) if profile == "smoke" else len(
        [run for runs in sweeps.grid(config).values() for run in runs]))


def test_batches_keep_the_grid_order():
    runs = [f"r{i}" for i in range(7)]
    assert sweeps.batches(runs, 3) == {"r0": ["r0", "r1", "r2"], "r3": ["r3", "r4", "r5"], "r6": ["r6"]}
    assert sweeps.batches(runs, "all") == {"r0": runs} and sweeps.batches(runs, 1) == {r: [r] for r in runs}
    run = sweeps.run_id(dict(demand_profile="G0", tenants=10, resources=5, seed=0, method="dcdrf", isa="avx2"))
    other = run.replace("G0", "U1").replace("isa~avx2", "isa~default")
    assert sweeps.batch_inputs("smoke", [run, other, run]) == {
        "workload": ["results/smoke/dcdrf/workloads/G0-10x5-s0.npz", "results/smoke/dcdrf/workloads/U1-10x5-s0.npz"],
        "baseline": ["results/smoke/dcdrf/baselines/G0-10x5-s0.npz", "results/smoke/dcdrf/baselines/U1-10x5-s0.npz"],
        "variant": ["results/smoke/dcdrf/variants/avx2.built"]}


def test_a_run_of_a_variant_needs_it_built():
    run = sweeps.run_id(dict(demand_profile="G0", tenants=10, resources=5, seed=0,
                             method="dcdrf", isa="scalar"))
    assert sweeps.variant_marker("smoke", run) == ["results/smoke/dcdrf/variants/scalar.built"]
    assert sweeps.variant_marker("smoke", run.replace("isa~scalar", "isa~default")) == []


@pytest.mark.parametrize("key,value", [("repeats", 0), ("dcdrf", {"baseline": "magic"}),
                                       ("colour", "red")])
def test_schema_rejects_bad_config_naming_the_key(tmp_path, key, value):
    config = load("smoke")
    config[key] = value
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    code, out = snakemake(tmp_path, "--configfile", str(bad), "--dry-run")
    assert code != 0 and "Error validating config" in out and key in out


def test_schema_settings_of_options_come_from_their_declarations(tmp_path):
    """`x-option` is the catalog's declaration (a pipeline default of its own kept),
    `x-methods` the registry's names; a name the family does not declare is an error
    naming the file."""
    from drfbench.drfh.catalog import SLOT_MODEL
    from drfbench.drfq.catalog import PACKET_COST
    merged = pipeline.schema(SCHEMAS)["properties"]
    sim = merged["drfh"]["properties"]["sim"]["properties"]
    assert sim["slot_model"] == pipeline.option_schema(SLOT_MODEL) == {
        "type": "string", "description": SLOT_MODEL.description,
        "enum": ["timeshare", "capped"], "default": "timeshare"}
    assert sim["horizon"]["default"] == 3600 and sim["horizon"]["minimum"] == 0
    drfq = merged["drfq"]["properties"]
    assert drfq["packet_costs"]["enum"] == list(PACKET_COST.choices)
    assert drfq["rtt"]["exclusiveMinimum"] == 0 and drfq["rtt"]["maximum"] == 1e9
    assert drfq["methods"]["items"]["enum"] == list(drfbench.methods(takes="flows"))
    for name in ("config.schema.yaml", "drfq.schema.yaml"):
        (tmp_path / name).write_text((SCHEMAS / name).read_text())
    (tmp_path / "drfq.schema.yaml").write_text((SCHEMAS / "drfq.schema.yaml").read_text()
                                               .replace("x-option: rtt", "x-option: rtts"))
    with pytest.raises(ValueError, match="drfq.schema.yaml: x-option 'rtts': family 'drfq' declares no"):
        pipeline.schema(tmp_path)
    (tmp_path / "drfq.schema.yaml").write_text((SCHEMAS / "drfq.schema.yaml").read_text()
                                               .replace("takes: flows", "takes: flow"))
    with pytest.raises(ValueError, match="drfq.schema.yaml: x-methods {'takes': 'flow'}: no registered"):
        pipeline.schema(tmp_path)


def test_schema_rejects_unknown_variant(tmp_path):
    config = load("smoke")
    config["dcdrf"]["configs"]["isas"] = ["avx1024"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    code, out = snakemake(tmp_path, "--configfile", str(bad), "--dry-run")
    assert code != 0 and "isas" in out


FAMILY_FOLDERS = ("drf", "hdrf", "drfh", "packer")   # the other families' under results/smoke


@pytest.fixture(scope="module")
def tiny_rows(tmp_path_factory):
    """The smoke config shrunk to a few runs per family, run for real up to every family's
    rows (the notebooks left out: the slow tests run them)."""
    workdir = tmp_path_factory.mktemp("pipeline")
    config = load("smoke")
    dcdrf = config["dcdrf"]
    # the variants the default build has (generic and the widest this CPU runs)
    dcdrf["configs"].update(tenants=600, resources=60, dtypes=["float32"],
                            isas=sorted({"generic", _isa.resolve()}), cores=["all"])
    dcdrf["demands"].update(demand_profiles=["G0", "U2"], tenants=600, resources=60,
                            epsilons={"dcdrf": [1e-2]}, budget=1e-5)
    dcdrf["deadlines"].update(tenants=600, resources=60, deadlines=[1e-3],
                              epsilons={"dcdrf": [1e-2], "sdcdrf": [1e-2]})
    dcdrf["scaling"].update(ratios=[2], resources=[20, 40, 80])
    path = workdir / "tiny.yaml"
    path.write_text(yaml.safe_dump(few_instances(config)))
    code, out = snakemake(workdir, "--configfile", str(path), "--omit-from", *NOTEBOOK_RULES)
    assert code == 0, out[-3000:]
    return workdir, path


@pytest.fixture(scope="module")
def tiny_run(tiny_rows):
    """The tiny pipeline run whole: its notebooks too, on those rows."""
    workdir, path = tiny_rows
    code, out = snakemake(workdir, "--configfile", str(path))
    assert code == 0, out[-3000:] + notebook_logs(workdir)
    return workdir, path


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_tiny_pipeline_writes_every_family(tiny_rows):
    workdir, config = tiny_rows
    results = workdir / "results/smoke/dcdrf"
    for sweep in sweeps.SWEEPS:
        got = rows(results / f"{sweep}.csv")
        assert got and all(r["sweep"] == sweep for r in got)
        assert {r["repeat"] for r in got} == {"0", "1", "2"}
        for r in got:   # provenance on every row
            assert r["git_commit"] and r["cpu_model"] and r["isa_variant"] and r["timestamp"]
            assert r["omp_num_threads"] == r["threads_run"]
    configs = rows(results / "configs.csv")
    assert {r["isa_variant"] for r in configs} == set(yaml.safe_load(config.read_text())["dcdrf"]["configs"]["isas"])
    assert {r["oversubscribed"] for r in configs if r["tpc"] == "2"} == {"True"}  # no SMT here
    exact = [r for r in rows(results / "deadlines.csv") if r["method"] == "pedrf" and r["timed_out"] == "False"]
    assert all(float(r["fairness"]) < 1e-6 for r in exact)
    for table in ("epsilon_vs_deadline_dcdrf", "epsilon_vs_deadline_sdcdrf", "adaptation"):
        got = rows(results / f"controller/{table}.csv")   # DC-DRF's outer loop, Figures 10, 11
        assert got and all(0 <= float(r["epsilon"]) < 1 for r in got)
    assert len(rows(results / "controller/adaptation.csv")) == 80 * len(load("smoke")["dcdrf"]["controller"]["threads"])
    extrapolated = rows(results / "edrf_extrapolated.csv")
    assert {r["demand_profile"] for r in extrapolated} == {"G0", "U2"}, "edrf past its budget is extrapolated"
    assert all(float(r["elapsed"]) > 0 and r["extrapolated"] == "True" for r in extrapolated)
    for folder in FAMILY_FOLDERS:   # every other family's tables, each with rows
        tables = sorted((results.parent / folder).glob("*.csv"))
        assert tables and all(rows(t) for t in tables), folder
    code, out = snakemake(workdir, "--configfile", str(config), "--omit-from", *NOTEBOOK_RULES, "--dry-run")
    assert code == 0 and "Nothing to be done" in out, "every result but the figures was made"


def job_counts(out):
    """{rule: count} from Snakemake's job stats table."""
    return {w[0]: int(w[1]) for w in map(str.split, out.splitlines())
            if len(w) == 2 and w[1].isdigit() and not w[0].endswith(":")}


@pytest.mark.slow
def test_rerun_does_nothing_and_a_deleted_file_reruns_only_its_dependents(tiny_run):
    workdir, config = tiny_run
    code, out = snakemake(workdir, "--configfile", str(config), "--dry-run")
    assert code == 0 and "Nothing to be done" in out
    (workdir / "results/smoke/dcdrf/deadlines.csv").unlink()
    code, out = snakemake(workdir, "--configfile", str(config), "--dry-run")
    assert code == 0 and job_counts(out) == {"gather": 1, "notebooks_dcdrf": 1, "all": 1, "total": 3}
    (workdir / "results/smoke/dcdrf/demands.csv").unlink()
    code, out = snakemake(workdir, "--configfile", str(config), "--dry-run")
    assert code == 0 and job_counts(out) == {"gather": 2, "extrapolate": 1, "notebooks_dcdrf": 1,
                                             "all": 1, "total": 5}


FIGURE_STEMS = ("dcdrf_fig02_azure_activity", "dcdrf_fig03_edrf_runtime", "dcdrf_fig05_thread_scaling",
                "dcdrf_fig06_configurations", "dcdrf_fig07_profiles", "dcdrf_fig08_utilization", "dcdrf_fig09_fairness",
                "dcdrf_fig10_epsilon", "dcdrf_fig11_adaptation", "dcdrf_edrf_event", "drf_properties",
                "drf_vs_slots")


@pytest.mark.slow
def test_every_notebook_draws_its_figures(tiny_run):
    workdir, _ = tiny_run
    figures = workdir / "results/smoke/figures"
    for stem in FIGURE_STEMS:
        for ext in ("png", "pdf"):
            assert (figures / f"{stem}.{ext}").stat().st_size > 1000, f"{stem}.{ext}"
    executed = sorted(p.stem for p in (workdir / "results/smoke/notebooks").glob("*.ipynb"))
    assert executed == sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))


def notebook_logs(workdir):
    """The notebooks' logs (papermill's output), to show why a notebook failed."""
    return "".join(f"\n--- {log.name}\n{log.read_text()[-2000:]}"
                   for log in sorted((workdir / "results/smoke/logs/notebooks").glob("*.log")))


@pytest.mark.slow
def test_figures_redrawn_from_reference_results_without_sweeps(tiny_run, tmp_path):
    """`--config figures_from=DIR` runs only the notebooks, on the CSVs in DIR."""
    workdir, config = tiny_run
    code, out = snakemake(workdir, "--configfile", str(config))  # restore what other tests deleted
    assert code == 0, out[-3000:] + notebook_logs(workdir)
    reference = tmp_path / "reference"
    for csv_file in (workdir / "results/smoke").rglob("*.csv"):
        relative = csv_file.relative_to(workdir / "results/smoke")
        if "runs" not in relative.parts:
            (reference / relative).parent.mkdir(parents=True, exist_ok=True)
            (reference / relative).write_bytes(csv_file.read_bytes())
    code, out = snakemake(tmp_path, "--configfile", str(config), "--config",
                          f"figures_from={reference}", "--", "figures")
    assert code == 0, out[-3000:] + notebook_logs(tmp_path)
    counts = job_counts(out)
    assert set(counts) - {"figures", "total"} == set(NOTEBOOK_RULES)
    for stem in FIGURE_STEMS:
        assert (tmp_path / f"results/smoke/figures/{stem}.png").stat().st_size > 1000


def test_a_config_file_gets_the_defaults_not_the_smoke_profile(tmp_path):
    """What a config file leaves out takes the family's default (the default profile's
    scale), never the smoke profile's."""
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump({"name": "mine", "drf": {"instances": 7}}))
    code, out = snakemake(tmp_path, "--configfile", str(path), "--dry-run", "--printshellcmds")
    assert code == 0 and "extended by additional config" not in out, out[-3000:]
    commands = out.replace("\n", " ")
    assert "results/mine/dcdrf/workloads/U1-100000x10000-s0.npz" in out
    assert "-m drfbench.drf" in commands and "--instances 7" in commands
    assert "-m drfbench.hdrf properties" in commands and "--instances 200" in commands
    assert "--instances 30" not in commands


def test_profiles_say_only_scale():
    """Every family's settings and defaults are in its own schema fragment: the default
    profile sets nothing but its name, and every key a profile sets has a default there."""
    assert yaml.safe_load((ROOT / "workflows/config/default.yaml").read_text()) == {"name": "default"}
    schema = pipeline.schema(SCHEMAS)

    def undefaulted(config, part, path=""):
        for key, value in config.items():
            sub = part.get("properties", {}).get(key, {})
            if isinstance(value, dict) and "properties" in sub:
                yield from undefaulted(value, sub, f"{path}{key}.")
            elif "default" not in sub and key != "name":
                yield path + key
    for profile in PROFILES:
        raw = yaml.safe_load((ROOT / f"workflows/config/{profile}.yaml").read_text())
        assert list(undefaulted(raw, schema)) == [], profile
        assert pipeline.config_errors(load(profile), SCHEMAS) == [], profile


def test_lint_is_clean(tmp_path):
    code, out = snakemake(tmp_path, "--lint")
    assert code == 0 and "Congratulations, your workflow is in a good condition!" in out, out[-3000:]


def test_config_overrides_merge_onto_the_smoke_profile(tmp_path):
    code, out = snakemake(tmp_path, "--config", "repeats=1", "--dry-run", "--printshellcmds")
    assert code == 0, out[-3000:]
    assert "results/smoke/dcdrf/configs.csv" in out and "--repeats 1" in out.replace("\n", " ")


def test_a_bad_override_gets_one_line_naming_the_key(tmp_path):
    code, out = snakemake(tmp_path, "--config", "bogus_key=1", "--dry-run")
    assert code != 0
    message = [line for line in out.splitlines() if "Error validating config" in line]
    assert message == ["Error validating config: config: Additional properties are not allowed "
                       "('bogus_key' was unexpected)"]
    assert "required property" not in out and len(out.splitlines()) < 15, out


@pytest.mark.slow
def test_results_files_get_one_mode(tiny_rows):
    """Every file the pipeline writes has the mode new files get (the controller's were
    0600: temporary files renamed without their mode)."""
    workdir, _ = tiny_rows
    modes = {p.relative_to(workdir): oct(p.stat().st_mode & 0o777)
             for p in (workdir / "results/smoke").rglob("*.csv")}
    assert len(set(modes.values())) == 1, modes


@pytest.mark.slow
def test_captions_say_what_they_count(tiny_run):
    workdir, config = tiny_run
    text = (workdir / "results/smoke/figures/drf_properties.md").read_text()
    instances = yaml.safe_load(config.read_text())["drf"]["instances"]
    assert f"{instances} random instances per check, plus the lecture's 2 examples" in text
    assert "None" not in text and "drfbench 0." in text


def test_a_seed_offset_runs_every_seed_afresh_under_its_own_name():
    config = {**load("default"), "seed_offset": 1000}
    fresh = pipeline.offset_seeds(config)
    assert fresh["name"] == "default-seeds1000" and fresh["seed"] == config["seed"] + 1000
    assert fresh["packer"]["seeds"] == [s + 1000 for s in config["packer"]["seeds"]]
    assert fresh["drfh"]["sensitivity"]["seeds"] == [
        s + 1000 for s in config["drfh"]["sensitivity"]["seeds"]]
    assert fresh["packer"]["servers"] == config["packer"]["servers"]
    assert pipeline.offset_seeds({**config, "seed_offset": 0}) == {**config, "seed_offset": 0}
