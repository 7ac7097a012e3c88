# DC-DRF's outer loop (python -m drfbench.controller): the epsilon it converges to against
# the deadline (Figure 10), and its adaptation to changes in demand and deadline over 80
# control intervals (Figure 11). Budgets are seconds, or rounds (mode: rounds, exact and
# reproducible); `relative` makes them multiples of the exact run's time or rounds. Figure 10
# is drawn for each of `methods` (DC-DRF and sDC-DRF); Figure 11 for DC-DRF.

CONTROLLER = config["controller"]
CONTROLLER_WORKLOAD = pipeline.workload_name(
    CONTROLLER["profile"], CONTROLLER["tenants"], CONTROLLER["resources"], config["seed"])
CONTROLLER_BUDGET = "--max-rounds" if CONTROLLER["mode"] == "rounds" else "--deadline"
CONTROLLER_RELATIVE = "--relative" if CONTROLLER["relative"] else ""
CONTROLLER_THREADS = ",".join(str(workflow.cores if t == "all" else t) for t in CONTROLLER["threads"])


def controller_threads(method):
    """sDC-DRF is single-threaded whatever is asked: run its outer loop once, on 1 thread."""
    return "1" if method == "sdcdrf" else CONTROLLER_THREADS


rule epsilon_vs_deadline:
    input:
        f"results/{{name}}/workloads/{CONTROLLER_WORKLOAD}.npz",
    output:
        rows=report("results/{name}/controller/epsilon_vs_deadline_{method}.csv",
                    category="controller"),
        summary="results/{name}/controller/epsilon_vs_deadline_{method}_summary.csv",
    log:
        "results/{name}/logs/controller/epsilon_vs_deadline_{method}.log",
    params:
        python=PYTHON,
        budget_flag=CONTROLLER_BUDGET,
        relative=CONTROLLER_RELATIVE,
        threads=lambda w: controller_threads(w.method),
        budgets=",".join(map(str, CONTROLLER["budgets"])),
        intervals=CONTROLLER["intervals"],
    threads: workflow.cores  # timing runs alone
    shell:
        "{params.python} -m drfbench.controller --workload {input} --intervals {params.intervals} "
        "{params.budget_flag} {params.budgets} {params.relative} --threads {params.threads} "
        "--method {wildcards.method} "
        "--schedule stable --csv {output.rows} "
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
        relative=CONTROLLER_RELATIVE,
        threads=CONTROLLER_THREADS,
        budget=CONTROLLER["adaptation_budget"],
    threads: workflow.cores
    shell:
        "{params.python} -m drfbench.controller --workload {input} --intervals 80 "
        "{params.budget_flag} {params.budget} {params.relative} --threads {params.threads} --schedule paper --csv {output.rows} "
        "--summary {output.summary} > {log} 2>&1"
