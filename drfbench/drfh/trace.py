"""The generic trace format DRFH's simulations read, its readers and its converters.

Servers: a CSV (or DataFrame) with one capacity column per resource, any names, any number,
and optionally `count` (that many identical servers; default 1 each).
Tasks: a CSV (or DataFrame) with columns `user`, `job`, `arrival`, `duration` and one demand
column per resource, named as the servers' columns (in any order); one row per task,
arrivals sorted. Users and jobs are labels: text as written in a file (`007` and `7` are
two users), labels or numbers in a DataFrame (one or the other per column); a job belongs
to one user. A servers table may name its servers in a first column `machine`, `server` or
`name` (drfbench._inputs.NAME_COLUMNS).

    read_servers(servers)  -> (resources, capacity (M, m))
    read_tasks(tasks, resources) -> drfbench.sim.Trace (users named by their labels)
    read_inputs(servers_path, tasks_path) -> (servers, tasks) DataFrames, checked (`drfbench run`)
    alibaba_tasks(...)     the Alibaba 2018 batch sample in the generic format
    google_servers(n, ...) n servers drawn from the Google 2011 configurations (Table I)

Files are read by drfbench._inputs.read_csv (`read_frame`), the one CSV reader of every
family. Every reader error is a ValueError of one line naming the problem, the file, the
column and the row (the file's line, the header being line 1; a DataFrame's row by position).
"""
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _inputs
from .. import _validation as check
from ..sim import Trace

# the vendored traces, shipped as package data (pyproject.toml), provenance in data/README.md
DATA = Path(__file__).resolve().parent / "data"
ALIBABA = DATA / "alibaba2018_batch_tasks_sample.csv.gz"
GOOGLE = DATA / "google2011_machine_configs.csv"
TASK_COLUMNS = ("user", "job", "arrival", "duration")
LABEL_COLUMNS = TASK_COLUMNS[:2]      # the tasks' labels, kept as text
# The task scale at which the sample's mean task (0.0079 CPU, 0.0042 memory of Table I's
# largest server) is the size Table II implies for the paper's Google tasks: with every one
# of the 77,336 slots of Table I's 12,583 servers at k = 14 taken, 43.9% CPU and 28.0%
# memory utilization mean tasks of 0.038 CPU and 0.021 memory, 4.8 and 5.2 times larger
# (more if the slots were not all taken: a lower bound) (docs/families/drfh/choices.md).
PAPER_TASK_SCALE = 5.0
# Bounds of the generators' arguments (docs/accepts.md): servers drawn, users the jobs go
# to, and the skew of their Zipf weights (beyond it, 1 / rank^skew underflows: one user)
MAX_SERVERS = 10**7
MAX_USERS = 10**6
MAX_SKEW = 100.0
ALIBABA_COLUMNS = ("arrival", "job", "task", "duration", "plan_cpu", "plan_mem", "instances")
GOOGLE_COLUMNS = ("machines", "cpu", "memory")
# The task rows alibaba_tasks may expand its source to (instances in all): the vendored
# sample has 67,634 rows, 3.06e6 instances
MAX_TASKS = 2**26


def _table(source, what, labels=()):
    """(frame, table): a path's or a DataFrame's rows, and the drfbench._inputs.Table of
    its columns that checks them, naming the file (or `what`) and the row in errors.
    labels: the columns of labels (the tasks'), kept as text; without any, a name column
    (drfbench._inputs.labelled) names the rows."""
    if isinstance(source, pd.DataFrame):
        table = _inputs.Table(what, _columns(source, what))
        return source, table if labels else _inputs.labelled(table)
    if not isinstance(source, (str, Path)):
        raise TypeError(f"{what} must be a path or a pandas DataFrame, got {type(source).__name__}")
    return read_frame(source, what, labels=labels, name_column=not labels)


def read_frame(path, what, header=True, labels=(), name_column=False):
    """A CSV file read by the shared reader, as a DataFrame and as the Table of its cells as
    written.

    The shared reader is drfbench._inputs.read_csv: UTF-8, a byte-order mark dropped; an
    empty file, a header naming a column twice or not at all, a row with more or fewer cells
    than the header refused, naming the file and the line. In the DataFrame the columns
    `labels` hold text as written, a column of numbers holds them (whole numbers int64, else
    float64), any other column text; an empty cell is missing (NaN, or None among text).

    Parameters
    ----------
    path : str or Path
        A name ending in .gz is read as gzip-compressed text.
    what : str
        What the file is, for errors.
    header : bool
        False: no header, columns "1", "2", ....
    labels : tuple of str
        Columns holding text as written.
    name_column : bool
        A name column (drfbench._inputs.labelled) is the DataFrame's index.

    Returns
    -------
    frame : pandas.DataFrame
    table : Table
        Its errors name the file, line and column.

    Raises
    ------
    ValueError
        A malformed file, naming the file and the line.
    """
    table = _inputs.read_csv(path, what, header=header, name_column=name_column)
    frame = pd.DataFrame({name: _typed(table, name, name in labels) for name in table.data},
                         index=pd.Index(table.labels, name=table.label) if table.labels else None)
    return frame, table


def _typed(table, name, text=False):
    """Column `name` of the table (cells as written) as its values: int64 where every cell
    is a whole number, float64 where every cell is a number or empty (NaN), else (or with
    `text`) text, an empty cell None. Numbers are converted once (`Table.floats`, which
    the checks reuse)."""
    cells = np.array(table.data[name], dtype=object)
    empty = cells == ""
    if text:
        return np.where(empty, None, cells)
    values = table.floats(name)
    unread = np.flatnonzero(np.isnan(values) & ~empty)
    if not all(map(_inputs.is_number, cells[unread])):      # stops at the first text
        return np.where(empty, None, cells)
    if not empty.any() and np.isfinite(values).all() and (values == np.round(values)).all():
        try:
            return cells.astype(np.int64)
        except (ValueError, OverflowError):
            pass
    return values


def tasks_frame(tasks):
    """The tasks as a DataFrame: a DataFrame as it is, a path read by `read_frame`.

    The rest (cells, demand columns) is checked where the servers are known (`read_tasks`).

    Parameters
    ----------
    tasks : DataFrame, str or Path

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        A file without the columns user, job, arrival and duration.
    """
    if isinstance(tasks, pd.DataFrame):
        return tasks
    frame, table = _table(tasks, "tasks", LABEL_COLUMNS)
    missing = [c for c in TASK_COLUMNS if c not in table.data]
    if missing:
        raise ValueError(f"{table.where} lacks column(s) {missing}")
    return frame


def _columns(frame, where):
    """The frame's columns by name (text); arrival and duration as seconds (durations
    converted, points in time refused: drfbench._validation.seconds), any other column of
    times refused."""
    out = {}
    for label in frame.columns:
        name, cells = str(label), frame[label].to_numpy()
        if name in TASK_COLUMNS[2:]:
            cells = check.seconds(cells, f"{where}: column {name!r}")
        elif cells.dtype.kind in "mM":
            raise TypeError(f"{where}: column {name!r} must hold numbers, got {cells.dtype}")
        out[name] = cells
    return out


def read_servers(servers):
    """The resource names and capacities of a servers table (drfbench._inputs.machines).

    Parameters
    ----------
    servers : DataFrame, str or Path

    Returns
    -------
    resources : tuple of str
        The columns but `count`, in order.
    capacity : numpy.ndarray
        (M, m), each row repeated `count` times.
    """
    return _inputs.machines(_table(servers, "servers")[1])


def read_tasks(tasks, resources):
    """A drfbench.sim.Trace of the tasks table; users are named by their labels, in order of
    first appearance.

    Parameters
    ----------
    tasks : DataFrame, str or Path
    resources : sequence of str
        The servers' resources: the order of the demand columns.

    Returns
    -------
    drfbench.sim.Trace
    """
    return read_trace(tasks, resources)[1]


def read_trace(tasks, resources):
    """The tasks as a DataFrame (a path read once, `read_frame`) and the drfbench.sim.Trace
    `read_tasks` makes of it.

    Parameters
    ----------
    tasks : DataFrame, str or Path
    resources : sequence of str
        The servers' resources.

    Returns
    -------
    frame : pandas.DataFrame
    trace : drfbench.sim.Trace
    """
    frame, table = _table(tasks, "tasks", LABEL_COLUMNS)
    return frame, _trace(frame, table, resources)


def read_inputs(servers_path, tasks_path):
    """The trace kind's reader (`drfbench run`): the servers and tasks files, read by the shared
    reader (`read_frame`) and checked, as drfbench.drfh.simulate takes them.

    Parameters
    ----------
    servers_path, tasks_path : str or Path

    Returns
    -------
    servers, tasks : pandas.DataFrame
    """
    servers, table = _table(servers_path, "servers")
    tasks, tasks_table = _table(tasks_path, "tasks", LABEL_COLUMNS)
    _trace(tasks, tasks_table, _inputs.machines(table)[0])
    return servers, tasks


def _trace(frame, table, resources):
    where = table.where
    missing = [c for c in TASK_COLUMNS if c not in table.data]
    if missing:
        raise ValueError(f"{where} lacks column(s) {missing}")
    _inputs.same_resources(table, resources, [c for c in table.columns if c not in TASK_COLUMNS],
                           "the servers have")
    demands = table.numbers(list(resources))
    times = table.numbers(["arrival"])[:, 0]
    back = np.flatnonzero(np.diff(times) < 0)
    if back.size:
        raise ValueError(f"{where}: arrivals must be sorted: {table.row(back[0] + 1)} arrives at "
                         f"{times[back[0] + 1]} after {table.row(back[0])} at {times[back[0]]}")
    duration = table.numbers(["duration"])[:, 0]
    bad = np.flatnonzero(duration == 0)
    if bad.size:
        raise ValueError(f"{where}: duration must be positive, got 0 at {table.row(bad[0])}")
    unnamed = frame["user"].isna().to_numpy() | frame["job"].isna().to_numpy()
    if unnamed.any():
        raise ValueError(f"{where}: user and job must be given on every row "
                         f"({table.row(int(np.argmax(unnamed)))})")
    user, job = frame["user"].to_numpy(), frame["job"].to_numpy()
    for name, column in (("user", user), ("job", job)):
        if pd.api.types.infer_dtype(column, skipna=False) in ("string", "integer", "floating"):
            continue                                    # all text or all numbers: at once
        text = np.array([isinstance(x, str) for x in column.tolist()], dtype=bool)
        if text.any() and not text.all():
            a, b = int(np.argmax(text)), int(np.argmin(text))
            raise ValueError(f"{where}: column {name!r} mixes text and numbers "
                             f"({_label(column[a])} at {table.row(a)}, {_label(column[b])} at "
                             f"{table.row(b)}): labels are one or the other")
    job_code = _sorted_codes(job)
    user_code = pd.factorize(user)[0]
    _, first = np.unique(job_code, return_index=True)
    owner = first[job_code.reshape(-1)]                 # each task's job's first task
    mixed = np.flatnonzero(user_code != user_code[owner])
    if mixed.size:
        i = int(mixed[0])
        raise ValueError(f"{where}: job {_label(job[i])} has tasks of several users "
                         f"({_label(user[owner[i]])} at {table.row(int(owner[i]))}, "
                         f"{_label(user[i])} at {table.row(i)}): a "
                         "job belongs to one user")
    try:
        return Trace(user, job_code.reshape(-1), times, duration, demands,
                     users=list(pd.unique(user)))
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def _sorted_codes(labels):
    """np.unique(labels, return_inverse=True)[1], by hashing: each label's rank among the
    distinct labels, text by code point (sorting the distinct labels only, as fixed-width
    strings: a million Python strings sort 4 times slower)."""
    codes, distinct = pd.factorize(labels)
    keys = np.asarray(distinct, dtype=str) if distinct.dtype == object else np.asarray(distinct)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[np.argsort(keys, kind="stable")] = np.arange(len(keys))
    return rank[codes]


def _label(value):
    """A label as an error shows it: text quoted, a number as the caller gave it."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def google_servers(n, *, seed=0, source=GOOGLE):
    """Servers drawn from the Google 2011 configurations, each with probability proportional to
    its count.

    Parameters
    ----------
    n : int
        1 to MAX_SERVERS, drawn independently.
    seed : int
        `>= 0`, of numpy's default_rng.
    source : str or Path
        The configurations' CSV.

    Returns
    -------
    pandas.DataFrame
        Columns cpu, memory (Table I's units: the maximum server is 1).

    Raises
    ------
    ValueError
        A source lacking columns, with every count 0, or with a configuration of no
        capacity.
    """
    n = check.positive_int(n, "the number of servers", allow_none=False, upper=MAX_SERVERS)
    seed = _seed(seed)
    table = read_frame(source, "server configurations")[1]
    missing = [c for c in GOOGLE_COLUMNS if c not in table.data]
    if missing:
        raise ValueError(f"{table.where} lacks column(s) {missing}")
    values = table.numbers(GOOGLE_COLUMNS)
    p, capacity = values[:, 0], values[:, 1:]
    if not p.sum() > 0:
        raise ValueError(f"{table.where}: every machines count is 0, nothing to draw from")
    empty = np.flatnonzero((capacity.max(axis=1) == 0) & (p > 0))
    if empty.size:
        raise ValueError(f"{table.where}: {table.row(int(empty[0]))} has no capacity at all "
                         "(cpu and memory 0)")
    pick = np.random.default_rng(seed).choice(len(p), size=int(n), p=p / p.sum())
    return pd.DataFrame(capacity[pick], columns=list(GOOGLE_COLUMNS[1:]))


def _seed(seed):
    """A random seed: an int >= 0 (numpy default_rng's)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


def alibaba_tasks(*, source=ALIBABA, users=100, skew=1.0, fraction=1.0, seed=0, cores=96.0,
                  task_scale=1.0):
    """The Alibaba 2018 batch sample in the generic format: one row per task instance.

    Units: a server of Table I's size 1 is one Alibaba machine (96 cores, plan_mem 100), so
    `cpu = plan_cpu / 100 / cores` and `memory = plan_mem / 100`, both times `task_scale`.
    Durations of 0 s (runs under a second, 2,533 rows) become 1 s. The sample has jobs but no
    users: each job goes to one of `users` users, drawn (default_rng(seed)) with probability
    proportional to `1 / rank**skew`.

    Parameters
    ----------
    source : str or Path
        A CSV without a header, the columns ALIBABA_COLUMNS (gzip-compressed where its name
        ends in .gz, as the vendored sample), read by the shared reader (`read_frame`);
        arrival, duration, plan_cpu and plan_mem must be finite numbers `>= 0`, instances
        whole numbers `>= 0` (at most MAX_TASKS task rows in all), jobs named j_<number>.
    users : int
        1 to MAX_USERS.
    skew : float
        Finite, `>= 0` and at most MAX_SKEW (0: uniform; 1: Zipf, a few heavy users as in
        the Google trace).
    fraction : float
        Keep that fraction of the jobs, in (0, 1] (drawn with the same generator), for
        smaller runs at the same load per server.
    seed : int
        `>= 0`.
    cores : float
        Finite, `> 0`.
    task_scale : float
        Finite, `> 0` (default 1: the trace as recorded; PAPER_TASK_SCALE makes the tasks
        the size the paper's Table II implies for its Google tasks).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        A value out of bounds, or a malformed source, naming it.
    """
    users = check.positive_int(users, "users", allow_none=False, upper=MAX_USERS)
    seed = _seed(seed)
    fraction = check.real(fraction, "fraction")
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    skew, cores = check.real(skew, "skew", finite=True), check.real(cores, "cores", finite=True)
    if not (0 <= skew <= MAX_SKEW and cores > 0):
        raise ValueError(f"skew must be in [0, {MAX_SKEW:g}] and cores > 0, got {skew}, {cores}")
    task_scale = check.real(task_scale, "task_scale")
    if not (np.isfinite(task_scale) and task_scale > 0):
        raise ValueError(f"task_scale must be a positive finite number, got {task_scale!r}")
    raw = _alibaba(source)
    rng = np.random.default_rng(seed)
    jobs = pd.unique(raw["job"])
    weight = 1.0 / np.arange(1, users + 1) ** skew
    owner = dict(zip(jobs, rng.choice(users, size=len(jobs), p=weight / weight.sum())))
    keep = set(jobs[rng.random(len(jobs)) < fraction]) if fraction < 1 else set(jobs)
    raw = raw[raw["job"].isin(keep)]
    rows = raw.loc[raw.index.repeat(raw["instances"])]
    return pd.DataFrame({
        "user": rows["job"].map(owner).to_numpy(),
        "job": rows["job"].str.removeprefix("j_").astype(np.int64).to_numpy(),
        "arrival": rows["arrival"].to_numpy(dtype=np.float64),
        "duration": np.maximum(rows["duration"].to_numpy(dtype=np.float64), 1.0),
        "cpu": rows["plan_cpu"].to_numpy(dtype=np.float64) / 100.0 / cores * task_scale,
        "memory": rows["plan_mem"].to_numpy(dtype=np.float64) / 100.0 * task_scale})


def _alibaba(source):
    """The raw Alibaba batch table of `source` (columns ALIBABA_COLUMNS), checked."""
    table = read_frame(source, "alibaba", header=False)[1]
    if len(table.columns) != len(ALIBABA_COLUMNS):
        raise ValueError(f"{table.where} has {len(table.columns)} columns, not the "
                         f"{len(ALIBABA_COLUMNS)} of the Alibaba batch table {ALIBABA_COLUMNS}")
    table = _inputs.Table(table.where, dict(zip(ALIBABA_COLUMNS, table.data.values())),
                          table.lines)
    numbers = ["arrival", "duration", "plan_cpu", "plan_mem", "instances"]
    values = dict(zip(numbers, table.numbers(numbers).T))
    instances = values["instances"]
    fractional = np.flatnonzero(instances != np.round(instances))
    if fractional.size:
        raise ValueError(f"{table.where}: column 'instances' must hold whole numbers, got "
                         f"{table.data['instances'][fractional[0]]} at "
                         f"{table.row(int(fractional[0]))}")
    if instances.sum() > MAX_TASKS:
        raise ValueError(f"{table.where}: the instances add up to {instances.sum():g} tasks, "
                         f"more than {MAX_TASKS}")
    job = np.array(table.data["job"], dtype=object)
    bad = [i for i, j in enumerate(job) if not (isinstance(j, str) and j.startswith("j_")
                                                 and j[2:].isdigit() and len(j) < 20)]
    if bad:
        raise ValueError(f"{table.where}: column 'job' must hold job names j_<number>, got "
                         f"{job[bad[0]]!r} at {table.row(bad[0])}")
    return pd.DataFrame({"arrival": values["arrival"], "job": job, "task": table.data["task"],
                         "duration": values["duration"], "plan_cpu": values["plan_cpu"],
                         "plan_mem": values["plan_mem"],
                         "instances": instances.astype(np.int64)})
