"""Google's Borg cluster traces to the generic trace format: `google-2011` and
`google-2019`.

Sources (google/cluster-data on GitHub):

- clusterdata-2011-2 (ClusterData2011_2.md; the "v2.1 format + schema" document and its
  schema.csv): headerless CSV parts, gzip-compressed. task_events: timestamp, missing
  info, job ID, task index, machine ID, event type, user, scheduling class, priority,
  CPU request, memory request, disk space request, different-machine restrictions;
  machine_events: timestamp, machine ID, event type, platform ID, CPUs, memory. Times in
  microseconds (0: before the trace window, 2**63 - 1: after it), requests and
  capacities normalized (the largest machine is 1). Task event types: 0 SUBMIT,
  1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST, 7 UPDATE_PENDING,
  8 UPDATE_RUNNING; machine event types 0 ADD, 1 REMOVE, 2 UPDATE.
- clusterdata-2019 ("Google cluster-usage traces v3", ClusterData2019.md, and
  clusterdata_trace_format_v3.proto): BigQuery tables, read here as BigQuery exports
  them, newline-delimited JSON (64-bit integers as text, nested records as objects).
  instance_events: time, type, collection_id, collection_type, instance_index,
  resource_request {cpus, memory}, ...; collection_events: collection_id, user, ...;
  machine_events: machine_id, type, capacity {cpus, memory}. Event types 0 SUBMIT,
  1 QUEUE, 2 ENABLE, 3 SCHEDULE, 4 EVICT, 5 FAIL, 6 FINISH, 7 KILL, 8 LOST,
  9 UPDATE_PENDING, 10 UPDATE_RUNNING (the number or the name); machine event types
  1 ADD, 2 REMOVE, 3 UPDATE; collection_type 0 JOB, 1 ALLOC_SET.

A task's run is joined from its events (`Runs`): it arrives at its (last) SUBMIT, runs
from its SCHEDULE to the EVICT, FAIL, FINISH, KILL or LOST that ends it, demanding its
latest resource request; a task resubmitted after an eviction runs again, as a task of
its own. A server is a machine, at its last capacity in the trace.
"""
from ._core import field, servers_from

RESOURCES = ("cpu", "memory")
RESOLUTION = 1e-6                 # seconds: the traces count microseconds
AFTER = 2**63 - 1                 # a time after the trace window
TASK_EVENTS = ("timestamp", "missing info", "job ID", "task index", "machine ID",
               "event type", "user", "scheduling class", "priority", "CPU request",
               "memory request", "disk space request", "different-machine restrictions")
MACHINE_EVENTS = ("timestamp", "machine ID", "event type", "platform ID", "CPUs", "memory")

SUBMIT, SCHEDULE, END, UPDATE = "submit", "schedule", "end", "update"
EVENTS_2011 = {"0": SUBMIT, "1": SCHEDULE, "2": END, "3": END, "4": END, "5": END, "6": END,
               "7": UPDATE, "8": UPDATE}
NAMES_2019 = ("SUBMIT", "QUEUE", "ENABLE", "SCHEDULE", "EVICT", "FAIL", "FINISH", "KILL",
              "LOST", "UPDATE_PENDING", "UPDATE_RUNNING")
KINDS_2019 = (SUBMIT, None, None, SCHEDULE, END, END, END, END, END, UPDATE, UPDATE)
EVENTS_2019 = {**{n: k for n, k in zip(NAMES_2019, KINDS_2019)},
               **{str(i): k for i, k in enumerate(KINDS_2019)}}
MACHINES_2011 = {"0": "add", "1": "remove", "2": "update"}
MACHINES_2019 = {"ADD": "add", "REMOVE": "remove", "UPDATE": "update", "1": "add",
                 "2": "remove", "3": "update"}
ALLOC_SET = ("1", "ALLOC_SET")


class Runs:
    """Task runs joined from events in time order, in memory proportional to the tasks
    in flight: a task is kept from its SUBMIT (or SCHEDULE) to the event that ends it.

    Parameters
    ----------
    sink : Sink
        Takes each finished run as a task and counts the tasks left out.
    """

    def __init__(self, sink):
        self.sink, self.live = sink, {}

    def event(self, key, time, kind, user, job, request):
        """Task `key`'s event of `kind` at `time` (seconds), its request (a tuple, or None
        where the event gives none).

        Parameters
        ----------
        key : tuple
            The task: (job, index in the job).
        time : float
            Seconds, on the trace's clock.
        kind : str or None
            SUBMIT, SCHEDULE, UPDATE or END (the trace's event type as EVENTS_2011 or
            EVENTS_2019 map it); None: an event that changes no run.
        user : str
            The task's user, as the trace writes it.
        job : str
            The task's job, as the trace writes it.
        request : tuple or None
            The requested resources; None where the event gives none (an earlier
            event's request is kept).
        """
        state = self.live.get(key)
        if kind == SUBMIT:
            if state is None or state[1] is None:
                old = state[4] if state else None
                self.live[key] = [time, None, user, job, request or old]
        elif kind == SCHEDULE:
            if state is None:
                self.live[key] = [time, time, user, job, request]
            else:
                state[1] = time
                state[4] = request or state[4]
        elif kind == UPDATE:
            if state is not None and request:
                state[4] = request
        elif kind == END:
            if state is None:
                self.sink.drop("ended without a start in the trace")
            elif state[1] is None:
                self.sink.drop("ended before it was scheduled")
            else:
                submit, start, user, job, request = state
                self.sink.task(user, job, submit, start, time, request or (None,))
            self.live.pop(key, None)

    def close(self):
        """Count the tasks still pending or running at the trace's end (no run to write)."""
        running = sum(1 for s in self.live.values() if s[1] is not None)
        if running:
            self.sink.drop("running at the trace's end", running)
        if len(self.live) - running:
            self.sink.drop("pending at the trace's end", len(self.live) - running)
        self.live.clear()


def _seconds(microseconds):
    return microseconds / 1e6


def tasks_2011(reader, sink, paths, jobs=()):
    """Feed `sink` the task runs of the 2011 task_events parts `paths` (in time order).

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    sink : Sink
        Takes each task and counts what is left out.
    paths : list of str
        The task_events tables.
    jobs : list of str
        Unused: the format has no job table.
    """
    runs = Runs(sink)
    for row in reader.csv(paths, "task_events", TASK_EVENTS):
        time = row.number(0)
        kind = row.choice(5, EVENTS_2011)
        if time >= AFTER:
            continue
        cpu, memory = row.number(9, empty=True), row.number(10, empty=True)
        request = (cpu, memory) if cpu is not None and memory is not None else None
        runs.event((row.text(2), row.text(3)), _seconds(time), kind, row.text(6), row.text(2),
                   request)
    runs.close()


def machines_2011(reader, paths):
    """The machines of the 2011 machine_events parts `paths`.

    Each machine at its last capacity (ADD or UPDATE with both CPUs and memory given).

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    paths : list of str
        The machine_events tables.

    Returns
    -------
    dict
        `{capacity: count}`.
    """
    last = {}
    for row in reader.csv(paths, "machine_events", MACHINE_EVENTS):
        row.number(0)
        if row.choice(2, MACHINES_2011) == "remove":
            continue
        cpu, memory = row.number(4, empty=True), row.number(5, empty=True)
        if cpu is not None and memory is not None:
            last[row.text(1)] = (cpu, memory)
    return servers_from(last.values())


def tasks_2019(reader, sink, paths, jobs=()):
    """Feed `sink` the task runs of the 2019 instance_events exports `paths` (in time
    order).

    Alloc-set instances (reservations that tasks run in, not tasks) are left out.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    sink : Sink
        Takes each task and counts what is left out.
    paths : list of str
        The instance_events tables.
    jobs : list of str
        The collection_events exports: the tasks' users.
    """
    user = {}
    for row, record in reader.json_lines(jobs, "collection_events"):
        user.setdefault(field(row, record, "collection_id", str), field(row, record, "user", str))
    runs = Runs(sink)
    for row, record in reader.json_lines(paths, "instance_events"):
        time = field(row, record, "time")
        kind = _choice(row, record, "type", EVENTS_2019)
        if time >= AFTER or kind is None:
            continue
        if field(row, record, "collection_type", str, empty=True) in ALLOC_SET:
            if kind == SUBMIT:
                sink.drop("alloc-set instance (a reservation, not a task)")
            continue
        job = field(row, record, "collection_id", str)
        if job not in user:
            if kind == SUBMIT:
                sink.drop("collection not in the collection events")
            continue
        cpu = field(row, record, "resource_request.cpus", empty=True)
        memory = field(row, record, "resource_request.memory", empty=True)
        request = (cpu, memory) if cpu is not None and memory is not None else None
        runs.event((job, field(row, record, "instance_index", str)), _seconds(time), kind,
                   user[job], job, request)
    runs.close()


def machines_2019(reader, paths):
    """The machines of the 2019 machine_events exports `paths`.

    Each machine at its last capacity (ADD or UPDATE with both cpus and memory given).

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    paths : list of str
        The machine_events tables.

    Returns
    -------
    dict
        `{capacity: count}`.
    """
    last = {}
    for row, record in reader.json_lines(paths, "machine_events"):
        if _choice(row, record, "type", MACHINES_2019) == "remove":
            continue
        cpu = field(row, record, "capacity.cpus", empty=True)
        memory = field(row, record, "capacity.memory", empty=True)
        if cpu is not None and memory is not None:
            last[field(row, record, "machine_id", str)] = (cpu, memory)
    return servers_from(last.values())


def _choice(row, record, name, choices):
    """A JSON record's enum field, its number or its name, refused unless in `choices`."""
    value = field(row, record, name, str)
    if value not in choices:
        raise ValueError(f"{row.where}, line {row.line}, field {name!r}: must be one of "
                         f"{', '.join(k for k in choices if not k.isdigit())} (or their "
                         f"numbers), got {value!r}")
    return choices[value]
