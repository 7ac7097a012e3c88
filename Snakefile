# drfbench pipeline: setup only (docs/architecture.md). Each family's rules live in
# workflows/rules/<family>*.smk, its config key and defaults in
# workflows/schemas/<family>.schema.yaml; a profile (workflows/config/) says only its scale;
# the figures are made by workflows/figures.smk, REPRODUCTION.md by workflows/claims.smk.
#   snakemake --cores all                                            # smoke profile
#   snakemake --cores all --config repeats=1                         # smoke, overridden
#   snakemake --cores all --configfile workflows/config/default.yaml # 100K x 10K
#   snakemake --cores all --configfile workflows/config/paper.yaml   # 1M x 100K
import os
import sys
from pathlib import Path

from snakemake.settings.types import DeploymentMethod
from snakemake.utils import min_version

from drfbench import pipeline
from drfbench.dcdrf import sweeps

min_version("9.0")

# `snakemake --cores all --report report.html`: this description first, then every figure
# with its caption (workflows/figures.smk)
report: "workflows/report/workflow.rst"


if not workflow.overwrite_configfiles:  # no --configfile: the smoke profile, --config on top

    configfile: f"{workflow.basedir}/workflows/config/smoke.yaml"


pipeline.configure(config, f"{workflow.basedir}/workflows/schemas")

# Every rule runs in one software environment: with `--software-deployment-method conda`,
# workflows/envs/drfbench.yaml, where its post-deploy script builds drfbench from this
# checkout; otherwise the interpreter running Snakemake, with drfbench installed, called by
# its name: its folder goes first on the PATH here, in every process that reads this file (a
# cluster job's too), so that the report's parameters show no local path.
CONDA_ENV = f"{workflow.basedir}/workflows/envs/drfbench.yaml"
os.environ.update(DRFBENCH_SOURCE=workflow.basedir)  # set for the post-deploy script
# the checkout as the rules name its files: relative to the working directory, as the results
# are, so that the report shows no local path
CHECKOUT = os.path.relpath(workflow.basedir)
USES_CONDA = DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
if not USES_CONDA:
    os.environ.update(PATH=os.pathsep.join([os.path.dirname(sys.executable),
                                            os.environ.get("PATH", os.defpath)]))
PYTHON = "python" if USES_CONDA else os.path.basename(sys.executable)
NAME = config["name"]
TARGETS = []    # each family's rules file adds the results it makes
NOTEBOOKS = {}  # and the notebooks that draw its figures (workflows/figures.smk runs them)


wildcard_constraints:
    name="[A-Za-z0-9-]+",


for _rules in sorted(Path(workflow.basedir, "workflows/rules").glob("*.smk")):

    include: _rules


include: "workflows/figures.smk"
include: "workflows/claims.smk"


rule all:
    input:
        TARGETS,
        rules.figures.input,
