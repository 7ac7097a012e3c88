"""Benchmark entry point: time the allocators on one workload and compare them.

    drfbench bench --demand-profile G0 --tenants 100000 --resources 10000 \\
        --methods edrf,dcdrf,pedrf1 --epsilons 0,1e-3,1e-2 --repeats 3

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
import itertools
import resource
import statistics
import sys
import time

import numpy as np

from .. import _isa, api
from . import metrics, workloads
from .. import rows as tidy
from .._command import (COUNT, NATURAL, Parser, flag, input_file, option_flag, option_type,
                        output, run)
from .._machine import resolve_threads
from .._validation import demand_matrix
from ..api import ISA, THREADS
from .catalog import DEADLINE, DEMANDS, EPSILON
from .demands import allocate
from .methods import BASELINE

# The declared options swept, a configuration per value (a flag each taking a comma list,
# epsilon's in the plural), with the value a method that does not take the option runs at;
# and those given once for every configuration (a flag each, as declared).
SWEPT = {EPSILON: EPSILON.default, THREADS: 1}
GIVEN = (ISA, DEADLINE)


def comma_list(convert=str):
    """An argparse type: comma-separated values, each read by `convert` (`many_core` writes
    a list so: its `comma` attribute)."""
    def read(text):
        return [convert(x) for x in text.split(",") if x]
    read.comma = True
    return read


def parser():
    p = Parser(prog="drfbench bench", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--demand-profile", default="G0", choices=workloads.DEMAND_PROFILES, help="Table 3")
    p.add_argument("--tenants", type=COUNT, default=20_000)
    p.add_argument("--resources", type=COUNT, default=2_000)
    p.add_argument("--seed", type=NATURAL, default=0)
    p.add_argument("--workload", type=input_file,
                   help="load this .npz workload instead of generating one")
    p.add_argument("--methods", type=comma_list(), default=list(api.methods(family="dcdrf")),
                   help="comma-separated methods taking divisible demands (default: the "
                        "DC-DRF family's)")
    p.add_argument(flag(EPSILON.name + "s"), dest=EPSILON.name, default=[0.0, 1e-3, 1e-2],
                   type=comma_list(option_type(EPSILON)["type"]),
                   metavar=EPSILON.name.upper() + "S")
    p.add_argument(flag(THREADS.name), dest=THREADS.name, default=None,
                   type=comma_list(option_type(THREADS)["type"]),
                   help="comma-separated thread counts (default: 1 and the default count, "
                        "OMP_NUM_THREADS or every usable CPU)")
    p.add_argument("--dtypes", type=comma_list(), default=["float32"])
    for option in GIVEN:
        option_flag(p, option)
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
        setattr(args, ISA.name, _isa.resolve(getattr(args, ISA.name)))
    except ValueError as exc:     # unknown, unsupported or not built here
        p.error(str(exc))
    args.swept = {o.name: getattr(args, o.name) for o in SWEPT}
    args.given = {o.name: getattr(args, o.name) for o in GIVEN}
    threads = args.swept[THREADS.name]
    args.swept[THREADS.name] = (sorted({1, resolve_threads()}) if threads is None else
                                [resolve_threads(t) for t in threads])      # "all": None
    return args


def configurations(args):
    """(method, its swept options by name, dtype) for every run the arguments ask for, in
    the order of SWEPT then the dtypes; an option the method does not take at SWEPT's value."""
    for method in args.methods:
        spec = api.method_info(method)
        values = [[(o.name, v) for v in (args.swept[o.name] if spec.takes_option(o.name)
                                         else [alone])] for o, alone in SWEPT.items()]
        for swept in itertools.product(*values):
            for dtype in args.dtypes:
                yield method, dict(swept), dtype


# What each column of the table means (printed under it).
LEGEND = {
    "method": "the registered method", "eps": EPSILON.name, "thr": THREADS.name,
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


def floors(demands, threads, repeats, variant=None):
    """Medians over `repeats` of drfbench/dcdrf/floor.pyx's two floors on CSR demands.

    Parameters
    ----------
    demands : scipy.sparse CSR matrix
    threads : int
    repeats : int
    variant : str, optional
        The kernels' variant (`isa`).

    Returns
    -------
    stream : float
        Seconds of one streaming pass over the non-zeros.
    scatter : float
        Seconds of one pass adding each into its resource's sum (the least work of exact
        EDRF).
    """
    kernels = _isa.kernels(variant).floor
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
    variant = args.given[ISA.name]
    stamp = tidy.stamp(variant)
    print(f"# drfbench {stamp['drfbench_version']} on {stamp['cpu_model']} "
          f"({stamp['cpu_count']} cpus, openmp={stamp['openmp']}), kernels: {variant}",
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
        threads = max(args.swept[THREADS.name])
        floor, scatter_floor = floors(demands[args.dtypes[0]], threads, args.repeats, variant)
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
    stamps = {variant: stamp}      # by the variant that ran ("numpy": classic DRF's, none)
    for method, swept, dtype in configurations(args):
        given = {**args.given}      # the variant only to a method of the kernels
        if not api.method_info(method).takes_option(ISA.name):
            given[ISA.name] = None
        times = []
        for _ in range(args.repeats):   # keep only the last result: each holds an allocation
            last = allocate(demands[dtype], method, weights=wl.weights, **swept, **given)
            times.append(last.elapsed)
        if last.isa not in stamps:
            stamps[last.isa] = tidy.stamp(last.isa)
        m = metrics.compare(last, baseline)
        row = {"demand_profile": wl.demand_profile, "tenants": wl.n_tenants, "resources": wl.n_resources,
               "nnz": wl.nnz, "seed": wl.seed, "method": method, **swept, "dtype": dtype,
               ISA.name: last.isa, DEADLINE.name: given[DEADLINE.name], "repeats": args.repeats,
               "elapsed_median": statistics.median(times),
               "elapsed_min": min(times), "elapsed_max": max(times),
               "timed_out": last.timed_out, "baseline": args.baseline,
               "floor": floor, "scatter_floor": scatter_floor, **m, **stamps[last.isa]}
        rows.append(row)
        print(f"{method:10s} {swept[EPSILON.name]:7.0e} {swept[THREADS.name]:3d} {dtype:7s} "
              f"{row['elapsed_median']:9.4f} "
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

