"""The one tidy-row contract of drfbench's results: columns, provenance stamp, writer, reader.

Every results file drfbench writes (the sweeps, the controller, classic DRF's tables and
simulations, the benchmark's --csv, and every family that comes after them) is a CSV of
tidy rows: one row per measured or simulated thing, its own columns first (parameters,
then measurements), then the provenance stamp, the same columns spelled the same way in
every family:

    row = {"method": "dcdrf", "epsilon": 1e-3, "elapsed": 0.12, **rows.stamp(isa="avx2")}
    rows.write([row, ...], "results/smoke/dcdrf/configs.csv")     # atomic: temp file + rename
    table = rows.read("results/smoke/dcdrf/configs.csv")          # a pandas DataFrame

The schema is a plain tuple of `Column`s rather than a pandera model: rows are written
one run at a time from dicts by the core library, which depends only on numpy and scipy,
and what must hold of every file is that its provenance columns are there, spelled one
way; a DataFrame validator would add pandas and pydantic to the core to check that.
Each family documents its own columns where it builds its rows.
"""
import csv
import datetime
import itertools
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ._io import replacing
from ._version import __version__


@dataclass(frozen=True)
class Column:
    name: str
    meaning: str


PROVENANCE = (
    Column("git_commit", "commit of the source tree drfbench ran from (40 hex digits, "
           "'-dirty' appended if tracked files were modified; 'unknown' outside a checkout)"),
    Column("drfbench_version", "drfbench's version"),
    Column("cpu_model", "the CPU's model name"),
    Column("cpu_count", "logical CPUs of the machine"),
    Column("smt_present", "whether the CPU has SMT (hyperthreading); empty if unknown"),
    Column("openmp", "whether the kernels were built with OpenMP"),
    Column("isa_variant", "the kernels' vector-width variant that ran"),
    Column("isa_flags", "that variant's compile flags"),
    Column("omp_num_threads", "OMP_NUM_THREADS as the process saw it"),
    Column("omp_places", "OMP_PLACES as the process saw it"),
    Column("omp_proc_bind", "OMP_PROC_BIND as the process saw it"),
    Column("omp_wait_policy", "OMP_WAIT_POLICY as the process saw it (empty: OpenMP's default)"),
    Column("host", "the host's name"),
    Column("slurm_job_id", "SLURM_JOB_ID, for jobs run through SLURM"),
    Column("timestamp", "when the stamp was taken: UTC, ISO 8601, seconds"),
)
PROVENANCE_NAMES = tuple(c.name for c in PROVENANCE)


@cache
def git_commit():
    """The commit of the source tree drfbench runs from (see PROVENANCE), looked up once
    per process: a process is one run of one commit."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def stamp(isa=None):
    """The provenance columns for a row measured now, with kernel variant `isa` (default:
    the one drfbench.allocate would pick). Loads the kernels, so call it after the OpenMP
    environment is set."""
    from . import _isa
    from ._machine import cpu_info
    kernels = _isa.kernels(isa)
    model, _, smt = cpu_info()
    values = {
        "git_commit": git_commit(),
        "drfbench_version": __version__,
        "cpu_model": model,
        "cpu_count": os.cpu_count(),
        "smt_present": "" if smt is None else smt,
        "openmp": kernels.platform.openmp_enabled(),
        "isa_variant": kernels.name,
        "isa_flags": kernels.compile_flags,
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
        "omp_places": os.environ.get("OMP_PLACES", ""),
        "omp_proc_bind": os.environ.get("OMP_PROC_BIND", ""),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
        "host": platform.node(),
        "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    return {name: values[name] for name in PROVENANCE_NAMES}


def stamped(rows, isa=None, **columns):
    """`rows` (dicts) with `columns` added to each, then the provenance stamp of kernel
    variant `isa` (see `stamp`): what every result's rows(**columns) returns."""
    provenance = stamp(isa)
    return [{**row, **columns, **provenance} for row in rows]


def columns_of(rows):
    """Every key of `rows`, in the order first seen."""
    return list(dict.fromkeys(itertools.chain.from_iterable(rows)))


def write(rows, path):
    """Write `rows` (dicts; a key missing from a row is written empty) to the CSV `path`,
    atomically: into a temporary file beside it, then renamed over it, so that a reader
    (or an interrupted run) never sees half a file. The file gets the mode any new file
    gets (the umask's). Every row must carry the provenance stamp; no rows: an empty file.
    Returns the path."""
    rows = list(rows)
    for i, row in enumerate(rows):
        lacking = [c for c in PROVENANCE_NAMES if c not in row]
        if lacking:
            raise ValueError(f"{path}: row {i} lacks the provenance column(s) {', '.join(lacking)}; "
                             "stamp every row with drfbench.rows.stamp()")
    with replacing(path) as tmp, open(tmp, "w", newline="") as f:
        if rows:
            writer = csv.DictWriter(f, fieldnames=columns_of(rows), restval="")
            writer.writeheader()
            writer.writerows(rows)
    return Path(path)


def read_rows(path):
    """The rows of a results CSV as dicts of strings (no pandas needed)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read(path):
    """A results CSV as a pandas DataFrame, checked to carry the provenance columns; an
    empty file gives an empty DataFrame."""
    import pandas as pd
    path = Path(path)
    if path.stat().st_size == 0:
        return pd.DataFrame(columns=list(PROVENANCE_NAMES))
    table = pd.read_csv(path)
    missing = [c for c in PROVENANCE_NAMES if c not in table.columns]
    if missing:
        raise ValueError(f"{path} is not a drfbench results file: it lacks the provenance "
                         f"column(s) {', '.join(missing)} (see drfbench.rows.PROVENANCE)")
    return table


def gather(inputs, out):
    """Concatenate the results CSVs `inputs` into `out` (the union of their columns)."""
    return write(itertools.chain.from_iterable(read_rows(p) for p in inputs), out)


def main(argv=None):
    """python -m drfbench.rows gather --out FAMILY.csv ROWS.csv ..."""
    from ._command import Parser, input_file, output, run
    p = Parser(prog="python -m drfbench.rows",
                                description="Concatenate tidy results files.")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gather", help="concatenate row files into one")
    g.add_argument("--out", type=output, required=True)
    g.add_argument("inputs", type=input_file, nargs="*")

    def step(args):
        gather(args.inputs, args.out)
        print(f"gathered {len(args.inputs)} file(s) into {args.out}", file=sys.stderr)
    run(p, step, argv)


if __name__ == "__main__":
    main()
