# DC-DRF family: the paper's configuration sweeps (sections 4.4-4.8 and 5), one job per
# configuration, each a timing run that has the machine to itself, gathered into one tidy
# CSV per sweep family:
#   configs    precision x vector width x cores x threads per core (Figures 5 left, 6)
#   profiles   demand profiles, EDRF within a budget and DC-DRF at several epsilon (3 left, 7)
#   deadlines  DC-DRF, sDC-DRF, pEDRF, pEDRF-1 against the deadline (Figures 8, 9)
#   scaling    EDRF runtime against scale, several tenant:resource ratios (Figure 3 right)
# A kernel variant the executing CPU cannot run is skipped by its job (a row saying so).

RUNS = sweeps.grid(config)
EXTRAPOLATED = {"scaling", "profiles"} <= set(RUNS)   # Algorithm 1's time past its budget
TARGETS += expand("results/{name}/{family}.csv", name=NAME, family=list(RUNS))
TARGETS += expand("results/{name}/edrf_extrapolated.csv", name=NAME) if EXTRAPOLATED else []


wildcard_constraints:
    family="|".join(sweeps.FAMILIES),


rule measure:
    input:
        workload=lambda w: f"results/{w.name}/workloads/{sweeps.workload_of_run(w.run)}.npz",
        baseline=lambda w: f"results/{w.name}/baselines/{sweeps.workload_of_run(w.run)}.npz",
    output:
        "results/{name}/runs/{family}/{run}.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/runs/{family}/{run}.log",
    params:
        python=PYTHON,
        repeats=config["repeats"],
    threads: workflow.cores  # timing runs alone; the run sets OMP_* from its own parameters
    shell:
        "{params.python} -m drfbench.dcdrf.sweeps run --family {wildcards.family} "
        "--run {wildcards.run} --workload-file {input.workload} "
        "--baseline-file {input.baseline} --repeats {params.repeats} --out {output} --log {log}"


rule gather:
    input:
        lambda w: expand("results/{name}/runs/{family}/{run}.csv", name=w.name,
                         family=w.family, run=RUNS[w.family]),
    output:
        report("results/{name}/{family}.csv", category="results"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/gather/{family}.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.rows gather --out {output} {input} > {log} 2>&1"


rule extrapolate:
    input:
        scaling="results/{name}/scaling.csv",
        profiles="results/{name}/profiles.csv",
    output:
        report("results/{name}/edrf_extrapolated.csv", category="results"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/extrapolate.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.dcdrf.sweeps extrapolate --scaling {input.scaling} "
        "--profiles {input.profiles} --out {output} > {log} 2>&1"


# The family's notebooks (run by workflows/figures.smk): the results files each reads
# (relative to the results directory), the figures it writes, the data files it reads.
NOTEBOOKS["dcdrf_fig02_azure_activity"] = dict(
    results=[], figures=["dcdrf_fig02_azure_activity.png", "dcdrf_fig02_azure_activity.pdf"],
    data=["azure/azure_v1_vm_cpu_max_5min_100vms.csv.gz",
          "azure/azure_v1_vm_cpu_avg_5min_100vms.csv.gz"])
if EXTRAPOLATED:
    NOTEBOOKS["dcdrf_fig03_edrf_runtime"] = dict(
        results=["profiles.csv", "scaling.csv", "edrf_extrapolated.csv"],
        figures=["dcdrf_fig03_edrf_runtime.png", "dcdrf_fig03_edrf_runtime.pdf"])
if "configs" in RUNS:
    NOTEBOOKS["dcdrf_fig05_06_configurations"] = dict(
        results=["configs.csv"],
        figures=["dcdrf_fig05_thread_scaling.png", "dcdrf_fig05_thread_scaling.pdf",
                 "dcdrf_fig06_configurations.png", "dcdrf_fig06_configurations.pdf"])
if "profiles" in RUNS:
    NOTEBOOKS["dcdrf_fig07_profiles"] = dict(
        results=["profiles.csv"], figures=["dcdrf_fig07_profiles.png", "dcdrf_fig07_profiles.pdf"])
    NOTEBOOKS["dcdrf_edrf_event"] = dict(
        results=["profiles.csv"], figures=["dcdrf_edrf_event.png", "dcdrf_edrf_event.pdf"])
if "deadlines" in RUNS:
    NOTEBOOKS["dcdrf_fig08_09_deadlines"] = dict(
        results=["deadlines.csv"],
        figures=["dcdrf_fig08_utilization.png", "dcdrf_fig08_utilization.pdf",
                 "dcdrf_fig09_fairness.png", "dcdrf_fig09_fairness.pdf"])
