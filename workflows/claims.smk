# REPRODUCTION.md rendered from the claims table (reference/claims/, docs/claims.md) over a
# results directory: the committed reference results by default, or your own with
#   snakemake --cores all --config claims_from=results -- claims
# which writes results/REPRODUCTION.md. Every file the table reads (under <profile>/<family>/)
# must be there: the command names the first that is not. Seconds: never a cluster job.
import os
from pathlib import Path

from drfbench import claims as _claims

CLAIMS_TABLE = f"{workflow.basedir}/reference/claims"
CLAIMS_FROM = config.get("claims_from", f"{workflow.basedir}/reference")


rule claims:
    localrule: True
    input:
        table=sorted(str(p) for p in Path(CLAIMS_TABLE).iterdir()),
    output:
        "results/REPRODUCTION.md",
    conda:
        CONDA_ENV
    log:
        "results/logs/claims.log",
    params:
        python=PYTHON,
        table=lambda w, input: os.path.dirname(input.table[0]),
        results=lambda w: CLAIMS_FROM,
    shell:
        "{params.python} -m drfbench claims --table {params.table} --results {params.results} "
        "--out {output} 2> {log}"


# The stability report (docs/claims.md, "Stability"): with --config seed_offset=K, this
# profile's run on fresh seeds (results/<profile>-seeds<K>/), then every verdict decided
# again on it by the table as it is (its fingerprint in the report) beside the verdict on the
# reference results; a claim reading a file of another profile is "not rerun". Copy the
# report to reference/claims_stability.csv to render it under REPRODUCTION.md's summary.
if config["seed_offset"]:
    # the files the table reads of this profile, as this run (on fresh seeds) makes them
    CLAIMS_FRESH = [str(Path("results", NAME, *rest)) for profile, *rest in
                    (Path(f).parts for f in _claims.files(_claims.load(CLAIMS_TABLE)))
                    if _claims.fresh_name(profile, config["seed_offset"]) == NAME]

    rule claims_stability:
        localrule: True
        input:
            table=sorted(str(p) for p in Path(CLAIMS_TABLE).iterdir()),
            results=CLAIMS_FRESH,
        output:
            f"results/{NAME}/claims_stability.csv",
        conda:
            CONDA_ENV
        log:
            f"results/{NAME}/logs/claims_stability.log",
        params:
            python=PYTHON,
            table=CLAIMS_TABLE,
            reference=f"{workflow.basedir}/reference",
            offset=config["seed_offset"],
        shell:
            "{params.python} -m drfbench claims --table {params.table} --results {params.reference} "
            "--fresh results --seed-offset {params.offset} --stability {output} 2> {log}"
