# DC-DRF family: workloads, generated once per (profile, scale, seed) and reused by every
# run, and the exact allocation of each, against which every run's fairness is measured.


wildcard_constraints:
    workload=r"[A-Z][0-9]-\d+x\d+-s\d+",


rule workload:
    output:
        "results/{name}/workloads/{workload}.npz",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/workloads/{workload}.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.dcdrf.sweeps workload --workload {wildcards.workload} "
        "--out {output} > {log} 2>&1"


rule baseline:
    input:
        "results/{name}/workloads/{workload}.npz",
    output:
        "results/{name}/baselines/{workload}.npz",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/baselines/{workload}.log",
    params:
        python=PYTHON,
        method=config["baseline"],
    threads: workflow.cores
    shell:
        "{params.python} -m drfbench.dcdrf.sweeps baseline --workload-file {input} "
        "--method {params.method} --out {output} > {log} 2>&1"
