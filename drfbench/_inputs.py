"""Reading users' input files: CSV tables of numbers and YAML/JSON documents, the one
parser of each that every family's readers (and so the `drfbench run` command) use.

Every error is a ValueError of one line naming the file and, where there is one, the row
and the column. A row is counted as the file's line (the header is line 1), as an editor
or a spreadsheet shows it; a table that came from a DataFrame names its row by position.

    table = read_csv("machines.csv", "machines")        # header, cells as strings
    table.numbers(["cpu", "mem"])                       # (rows, 2) float64, checked
    resources, C = machines(table, ("mem", "cpu"))      # matched by name, `count` applied
    spec = document("tree.yaml", "tree")                # a dict (duplicate keys refused)
"""
import csv
import gzip
import io
import json
import sys
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

COUNT = "count"              # the machine tables' optional column: that many identical rows
MAX_MACHINES = 2**24         # machines a table may expand to (one row of capacities each)


def existing(path, what):
    """`path` as a Path, and how errors name it ("machines file m.csv"); a ValueError if
    there is no such file (or it is a directory). A stream that exists is read like a
    file: /dev/stdin, a pipe, the shell's <(...)."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"{what} file must be a path, got {type(path).__name__}")
    path = Path(path)
    where = f"{what} file {path}"
    if path.is_dir():
        raise ValueError(f"{where} is a directory, not a file")
    if not path.exists():
        raise ValueError(f"{where} does not exist")
    return path, where


def text(path, what):
    """The text of file `path` and how errors name it: UTF-8, a byte-order mark (as
    spreadsheets write) dropped; a name ending in .gz is gzip-compressed text; a file that
    is not UTF-8 text (Latin-1, binary, NUL bytes) or not gzip where its name says so is
    refused, naming the first bad byte."""
    path, where = existing(path, what)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{where} cannot be read ({exc.strerror})") from None
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:      # BadGzipFile is an OSError
            raise ValueError(f"{where}: not a gzip-compressed file ({exc})") from None
    try:
        content = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if "\0" in content:
        raise ValueError(f"{where}: not a text file (NUL byte at byte {data.index(0)})")
    return content, where


@dataclass(frozen=True)
class Table:
    """A table: what errors call it (`where`, e.g. "machines file m.csv"), its columns
    (`data`: name -> the column's cells, text or numbers), the file line of each row
    (`lines`; None for a DataFrame's rows, named by position) and whether a header named
    the columns (`named`; else they are "1", "2", ...)."""
    where: str
    data: dict
    lines: tuple | None = None
    named: bool = True

    @property
    def columns(self):
        return tuple(self.data)

    def __len__(self):
        return len(next(iter(self.data.values()), ()))

    def row(self, i):
        """How errors name row i."""
        return f"row {i}" if self.lines is None else f"line {self.lines[i]}"

    def column(self, name):
        """How errors name a column: by its name, or by its number (from 1) without a header."""
        return repr(name) if self.named else name

    def numbers(self, columns, upper=None):
        """The columns as a (rows, len(columns)) float64 array, every value a finite number
        >= 0 (and <= `upper`, if given); else a ValueError naming the first bad cell."""
        out = np.empty((len(self), len(columns)))
        for j, name in enumerate(columns):
            cells = self.data[name]
            if np.asarray(cells).dtype.kind in "mM":
                raise TypeError(f"{self.where}: column {self.column(name)} holds times; it must "
                                "hold numbers")
            try:
                values = np.asarray(cells, dtype=np.float64)
            except (TypeError, ValueError):
                values = np.array([_float(x) for x in cells])
            bad = ~np.isfinite(values) | (values < 0)
            if upper is not None:
                bad |= values > upper
            if bad.any():
                i = int(np.argmax(bad))
                bound = "" if upper is None else f" and <= {upper:g}"
                raise ValueError(f"{self.where}: column {self.column(name)} must hold finite "
                                 f"numbers >= 0{bound}, got {_shown(cells[i])} at {self.row(i)}")
            out[:, j] = values
        return out


def _shown(cell):
    """A cell as an error shows it: text quoted, a number as written."""
    return repr(cell) if isinstance(cell, str) else str(cell)


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return np.nan


def _is_number(text):
    return not np.isnan(_float(text))


def read_csv(path, what, header=True):
    """The CSV file `path` as a Table of strings. header: True, the first row names the
    columns (non-empty, distinct names); False, none (columns "1", "2", ...); None, a first
    row that is all numbers is data, anything else a header. Blank lines are skipped; a
    row with more or fewer cells than the others, an empty file or one without data rows is
    refused."""
    content, where = text(path, what)
    rows, lines = [], []
    reader = csv.reader(io.StringIO(content, newline=""), skipinitialspace=True)
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                rows.append([c.strip() for c in cells])
                lines.append(reader.line_num)
    except csv.Error as exc:
        raise ValueError(f"{where}, line {reader.line_num}: not a CSV file ({exc})") from None
    if not rows:
        raise ValueError(f"{where} is empty")
    if header is None:
        header = not all(map(_is_number, rows[0]))
    if header:
        names = rows[0]
        for j, name in enumerate(names):
            if not name or name in names[:j]:
                raise ValueError(f"{where}, line {lines[0]}: column {j + 1} needs a name of its "
                                 f"own, got {name!r}")
        rows, lines = rows[1:], lines[1:]
    else:
        names = [str(j + 1) for j in range(len(rows[0]))]
    if not rows:
        raise ValueError(f"{where} has no data rows")
    for cells, line in zip(rows, lines):
        if len(cells) != len(names):
            raise ValueError(f"{where}, line {line}: {len(cells)} cells, the "
                             f"{'header' if header else 'first row'} has {len(names)}")
    return Table(where, {name: [cells[j] for cells in rows] for j, name in enumerate(names)},
                 tuple(lines), named=bool(header))


def same_resources(table, resources, theirs, of):
    """Refuse a table whose resource columns `theirs` are not `resources` (those of `of`),
    in any order."""
    if sorted(theirs) != sorted(resources):
        raise ValueError(f"{table.where} has resource columns {list(theirs)} but {of} "
                         f"{list(resources)}: they must name the same resources")


def machines(table, resources=None, of=None):
    """(resources, capacities): a table of machines (or servers), one capacity column per
    resource and optionally `count` (that many identical machines; default 1 each), as the
    resource names and an (M, m) float64 array, one row per machine (at most MAX_MACHINES
    in all). With `resources`
    (those of `of`, e.g. "the demands have"), the columns must name the same ones, in any
    order, and come out in that order. Every machine must have some capacity."""
    theirs = tuple(c for c in table.columns if c != COUNT)
    if not theirs:
        raise ValueError(f"{table.where} has no resource column")
    if not len(table):
        raise ValueError(f"{table.where} has no machine")
    if resources is None:
        resources = theirs
    same_resources(table, resources, theirs, of)
    C = table.numbers(resources)
    count = np.ones(len(C), dtype=np.int64)
    if COUNT in table.data:
        c = table.numbers([COUNT], upper=MAX_MACHINES)[:, 0]
        fractional = np.flatnonzero(c != np.round(c))
        if fractional.size:
            i = int(fractional[0])
            raise ValueError(f"{table.where}: count must be whole numbers, got "
                             f"{_shown(table.data[COUNT][i])} at {table.row(i)}")
        count = c.astype(np.int64)
        if not count.sum():
            raise ValueError(f"{table.where}: every count is 0, no machine")
        if count.sum() > MAX_MACHINES:
            raise ValueError(f"{table.where}: the counts add up to {count.sum()} machines, "
                             f"more than {MAX_MACHINES}")
    empty = np.flatnonzero((C.max(axis=1) == 0) & (count > 0))
    if empty.size:
        raise ValueError(f"{table.where}: {table.row(int(empty[0]))} has no capacity at all "
                         "(every resource 0)")
    return tuple(resources), np.repeat(C, count, axis=0)


def demands_and_machines(demands_path, machines_path, what="machines"):
    """Per-task demands (users x resources, absolute units) from a CSV whose header names
    the resources, and the machines (`what`, e.g. "servers") from a CSV of `machines`'
    format with the same resource columns, matched by name: (demands (n, m), machines
    (M, m)), columns in the demands' order."""
    table = read_csv(demands_path, "demands")
    _, C = machines(read_csv(machines_path, what), table.columns, "the demands have")
    return table.numbers(table.columns), C


# --------------------------------------------------------------------------------------
# YAML and JSON documents
# --------------------------------------------------------------------------------------

def _unique(pairs, where):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"{where}: duplicate key {key!r}")
        seen[key] = value
    return seen


@cache
def _yaml_loader():
    """PyYAML's safe loader, refusing a mapping that repeats a key (PyYAML keeps the last);
    PyYAML is imported only when a YAML file is read."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            keys = [self.construct_object(k, deep=deep) for k, _ in node.value]
            _unique([(k, None) for k in keys], f"line {node.start_mark.line + 1}")
            return super().construct_mapping(node, deep=deep)

    return yaml, UniqueKeyLoader


def document(path, what):
    """The YAML (.yaml, .yml) or JSON (any other name) document in file `path` (UTF-8, a
    byte-order mark dropped), a mapping repeating a key refused; a syntax error names the
    line and column, a document nested past Python's recursion limit is refused."""
    content, where = text(path, what)
    try:
        return _parsed(content, where, Path(path).suffix.lower() in (".yaml", ".yml"))
    except RecursionError:
        raise ValueError(f"{where}: nested too deeply to read") from None


# Python's message for an integer of more digits than it converts from text (4,300)
INTEGER_DIGITS = "integer string conversion"


def _huge_integer(exc, where):
    """The ValueError for an integer the parser would not read (past 4,300 digits, far past
    a float's range), naming the file; any other ValueError as it is (already named)."""
    if INTEGER_DIGITS not in str(exc):
        return exc
    return ValueError(f"{where}: a number of more than {sys.get_int_max_str_digits():,} "
                      "digits, past a float's range")


def _parsed(content, where, is_yaml):
    """The JSON or YAML document in `content`, errors naming `where` and the line."""
    if not is_yaml:
        try:
            return json.loads(content, object_pairs_hook=lambda p: _unique(p, where))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}, line {exc.lineno}, column {exc.colno}: not valid JSON "
                             f"({exc.msg})") from None
        except ValueError as exc:
            raise _huge_integer(exc, where) from None
    yaml, loader = _yaml_loader()
    try:
        return yaml.load(content, Loader=loader)
    except ValueError as exc:
        if INTEGER_DIGITS in str(exc):
            raise _huge_integer(exc, where) from None
        raise ValueError(f"{where}, {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"{where}{at}: not valid YAML ({problem})") from None
