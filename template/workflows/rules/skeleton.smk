# The skeleton family (the template: docs/adding-a-family.md): its method on random
# demands, drawn by notebooks/skeleton.py.
#
# Config (key `skeleton`; seed: the config's): users, resources, scale

from drfbench.pipeline import flags

SKELETON = config["skeleton"]
TARGETS += expand("results/{name}/skeleton/skeleton_shares.csv", name=NAME)


rule skeleton_share:
    output:
        report("results/{name}/skeleton/skeleton_shares.csv", category="Skeleton"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/skeleton/share.log",
    params:
        python=PYTHON,
        users=SKELETON["users"],
        resources=SKELETON["resources"],
        options=flags(SKELETON, "skeleton", "share"),
        seed=config["seed"],
    shell:
        "{params.python} -m drfbench.skeleton share --users {params.users} "
        "--resources {params.resources} {params.options} --seed {params.seed} "
        "--out {output} > {log} 2>&1"


NOTEBOOKS["skeleton"] = dict(
    results=["skeleton/skeleton_shares.csv"],
    figures=["skeleton_shares.png", "skeleton_shares.pdf"])
