# DC-DRF family: workloads, generated once per (demand profile, scale, seed) and reused by every
# run, and the exact allocation of each, against which every run's fairness is measured.


wildcard_constraints:
    workload=r"[A-Z][0-9]-\d+x\d+-s\d+",


rule workload:
    output:
        "results/{name}/dcdrf/workloads/{workload}.npz",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/workloads/{workload}.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.dcdrf workload --workload {wildcards.workload} "
        "--out {output} > {log} 2>&1"


rule baseline:
    input:
        "results/{name}/dcdrf/workloads/{workload}.npz",
    output:
        "results/{name}/dcdrf/baselines/{workload}.npz",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/baselines/{workload}.log",
    params:
        python=PYTHON,
        method=config["dcdrf"]["baseline"],
    threads: workflow.cores
    shell:
        "{params.python} -m drfbench.dcdrf baseline --workload-file {input} "
        "--method {params.method} --out {output} > {log} 2>&1"
