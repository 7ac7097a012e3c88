# Classic DRF (Ghodsi et al., NSDI'11, as the cs262a lecture presents it): the lecture's
# property table, checked empirically, its DRF vs slots experiment on the cluster
# simulator, each a results CSV drawn by its notebook, and online DRF's time per decision
# (the lecture's O(log n)).
#
# Config (key `drf`):
#   methods: the table's rows (registered methods taking divisible demands)
#   instances: random instances per property check (seed: the config's)
#   zeros: fractions of zero demands, one table each   epsilons: rows of methods taking one
#   machines, machine: the simulated cluster (count; one machine's <CPU, GB>)
#   tasks_per_job, duration: jobs of both types (tasks per job, seconds per task)
#   slots: slots per machine for hadoop-slots           horizon, jitter: simulation length, noise
#   decision_users, decisions, decision_repeats: the time per decision's users, launches
#   timed per run and runs per number of users

from drfbench.pipeline import flags

DRF = config["drf"]
TARGETS += expand("results/{name}/drf/{table}.csv", name=NAME,
                  table=["drf_properties", "drf_examples", "drf_vs_slots", "drf_decisions"])


rule drf_properties:
    output:
        table=report("results/{name}/drf/drf_properties.csv", category="DRF"),
        examples="results/{name}/drf/drf_examples.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drf/properties.log",
    params:
        python=PYTHON,
        methods=" ".join(DRF["methods"]),
        instances=DRF["instances"],
        seed=config["seed"],
        zeros=" ".join(map(str, DRF["zeros"])),
        epsilons=" ".join(map(str, DRF["epsilons"])),
    shell:
        "{params.python} -m drfbench.drf properties --out {output.table} "
        "--examples {output.examples} --methods {params.methods} "
        "--instances {params.instances} --seed {params.seed} "
        "--zeros {params.zeros} --epsilons {params.epsilons} > {log} 2>&1"


rule drf_vs_slots:
    output:
        report("results/{name}/drf/drf_vs_slots.csv", category="DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drf/drf_vs_slots.log",
    params:
        python=PYTHON,
        machines=DRF["machines"],
        machine=" ".join(map(str, DRF["machine"])),
        tasks_per_job=DRF["tasks_per_job"],
        duration=DRF["duration"],
        options=flags(DRF, "drf", "slots"),
        horizon=DRF["horizon"],
        jitter=DRF["jitter"],
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drf slots --machines {params.machines} "
        "--machine {params.machine} --tasks-per-job {params.tasks_per_job} --duration {params.duration} "
        "{params.options} --horizon {params.horizon} --jitter {params.jitter} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


rule drf_decisions:
    output:
        "results/{name}/drf/drf_decisions.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drf/decisions.log",
    threads: workflow.cores  # timing runs alone (on one thread: the kernel has no parallel loop)
    params:
        python=PYTHON,
        options=flags(DRF, "drf", "decisions"),
        users=" ".join(map(str, DRF["decision_users"])),
        decisions=DRF["decisions"],
        repeats=DRF["decision_repeats"],
        seed=config["seed"],
    shell:
        "OMP_NUM_THREADS=1 {params.python} -m drfbench.drf decisions {params.options} "
        "--users {params.users} --decisions {params.decisions} --repeats {params.repeats} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


NOTEBOOKS["drf_properties"] = dict(
    results=["drf/drf_properties.csv", "drf/drf_examples.csv"],
    figures=["drf_properties.png", "drf_properties.pdf", "drf_properties.md"])
NOTEBOOKS["drf_vs_slots"] = dict(
    results=["drf/drf_vs_slots.csv"], figures=["drf_vs_slots.png", "drf_vs_slots.pdf"])
