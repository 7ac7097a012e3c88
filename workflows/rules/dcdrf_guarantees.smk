# DC-DRF family: §3's guarantees checked on small random instances (python -m drfbench.dcdrf
# guarantees): Pareto efficiency and strategy-proofness up to epsilon, the 1/(1 - epsilon)
# bound, Lemma 3.1's bound on the iterations. Decisions, not timings: seconds of CPU, the
# same rows on any machine.
#
# Config (key `dcdrf.guarantees`): instances, bound_instances (random instances per check),
# epsilons, resources and lemma_instances (Lemma 3.1's sizes), demanded (its resources per
# tenant); seed: the config's.

from drfbench.pipeline import flags

GUARANTEES = config["dcdrf"]["guarantees"]
TARGETS += expand("results/{name}/dcdrf/guarantees.csv", name=NAME)


rule dcdrf_guarantees:
    output:
        report("results/{name}/dcdrf/guarantees.csv", category="DC-DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/guarantees.log",
    params:
        python=PYTHON,
        instances=GUARANTEES["instances"],
        bound_instances=GUARANTEES["bound_instances"],
        options=flags(GUARANTEES, "dcdrf", "guarantees"),
        resources=" ".join(map(str, GUARANTEES["resources"])),
        lemma_instances=GUARANTEES["lemma_instances"],
        demanded=GUARANTEES["demanded"],
        seed=config["seed"],
    threads: 1
    shell:
        "OMP_NUM_THREADS=1 {params.python} -m drfbench.dcdrf guarantees --out {output} "
        "--instances {params.instances} --bound-instances {params.bound_instances} "
        "{params.options} --resources {params.resources} "
        "--lemma-instances {params.lemma_instances} --demanded {params.demanded} "
        "--seed {params.seed} > {log} 2>&1"
