# drfbench pipeline: setup only (DESIGN.md). Rules live in workflows/*.smk by family.
#   snakemake --cores all                                   # smoke profile (default)
#   snakemake --cores all --configfile workflows/config/default.yaml
import sys

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "workflows/config/smoke.yaml"


validate(config, schema="workflows/schemas/config.schema.yaml")

PYTHON = sys.executable  # the interpreter running Snakemake, with drfbench installed


include: "workflows/compare.smk"


rule all:
    input:
        expand("results/{name}/compare/{profile}.csv", name=config["name"],
               profile=config["compare"]["profiles"]),
