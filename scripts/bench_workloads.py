"""Time drfbench.workloads.generate and report the process's peak RSS.

Run it in a fresh process (peak RSS is the whole process's high-water mark):

    python scripts/bench_workloads.py --profile G0 --tenants 1000000 --resources 100000

Prints the median and every one of --repeats wall-clock times, and the peak RSS
(resource.getrusage(RUSAGE_SELF).ru_maxrss) before and after generating. Each workload
is dropped before the next is generated, so the peak is that of one generation.
"""
import argparse
import gc
import platform
import resource
import statistics
import sys
import time

import numpy as np


def peak_rss_mib():
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KiB on Linux, bytes on macOS
    return kib / 1024.0 / (1024.0 if sys.platform == "darwin" else 1.0)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="G0")
    p.add_argument("--tenants", type=int, default=1_000_000)
    p.add_argument("--resources", type=int, default=100_000)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--weights", default=None, choices=["random"])
    p.add_argument("--threads", type=int, default=None, help="default: OpenMP's default")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)

    from drfbench import workloads
    from drfbench._kernels import workloads as kernel

    rss_before = peak_rss_mib()
    times, nnz = [], 0
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        wl = workloads.generate(args.profile, args.tenants, args.resources, seed=args.seed,
                                dtype=np.dtype(args.dtype), weights=args.weights,
                                threads=args.threads)
        times.append(time.perf_counter() - t0)
        nnz = wl.nnz
        del wl
        gc.collect()
    threads = args.threads or kernel.max_threads()
    print(f"profile={args.profile} tenants={args.tenants} resources={args.resources} "
          f"dtype={args.dtype} threads={threads} nnz={nnz} machine={platform.machine()} "
          f"cpu={cpu_model()!r}")
    print(f"time_s median={statistics.median(times):.3f} runs=" +
          ",".join(f"{t:.3f}" for t in times))
    print(f"peak_rss_mib={peak_rss_mib():.1f} (after imports: {rss_before:.1f})")


if __name__ == "__main__":
    main()
