"""Alibaba's cluster traces to the generic trace format: `alibaba-2018`,
`alibaba-gpu-2020` and `alibaba-gpu-2023`.

Sources (alibaba/clusterdata on GitHub):

- cluster-trace-v2018 (trace_2018.md, schema.md): headerless CSV. batch_task:
  task_name, instance_num, job_name, task_type, status, start_time, end_time, plan_cpu
  (100 is 1 core), plan_mem (normalized, [0, 100]); machine_meta: machine_id,
  time_stamp, failure_domain_1, failure_domain_2, cpu_num (cores), mem_size
  (normalized, [0, 100]), status. Times in seconds. The batch tables name no users: each
  job is its own user here (drfbench.drfh.trace.alibaba_tasks draws users instead).
- cluster-trace-gpu-v2020 (README.md; the tables ship headerless, their headers in
  separate .header files): pai_task_table: job_name, task_name, inst_num, status,
  start_time, end_time, plan_cpu (600.0 is 6 cores), plan_mem (GB), plan_gpu (50.0 is
  half a GPU), gpu_type; pai_job_table: job_name, inst_id, user, status, start_time
  (submission), end_time; pai_machine_spec: machine, gpu_type, cap_cpu (cores), cap_mem
  (GB), cap_gpu (GPUs). Times in seconds. A task arrives when its job was submitted and
  runs from its start_time to its end_time.
- cluster-trace-gpu-v2023 (README.md): CSV with a header. openb_pod_list_*.csv: name,
  cpu_milli, memory_mib, num_gpu, gpu_milli (per GPU, for GPU sharing), gpu_spec, qos,
  pod_phase, creation_time, deletion_time, scheduled_time (seconds);
  openb_node_list_*.csv: sn, cpu_milli, memory_mib, gpu, model. A pod arrives at its
  creation, runs from its scheduling to its deletion and demands num_gpu x gpu_milli /
  1000 GPUs; the pods name no users or jobs: the user is the pod's QoS class, the job the
  pod.

A task of several instances is that many tasks (rows) of the same job.
"""
from ._core import servers_from

RESOLUTION = 1.0                  # seconds: the traces count whole seconds
MAX_INSTANCES = 2**20             # instances one task row may expand to

BATCH_TASK = ("task_name", "instance_num", "job_name", "task_type", "status", "start_time",
              "end_time", "plan_cpu", "plan_mem")
MACHINE_META = ("machine_id", "time_stamp", "failure_domain_1", "failure_domain_2",
                "cpu_num", "mem_size", "status")
PAI_TASK = ("job_name", "task_name", "inst_num", "status", "start_time", "end_time",
            "plan_cpu", "plan_mem", "plan_gpu", "gpu_type")
PAI_JOB = ("job_name", "inst_id", "user", "status", "start_time", "end_time")
PAI_MACHINE = ("machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu")
OPENB_POD = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "qos", "pod_phase",
             "creation_time", "deletion_time", "scheduled_time")
OPENB_NODE = ("sn", "cpu_milli", "memory_mib", "gpu")


def _instances(row, j):
    """Cell j as a count of instances: a whole number from 0 to MAX_INSTANCES."""
    n = row.number(j)
    if n != int(n) or n > MAX_INSTANCES:
        raise ValueError(f"{row.at(j)}: must be a whole number from 0 to {MAX_INSTANCES}, "
                         f"got {row.cells[j]!r}")
    return int(n)


def _run(row, sink, start, end, status):
    """(start, end) of a task row's cells `start` and `end`, or None where the trace
    records no start or no end (an empty cell or 0: it had not started or ended), counted
    in `sink` with its status (cell `status`)."""
    times = row.number(start, empty=True), row.number(end, empty=True)
    if not times[0] or not times[1]:
        sink.drop(f"no start or end time (status {row.cells[status] or 'empty'})")
        return None
    return times


def tasks_2018(reader, sink, paths, jobs=()):
    """Feed `sink` the task instances of the 2018 batch_task tables `paths`.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    sink : Sink
        Takes each task and counts what is left out.
    paths : list of str
        The batch_task tables.
    jobs : list of str
        Unused: the format has no job table.
    """
    for row in reader.csv(paths, "batch_task", BATCH_TASK):
        n, job = _instances(row, 1), row.text(2)
        run = _run(row, sink, 5, 6, 4)
        if run is None:
            continue
        cpu, memory = row.number(7, empty=True), row.number(8, empty=True)
        demands = (None if cpu is None else cpu / 100, memory)
        for _ in range(n):
            sink.task(job, job, run[0], run[0], run[1], demands)


def machines_2018(reader, paths):
    """The machines of the 2018 machine_meta tables `paths`.

    Each machine at its last row giving cpu_num and mem_size.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    paths : list of str
        The machine_meta tables.

    Returns
    -------
    dict
        `{capacity: count}`, capacities (cores, normalized memory).
    """
    last = {}
    for row in reader.csv(paths, "machine_meta", MACHINE_META):
        cpu, memory = row.number(4, empty=True), row.number(5, empty=True)
        if cpu is not None and memory is not None:
            last[row.text(0)] = (cpu, memory)
    return servers_from(last.values())


def tasks_2020(reader, sink, paths, jobs=()):
    """Feed `sink` the task instances of the 2020 pai_task_table `paths`.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    sink : Sink
        Takes each task and counts what is left out.
    paths : list of str
        The pai_task_table tables.
    jobs : list of str
        The pai_job_table tables: the tasks' users and submission times.
    """
    job_of = {}
    for row in reader.csv(jobs, "pai_job_table", PAI_JOB):
        job_of.setdefault(row.text(0), (row.text(2), row.number(4, empty=True)))
    for row in reader.csv(paths, "pai_task_table", PAI_TASK):
        n, job = _instances(row, 2), row.text(0)
        run = _run(row, sink, 4, 5, 3)
        if run is None:
            continue
        if job not in job_of:
            sink.drop("job not in pai_job_table", n)
            continue
        user, submitted = job_of[job]
        arrival = run[0] if submitted is None else min(submitted, run[0])
        cpu, memory, gpu = (row.number(j, empty=True) for j in (6, 7, 8))
        demands = (None if cpu is None else cpu / 100, memory, (gpu or 0) / 100)
        for _ in range(n):
            sink.task(user, job, arrival, run[0], run[1], demands)


def machines_2020(reader, paths):
    """The machines of the 2020 pai_machine_spec tables `paths`.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    paths : list of str
        The pai_machine_spec tables.

    Returns
    -------
    dict
        `{capacity: count}`, capacities (cores, GB, GPUs).
    """
    return servers_from((row.number(2), row.number(3), row.number(4))
                        for row in reader.csv(paths, "pai_machine_spec", PAI_MACHINE))


def tasks_2023(reader, sink, paths, jobs=()):
    """Feed `sink` the pods of the 2023 openb_pod_list tables `paths`.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    sink : Sink
        Takes each task and counts what is left out.
    paths : list of str
        The openb_pod_list tables.
    jobs : list of str
        Unused: the format has no job table.
    """
    for row in reader.csv(paths, "openb_pod_list", OPENB_POD, header=True):
        if row.cells[6] == "Pending" or not row.cells[9]:
            sink.drop("never scheduled (Pending)")
            continue
        if not row.cells[8]:
            sink.drop("no deletion time")
            continue
        cpu, memory, gpus, milli = (row.number(j) for j in (1, 2, 3, 4))
        sink.task(row.text(5), row.text(0), row.number(7), row.number(9), row.number(8),
                  (cpu / 1000, memory, gpus * milli / 1000))


def machines_2023(reader, paths):
    """The machines of the 2023 openb_node_list tables `paths`.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    paths : list of str
        The openb_node_list tables.

    Returns
    -------
    dict
        `{capacity: count}`, capacities (cores, MiB, GPUs).
    """
    return servers_from((row.number(1) / 1000, row.number(2), row.number(3))
                        for row in reader.csv(paths, "openb_node_list", OPENB_NODE, header=True))
