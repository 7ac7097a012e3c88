"""The streaming core every public-format converter shares: files read row by row (gzip
too), cells checked where they are read, tasks sorted by arrival in bounded memory, and
the servers and tasks files written atomically.

    reader = Reader(progress)                     # progress lines on stderr every N bytes
    for row in reader.csv(paths, "task_events", COLUMNS):   # Row: where, line, cells
        row.number(9)                             # a cell as a float, or None where empty
    with output(out_tasks) as (tmp, folder):     # both files, or neither
        sink = Sink(resources, resolution, folder)  # tasks, spilled to sorted runs on disk
        sink.task(user, job, arrival, start, end, demands)
        write(sink, servers, out_servers, out_tasks, tmp)

Every error is a ValueError of one line naming the file, the line (as an editor numbers
it) and the column (its number from 1 and its name in the publisher's schema).
"""
import csv
import gzip
import heapq
import io
import itertools
import json
import os
import sys
import tempfile
import zlib
from collections import Counter
from contextlib import ExitStack, contextmanager
from pathlib import Path

from .. import _inputs
from .._io import replacing, transaction

PROGRESS_BYTES = 64 * 2**20     # a progress line on stderr after every this many bytes read
CHUNK = 200_000                 # tasks sorted in memory at once; more are spilled to disk
FAN_IN = 256                    # sorted runs merged at once (files open at once)
COUNT = _inputs.COUNT           # the servers file's column of identical servers


class Progress:
    """Progress lines on `stream` (stderr): the file, the bytes read of its size and the
    lines, after every `every` bytes (None: silent).

    Parameters
    ----------
    prog : str
        The command that each line starts with.
    every : int or None
        Bytes read between two lines; None: no lines.
    stream : file or None
        Where the lines go; None: `sys.stderr` (as it is when a line is written).
    """

    def __init__(self, prog="drfbench convert", every=PROGRESS_BYTES, stream=None):
        self.prog, self.every, self.stream = prog, every, stream

    def reading(self, path, raw, lines):
        """Report `path` when its `raw` file has passed another `every` bytes.

        Parameters
        ----------
        path : str or Path
            The file as the line names it.
        raw : file
            The open binary file under the reader (its position is the bytes read).
        lines : int
            Lines read so far.
        """
        if self.every is None:
            return
        done = raw.tell()
        if done >= self._next:
            self._next = done + self.every
            size = os.fstat(raw.fileno()).st_size
            print(f"{self.prog}: {path}: {done / 2**20:,.0f} MiB of {size / 2**20:,.0f} MiB "
                  f"read, {lines:,} lines", file=self.stream or sys.stderr, flush=True)

    def start(self):
        """Start a file: its first line once `every` bytes of it are read."""
        self._next = self.every or 0

    def say(self, text):
        """Write `text` as a line of the command's (even where `every` is None).

        Parameters
        ----------
        text : str
        """
        print(f"{self.prog}: {text}", file=self.stream or sys.stderr, flush=True)


class Row:
    """One row of a publisher's table, and how its errors name it.

    Parameters
    ----------
    where : str
        The file as errors name it.
    line : int
        The row's line, from 1.
    cells : list of str or None
        Its cells, stripped, in the schema's order; None for a JSON line's row.
    names : tuple of str or None
        The schema's column names, for errors.
    """
    __slots__ = ("where", "line", "cells", "names")

    def __init__(self, where, line, cells, names):
        self.where, self.line, self.cells, self.names = where, line, cells, names

    def at(self, j):
        """How errors name cell j: the file, the line and the column.

        Parameters
        ----------
        j : int
            The cell, from 0.

        Returns
        -------
        str
        """
        return f"{self.where}, line {self.line}, column {j + 1} ({self.names[j]})"

    def text(self, j):
        """Cell j as written.

        Parameters
        ----------
        j : int

        Returns
        -------
        str

        Raises
        ------
        ValueError
            The cell is empty.
        """
        if not self.cells[j]:
            raise ValueError(f"{self.at(j)}: must not be empty")
        return self.cells[j]

    def number(self, j, empty=False, text=None):
        """Cell j (or `text`, read from it) as a finite float `>= 0`.

        Parameters
        ----------
        j : int
            The cell, which errors name.
        empty : bool
            Whether an empty cell is taken (as None).
        text : str, optional
            The text to read instead of the cell's (a part of it).

        Returns
        -------
        float or None

        Raises
        ------
        ValueError
            Not a finite number `>= 0` (or empty where `empty` is False), naming the cell.
        """
        cell = self.cells[j] if text is None else text
        if not cell and empty:
            return None
        try:
            value = float(cell)
        except ValueError:
            value = -1.0
        if not (0 <= value < float("inf")):
            raise ValueError(f"{self.at(j)}: must be a finite number >= 0, got "
                             f"{self.cells[j]!r}")
        return value

    def choice(self, j, choices):
        """Cell j's value in `choices`, refused unless the cell is one of them.

        Parameters
        ----------
        j : int
        choices : dict
            cell as written -> its value.

        Returns
        -------
        object

        Raises
        ------
        ValueError
            The cell is none of `choices`, naming them.
        """
        try:
            return choices[self.cells[j]]
        except KeyError:
            raise ValueError(f"{self.at(j)}: must be one of {', '.join(choices)}, got "
                             f"{self.cells[j]!r}") from None


class Reader:
    """Publishers' files, row by row: CSV (headerless, or with a header naming the columns)
    and JSON lines, UTF-8 (a byte-order mark dropped), gzip-compressed where the name ends
    in .gz; memory independent of the file's length.

    Parameters
    ----------
    progress : Progress, optional
        Reports the bytes read; default none.
    """

    def __init__(self, progress=None):
        self.progress = progress or Progress(every=None)

    def _lines(self, path, what):
        """(where, line number, text line) of every line of `path`, errors naming it."""
        path, where = _inputs.existing(path, what)
        self.progress.start()
        with open(path, "rb") as raw:
            stream = gzip.GzipFile(fileobj=raw) if path.suffix == ".gz" else raw
            text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
            number = 0
            try:
                for number, line in enumerate(text, 1):
                    if "\0" in line:
                        raise ValueError(f"{where}, line {number}: not a text file (NUL byte)")
                    yield where, number, line
                    if not number % 4096:
                        self.progress.reading(path, raw, number)
            except UnicodeDecodeError as exc:
                raise ValueError(f"{where}, line {number + 1}: not UTF-8 text "
                                 f"({exc.reason})") from None
            except (OSError, EOFError, zlib.error) as exc:      # BadGzipFile is an OSError
                raise ValueError(f"{where}: not a complete gzip-compressed file "
                                 f"({exc or type(exc).__name__})") from None
            self.progress.reading(path, raw, number)

    def csv(self, paths, what, names, header=False):
        """Row after row of the CSV files `paths` (one table in parts, in order), blank lines
        skipped.

        Parameters
        ----------
        paths : list of str or Path
        what : str
            The table's name in errors ("task_events").
        names : tuple of str
            The columns it reads.
        header : bool
            False: the columns are `names`, in order (a first row that is those names is a
            header, skipped), and every row has that many cells. True: the first row names
            the columns; those of `names` must be among them, in any order, and come out
            in the order of `names`.

        Yields
        ------
        Row

        Raises
        ------
        ValueError
            A missing or unreadable file, a row of another width, a header without one of
            `names`, text that is not CSV or not UTF-8, naming the file and line.
        """
        for path in paths:
            reader = csv.reader((line for _, _, line in self._lines(path, what)),
                                skipinitialspace=True)
            index, width = (None, None) if header else (range(len(names)), len(names))
            where = f"{what} file {path}"
            try:
                for cells in reader:
                    cells = [c.strip() for c in cells]
                    line = reader.line_num
                    if not any(cells):
                        continue
                    if index is None:
                        index, width = _named(cells, names, where, line), len(cells)
                        continue
                    if len(cells) != width:
                        raise ValueError(f"{where}, line {line}: {len(cells)} cells, the "
                                         + (f"header has {width}" if header else
                                            f"{what} table has {width} columns "
                                            f"({', '.join(names)})"))
                    if header:
                        cells = [cells[j] for j in index]
                    elif cells == list(names):
                        continue
                    yield Row(where, line, cells, names)
            except csv.Error as exc:
                raise ValueError(f"{where}, line {reader.line_num}: not a CSV file ({exc})") from None

    def json_lines(self, paths, what):
        """(row, record) for every line of the JSON-lines files `paths` (one JSON object a
        line, as BigQuery exports a table), blank lines skipped.

        Parameters
        ----------
        paths : list of str or Path
        what : str
            The table's name in errors.

        Yields
        ------
        tuple
            (Row naming the line, for errors and `field`; the record, a dict).

        Raises
        ------
        ValueError
            A line that is not a JSON object, naming the file and line.
        """
        for path in paths:
            for where, line, text in self._lines(path, what):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except ValueError as exc:
                    raise ValueError(f"{where}, line {line}: not a JSON object ({exc})") from None
                if not isinstance(record, dict):
                    raise ValueError(f"{where}, line {line}: not a JSON object")
                yield Row(where, line, None, None), record


def _named(cells, names, where, line):
    """The positions of `names` in a header row, a missing name refused."""
    missing = [n for n in names if n not in cells]
    if missing:
        raise ValueError(f"{where}, line {line}: the header lacks column(s) {missing}")
    return [cells.index(n) for n in names]


def field(row, record, name, kind=float, empty=False):
    """A JSON record's field `name` ("a.b" for a nested one) as a finite float `>= 0` (or
    text for kind=str). BigQuery writes 64-bit integers as text.

    Parameters
    ----------
    row : Row
        Names the line in errors.
    record : dict
    name : str
    kind : type
        float or str.
    empty : bool
        Whether an absent or null field is taken (as None).

    Returns
    -------
    float, str or None

    Raises
    ------
    ValueError
        The field is missing, or not of its kind, naming the file, line and field.
    """
    value = record
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        if empty:
            return None
        raise ValueError(f"{row.where}, line {row.line}, field {name!r}: missing")
    if kind is str:
        if isinstance(value, (dict, list)):
            raise ValueError(f"{row.where}, line {row.line}, field {name!r}: must be text or "
                             f"a number, got {value!r}")
        return str(value)
    try:
        number = float(value) if not isinstance(value, bool) else -1.0
    except (TypeError, ValueError):
        number = -1.0
    if not (0 <= number < float("inf")):
        raise ValueError(f"{row.where}, line {row.line}, field {name!r}: must be a finite "
                         f"number >= 0, got {value!r}")
    return number


class Sink:
    """The tasks of a conversion, sorted by arrival in bounded memory: `chunk` at a time in
    memory, each chunk sorted and spilled to a run file in `folder`, the runs merged when
    written. Ties keep the order the tasks were given (deterministic).

    Parameters
    ----------
    resources : iterable of str
        The resources each task demands, in order.
    resolution : float
        The trace's time resolution (seconds): the duration of a run recorded as ending
        when it started.
    folder : str or Path
        Where the sorted runs are spilled (`output`'s folder).
    chunk : int
        Tasks held in memory at once.

    Attributes
    ----------
    dropped : collections.Counter
        The tasks left out, by reason.
    shortened : int
        The runs recorded as ending when they started, given `resolution` instead.
    count : int
        The tasks kept.
    """

    def __init__(self, resources, resolution, folder, chunk=CHUNK):
        self.resources, self.resolution, self.chunk = tuple(resources), resolution, chunk
        self.folder = folder
        self.dropped, self.shortened, self.count = Counter(), 0, 0
        self._rows, self._runs, self._serial = [], [], itertools.count()

    def task(self, user, job, arrival, start, end, demands):
        """A task of `user` and `job` arriving at `arrival` and running from `start` to `end`;
        counted in `dropped` instead where it has no request or ends before it starts.

        Parameters
        ----------
        user, job : str
            Labels as the trace writes them.
        arrival, start, end : float
            Seconds.
        demands : tuple
            One per resource; None where the trace gives none (the task is dropped).
        """
        if None in demands:
            self.dropped["no resource request"] += 1
            return
        if end < start:
            self.dropped["ends before it starts"] += 1
            return
        duration = end - start
        if duration == 0:
            duration = self.resolution
            self.shortened += 1
        self._rows.append((arrival, self.count, user, job, duration, *demands))
        self.count += 1
        if len(self._rows) >= self.chunk:
            self._spill()

    def drop(self, reason, n=1):
        """Count `n` tasks (or servers) left out for `reason` in `dropped`.

        Parameters
        ----------
        reason : str
        n : int
        """
        self.dropped[reason] += n

    def _spill(self):
        self._rows.sort(key=_key)
        self._runs.append(self._save(self._rows))
        self._rows = []

    def _save(self, rows):
        tmp = Path(self.folder) / f"run{next(self._serial)}.csv"   # removed with its folder
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows((repr(r[0]), r[1], r[2], r[3], *map(repr, r[4:])) for r in rows)
        return tmp

    def sorted(self):
        """Every task, in order of arrival (then of being given).

        Yields
        ------
        tuple
            (arrival, serial, user, job, duration, *demands).
        """
        self._rows.sort(key=_key)
        while len(self._runs) > FAN_IN:             # merge the oldest runs into one
            head, self._runs = self._runs[:FAN_IN], self._runs[FAN_IN:]
            with ExitStack() as stack:
                merged = heapq.merge(*(_load(stack, p) for p in head), key=_key)
                self._runs.insert(0, self._save(merged))
            for p in head:
                p.unlink()
        with ExitStack() as stack:
            yield from heapq.merge(*(_load(stack, p) for p in self._runs), self._rows, key=_key)


def _key(row):
    return row[0], row[1]


def _load(stack, path):
    f = stack.enter_context(open(path, newline="", encoding="utf-8"))
    for r in csv.reader(f):
        yield (float(r[0]), int(r[1]), r[2], r[3], *map(float, r[4:]))


def servers_from(capacities):
    """The servers table: identical capacity tuples counted, in order of first appearance.

    Parameters
    ----------
    capacities : iterable of tuple

    Returns
    -------
    dict
        capacity tuple -> count.
    """
    return dict(Counter(capacities))


@contextmanager
def output(out_tasks):
    """(temporary tasks file, spill folder) for a conversion writing `out_tasks`: a
    transaction (drfbench._io: every file of the conversion, or none), the tasks file's
    temporary path (drfbench._io.replacing) and a temporary folder beside it for the
    sorted runs, removed when the block ends.

    Parameters
    ----------
    out_tasks : str or Path

    Yields
    ------
    tuple
        (temporary tasks file, spill folder).
    """
    with transaction(), replacing(out_tasks) as tmp, tempfile.TemporaryDirectory(
            prefix=".convert-", dir=Path(out_tasks).parent) as folder:
        yield tmp, folder


def write(sink, servers, out_servers, out_tasks, tmp, progress=None):
    """Write the servers and the tasks as the generic trace format's CSV files.

    Parameters
    ----------
    sink : Sink
        The tasks; written sorted, arrivals counted from the first task's.
    servers : dict
        capacity tuple -> count, written in that order; a server with no capacity at all
        is left out and counted in `sink.dropped`.
    out_servers : str or Path
        The servers file (drfbench._io.replacing).
    out_tasks : str or Path
        The tasks file, as the progress line names it.
    tmp : str or Path
        `output`'s temporary file for `out_tasks`, which the tasks go to.
    progress : Progress, optional
        Says in one line what was written and dropped.

    Returns
    -------
    dict
        {"servers": n, "tasks": n, "dropped": {reason: n}, "shortened": n}.

    Raises
    ------
    ValueError
        No server has some capacity, or no task is left to write.
    """
    kept = {c: n for c, n in servers.items() if any(c) and n}
    for c, n in servers.items():
        if not any(c):
            sink.drop("server with no capacity", n)
    if not kept:
        raise ValueError("the machines table has no server with some capacity: nothing to "
                         "run the tasks on")
    with replacing(out_servers) as servers_tmp:
        _write_servers(kept, sink.resources, servers_tmp)
    written = _write_tasks(sink, tmp)
    if not written:
        raise ValueError("no task is left to write (dropped: " + _reasons(sink.dropped) + ")")
    summary = {"servers": sum(kept.values()), "tasks": written,
               "dropped": dict(sink.dropped), "shortened": sink.shortened}
    if progress is not None:
        progress.say(f"wrote {summary['servers']:,} servers to {out_servers} and "
                     f"{written:,} tasks to {out_tasks}; dropped: {_reasons(sink.dropped)}; "
                     f"{sink.shortened:,} runs recorded as ending when they started last "
                     f"the trace's resolution, {sink.resolution:g} s")
    return summary


def _write_servers(servers, resources, tmp):
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow((*resources, COUNT))
        w.writerows((*map(_number, c), n) for c, n in servers.items())


def _write_tasks(sink, tmp):
    origin, written = None, 0
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(("user", "job", "arrival", "duration", *sink.resources))
        for arrival, _, user, job, *rest in sink.sorted():
            origin = arrival if origin is None else origin
            w.writerow((user, job, _number(arrival - origin), *map(_number, rest)))
            written += 1
    return written


def _reasons(dropped):
    return ", ".join(f"{n:,} {why}" for why, n in dropped.items()) or "nothing"


def _number(x):
    """A number as the files write it: whole numbers without a decimal point, others in
    the shortest form that reads back the same."""
    return str(int(x)) if x == int(x) and abs(x) < 2**53 else repr(x)
