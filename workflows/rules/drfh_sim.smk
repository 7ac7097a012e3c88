# DRFH's discrete schedulers (Wang, Liang, Li, Sec. V-B and VI) on the cluster simulator:
# Fig. 4 (three users joining on 100 Table I servers), Table II (slots per maximum server),
# Figs. 5-7 (Best-Fit, First-Fit, Slots on the Alibaba 2018 sample), Fig. 8 (dedicated
# against shared clouds); drawn by notebooks/drfh_sim_dynamic.py, drfh_sim_trace.py and
# drfh_sim_sharing.py.
#
# Config (key `drfh`, sub-key `sim`):
#   servers              servers drawn from Table I for the trace runs
#   users, skew, fraction, cores   the Alibaba sample's conversion (trace.py)
#   horizon, sample      seconds simulated (the trace's window) and between samples
#   methods              compared in Figs. 5-7; slots: k for Slots, unless best_slots
#                        (Table II's best k)
#   slot_grid            Table II's k
#   dynamic_servers, dynamic_sample   Fig. 4's cluster, its seconds between samples
#   slot_model           how a task runs in a slot: timeshare or capped
#   task_scale           every converted task's demands times this
# The steps' declared options (horizon, sample, slots, slot_model, slot_grid,
# dynamic_sample) are passed by drfbench.pipeline.flags (drfbench/drfh/catalog.py).

from drfbench.pipeline import flags

DRFH_SIM = config["drfh"]["sim"]
TARGETS += expand("results/{name}/drfh/{table}.csv", name=NAME,
                  table=["dynamic", "dynamic_summary", "dynamic_first_fit", "dynamic_first_fit_summary",
                         "slots_search", "sharing"]
                  + [f"{kind}_{s}" for kind in ("run", "jobs", "users")
                     for s in DRFH_SIM["methods"]])


rule drfh_sim_servers:
    output:
        "results/{name}/drfh/servers.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/servers.log",
    params:
        python=PYTHON,
        servers=DRFH_SIM["servers"],
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfh convert google --servers {params.servers} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


rule drfh_sim_tasks:
    output:
        "results/{name}/drfh/tasks.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/tasks.log",
    params:
        python=PYTHON,
        users=DRFH_SIM["users"],
        skew=DRFH_SIM["skew"],
        fraction=DRFH_SIM["fraction"],
        cores=DRFH_SIM["cores"],
        task_scale=DRFH_SIM["task_scale"],
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfh convert alibaba --users {params.users} "
        "--skew {params.skew} --fraction {params.fraction} --cores {params.cores} "
        "--task-scale {params.task_scale} --seed {params.seed} --out {output} > {log} 2>&1"


rule drfh_sim_dynamic:
    output:
        shares=report("results/{name}/drfh/dynamic.csv", category="DRFH"),
        summary=report("results/{name}/drfh/dynamic_summary.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/dynamic.log",
    params:
        python=PYTHON,
        servers=DRFH_SIM["dynamic_servers"],
        options=flags(DRFH_SIM, "drfh", "dynamic"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfh dynamic --servers {params.servers} {params.options} "
        "--seed {params.seed} --out {output.shares} --summary {output.summary} > {log} 2>&1"


rule drfh_sim_dynamic_first_fit:
    # Fig. 4's experiment under First-Fit, beside exact DRFH (DS7: "a fairly good approximation")
    output:
        shares=report("results/{name}/drfh/dynamic_first_fit.csv", category="DRFH"),
        summary=report("results/{name}/drfh/dynamic_first_fit_summary.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/dynamic_first_fit.log",
    params:
        python=PYTHON,
        servers=DRFH_SIM["dynamic_servers"],
        options=flags(DRFH_SIM, "drfh", "dynamic"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfh dynamic --method drfh-first-fit "
        "--servers {params.servers} {params.options} --seed {params.seed} --out {output.shares} "
        "--summary {output.summary} > {log} 2>&1"


rule drfh_sim_slots_search:
    input:
        servers="results/{name}/drfh/servers.csv",
        tasks="results/{name}/drfh/tasks.csv",
    output:
        report("results/{name}/drfh/slots_search.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/slots_search.log",
    params:
        python=PYTHON,
        options=flags(DRFH_SIM, "drfh", "slots-search"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfh slots-search --servers {input.servers} "
        "--tasks {input.tasks} {params.options} --seed {params.seed} "
        "--out {output} > {log} 2>&1"


rule drfh_sim_run:
    input:
        servers="results/{name}/drfh/servers.csv",
        tasks="results/{name}/drfh/tasks.csv",
        search=lambda w: ([f"results/{w.name}/drfh/slots_search.csv"]
                          if w.method == "drfh-slots" and DRFH_SIM["best_slots"] else []),
    output:
        run=report("results/{name}/drfh/run_{method}.csv", category="DRFH"),
        jobs="results/{name}/drfh/jobs_{method}.csv",
        users="results/{name}/drfh/users_{method}.csv",
    wildcard_constraints:
        method="|".join(DRFH_SIM["methods"]),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/run_{method}.log",
    params:
        python=PYTHON,
        options=flags(DRFH_SIM, "drfh", "run"),
        search=lambda w, input: " ".join(f"--slots-from {path}" for path in input.search),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfh run --servers {input.servers} --tasks {input.tasks} "
        "--method {wildcards.method} {params.options} {params.search} "
        "--seed {params.seed} --out {output.run} "
        "--jobs {output.jobs} --users {output.users} > {log} 2>&1"


rule drfh_sim_sharing:
    input:
        servers="results/{name}/drfh/servers.csv",
        tasks="results/{name}/drfh/tasks.csv",
        shared="results/{name}/drfh/users_drfh-best-fit.csv",
    output:
        report("results/{name}/drfh/sharing.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/sharing.log",
    params:
        python=PYTHON,
        options=flags(DRFH_SIM, "drfh", "sharing"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfh sharing --servers {input.servers} "
        "--tasks {input.tasks} --shared {input.shared} {params.options} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


NOTEBOOKS["drfh_sim_dynamic"] = dict(
    results=["drfh/dynamic.csv", "drfh/dynamic_summary.csv"],
    figures=["drfh_fig4_dynamic.png", "drfh_fig4_dynamic.pdf"])
NOTEBOOKS["drfh_sim_trace"] = dict(
    results=["drfh/slots_search.csv"]
    + [f"drfh/{kind}_{s}.csv" for kind in ("run", "users") for s in DRFH_SIM["methods"]]
    + ["drfh/jobs_drfh-best-fit.csv", "drfh/jobs_drfh-slots.csv"
       if "drfh-slots" in DRFH_SIM["methods"] else "drfh/jobs_drfh-first-fit.csv"],
    figures=[f"drfh_{f}.{ext}" for f in ("fig5_utilization", "fig6_jobs", "fig7_completion")
             for ext in ("png", "pdf")] + ["drfh_table2.md"])
NOTEBOOKS["drfh_sim_sharing"] = dict(
    results=["drfh/sharing.csv"],
    figures=["drfh_fig8_sharing.png", "drfh_fig8_sharing.pdf"])
