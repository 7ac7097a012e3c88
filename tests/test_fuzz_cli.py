"""The fuzz suite for the command line (issue 29): every option of every step of every
command (`drfbench`, `python -m drfbench.<family>`, `python -m drfbench.rows`) given a value
its type refuses, and `drfbench run` of a method of every input kind given its input files
mutated (a cell replaced by an awkward value, a line dropped or repeated, the file cut
short, a byte-order mark, Latin-1, random bytes, columns reordered). Each run happens in
the fuzz worker process (tests/fuzz.py) as the command's `main(argv)` in a fresh folder:
it must exit with status 0, or with status 2 and one line on stderr naming the problem,
and a refused run leaves no new file."""
import argparse
import contextlib
import csv
import gzip
import importlib
import io
import json
import os
import re
import stat
import tempfile
from functools import cache
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import assume

import fuzz
from drfbench import _command

# Every command with a `main(argv)`; the steps of one with subcommands are found from its
# parser.
COMMANDS = {
    "drfbench.cli": [[]], "drfbench.rows": [[]], "drfbench.dcdrf.__main__": [[]],
    "drfbench.dcdrf.bench": [[]], "drfbench.drf.__main__": [[]],
    "drfbench.hdrf.__main__": [[]], "drfbench.drfh.__main__": [[]],
    "drfbench.packer.__main__": [[]], "drfbench.drfq.__main__": [[]],
}

# Values an option's type may refuse: out of range, not a number, not finite, too big for
# int64, empty, odd text; plus hypothesis's own text.
AWKWARD = ["", " ", "-1", "0", "-0", "nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1e-400",
           "1e308", "9223372036854775808", "1180591620717411303424", "0.5", "1.5", "1e6",
           "abc", "1,2", "[1]", "true", "None", "0x10", "1_000", "٣", "/", ".", "..",
           "/nonexistent/dir/file.csv", "\x00", "é", "--x"]


class _Captured(Exception):
    """Raised by parse_args to hand back the parser a main() built."""


@cache
def options():
    """(module, step argv, option string) for every option with a type or choices of
    every step of every command."""
    found = []
    for module, prefixes in COMMANDS.items():
        for prefix in prefixes:
            parser = _parser(module, prefix)
            sub = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
            steps = [(prefix + [name], p) for a in sub for name, p in a.choices.items()] or \
                [(prefix, parser)]
            for argv, step in steps:
                for action in step._actions:
                    if action.option_strings and (action.type or action.choices) and action.nargs != 0:
                        found.append((module, tuple(argv), action.option_strings[-1]))
    return found


def _parser(module, argv):
    """The parser `module.main(argv)` builds (its parse_args intercepted)."""
    original = _command.Parser.parse_args

    def capture(self, args=None, namespace=None):
        raise _Captured(self)

    _command.Parser.parse_args = capture
    try:
        importlib.import_module(module).main(list(argv))
    except _Captured as exc:
        return exc.args[0]
    finally:
        _command.Parser.parse_args = original
    raise AssertionError(f"{module}.main({argv}) built no drfbench._command.Parser")


def _action(module, argv, option):
    parser = _parser(module, argv[:1] if module == "drfbench.cli" else [])
    if argv:
        for a in parser._actions:
            if a.__class__.__name__ == "_SubParsersAction" and argv[0] in a.choices:
                parser = a.choices[argv[0]]
    return next(a for a in parser._actions if option in a.option_strings)


def refused_by_type(action, value):
    """Whether argparse refuses `value` for `action` (its type or its choices)."""
    try:
        converted = action.type(value) if action.type else value
    except (argparse.ArgumentTypeError, ValueError, TypeError):
        return True
    return bool(action.choices) and converted not in action.choices


def run_command(module, argv, files=None, check_option=None):
    """In the worker: module.main(argv) in a fresh folder holding `files` (name -> bytes,
    or None for a folder): (status, stderr, new files); None when `check_option`'s type
    accepts the value after it (nothing to test)."""
    if check_option and not refused_by_type(_action(module, argv[:-2], check_option), argv[-1]):
        return None
    with tempfile.TemporaryDirectory() as folder:
        for name, data in (files or {}).items():
            if data is None:
                os.mkdir(os.path.join(folder, name))
            else:
                Path(folder, name).write_bytes(data)
        before = set(os.listdir(folder))
        err, here = io.StringIO(), os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                try:
                    status = importlib.import_module(module).main(list(argv))
                except SystemExit as exc:
                    status = exc.code
        finally:
            os.chdir(here)
        return status or 0, err.getvalue(), sorted(set(os.listdir(folder)) - before)


def check_refusal(outcome, argv):
    assert not outcome.refused, f"{argv}: {outcome.error!r} escaped the command's boundary"
    status, err, new = outcome.value
    lines = err.splitlines()
    assert status == 2, f"{argv}: status {status}, stderr {err!r}"
    assert len(lines) == 1 and ": error: " in lines[0], f"{argv}: stderr {err!r}"
    assert new == [], f"{argv}: left {new}"
    return lines[0]


# --------------------------------------------------------------------------------------
# Every option: a value its type refuses is one line, status 2, no file
# --------------------------------------------------------------------------------------

def test_every_command_has_options():
    assert {m for m, _, _ in options()} == set(COMMANDS)
    assert len(options()) > 100


@fuzz.cases(option=st.sampled_from(range(10**6)),
            value=st.one_of(st.sampled_from(AWKWARD), st.text(max_size=12)))
def test_a_refused_option_value_is_one_line(option, value):
    module, argv, flag = options()[option % len(options())]
    assume(not value.startswith("-") or value[1:2].isdigit() or value[1:] in ("inf", "nan"))
    full = [*argv, flag, value]
    outcome = fuzz.call(run_command, module, full, check_option=flag)
    assume(outcome.refused or outcome.value is not None)
    line = check_refusal(outcome, full)
    assert flag in line or "argument" in line, line


# --------------------------------------------------------------------------------------
# drfbench run on mutated input files
# --------------------------------------------------------------------------------------

TREE = {"resources": ["cpu", "mem"],
        "children": {"research": {"weight": 2, "children": {
            "train": {"demand": [1, 4], "tasks": 3}, "eval": {"demand": [1, 1]}}},
            "web": {"demand": [2, 1], "tasks": 2}}}
APPLICATIONS = {"applications": [{
    "name": "a", "arrival": 0, "duration": 2, "weight": 1.0,
    "nodes": [{"name": "web", "demand": {"cpu": [1, 1], "mem": [1, 2], "io_write": [1, 1],
                                         "io_read": [1, 1]}},
              {"name": "db", "demand": {"cpu": [2, 1], "mem": [1, 1], "io_write": [1, 1],
                                        "io_read": [1, 1]}}],
    "edges": [{"from": "web", "to": "db", "bandwidth": [0.1, 0.2]}]}]}
# Per input kind: a method, its input files (valid), and options keeping the run small.
KINDS = {
    "demands": ("dcdrf", {"d.csv": "cpu,mem,gpu\n0.1,0.4,0\n0.3,0.1,0.2\n0.05,0.05,0.5\n"}, []),
    "tasks": ("online-drf", {"d.csv": "cpu,mem\n1,4\n3,1\n",
                             "m.csv": "mem,count,cpu\n18,1,9\n9,2,4.5\n"}, []),
    "tree": ("hdrf", {"tree.yaml": json.dumps(TREE), "m.csv": "mem,cpu\n18,9\n"}, []),
    "servers": ("drfh", {"d.csv": "cpu,mem\n0.2,1\n1,0.2\n", "s.csv": "mem,cpu\n12,2\n2,12\n"}, []),
    "trace": ("drfh-first-fit", {"s.csv": "cpu,mem,count\n2,12,2\n12,2,1\n",
                                 "t.csv": "user,job,arrival,duration,cpu,mem\na,1,0,10,0.2,1\n"
                                          "b,2,0,10,1,0.2\na,1,1,5,0.2,1\nb,3,4,3,0.5,0.5\n"},
              ["--sample", "2"]),
    "applications": ("tetris", {"infra.yaml": "servers: 4\nper_rack: 2\n",
                                "apps.json": json.dumps(APPLICATIONS, indent=1)},
                     ["--threads", "1"]),
    "flows": ("drfq", {"costs.csv": "cpu,nic\n1e-6,6e-6\n7e-6,1e-6\n"}, ["--duration", "0.01"]),
    "scenario": ("kueue", {"scenario.yaml": "resources: [cpu, gpu]\n"
                           "nodes: {cpu: {capacity: [4, 0], count: 2}, gpu: {capacity: [2, 1]}}\n"
                           "children: {a: {guarantee: [2, 0]}, b: {weight: 2}}\njobs:\n"
                           "  - {queue: a, tasks: 3, demand: [2, 0], duration: 10}\n"
                           "  - {queue: b, arrival: 1, demand: [1, 1], duration: 4}\n"}, []),
}
BOM = b"\xef\xbb\xbf"


def mutated(text, how, where, value):
    """`text` changed one way (`how`), at a position chosen by `where` (0..1)."""
    data = text.encode()
    lines = text.splitlines(keepends=True)
    i = int(where * len(lines)) % len(lines)
    if how == "token":          # a number, name or word replaced by `value`
        spans = [m.span() for m in re.finditer(r"[\w.+-]+", text)]
        start, end = spans[int(where * len(spans)) % len(spans)]
        return (text[:start] + value + text[end:]).encode()
    if how == "drop":
        return "".join(lines[:i] + lines[i + 1:]).encode()
    if how == "repeat":
        return "".join(lines[:i + 1] + lines[i:]).encode()
    if how == "cut":
        return data[:int(where * len(data))]
    if how == "bom":
        return BOM + data
    if how == "latin1":
        return (text[:int(where * len(text))] + "é" + text[int(where * len(text)):]).encode("latin-1")
    if how == "bytes":
        cut = int(where * len(data))
        return data[:cut] + value.encode("utf-8", "replace")[:4] + bytes([cut % 256]) + data[cut:]
    if how == "empty":
        return b""
    raise AssertionError(how)


def drfbench_run(kind, files):
    method, _, extra = KINDS[kind]
    return ["run", method, *files, *extra, "--out", "rows.csv"]


@fuzz.cases(kind=st.sampled_from(sorted(KINDS)), file=st.integers(0, 1),
            how=st.sampled_from(["token", "token", "token", "drop", "repeat", "cut", "bom",
                                 "latin1", "bytes", "empty", "folder"]),
            where=st.floats(0, 1), value=st.one_of(st.sampled_from(AWKWARD), st.text(max_size=8)))
def test_run_on_a_mutated_file(kind, file, how, where, value):
    """Status 0 and the rows file, or status 2, one line naming the file, nothing new."""
    _, valid, _ = KINDS[kind]
    names = list(valid)
    name = names[file % len(names)]
    files = {n: text.encode() for n, text in valid.items()}
    files[name] = None if how == "folder" else mutated(valid[name], how, where, value)
    argv = drfbench_run(kind, names)
    outcome = fuzz.call(run_command, "drfbench.cli", argv, files)
    assert not outcome.refused, f"{argv}: {outcome.error!r} escaped the command's boundary"
    status, err, new = outcome.value
    if status == 0:
        assert new == ["rows.csv"] and len(err.splitlines()) == 1, (files[name], err)
        return
    line = check_refusal(outcome, argv)
    assert any(n in line for n in names) or "must" in line or "demand" in line, (files[name], line)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_byte_order_mark_changes_nothing(kind):
    """A BOM (as spreadsheets save UTF-8) is accepted in every file and gives the same rows."""
    _, valid, _ = KINDS[kind]
    argv = drfbench_run(kind, list(valid))
    plain = {n: t.encode() for n, t in valid.items()}
    marked = {n: BOM + t.encode() for n, t in valid.items()}
    results = [fuzz.call(_rows_of, argv, files).value for files in (plain, marked)]
    assert results[0] == results[1] and results[0]


def _rows_of(argv, files):
    """In the worker: `drfbench run` on `files`; its rows without the columns that differ
    from run to run (times, provenance)."""
    from drfbench import cli, rows
    with tempfile.TemporaryDirectory() as folder:
        for name, data in files.items():
            Path(folder, name).write_bytes(data)
        here = os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                assert cli.main(argv) == 0
            drop = {"elapsed", "seconds", *rows.PROVENANCE_NAMES}
            return [{k: v for k, v in r.items() if k not in drop and "time" not in k}
                    for r in rows.read_rows("rows.csv")]
        finally:
            os.chdir(here)


@pytest.mark.parametrize("kind, name, columns", [
    ("tasks", "m.csv", "cpu,count,mem"), ("tree", "m.csv", "cpu,mem"),
    ("servers", "s.csv", "cpu,mem"), ("trace", "s.csv", "mem,count,cpu")])
def test_machines_are_matched_by_name(kind, name, columns):
    """The same machines with their columns in another order give the same rows (in any
    order: a trace's resources come in the servers' order)."""
    _, valid, _ = KINDS[kind]
    header, *body = valid[name].splitlines()
    order = [header.split(",").index(c) for c in columns.split(",")]
    moved = "\n".join([columns] + [",".join(line.split(",")[j] for j in order) for line in body])
    argv = drfbench_run(kind, list(valid))
    files = {n: t.encode() for n, t in valid.items()}
    results = [sorted(map(sorted, (r.items() for r in fuzz.call(_rows_of, argv, f).value)))
               for f in (files, {**files, name: moved.encode()})]
    assert results[0] == results[1]


# --------------------------------------------------------------------------------------
# drfbench run --out: any name, any format, whatever is there already
# --------------------------------------------------------------------------------------

SUFFIXES = [".csv", ".csv.gz", ".json", ".jsonl", ".CSV", ".parquet", ".gz", ".txt", ".xlsx", ""]
THERE = ["nothing", "file", "link", "dangling link", "fifo", "folder", "device"]
NAME_CHARS = st.sampled_from("abcXYZ019_.=+-@ é")


def _write_out(there, stem, suffix):
    """In the worker: `drfbench run dcdrf d.csv --out=NAME` in a fresh folder where NAME is
    `there` (nothing, a regular file, a link, a FIFO, a folder; "device": /dev/null):
    (status, stderr, new files, whatever was there unchanged, the rows read back or None)."""
    from drfbench import cli, rows
    with tempfile.TemporaryDirectory() as folder:
        here = os.getcwd()
        os.chdir(folder)
        try:
            Path("d.csv").write_text(KINDS["demands"][1]["d.csv"])
            Path("kept.csv").write_text("kept\n")
            name = "/dev/null" if there == "device" else stem + suffix
            made = {"file": lambda: Path(name).write_text("old\n"),
                    "link": lambda: os.symlink("kept.csv", name),
                    "dangling link": lambda: os.symlink("gone.csv", name),
                    "fifo": lambda: os.mkfifo(name), "folder": lambda: os.mkdir(name),
                    "nothing": lambda: None, "device": lambda: None}
            try:
                made[there]()
            except OSError:                 # a name the file system refuses
                return None
            before = set(os.listdir("."))
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                status = cli.main(["run", "dcdrf", "d.csv", f"--out={name}"])
            kept = Path("kept.csv").read_text() == "kept\n" and (
                there not in ("link", "dangling link") or os.path.islink(name)) and (
                there != "fifo" or stat.S_ISFIFO(os.lstat(name).st_mode)) and (
                there != "folder" or os.path.isdir(name)) and (
                there != "device" or stat.S_ISCHR(os.stat(name).st_mode))
            table = None
            if status == 0:
                data = Path(name).read_bytes()
                text = (gzip.decompress(data) if name.endswith(".gz") else data).decode()
                kind = rows.format_of(name)
                table = (json.loads(text) if kind == "json" else
                         [json.loads(line) for line in text.splitlines()] if kind == "jsonl"
                         else list(csv.DictReader(io.StringIO(text))))
            return (status, err.getvalue(), sorted(set(os.listdir(".")) - before), kept,
                    name, table)
        finally:
            os.chdir(here)


@fuzz.cases(there=st.sampled_from(THERE), stem=st.text(NAME_CHARS, min_size=1, max_size=12),
            long=st.integers(0, 270), suffix=st.sampled_from(SUFFIXES))
def test_out_is_a_regular_file_in_its_format_or_refused(there, stem, long, suffix):
    """Status 0 and a regular file of 3 rows in the format its name says (replacing only a
    regular file), or status 2, one line naming the file, nothing new, nothing replaced:
    a link, a FIFO, a folder, a device, an unknown format, a name too long."""
    stem = (stem * (long // len(stem) + 1))[:max(long, len(stem))]
    assume(stem not in (".", ".."))
    outcome = fuzz.call(_write_out, there, stem, suffix)
    assert not outcome.refused, f"{stem + suffix}: {outcome.error!r} escaped the boundary"
    assume(outcome.value is not None)
    status, err, new, kept, name, table = outcome.value
    assert kept, f"{there} {name!r} was replaced"
    if status == 0:
        assert there in ("nothing", "file") and len(table) == 3, (there, name, err)
        assert new == ([name] if there == "nothing" else []), new
        return
    assert status == 2 and len(err.splitlines()) == 1 and ": error: " in err, (name, err)
    assert _command.one_line(name)[:40] in err, err
    assert new == [], new


def test_out_to_a_device_or_a_link_is_refused_whatever_the_format():
    for there, suffix in (("device", ""), ("link", ".csv.gz"), ("fifo", ".json")):
        status, err, new, kept, name, _ = fuzz.call(_write_out, there, "rows", suffix).value
        assert (status, new, kept) == (2, [], True) and name in err, err
