"""The `drfbench` command (drfbench.cli) and the readers behind `drfbench run`: every
registered method listed; one method of every input kind run on small files gives the
Python API's numbers; options parsed, a wrong one refused naming it; bad input is one
line on stderr, exit status 2, no output file; `bench` on a tiny workload."""
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
from drfbench import drfh, drfq, hdrf, packer, rows
from drfbench.cli import main
from drfbench.dcdrf import workloads
from drfbench.drf import schedule

ROOT = Path(__file__).resolve().parents[1]
DEMANDS = np.array([[0.1, 0.4, 0.0], [0.3, 0.1, 0.2], [0.05, 0.05, 0.5]])
TREE = {"resources": ["cpu", "mem"],
        "children": {"research": {"weight": 2, "children": {
            "train": {"demand": [1, 4], "tasks": 3}, "eval": {"demand": [1, 1]}}},
            "web": {"demand": [2, 1], "tasks": 2}}}
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
                                       "applications", "flows"}


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
    assert [r["policy"] for r in table] == ["online-drf"] * 2


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
    assert {(r["scheduler"], r["resource"], r["costs_file"]) for r in table} == \
        {("bottleneck", "1", costs)}


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
    (["fq", "d.csv", "--interval", "0.3"], ["method 'fq' takes no option interval"]),
    (["nosuch", "d.csv"], ["unknown method 'nosuch'"]),
    (["edrf", "d.csv", "--epsilon", "0.1"], ["method 'edrf' takes no option epsilon"]),
    (["dcdrf", "d.csv", "--threads", "0"], ["threads must be a positive integer"]),
    (["hdrf", "tree.json", "m.csv", "--incremental", "maybe"], ["--incremental", "'maybe'"]),
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
