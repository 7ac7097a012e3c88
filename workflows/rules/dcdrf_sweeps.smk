# DC-DRF family: the paper's configuration sweeps (sections 4.4-4.8 and 5), one job per
# configuration, each a timing run that has the machine to itself, gathered into one tidy
# CSV per sweep (config key `dcdrf`, schema workflows/schemas/dcdrf.schema.yaml):
#   configs    precision x vector width x cores x threads per core (Figures 5 left, 6)
#   demands    demand profiles, EDRF within a budget and DC-DRF at several epsilon (3 left, 7)
#   deadlines  DC-DRF, sDC-DRF, pEDRF, pEDRF-1 against the deadline (Figures 8, 9)
#   scaling    EDRF runtime against scale, several tenant:resource ratios (Figure 3 right)
# A kernel variant the executing CPU cannot run is skipped by its job (a row saying so).
# A measuring job measures a batch of `dcdrf.runs_per_job` runs (one by default, so that a
# cluster spreads them over its nodes; the smoke profile measures a sweep in one job).

RUNS = sweeps.grid(config)
BATCHES = {sweep: sweeps.batches(runs, config["dcdrf"]["runs_per_job"]) for sweep, runs in RUNS.items()}
EXTRAPOLATED = {"scaling", "demands"} <= set(RUNS)   # Algorithm 1's time past its budget
TARGETS += expand("results/{name}/dcdrf/{sweep}.csv", name=NAME, sweep=list(RUNS))
TARGETS += expand("results/{name}/dcdrf/edrf_extrapolated.csv", name=NAME) if EXTRAPOLATED else []


wildcard_constraints:
    sweep="|".join(sweeps.SWEEPS),
    isa="scalar|generic|avx2|avx512",


# The install builds only the generic variant and the widest this CPU runs: a run of
# another variant first adds the family's kernels to it in the checkout (in seconds once
# built), unless the executing CPU cannot run it (its job then writes a skipped row).
rule kernel_variant:
    localrule: True  # builds into the checkout the workflow runs from
    output:
        "results/{name}/dcdrf/variants/{isa}.built",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/variants/{isa}.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.build_variants --skip-unsupported --family dcdrf "
        "{wildcards.isa} > {log} 2>&1 "
        "&& touch {output}"


rule measure:
    input:
        unpack(lambda w: sweeps.batch_inputs(w.name, BATCHES[w.sweep][w.batch])),
    output:
        "results/{name}/dcdrf/runs/{sweep}/{batch}.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/runs/{sweep}/{batch}.log",
    params:
        python=PYTHON,
        repeats=config["repeats"],
        runs=lambda w: " ".join(BATCHES[w.sweep][w.batch]),
    threads: workflow.cores  # timing runs alone; the run sets OMP_* from its own parameters
    shell:
        "{params.python} -m drfbench.dcdrf run --sweep {wildcards.sweep} "
        "--run {params.runs} --workload-file {input.workload} "
        "--baseline-file {input.baseline} --repeats {params.repeats} --out {output} --log {log}"


rule gather:
    input:
        lambda w: expand("results/{name}/dcdrf/runs/{sweep}/{batch}.csv", name=w.name,
                         sweep=w.sweep, batch=BATCHES[w.sweep]),
    output:
        report("results/{name}/dcdrf/{sweep}.csv", category="DC-DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/gather/{sweep}.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.rows gather --out {output} {input} > {log} 2>&1"


rule extrapolate:
    input:
        scaling="results/{name}/dcdrf/scaling.csv",
        demands="results/{name}/dcdrf/demands.csv",
    output:
        report("results/{name}/dcdrf/edrf_extrapolated.csv", category="DC-DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/extrapolate.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.dcdrf extrapolate --scaling {input.scaling} "
        "--demands {input.demands} --out {output} > {log} 2>&1"


# The family's notebooks (run by workflows/figures.smk): the results files each reads
# (relative to the results directory), the figures it writes, the data files it reads.
NOTEBOOKS["dcdrf_fig02_azure_activity"] = dict(
    results=[], figures=["dcdrf_fig02_azure_activity.png", "dcdrf_fig02_azure_activity.pdf"],
    data=["azure/azure_v1_vm_cpu_max_5min_100vms.csv.gz",
          "azure/azure_v1_vm_cpu_avg_5min_100vms.csv.gz"])
if EXTRAPOLATED:
    NOTEBOOKS["dcdrf_fig03_edrf_runtime"] = dict(
        results=["dcdrf/demands.csv", "dcdrf/scaling.csv", "dcdrf/edrf_extrapolated.csv"],
        figures=["dcdrf_fig03_edrf_runtime.png", "dcdrf_fig03_edrf_runtime.pdf"])
if "configs" in RUNS:
    NOTEBOOKS["dcdrf_fig05_06_configurations"] = dict(
        results=["dcdrf/configs.csv"],
        figures=["dcdrf_fig05_thread_scaling.png", "dcdrf_fig05_thread_scaling.pdf",
                 "dcdrf_fig06_configurations.png", "dcdrf_fig06_configurations.pdf"])
if "demands" in RUNS:
    NOTEBOOKS["dcdrf_fig07_profiles"] = dict(
        results=["dcdrf/demands.csv"], figures=["dcdrf_fig07_profiles.png", "dcdrf_fig07_profiles.pdf"])
    NOTEBOOKS["dcdrf_edrf_event"] = dict(
        results=["dcdrf/demands.csv"], figures=["dcdrf_edrf_event.png", "dcdrf_edrf_event.pdf"])
if "deadlines" in RUNS:
    NOTEBOOKS["dcdrf_fig08_09_deadlines"] = dict(
        results=["dcdrf/deadlines.csv"],
        figures=["dcdrf_fig08_utilization.png", "dcdrf_fig08_utilization.pdf",
                 "dcdrf_fig09_fairness.png", "dcdrf_fig09_fairness.pdf"])
