# DRFQ (Ghodsi, Sekar, Zaharia, Stoica, SIGCOMM'12) against fair queueing, bottleneck
# fairness and FIFO on the packet-level middlebox simulator: the cs262a lecture's two-flow
# experiment, its rates over time, and a sweep over flows, resources and cost
# distributions, each a results CSV drawn by notebooks/drfq.py.
#
# Config (key `drfq`; seed: the config's):
#   duration, bin_width: seconds per run of the lecture's experiment and its series; per bin
#   rtt, interval: TCP's round trip; seconds between bottleneck fairness's re-decisions
#   sources: of the lecture and the sweep          series: methods whose rates are drawn
#   flows, resources, distributions, methods, packets, packet_costs: the sweep

from drfbench.pipeline import flags

DRFQ = config["drfq"]
TARGETS += expand("results/{name}/drfq/drfq_{table}.csv", name=NAME,
                  table=["lecture", "series", "sweep"])


rule drfq_lecture:
    output:
        report("results/{name}/drfq/drfq_lecture.csv", category="DRFQ"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfq/lecture.log",
    params:
        python=PYTHON,
        options=flags(DRFQ, "drfq", "lecture"),
        sources=" ".join(DRFQ["sources"]),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfq lecture {params.options} "
        "--sources {params.sources} --seed {params.seed} --out {output} > {log} 2>&1"


rule drfq_series:
    output:
        report("results/{name}/drfq/drfq_series.csv", category="DRFQ"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfq/series.log",
    params:
        python=PYTHON,
        options=flags(DRFQ, "drfq", "series"),
        bin_width=DRFQ["bin_width"],
        methods=" ".join(DRFQ["series"]),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfq series {params.options} "
        "--bin-width {params.bin_width} --methods {params.methods} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


rule drfq_sweep:
    output:
        report("results/{name}/drfq/drfq_sweep.csv", category="DRFQ"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfq/sweep.log",
    params:
        python=PYTHON,
        flows=" ".join(map(str, DRFQ["flows"])),
        resources=" ".join(map(str, DRFQ["resources"])),
        distributions=" ".join(DRFQ["distributions"]),
        sources=" ".join(DRFQ["sources"]),
        methods=" ".join(DRFQ["methods"]),
        packets=DRFQ["packets"],
        options=flags(DRFQ, "drfq", "sweep"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.drfq sweep --flows {params.flows} "
        "--resources {params.resources} --distributions {params.distributions} "
        "--sources {params.sources} --methods {params.methods} "
        "--packets {params.packets} {params.options} --seed {params.seed} "
        "--out {output} > {log} 2>&1"


NOTEBOOKS["drfq"] = dict(
    results=["drfq/drfq_lecture.csv", "drfq/drfq_series.csv", "drfq/drfq_sweep.csv"],
    figures=["drfq_lecture.png", "drfq_lecture.pdf", "drfq_oscillation.png",
             "drfq_oscillation.pdf", "drfq_sweep.png", "drfq_sweep.pdf", "drfq_tables.md"])
