# H-DRF (Bhattacharya et al., SoCC'13, as the slides by Ghodsi present it): the slides'
# claims as worked examples, the hierarchical properties on random trees, and the
# 50-machine, 100-job evaluation on the cluster simulator, each a results CSV drawn by
# notebooks/hdrf.py.
#
# Config (key `hdrf`):
#   methods: registered tree methods compared in every step (seed: the config's)
#   instances: random trees per property check                    room: their clusters' size
#   machines, machine: the evaluation's cluster (count; one machine's <CPU, GB, GPU>)
#   jobs, large, span: the job schedule (count, fraction large, arrival window in seconds)
#   sample, window: seconds between the evaluation's samples; per throughput row
#   scale: the simulator at scale, `python -m drfbench.hdrf scale` (run: the paper profile): methods,
#     fanout (children per inner node, depth 4), machines, tasks (the trace), span

HDRF = config["hdrf"]
TARGETS += expand("results/{name}/hdrf/{table}.csv", name=NAME,
                  table=["hdrf_examples", "hdrf_properties", "hdrf_throughput", "hdrf_summary"])


rule hdrf_examples:
    output:
        report("results/{name}/hdrf/hdrf_examples.csv", category="H-DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/hdrf/examples.log",
    params:
        python=PYTHON,
        methods=" ".join(HDRF["methods"]),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.hdrf examples --methods {params.methods} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


rule hdrf_properties:
    output:
        report("results/{name}/hdrf/hdrf_properties.csv", category="H-DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/hdrf/properties.log",
    params:
        python=PYTHON,
        methods=" ".join(HDRF["methods"]),
        instances=HDRF["instances"],
        room=HDRF["room"],
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.hdrf properties --methods {params.methods} "
        "--instances {params.instances} --room {params.room} --seed {params.seed} "
        "--out {output} > {log} 2>&1"


rule hdrf_evaluate:
    output:
        throughput=report("results/{name}/hdrf/hdrf_throughput.csv", category="H-DRF"),
        summary=report("results/{name}/hdrf/hdrf_summary.csv", category="H-DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/hdrf/evaluate.log",
    params:
        python=PYTHON,
        methods=" ".join(HDRF["methods"]),
        machines=HDRF["machines"],
        machine=" ".join(map(str, HDRF["machine"])),
        jobs=HDRF["jobs"],
        large=HDRF["large"],
        span=HDRF["span"],
        sample=HDRF["sample"],
        window=HDRF["window"],
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.hdrf evaluate --methods {params.methods} "
        "--machines {params.machines} --machine {params.machine} --jobs {params.jobs} "
        "--large {params.large} --span {params.span} --sample {params.sample} "
        "--window {params.window} "
        "--seed {params.seed} --out {output.throughput} --summary {output.summary} "
        "> {log} 2>&1"


SCALE = HDRF["scale"]
if SCALE["run"]:
    TARGETS += expand("results/{name}/hdrf/hdrf_scale.csv", name=NAME)

    rule hdrf_scale:
        output:
            report("results/{name}/hdrf/hdrf_scale.csv", category="H-DRF"),
        conda:
            CONDA_ENV
        log:
            "results/{name}/logs/hdrf/scale.log",
        params:
            python=PYTHON,
            methods=" ".join(SCALE["methods"]),
            fanout=SCALE["fanout"],
            machines=SCALE["machines"],
            tasks=SCALE["tasks"],
            span=SCALE["span"],
            seed=config["seed"],
        shell:
            "{params.python} -m drfbench.hdrf scale --methods {params.methods} "
            "--fanout {params.fanout} --machines {params.machines} --tasks {params.tasks} "
            "--span {params.span} --seed {params.seed} --out {output} > {log} 2>&1"


NOTEBOOKS["hdrf"] = dict(
    results=["hdrf/hdrf_examples.csv", "hdrf/hdrf_properties.csv", "hdrf/hdrf_throughput.csv",
             "hdrf/hdrf_summary.csv"],
    figures=["hdrf_throughput.png", "hdrf_throughput.pdf", "hdrf_tables.md"])
