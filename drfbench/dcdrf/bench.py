"""Benchmark entry point: time the allocators on one workload and compare them.

    drfbench bench --demand-profile G0 --tenants 100000 --resources 10000 \\
        --methods edrf,dcdrf,pedrf1 --epsilons 0,1e-3,1e-2 --threads 1,2 --repeats 3

Generates (or loads, --workload) one workload, runs every configuration (method x
epsilon x threads x dtype; epsilon only for methods that take it, threads only for
parallel ones) --repeats times, and prints one line per configuration as it finishes:
median kernel time (the kernel's own timer) with min and max, rounds, and the metrics
against the baseline method's exact allocation. --floor adds the one-pass floors
measured in the same run (drfbench/dcdrf/floor.pyx: one streaming read of the non-zeros, and one
pass adding each into its resource's sum, the least work of exact EDRF), and each
method's time as a multiple of each. --csv writes the same rows, tidy, for later analysis.
"""
import argparse
import resource
import statistics
import sys
import time

import numpy as np

from .. import _isa, api
from . import metrics, workloads
from .. import rows as tidy
from .._command import COUNT, NATURAL, NONNEGATIVE, POSITIVE, Parser, input_file, output, run
from .._machine import resolve_threads
from .._validation import demand_matrix
from .catalog import DEMANDS
from .demands import allocate
from .methods import BASELINE


def float_list(text):
    """Comma-separated finite numbers >= 0 (epsilons)."""
    return [NONNEGATIVE(x) for x in text.split(",") if x]


def int_list(text):
    """Comma-separated counts >= 1 (threads)."""
    return [COUNT(x) for x in text.split(",") if x]


def name_list(text):
    return [x for x in text.split(",") if x]


def parser():
    p = Parser(prog="drfbench bench", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--demand-profile", default="G0", choices=workloads.DEMAND_PROFILES, help="Table 3")
    p.add_argument("--tenants", type=COUNT, default=20_000)
    p.add_argument("--resources", type=COUNT, default=2_000)
    p.add_argument("--seed", type=NATURAL, default=0)
    p.add_argument("--workload", type=input_file,
                   help="load this .npz workload instead of generating one")
    p.add_argument("--methods", type=name_list, default=list(api.methods(family="dcdrf")),
                   help="comma-separated methods taking divisible demands (default: the "
                        "DC-DRF family's)")
    p.add_argument("--epsilons", type=float_list, default=[0.0, 1e-3, 1e-2])
    p.add_argument("--threads", type=int_list, default=None,
                   help="comma-separated thread counts (default: 1 and the default count, "
                        "OMP_NUM_THREADS or every usable CPU)")
    p.add_argument("--dtypes", type=name_list, default=["float32"])
    p.add_argument("--isa", default=None, help=f"kernel variant ({', '.join(_isa.VARIANTS)}; "
                   "default: $DRFBENCH_ISA or the widest this CPU runs)")
    p.add_argument("--deadline", type=POSITIVE, default=None, help="seconds, for every method")
    p.add_argument("--repeats", type=COUNT, default=3)
    p.add_argument("--baseline", default=BASELINE, help="exact method the metrics compare against")
    p.add_argument("--floor", action="store_true", help="also time the one-pass floor")
    p.add_argument("--csv", type=output, help="write one tidy row per configuration to this file")
    return p


def parse_args(argv):
    p = parser()
    return checked(p, p.parse_args(argv))


def checked(p, args):
    """The parsed arguments, with what depends on several of them checked (p.error)."""
    known = api.methods(takes=DEMANDS)
    unknown = [m for m in args.methods + [args.baseline] if m not in known]
    if unknown:
        p.error(f"unknown method(s) {', '.join(unknown)}; methods taking divisible demands: "
                f"{', '.join(known)}")
    bad = [d for d in args.dtypes if d not in ("float32", "float64")]
    if bad:
        p.error(f"--dtypes takes float32 and float64, not {', '.join(bad)}")
    try:
        args.isa = _isa.resolve(args.isa)
    except ValueError as exc:     # unknown, unsupported or not built here
        p.error(str(exc))
    if args.threads is None:
        args.threads = sorted({1, resolve_threads()})
    return args


def configurations(args):
    """(method, epsilon, threads, dtype) for every run the arguments ask for."""
    for method in args.methods:
        spec = api.method_info(method)
        for epsilon in (args.epsilons if spec.takes_option("epsilon") else [0.0]):
            for threads in (args.threads if spec.takes_option("threads") else [1]):
                for dtype in args.dtypes:
                    yield method, epsilon, threads, dtype


# What each column of the table means (printed under it).
LEGEND = {
    "method": "the registered method", "eps": "epsilon", "thr": "threads",
    "dtype": "precision of the demand values",
    "median_s": "median kernel time over --repeats runs, seconds (the kernel's own timer)",
    "min_s": "fastest of those runs", "max_s": "slowest of those runs",
    "rounds": "rounds of the inner loop",
    "t/o": "timed out: y if stopped by the deadline before every tenant left",
    "util": "total allocation relative to the baseline's (1 = as much as exact EDRF)",
    "fair_sd": "fairness: std dev over tenants of (share - baseline share) / baseline share",
    "worst": "shortfall of the worst-off tenant: (baseline share - share) / baseline share",
    "p0.1": "the same for the tenant at the 0.1% worst",
    "x_floor": "median_s as a multiple of the streaming floor (one pass over the non-zeros)",
    "x_scatter": "median_s as a multiple of the by-resource floor (each non-zero added "
                 "into its resource's sum)",
}


def legend(columns):
    """The legend lines for these table columns."""
    width = max(map(len, columns))
    return "\n".join(f"#   {c:<{width}}  {LEGEND[c]}" for c in columns)


def peak_rss_mib():
    """The process's peak resident memory so far, MiB (ru_maxrss: KiB on Linux, bytes on
    macOS).

    Returns
    -------
    float
    """
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def floors(demands, threads, repeats, isa=None):
    """Medians over `repeats` of drfbench/dcdrf/floor.pyx's two floors on CSR demands.

    Parameters
    ----------
    demands : scipy.sparse CSR matrix
    threads : int
    repeats : int
    isa : str, optional
        The kernels' variant.

    Returns
    -------
    stream : float
        Seconds of one streaming pass over the non-zeros.
    scatter : float
        Seconds of one pass adding each into its resource's sum (the least work of exact
        EDRF).
    """
    kernels = _isa.kernels(isa).floor
    stream = statistics.median(kernels.stream_sum(demands.data, threads)[1]
                               for _ in range(repeats))
    scatter = statistics.median(
        kernels.scatter_sum(demands.data, demands.indices, demands.shape[1], threads)[1]
        for _ in range(repeats))
    return stream, scatter


def main(argv=None):
    """The benchmark: its --csv written when it succeeds."""
    p = parser()
    return run(p, lambda args: _main(checked(p, args)), argv, command=None)


def _main(args):
    stamp = tidy.stamp(isa=args.isa)
    print(f"# drfbench {stamp['drfbench_version']} on {stamp['cpu_model']} "
          f"({stamp['cpu_count']} cpus, openmp={stamp['openmp']}), kernels: {args.isa}",
          flush=True)
    t0 = time.perf_counter()
    if args.workload:
        wl = workloads.load(args.workload)
    else:
        wl = workloads.generate(args.demand_profile, args.tenants, args.resources, seed=args.seed,
                                dtype=np.float64 if "float64" in args.dtypes else np.float32)
    print(f"# workload {wl.demand_profile} {wl.n_tenants} x {wl.n_resources}, {wl.nnz} non-zeros, "
          f"{'loaded' if args.workload else 'generated'} in {time.perf_counter() - t0:.2f} s",
          flush=True)
    demands = {d: demand_matrix(wl.demands, d) for d in args.dtypes}

    floor = scatter_floor = None
    if args.floor:
        threads = max(args.threads)
        floor, scatter_floor = floors(demands[args.dtypes[0]], threads, args.repeats, args.isa)
        print(f"floors ({wl.nnz} non-zeros, {threads} threads): one streaming pass "
              f"{floor * 1e3:.2f} ms, one pass summing by resource {scatter_floor * 1e3:.2f} ms",
              flush=True)

    baseline = allocate(demands[args.dtypes[-1]], args.baseline, weights=wl.weights)
    print(f"baseline {args.baseline}: {baseline.elapsed:.3f} s, {baseline.rounds} rounds", flush=True)

    rows = []
    header = (f"{'method':10s} {'eps':>7s} {'thr':>3s} {'dtype':7s} {'median_s':>9s} {'min_s':>8s} "
              f"{'max_s':>8s} {'rounds':>7s} {'t/o':>3s} {'util':>8s} {'fair_sd':>9s} {'worst':>7s} "
              f"{'p0.1':>7s}" + (f" {'x_floor':>8s} {'x_scatter':>9s}" if floor else ""))
    print(header, flush=True)
    columns = header.split()
    stamps = {args.isa: stamp}      # by the variant that ran ("numpy": classic DRF's, none)
    for method, epsilon, threads, dtype in configurations(args):
        isa = args.isa if api.method_info(method).takes_option("isa") else None
        times = []
        for _ in range(args.repeats):   # keep only the last result: each holds an allocation
            last = allocate(demands[dtype], method, weights=wl.weights, epsilon=epsilon,
                                threads=threads, deadline=args.deadline, isa=isa)
            times.append(last.elapsed)
        if last.isa not in stamps:
            stamps[last.isa] = tidy.stamp(last.isa)
        m = metrics.compare(last, baseline)
        row = {"demand_profile": wl.demand_profile, "tenants": wl.n_tenants, "resources": wl.n_resources,
               "nnz": wl.nnz, "seed": wl.seed, "method": method, "epsilon": epsilon,
               "threads": threads, "dtype": dtype, "isa": last.isa, "deadline": args.deadline,
               "repeats": args.repeats, "elapsed_median": statistics.median(times),
               "elapsed_min": min(times), "elapsed_max": max(times),
               "timed_out": last.timed_out, "baseline": args.baseline,
               "floor": floor, "scatter_floor": scatter_floor, **m, **stamps[last.isa]}
        rows.append(row)
        print(f"{method:10s} {epsilon:7.0e} {threads:3d} {dtype:7s} {row['elapsed_median']:9.4f} "
              f"{row['elapsed_min']:8.4f} {row['elapsed_max']:8.4f} {m['rounds']:7d} "
              f"{'y' if row['timed_out'] else 'n':>3s} {m['utilization_ratio']:8.5f} "
              f"{m['fairness']:9.2e} {m['shortfall_worst']:7.4f} {m['shortfall_p0.1']:7.4f}"
              + (f" {row['elapsed_median'] / floor:8.1f} {row['elapsed_median'] / scatter_floor:9.1f}"
                 if floor else ""), flush=True)
    print(f"# columns (baseline: exact {args.baseline}):\n{legend(columns)}", flush=True)
    print(f"# peak RSS {peak_rss_mib():.0f} MiB", flush=True)
    if args.csv:
        tidy.write(rows, args.csv)
    return rows

