# Production schedulers' fairness rules (issue 37: Kueue, Armada, Mesos, Slurm's Fair
# Tree, YARN's FairScheduler DRF) beside DRF (online), H-DRF and DRFH on one scenario:
# a heterogeneous cluster, a queue tree, phases (drfbench/production/sidebyside.py), as
# a results CSV drawn by notebooks/production.py.
#
# Config (key `production`; seed: the config's, the scenario's durations):
#   sample: seconds between samples of the shares, the distances and utilization
#   half_life, max_tres: slurm-fairtree's options; fixed: yarn-fair-drf's
#   protected_fractions, rate_limits, rate_interval: the preemption sweep's settings

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
        half_life=PRODUCTION["half_life"],
        max_tres="--max-tres" if PRODUCTION["max_tres"] else "--no-max-tres",
        fixed="--fixed" if PRODUCTION["fixed"] else "--no-fixed",
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.production side-by-side --sample {params.sample} "
        "--half-life {params.half_life} {params.max_tres} {params.fixed} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


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
        rate_interval=PRODUCTION["rate_interval"],
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.production preemption --fractions {params.fractions} "
        "--rate-limits {params.rate_limits} --rate-interval {params.rate_interval} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


NOTEBOOKS["production_preemption"] = dict(
    results=["production/production_preemption.csv"],
    figures=["production_preemption.png", "production_preemption.pdf"])
NOTEBOOKS["production"] = dict(
    results=["production/production_side_by_side.csv"],
    figures=["production_shares.png", "production_shares.pdf", "production_distance.png",
             "production_distance.pdf", "production_tables.md"])
