"""The one row schema: the provenance stamp, the atomic writer, the reader, gather."""
import csv
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


def test_write_is_atomic_and_leaves_nothing_behind(tmp_path, monkeypatch):
    path = tmp_path / "x.csv"
    rows.write([stamped(a=1)], path)
    before = path.read_text()

    def broken(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(csv.DictWriter, "writerows", broken)
    with pytest.raises(OSError, match="disk full"):
        rows.write([stamped(a=2)], path)
    assert path.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["x.csv"]


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
