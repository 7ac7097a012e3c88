# What Packer's claims depend on (docs/families/packer/choices.md, "The sensitivity study"):
# Packer against Tetris and slots under every combination of what the policies are told
# (view), the load's shape over time (temporal), the resource that binds (bottleneck) and
# Packer's reading of Eq. 6-8 (score), on several seeds. One job per (temporal,
# bottleneck, view), run side by side, each running every policy (Packer once per
# reading) on every seed's workload; gathered into packer_sensitivity.csv and drawn by
# notebooks/packer_sensitivity.py.
#
# Config (key `packer`, sub-key `sensitivity`):
#   seeds; servers, per_rack, racks_per_agg: the tree; instants, rate (per bottleneck),
#   mapreduce: the workload; views, temporal, bottleneck, scores: the grid; threads

from drfbench.api import THREADS
from drfbench.packer.catalog import VIEW
from drfbench.pipeline import flags

PACKER_SENS = config["packer"]["sensitivity"]
PACKER_SETTINGS = expand("{temporal}_{bottleneck}_{told}", temporal=PACKER_SENS["temporal"],
                         bottleneck=PACKER_SENS["bottleneck"], told=PACKER_SENS["views"])
TARGETS += expand("results/{name}/packer/packer_sensitivity.csv", name=NAME)


rule packer_sensitivity_run:
    output:
        "results/{name}/packer/sensitivity/{temporal}_{bottleneck}_{told}.csv",
    wildcard_constraints:
        temporal="|".join(PACKER_SENS["temporal"]),
        bottleneck="|".join(PACKER_SENS["bottleneck"]),
        told="|".join(PACKER_SENS["views"]),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/packer/sensitivity/{temporal}_{bottleneck}_{told}.log",
    threads: PACKER_SENS[THREADS.name]
    params:
        python=PYTHON,
        seeds=" ".join(map(str, PACKER_SENS["seeds"])),
        options=lambda w, threads: flags({**PACKER_SENS, VIEW.name: w.told, THREADS.name: threads},
                                         "packer", "sensitivity"),
        servers=PACKER_SENS["servers"],
        per_rack=PACKER_SENS["per_rack"],
        racks_per_agg=PACKER_SENS["racks_per_agg"],
        rate=lambda w: PACKER_SENS["rate"][w.bottleneck],
        apps=lambda w: max(1, round(PACKER_SENS["rate"][w.bottleneck] * PACKER_SENS["instants"])),
        mapreduce=PACKER_SENS["mapreduce"],
    shell:
        "{params.python} -m drfbench.packer sensitivity --temporal {wildcards.temporal} "
        "--bottleneck {wildcards.bottleneck} {params.options} "
        "--seeds {params.seeds} --servers {params.servers} --per-rack {params.per_rack} "
        "--racks-per-agg {params.racks_per_agg} --apps {params.apps} --rate {params.rate} "
        "--mapreduce {params.mapreduce} --out {output} > {log} 2>&1"


rule packer_sensitivity_gather:
    input:
        expand("results/{{name}}/packer/sensitivity/{setting}.csv", setting=PACKER_SETTINGS),
    output:
        report("results/{name}/packer/packer_sensitivity.csv", category="Packer"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/packer/sensitivity/gather.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.rows gather --out {output} {input} > {log} 2>&1"


NOTEBOOKS["packer_sensitivity"] = dict(
    results=["packer/packer_sensitivity.csv"],
    figures=[f"packer_sensitivity_{m}.{ext}" for m in ("acceptance", "revenue", "utilization")
             for ext in ("png", "pdf")] + ["packer_sensitivity.md"])
