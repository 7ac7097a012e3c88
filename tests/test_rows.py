"""The one row schema: the provenance stamp, the atomic writer, the reader, gather."""
import csv
import errno
import gzip
import json
import os
import re
import stat

import pytest

from drfbench import rows


def stamped(**columns):
    return {**columns, **rows.stamp()}


def test_stamp_has_every_provenance_column_spelled_once():
    s = rows.stamp()
    assert list(s) == list(rows.PROVENANCE_NAMES)
    assert len(set(rows.PROVENANCE_NAMES)) == len(rows.PROVENANCE)
    assert re.fullmatch(r"[0-9a-f]{40}(-dirty)?|unknown", s["git_commit"])
    assert s["isa_variant"] and s["cpu_count"] >= 1 and s["timestamp"].endswith("+00:00")


def test_write_refuses_rows_without_the_stamp(tmp_path):
    with pytest.raises(ValueError, match="row 1 lacks the provenance column"):
        rows.write([stamped(a=1), {"a": 2}], tmp_path / "x.csv")
    assert list(tmp_path.iterdir()) == []


class Full:
    """A cell whose writing fails as a full disk does (an OSError naming no file)."""

    def __str__(self):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("name", ["x.csv", "x.csv.gz", "x.jsonl"])
def test_write_is_atomic_and_leaves_nothing_behind(tmp_path, name):
    """A write that fails half-way (no space left) leaves the old file, names the file."""
    path = tmp_path / name
    rows.write([stamped(a=1)], path)
    before = path.read_bytes()
    with pytest.raises(OSError, match=f"cannot write {re.escape(str(path))}: No space left"):
        rows.write(iter([stamped(a=2), stamped(a=Full())]), path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [name]


def test_written_files_get_the_umask_mode(tmp_path):
    """One writer, one mode: the mode any new file gets, not a temporary file's 0600."""
    mask = os.umask(0o022)
    try:
        rows.write([stamped(a=1)], tmp_path / "x.csv")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "x.csv").stat().st_mode) == 0o644


def test_read_checks_provenance_and_gather_unions_columns(tmp_path):
    rows.write([stamped(a=1, b=2)], tmp_path / "one.csv")
    rows.write([stamped(a=3, c=4)], tmp_path / "two.csv")
    rows.gather([tmp_path / "one.csv", tmp_path / "two.csv"], tmp_path / "all.csv")
    table = rows.read(tmp_path / "all.csv")
    assert list(table["a"]) == [1, 3] and {"b", "c"} <= set(table.columns)
    (tmp_path / "bare.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a drfbench results file.*git_commit"):
        rows.read(tmp_path / "bare.csv")
    rows.write([], tmp_path / "empty.csv")
    assert rows.read(tmp_path / "empty.csv").empty


# --------------------------------------------------------------------------------------
# Rows that stream; formats by name; cells a spreadsheet would run; what is not a file
# --------------------------------------------------------------------------------------

def test_rows_are_made_as_they_are_read():
    """A Rows over a function makes each row when it is read, again on each walk, and
    holds none: the writer takes them one at a time."""
    made = []

    def source():
        for i in range(5):
            made.append(i)
            yield {"i": i}
    table = rows.stamped(source, run=7)
    assert made == [] and next(iter(table))["i"] == 0 and made == [0]
    assert len(table) == 5 and table[3]["i"] == 3 and table[-1]["i"] == 4
    assert [r["i"] for r in table[1:4:2]] == [1, 3] and [r["i"] for r in table[-2:]] == [3, 4]
    assert [r["i"] for r in table] == [0, 1, 2, 3, 4]
    assert list(table[0])[:2] == ["i", "run"] and list(table[0])[2:] == list(rows.PROVENANCE_NAMES)
    with pytest.raises(IndexError):
        table[5]
    assert table == list(table) and table != rows.Rows([{"i": 0}])


def test_write_streams_a_generator_and_refuses_a_new_column(tmp_path):
    out = tmp_path / "x.csv"
    rows.write((stamped(a=i) for i in range(3)), out)
    assert [r["a"] for r in rows.read_rows(out)] == ["0", "1", "2"]
    with pytest.raises(ValueError, match="row 1 has column.s. b that the first row has not"):
        rows.write(iter([stamped(a=1), stamped(a=2, b=3)]), out)
    assert [r["a"] for r in rows.read_rows(out)] == ["0", "1", "2"]


def test_formats_by_name(tmp_path):
    table = [stamped(name="a", value=1.5, none=None), stamped(name="b", value=float("nan"), none=None)]
    rows.write(table, tmp_path / "x.csv")
    rows.write(table, tmp_path / "x.csv.gz")
    rows.write(table, tmp_path / "x.json")
    rows.write(table, tmp_path / "x.jsonl")
    plain = (tmp_path / "x.csv").read_bytes()
    assert gzip.decompress((tmp_path / "x.csv.gz").read_bytes()) == plain
    assert rows.read_rows(tmp_path / "x.csv.gz") == rows.read_rows(tmp_path / "x.csv")
    whole = json.loads((tmp_path / "x.json").read_text())
    lines = [json.loads(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert whole == lines and [r["name"] for r in whole] == ["a", "b"]
    assert whole[0]["value"] == 1.5 and whole[1]["value"] is None and whole[0]["none"] is None
    rows.write(table, tmp_path / "again.csv.gz")    # no name, no time in the gzip header
    assert (tmp_path / "again.csv.gz").read_bytes() == (tmp_path / "x.csv.gz").read_bytes()
    rows.write([], tmp_path / "empty.json")
    assert json.loads((tmp_path / "empty.json").read_text()) == []


@pytest.mark.parametrize("name", ["x.parquet", "x.xlsx", "x.tsv", "x.gz", "x", ".csv"])
def test_other_formats_are_refused_naming_those_accepted(tmp_path, name):
    with pytest.raises(ValueError, match=r"\.csv, \.csv\.gz, \.json, \.jsonl"):
        rows.write([stamped(a=1)], tmp_path / name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cell, written", [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+cmd", "'+cmd"),
    ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-1.5", "-1.5"), ("+3e5", "+3e5"), ("-inf", "-inf"), ("a=b", "a=b"), (-1, "-1")])
def test_formula_cells_are_escaped_in_csv(tmp_path, cell, written):
    rows.write([stamped(name=cell)], tmp_path / "x.csv")
    assert rows.read_rows(tmp_path / "x.csv")[0]["name"] == written
    rows.write([stamped(name=cell)], tmp_path / "x.json")       # JSON: as it is
    assert json.loads((tmp_path / "x.json").read_text())[0]["name"] == cell


def test_a_result_without_a_kernel_is_stamped_numpy():
    s = rows.stamp(rows.NO_KERNEL)
    assert (s["isa_variant"], s["isa_flags"], s["openmp"]) == ("numpy", "", "")


def special_files(tmp_path):
    """name -> (a path that is not a regular file, what the refusal calls it)."""
    target = tmp_path / "target.csv"
    target.write_text("kept\n")
    os.symlink(target, tmp_path / "link.csv")
    os.mkfifo(tmp_path / "fifo.csv")
    (tmp_path / "dir.csv").mkdir()
    return {"link": (tmp_path / "link.csv", "a symbolic link"),
            "fifo": (tmp_path / "fifo.csv", "a FIFO"), "dir": (tmp_path / "dir.csv", "a folder"),
            "device": ("/dev/null", "a character device")}


@pytest.mark.parametrize("kind", ["link", "fifo", "dir", "device"])
def test_the_writer_refuses_what_is_not_a_regular_file(tmp_path, kind):
    path, what = special_files(tmp_path)[kind]
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ValueError, match=f"cannot write {re.escape(str(path))}: it is {what}"):
        rows.write([stamped(a=1)], path)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "target.csv").read_text() == "kept\n"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_name_as_long_as_the_folder_allows_is_written(tmp_path):
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    path = tmp_path / ("r" * (limit - len(".csv.gz")) + ".csv.gz")
    rows.write([stamped(a=1)], path)
    assert rows.read_rows(path)[0]["a"] == "1" and list(tmp_path.iterdir()) == [path]



def test_held_rows_are_written_with_every_column(tmp_path):
    """A list, a tuple or a Rows over one gives the union of its rows' columns (a stream
    gives its first row's: test_write_streams_a_generator_and_refuses_a_new_column)."""
    table = [stamped(a=1), stamped(a=2, b=3)]
    for i, given in enumerate((table, tuple(table), rows.Rows(table))):
        written = rows.read_rows(rows.write(given, tmp_path / f"{i}.csv"))
        assert [(r["a"], r["b"]) for r in written] == [("1", ""), ("2", "3")]
