#!/usr/bin/env bash
# DC-DRF's kernels before and after a change, on a many-core machine: vector-width
# variants on one thread, and thread scaling at the paper's scale (docs/performance.md).
#
#   OUT=/some/folder scripts/device_scaling.sh
#   scripts/device_scaling.sh --help                 # this text
#
# Run from the repository root, with python3, numpy, scipy, pandas, Cython, pyyaml and a C
# compiler; no network, no pip install. It builds this checkout's kernels in place (every
# variant), and the old ones (OLD_COMMIT's kernels, setup.py and drfbench, taken with
# `git archive`, or the checkout OLD_SRC names) in a scratch folder, then runs
# scripts/compare_builds.py, which loads both builds in one process and calls them
# alternately on the same inputs:
#   variants.csv  dcdrf eps=1e-3, one thread, every variant, float32 and float64,
#                 at VARIANT_SCALE (100000 10000)
#   scaling.csv   dcdrf eps=1e-3 and edrf-event, the widest variant, float32, on
#                 THREADS (1,2,4,8,16) threads, at SCALING_SCALE (1000000 100000),
#                 each repeat followed by one np.bincount pass over the non-zeros
#                 (issue 38's floor; rows of build "bincount")
# one tidy row per timed call (REPEATS of them per build, 5 by default), with the printed
# tables in *.log, and lscpu.txt. The environment variables in capitals shrink the run for
# a check on a small machine; PYTHON picks the interpreter (python3).
set -euo pipefail

if [ $# -gt 0 ]; then
    if [ "$1" = -h ] || [ "$1" = --help ]; then
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
        exit 0
    fi
    echo "device_scaling.sh: takes no argument ($1): its settings are environment variables (--help)" >&2
    exit 2
fi
: "${OUT:?set OUT to the folder the results go to}"
PYTHON=${PYTHON:-python3}
OLD_COMMIT=${OLD_COMMIT:-9620789}
VARIANT_SCALE=${VARIANT_SCALE:-100000 10000}
SCALING_SCALE=${SCALING_SCALE:-1000000 100000}
THREADS=${THREADS:-1,2,4,8,16}
REPEATS=${REPEATS:-5}
VARIANTS=scalar,generic,avx2,avx512

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/device_scaling.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
started=$SECONDS
stamp() { echo "device_scaling: $1 at $((SECONDS - started)) s" | tee -a "$OUT/timing.log"; }

lscpu > "$OUT/lscpu.txt"
{ git rev-parse HEAD 2>/dev/null || echo "no git"; "$PYTHON" --version; cc --version | head -1; } \
    > "$OUT/versions.txt" 2>&1

old_src=${OLD_SRC:-}
if [ -z "$old_src" ]; then
    old_src=$scratch/old
    mkdir -p "$old_src"
    git archive "$OLD_COMMIT" setup.py pyproject.toml kernels drfbench | tar -x -C "$old_src"
fi

# Both builds at once, each with every CPU: their build folders are their own.
build() { (cd "$1" && DRFBENCH_VARIANTS=$VARIANTS "$PYTHON" setup.py build_ext --inplace \
           > "$OUT/build-$2.log" 2>&1) || { echo "device_scaling: the $2 build failed: \
see $OUT/build-$2.log" >&2; return 1; }; }
build "$old_src" old & old_build=$!
build . new
wait $old_build
stamp "built"

compare() { PYTHONPATH=. "$PYTHON" scripts/compare_builds.py "$old_src/drfbench" \
            --repeats "$REPEATS" "$@"; }
# shellcheck disable=SC2086  # the scales are two numbers each
compare --isa $VARIANTS --dtypes float32,float64 --threads 1 --kernels dcdrf:1e-3 \
    --dcdrf-scale $VARIANT_SCALE --csv "$OUT/variants.csv" | tee "$OUT/variants.log"
stamp "variants measured"
# shellcheck disable=SC2086
compare --threads "$THREADS" --kernels dcdrf:1e-3,edrf-event \
    --dcdrf-scale $SCALING_SCALE --event-scale $SCALING_SCALE --bincount \
    --csv "$OUT/scaling.csv" \
    | tee "$OUT/scaling.log"
stamp "scaling measured"
