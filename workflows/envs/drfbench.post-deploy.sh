#!/usr/bin/env bash
# Run by Snakemake inside the new environment, once: build and install drfbench from the
# checkout the workflow was read from (the Snakefile exports its path as DRFBENCH_SOURCE).
set -euo pipefail
DRFBENCH_VARIANTS=all python -m pip install --no-deps --no-build-isolation "${DRFBENCH_SOURCE:?set by the Snakefile}"
