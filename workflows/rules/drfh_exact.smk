# DRFH (Wang, Liang, Li: DRF in cloud computing systems with heterogeneous servers), the
# exact half: the paper's Fig. 1 example (DRFH against per-server DRF) and the properties
# of Sec. IV on random heterogeneous instances, drawn by notebooks/drfh_exact.py; Sec.
# III-D's utilization of per-server DRF on a family of instances (drfbench.drfh.per_server).
#
# Config (key `drfh`, sub-keys `properties` and `per_server`):
#   instances: random instances per property check
#   zeros: fractions of zero demands, one table each
#   (seed: the config's)
#   per_server.ks: the family's k, a row per method each

DRFH_PROPERTIES = config["drfh"]["properties"]
TARGETS += expand("results/{name}/drfh/{table}.csv", name=NAME,
                  table=["drfh_examples", "drfh_properties", "drfh_per_server"])


rule drfh_examples:
    output:
        report("results/{name}/drfh/drfh_examples.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/examples.log",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m drfbench.drfh examples --out {output} > {log} 2>&1"


rule drfh_properties:
    output:
        report("results/{name}/drfh/drfh_properties.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/properties.log",
    params:
        python=PYTHON,
        instances=DRFH_PROPERTIES["instances"],
        seed=config["seed"],
        zeros=" ".join(map(str, DRFH_PROPERTIES["zeros"])),
    shell:
        "{params.python} -m drfbench.drfh properties --instances {params.instances} "
        "--seed {params.seed} --zeros {params.zeros} --out {output} > {log} 2>&1"


rule drfh_per_server:
    output:
        report("results/{name}/drfh/drfh_per_server.csv", category="DRFH"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/drfh/per_server.log",
    params:
        python=PYTHON,
        ks=" ".join(map(str, config["drfh"]["per_server"]["ks"])),
    shell:
        "{params.python} -m drfbench.drfh per-server --ks {params.ks} --out {output} > {log} 2>&1"


NOTEBOOKS["drfh_exact"] = dict(
    results=["drfh/drfh_examples.csv", "drfh/drfh_properties.csv"],
    figures=["drfh_fig1.png", "drfh_fig1.pdf", "drfh_properties.md"])
