# Production schedulers' fairness rules (issue 37: Kueue, Armada, Mesos, Slurm's Fair
# Tree, YARN's FairScheduler DRF) beside DRF (online), H-DRF and DRFH on one scenario:
# a heterogeneous cluster, a queue tree, phases (drfbench/production/sidebyside.py), as
# a results CSV drawn by notebooks/production.py.
#
# Config (key `production`; seed: the config's, the scenario's durations):
#   sample: seconds between samples of the shares, the distances and utilization
#   series: seconds between the written samples of the series (the figures' points)
#   half_life, max_tres: slurm-fairtree's options; fixed: yarn-fair-drf's
#   protected_fractions, rate_limits, rate_interval: the preemption sweep's settings

from drfbench.pipeline import flags

PRODUCTION = config["production"]
TARGETS += expand("results/{name}/production/production_{table}.csv", name=NAME,
                  table=["side_by_side", "preemption"])


rule production_side_by_side:
    output:
        report("results/{name}/production/production_side_by_side.csv",
               category="Production rules"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/production/side_by_side.log",
    params:
        python=PYTHON,
        sample=PRODUCTION["sample"],
        series=PRODUCTION["series"],
        options=flags(PRODUCTION, "production", "side-by-side"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.production side-by-side --sample {params.sample} "
        "--series {params.series} {params.options} --seed {params.seed} --out {output} "
        "> {log} 2>&1"


rule production_preemption:
    output:
        report("results/{name}/production/production_preemption.csv",
               category="Production rules"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/production/preemption.log",
    params:
        python=PYTHON,
        fractions=" ".join(map(str, PRODUCTION["protected_fractions"])),
        rate_limits=" ".join(map(str, PRODUCTION["rate_limits"])),
        options=flags(PRODUCTION, "production", "preemption"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.production preemption --fractions {params.fractions} "
        "--rate-limits {params.rate_limits} {params.options} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


NOTEBOOKS["production_preemption"] = dict(
    results=["production/production_preemption.csv"],
    figures=["production_preemption.png", "production_preemption.pdf"])
NOTEBOOKS["production"] = dict(
    results=["production/production_side_by_side.csv"],
    figures=["production_shares.png", "production_shares.pdf", "production_distance.png",
             "production_distance.pdf", "production_tables.md"])
