# DC-DRF family: the outer loop (python -m drfbench.dcdrf controller), the epsilon it converges
# to against the deadline (Figure 10), and its adaptation to changes in demand and deadline
# over 80 control intervals (Figure 11). Budgets are seconds, or rounds (mode: rounds, exact
# and reproducible); `relative` makes them multiples of the exact run's time or rounds.
# Figure 10 is drawn for each of `methods`; Figure 11 for the first. Threads: the config's
# counts, "all" for the job's cores; a single-threaded method runs once, on one: the
# declared option's sweep (drfbench/dcdrf/catalog.py STEP_SWEEPS), passed by
# drfbench.pipeline.flags.

from drfbench.pipeline import flags

CONTROLLER = config["dcdrf"]["controller"]
CONTROLLER_WORKLOAD = sweeps.workload_name(
    CONTROLLER["demand_profile"], CONTROLLER["tenants"], CONTROLLER["resources"], config["seed"])
CONTROLLER_RELATIVE = "--relative" if CONTROLLER["relative"] else ""
# Round budgets decide nothing by the clock, so their OpenMP threads wait passively: spinning
# at a barrier (OpenMP's default) burnt 15 s of CPU a job at the smoke's scale (sdcdrf: 1 s)
# and minutes of wall time on a shared machine, for the same rows
CONTROLLER_ENV = "OMP_WAIT_POLICY=passive " if CONTROLLER["mode"] == "rounds" else ""
CONTROLLER_TABLES = [f"epsilon_vs_deadline_{m}" for m in CONTROLLER["methods"]] + ["adaptation"]
TARGETS += expand("results/{name}/dcdrf/controller/{table}.csv", name=NAME, table=CONTROLLER_TABLES)


rule epsilon_vs_deadline:
    input:
        f"results/{{name}}/dcdrf/workloads/{CONTROLLER_WORKLOAD}.npz",
    output:
        rows=report("results/{name}/dcdrf/controller/epsilon_vs_deadline_{method}.csv",
                    category="DC-DRF", subcategory="Figure 10"),
        summary="results/{name}/dcdrf/controller/epsilon_vs_deadline_{method}_summary.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/controller/epsilon_vs_deadline_{method}.log",
    params:
        python=PYTHON,
        env=CONTROLLER_ENV,
        mode=CONTROLLER["mode"],
        relative=CONTROLLER_RELATIVE,
        options=flags(CONTROLLER, "dcdrf", "controller"),
        budgets=" ".join(map(str, CONTROLLER["budgets"])),
        intervals=CONTROLLER["intervals"],
    threads: workflow.cores  # timing runs alone
    shell:
        "{params.env}{params.python} -m drfbench.dcdrf controller --workload {input} --intervals {params.intervals} "
        "--mode {params.mode} --budgets {params.budgets} {params.relative} {params.options} "
        "--method {wildcards.method} "
        "--schedule stable --csv {output.rows} "
        "--summary {output.summary} > {log} 2>&1"


rule adaptation:
    input:
        f"results/{{name}}/dcdrf/workloads/{CONTROLLER_WORKLOAD}.npz",
    output:
        rows=report("results/{name}/dcdrf/controller/adaptation.csv", category="DC-DRF",
                    subcategory="Figure 11"),
        summary="results/{name}/dcdrf/controller/adaptation_summary.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/controller/adaptation.log",
    params:
        python=PYTHON,
        env=CONTROLLER_ENV,
        mode=CONTROLLER["mode"],
        relative=CONTROLLER_RELATIVE,
        options=flags(CONTROLLER, "dcdrf", "controller"),
        budget=CONTROLLER["adaptation_budget"],
        method=CONTROLLER["methods"][0],
    threads: workflow.cores
    shell:
        "{params.env}{params.python} -m drfbench.dcdrf controller --workload {input} --intervals 80 "
        "--mode {params.mode} --budgets {params.budget} {params.relative} {params.options} "
        "--method {params.method} --schedule paper --csv {output.rows} "
        "--summary {output.summary} > {log} 2>&1"


NOTEBOOKS["dcdrf_fig10_11_controller"] = dict(
    results=[f"dcdrf/controller/{table}{suffix}.csv"
             for table in CONTROLLER_TABLES for suffix in ("", "_summary")],
    figures=["dcdrf_fig10_epsilon.png", "dcdrf_fig10_epsilon.pdf", "dcdrf_fig11_adaptation.png",
             "dcdrf_fig11_adaptation.pdf"])
