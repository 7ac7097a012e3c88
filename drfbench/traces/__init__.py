"""Public cluster traces to the generic trace format (the `trace` input kind: a servers
file and a tasks file, drfbench.drfh.trace), streaming: a file is read row by row, in
memory proportional to the tasks in flight (or to the jobs and machines a join needs),
never to the file's length (docs/traces.md).

    convert("google-2011", ["task_events/part-00000-of-00500.csv.gz", ...],
            "servers.csv", "tasks.csv", machines=["machine_events/part-00000-of-00001.csv.gz"])
    convert("azure-vm", ["vmtable.csv.gz"], "servers.csv", "tasks.csv",
            server={"cpu": 64, "memory": 512}, count=1000)

FORMATS names each format: its module (google, alibaba, azure: the publisher's sources
in each module's docstring), its resources, its tables and its time resolution. Labels
(users, jobs) are written as the trace spells them; arrivals count from the first
task's, in seconds; tasks are sorted by arrival (ties in the trace's order). What a
conversion leaves out (a task that never ran, one with no end in the trace, one without
a resource request) is counted and reported, never silently: `convert` returns the
counts and prints them on `progress`.
"""
import math
import os
from dataclasses import dataclass

from . import alibaba, azure, google
from ._core import CHUNK, Progress, Reader, Sink, output, write


@dataclass(frozen=True)
class Format:
    """A public format: its resources, readers, tables and time resolution.

    Attributes
    ----------
    resources : tuple of str
        The columns written.
    tasks : callable
        Its task reader, `(reader, sink, paths, jobs)`.
    machines : callable or None
        Its machines reader, `(reader, paths) -> {capacity: count}` (None: the format has
        none; a server size and a count are given).
    resolution : float
        Seconds: a run recorded as ending when it started lasts that long.
    inputs : str
        What its task tables are called.
    machine_table : str
        What its machines tables are called.
    job_table : str
        What its job tables are called.
    """
    resources: tuple
    tasks: object
    machines: object
    resolution: float
    inputs: str
    machine_table: str = ""
    job_table: str = ""


FORMATS = {
    "google-2011": Format(google.RESOURCES, google.tasks_2011, google.machines_2011,
                          google.RESOLUTION, "task_events", "machine_events"),
    "google-2019": Format(google.RESOURCES, google.tasks_2019, google.machines_2019,
                          google.RESOLUTION, "instance_events", "machine_events",
                          "collection_events"),
    "alibaba-2018": Format(("cpu", "memory"), alibaba.tasks_2018, alibaba.machines_2018,
                           alibaba.RESOLUTION, "batch_task", "machine_meta"),
    "alibaba-gpu-2020": Format(("cpu", "memory", "gpu"), alibaba.tasks_2020,
                               alibaba.machines_2020, alibaba.RESOLUTION, "pai_task_table",
                               "pai_machine_spec", "pai_job_table"),
    "alibaba-gpu-2023": Format(("cpu", "memory", "gpu"), alibaba.tasks_2023,
                               alibaba.machines_2023, alibaba.RESOLUTION, "openb_pod_list",
                               "openb_node_list"),
    "azure-vm": Format(azure.RESOURCES, azure.tasks, None, azure.RESOLUTION, "vmtable"),
}
MAX_SERVERS = 2**24               # servers a given size and count may make (as machine tables)


def convert(format, inputs, out_servers, out_tasks, *, machines=(), jobs=(), server=None,
            count=None, progress=None, chunk=CHUNK):
    """Convert a public trace into a servers file and a tasks file, both written
    atomically, or neither.

    Parameters
    ----------
    format : str
        The trace's format, a key of FORMATS.
    inputs : str, Path or list of them
        Its task tables, in order.
    out_servers, out_tasks : str or Path
        The servers file and the tasks file to write.
    machines, jobs : str, Path or list of them
        Its machines tables and its job tables, where the format has them.
    server : dict, optional
        resource -> capacity: the servers' size, for a format without a machines table
        (azure-vm), with `count`.
    count : int, optional
        How many servers of that size, 1 to MAX_SERVERS.
    progress : Progress, optional
        Where progress lines go (stderr); None for none.
    chunk : int
        Tasks sorted in memory at once (more are spilled to sorted runs beside
        `out_tasks`).

    Returns
    -------
    dict
        The summary: `servers`, `tasks`, `dropped` ({reason: n}) and `shortened`.

    Raises
    ------
    ValueError
        An unknown format, a table missing or given where the format has none, a bad
        server size, count or chunk, or a bad row (its file, line and column named).
    """
    if format not in FORMATS:
        raise ValueError(f"unknown trace format {format!r}; the formats: {', '.join(FORMATS)}")
    spec = FORMATS[format]
    inputs, machines, jobs = _paths(inputs), _paths(machines), _paths(jobs)
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a whole number >= 1, got {chunk!r}")
    if not inputs:
        raise ValueError(f"{format} needs its {spec.inputs} table(s)")
    if jobs and not spec.job_table:
        raise ValueError(f"{format} has no job table to give")
    if spec.job_table and not jobs:
        raise ValueError(f"{format} needs its job table ({spec.job_table}): its task "
                         "table names no user")
    reader = Reader(progress)
    if spec.machines is None:
        if machines:
            raise ValueError(f"{format} has no machines table: give a server size and count")
        servers = {_size(format, spec, server): _count(count)}
    else:
        if server is not None or count is not None:
            raise ValueError(f"{format} has a machines table ({spec.machine_table}): give it, "
                             "not a server size and count")
        if not machines:
            raise ValueError(f"{format} needs its machines table ({spec.machine_table})")
        servers = spec.machines(reader, machines)
    with output(out_tasks) as (tmp, folder):
        sink = Sink(spec.resources, spec.resolution, folder, chunk)
        spec.tasks(reader, sink, inputs, jobs)
        return write(sink, servers, out_servers, out_tasks, tmp, progress)


def _paths(paths):
    """A path, or a list of them, as a list."""
    return [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)


def _size(format, spec, server):
    """A given server size: a capacity for each of the format's resources, finite, >= 0."""
    if not isinstance(server, dict) or sorted(server) != sorted(spec.resources):
        raise ValueError(f"{format} needs a server size naming its resources "
                         f"{', '.join(spec.resources)} (e.g. "
                         f"{','.join(f'{r}=64' for r in spec.resources)}), got {server!r}")
    size = []
    for r in spec.resources:
        value = server[r]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and value >= 0):
            raise ValueError(f"the server's {r} must be a finite number >= 0, got {value!r}")
        size.append(float(value))
    return tuple(size)


def _count(count):
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_SERVERS:
        raise ValueError(f"the count of servers must be a whole number from 1 to "
                         f"{MAX_SERVERS}, got {count!r}")
    return count


__all__ = ["FORMATS", "Format", "Progress", "convert"]
