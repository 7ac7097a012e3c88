"""The command line's one boundary (drfbench._command, drfbench._io.transaction): every
`python -m drfbench.<family> <step>` and `drfbench` subcommand, given bad input, prints one
line on stderr naming the problem, exits with status 2 and leaves no new file behind; the
parser refuses values no step can use; a step that fails after writing some of its files
leaves none of them."""
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from drfbench import _command, _io, api
from drfbench import rows as tidy
from conftest import ROOT

PACKAGE = ROOT / "drfbench"
SERVERS = "cpu,mem\n4,8\n8,4\n"
TASKS = "user,job,arrival,duration,cpu,mem\na,1,0,10,1,1\nb,2,0,10,1,1\na,1,1,5,1,1\n"
UNSORTED = "user,job,arrival,duration,cpu,mem\na,1,5,10,1,1\nb,2,0,10,1,1\n"
DRFH_RUN = ["run", "--servers", "servers.csv", "--tasks", "tasks.csv", "--out", "o.csv",
            "--jobs", "j.csv", "--users", "u.csv"]

# (module run with -m, its arguments, a fragment of the one line it prints): one per kind
# of bad input, one or more per family's command
BAD = [
    ("drfbench.drfh", [*DRFH_RUN[:4], "unsorted.csv", *DRFH_RUN[5:]], "arrivals must be sorted"),
    ("drfbench.drfh", [*DRFH_RUN, "--sample", "0"], "argument --sample: must be a finite number > 0"),
    ("drfbench.drfh", [*DRFH_RUN, "--horizon", "-5"], "argument --horizon"),
    ("drfbench.drfh", ["run", "--servers", "missing.csv", *DRFH_RUN[3:]], "no such file: missing.csv"),
    ("drfbench.drfh", [*DRFH_RUN[:5], "--out", "tasks.csv/o.csv", *DRFH_RUN[7:]], "is not a folder"),
    ("drfbench.drfh", [*DRFH_RUN, "--out", "."], "is a folder"),
    ("drfbench.drfh", [*DRFH_RUN, "--scheduler", "drfh-slots", "--slots-from", "tasks.csv"],
     "not a slots-search table"),
    ("drfbench.drfh", ["convert", "google", "--servers", "0", "--out", "s.csv"], "--servers"),
    ("drfbench.drfh", ["convert", "alibaba", "--fraction", "0", "--out", "t.csv"], "--fraction"),
    ("drfbench.hdrf", ["evaluate", "--out", "t.csv", "--summary", "s.csv", "--span", "-5"], "--span"),
    ("drfbench.hdrf", ["evaluate", "--out", "t.csv", "--summary", "s.csv", "--span", "nan"], "--span"),
    ("drfbench.packer", ["sensitivity", "--out", "p.csv", "--rate", "inf"], "--rate"),
    ("drfbench.drfq", ["sweep", "--out", "q.csv", "--flows", "0"], "--flows"),
    ("drfbench.drf", ["slots", "--out", "d.csv", "--sample", "0"], "--sample"),
    ("drfbench.dcdrf", ["workload", "--workload", "G0-10", "--out", "w.npz"], "PROFILE-TENANTS"),
    ("drfbench.dcdrf", ["baseline", "--workload-file", "missing.npz", "--method", "edrf",
                        "--out", "b.npz"], "no such file"),
    ("drfbench.dcdrf", ["controller", "--max-rounds", "5", "--csv", "c.csv", "--tenants", "-1"],
     "--tenants"),
    ("drfbench", ["run", "dcdrf", "missing.csv"], "does not exist"),
    ("drfbench", ["run", "dcdrf", "tasks.csv", "--out", "r.csv"], "user 'a' is named twice"),
    ("drfbench", ["run", "drfh-best-fit", "servers.csv", "tasks.csv", "--sample", "nan"],
     "sample must be a number of seconds (or a duration), got 'nan'"),
    ("drfbench", ["run", "drfh-best-fit", "servers.csv", "tasks.csv", "--weights", "1,nan"],
     "argument --weights: 'nan' is not a number"),
    ("drfbench", ["bench", "--repeats", "0"], "--repeats"),
    ("drfbench.rows", ["gather", "--out", "g.csv", "tasks.csv"], "lacks the provenance"),
]


def files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("module, argv, fragment", BAD, ids=[
    f"{m.removeprefix('drfbench.')}-{' '.join(a)[:40]}" for m, a, _ in BAD])
def test_bad_input_is_one_line_status_2_and_no_new_file(tmp_path, module, argv, fragment):
    for name, text in (("servers.csv", SERVERS), ("tasks.csv", TASKS), ("unsorted.csv", UNSORTED)):
        (tmp_path / name).write_text(text)
    before = files(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(_command.TRACEBACK, None)
    done = subprocess.run([sys.executable, "-m", module, *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and ": error: " in lines[0] and fragment in lines[0], done.stderr
    assert files(tmp_path) == before


def test_drfh_run_failing_on_its_last_file_leaves_none(tmp_path, monkeypatch, capsys):
    """`drfh run` writes --out, --jobs, then --users: a failure at --users leaves neither
    of the first two, and an --out that was there before is left as it was."""
    from drfbench.drfh import __main__ as drfh_main
    for name, text in (("servers.csv", SERVERS), ("tasks.csv", TASKS), ("o.csv", "old\n")):
        (tmp_path / name).write_text(text)
    write = tidy.write

    def failing(rows, path):
        if Path(path).name == "u.csv":
            raise OSError(28, "No space left on device")
        return write(rows, path)

    monkeypatch.setattr(drfh_main.tidy, "write", failing)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit:
        drfh_main.main([*DRFH_RUN, "--sample", "1", "--out", "new/o.csv"])
    assert exit.value.code == 2
    assert "No space left on device" in capsys.readouterr().err
    assert files(tmp_path) == ["o.csv", "servers.csv", "tasks.csv"]
    assert (tmp_path / "o.csv").read_text() == "old\n"
    monkeypatch.setattr(drfh_main.tidy, "write", write)
    drfh_main.main([*DRFH_RUN, "--sample", "1"])          # and it writes all three when it can
    assert {"o.csv", "j.csv", "u.csv"} <= set(files(tmp_path))


def test_the_generic_trace_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """`drfh convert` (a plain CSV, no stamp) and Packer's applications file go through the
    one atomic writer: interrupted mid-write, they leave nothing."""
    import pandas as pd

    from drfbench.drfh import __main__ as drfh_main
    from drfbench.packer.workload import dump_applications, load_applications, workload

    def half(self, path, **options):
        Path(path).write_text("cpu,memory\n0.5,")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half)
    with pytest.raises(SystemExit) as stopped:     # Ctrl-C: one line, status 130
        drfh_main.main(["convert", "google", "--servers", "3", "--out", str(tmp_path / "s.csv")])
    assert stopped.value.code == 130 and files(tmp_path) == []
    monkeypatch.undo()
    apps = workload(2, seed=0)
    with pytest.raises(RuntimeError), _io.transaction():
        dump_applications(apps, tmp_path / "apps.json")
        raise RuntimeError("the step failed after writing")
    assert files(tmp_path) == []
    dump_applications(apps, tmp_path / "apps.json")
    assert len(load_applications(tmp_path / "apps.json")) == 2


def test_a_transaction_puts_every_file_in_place_or_none(tmp_path):
    (tmp_path / "kept.csv").write_text("old\n")
    with pytest.raises(ValueError), _io.transaction():
        with _io.replacing(tmp_path / "kept.csv") as tmp:
            tmp.write_text("new\n")
        with _io.replacing(tmp_path / "made/deeper/b.csv") as tmp:
            tmp.write_text("b\n")
        with _io.transaction():                 # nested: the outer one decides
            with _io.replacing(tmp_path / "c.csv") as tmp:
                tmp.write_text("c\n")
        assert files(tmp_path) != ["kept.csv"]   # (temporary files, not yet in place)
        assert not (tmp_path / "c.csv").exists()
        raise ValueError("the step failed")
    assert files(tmp_path) == ["kept.csv"] and (tmp_path / "kept.csv").read_text() == "old\n"
    with _io.transaction():
        for name in ("kept.csv", "made/b.csv", "kept.csv"):     # written twice: the last wins
            with _io.replacing(tmp_path / name) as tmp:
                tmp.write_text(f"{name} {len(files(tmp_path))}\n")
    assert files(tmp_path) == ["kept.csv", "made", "made/b.csv"]
    assert (tmp_path / "kept.csv").read_text().startswith("kept.csv")


def test_sigterm_leaves_no_file(tmp_path):
    """A step stopped by SIGTERM (scancel, Snakemake) exits through Python: its files,
    written or half-written, are removed. Raised in the step's thread, as in
    test_cli.py's SIGINT test."""
    code = ("import signal\nfrom drfbench import _command, _io\n"
            "with _command.boundary('step'):\n"
            "    with _io.replacing('a.csv') as tmp:\n        tmp.write_text('a')\n"
            "    with _io.replacing('b.csv') as tmp:\n        tmp.write_text('b')\n"
            "        signal.raise_signal(signal.SIGTERM)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 143 and files(tmp_path) == [], done.stderr


@pytest.mark.parametrize("text, ok", [("1", True), ("1e3", True), ("0", False), ("-5", False),
                                      ("nan", False), ("inf", False), ("2.5", False),
                                      ("1e30", False), ("x", False)])
def test_a_count_is_whole_finite_and_at_least_one(text, ok):
    import argparse
    if ok:
        assert _command.COUNT(text) == int(float(text))
    else:
        with pytest.raises(argparse.ArgumentTypeError):
            _command.COUNT(text)


def test_the_horizon_takes_inf_but_no_other_bound_does():
    import argparse
    assert _command.HORIZON("inf") == float("inf")
    for kind in (_command.POSITIVE, _command.NONNEGATIVE, _command.FRACTION):
        with pytest.raises(argparse.ArgumentTypeError):
            kind("inf")


def command_modules():
    """Every module that parses a command line: each __main__.py and each module with a
    `main(argv)`."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        if any(isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "ArgumentParser"
               for n in ast.walk(tree)) or path.name == "__main__.py":
            out.append(path)
    return out


def test_every_command_line_goes_through_the_one_boundary():
    """No command builds its own argparse.ArgumentParser (whose errors print the usage)
    or runs its step outside drfbench._command: a new family's steps get the same
    one-line errors, checked values and all-or-nothing files. build_variants, a build
    helper run before drfbench imports, is the one exception."""
    offenders = []
    for path in command_modules():
        name = str(path.relative_to(ROOT))
        if name in ("drfbench/build_variants.py", "drfbench/_command.py",
                    "drfbench/__main__.py"):
            continue
        text = path.read_text()
        if "ArgumentParser(" in text or "_command import" not in text:
            offenders.append(name)
    assert offenders == []


# what writes a file, and the path it writes: the receiver of write_text/write_bytes, the
# first argument of the others; it must be the temporary file of _io.replacing (named `tmp`
# by convention), the null device, an io.BytesIO named `in_memory`, or the one allowed
# exception
WRITES = re.compile(r"([\w.()\[\]]+)\.write_(?:text|bytes)\("
                    r"|(?:\.to_csv|\.to_parquet|\.savefig|np\.savez\w*|np\.save|save_npz|mmwrite)"
                    r"\(\s*([\w.]+)"
                    r"|open\(\s*([^,)]*?)\s*,\s*[\"'][wax]")
ALLOWED = {"tmp", "os.devnull", "in_memory"}
APPEND_ONLY = {"drfbench/dcdrf/sweeps.py": "args.log"}   # a progress log, kept on failure
# files written into a temporary folder that is renamed into place once whole
IN_A_NEW_FOLDER = {"drfbench/dcdrf/many_core.py": "machine"}


def test_every_file_write_goes_through_the_atomic_writer():
    bypass = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name == "drfbench/_io.py":
            continue
        for line_no, line in enumerate(path.read_text().splitlines(), 1):
            for m in WRITES.finditer(line):
                target = next(g for g in m.groups() if g is not None)
                if target not in ALLOWED and target not in (APPEND_ONLY.get(name),
                                                            IN_A_NEW_FOLDER.get(name)):
                    bypass.append(f"{name}:{line_no}: {line.strip()}")
    assert bypass == []


def test_a_familys_steps_share_one_preamble(tmp_path, capsys):
    """_command.steps builds a family's parser, a subparser per step with the common --out
    and --seed; run_step runs the step inside the boundary, then reports it in one line.
    Every registered family's __main__ builds on them."""
    p, sub = _command.steps("demo", "a demo family", {"one": "the first", "two": "the second"})
    assert set(sub) == {"one", "two"}

    def body(args):
        with _io.replacing(Path(args.out)) as tmp:
            tmp.write_text(f"{args.command} {args.seed}")

    out = tmp_path / "o.txt"
    _command.run_step(p, body, ["two", "--out", str(out), "--seed", "3"])
    assert out.read_text() == "two 3" and capsys.readouterr().err == f"demo two -> {out}\n"
    with pytest.raises(SystemExit) as exc:
        _command.run_step(p, body, ["one", "--seed", "3"])
    assert exc.value.code == 2 and "--out" in capsys.readouterr().err
    mains = [PACKAGE / family / "__main__.py" for family in api.families()]
    assert [m for m in mains if "steps(" not in m.read_text()
            or "run_step(" not in m.read_text()] == []
