# The paper's configuration sweeps (sections 4.4-4.8 and 5): one job per configuration,
# each a timing run that has the machine to itself, gathered into one tidy CSV per family:
#   configs    precision x vector width x cores x threads per core (Figures 5 left, 6)
#   profiles   demand profiles, EDRF within a budget and DC-DRF at several epsilon (3 left, 7)
#   deadlines  DC-DRF, sDC-DRF, pEDRF, pEDRF-1 against the deadline (Figures 8, 9)
#   scaling    EDRF runtime against scale, several tenant:resource ratios (Figure 3 right)


rule measure:
    input:
        workload=lambda w: f"results/{w.name}/workloads/{pipeline.workload_of_run(w.run)}.npz",
        baseline=lambda w: f"results/{w.name}/baselines/{pipeline.workload_of_run(w.run)}.npz",
    output:
        "results/{name}/runs/{family}/{run}.csv",
    log:
        "results/{name}/logs/runs/{family}/{run}.log",
    params:
        python=PYTHON,
        repeats=config["repeats"],
    threads: workflow.cores  # timing runs alone; the run sets OMP_* from its own parameters
    shell:
        "{params.python} -m drfbench.pipeline run --family {wildcards.family} "
        "--run {wildcards.run} --workload-file {input.workload} "
        "--baseline-file {input.baseline} --repeats {params.repeats} --out {output} --log {log}"


rule gather:
    input:
        lambda w: expand("results/{name}/runs/{family}/{run}.csv", name=w.name,
                         family=w.family, run=RUNS[w.family]),
    output:
        report("results/{name}/{family}.csv", category="results"),
    log:
        "results/{name}/logs/gather/{family}.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.pipeline gather --out {output} {input} > {log} 2>&1"


rule extrapolate:
    input:
        scaling="results/{name}/scaling.csv",
        profiles="results/{name}/profiles.csv",
    output:
        report("results/{name}/edrf_extrapolated.csv", category="results"),
    log:
        "results/{name}/logs/extrapolate.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.pipeline extrapolate --scaling {input.scaling} "
        "--profiles {input.profiles} --out {output} > {log} 2>&1"
