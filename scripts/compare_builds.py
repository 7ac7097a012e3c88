"""Time two builds of the kernels side by side, in one process.

    python scripts/compare_builds.py OLD [--new NEW] [--isa NAME] [--repeats K]
                                     [--threads T] [--event-scale N R]
                                     [--dcdrf-scale N R] [--reuse-output] [--quick]

OLD (and NEW) is a directory holding a build's `drfbench` package, i.e. its compiled
`_kernels*` packages (for instance /work/before/drfbench); NEW defaults to the drfbench
this Python imports. A build's extension modules are loaded by file path under module
names of their own (`old_avx512.edrf_event`: an extension's init function is found from
the last component of the name), so both builds live in this process and see the same
inputs, validated once as drfbench.allocate validates them. Each kernel is then called
directly with the arguments drfbench.api passes it, old and new alternately (which one
goes first alternates too), after one untimed call each.

Printed per configuration: the medians (and minima) of the kernel's own elapsed time,
the ratio new / old of the medians, and whether the two builds' last results are the
same bits. Configurations: edrf-event at paper scale (G0, 1M x 100K, float32) and dcdrf
at epsilon 0 and 1e-3 at 100K x 10K, on 2 threads; --quick runs all at 10K x 1K. Only
ratios within one run mean anything on a shared machine.
"""
import argparse
import importlib.machinery
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

import drfbench
from drfbench import _isa, _validation as check, api
from drfbench.dcdrf import workloads
from drfbench._variants import flags_string

KERNELS = ("edrf_event", "dcdrf")


def load_build(directory, isa, prefix, kernels=KERNELS):
    """The kernel modules (`kernels`) of variant `isa` from the build in `directory`,
    loaded by file path as `<prefix>_<isa>.<kernel>`."""
    package_dir = Path(directory) / _isa.VARIANTS[isa].package.rpartition(".")[2]
    modules = {}
    for kernel in kernels:
        paths = [package_dir / f"{kernel}{suffix}"
                 for suffix in importlib.machinery.EXTENSION_SUFFIXES]
        path = next((p for p in paths if p.exists()), None)
        if path is None:
            sys.exit(f"compare_builds: no compiled {kernel} of variant {isa!r} in {package_dir}")
        name = f"{prefix}_{isa}.{kernel}"
        loader = importlib.machinery.ExtensionFileLoader(name, str(path))
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        modules[kernel] = module
    return modules


def validated(n, m):
    """G0 demands (float32) and unit weights, validated as drfbench.allocate does."""
    t = time.perf_counter()
    demands = workloads.generate("G0", n, m, seed=0).demands
    matrix = check.demand_matrix(demands, None)
    weights = check.tenant_weights(None, matrix.shape[0])
    print(f"G0 {n} x {m}, nnz {matrix.nnz}, {matrix.dtype}, "
          f"generated and validated in {time.perf_counter() - t:.1f} s")
    return matrix, weights


def call(modules, kernel, m, weights, epsilon, threads, output):
    """One kernel call with drfbench.api's arguments (_run_edrf_event, _run_dcdrf).
    Returns (elapsed, allocation, level)."""
    allocation = output if output is not None else api.output_array(m.nnz, m.dtype)
    level = np.zeros(m.shape[0], dtype=np.float64)
    function = getattr(modules[kernel], kernel)
    _, _, elapsed = function(m.data, m.indices, m.indptr, m.shape[1], weights, epsilon,
                             np.inf, api.NO_ROUND_LIMIT, threads, allocation, level)
    return elapsed, allocation, level


def compare(builds, label, kernel, m, weights, epsilon, threads, repeats, reuse_output):
    """Old and new alternately on the same inputs; one printed line."""
    outputs = {side: (api.output_array(m.nnz, m.dtype) if reuse_output else None)
               for side in builds}
    times = {side: [] for side in builds}
    last = {}
    for side in builds:                                    # untimed: first touches
        call(builds[side], kernel, m, weights, epsilon, threads, outputs[side])
    for r in range(repeats):
        for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
            elapsed, allocation, level = call(builds[side], kernel, m, weights, epsilon,
                                              threads, outputs[side])
            times[side].append(elapsed)
            last[side] = (allocation, level)
    old, new = (float(np.median(times[side])) for side in ("old", "new"))
    same = all(np.array_equal(a, b) for a, b in zip(last["old"], last["new"]))
    scale = f"{m.shape[0]} x {m.shape[1]}"
    print(f"{label:<15s} {scale:>17s} {threads:>7d} {old * 1e3:>9.2f} {new * 1e3:>9.2f} "
          f"{min(times['old']) * 1e3:>9.2f} {min(times['new']) * 1e3:>9.2f} "
          f"{new / old:>8.3f}  {'yes' if same else 'NO'}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", help="directory holding the older build's drfbench package")
    p.add_argument("--new", default=None,
                   help="directory holding the newer build's drfbench package "
                        "(default: the drfbench this Python imports)")
    p.add_argument("--isa", default=None,
                   help="kernel variant (default: $DRFBENCH_ISA, else the widest runnable)")
    p.add_argument("--repeats", type=int, default=None, help="timed calls per build "
                   "and configuration (default 5, 3 with --quick)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--event-scale", type=int, nargs=2, metavar=("N", "R"),
                   default=None, help="edrf-event's tenants and resources (1000000 100000)")
    p.add_argument("--dcdrf-scale", type=int, nargs=2, metavar=("N", "R"),
                   default=None, help="dcdrf's tenants and resources (100000 10000)")
    p.add_argument("--reuse-output", action="store_true",
                   help="one output buffer per build, reused (default: a fresh one per "
                        "call, as drfbench.allocate makes)")
    p.add_argument("--quick", action="store_true", help="everything at 10K x 1K")
    args = p.parse_args(argv)
    small = (10_000, 1_000)
    event_scale = tuple(args.event_scale or (small if args.quick else (1_000_000, 100_000)))
    dcdrf_scale = tuple(args.dcdrf_scale or (small if args.quick else (100_000, 10_000)))
    repeats = args.repeats or (3 if args.quick else 5)

    isa = _isa.resolve(args.isa)
    new_dir = args.new or Path(drfbench.__file__).parent
    builds = {"old": load_build(args.old, isa, "old"), "new": load_build(new_dir, isa, "new")}
    print(f"old: {Path(args.old).resolve()}\nnew: {Path(new_dir).resolve()}\n"
          f"variant {isa} ({flags_string(isa)}), {args.threads} thread(s), "
          f"medians of {repeats} alternating calls, "
          f"{'reused' if args.reuse_output else 'fresh'} output buffers")
    inputs = {scale: validated(*scale) for scale in dict.fromkeys((event_scale, dcdrf_scale))}
    print(f"{'kernel':<15s} {'tenants x res.':>17s} {'threads':>7s} {'old ms':>9s} "
          f"{'new ms':>9s} {'old min':>9s} {'new min':>9s} {'new/old':>8s}  same bits")
    for label, kernel, scale, epsilon in (("edrf-event", "edrf_event", event_scale, 0.0),
                                          ("dcdrf eps=0", "dcdrf", dcdrf_scale, 0.0),
                                          ("dcdrf eps=1e-3", "dcdrf", dcdrf_scale, 1e-3)):
        compare(builds, label, kernel, *inputs[scale], epsilon, args.threads, repeats,
                args.reuse_output)


if __name__ == "__main__":
    main()
