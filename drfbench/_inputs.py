"""Reading users' input files: CSV tables of numbers and YAML/JSON documents, the one
parser of each that every family's readers (and so the `drfbench run` command) use.

Every error is a ValueError of one line naming the file and, where there is one, the row
and the column. A row is counted as the file's line (the header is line 1), as an editor
or a spreadsheet shows it; a table that came from a DataFrame names its row by position.

    table = read_csv("machines.csv", "machines", name_column=True)   # cells as strings
    table.numbers(["cpu", "mem"])                       # (rows, 2) float64, checked
    resources, C = machines(table, ("mem", "cpu"))      # matched by name, `count` applied
    spec = document("tree.yaml", "tree")                # a dict (duplicate keys refused)

A first column headed by a name (NAME_COLUMNS: tenant, user, machine, ...) names a kind's
rows, text as written (`labelled`); YAML is read by 1.2's core schema, keys as names,
merge keys allowed, at most MAX_NODES nodes expanded (`_yaml_loader`; docs/accepts.md).
"""
import csv
import gzip
import io
import json
import numbers
import sys
import zlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from ._validation import MAX_MACHINE_CELLS, MAX_MACHINES, MAX_NODES, NAME_COLUMNS

COUNT = "count"              # the machine tables' optional column: that many identical rows


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
    the columns (`named`; else they are "1", "2", ...); the rows' names as written
    (`labels`, from a name column, `label` its header; None without one)."""
    where: str
    data: dict
    lines: tuple | None = None
    named: bool = True
    labels: tuple | None = None
    label: str | None = None
    _floats: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def columns(self):
        return tuple(self.data)

    def __len__(self):
        return len(next(iter(self.data.values()), ()))

    def row(self, i):
        """How errors name row i: its line (or position), and its name where it has one."""
        at = f"row {i}" if self.lines is None else f"line {self.lines[i]}"
        return at if self.labels is None else f"{at} ({self.label} {_shown(self.labels[i])})"

    def column(self, name):
        """How errors name a column: by its name, or by its number (from 1) without a header."""
        return repr(name) if self.named else name

    def floats(self, name):
        """Column `name` as float64, a cell that is no number NaN, converted once: the
        checks (`numbers`) and a reader's own typing of the cells share the conversion."""
        if name not in self._floats:
            cells = self.data[name]
            try:
                values = np.asarray(cells, dtype=np.float64)
            except (TypeError, ValueError):
                values = np.array([_float(x) for x in cells], dtype=np.float64)
            self._floats[name] = values
        return self._floats[name]

    def numbers(self, columns, upper=None):
        """The columns as numbers.

        Parameters
        ----------
        columns : list of str
            The columns' names.
        upper : float, optional
            The largest value allowed.

        Returns
        -------
        ndarray
            (rows, `len(columns)`) float64, every value a finite number `>= 0` (and
            `<= upper`, if given).

        Raises
        ------
        TypeError
            A column holds times.
        ValueError
            A bad cell, or one below the smallest normal float64: the first one, named
            by its file, line and column.
        """
        out = np.empty((len(self), len(columns)))
        for j, name in enumerate(columns):
            cells = self.data[name]
            if np.asarray(cells).dtype.kind in "mM":
                raise TypeError(f"{self.where}: column {self.column(name)} holds times; it must "
                                "hold numbers")
            values = self.floats(name)
            bad = ~np.isfinite(values) | (values < 0)
            if upper is not None:
                bad |= values > upper
            if bad.any():
                i = int(np.argmax(bad))
                bound = "" if upper is None else f" and <= {upper:g}"
                raise ValueError(f"{self.where}: column {self.column(name)} must hold finite "
                                 f"numbers >= 0{bound}, got {_shown(cells[i])} at {self.row(i)}")
            under = _underflow(cells, values)
            if under is not None:
                raise ValueError(f"{self.where}: column {self.column(name)} holds "
                                 f"{_shown(cells[under])} at {self.row(under)}, below "
                                 f"{TINY:.3g}, the smallest normal float64: give 0 or more")
            out[:, j] = values
        return out


TINY = np.finfo(np.float64).tiny
_ZEROS = frozenset({"0", "0.0", "0.", ".0", "-0", "+0", "-0.0"})    # the usual zeros, at once


def _underflow(cells, values):
    """A row whose number lies below float64's normal range: a subnormal (4e-320) first,
    else a cell written non-zero that reads as 0 (1e-400); None if there is none."""
    small = np.flatnonzero((values < TINY) & (values >= 0))
    if small.size and values[small].max() > 0:
        return int(small[np.argmax(values[small] > 0)])
    if small.size and isinstance(cells[0], str):
        for i in small.tolist():
            cell = cells[i]
            mantissa = cell.lower().partition("e")[0]
            if cell not in _ZEROS and any(c in "123456789" for c in mantissa):
                return i
    return None


def _shown(cell):
    """A cell as an error shows it: text quoted, a number as written."""
    return repr(cell) if isinstance(cell, str) else str(cell)


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return np.nan


def is_number(text):
    return not np.isnan(_float(text))


def read_csv(path, what, header=True, name_column=False):
    """The CSV file `path` as a Table of strings. header: True, the first row names the
    columns (non-empty, distinct names); False, none (columns "1", "2", ...); None, a first
    row holding no number is a header, else data. Blank lines are skipped; a row with more
    or fewer cells than the others, an empty file or one without data rows is refused.
    name_column: a first column headed by one of NAME_COLUMNS holds the rows' names
    (`labelled`): every input kind's table (machines, demands, costs) reads so."""
    content, where = text(path, what)
    rows, lines = [], []
    reader = csv.reader(io.StringIO(content, newline=""), skipinitialspace=True)
    # cells are stripped of white space; a file with none but line ends needs no pass over
    # its cells for it (a million-row trace: 3 s of 6)
    spaced = not content.isascii() or any(c in content for c in " \t\r\x0b\x0c")
    try:
        for cells in reader:
            if spaced:
                cells = [c.strip() for c in cells]
            if cells and (cells[0] or any(cells)):     # a blank line has no cell
                rows.append(cells)
                lines.append(reader.line_num)
    except csv.Error as exc:
        raise ValueError(f"{where}, line {reader.line_num}: not a CSV file ({exc})") from None
    if not rows:
        raise ValueError(f"{where} is empty")
    if header is None:
        header = not any(map(is_number, rows[0]))
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
    table = Table(where, {name: [cells[j] for cells in rows] for j, name in enumerate(names)},
                  tuple(lines), named=bool(header))
    return labelled(table) if name_column else table


def labelled(table):
    """The table with its name column (a first column headed by one of NAME_COLUMNS) taken
    out as the rows' `labels`, text as written (`007` and `7` are two names; a DataFrame's
    integers stay integers), every row named, no name twice; a table without one as it
    is."""
    first = next(iter(table.data), None)
    if not table.named or first not in NAME_COLUMNS or len(table.data) < 2:
        return table
    labels, seen = tuple(table.data[first]), {}
    for i, label in enumerate(labels):
        if not (isinstance(label, str) and label or isinstance(label, numbers.Integral)
                and not isinstance(label, (bool, np.bool_))):
            raise ValueError(f"{table.where}: column {first!r} names the rows, got "
                             f"{_shown(label)} at {table.row(i)}")
        if label in seen:
            raise ValueError(f"{table.where}: {first} {_shown(label)} is named twice, at "
                             f"{table.row(seen[label])} and {table.row(i)}")
        seen[label] = i
    rest = {name: cells for name, cells in table.data.items() if name != first}
    return Table(table.where, rest, table.lines, table.named, labels, first)


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
    in all, and MAX_MACHINE_CELLS capacities: machines x resources); a name column (see
    `labelled`) names the machines. With `resources`
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
    if count.sum() * len(resources) > MAX_MACHINE_CELLS:
        raise ValueError(f"{table.where}: {count.sum()} machines x {len(resources)} resources "
                         f"is {count.sum() * len(resources):,} capacities, more than "
                         f"{MAX_MACHINE_CELLS:,} (MAX_MACHINE_CELLS)")
    empty = np.flatnonzero((C.max(axis=1) == 0) & (count > 0))
    if empty.size:
        raise ValueError(f"{table.where}: {table.row(int(empty[0]))} has no capacity at all "
                         "(every resource 0)")
    return tuple(resources), np.repeat(C, count, axis=0)


def demands_and_machines(demands_path, machines_path, what="machines", names=False):
    """Per-task demands (users x resources, absolute units) from a CSV whose header names
    the resources, and the machines (`what`, e.g. "servers") from a CSV of `machines`'
    format with the same resource columns, matched by name: (demands (n, m), machines
    (M, m)), columns in the demands' order; with `names`, that pair and the users' names
    (the demands' `labels`)."""
    table = read_csv(demands_path, "demands", name_column=True)
    _, C = machines(read_csv(machines_path, what, name_column=True), table.columns,
                    "the demands have")
    inputs = table.numbers(table.columns), C
    return (inputs, table.labels) if names else inputs


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


def _refused(node, problem):
    """The ValueError for a YAML node the loader refuses, naming its line and column."""
    mark = node.start_mark
    return ValueError(f"line {mark.line + 1}, column {mark.column + 1}: {problem}")


# YAML 1.2's core schema (yaml.org/spec/1.2.2, section 10.3.2): the plain scalars read as
# null, booleans, integers (decimal, 0o octal, 0x hex) and floats; anything else is text.
# PyYAML's YAML 1.1 rules also read yes/no/on/off as booleans, 010 as octal, 1:30 as
# sexagesimal 90 and 2024-01-01 as a date, and 1e3 as text; not here.
_CORE_SCHEMA = (
    ("null", r"~|null|Null|NULL|", [*"~nN", ""]),            # "": an empty value
    ("bool", r"true|True|TRUE|false|False|FALSE", [*"tTfF"]),
    ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", [*"-+0123456789"]),
    ("float", r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
              r"|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)", [*"-+0123456789."]),
    ("merge", r"<<", ["<"]),
)
_TAG = "tag:yaml.org,2002:"


@cache
def _yaml_loader():
    """PyYAML's safe loader with YAML 1.2's core schema (`_CORE_SCHEMA`); a mapping's keys
    are names, read as text whatever they look like (`on:`, `1:` and `~:` are the names
    "on", "1" and "~"), a list or mapping as a key refused; a mapping repeating a key
    refused (PyYAML keeps the last), the keys a merge (`<<: *base`) brings in overridable;
    a document expanding (its aliases repeated) past MAX_NODES nodes refused before it is
    built. PyYAML is imported only when a YAML file is read."""
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        yaml_implicit_resolvers = {}

        def construct_document(self, node):
            if _expanded(node, {}) > MAX_NODES:
                raise ValueError(f"the document expands to more than {MAX_NODES:,} nodes "
                                 "(its aliases repeated), past drfbench's bound MAX_NODES")
            return super().construct_document(node)

        def construct_mapping(self, node, deep=False):
            names = {}
            for key, _ in node.value:
                if key.tag == _TAG + "merge":
                    continue
                if not isinstance(key, yaml.ScalarNode):
                    raise _refused(key, "a key must be a name, not a list or a mapping")
                if key.value in names:
                    raise _refused(key, f"duplicate key {key.value!r} (also on line "
                                        f"{names[key.value] + 1})")
                names[key.value] = key.start_mark.line
            self.flatten_mapping(node)
            out = {}
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    raise _refused(key, "a key must be a name, not a list or a mapping")
                out[key.value] = self.construct_object(value, deep=deep)
            return out

    for name, pattern, first in _CORE_SCHEMA:
        Loader.add_implicit_resolver(_TAG + name, re.compile(f"^(?:{pattern})$"), first)
    Loader.add_constructor(_TAG + "int", _yaml_int)
    Loader.add_constructor(_TAG + "float", _yaml_float)
    Loader.add_constructor(_TAG + "bool", _yaml_bool)
    return yaml, Loader


def _yaml_int(loader, node):
    text = loader.construct_scalar(node)
    try:
        return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)
    except ValueError as exc:
        if INTEGER_DIGITS in str(exc):
            raise
        raise _refused(node, f"{text!r} is not an integer") from None


def _yaml_float(loader, node):
    text = loader.construct_scalar(node)
    special = {".inf": np.inf, "+.inf": np.inf, "-.inf": -np.inf, ".nan": np.nan}
    try:
        return special.get(text.lower()) or float(text)
    except ValueError:
        raise _refused(node, f"{text!r} is not a number") from None


def _yaml_bool(loader, node):
    text = loader.construct_scalar(node)
    if text.lower() not in ("true", "false"):
        raise _refused(node, f"{text!r} is not true or false")
    return text.lower() == "true"


def _expanded(node, sizes):
    """The nodes YAML `node` expands to, each alias counted as the whole node it repeats
    (`sizes` memoizes by node, so a bomb of nested aliases costs its distinct nodes); an
    alias inside the node it names (a cycle) refused."""
    key = id(node)
    if key in sizes:
        if sizes[key] is None:
            raise _refused(node, "an alias inside the node it names (a cycle)")
        return sizes[key]
    sizes[key] = None
    children = node.value if isinstance(node.value, list) else ()
    total = 1
    for child in children:
        for item in (child if isinstance(child, tuple) else (child,)):
            total += _expanded(item, sizes)
    sizes[key] = total
    return total


def built(spec, what, build):
    """`build` of `spec`: a dict as it is, or a path read as a YAML or JSON document
    (`document`), an error of `build` then naming the file ("tree file t.yaml: ...")."""
    if not isinstance(spec, (str, Path)):
        return build(spec)
    content = document(spec, what)
    try:
        return build(content)
    except ValueError as exc:
        raise ValueError(f"{what} file {spec}: {exc}") from None


def document(path, what):
    """The YAML (.yaml, .yml) or JSON (any other name) document in file `path` (UTF-8, a
    byte-order mark dropped), a mapping repeating a key refused; YAML by 1.2's core schema
    (`_yaml_loader`); a syntax error names the line and column, a document nested past
    Python's recursion limit is refused."""
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
        raise ValueError(f"{where}{', ' if str(exc).startswith('line ') else ': '}{exc}") \
            from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"{where}{at}: not valid YAML ({problem})") from None
