"""Build more kernel variants in place, in this checkout (what the vector-width sweep needs).

    python -m drfbench.build_variants avx512 [scalar ...]    # or: all
    python -m drfbench.build_variants --skip-unsupported scalar avx512  # those this CPU runs
    python -m drfbench.build_variants --family dcdrf scalar   # only the DC-DRF family's kernels

`pip install -e .` builds only what this machine runs: the generic variant and the widest
one its CPU has the flags for. This builds others beside them, whether or not this CPU can
run them (compiling needs only the compiler), with setup.py as the install does: into the
checkout drfbench is imported from, translating nothing and compiling nothing that is
already built (setup.py's content cache), so a second call takes seconds. Every variant
already built here is brought up to date with the same sources at the same time.

It needs a source checkout (drfbench imported from it, as after `pip install -e .`) and
Cython and setuptools in this Python (`pip install -e '.[pipeline]'` has them). In an
install that is not a checkout it only checks that the variants are there (installed with
DRFBENCH_VARIANTS=...), and says how to get them if they are not.

With --family F it adds to a variant only the kernels of drfbench/F/ and the house's own
(drfbench/_native/: platform, which every result's provenance reads): what the pipeline's
vector-width sweep runs, the DC-DRF family's methods, in a quarter of the compiling. A kernel
of another family in that variant is then an error naming this command, which, without
--family (as an install), completes the variant.
"""
import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from ._isa import built, missing_features
from ._variants import BUILD_COMMAND, ENV_VARIABLE, KERNELS_VARIABLE, platform_variants

CHECKOUT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(prog=BUILD_COMMAND,
                                     description="Build kernel variants in place, in this checkout.")
    parser.add_argument("variants", nargs="+", metavar="VARIANT", choices=[*platform_variants(), "all"],
                        help=f"{', '.join(platform_variants())}, or all")
    parser.add_argument("--skip-unsupported", action="store_true",
                        help="build only those this CPU can run (the pipeline's sweep: a job "
                             "on a CPU without a variant's features writes a skipped row)")
    parser.add_argument("--family", help="add only this family's kernels (drfbench/FAMILY/*.pyx) "
                                          "and the house's (platform) to the variants: what "
                                          "its own sweep runs")
    args = parser.parse_args(argv)
    kernels = []        # setup.py's DRFBENCH_KERNELS (none: every kernel)
    if args.family:
        kernels = sorted(p.stem for p in (CHECKOUT / "drfbench" / args.family).glob("*.pyx"))
        if not kernels:
            parser.error(f"--family {args.family}: no kernel source in drfbench/{args.family}/")
        kernels += [p.stem for p in (CHECKOUT / "drfbench/_native").glob("*.pyx")]
    variants = args.variants
    if args.skip_unsupported:
        variants = [v for v in (platform_variants() if "all" in variants else variants)
                    if not missing_features(v)]
        if not variants:
            parser.exit(0, f"{BUILD_COMMAND}: nothing this CPU runs was asked for\n")
    names = ",".join(variants)
    if not (CHECKOUT / "setup.py").is_file() or not (CHECKOUT / "drfbench/_native").is_dir():
        wanted = platform_variants() if "all" in variants else variants
        if all(built(name) for name in wanted):      # e.g. installed with DRFBENCH_VARIANTS=all
            parser.exit(0, f"{BUILD_COMMAND}: {', '.join(wanted)} already built\n")
        parser.exit(2, f"{BUILD_COMMAND}: drfbench is imported from {CHECKOUT / 'drfbench'}, "
                       f"not from a source checkout, so it cannot be built in place; install it "
                       f"again from the checkout with the variants: "
                       f"{ENV_VARIABLE}={names} pip install CHECKOUT\n")
    missing = [tool for tool in ("Cython", "setuptools") if importlib.util.find_spec(tool) is None]
    if missing:
        parser.exit(2, f"{BUILD_COMMAND}: building needs {' and '.join(missing)} in this Python "
                       f"({sys.executable}): pip install -e '.[pipeline]'\n")
    build = subprocess.run([sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"],
                           cwd=CHECKOUT, env={**os.environ, ENV_VARIABLE: names,
                                              KERNELS_VARIABLE: ",".join(kernels)})
    if build.returncode:
        parser.exit(build.returncode, f"{BUILD_COMMAND}: setup.py failed building {names} (its output is above)\n")


if __name__ == "__main__":
    main()
