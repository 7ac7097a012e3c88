# drfbench pipeline: setup only (DESIGN.md). Rules live in workflows/*.smk by family.
#   snakemake --cores all                                            # smoke profile
#   snakemake --cores all --configfile workflows/config/default.yaml # 100K x 10K
#   snakemake --cores all --configfile workflows/config/paper.yaml   # 1M x 100K
import sys

from snakemake.utils import min_version, validate

from drfbench import _isa, pipeline

min_version("9.0")


if not config:  # the smoke profile unless --configfile names one (which is not merged with it)

    configfile: f"{workflow.basedir}/workflows/config/smoke.yaml"



validate(config, schema="workflows/schemas/config.schema.yaml")

PYTHON = sys.executable  # the interpreter running Snakemake, with drfbench installed
NAME = config["name"]
RUNNABLE_ISAS = _isa.runnable()
RUNS = pipeline.grid(config, RUNNABLE_ISAS)
for _isa_name in pipeline.skipped_isas(config, RUNNABLE_ISAS):
    print(f"drfbench: skipping kernel variant {_isa_name!r}: this CPU cannot run it "
          f"(runnable: {', '.join(RUNNABLE_ISAS)})", file=sys.stderr)


wildcard_constraints:
    name="[A-Za-z0-9-]+",
    family="|".join(pipeline.FAMILIES),
    workload=r"[A-Z][0-9]-\d+x\d+-s\d+",


include: "workflows/workloads.smk"
include: "workflows/sweeps.smk"
include: "workflows/drf.smk"
include: "workflows/controller.smk"
include: "workflows/figures.smk"


rule all:
    input:
        expand("results/{name}/{family}.csv", name=NAME, family=list(RUNS)),
        expand("results/{name}/controller/{table}.csv", name=NAME,
               table=[f"epsilon_vs_deadline_{m}" for m in CONTROLLER_METHODS] + ["adaptation"]),
        rules.figures.input,
        expand("results/{name}/edrf_extrapolated.csv", name=NAME)
        if "edrf_extrapolated" in PRODUCED else [],
