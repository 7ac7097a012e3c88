"""The `drfbench` command (drfbench.cli) and the readers behind `drfbench run`: every
registered method listed; one method of every input kind run on small files gives the
Python API's numbers; options parsed, a wrong one refused naming it; bad input is one
line on stderr, exit status 2, no output file; `bench` on a tiny workload."""
import csv
import gzip
import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import drfbench
from drfbench import drfh, drfq, hdrf, packer, production, rows
from drfbench.cli import main
from drfbench.dcdrf import workloads
from drfbench.drf import schedule
from conftest import ROOT

DEMANDS = np.array([[0.1, 0.4, 0.0], [0.3, 0.1, 0.2], [0.05, 0.05, 0.5]])
TREE = {"resources": ["cpu", "mem"],
        "children": {"research": {"weight": 2, "children": {
            "train": {"demand": [1, 4], "tasks": 3}, "eval": {"demand": [1, 1]}}},
            "web": {"demand": [2, 1], "tasks": 2}}}
SCENARIO = {"resources": ["cpu", "gpu"],
            "nodes": {"cpu": {"capacity": [4, 0], "count": 2}, "gpu": {"capacity": [2, 1]}},
            "children": {"a": {"guarantee": [2, 0]}, "b": {"weight": 2}},
            "jobs": [{"queue": "a", "tasks": 3, "demand": [2, 0], "duration": 10},
                     {"queue": "b", "arrival": 1, "demand": [1, 1], "duration": 4},
                     {"queue": "b", "arrival": 2, "tasks": 2, "demand": [2, 0],
                      "duration": 5}]}
TRACE = ("user,job,arrival,duration,cpu,mem\n"
         "a,1,0,10,0.2,1\nb,2,0,10,1,0.2\na,1,1,5,0.2,1\nb,3,4,3,0.5,0.5\n")


def write(path, text):
    path.write_text(text)
    return str(path)


def drfbench_command(*args):
    """`python -m drfbench ARGS` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "drfbench", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def run_rows(tmp_path, *args):
    """`drfbench run ARGS --out` through main(): its rows, as strings."""
    out = tmp_path / "rows.csv"
    assert main(["run", *args, "--out", str(out)]) == 0
    table = rows.read_rows(out)
    assert all(set(rows.PROVENANCE_NAMES) <= set(r) for r in table)
    return table


def column(table, name):
    return [float(r[name]) for r in table]


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------

def test_the_console_script_is_main():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"drfbench": "drfbench.cli:main"}


def test_methods_lists_every_registered_method():
    run = drfbench_command("methods")
    assert run.returncode == 0, run.stderr
    listed = {line.split()[0] for line in run.stdout.splitlines()[1:] if line.strip()}
    assert set(drfbench.methods()) <= listed
    assert "epsilon=0.0" in run.stdout and "solver=aggregate" in run.stdout


def test_methods_filters(capsys):
    assert main(["methods", "--takes", "tree"]) == 0
    lines = capsys.readouterr().out.split("\n\n")[0].splitlines()[1:]
    assert [line.split()[0] for line in lines] == list(drfbench.methods(takes="tree"))
    assert main(["methods", "--family", "packer"]) == 0
    assert "packer-slots" in capsys.readouterr().out


def test_methods_options_lists_the_declarations_as_the_docs_show(capsys):
    """`drfbench methods --options`: a row per declared option (and family), the example
    in docs/cli.md being the command's output."""
    assert main(["methods", "--options", "--family", "drfq"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    declared = {o for m in drfbench.methods(family="drfq") for o in drfbench.method_info(m).options}
    assert sorted(row.split()[0] for row in rows) == sorted(declared)
    assert main(["methods", "--options", "--family", "packer"]) == 0
    shown = capsys.readouterr().out
    page = (ROOT / "docs/cli.md").read_text()
    assert f"$ drfbench methods --options --family packer\n{shown}```" in page


def test_run_as_a_command_prints_a_table(tmp_path):
    demands = tmp_path / "d.csv"
    np.savetxt(demands, DEMANDS, delimiter=",")
    run = drfbench_command("run", "sdcdrf", str(demands), "--epsilon", "0.01")
    assert run.returncode == 0, run.stderr
    header, *table = run.stdout.splitlines()
    assert header.split()[:3] == ["method", "epsilon", "threads"] and len(table) == 3
    res = drfbench.allocate(DEMANDS, "sdcdrf", epsilon=0.01)
    assert [float(line.split()[header.split().index("level")]) for line in table] == \
        pytest.approx(res.level.tolist(), rel=1e-5)
    assert run.stderr.startswith("drfbench: read ") and len(run.stderr.splitlines()) == 1


# --------------------------------------------------------------------------------------
# One method of every input kind: the numbers of the Python API
# --------------------------------------------------------------------------------------

def test_every_input_kind_has_a_test():
    assert set(drfbench.api.KINDS) == {"demands", "tasks", "tree", "servers", "trace",
                                       "applications", "flows", "scenario"}


def test_demands(tmp_path):
    path = write(tmp_path / "d.csv", "cpu,mem,gpu\n" + "\n".join(
        ",".join(map(str, row)) for row in DEMANDS) + "\n")
    table = run_rows(tmp_path, "dcdrf", path, "--epsilon", "0.01", "--max-rounds", "2",
                     "--threads", "1")
    res = drfbench.allocate(DEMANDS, "dcdrf", epsilon=0.01, max_rounds=2, threads=1)
    assert column(table, "level") == res.level.tolist()
    assert column(table, "share") == res.allocation.max(axis=1).toarray().ravel().tolist()
    assert {(r["method"], r["epsilon"], r["rounds"], r["demands_file"]) for r in table} == \
        {("dcdrf", "0.01", str(res.rounds), path)}


def test_demands_formats_read_alike(tmp_path):
    """CSV with or without a header, a workload file, a scipy.sparse .npz and Matrix
    Market give the same matrix."""
    np.savetxt(tmp_path / "plain.csv", DEMANDS, delimiter=",")
    sp.save_npz(tmp_path / "sparse.npz", sp.csr_array(DEMANDS))
    scipy.io.mmwrite(tmp_path / "m.mtx", sp.coo_array(DEMANDS))
    wl = workloads.generate("U0", 5, 4, seed=1, dtype=np.float64)
    workloads.save(wl, tmp_path / "wl.npz")
    for name in ("plain.csv", "sparse.npz", "m.mtx"):
        assert np.array_equal(workloads.read_demands(tmp_path / name).toarray(), DEMANDS)
    assert np.array_equal(workloads.read_demands(tmp_path / "wl.npz").toarray(),
                          wl.demands.toarray())


def test_tasks_machines_matched_by_name(tmp_path):
    demands = write(tmp_path / "tasks.csv", "cpu,mem\n1,4\n3,1\n")
    machines = write(tmp_path / "m.csv", "mem,count,cpu\n18,1,9\n9,2,4.5\n")
    table = run_rows(tmp_path, "online-drf", demands, machines, "--weights", "1,2",
                     "--tasks", "5,inf")
    res = schedule([[1, 4], [3, 1]], [[9, 18], [4.5, 9], [4.5, 9]], "online-drf",
                   weights=[1, 2], tasks=[5, np.inf])
    assert column(table, "tasks") == res.tasks.tolist()
    assert column(table, "share") == res.shares.tolist()
    assert [r["method"] for r in table] == ["online-drf"] * 2


def test_tree(tmp_path):
    (tmp_path / "tree.yaml").write_text(json.dumps(TREE))     # JSON is YAML
    machines = write(tmp_path / "m.csv", "mem,cpu\n18,9\n")
    table = run_rows(tmp_path, "hdrf", str(tmp_path / "tree.yaml"), machines,
                     "--incremental", "false", "--tasks", "1,inf,2")
    res = hdrf.schedule(TREE, [9, 18], "hdrf", incremental=False, tasks=[1, np.inf, 2])
    assert [r["leaf"] for r in table] == list(res.tasks)
    assert column(table, "tasks") == list(res.tasks.values())
    assert column(table, "share") == [res.shares[leaf] for leaf in res.tasks]


def test_servers(tmp_path):
    demands = write(tmp_path / "d.csv", "cpu,mem\n0.2,1\n1,0.2\n")
    servers = write(tmp_path / "s.csv", "mem,cpu\n12,2\n2,12\n")
    table = run_rows(tmp_path, "drfh", demands, servers, "--solver", "lp", "--weights", "1,3")
    res = drfh.allocate([[0.2, 1], [1, 0.2]], [[2, 12], [12, 2]], "drfh", solver="lp",
                        weights=[1, 3])
    assert column(table, "tasks") == res.tasks.tolist()
    assert column(table, "level") == res.level.tolist()


def test_trace(tmp_path):
    servers = write(tmp_path / "s.csv", "cpu,mem,count\n2,12,2\n12,2,1\n")
    tasks = write(tmp_path / "t.csv", TRACE)
    table = run_rows(tmp_path, "drfh-first-fit", servers, tasks, "--sample", "2")
    res = drfh.simulate(servers, tasks, "drfh-first-fit", sample=2)
    assert column(table, "value") == [r["value"] for r in res.rows()]
    assert {r["tasks_file"] for r in table} == {tasks}


def test_applications(tmp_path):
    infra = write(tmp_path / "infra.yaml", "servers: 4\nper_rack: 2\n")
    apps = packer.workload(4, seed=2, infrastructure=packer.Infrastructure(servers=4, per_rack=2))
    packer.dump_applications(apps, tmp_path / "apps.json")
    table = run_rows(tmp_path, "tetris", infra, str(tmp_path / "apps.json"), "--threads", "1")
    res = packer.simulate(packer.Infrastructure(servers=4, per_rack=2), apps, "tetris", threads=1)
    assert column(table, "accepted_tasks") == [r["accepted_tasks"] for r in res.rows()]
    assert column(table, "revenue") == [r["revenue"] for r in res.rows()]


def test_flows(tmp_path):
    costs = write(tmp_path / "costs.csv", "cpu,nic\n1e-6,6e-6\n7e-6,1e-6\n")
    table = run_rows(tmp_path, "bottleneck", costs, "--duration", "0.01", "--interval", "0.002",
                     "--source", "tcp", "--weights", "1,2", "--resource", "1")
    res = drfq.simulate([[1e-6, 6e-6], [7e-6, 1e-6]], "bottleneck", duration=0.01,
                        interval=0.002, source="tcp", weights=[1, 2], resource=1)
    assert column(table, "throughput") == res.throughput.tolist()
    assert {(r["method"], r["resource"], r["costs_file"]) for r in table} == \
        {("bottleneck", "1", costs)}


def test_scenario(tmp_path):
    path = write(tmp_path / "scenario.json", json.dumps(SCENARIO))
    table = run_rows(tmp_path, "slurm-fairtree", path, "--half-life", "0", "--max-tres",
                     "false")
    res = production.simulate(SCENARIO, "slurm-fairtree", half_life=0, max_tres=False)
    start, finish = res.jobs()
    assert column(table, "start") == start.tolist()
    assert column(table, "finish") == finish.tolist()
    assert [r["queue"] for r in table] == ["a", "b", "b"]
    assert {(r["method"], r["scenario_file"]) for r in table} == {("slurm-fairtree", path)}


# --------------------------------------------------------------------------------------
# Bad input: one line, exit status 2, no output file
# --------------------------------------------------------------------------------------

def bad_files(tmp_path):
    files = {
        "d.csv": "cpu,mem\n0.1,0.4\n0.3,0.1\n",
        "cells.csv": "cpu,mem\n0.1,0.4\n\n0.3,abc\n",
        "ragged.csv": "cpu,mem\n0.1,0.4\n0.3,0.1,0.5\n",
        "m.csv": "cpu,mem\n9,18\n",
        "gpu.csv": "cpu,gpu\n9,1\n",
        "tree.yaml": "resources: [cpu, mem]\nchildren:\n  a: {demand: [1, 2]\n",
        "tree.json": json.dumps({"resources": ["cpu"], "children": {"a": {"demand": [-1]}}}),
        "infra.json": '{"servers": 4,\n "per_rack": 2,,}',
        "racks.json": '{"servers": 4, "racks": 2}',
        "apps.json": "[]",
        "trace.csv": "user,job,arrival,duration,cpu,mem\na,1,0,10,0.2,1,5\n",
        "costs.csv": "cpu,nic\n1e-6,6e-6\n0,0\n",
        "scenario.yaml": "resources: [cpu]\nnodes: {n: {capacity: [4]}}\n"
                         "children: {a: {}}\njobs:\n  - {queue: b, demand: [1], duration: 1}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)


@pytest.mark.parametrize("args, names", [
    (["dcdrf", "none.csv"], ["demands file", "none.csv", "does not exist"]),
    (["dcdrf", "cells.csv"], ["cells.csv", "column 'mem'", "'abc'", "line 4"]),
    (["dcdrf", "ragged.csv"], ["ragged.csv", "line 3", "3 cells"]),
    (["online-drf", "d.csv", "gpu.csv"], ["gpu.csv", "'gpu'"]),
    (["hdrf", "tree.yaml", "m.csv"], ["tree.yaml", "line 4", "column 1", "not valid YAML"]),
    (["hdrf", "tree.json", "m.csv"], ["tree.json", "leaf 'a'", "non-negative"]),
    (["packer", "infra.json", "apps.json"], ["infra.json", "line 2", "column 16"]),
    (["packer", "racks.json", "apps.json"], ["racks.json", "unknown key(s) ['racks']"]),
    (["drfh-first-fit", "m.csv", "trace.csv"], ["tasks file trace.csv", "line 2", "7 cells"]),
    (["drfq", "costs.csv"], ["costs file costs.csv", "line 3", "costs 0 on every resource"]),
    (["kueue", "scenario.yaml"], ["scenario file scenario.yaml", "job 0", "queue 'b'"]),
    (["yarn-fair-drf", "scenario.yaml", "--half-life", "9"],
     ["method 'yarn-fair-drf' takes no option half_life"]),
    (["fq", "d.csv", "--interval", "0.3"], ["method 'fq' takes no option interval"]),
    (["nosuch", "d.csv"], ["unknown method 'nosuch'"]),
    (["edrf", "d.csv", "--epsilon", "0.1"], ["method 'edrf' takes no option epsilon"]),
    (["dcdrf", "d.csv", "--threads", "0"], ["threads must be a positive integer"]),
    (["hdrf", "tree.json", "m.csv", "--incremental", "maybe"], ["--incremental", "'maybe'"]),
    (["fifo", "d.csv", "--duration", "-1"], ["duration must lie in (0, 1e+09], got -1"]),
    (["drfh", "d.csv", "m.csv", "--solver", "simplex"],
     ["solver must be one of 'aggregate', 'lp'; got 'simplex'"]),
    (["online-drf", "d.csv"], ["required", "machines"]),
])
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, args, names):
    bad_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", *args, "--out", "out/rows.csv"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
    assert all(n in captured.err for n in names), captured.err
    assert not (tmp_path / "out").exists()


def test_run_help_shows_each_option_as_declared(capsys):
    """`drfbench run METHOD --help`: each option's description, default and bounds or
    choices, from its declaration (drfbench.api.Option)."""
    assert main(["run", "drfh-slots", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for option in drfbench.method_info("drfh-slots").options.values():
        shown = f"{option.description}; default: {option.default}"
        assert " ".join(shown.split()) in text, option.name
    assert "timeshare, capped" in text and "[1, inf)" in text


def test_bad_input_as_a_command(tmp_path):
    run = drfbench_command("run", "drfh-best-fit", str(tmp_path / "s.csv"), "t.csv")
    assert run.returncode == 2
    assert run.stderr.splitlines() == [f"drfbench: error: servers file {tmp_path / 's.csv'} "
                                       "does not exist"]


def test_bench_on_a_tiny_workload(tmp_path, capsys):
    out = tmp_path / "bench.csv"
    assert main(["bench", "--tenants", "40", "--resources", "6", "--methods", "dcdrf",
                 "--epsilons", "0.01", "--threads", "1", "--repeats", "1", "--csv", str(out)]) == 0
    assert "dcdrf" in capsys.readouterr().out
    (row,) = rows.read_rows(out)
    assert row["method"] == "dcdrf" and row["tenants"] == "40"


# --------------------------------------------------------------------------------------
# Every registered method through the command; outputs and inputs that are not plain files
# --------------------------------------------------------------------------------------

APPLICATIONS = {"applications": [{
    "name": "a", "arrival": 0, "duration": 2, "weight": 1.0,
    "nodes": [{"name": "web", "demand": {"cpu": [1, 1], "mem": [1, 2], "io_write": [1, 1],
                                         "io_read": [1, 1]}}], "edges": []}]}
# Per input kind: a minimal file per input, and options keeping the run small.
MINIMAL = {
    "demands": ({"d.csv": "cpu,mem\n0.1,0.4\n0.3,0.1\n"}, []),
    "tasks": ({"d.csv": "cpu,mem\n1,4\n3,1\n", "m.csv": "cpu,mem\n9,18\n"}, []),
    "tree": ({"tree.json": json.dumps(TREE), "m.csv": "mem,cpu\n18,9\n"}, []),
    "servers": ({"d.csv": "cpu,mem\n0.2,1\n1,0.2\n", "s.csv": "mem,cpu\n12,2\n2,12\n"}, []),
    "trace": ({"s.csv": "cpu,mem\n2,12\n", "t.csv": TRACE}, ["--sample", "5"]),
    "applications": ({"infra.yaml": "servers: 2\nper_rack: 2\n",
                      "apps.json": json.dumps(APPLICATIONS)}, []),
    "flows": ({"costs.csv": "cpu,nic\n1e-6,6e-6\n7e-6,1e-6\n"}, ["--duration", "0.002"]),
    "scenario": ({"scenario.json": json.dumps(SCENARIO)}, []),
}


@pytest.mark.parametrize("method", drfbench.methods())
def test_every_method_runs_through_the_command(tmp_path, capsys, method):
    """`drfbench run METHOD` on a minimal file of its kind: status 0, well-formed stamped
    rows whose isa_variant is a kernel variant, or "numpy" where no kernel ran."""
    files, options = MINIMAL[drfbench.method_info(method).takes]
    options = options + (["--slots", "2"] if method == "hadoop-slots" else [])
    paths = [write(tmp_path / name, text) for name, text in files.items()]
    table = run_rows(tmp_path, method, *paths, *options)
    assert table and len({tuple(r) for r in table}) == 1
    assert {r["isa_variant"] for r in table} <= {*drfbench._isa.VARIANTS, rows.NO_KERNEL}
    assert f"{len(table)} rows" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["drf", "asset-fairness", "ceei"])
def test_methods_without_a_kernel_run_and_are_stamped_numpy(tmp_path, capsys, method):
    path = write(tmp_path / "d.csv", "cpu,mem\n0.1,0.4\n0.3,0.1\n")
    table = run_rows(tmp_path, method, path)
    assert {(r["isa_variant"], r["isa_flags"], r["openmp"]) for r in table} == {("numpy", "", "")}
    assert drfbench.allocate(DEMANDS, method).rows()[0]["isa_variant"] == "numpy"
    out = tmp_path / "bench.csv"
    assert main(["bench", "--tenants", "20", "--resources", "4", "--methods", f"{method},dcdrf",
                 "--threads", "1", "--repeats", "1", "--csv", str(out)]) == 0
    table = rows.read_rows(out)
    assert {r["method"] for r in table} == {method, "dcdrf"}
    assert all(r["isa"] == r["isa_variant"] and (r["isa"] == "numpy") == (r["method"] == method)
               for r in table)


@pytest.mark.parametrize("name", ["rows.csv", "rows.csv.gz", "rows.json", "rows.jsonl"])
def test_out_format_by_name(tmp_path, name):
    path = write(tmp_path / "d.csv", "cpu,mem\n0.1,0.4\n0.3,0.1\n")
    out = tmp_path / name
    assert main(["run", "edrf", path, "--out", str(out)]) == 0
    data = out.read_bytes()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    text = data.decode()
    table = (json.loads(text) if name.endswith(".json") else
             [json.loads(line) for line in text.splitlines()] if name.endswith(".jsonl") else
             list(csv.DictReader(io.StringIO(text))))
    assert [int(r["tenant"]) for r in table] == [0, 1]


def test_an_unknown_format_is_refused_before_running(tmp_path, capsys):
    path = write(tmp_path / "d.csv", "cpu,mem\n0.1,0.4\n0.3,0.1\n")
    assert main(["run", "edrf", path, "--out", str(tmp_path / "rows.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rows.parquet" in err and ".csv, .csv.gz, .json, .jsonl" in err
    assert "running" not in err and sorted(os.listdir(tmp_path)) == ["d.csv"]


@pytest.mark.parametrize("kind", ["link", "fifo", "device", "folder"])
def test_out_that_is_not_a_regular_file_is_refused(tmp_path, capsys, kind):
    path = write(tmp_path / "d.csv", "cpu,mem\n0.1,0.4\n0.3,0.1\n")
    target = tmp_path / "kept.csv"
    target.write_text("kept\n")
    out = {"link": tmp_path / "link.csv", "fifo": tmp_path / "fifo.csv",
           "device": Path("/dev/null"), "folder": tmp_path / "dir.csv"}[kind]
    {"link": lambda: out.symlink_to(target), "fifo": lambda: os.mkfifo(out),
     "device": lambda: None, "folder": out.mkdir}[kind]()
    assert main(["run", "edrf", path, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(out) in err, err
    assert {"link": "symbolic link", "fifo": "FIFO", "device": "character device",
            "folder": "folder"}[kind] in err
    assert target.read_text() == "kept\n" and (out.is_symlink() or not out.is_file())


def test_a_long_out_name_is_written(tmp_path):
    path = write(tmp_path / "d.csv", "cpu,mem\n0.1,0.4\n0.3,0.1\n")
    out = tmp_path / ("r" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 4) + ".csv")
    assert main(["run", "edrf", path, "--out", str(out)]) == 0
    assert len(rows.read_rows(out)) == 2 and sorted(os.listdir(tmp_path)) == sorted(["d.csv", out.name])


def test_the_table_reads_only_the_rows_it_prints(tmp_path, capsys, monkeypatch):
    """Without --out, SHOWN_ROWS rows and one more are produced, not the rest."""
    made = []

    class Result:
        def rows(self, **columns):
            def source():
                for i in range(10**9):
                    made.append(i)
                    yield {"i": i, "name": "\x1b[31mred\x1b[0m"}
            return rows.stamped(source, **columns)
    monkeypatch.setattr(drfbench.api, "run", lambda *args, **options: Result())
    path = write(tmp_path / "d.csv", "cpu,mem\n0.1,0.4\n")
    assert main(["run", "edrf", path]) == 0
    out = capsys.readouterr().out
    assert len(made) == drfbench.cli.SHOWN_ROWS + 1 and "... and more rows" in out
    assert "\x1b" not in out and "\\x1b[31mred\\x1b[0m" in out


def test_input_from_stdin_and_process_substitution(tmp_path):
    """/dev/stdin and a pipe (what the shell's <(...) gives) are read like files."""
    text = "cpu,mem\n1,4\n3,1\n"
    machines = write(tmp_path / "m.csv", "cpu,mem\n9,18\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "drfbench", "run", "online-drf", "/dev/stdin",
                          machines, "--out", str(tmp_path / "a.csv")], input=text,
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    bash = subprocess.run(["bash", "-c", f'"{sys.executable}" -m drfbench run online-drf '
                           f'<(printf "{text}") {machines} --out {tmp_path / "b.csv"}'],
                          capture_output=True, text=True, env=env, timeout=120)
    assert bash.returncode == 0, bash.stderr
    assert [r["tasks"] for r in rows.read_rows(tmp_path / "a.csv")] == \
        [r["tasks"] for r in rows.read_rows(tmp_path / "b.csv")] == ["3", "2"]


def test_ctrl_c_is_one_line_status_130_and_leaves_nothing(tmp_path):
    """SIGINT while the rows are written: one line on stderr, status 130, no file. Raised in
    the writing thread (`raise_signal`): one sent to the process may land on a BLAS worker
    thread and, on a loaded machine, come after the rows are written (CI, 2026-11-27). The
    child takes Ctrl-C as a terminal's Python does (`default_int_handler`): a test run started
    in the background inherits SIGINT ignored, and so would its child (2026-11-27)."""
    path = write(tmp_path / "d.csv", "cpu,mem\n0.1,0.4\n")
    code = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from drfbench import api, cli, rows\n"
            "def source():\n    yield {'i': 0}\n    signal.raise_signal(signal.SIGINT)\n"
            "    yield {'i': 1}\n"
            "class Result:\n    def rows(self, **c):\n        return rows.stamped(source, **c)\n"
            "api.run = lambda *a, **o: Result()\n"
            f"sys.exit(cli.main(['run', 'edrf', {path!r}, '--out', 'out/rows.csv']))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines() == ["drfbench: interrupted by SIGINT; nothing written"]
    assert sorted(os.listdir(tmp_path)) == ["d.csv"]


def test_error_messages_escape_control_characters(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "edrf", "\x1b[2Jgone.csv"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2Jgone.csv" in err and err.count("\n") == 1


def test_a_run_s_error_names_the_file_of_its_input(tmp_path, capsys, monkeypatch):
    """An error the run raises about one input (`tasks: a task ends past ...`) is said of
    the file the user gave for it, in one line (found by the mutated-file fuzz test)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text("cpu,mem,count\n2,12,2\n12,2,1\n")
    (tmp_path / "t.csv").write_text("user,job,arrival,duration,cpu,mem\n"
                                    "a,1,0,10,0.2,1\nb,2,0,1e308,1,0.2\n")
    assert main(["run", "drfh-first-fit", "s.csv", "t.csv", "--sample", "2"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "t.csv (tasks): a task ends past" in err, err
