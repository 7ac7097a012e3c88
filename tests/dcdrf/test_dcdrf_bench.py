"""The benchmark entry point: its table explains every column, its CSV is tidy rows."""
from drfbench import rows
from drfbench.dcdrf import bench


def test_every_column_of_the_table_is_explained(tmp_path, capsys):
    out = tmp_path / "bench.csv"
    got = bench.main(["--tenants", "300", "--resources", "40", "--repeats", "1", "--floor",
                      "--methods", "dcdrf,edrf", "--epsilons", "0,1e-2", "--threads", "1",
                      "--csv", str(out)])
    printed = capsys.readouterr().out.splitlines()
    header = next(line for line in printed if line.startswith("method"))
    explained = {line.split()[1] for line in printed if line.startswith("#   ")}
    assert header.split() == list(bench.LEGEND) and explained == set(header.split())
    table = rows.read(out)
    assert len(table) == len(got) == 3 and set(table["method"]) == {"dcdrf", "edrf"}
