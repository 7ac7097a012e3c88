"""Time two builds of the kernels side by side, in one process.

    python scripts/compare_builds.py OLD [--new NEW] [--isa NAME[,NAME...]]
                                     [--dtypes float32[,float64]] [--threads T[,T...]]
                                     [--kernels edrf-event,dcdrf:0,dcdrf:1e-3]
                                     [--repeats K] [--event-scale N R] [--dcdrf-scale N R]
                                     [--reuse-output] [--quick] [--csv FILE]
                                     [--clock kernel|thread-cpu] [--bincount]

OLD (and NEW) is a directory holding a build's `drfbench` package, i.e. its compiled
`_kernels*` packages (for instance /work/before/drfbench); NEW defaults to the drfbench
this Python imports. A build's extension modules are loaded by file path under module
names of their own (`old_avx512.edrf_event`: an extension's init function is found from
the last component of the name), so both builds, and every variant of each, live in this
process and see the same inputs, validated once as drfbench.allocate validates them. Each
kernel is then called directly with the arguments drfbench.dcdrf.methods passes it, old and new
alternately (which one goes first alternates too), after one untimed call each; the variants
are interleaved too (each repeat calls every variant of both builds once, the variants'
order rotating), so that their ratios to each other come from the same minutes as well.

Printed per configuration (kernel x variant x dtype x threads): the medians (and minima)
of the kernel's own elapsed time, the ratio new / old of the medians, and whether the two
builds' last results are the same bits; then, per kernel, dtype and thread count, whether
every variant of each build returned the same bits (avx2 and avx512 contract a*b+c into
FMA, scalar and generic do not, so they may differ in the last bits). --csv writes one
tidy row per timed call, each configuration's as it finishes. --clock thread-cpu times the
calling thread's CPU time instead of the kernel's own (wall) timer: on a shared machine
it leaves out the time other processes took the core, and means something on one thread
only. Default configurations: edrf-event at paper scale (G0, 1M x 100K) and dcdrf at
epsilon 0 and 1e-3 at 100K x 10K, float32, 2 threads, the default variant; --quick runs
all at 10K x 1K. --bincount times one np.bincount pass over the non-zeros by resource
(np.bincount(indices, weights=data, minlength=R): issue 38's floor) after each repeat's
calls, and prints each build's median ratio to it (rows of build "bincount" in the
--csv). Only ratios within one run mean anything on a shared machine.
"""
import argparse
import csv
import importlib.machinery
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

import drfbench
from drfbench import _isa, _validation as check
from drfbench.dcdrf import workloads
from drfbench.dcdrf.catalog import NO_ROUND_LIMIT
from drfbench.dcdrf.demands import output_array

KERNELS = ("edrf_event", "dcdrf")
COLUMNS = ("build", "kernel", "epsilon", "isa", "flags", "dtype", "tenants", "resources",
           "nnz", "threads", "repeat", "clock", "seconds", "same_bits")


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


def build_flags(directory, isa):
    """The compiler flags variant `isa` of the build in `directory` was made with: that
    tree's own drfbench/_variants.py (it imports nothing from drfbench), loaded by path."""
    spec = importlib.util.spec_from_file_location(f"_variants_{id(directory)}",
                                                  Path(directory) / "_variants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.flags_string(isa)


def validated(n, m, dtype):
    """G0 demands of `dtype` and unit weights, validated as drfbench.allocate does."""
    t = time.perf_counter()
    demands = workloads.generate("G0", n, m, seed=0).demands.astype(dtype)
    matrix = check.demand_matrix(demands, None)
    weights = check.tenant_weights(None, matrix.shape[0])
    print(f"G0 {n} x {m}, nnz {matrix.nnz}, {matrix.dtype}, "
          f"generated and validated in {time.perf_counter() - t:.1f} s", flush=True)
    return matrix, weights


def call(modules, kernel, m, weights, epsilon, threads, output, clock="kernel"):
    """One kernel call with drfbench.dcdrf.methods' arguments (_run_edrf_event, _run_dcdrf).
    Returns (seconds by `clock`, allocation, level)."""
    allocation = output if output is not None else output_array(m.nnz, m.dtype)
    level = np.zeros(m.shape[0], dtype=np.float64)
    function = getattr(modules[kernel], kernel)
    cpu = time.thread_time()
    _, _, elapsed = function(m.data, m.indices, m.indptr, m.shape[1], weights, epsilon,
                             np.inf, NO_ROUND_LIMIT, threads, allocation, level)
    return (elapsed if clock == "kernel" else time.thread_time() - cpu), allocation, level


def bincount_seconds(m):
    """One np.bincount pass over m's non-zeros by resource, seconds (wall)."""
    t = time.perf_counter()
    np.bincount(m.indices, weights=m.data, minlength=m.shape[1])
    return time.perf_counter() - t


def compare(builds, flags, config, m, weights, threads, repeats, reuse_output, clock,
            bincount=False):
    """Old and new of every variant in `config`'s list on the same inputs, interleaved: each
    repeat calls every variant once per build (the variants' order rotating, old and new
    alternating which goes first), then one np.bincount pass if `bincount`. One printed
    line per variant, one more with bincount (`flags`: (isa, build) -> its compiler flags,
    a column of the rows); returns the tidy rows of the timed calls and
    each variant's last results (old, new)."""
    label, kernel, epsilon, isas = config
    keys = [(isa, side) for isa in isas for side in builds]
    outputs = {key: (output_array(m.nnz, m.dtype) if reuse_output else None) for key in keys}
    times = {key: [] for key in keys}
    bincounts = []
    last = {}
    for isa, side in keys:                                 # untimed: first touches
        call(builds[side][isa], kernel, m, weights, epsilon, threads, outputs[isa, side], clock)
    for r in range(repeats):
        for i in range(len(isas)):
            isa = isas[(r + i) % len(isas)]
            for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                elapsed, allocation, level = call(builds[side][isa], kernel, m, weights,
                                                  epsilon, threads, outputs[isa, side], clock)
                times[isa, side].append(elapsed)
                last[isa, side] = (allocation.copy() if reuse_output else allocation, level)
        if bincount:
            bincounts.append(bincount_seconds(m))
    scale = f"{m.shape[0]} x {m.shape[1]}"
    rows = []
    for isa in isas:
        old, new = (float(np.median(times[isa, side])) for side in ("old", "new"))
        same = all(np.array_equal(a, b) for a, b in zip(last[isa, "old"], last[isa, "new"]))
        print(f"{label:<15s} {isa:<8s} {str(m.dtype):<8s} {scale:>17s} {threads:>7d} "
              f"{old * 1e3:>9.2f} {new * 1e3:>9.2f} {min(times[isa, 'old']) * 1e3:>9.2f} "
              f"{min(times[isa, 'new']) * 1e3:>9.2f} {new / old:>8.3f}  "
              f"{'yes' if same else 'NO'}", flush=True)
        if bincount:
            ratios = {side: np.median(np.array(times[isa, side]) / bincounts)
                      for side in ("old", "new")}
            print(f"{'':<15s} np.bincount median {np.median(bincounts) * 1e3:.2f} ms, "
                  f"min {min(bincounts) * 1e3:.2f} ms; median per-pair ratio to it: "
                  f"old {ratios['old']:.2f}, new {ratios['new']:.2f}", flush=True)
        rows += [dict(build=side, kernel=kernel.replace("_", "-"), epsilon=epsilon, isa=isa,
                      flags=flags[isa, side], dtype=str(m.dtype), tenants=m.shape[0],
                      resources=m.shape[1], nnz=m.nnz, threads=threads, repeat=r,
                      clock=clock, seconds=t, same_bits=same)
                 for side in ("old", "new") for r, t in enumerate(times[isa, side])]
    rows += [dict(build="bincount", kernel="np.bincount", dtype=str(m.dtype),
                  tenants=m.shape[0], resources=m.shape[1], nnz=m.nnz, repeat=r,
                  clock="wall", seconds=t) for r, t in enumerate(bincounts)]
    return rows, [last[key] for key in keys]


def kernel_spec(text):
    """`edrf-event` or `dcdrf:EPSILON` -> (label, kernel, epsilon)."""
    name, _, eps = text.partition(":")
    if name == "edrf-event" and not eps:
        return "edrf-event", "edrf_event", 0.0
    if name == "dcdrf" and eps:
        return f"dcdrf eps={eps}", "dcdrf", float(eps)
    raise argparse.ArgumentTypeError(f"expected edrf-event or dcdrf:EPSILON, got {text!r}")


def listed(convert):
    return lambda text: [convert(x) for x in text.split(",") if x]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", help="directory holding the older build's drfbench package")
    p.add_argument("--new", default=None,
                   help="directory holding the newer build's drfbench package "
                        "(default: the drfbench this Python imports)")
    p.add_argument("--isa", type=listed(str), default=None,
                   help="kernel variants, comma-separated, or all (default: $DRFBENCH_ISA, "
                        "else the widest runnable)")
    p.add_argument("--dtypes", type=listed(np.dtype), default=[np.dtype("float32")])
    p.add_argument("--kernels", type=listed(kernel_spec),
                   default=[kernel_spec(k) for k in ("edrf-event", "dcdrf:0", "dcdrf:1e-3")],
                   help="comma-separated: edrf-event, dcdrf:EPSILON (default: "
                        "edrf-event,dcdrf:0,dcdrf:1e-3)")
    p.add_argument("--repeats", type=int, default=None, help="timed calls per build "
                   "and configuration (default 5, 3 with --quick)")
    p.add_argument("--threads", type=listed(int), default=[2])
    p.add_argument("--event-scale", type=int, nargs=2, metavar=("N", "R"),
                   default=None, help="edrf-event's tenants and resources (1000000 100000)")
    p.add_argument("--dcdrf-scale", type=int, nargs=2, metavar=("N", "R"),
                   default=None, help="dcdrf's tenants and resources (100000 10000)")
    p.add_argument("--reuse-output", action="store_true",
                   help="one output buffer per build, reused (default: a fresh one per "
                        "call, as drfbench.allocate makes)")
    p.add_argument("--quick", action="store_true", help="everything at 10K x 1K")
    p.add_argument("--csv", default=None, help="write one tidy row per timed call here")
    p.add_argument("--clock", choices=("kernel", "thread-cpu"), default="kernel",
                   help="the kernel's own timer (default), or the calling thread's CPU time")
    p.add_argument("--bincount", action="store_true",
                   help="one np.bincount pass over the non-zeros after each repeat, and "
                        "each build's median ratio to it")
    args = p.parse_args(argv)
    small = (10_000, 1_000)
    event_scale = tuple(args.event_scale or (small if args.quick else (1_000_000, 100_000)))
    dcdrf_scale = tuple(args.dcdrf_scale or (small if args.quick else (100_000, 10_000)))
    repeats = args.repeats or (3 if args.quick else 5)

    isas = (_isa.runnable() if args.isa == ["all"]
            else [_isa.resolve(name) for name in (args.isa or [None])])
    new_dir = args.new or Path(drfbench.__file__).parent
    sides = (("old", args.old), ("new", new_dir))
    builds = {side: {isa: load_build(directory, isa, side) for isa in isas}
              for side, directory in sides}
    flags = {(isa, side): build_flags(directory, isa) for isa in isas for side, directory in sides}
    print(f"old: {Path(args.old).resolve()}\nnew: {Path(new_dir).resolve()}\n"
          + "".join(f"variant {isa} {side}: {flags[isa, side]}\n"
                    for isa in isas for side, _ in sides)
          + f"{args.clock} clock, medians of {repeats} alternating calls, "
          f"{'reused' if args.reuse_output else 'fresh'} output buffers", flush=True)
    out = open(args.csv, "w", newline="") if args.csv else None
    writer = csv.DictWriter(out, fieldnames=COLUMNS) if out else None
    if writer:
        writer.writeheader()
    for dtype in args.dtypes:
        scales = {kernel: event_scale if kernel == "edrf_event" else dcdrf_scale
                  for _, kernel, _ in args.kernels}
        inputs = {scale: validated(*scale, dtype) for scale in dict.fromkeys(scales.values())}
        print(f"{'kernel':<15s} {'variant':<8s} {'dtype':<8s} {'tenants x res.':>17s} "
              f"{'threads':>7s} {'old ms':>9s} {'new ms':>9s} {'old min':>9s} "
              f"{'new min':>9s} {'new/old':>8s}  same bits")
        for label, kernel, epsilon in args.kernels:
            for threads in args.threads:
                new_rows, results = compare(builds, flags, (label, kernel, epsilon, isas),
                                            *inputs[scales[kernel]], threads, repeats,
                                            args.reuse_output, args.clock, args.bincount)
                if writer:
                    writer.writerows(new_rows)
                    out.flush()
                if len(isas) > 1:
                    same = all(np.array_equal(a, b) for result in results[1:]
                               for a, b in zip(results[0], result))
                    print(f"{label}, {dtype}, {threads} thread(s): every variant of both "
                          f"builds the same bits: {'yes' if same else 'NO'}", flush=True)
    if out:
        out.close()


if __name__ == "__main__":
    main()
