"""Time and memory of writing a long simulation's rows (issue 34, class 4): `drfbench run
drfh-best-fit` on a trace of 5,000 tasks of 100 users arriving over `--days` days, at the
default 60 s sample, rows written to CSV (or any name `--out` gives: .csv.gz, .jsonl).

    python scripts/stream_rows.py [--days 30] [--checkout DIR] [--out rows.csv]

The command runs in a fresh process with PYTHONPATH=DIR (default: this checkout), so
that the same script measures another checkout (main, before the change) on the same
inputs; prints the rows written, the file's size, the wall time, the CPU time (user +
system: steadier than the wall time on a shared machine) and the process's peak
resident memory (its ru_maxrss, from wait4).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def inputs(folder, days, tasks=5000, users=100, seed=0):
    """servers.csv (40 servers, two shapes) and trace.csv (`tasks` tasks of `users` users,
    arrivals uniform over `days` days, durations 10 min to 2 h) in `folder`."""
    rng = np.random.default_rng(seed)
    (folder / "servers.csv").write_text("cpu,mem,count\n16,64,20\n32,128,20\n")
    arrival = np.sort(rng.uniform(0, days * 86400, tasks)).round()
    lines = ["user,job,arrival,duration,cpu,mem"]
    for i, t in enumerate(arrival.tolist()):
        lines.append(f"u{rng.integers(users)},{i},{t:.0f},{rng.uniform(600, 7200):.0f},"
                     f"{rng.uniform(0.5, 4):.2f},{rng.uniform(1, 16):.2f}")
    (folder / "trace.csv").write_text("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--days", type=float, default=30)
    p.add_argument("--checkout", default=str(ROOT))
    p.add_argument("--out", default="rows.csv", help="the rows file's name (its format)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        inputs(folder, args.days)
        out = folder / args.out
        env = {**os.environ, "PYTHONPATH": args.checkout, "OMP_NUM_THREADS": "1"}
        log = folder / "stderr.txt"             # a file, not a pipe: the child never blocks on it
        with open(log, "w") as stderr:
            start = time.perf_counter()
            child = subprocess.Popen([sys.executable, "-m", "drfbench", "run", "drfh-best-fit",
                                      "servers.csv", "trace.csv", "--out", str(out)],
                                     cwd=folder, env=env, stderr=stderr)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - start
        err = log.read_text()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"drfbench run failed: {err}")
        print(err.strip())
        print(f"{args.checkout}: {args.days:g} days, {out.stat().st_size / 1e6:.0f} MB "
              f"{args.out}, wall {wall:.1f} s, CPU {usage.ru_utime + usage.ru_stime:.1f} s, "
              f"peak RSS {usage.ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
