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


def test_the_flags_of_the_options_are_their_declarations(capsys):
    """--epsilons and --threads (comma lists, a configuration each) and --deadline read
    their values as declared (catalog.EPSILON, DEADLINE; api.THREADS: `all` the default
    count), refused by the parser outside their bounds; a method runs at the epsilon and
    threads it takes, the others at 0 and 1."""
    import pytest
    from drfbench._machine import resolve_threads
    args = bench.parse_args(["--methods", "edrf,dcdrf", "--epsilons", "0,0.5",
                             "--threads", "2,all", "--deadline", "1.5", "--dtypes", "float64"])
    assert args.swept == {"epsilon": [0.0, 0.5], "threads": [2, resolve_threads()]}
    assert args.given["deadline"] == 1.5
    assert list(bench.configurations(args)) == [
        ("edrf", {"epsilon": 0.0, "threads": 1}, "float64"),
        *(("dcdrf", {"epsilon": e, "threads": t}, "float64")
          for e in (0.0, 0.5) for t in (2, resolve_threads()))]
    for flag, bad, said in (("--epsilons", "0,1", "must be a finite number >= 0 and < 1"),
                            ("--threads", "1,0", "must be a whole number >= 1 and <= 1024"),
                            ("--deadline", "0", "must be a number (inf allowed) > 0")):
        with pytest.raises(SystemExit):
            bench.parse_args([flag, bad])
        assert f"argument {flag}: {said}" in capsys.readouterr().err
