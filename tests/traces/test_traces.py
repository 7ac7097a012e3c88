"""drfbench.traces and `drfbench convert`: small files written in each public format (as
their publishers document them: headerless where theirs are, gzip where theirs are),
converted and checked row by row against hand-computed servers and tasks; labels as the
trace spells them; what is left out counted; bad input named by file, line and column,
with no file left behind; tasks sorted through spilled runs; memory that does not grow
with the file; a 30-day trace of 1-second tasks run end to end through `drfbench run`."""
import csv
import gzip
import io
import json
import subprocess
import sys
import tracemalloc

import pytest

from drfbench import traces
from drfbench.cli import main
from drfbench.traces import _core
from drfbench.traces.alibaba import OPENB_POD
from conftest import ROOT

S = 10**6       # microseconds in a second (the Google traces' unit)


def lines(*rows):
    return "".join(",".join(map(str, r)) + "\n" for r in rows)


def put(path, text, gz=False):
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return str(path)


def table(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def convert(tmp_path, *args):
    """`drfbench convert` on ARGS: (servers rows, tasks rows)."""
    s, t = tmp_path / "out" / "servers.csv", tmp_path / "out" / "tasks.csv"
    assert main(["convert", *args, "--out-servers", str(s), "--out-tasks", str(t),
                 "--quiet"]) == 0
    return table(s), table(t)


def refused(tmp_path, capsys, *args):
    """`drfbench convert` on ARGS fails with status 2; its one-line message (no file left)."""
    out = tmp_path / "refused"
    status = main(["convert", *args, "--out-servers", str(out / "s.csv"),
                   "--out-tasks", str(out / "t.csv"), "--quiet"])
    assert status == 2
    assert not out.exists()
    return capsys.readouterr().err


def task_event(t, job, index, kind, user, cpu="", mem=""):
    """A 2011 task_events row: 13 columns, as the schema orders them."""
    return (t, "", job, index, "", kind, user, 2, 0, cpu, mem, "", "")


# --------------------------------------------------------------------------------------
# google-2011: headerless, gzip-compressed parts; runs joined from events
# --------------------------------------------------------------------------------------

def google2011(tmp_path):
    alice, bob, carol = "a1B2+c3/D4==", "bob/hash=", "carol+x="
    part0 = lines(
        task_event(0, 6251812952, 0, 0, alice, 0.1, 0.2),              # before the window
        task_event(600 * S, 6251812952, 0, 1, alice),                   # SCHEDULE
        task_event(601 * S, 6251812952, 1, 0, alice, 0.1, 0.2),
        task_event(602 * S, 6251812952, 1, 1, alice),
        task_event(610 * S, 200, 0, 0, bob, 0.5, 0.5),
        task_event(615 * S, 200, 1, 0, bob),                            # no request
        task_event(616 * S, 200, 1, 1, bob),
        task_event(616 * S, 200, 1, 4, bob),
        task_event(620 * S, 200, 0, 5, bob))                            # KILL, pending
    part1 = lines(
        task_event(630 * S, 300, 0, 0, carol, 0.05, 0.05),
        task_event(630 * S, 300, 0, 1, carol),                          # runs past the end
        task_event(640 * S, 300, 1, 0, carol, 0.05, 0.05),
        task_event(640.5 * S, 300, 1, 1, carol),
        task_event(640.5 * S, 300, 1, 4, carol),                        # 0 s: 1 us
        task_event(650 * S, 6251812952, 1, 2, alice),                   # EVICT
        task_event(651 * S, 6251812952, 1, 0, alice, 0.1, 0.2),         # resubmitted
        task_event(660 * S, 6251812952, 1, 1, alice),
        task_event(665 * S, 6251812952, 1, 8, alice, 0.3, 0.2),         # UPDATE_RUNNING
        task_event(670 * S, 6251812952, 1, 4, alice),
        task_event(700 * S, 6251812952, 0, 4, alice),
        task_event(2**63 - 1, 300, 0, 4, carol))                        # after the window
    machines = lines((0, "m1", 0, "p", 0.5, 0.25), (0, "m2", 0, "p", 0.5, 0.25),
                     (0, "m3", 0, "p", 1, 1), (5 * S, "m3", 2, "p", 1, 0.5),
                     (0, "m4", 0, "p", "", ""), (9 * S, "m2", 1, "", "", ""))
    return ([put(tmp_path / "part-00000-of-00002.csv.gz", part0, gz=True),
             put(tmp_path / "part-00001-of-00002.csv.gz", part1, gz=True)],
            put(tmp_path / "machine_events.csv.gz", machines, gz=True))


def test_google_2011_runs_joined_from_task_events(tmp_path):
    parts, machines = google2011(tmp_path)
    servers, tasks = convert(tmp_path, "google-2011", *parts, "--machines", machines)
    assert servers == [["cpu", "memory", "count"], ["0.5", "0.25", "2"], ["1", "0.5", "1"]]
    assert tasks == [["user", "job", "arrival", "duration", "cpu", "memory"],
                     ["a1B2+c3/D4==", "6251812952", "0", "100", "0.1", "0.2"],
                     ["a1B2+c3/D4==", "6251812952", "601", "48", "0.1", "0.2"],
                     ["carol+x=", "300", "640", "1e-06", "0.05", "0.05"],
                     ["a1B2+c3/D4==", "6251812952", "651", "10", "0.3", "0.2"]]


def test_the_summary_counts_what_was_left_out(tmp_path):
    parts, machines = google2011(tmp_path)
    out = io.StringIO()
    summary = traces.convert("google-2011", parts, tmp_path / "s.csv", tmp_path / "t.csv",
                             machines=[machines], progress=traces.Progress(stream=out))
    assert summary == {"servers": 3, "tasks": 4, "shortened": 1, "dropped": {
        "ended before it was scheduled": 1, "no resource request": 1,
        "running at the trace's end": 1}}
    assert "wrote 3 servers" in out.getvalue() and "1 no resource request" in out.getvalue()


def test_progress_names_the_file_and_the_bytes_read(tmp_path):
    parts, machines = google2011(tmp_path)
    out = io.StringIO()
    traces.convert("google-2011", parts, tmp_path / "s.csv", tmp_path / "t.csv",
                   machines=[machines], progress=traces.Progress(every=1, stream=out))
    said = out.getvalue()
    assert f"{parts[1]}: 0 MiB of 0 MiB read, 12 lines" in said
    assert f"{machines}: " in said


# --------------------------------------------------------------------------------------
# google-2019: BigQuery's JSON-lines export
# --------------------------------------------------------------------------------------

def jsonl(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_google_2019_instance_events_with_users_from_collection_events(tmp_path):
    def event(t, kind, cid, index, ctype=0, cpus=None, memory=None):
        r = {"time": str(t), "type": kind, "collection_id": str(cid),
             "instance_index": index, "collection_type": ctype}
        if cpus is not None:
            r["resource_request"] = {"cpus": cpus, "memory": memory}
        return r
    events = jsonl(tmp_path / "instance_events.json",
                   event(0, "SUBMIT", 111, 0, cpus=0.02, memory=0.01),
                   event(5 * S, 3, 111, 0),                             # SCHEDULE by number
                   event(6 * S, "SUBMIT", 999, 0, 1, 0.5, 0.5),         # an alloc set
                   event(7 * S, "SUBMIT", 222, 3, cpus=0.1, memory=0.1),
                   event(8 * S, "QUEUE", 222, 3),
                   event(9 * S, "SCHEDULE", 222, 3),
                   event(12 * S, "FINISH", 111, 0),
                   event(19 * S, "KILL", 222, 3))
    users = jsonl(tmp_path / "collection_events.json",
                  {"time": "0", "type": "SUBMIT", "collection_id": "111", "user": "u/Q=="},
                  {"time": "0", "type": "SUBMIT", "collection_id": "222", "user": "007"})
    machines = jsonl(tmp_path / "machine_events.json",
                     {"time": "0", "machine_id": "1", "type": "ADD",
                      "capacity": {"cpus": 0.5, "memory": 0.5}},
                     {"time": "0", "machine_id": "2", "type": 1,
                      "capacity": {"cpus": 0.25, "memory": 0.5}},
                     {"time": "9", "machine_id": "2", "type": "REMOVE"})
    servers, tasks = convert(tmp_path, "google-2019", events, "--machines", machines,
                             "--jobs", users)
    assert servers == [["cpu", "memory", "count"], ["0.5", "0.5", "1"], ["0.25", "0.5", "1"]]
    assert tasks == [["user", "job", "arrival", "duration", "cpu", "memory"],
                     ["u/Q==", "111", "0", "7", "0.02", "0.01"],
                     ["007", "222", "7", "10", "0.1", "0.1"]]


# --------------------------------------------------------------------------------------
# Alibaba: 2018 batch tables, the 2020 PAI tables, the 2023 openb tables
# --------------------------------------------------------------------------------------

def test_alibaba_2018_batch_task_instances(tmp_path):
    batch = put(tmp_path / "batch_task.csv", lines(
        ("M1", 2, "j_3", 1, "Terminated", 157297, 157300, 100, 0.39),
        ("R2_1", 1, "j_3", 1, "Failed", 157290, 157290, 50, 0.2),       # 0 s: 1 s
        ("M1", 1, "j_7", 1, "Running", 157400, 0, 100, 0.39),           # no end
        ("M2", 3, "j_8", 12, "Waiting", 0, 0, 100, 0.39),               # never started
        ("M5", 1, "j_9", 1, "Terminated", 157500, 157600, "", "")))     # no request
    meta = put(tmp_path / "machine_meta.csv", lines(
        ("m_1", 0, 1, "a", 96, 100, "USING"), ("m_2", 0, 2, "b", 96, 100, "USING"),
        ("m_1", 5, 1, "a", 96, 100, "USING"), ("m_3", 0, 3, "c", 64, 50, "USING")))
    servers, tasks = convert(tmp_path, "alibaba-2018", batch, "--machines", meta)
    assert servers == [["cpu", "memory", "count"], ["96", "100", "2"], ["64", "50", "1"]]
    assert tasks == [["user", "job", "arrival", "duration", "cpu", "memory"],
                     ["j_3", "j_3", "0", "1", "0.5", "0.2"],
                     ["j_3", "j_3", "7", "3", "1", "0.39"],
                     ["j_3", "j_3", "7", "3", "1", "0.39"]]


def test_alibaba_gpu_2020_tasks_arrive_when_their_job_was_submitted(tmp_path):
    jobs = put(tmp_path / "pai_job_table.csv", lines(
        ("job_name", "inst_id", "user", "status", "start_time", "end_time"),   # a header
        ("4b3f04b6", "8cb3", "58540f19", "Terminated", 4550879.0, 4551416.0),
        ("0012", "9abc", "0042", "Terminated", 4550000.0, 4560000.0)))
    task = put(tmp_path / "pai_task_table.csv", lines(
        ("4b3f04b6", "worker", 2.0, "Terminated", 4550900.0, 4551400.0, 600.0, 29.296875,
         50.0, "MISC"),
        ("0012", "ps", 1.0, "Terminated", 4550010.0, 4550110.0, 400.0, 8.0, "", "T4"),
        ("0012", "worker", 1.0, "Waiting", "", "", 400.0, 8.0, 100.0, "T4"),
        ("ffff", "worker", 1.0, "Terminated", 4550010.0, 4550110.0, 400.0, 8.0, 100.0, "")))
    spec = put(tmp_path / "pai_machine_spec.csv", lines(
        ("82e5af3c", "T4", 96, 512, 2), ("82e5af3d", "V100", 96, 512, 8),
        ("82e5af3e", "T4", 96, 512, 2)))
    servers, tasks = convert(tmp_path, "alibaba-gpu-2020", task, "--machines", spec,
                             "--jobs", jobs)
    assert servers == [["cpu", "memory", "gpu", "count"], ["96", "512", "2", "2"],
                       ["96", "512", "8", "1"]]
    assert tasks == [["user", "job", "arrival", "duration", "cpu", "memory", "gpu"],
                     ["0042", "0012", "0", "100", "4", "8", "0"],
                     ["58540f19", "4b3f04b6", "879", "500", "6", "29.296875", "0.5"],
                     ["58540f19", "4b3f04b6", "879", "500", "6", "29.296875", "0.5"]]


def test_alibaba_gpu_2023_pods_by_header_names(tmp_path):
    pods = put(tmp_path / "openb_pod_list_default.csv", lines(
        ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
         "pod_phase", "creation_time", "deletion_time", "scheduled_time"),
        ("openb-pod-0017", 88000, 327680, 8, 1000, "", "Burstable", "Succeeded", 9437497,
         10769854, 9437497),
        ("openb-pod-0022", 4000, 15258, 1, 220, "", "BE", "Running", 9679175, 9973826,
         9679175),
        ("openb-pod-0035", 16000, 32768, 1, 1000, "V100M16|V100M32", "LS", "Running",
         9967058, 9968575, 9967063),
        ("openb-pod-0040", 1000, 1024, 0, 0, "", "BE", "Pending", 9967060, "", "")))
    nodes = put(tmp_path / "openb_node_list_all_node.csv", lines(
        ("sn", "cpu_milli", "memory_mib", "gpu", "model"),
        ("openb-node-0227", 32000, 262144, 0, ""),
        ("openb-node-0228", 128000, 786432, 8, "G3"),
        ("openb-node-0229", 96000, 786432, 8, "V100M32")))
    servers, tasks = convert(tmp_path, "alibaba-gpu-2023", pods, "--machines", nodes)
    assert servers == [["cpu", "memory", "gpu", "count"], ["32", "262144", "0", "1"],
                       ["128", "786432", "8", "1"], ["96", "786432", "8", "1"]]
    assert tasks == [["user", "job", "arrival", "duration", "cpu", "memory", "gpu"],
                     ["Burstable", "openb-pod-0017", "0", "1332357", "88", "327680", "8"],
                     ["BE", "openb-pod-0022", "241678", "294651", "4", "15258", "0.22"],
                     ["LS", "openb-pod-0035", "529561", "1512", "16", "32768", "1"]]


# --------------------------------------------------------------------------------------
# azure-vm: no machines table, a server size and a count
# --------------------------------------------------------------------------------------

def vm(i, created, deleted, cores, memory, sub="s", dep="d"):
    return (f"vm{i}", sub, dep, created, deleted, 90.5, 10.2, 80.1, "Interactive", cores,
            memory)


def test_azure_vms_on_servers_of_a_given_size(tmp_path):
    table = put(tmp_path / "vmtable.csv.gz", lines(
        vm(1, 300, 900, 2, 4, "sub+A==", "0123"), vm(2, 600, 600, ">24", ">64"),
        vm(3, 300, 2400, 8, 32, "sub+A==", "dep/2")), gz=True)
    servers, tasks = convert(tmp_path, "azure-vm", table, "--server", "cpu=40,memory=512",
                             "--count", "3")
    assert servers == [["cpu", "memory", "count"], ["40", "512", "3"]]
    assert tasks == [["user", "job", "arrival", "duration", "cpu", "memory"],
                     ["sub+A==", "0123", "0", "600", "2", "4"],
                     ["sub+A==", "dep/2", "0", "2100", "8", "32"],
                     ["s", "d", "300", "300", "24", "64"]]


# --------------------------------------------------------------------------------------
# Sorting in bounded memory
# --------------------------------------------------------------------------------------

def test_tasks_sorted_through_spilled_runs_as_in_memory(tmp_path, monkeypatch):
    rows = [vm(i, (i * 7919) % 1000 * 300, (i * 7919) % 1000 * 300 + 600, 2, 4, f"s{i % 5}")
            for i in range(300)]
    table = put(tmp_path / "vmtable.csv", lines(*rows))
    whole = tmp_path / "whole.csv"
    traces.convert("azure-vm", [table], tmp_path / "s.csv", whole, server={"cpu": 8,
                   "memory": 16}, count=1)
    monkeypatch.setattr(_core, "FAN_IN", 3)           # merge runs in a cascade too
    spilled = tmp_path / "spilled.csv"
    traces.convert("azure-vm", [table], tmp_path / "s.csv", spilled,
                   server={"cpu": 8, "memory": 16}, count=1, chunk=7)
    assert table_of(spilled) == table_of(whole)
    arrivals = [float(r[2]) for r in table_of(whole)[1:]]
    assert arrivals == sorted(arrivals) and len(arrivals) == 300
    users = [r[0] for r in table_of(whole)[1:] if r[2] == "0"]      # ties: the trace's order
    assert users == [f"s{i % 5}" for i in range(300) if (i * 7919) % 1000 == 0]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def table_of(path):
    return table(path)


def peak_memory(tmp_path, rows):
    table = put(tmp_path / f"vm{rows}.csv", lines(*(vm(i, i % 5000 * 300, i % 5000 * 300 + 300,
                                                      2, 4, f"sub{i % 97}", f"dep{i}")
                                                   for i in range(rows))))
    tracemalloc.start()
    try:
        traces.convert("azure-vm", [table], tmp_path / f"s{rows}.csv", tmp_path / f"t{rows}.csv",
                       server={"cpu": 8, "memory": 16}, count=1, chunk=5000)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_memory_does_not_grow_with_the_file(tmp_path):
    small, large = peak_memory(tmp_path, 20_000), peak_memory(tmp_path, 200_000)
    assert large < 2 * small, (small, large)


# --------------------------------------------------------------------------------------
# Bad input: file, line and column; no file left behind
# --------------------------------------------------------------------------------------

def test_a_bad_cell_is_named_by_file_line_and_column(tmp_path, capsys):
    table = put(tmp_path / "vmtable.csv", lines(vm(1, 0, 300, 2, 4), vm(2, "soon", 300, 2, 4)))
    err = refused(tmp_path, capsys, "azure-vm", table, "--server", "cpu=8,memory=16",
                  "--count", "1")
    assert f"vmtable file {table}, line 2, column 4 (vmcreated): must be a finite number " \
           ">= 0, got 'soon'" in err


def test_a_row_of_the_wrong_width_is_refused(tmp_path, capsys):
    parts, machines = google2011(tmp_path)
    bad = put(tmp_path / "part.csv", lines(task_event(0, 1, 0, 0, "u", 0.1, 0.1), (1, 2, 3)))
    err = refused(tmp_path, capsys, "google-2011", bad, "--machines", machines)
    assert f"task_events file {bad}, line 2: 3 cells, the task_events table has 13 columns" in err


def test_an_unknown_event_type_is_refused(tmp_path, capsys):
    _, machines = google2011(tmp_path)
    bad = put(tmp_path / "part.csv", lines(task_event(0, 1, 0, 9, "u", 0.1, 0.1)))
    err = refused(tmp_path, capsys, "google-2011", bad, "--machines", machines)
    assert f"line 1, column 6 (event type): must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, " \
           "got '9'" in err


def test_a_json_line_naming_its_field(tmp_path, capsys):
    events = put(tmp_path / "e.json", '{"time": "0", "type": "SUBMIT"}\n{"time": -3}\n')
    users = jsonl(tmp_path / "c.json", {"collection_id": "1", "user": "u"})
    machines = jsonl(tmp_path / "m.json", {"machine_id": "1", "type": "ADD",
                                           "capacity": {"cpus": 1, "memory": 1}})
    err = refused(tmp_path, capsys, "google-2019", events, "--machines", machines, "--jobs",
                  users)
    assert f"instance_events file {events}, line 1, field 'collection_id': missing" in err


def test_a_file_that_is_not_what_its_name_says(tmp_path, capsys):
    fake = put(tmp_path / "vmtable.csv.gz", lines(vm(1, 0, 300, 2, 4)))
    err = refused(tmp_path, capsys, "azure-vm", fake, "--server", "cpu=8,memory=16",
                  "--count", "1")
    assert f"vmtable file {fake}: not a complete gzip-compressed file" in err
    latin = tmp_path / "latin.csv"
    latin.write_bytes(lines(vm(1, 0, 300, 2, 4), vm(2, 0, 300, 2, 4, "caf\xe9")).encode("latin-1"))
    err = refused(tmp_path, capsys, "azure-vm", str(latin), "--server", "cpu=8,memory=16",
                  "--count", "1")
    assert f"vmtable file {latin}, line " in err and "not UTF-8 text" in err


def test_a_missing_header_column_is_named(tmp_path, capsys):
    pods = put(tmp_path / "pods.csv", "name,cpu_milli\nopenb-pod-1,1000\n")
    nodes = put(tmp_path / "nodes.csv", "sn,cpu_milli,memory_mib,gpu\nn,1000,1024,0\n")
    err = refused(tmp_path, capsys, "alibaba-gpu-2023", pods, "--machines", nodes)
    assert f"openb_pod_list file {pods}, line 1: the header lacks column(s) ['memory_mib'," in err
    nodes = put(tmp_path / "nodes.csv", "sn,cpu_milli,memory_mib,gpu\nn,1000,1024,0\nm,1000\n")
    pods = put(tmp_path / "pods.csv", ",".join(OPENB_POD) + "\n")
    err = refused(tmp_path, capsys, "alibaba-gpu-2023", pods, "--machines", nodes)
    assert f"openb_node_list file {nodes}, line 3: 2 cells, the header has 4" in err


def test_the_tables_a_format_needs(tmp_path, capsys):
    table = put(tmp_path / "vmtable.csv", lines(vm(1, 0, 300, 2, 4)))
    assert "azure-vm needs a server size naming its resources cpu, memory" in refused(
        tmp_path, capsys, "azure-vm", table)
    assert "azure-vm has no machines table" in refused(
        tmp_path, capsys, "azure-vm", table, "--machines", table)
    assert "google-2011 needs its machines table (machine_events)" in refused(
        tmp_path, capsys, "google-2011", table)
    assert "alibaba-gpu-2020 needs its job table (pai_job_table)" in refused(
        tmp_path, capsys, "alibaba-gpu-2020", table, "--machines", table)


def test_a_failure_after_the_servers_leaves_neither_file(tmp_path, capsys):
    meta = put(tmp_path / "machine_meta.csv", lines(("m_1", 0, 1, "a", 96, 100, "USING")))
    batch = put(tmp_path / "batch_task.csv", lines(
        ("M1", 1, "j_1", 1, "Terminated", 10, 20, 100, 0.5),
        ("M1", 1, "j_2", 1, "Terminated", 10, 20, 100, "lots")))
    err = refused(tmp_path, capsys, "alibaba-2018", batch, "--machines", meta)
    assert "line 2, column 9 (plan_mem): must be a finite number >= 0, got 'lots'" in err


# --------------------------------------------------------------------------------------
# End to end: a 30-day trace of 1-second tasks through `drfbench run`
# --------------------------------------------------------------------------------------

def test_a_30_day_trace_of_second_tasks_runs_through_drfbench_run(tmp_path):
    day = 86_400
    events = []
    for i, t in enumerate(range(0, 30 * day + 1, 6 * 3600)):    # every 6 hours, to day 30
        user = f"user{i % 3}"
        events += [task_event(t * S, 1000 + i, 0, 0, user, 0.25, 0.125),
                   task_event(t * S, 1000 + i, 0, 1, user),
                   task_event((t + 1) * S, 1000 + i, 0, 4, user)]
    parts = put(tmp_path / "task_events.csv.gz", lines(*events), gz=True)
    machines = put(tmp_path / "machine_events.csv", lines((0, "m1", 0, "p", 1, 1)))
    s, t = tmp_path / "servers.csv", tmp_path / "tasks.csv"
    assert main(["convert", "google-2011", parts, "--machines", machines,
                 "--out-servers", str(s), "--out-tasks", str(t), "--quiet"]) == 0
    assert len(table(t)) - 1 == 121 and table(t)[-1][2:4] == [str(30 * day), "1"]
    out = tmp_path / "rows.csv"
    assert main(["run", "drfh-best-fit", str(s), str(t), "--sample", "3600",
                 "--out", str(out)]) == 0
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert max(float(r["time"]) for r in rows) >= 30 * day - 3600     # sampled to day 30
    assert {r["user"] for r in rows if r["metric"] == "share"} == {"user0", "user1", "user2"}


# --------------------------------------------------------------------------------------
# The pipeline: a trace in the config, converted and run
# --------------------------------------------------------------------------------------

def test_the_pipeline_converts_a_configured_trace_and_runs_it(tmp_path):
    batch = put(tmp_path / "batch_task.csv", lines(
        ("M1", 2, "j_3", 1, "Terminated", 157297, 157300, 100, 0.39),
        ("R2_1", 1, "j_4", 1, "Terminated", 157290, 157299, 50, 0.2)))
    meta = put(tmp_path / "machine_meta.csv", lines(("m_1", 0, 1, "a", 96, 100, "USING")))
    config = tmp_path / "mine.yaml"
    config.write_text(json.dumps({"name": "mine", "traces": {"sample": 1, "runs": [
        {"id": "ali", "format": "alibaba-2018", "inputs": [batch], "machines": [meta]}]}}))
    target = "results/mine/traces/ali/rows.csv"
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile",
                           str(ROOT / "Snakefile"), "--cores", "1", "--directory", str(tmp_path),
                           target, "--configfile", str(config)], capture_output=True, text=True)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert table(tmp_path / "results/mine/traces/ali/tasks.csv")[1:] == [
        ["j_4", "j_4", "0", "9", "0.5", "0.2"], ["j_3", "j_3", "7", "3", "1", "0.39"],
        ["j_3", "j_3", "7", "3", "1", "0.39"]]
    with open(tmp_path / target, newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["method"] for r in rows} == {"drfh-best-fit"}
    assert {r["user"] for r in rows if r["metric"] == "share"} == {"j_3", "j_4"}
