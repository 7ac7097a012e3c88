"""The one tidy-row contract of drfbench's results: columns, provenance stamp, writer, reader.

Every results file drfbench writes (the sweeps, the controller, classic DRF's tables and
simulations, the benchmark's --csv, and every family that comes after them) is a CSV of
tidy rows: one row per measured or simulated thing, its own columns first (parameters,
then measurements), then the provenance stamp, the same columns spelled the same way in
every family:

    row = {"method": "dcdrf", "epsilon": 1e-3, "elapsed": 0.12, **rows.stamp(isa="avx2")}
    rows.write([row, ...], "results/smoke/dcdrf/configs.csv")     # atomic: temp file + rename
    rows.write(result.rows(), "rows.csv.gz")                      # streamed, gzip: by the name
    table = rows.read("results/smoke/dcdrf/configs.csv")          # a pandas DataFrame

A result's rows are a `Rows`: produced as they are read, so that writing millions of them
holds one at a time (a simulation's samples stay arrays until then). The file's name says
its format (FORMATS): CSV, gzip-compressed CSV, a JSON array or JSON lines.

The schema is a plain tuple of `Column`s rather than a pandera model: rows are written
one run at a time from dicts by the core library, which depends only on numpy and scipy,
and what must hold of every file is that its provenance columns are there, spelled one
way; a DataFrame validator would add pandas and pydantic to the core to check that.
Each family documents its own columns where it builds its rows.
"""
import csv
import datetime
import gzip
import hashlib
import io
import itertools
import json
import math
import operator
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ._io import refuse_special, replacing
from ._version import __version__


@dataclass(frozen=True)
class Column:
    """A provenance column of every rows file.

    Attributes
    ----------
    name : str
        Its header.
    meaning : str
        What it holds, for the docs.
    """
    name: str
    meaning: str


PROVENANCE = (
    Column("git_commit", "commit of the source tree drfbench ran from (40 hex digits, "
           "'-dirty' appended if tracked files were modified; 'unknown' outside a checkout)"),
    Column("claims_table", "the fingerprint of the claims table the source tree held "
           "(reference/claims/, drfbench.claims.fingerprint): the rules fixed before the data; "
           "empty outside a checkout, and in files written before this column"),
    Column("drfbench_version", "drfbench's version"),
    Column("cpu_model", "the CPU's model name"),
    Column("cpu_count", "logical CPUs of the machine"),
    Column("smt_present", "whether the CPU has SMT (hyperthreading); empty if unknown"),
    Column("openmp", "whether the kernels were built with OpenMP (empty: no kernel ran)"),
    Column("isa_variant", "the kernels' vector-width variant that ran ('numpy': no kernel ran, "
           "the method is NumPy/SciPy code)"),
    Column("isa_flags", "that variant's compile flags (empty: no kernel ran)"),
    Column("omp_num_threads", "OMP_NUM_THREADS as the process saw it"),
    Column("omp_places", "OMP_PLACES as the process saw it"),
    Column("omp_proc_bind", "OMP_PROC_BIND as the process saw it"),
    Column("omp_wait_policy", "OMP_WAIT_POLICY as the process saw it (empty: OpenMP's default)"),
    Column("host", "the host's name"),
    Column("slurm_job_id", "SLURM_JOB_ID, for jobs run through SLURM"),
    Column("timestamp", "when the stamp was taken: UTC, ISO 8601, seconds"),
)
PROVENANCE_NAMES = tuple(c.name for c in PROVENANCE)
ADDED = ("claims_table",)   # provenance columns that files written before them lack: read empty
NO_KERNEL = "numpy"     # the `isa` of a result no kernel made (classic DRF's divisible policies)
# A results file's name ending -> its format; any other ending is refused, naming these.
FORMATS = {".csv": "csv", ".csv.gz": "csv.gz", ".json": "json", ".jsonl": "jsonl"}
# A text cell starting with one of these is a formula to a spreadsheet: written behind "'".
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


# What decides a claim's verdict, and what the paper says (drfbench.claims): the fields a
# claims table's fingerprint hashes (not what is written after the data: measured,
# verdict, why, robust, moves, figure).
RULE_KEYS = ("id", "where", "claim", "paper", "values", "test", "direction", "ci",
             "paper_value", "tolerance")


def fingerprint(papers):
    """A hash of claims-table papers' rules and words: drfbench.claims.fingerprint.

    Parameters
    ----------
    papers : list of dict
        The claims table's papers; each claim's RULE_KEYS and each paper's shared values are
        hashed.

    Returns
    -------
    str
        16 hex digits.
    """
    rules = [{"id": p["id"], "values": p.get("values"),
              "claims": [{k: c[k] for k in RULE_KEYS if k in c}
                         for s in p["sections"] for c in s["claims"]]}
             for p in papers]
    text = json.dumps(rules, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@cache
def claims_table():
    """The fingerprint of the claims table in the source tree drfbench runs from.

    Taken once per process (a process is one run of one table; see PROVENANCE). Read by
    libyaml's parser, unchecked (drfbench.claims.load checks the table, and its fingerprint is
    this one: tests/test_claims.py): a stamp takes milliseconds.

    Returns
    -------
    str
        `fingerprint` of reference/claims/; empty outside a checkout.
    """
    import yaml
    root = Path(__file__).resolve().parents[1] / "reference" / "claims"
    papers = [yaml.load(f.read_text(encoding="utf-8-sig"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
              for f in sorted(root.glob("*.yaml"))]
    return fingerprint(sorted(papers, key=lambda p: p["order"])) if papers else ""


@cache
def git_commit():
    """The commit of the source tree drfbench runs from (see PROVENANCE).

    Looked up once per process: a process is one run of one commit.

    Returns
    -------
    str
        40 hex digits, "-dirty" appended if tracked files were modified; "unknown" outside a
        checkout.
    """
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
    """The provenance columns for a row measured now.

    Loads the kernels, so call it after the OpenMP environment is set.

    Parameters
    ----------
    isa : str, optional
        The kernel variant (default: the one drfbench.allocate would pick; NO_KERNEL for a
        result no kernel made).

    Returns
    -------
    dict
        PROVENANCE's columns, by name, in their order.
    """
    from . import _isa
    from ._machine import cpu_info
    variant, openmp, flags = NO_KERNEL, "", ""
    if isa != NO_KERNEL:
        kernels = _isa.kernels(isa)
        variant, openmp, flags = kernels.name, kernels.platform.openmp_enabled(), kernels.compile_flags
    model, _, smt = cpu_info()
    values = {
        "git_commit": git_commit(),
        "claims_table": claims_table(),
        "drfbench_version": __version__,
        "cpu_model": model,
        "cpu_count": os.cpu_count(),
        "smt_present": "" if smt is None else smt,
        "openmp": openmp,
        "isa_variant": variant,
        "isa_flags": flags,
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
        "omp_places": os.environ.get("OMP_PLACES", ""),
        "omp_proc_bind": os.environ.get("OMP_PROC_BIND", ""),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
        "host": platform.node(),
        "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    return {name: values[name] for name in PROVENANCE_NAMES}


class Rows(Sequence):
    """Tidy rows produced as they are read.

    Iterate it (again and again), or take len() and items like a list's (each walks the rows
    up to it); two are equal when their rows are.

    Parameters
    ----------
    source : list of dict or callable
        The rows, or a function returning a fresh iterator of them (a large result's: its
        rows are then never all held, each is made as the writer or the reader takes it).
    columns : dict, optional
        Columns added to every row.
    """

    def __init__(self, source, columns=None):
        self._source = source if callable(source) else list(source)
        self._columns = dict(columns or {})

    @property
    def streamed(self):
        """Whether the rows are made as they are read (not held)."""
        return callable(self._source)

    def __iter__(self):
        rows = self._source() if self.streamed else self._source
        return ({**row, **self._columns} for row in rows)

    def __len__(self):
        if self.streamed:
            return sum(1 for _ in self._source())
        return len(self._source)

    def __getitem__(self, index):
        if isinstance(index, slice) and all(i is None or i >= 0 for i in
                                            (index.start, index.stop, index.step)):
            return list(itertools.islice(self, index.start, index.stop, index.step))
        if isinstance(index, int) and index >= 0:
            row = next(itertools.islice(self, index, None), None)
            if row is None:
                raise IndexError(f"row {index} of {len(self)}")
            return row
        return list(self)[index]

    def __eq__(self, other):
        return isinstance(other, (Rows, list)) and list(self) == list(other)

    __hash__ = None

    def __repr__(self):
        return f"Rows({list(itertools.islice(self, 3))!r}{', ...' if self[3:4] else ''})"


def stamped(rows, isa=None, **columns):
    """`rows` with `columns` and the provenance stamp added: what a result's rows() returns.

    Parameters
    ----------
    rows : list of dict or callable
        The rows, or a function returning a fresh iterator of them (see `Rows`).
    isa : str, optional
        The kernel variant of the stamp (see `stamp`), taken once, now.
    **columns
        Columns added to every row.

    Returns
    -------
    Rows
    """
    return Rows(rows, {**columns, **stamp(isa)})


def columns_of(rows):
    """Every key of `rows`, in the order first seen.

    Parameters
    ----------
    rows : iterable of dict

    Returns
    -------
    list of str
    """
    return list(dict.fromkeys(itertools.chain.from_iterable(rows)))


def format_of(path):
    """The format a results file named `path` is written in (FORMATS, by the name's ending).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    str
        One of FORMATS' values: "csv", "csv.gz", "json", "jsonl".

    Raises
    ------
    ValueError
        Any other name, naming the formats accepted.
    """
    name = Path(path).name.lower()
    for ending in sorted(FORMATS, key=len, reverse=True):
        if name.endswith(ending) and len(name) > len(ending):
            return FORMATS[ending]
    raise ValueError(f"cannot write rows to {path}: its name must end in "
                     f"{', '.join(FORMATS)} (the format it is written in)")


def escaped(value):
    """A CSV cell as written.

    Text that a spreadsheet would run as a formula (it starts with FORMULA_STARTS and is not
    a number, as "-1.5" is) goes behind a single quote, the OWASP rule for CSV injection;
    anything else is as it is.

    Parameters
    ----------
    value : object
        The cell.

    Returns
    -------
    object
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def _json_value(value):
    """A cell as JSON has it: NaN and infinities (which JSON lacks) as null, numpy scalars
    as Python's."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write(rows, path, columns=None):
    """Write rows to `path` in the format its name says, atomically.

    Into a temporary file beside it, then renamed over it, so that a reader (or an
    interrupted run) never sees half a file. The file gets the mode any new file gets (the
    umask's). A key missing from a row is written empty (null in JSON); text cells but the
    stamp's are escaped (`escaped`) in CSV. No rows: an empty file ("[]" in JSON).

    Parameters
    ----------
    rows : iterable of dict
        Every row carrying the provenance stamp; a result's `Rows` is written as it is
        produced, one row held at a time.
    path : str or Path
        The file; its name's ending says the format (`format_of`: CSV, gzip-compressed CSV,
        a JSON array, JSON lines).
    columns : list of str, optional
        The columns, in order (default: every key of held rows, a list or a Rows not
        streamed; else the first row's keys).

    Returns
    -------
    Path
        `path`.

    Raises
    ------
    ValueError
        A name of no format, a row lacking a provenance column, or one with a column the
        first row has not (when the columns were the first row's).
    """
    refuse_special(path)        # what it is first: /dev/null is a device, not a format
    kind = format_of(path)
    if columns is None and isinstance(rows, Sequence) and not getattr(rows, "streamed", False):
        columns = columns_of(rows)
    rows = iter(rows)
    first = next(rows, None)
    with replacing(path) as tmp, _opened(tmp, kind) as f:
        if first is None:
            f.write("[]\n" if kind == "json" else "")
            return Path(path)
        columns = list(columns or first)
        known, checked, whole = set(columns), None, False
        every = operator.itemgetter(*columns) if len(columns) > 1 else None
        put = _writer(f, kind, columns)
        for i, row in enumerate(itertools.chain([first], rows)):
            if row.keys() != checked:       # rows alike are checked once
                lacking = [c for c in PROVENANCE_NAMES if c not in row]
                extra = [c for c in row if c not in known]
                if lacking or extra:
                    raise ValueError(f"{path}: row {i} " + (
                        f"lacks the provenance column(s) {', '.join(lacking)}; stamp every "
                        "row with drfbench.rows.stamp()" if lacking else
                        f"has column(s) {', '.join(extra)} that the first row has not"))
                checked = set(row)
                whole = every is not None and len(checked) == len(known)
            put(i, every(row) if whole else [row.get(c) for c in columns])
        if kind == "json":
            f.write("\n]\n")
    return Path(path)


def _opened(tmp, kind):
    """The temporary file `tmp`, open for writing text in format `kind` (gzip without a
    name or a time in its header: the same rows give the same bytes)."""
    if kind != "csv.gz":
        return open(tmp, "w", newline="", encoding="utf-8")
    raw = open(tmp, "wb")
    try:
        return io.TextIOWrapper(_ClosingGzip(raw), encoding="utf-8", newline="")
    except BaseException:
        raw.close()
        raise


class _ClosingGzip(gzip.GzipFile):
    """A GzipFile over an open file that it closes when it is closed."""

    def __init__(self, raw):
        super().__init__(filename="", mode="wb", fileobj=raw, mtime=0)
        self._raw = raw

    def close(self):
        try:
            super().close()
        finally:
            self._raw.close()


def _writer(f, kind, columns):
    """put(i, cells): writes row number i, its cells in the order of `columns` (None:
    missing), to `f` in format `kind`."""
    if kind in ("json", "jsonl"):
        def put(i, cells):
            line = json.dumps(dict(zip(columns, map(_json_value, cells))), allow_nan=False,
                              default=str)
            f.write(("[\n" if i == 0 else ",\n") + line if kind == "json" else line + "\n")
        return put
    writer = csv.writer(f)
    writer.writerow([escaped(c) for c in columns])
    theirs = [j for j, c in enumerate(columns) if c not in PROVENANCE_NAMES]  # the stamp: as is

    def put(i, cells):
        cells = list(cells)
        for j in theirs:
            if isinstance(cells[j], str) and cells[j][:1] in FORMULA_STARTS:
                cells[j] = escaped(cells[j])
        writer.writerow(cells)
    return put


def read_rows(path):
    """The rows of a results CSV as dicts of strings (no pandas needed).

    Parameters
    ----------
    path : str or Path
        The CSV, gzip-compressed where its name ends in .gz.

    Returns
    -------
    list of dict
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        return [{**dict.fromkeys(ADDED, ""), **row} for row in csv.DictReader(f)]


def _header(path):
    """The columns of the results CSV `path` (its first line)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        return next(csv.reader(f), [])


def read(path):
    """A results CSV as a pandas DataFrame, checked to carry the provenance columns.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    pandas.DataFrame
        Empty for an empty file.

    Raises
    ------
    ValueError
        The file lacks a provenance column.
    """
    import pandas as pd
    path = Path(path)
    if path.stat().st_size == 0:
        return pd.DataFrame(columns=list(PROVENANCE_NAMES))
    table = pd.read_csv(path)
    for column in ADDED:
        if column not in table.columns:
            table[column] = ""
    missing = [c for c in PROVENANCE_NAMES if c not in table.columns]
    if missing:
        raise ValueError(f"{path} is not a drfbench results file: it lacks the provenance "
                         f"column(s) {', '.join(missing)} (see drfbench.rows.PROVENANCE)")
    return table


def gather(inputs, out):
    """Concatenate results CSVs into one (the union of their columns), one file held at a time.

    Parameters
    ----------
    inputs : list of str or Path
        The CSVs.
    out : str or Path
        The file written (see `write`).

    Returns
    -------
    Path
        `out`.
    """
    columns = list(dict.fromkeys(itertools.chain.from_iterable(_header(p) for p in inputs)))
    columns += [c for c in ADDED if inputs and c not in columns]
    return write(itertools.chain.from_iterable(read_rows(p) for p in inputs), out,
                 columns=columns)


def main(argv=None):
    """python -m drfbench.rows gather --out FAMILY.csv ROWS.csv ...

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default `sys.argv[1:]`.
    """
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
