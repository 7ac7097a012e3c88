"""Measure edrf-event against issue 3's targets, and show where its time goes.

    python scripts/profile_edrf_event.py phases  [N R [THREADS [REPEATS]]]
        the kernel's own phase timestamps on G0 (transposition, sums, heaps,
        events, allocation), the default variant (drfbench._isa.kernels, as
        drfbench.allocate runs) called directly on a reused allocation buffer, each call
        followed by one np.bincount pass (the issue-38 floor, below)
    python scripts/profile_edrf_event.py paper   [PROFILE [REPEATS [N R]]]
        paper scale (1M x 100K, float32) through drfbench.allocate on 2 threads, in
        this process, each run followed by one np.bincount pass: elapsed (the
        kernel's), wall time and bincount's per run, the median of the ratio elapsed /
        bincount, rounds, the one-pass floors in the same run, peak RSS of the process
        (workload included)
    python scripts/profile_edrf_event.py profiles [REPEATS [N R]]
        `paper` for each of the six demand profiles, each in a fresh process
    python scripts/profile_edrf_event.py compare [N R [REPEATS]]
        side by side at 100K x 10K: edrf-event (2 threads), dcdrf epsilon 0 (1 and 2
        threads), edrf (one run: it is slow), the floor, and the largest relative
        difference of edrf-event's allocation from edrf's in float64 and float32

Timings are medians unless said otherwise (`compare` after one untimed call per
configuration); the machine is shared, so compare ratios within one run. The floors:
one streaming pass that sums the non-zeros (data, as float64), numpy's on one thread and
the same split in two halves on two threads, and drfbench's (drfbench/dcdrf/floor.pyx) on two
threads, both that one (stream) and one pass summing the non-zeros by resource
(scatter: the least work of exact EDRF, which needs every resource's mu_r before its
first round). Issue 38's floor, timed beside each run: one np.bincount pass over the
non-zeros, np.bincount(indices, weights=data, minlength=R) (one thread, float64 sums).
"""
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import drfbench
from drfbench import _isa
from drfbench.dcdrf import workloads
from drfbench.dcdrf.bench import floors, peak_rss_mib

PHASES = ("transposition", "sums", "heaps", "events", "allocation")


def bincount_seconds(D):
    """One np.bincount pass over D's non-zeros by resource (issue 38's floor), seconds."""
    t = time.perf_counter()
    np.bincount(D.indices, weights=D.data, minlength=D.shape[1])
    return time.perf_counter() - t


def print_bincount(elapsed, bincount):
    """Per-run bincount times and the median of the per-run ratios elapsed / bincount."""
    ratios = np.array(elapsed) / np.array(bincount)
    print("  bincount per run:         " + " ".join(f"{x:.3f}" for x in bincount))
    print(f"  median bincount {np.median(bincount):.3f} s, elapsed / bincount per run "
          + " ".join(f"{x:.2f}" for x in ratios) + f", median {np.median(ratios):.2f}")


def floor_seconds(D, repeats=5):
    """Medians of the floors on demands D: numpy's streaming sum on one and two threads,
    drfbench's streaming and by-resource sums on two threads."""
    data = D.data
    one, two = [], []
    half = data.shape[0] // 2
    with ThreadPoolExecutor(2) as pool:
        for _ in range(repeats):
            t = time.perf_counter()
            data.sum(dtype=np.float64)
            one.append(time.perf_counter() - t)
            t = time.perf_counter()
            sum(pool.map(lambda part: part.sum(dtype=np.float64), (data[:half], data[half:])))
            two.append(time.perf_counter() - t)
    return (float(np.median(one)), float(np.median(two)), *floors(D, 2, repeats))


def print_floors(D, elapsed=None):
    """The floors of floor_seconds, and `elapsed` as a multiple of each."""
    floors = floor_seconds(D)
    names = ("numpy, 1 thread", "numpy, 2 threads", "stream kernel, 2 threads",
             "scatter kernel, 2 threads")
    for name, seconds in zip(names, floors):
        ratio = f"   elapsed / floor = {elapsed / seconds:.1f}" if elapsed else ""
        print(f"  floor ({name}) {seconds * 1e3:.1f} ms{ratio}")


def phases(n=1_000_000, m=100_000, threads=2, repeats=3):
    kernels = _isa.kernels()
    edrf_event = kernels.edrf_event.edrf_event
    D = workloads.generate("G0", n, m, seed=0).demands
    w = np.ones(n)
    allocation = np.zeros(D.nnz, dtype=D.dtype)
    print(f"G0 {n} x {m}, nnz {D.nnz}, {threads} thread(s), variant {kernels.name}")
    print("   " + " ".join(f"{p:>10s}" for p in PHASES) + "      total  rounds  bincount")
    elapsed, bincount, steps = [], [], []
    for _ in range(repeats):
        level = np.zeros(n)
        stamps = np.zeros(len(PHASES))
        rounds, _, seconds = edrf_event(D.data, D.indices, D.indptr, m, w, 0.0, np.inf, 2**62,
                                        threads, allocation, level, stamps)
        elapsed.append(seconds)
        bincount.append(bincount_seconds(D))
        steps.append(np.diff(np.concatenate([[0.0], stamps])))
        print("   " + " ".join(f"{s:10.3f}" for s in steps[-1])
              + f" {seconds:10.3f}  {rounds}  {bincount[-1]:8.3f}")
    print("   " + " ".join(f"{s:10.3f}" for s in np.median(steps, axis=0))
          + f" {np.median(elapsed):10.3f}  (medians)")
    print_bincount(elapsed, bincount)
    print_floors(D)


def paper(demand_profile="G0", repeats=3, n=1_000_000, m=100_000):
    t = time.perf_counter()
    D = workloads.generate(demand_profile, n, m, seed=0).demands
    generated = time.perf_counter() - t
    print(f"{demand_profile} {n} x {m}, nnz {D.nnz}, {D.dtype}, generated in {generated:.2f} s, "
          f"peak RSS so far {peak_rss_mib():.0f} MiB")
    elapsed, wall, bincount, rounds = [], [], [], None
    for _ in range(repeats):
        t = time.perf_counter()
        res = drfbench.allocate(D, "edrf-event", threads=2)
        wall.append(time.perf_counter() - t)
        elapsed.append(res.elapsed)
        rounds = res.rounds
        del res
        bincount.append(bincount_seconds(D))
    e, w = float(np.median(elapsed)), float(np.median(wall))
    print("  elapsed per run (kernel): " + " ".join(f"{x:.3f}" for x in elapsed))
    print("  wall per run (allocate):  " + " ".join(f"{x:.3f}" for x in wall))
    print(f"  median elapsed {e:.3f} s, median wall {w:.3f} s, rounds {rounds}")
    print_bincount(elapsed, bincount)
    print_floors(D, e)
    print(f"  peak RSS of the process {peak_rss_mib():.0f} MiB")


def profiles(repeats=3, n=1_000_000, m=100_000):
    for demand_profile in workloads.DEMAND_PROFILES:
        subprocess.run([sys.executable, __file__, "paper", demand_profile, str(repeats), str(n),
                        str(m)], check=True)


def compare(n=100_000, m=10_000, repeats=5):
    """Timings on the workload as generated (float32); accuracy against edrf in float64."""
    D32 = workloads.generate("G0", n, m, seed=0).demands
    D64 = D32.astype(np.float64)

    def median(method, D, **kw):
        """Median kernel time of `repeats` calls after one untimed call (memory new to
        the process: the first call of each configuration pays its page faults)."""
        runs = [drfbench.allocate(D, method, **kw) for _ in range(repeats + 1)][1:]
        return float(np.median([r.elapsed for r in runs])), runs[-1]

    event, ev32 = median("edrf-event", D32, threads=2)
    event1, _ = median("edrf-event", D32, threads=1)
    dc1, dc = median("dcdrf", D32, threads=1)
    dc2, _ = median("dcdrf", D32, threads=2)
    edrf = drfbench.allocate(D32, "edrf")
    print(f"G0 {n} x {m}, nnz {D32.nnz}, float32; rounds: edrf {edrf.rounds}, "
          f"dcdrf {dc.rounds}, edrf-event {ev32.rounds}")
    print(f"  edrf-event, 2 threads    {event:.4f} s")
    print(f"  edrf-event, 1 thread     {event1:.4f} s")
    print(f"  dcdrf eps=0, 1 thread    {dc1:.4f} s   / edrf-event (2 threads) = {dc1 / event:.1f}")
    print(f"  dcdrf eps=0, 2 threads   {dc2:.4f} s   / edrf-event (2 threads) = {dc2 / event:.1f}")
    print(f"  edrf (one run)           {edrf.elapsed:.4f} s   / edrf-event (2 threads) = "
          f"{edrf.elapsed / event:.1f}")
    print_floors(D32, event)
    edrf64 = drfbench.allocate(D64, "edrf")
    ev64 = drfbench.allocate(D64, "edrf-event", threads=2)
    ref = edrf64.allocation.data
    rel64 = np.max(np.abs(ev64.allocation.data - ref) / ref)
    rel32 = np.max(np.abs(ev32.allocation.data.astype(np.float64) - ref) / ref)
    print(f"  largest relative difference of edrf-event's allocation from edrf (float64): "
          f"float64 {rel64:.2e}, float32 {rel32:.2e}")


def main():
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("phases", [])
    if command in ("-h", "--help"):
        print(__doc__)
    elif command == "phases":
        phases(*map(int, args))
    elif command == "paper":
        paper(*(args[:1] + [int(a) for a in args[1:]]))
    elif command == "profiles":
        profiles(*map(int, args))
    elif command == "compare":
        compare(*map(int, args))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
