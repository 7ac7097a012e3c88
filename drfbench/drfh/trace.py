"""The generic trace format DRFH's simulations read, its readers and its converters.

Servers: a CSV (or DataFrame) with one capacity column per resource, any names, any number,
and optionally `count` (that many identical servers; default 1 each).
Tasks: a CSV (or DataFrame) with columns `user`, `job`, `arrival`, `duration` and one demand
column per resource, named as the servers' columns (in any order); one row per task,
arrivals sorted. Users and jobs may be labels or numbers; a job belongs to one user.

    read_servers(servers)  -> (resources, capacity (M, m))
    read_tasks(tasks, resources) -> drfbench.sim.Trace (users named by their labels)
    alibaba_tasks(...)     the Alibaba 2018 batch sample in the generic format
    google_servers(n, ...) n servers drawn from the Google 2011 configurations (Table I)

Every reader error is a ValueError naming the problem (the file, the column, the row).
"""
from pathlib import Path

import numpy as np
import pandas as pd

from ..sim import Trace

DATA = Path(__file__).resolve().parents[2] / "data" / "drfh"
ALIBABA = DATA / "alibaba2018_batch_tasks_sample.csv.gz"
GOOGLE = DATA / "google2011_machine_configs.csv"
TASK_COLUMNS = ("user", "job", "arrival", "duration")
ALIBABA_COLUMNS = ("arrival", "job", "task", "duration", "plan_cpu", "plan_mem", "instances")


def _table(source, what):
    if isinstance(source, pd.DataFrame):
        return source, what
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise ValueError(f"{what} file {path} does not exist")
        return pd.read_csv(path), f"{what} file {path}"
    raise TypeError(f"{what} must be a path or a pandas DataFrame, got {type(source).__name__}")


def _numbers(frame, columns, where):
    """The columns as a float64 array, every value finite and >= 0."""
    out = np.empty((len(frame), len(columns)))
    for j, c in enumerate(columns):
        values = pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
        if bad.size:
            raise ValueError(f"{where}: column {c!r} must hold finite numbers >= 0, got "
                             f"{frame[c].iloc[bad[0]]!r} at row {bad[0]}")
        out[:, j] = values
    return out


def read_servers(servers):
    """(resources, capacity): the resource names (the columns but `count`, in order) and the
    (M, m) capacities, each row repeated `count` times."""
    frame, where = _table(servers, "servers")
    resources = tuple(str(c) for c in frame.columns if c != "count")
    if not resources:
        raise ValueError(f"{where} has no resource column")
    if not len(frame):
        raise ValueError(f"{where} has no server")
    C = _numbers(frame, resources, where)
    count = np.ones(len(frame), dtype=np.int64)
    if "count" in frame:
        c = _numbers(frame, ["count"], where)[:, 0]
        if (c != np.round(c)).any():
            raise ValueError(f"{where}: count must be whole numbers, got {c[c != np.round(c)][0]}")
        count = c.astype(np.int64)
        if not count.sum():
            raise ValueError(f"{where}: every count is 0, no server")
    empty = np.flatnonzero((C.max(axis=1) == 0) & (count > 0))
    if empty.size:
        raise ValueError(f"{where}: server row {empty[0]} has no capacity at all (every "
                         "resource 0)")
    return resources, np.repeat(C, count, axis=0)


def read_tasks(tasks, resources):
    """A drfbench.sim.Trace of the tasks table, its demand columns in the order of
    `resources` (the servers'); users are named by their labels, in order of first
    appearance."""
    frame, where = _table(tasks, "tasks")
    missing = [c for c in TASK_COLUMNS if c not in frame]
    if missing:
        raise ValueError(f"{where} lacks column(s) {missing}")
    theirs = [str(c) for c in frame.columns if c not in TASK_COLUMNS]
    if sorted(theirs) != sorted(resources):
        raise ValueError(f"{where} has resource columns {theirs} but the servers have "
                         f"{list(resources)}: they must be the same")
    frame = frame.rename(columns=str)
    demands = _numbers(frame, list(resources), where)
    times = _numbers(frame, ["arrival"], where)[:, 0]
    back = np.flatnonzero(np.diff(times) < 0)
    if back.size:
        raise ValueError(f"{where}: arrivals must be sorted: row {back[0] + 1} arrives at "
                         f"{times[back[0] + 1]} after row {back[0]} at {times[back[0]]}")
    duration = pd.to_numeric(frame["duration"], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~(np.isfinite(duration) & (duration > 0)))
    if bad.size:
        raise ValueError(f"{where}: duration must be positive and finite, got "
                         f"{frame['duration'].iloc[bad[0]]!r} at row {bad[0]}")
    if frame["user"].isna().any() or frame["job"].isna().any():
        row = int(np.argmax(frame["user"].isna().to_numpy() | frame["job"].isna().to_numpy()))
        raise ValueError(f"{where}: user and job must be given on every row (row {row})")
    users = list(pd.unique(frame["user"]))
    _, job = np.unique(frame["job"].to_numpy(), return_inverse=True)
    try:
        return Trace(frame["user"].to_numpy(), job.reshape(-1), times, duration, demands,
                     users=users)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def google_servers(n, *, seed=0, source=GOOGLE):
    """n servers drawn independently (numpy default_rng(seed)) from the Google 2011
    configurations, each with probability proportional to its count: a DataFrame with
    columns cpu, memory (Table I's units: the maximum server is 1)."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"the number of servers must be a positive integer, got {n!r}")
    table = pd.read_csv(source)
    p = table["machines"].to_numpy(dtype=np.float64)
    pick = np.random.default_rng(seed).choice(len(table), size=int(n), p=p / p.sum())
    return table.loc[pick, ["cpu", "memory"]].reset_index(drop=True)


def alibaba_tasks(*, source=ALIBABA, users=100, skew=1.0, fraction=1.0, seed=0, cores=96.0):
    """The Alibaba 2018 batch sample in the generic format: one row per task instance.

    Units: a server of Table I's size 1 is one Alibaba machine (96 cores, plan_mem 100), so
    cpu = plan_cpu / 100 / cores and memory = plan_mem / 100. Durations of 0 s (runs under
    a second, 2,533 rows) become 1 s. The sample has jobs but no users: each job goes to one
    of `users` users, drawn (default_rng(seed)) with probability proportional to
    1 / rank^skew (skew 0: uniform; 1: Zipf, a few heavy users as in the Google trace).
    fraction: keep that fraction of the jobs (drawn with the same generator), for smaller
    runs at the same load per server.
    """
    if not (isinstance(users, (int, np.integer)) and users >= 1):
        raise ValueError(f"users must be a positive integer, got {users!r}")
    if not (0 < fraction <= 1):
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    if not (np.isfinite(skew) and skew >= 0) or not (np.isfinite(cores) and cores > 0):
        raise ValueError(f"skew must be >= 0 and cores > 0, got {skew}, {cores}")
    raw = pd.read_csv(source, header=None, names=ALIBABA_COLUMNS)
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
        "cpu": rows["plan_cpu"].to_numpy(dtype=np.float64) / 100.0 / cores,
        "memory": rows["plan_mem"].to_numpy(dtype=np.float64) / 100.0})
