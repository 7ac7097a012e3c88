# REPRODUCTION.md rendered from the claims table (reference/claims/, docs/claims.md) over a
# results directory: the committed reference results by default, or your own with
#   snakemake --cores all --config claims_from=results -- claims
# which writes results/REPRODUCTION.md. Every file the table reads (under <profile>/<family>/)
# must be there: the command names the first that is not. Seconds: never a cluster job.
import os
from pathlib import Path

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
