"""The many-core reference set's runner: the configuration file becomes `drfbench bench` runs,
one tidy CSV each; what the file gets wrong is refused before any run, naming the run."""
import subprocess
from pathlib import Path

import pytest

from drfbench import _isa, rows
from drfbench.dcdrf import many_core
from drfbench.dcdrf.__main__ import main

CONFIG = Path(__file__).resolve().parents[2] / "workflows/config/many-core.yaml"


def test_the_committed_configuration_plans_the_reference_sets_files(monkeypatch):
    monkeypatch.setattr(_isa, "built", lambda name: True)
    monkeypatch.setattr(_isa, "missing_features", lambda name: frozenset())
    names = {path.name for path, _, _ in many_core.plan(CONFIG, "out")}
    reference = CONFIG.parents[2] / "reference/many-core/xeon16-2026-11-26"
    assert names == {p.name for p in reference.glob("*.csv")}


def test_runs_write_one_csv_each_with_their_places(tmp_path):
    isa = _isa.resolve()
    config = tmp_path / "many.yaml"
    config.write_text(
        "tenants: 300\nresources: 40\nrepeats: 1\nmethods: [dcdrf]\nepsilons: [0.001]\nruns:\n"
        f"  configs_{{isa}}: {{threads: [1, 2], dtypes: [float32, float64], isas: [{isa}]}}\n"
        "  smt: {threads: [2], places: threads, epsilons: [0.01]}\n")
    main(["many-core", "--config", str(config), "--out", str(tmp_path / "set")])
    configs = rows.read(tmp_path / "set" / f"configs_{isa}.csv")
    assert sorted(zip(configs["threads"], configs["dtype"])) == [
        (1, "float32"), (1, "float64"), (2, "float32"), (2, "float64")]
    assert set(configs["isa"]) == {isa} and set(configs["omp_places"]) == {"cores"}
    smt = rows.read(tmp_path / "set" / "smt.csv")
    assert list(smt["omp_places"]) == ["threads"] and list(smt["epsilon"]) == [0.01]


@pytest.mark.parametrize("runs, problem", [
    ("{x: {tenant: 3}}", "runs.x: unknown option(s) tenant"),
    ("{x: {threads: [0]}}", "runs.x: argument --threads: must be a whole number >= 1 and <= 1024, got '0'"),
    ("{x: {isas: [generic, generic]}}", "runs.x: 2 variants need {isa} in the file's name"),
    ("{x: {floor: yes}}", "runs.x: floor is true or false, not 'yes'"),
    ("{x: {tenants: [1, 2]}}", "runs.x: tenants is one value, not [1, 2]"),
    ("{x: {places: socket}}", "runs.x: places is cores or threads, not 'socket'"),
    ("{../x: {}}", "runs.../x: a file's name, not a path"),
    ("{}", "needs `runs`"),
])
def test_a_wrong_file_is_refused_naming_the_run(tmp_path, capsys, runs, problem):
    config = tmp_path / "many.yaml"
    config.write_text(f"runs: {runs}\n")
    with pytest.raises(SystemExit) as exc:
        main(["many-core", "--config", str(config), "--out", str(tmp_path / "set")])
    assert exc.value.code == 2
    assert f"many-core configuration file {config}: {problem}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [config]      # no folder, no temporary one


def test_an_existing_folder_is_not_written_over(tmp_path, capsys):
    (tmp_path / "set").mkdir()
    with pytest.raises(SystemExit):
        main(["many-core", "--config", str(CONFIG), "--out", str(tmp_path / "set")])
    assert "exists: name a new folder" in capsys.readouterr().err


def test_a_failed_run_leaves_nothing(tmp_path, monkeypatch, capsys):
    config = tmp_path / "many.yaml"
    config.write_text("tenants: 300\nresources: 40\nrepeats: 1\nepsilons: [0.01]\n"
                      "runs: {first: {threads: [1]}, second: {threads: [1]}}\n")
    run = subprocess.run

    def second_fails(argv, **kw):
        if any(str(a).endswith("second.csv") for a in argv):
            raise subprocess.CalledProcessError(1, argv)
        return run(argv, **kw)
    monkeypatch.setattr(many_core.subprocess, "run", second_fails)
    with pytest.raises(SystemExit) as exc:
        main(["many-core", "--config", str(config), "--out", str(tmp_path / "set")])
    assert exc.value.code == 1 and list(tmp_path.iterdir()) == [config]
    assert "the run of second.csv failed (status 1); nothing written" in capsys.readouterr().err
