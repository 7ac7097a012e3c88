"""Time drfbench.dcdrf.workloads.generate and report peak RSS (median of --repeats runs).

    python scripts/bench_workloads.py --demand-profile G0 --tenants 1000000 --resources 100000

By default every run happens in a fresh Python process (cold memory, as in a pipeline
rule that generates one workload), which reports its wall-clock time for `generate`
and its peak RSS, resource.getrusage(RUSAGE_SELF).ru_maxrss: the high-water mark of the
whole process, imports included. --in-process runs them one after another in this
process instead (warm allocator; each workload is dropped before the next).
"""
import argparse
import gc
import json
import statistics
import subprocess
import sys
import time

from drfbench._machine import cpu_info


def one_run(args):
    """Generate once in this process: (seconds, nnz, peak RSS MiB, threads)."""
    import numpy as np
    from drfbench.dcdrf import workloads
    from drfbench.dcdrf.bench import peak_rss_mib
    from drfbench._machine import resolve_threads

    t0 = time.perf_counter()
    wl = workloads.generate(args.demand_profile, args.tenants, args.resources, seed=args.seed,
                            dtype=np.dtype(args.dtype), weights=args.weights,
                            threads=args.threads)
    elapsed = time.perf_counter() - t0
    nnz = wl.nnz
    del wl
    gc.collect()
    return {"time_s": elapsed, "nnz": nnz, "peak_rss_mib": peak_rss_mib(),
            "threads": resolve_threads(args.threads)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--demand-profile", default="G0", help="Table 3's demand profile")
    p.add_argument("--tenants", type=int, default=1_000_000)
    p.add_argument("--resources", type=int, default=100_000)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--weights", default=None, choices=["random"])
    p.add_argument("--threads", type=int, default=None, help="default: OpenMP's default")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--in-process", action="store_true",
                   help="run the repeats in this process instead of fresh ones")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(one_run(args)))
        return

    runs = []
    for _ in range(args.repeats):
        if args.in_process:
            runs.append(one_run(args))
        else:
            cmd = [sys.executable, __file__, "--child"] + [
                a for a in (argv if argv is not None else sys.argv[1:]) if a != "--child"]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
    times = [r["time_s"] for r in runs]
    print(f"demand_profile={args.demand_profile} tenants={args.tenants} resources={args.resources} "
          f"dtype={args.dtype} weights={args.weights} threads={runs[0]['threads']} "
          f"nnz={runs[0]['nnz']} mode={'in-process' if args.in_process else 'fresh-process'} "
          f"cpu={cpu_info()[0]!r}")
    print(f"time_s median={statistics.median(times):.3f} runs=" +
          ",".join(f"{t:.3f}" for t in times))
    print(f"peak_rss_mib max={max(r['peak_rss_mib'] for r in runs):.1f}")


if __name__ == "__main__":
    main()
