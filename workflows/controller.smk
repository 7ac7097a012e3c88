# DC-DRF's outer loop (python -m drfbench.controller): the epsilon it converges to against
# the deadline (Figure 10), and its adaptation to changes in demand and deadline over 80
# control intervals (Figure 11). Budgets are seconds, or rounds (mode: rounds, exact and
# reproducible); `relative` makes them multiples of the exact run's time or rounds.

CONTROLLER = config["controller"]
CONTROLLER_WORKLOAD = pipeline.workload_name(
    CONTROLLER["profile"], CONTROLLER["tenants"], CONTROLLER["resources"], config["seed"])
CONTROLLER_BUDGET = "--max-rounds" if CONTROLLER["mode"] == "rounds" else "--deadline"
CONTROLLER_FLAGS = ("--relative " if CONTROLLER["relative"] else "") + "--threads " + ",".join(
    str(workflow.cores if t == "all" else t) for t in CONTROLLER["threads"])


rule epsilon_vs_deadline:
    input:
        f"results/{{name}}/workloads/{CONTROLLER_WORKLOAD}.npz",
    output:
        rows=report("results/{name}/controller/epsilon_vs_deadline.csv", category="controller"),
        summary="results/{name}/controller/epsilon_vs_deadline_summary.csv",
    log:
        "results/{name}/logs/controller/epsilon_vs_deadline.log",
    params:
        python=PYTHON,
        budget_flag=CONTROLLER_BUDGET,
        flags=CONTROLLER_FLAGS,
        budgets=",".join(map(str, CONTROLLER["budgets"])),
        intervals=CONTROLLER["intervals"],
    threads: workflow.cores  # timing runs alone
    shell:
        "{params.python} -m drfbench.controller --workload {input} --intervals {params.intervals} "
        "{params.budget_flag} {params.budgets} {params.flags} --schedule stable --csv {output.rows} "
        "--summary {output.summary} > {log} 2>&1"


rule adaptation:
    input:
        f"results/{{name}}/workloads/{CONTROLLER_WORKLOAD}.npz",
    output:
        rows=report("results/{name}/controller/adaptation.csv", category="controller"),
        summary="results/{name}/controller/adaptation_summary.csv",
    log:
        "results/{name}/logs/controller/adaptation.log",
    params:
        python=PYTHON,
        budget_flag=CONTROLLER_BUDGET,
        flags=CONTROLLER_FLAGS,
        budget=CONTROLLER["adaptation_budget"],
    threads: workflow.cores
    shell:
        "{params.python} -m drfbench.controller --workload {input} --intervals 80 "
        "{params.budget_flag} {params.budget} {params.flags} --schedule paper --csv {output.rows} "
        "--summary {output.summary} > {log} 2>&1"
