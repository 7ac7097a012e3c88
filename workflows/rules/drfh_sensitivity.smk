# What DRFH's trace claims depend on (docs/families/drfh/choices.md, "The sensitivity study"):
# Table II and Figs. 5-7 under each slot model (how a task runs in a slot) and task scale
# (the converted tasks' size), on several seeds, at the `drfh.sim` scale; at task scale s
# the cluster has s times drfh.sim.servers servers, so that the offered load per server
# stays the trace's. One job per (task scale, seed), each slot model in turn, run side by
# side; gathered into drfh_sensitivity.csv and drawn by notebooks/drfh_sensitivity.py.
#
# Config (key `drfh`, sub-key `sensitivity`): seeds, slot_models, task_scales; the rest is
# drfh.sim's (servers, users, skew, fraction, cores, horizon, sample, slot_grid). The
# step's declared options are passed by drfbench.pipeline.flags (drfbench/drfh/catalog.py).

from drfbench.pipeline import flags

DRFH_SENS = config["drfh"]["sensitivity"]
DRFH_SENS_SIM = config["drfh"]["sim"]  # the scale (this file is read before drfh_sim.smk)
DRFH_SENS_SCALES = [f"{s:g}" for s in DRFH_SENS["task_scales"]]
TARGETS += expand("results/{name}/drfh/drfh_sensitivity.csv", name=NAME)


rule drfh_sensitivity_servers:
    output:
        temp("results/{name}/drfh/sensitivity/servers_x{scale}_s{seed}.csv"),
    wildcard_constraints:
        scale="|".join(DRFH_SENS_SCALES),
        seed=r"\d+",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/sensitivity/servers_x{scale}_s{seed}.log",
    params:
        python=PYTHON,
        servers=lambda w: max(1, round(DRFH_SENS_SIM["servers"] * float(w.scale))),
    shell:
        "{params.python} -m drfbench.drfh convert google --servers {params.servers} "
        "--seed {wildcards.seed} --out {output} > {log} 2>&1"


rule drfh_sensitivity_tasks:
    output:
        temp("results/{name}/drfh/sensitivity/tasks_x{scale}_s{seed}.csv"),
    wildcard_constraints:
        scale="|".join(DRFH_SENS_SCALES),
        seed=r"\d+",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/sensitivity/tasks_x{scale}_s{seed}.log",
    params:
        python=PYTHON,
        users=DRFH_SENS_SIM["users"],
        skew=DRFH_SENS_SIM["skew"],
        fraction=DRFH_SENS_SIM["fraction"],
        cores=DRFH_SENS_SIM["cores"],
    shell:
        "{params.python} -m drfbench.drfh convert alibaba --users {params.users} "
        "--skew {params.skew} --fraction {params.fraction} --cores {params.cores} "
        "--task-scale {wildcards.scale} --seed {wildcards.seed} --out {output} > {log} 2>&1"


rule drfh_sensitivity_run:
    input:
        servers="results/{name}/drfh/sensitivity/servers_x{scale}_s{seed}.csv",
        tasks="results/{name}/drfh/sensitivity/tasks_x{scale}_s{seed}.csv",
    output:
        "results/{name}/drfh/sensitivity/run_x{scale}_s{seed}.csv",
    wildcard_constraints:
        scale="|".join(DRFH_SENS_SCALES),
        seed=r"\d+",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/sensitivity/run_x{scale}_s{seed}.log",
    params:
        python=PYTHON,
        options=flags({**DRFH_SENS_SIM, **DRFH_SENS}, "drfh", "sensitivity"),
    shell:
        "{params.python} -m drfbench.drfh sensitivity --servers {input.servers} "
        "--tasks {input.tasks} --task-scale {wildcards.scale} {params.options} "
        "--seed {wildcards.seed} --out {output} > {log} 2>&1"


rule drfh_sensitivity_gather:
    input:
        expand("results/{{name}}/drfh/sensitivity/run_x{scale}_s{seed}.csv",
               scale=DRFH_SENS_SCALES, seed=DRFH_SENS["seeds"]),
    output:
        report("results/{name}/drfh/drfh_sensitivity.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/sensitivity/gather.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.rows gather --out {output} {input} > {log} 2>&1"


NOTEBOOKS["drfh_sensitivity"] = dict(
    results=["drfh/drfh_sensitivity.csv"],
    figures=[f"drfh_sensitivity_{f}.{ext}" for f in ("table2", "figs5_7")
             for ext in ("png", "pdf")] + ["drfh_sensitivity.md"])
