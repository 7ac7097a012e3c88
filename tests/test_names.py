"""`drfbench run`'s rows carry the input file's row names as written (docs/accepts.md
"Names of rows"); without a name column, the rows' indices."""

import json

import pytest

import drfbench
from drfbench import api
from drfbench.cli import main
from drfbench.dcdrf import workloads

NAMED = "tenant,cpu,mem\n007,0.5,0.2\n7,0.1,0.4\n1e3,0.2,0.1\n"


def run_rows(tmp_path, text, method="edrf"):
    path = tmp_path / "d.csv"
    path.write_text(text)
    out = tmp_path / "rows.json"
    assert main(["run", method, str(path), "--out", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("method", ["edrf", "dcdrf"])
def test_demands_rows_carry_the_names_as_written(tmp_path, method):
    table = run_rows(tmp_path, NAMED, method)
    assert [r["tenant"] for r in table] == ["007", "7", "1e3"]


@pytest.mark.parametrize("text", ["cpu,mem\n0.5,0.2\n0.1,0.4\n", "0.5,0.2\n0.1,0.4\n"])
def test_demands_rows_without_names_keep_indices(tmp_path, text):
    assert [r["tenant"] for r in run_rows(tmp_path, text)] == [0, 1]


def test_the_reader_gives_names_only_when_asked(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(NAMED)
    matrix, labels = workloads.read_demands(path, names=True)
    assert labels == ("007", "7", "1e3")
    assert workloads.read_demands(path).toarray().tolist() == matrix.toarray().tolist()
    (inputs,) = api.KINDS["demands"].read(path)
    assert inputs.shape == (3, 2)
    assert api.KINDS["demands"].read(path, names=True)[1] == labels


def test_flows_rows_carry_the_names_as_written(tmp_path):
    path = tmp_path / "costs.csv"
    path.write_text("flow,cpu,nic\n007,1e-6,6e-6\n7,7e-6,1e-6\n1e3,2e-6,2e-6\n")
    out = tmp_path / "rows.json"
    assert main(["run", "drfq", str(path), "--duration", "0.002", "--out", str(out)]) == 0
    assert [r["flow"] for r in json.loads(out.read_text())] == ["007", "7", "1e3"]
    path.write_text("cpu,nic\n1e-6,6e-6\n7e-6,1e-6\n")
    assert main(["run", "drfq", str(path), "--duration", "0.002", "--out", str(out)]) == 0
    assert [r["flow"] for r in json.loads(out.read_text())] == [0, 1]


# The kinds whose rows name a row of the first input, and a file of each with names.
NAMED_FILES = {
    "tasks": ({"d.csv": "user,cpu,mem\n007,1,4\n7,3,1\n1e3,1,1\n", "m.csv": "cpu,mem\n9,18\n"}, "user"),
    "servers": ({"d.csv": "user,cpu,mem\n007,0.2,1\n7,1,0.2\n1e3,0.5,0.5\n",
                 "s.csv": "mem,cpu\n12,2\n2,12\n"}, "user"),
}


@pytest.mark.parametrize("method", [m for kind in NAMED_FILES for m in drfbench.methods(takes=kind)])
def test_user_rows_carry_the_names_as_written(tmp_path, method):
    files, column = NAMED_FILES[drfbench.method_info(method).takes]
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    out = tmp_path / "rows.json"
    slots = ["--slots", "2"] if method == "hadoop-slots" else []
    assert main(["run", method, *paths, *slots, "--out", str(out)]) == 0
    assert [r[column] for r in json.loads(out.read_text())] == ["007", "7", "1e3"]
