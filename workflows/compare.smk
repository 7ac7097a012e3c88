# Method comparison on one workload per demand profile (python -m drfbench.bench):
# time, rounds, utilization, fairness and shortfall of every method against exact EDRF.


rule compare:
    output:
        "results/{name}/compare/{profile}.csv",
    log:
        "results/{name}/logs/compare/{profile}.log",
    params:
        c=config["compare"],
        python=PYTHON,
    threads: workflow.cores  # a timing rule runs alone on the machine
    shell:
        "OMP_PROC_BIND=close OMP_PLACES=cores "
        "{params.python} -m drfbench.bench --profile {wildcards.profile} "
        "--tenants {params.c[tenants]} --resources {params.c[resources]} "
        "--seed {params.c[seed]} --methods {params.c[methods]} "
        "--epsilons {params.c[epsilons]} --threads {params.c[threads]} "
        "--repeats {params.c[repeats]} --floor --csv {output} > {log} 2>&1"
