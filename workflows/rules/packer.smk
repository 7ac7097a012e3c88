# Packer (Marcon and Barcellos, IFIP Networking 2017) against Tetris and slots: the
# paper's evaluation (Figs. 3-8) on its 3-tier tree, every policy on the same seeded
# workloads, drawn by notebooks/packer.py (Figs. 3-6) and notebooks/packer_network.py
# (Figs. 7-8).
#
# Config (key `packer`):
#   methods: registered application methods            seeds: one run per seed and method
#   servers, per_rack, racks_per_agg: the tree           threads: OpenMP threads of the scoring
#   apps, rate, mapreduce: the workload (count, arrivals per instant, MapReduce fraction)
#   steady: the steady state's instants [from, to) (every metric over it; the drain apart)
#   every: the series' step in instants
#   view: per policy, what it is told (ti-mra, peak)     score: Packer's reading of Eq. 6-8
#   temporal, bottleneck: the workload's shape over time and binding resource
#   (sensitivity: the study over these, workflows/rules/packer_sensitivity.smk)

from drfbench.api import THREADS
from drfbench.packer.catalog import VIEW
from drfbench.pipeline import flags

PACKER = config["packer"]
TARGETS += expand("results/{name}/packer/packer_{table}.csv", name=NAME,
                  table=["series", "apps", "summary", "rates"])


rule packer_evaluate:
    output:
        series=report("results/{name}/packer/packer_series.csv", category="Packer"),
        apps=report("results/{name}/packer/packer_apps.csv", category="Packer"),
        summary=report("results/{name}/packer/packer_summary.csv", category="Packer"),
        rates=report("results/{name}/packer/packer_rates.csv", category="Packer"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/packer/evaluate.log",
    threads: PACKER[THREADS.name]
    params:
        python=PYTHON,
        methods=" ".join(PACKER["methods"]),
        seeds=" ".join(map(str, PACKER["seeds"])),
        servers=PACKER["servers"],
        per_rack=PACKER["per_rack"],
        racks_per_agg=PACKER["racks_per_agg"],
        apps=PACKER["apps"],
        rate=PACKER["rate"],
        mapreduce=PACKER["mapreduce"],
        steady=" ".join(map(str, PACKER["steady"])),
        every=PACKER["every"],
        views=" ".join(f"{p}={v}" for p, v in PACKER[VIEW.name].items()),
        temporal=PACKER["temporal"],
        bottleneck=PACKER["bottleneck"],
        options=lambda w, threads: flags({**PACKER, THREADS.name: threads}, "packer", "evaluate"),
    shell:
        "{params.python} -m drfbench.packer evaluate "
        "--methods {params.methods} --seeds {params.seeds} --servers {params.servers} "
        "--per-rack {params.per_rack} --racks-per-agg {params.racks_per_agg} "
        "--apps {params.apps} --rate {params.rate} --mapreduce {params.mapreduce} "
        "--views {params.views} --temporal {params.temporal} --bottleneck {params.bottleneck} "
        "{params.options} --steady {params.steady} --every {params.every} "
        "--series {output.series} --per-app {output.apps} "
        "--summary {output.summary} --rates {output.rates} > {log} 2>&1"


NOTEBOOKS["packer"] = dict(
    results=["packer/packer_series.csv", "packer/packer_apps.csv", "packer/packer_summary.csv"],
    figures=["packer_fig3_acceptance.png", "packer_fig3_acceptance.pdf",
             "packer_fig4_utilization.png", "packer_fig4_utilization.pdf",
             "packer_fig5_revenue.png", "packer_fig5_revenue.pdf",
             "packer_fig6_overhead.png", "packer_fig6_overhead.pdf", "packer_tables.md"])
NOTEBOOKS["packer_network"] = dict(
    results=["packer/packer_rates.csv"],
    figures=["packer_fig7_guarantee.png", "packer_fig7_guarantee.pdf",
             "packer_fig8_work_conserving.png", "packer_fig8_work_conserving.pdf"])
