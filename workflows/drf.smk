# Classic DRF (issue 7): the lecture's property table, checked empirically, and its DRF vs
# slots experiment, each a results CSV from a pipeline step, drawn by its notebook
# (workflows/figures.smk).
#
# Config (key `drf`):
#   instances: random instances per property check    seed: their seed
#   zeros: fractions of zero demands, one table each   epsilons: DC-DRF rows
#   machines, machine: the simulated cluster (count; one machine's <CPU, GB>)
#   tasks_per_job, duration: jobs of both types (tasks per job, seconds per task)
#   slots: slots per machine for the slot scheduler    horizon, jitter: simulation length, noise

DRF = config["drf"]


rule drf_properties:
    output:
        table=report("results/{name}/drf/drf_properties.csv", category="DRF"),
        examples="results/{name}/drf/drf_examples.csv",
    log:
        "results/{name}/logs/drf/properties.log",
    params:
        python=PYTHON,
        instances=DRF["instances"],
        seed=DRF["seed"],
        zeros=" ".join(map(str, DRF["zeros"])),
        epsilons=" ".join(map(str, DRF["epsilons"])),
    shell:
        "{params.python} -m drfbench.properties --out {output.table} "
        "--examples {output.examples} --instances {params.instances} --seed {params.seed} "
        "--zeros {params.zeros} --epsilons {params.epsilons} > {log} 2>&1"


rule drf_vs_slots:
    output:
        report("results/{name}/drf/drf_vs_slots.csv", category="DRF"),
    log:
        "results/{name}/logs/drf/drf_vs_slots.log",
    params:
        python=PYTHON,
        machines=DRF["machines"],
        machine=" ".join(map(str, DRF["machine"])),
        tasks=DRF["tasks_per_job"],
        duration=DRF["duration"],
        slots=" ".join(map(str, DRF["slots"])),
        horizon=DRF["horizon"],
        jitter=DRF["jitter"],
        seed=DRF["seed"],
    shell:
        "{params.python} -m drfbench.drf slots --machines {params.machines} "
        "--machine {params.machine} --tasks-per-job {params.tasks} --duration {params.duration} "
        "--slots {params.slots} --horizon {params.horizon} --jitter {params.jitter} "
        "--seed {params.seed} --out {output} > {log} 2>&1"

