"""Where edrf-event's time goes: phase timestamps from the kernel, on a G0 workload.

    python scripts/profile_edrf_event.py [n_tenants n_resources [threads [repeats]]]
"""
import sys
import time

import numpy as np

from drfbench import workloads
from drfbench._kernels.edrf_event import edrf_event

PHASES = ("tally", "offsets", "scatter", "heaps", "events", "allocation")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    D = workloads.generate("G0", n, m, seed=0).demands
    w = np.ones(n)
    print(f"G0 {n} x {m}, nnz {D.nnz}, {threads} thread(s)")
    print("   " + " ".join(f"{p:>10s}" for p in PHASES) + "      total  rounds")
    for _ in range(repeats):
        allocation = np.zeros(D.nnz, dtype=D.dtype)
        level = np.zeros(n)
        phases = np.zeros(len(PHASES))
        rounds, _, elapsed = edrf_event(D.data, D.indices, D.indptr, m, w, 0.0, np.inf, 2**62,
                                        threads, allocation, level, phases)
        steps = np.diff(np.concatenate([[0.0], phases]))
        print("   " + " ".join(f"{s:10.3f}" for s in steps) + f" {elapsed:10.3f}  {rounds}")
    t = time.perf_counter()
    D.data.sum(dtype=np.float64)
    print(f"floor (numpy sum of data as float64): {time.perf_counter() - t:.3f} s")


if __name__ == "__main__":
    main()
