"""scripts/regenerate_reference.py's comparison (issue 35, reference bit for bit): two
results files are the same when their value columns hold the same text, the provenance
stamp aside; a moved value is named by its column."""
import importlib.util

from conftest import ROOT

spec = importlib.util.spec_from_file_location("regenerate_reference",
                                              ROOT / "scripts/regenerate_reference.py")
regenerate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(regenerate)

HEAD = "scheduler,time,value,elapsed,git_commit,host,timestamp\n"


def write(path, *rows):
    path.write_text(HEAD + "".join(f"{row}\n" for row in rows))
    return path


def test_the_stamp_is_aside_and_a_moved_value_is_named(tmp_path):
    expected = write(tmp_path / "a.csv", "drfq,0.5,1.0,0.1,abc,h1,t1", "fq,0.5,2.0,0.2,abc,h1,t1")
    stamped = write(tmp_path / "b.csv", "drfq,0.5,1.0,0.1,def,h2,t2", "fq,0.5,2.0,0.2,def,h2,t2")
    assert regenerate.same(expected, stamped) == ("same (2 rows)", True)
    moved = write(tmp_path / "c.csv", "drfq,0.5,1.0000000000000002,0.1,abc,h1,t1",
                  "fq,0.5,2.0,0.2,abc,h1,t1")
    assert regenerate.same(expected, moved) == \
        ("MOVED: 1 of 2 rows, by column {'value': 1}", False)
    timed = write(tmp_path / "d.csv", "drfq,0.5,1.0,0.3,abc,h1,t1", "fq,0.5,2.0,0.4,abc,h1,t1")
    assert not regenerate.same(expected, timed)[1]
    assert regenerate.same(expected, timed, ignore=("elapsed",))[1]


def test_row_order_and_columns(tmp_path):
    expected = write(tmp_path / "a.csv", "drfq,0.5,1.0,0.1,abc,h1,t1", "fq,0.5,2.0,0.2,abc,h1,t1")
    swapped = write(tmp_path / "b.csv", "fq,0.5,2.0,0.2,abc,h1,t1", "drfq,0.5,1.0,0.1,abc,h1,t1")
    assert not regenerate.same(expected, swapped)[1]
    assert regenerate.same(expected, swapped, any_order=True) == ("same (2 rows, any order)", True)
    reordered = tmp_path / "c.csv"
    reordered.write_text("time,scheduler,value,elapsed,git_commit\n0.5,drfq,1.0,0.1,x\n"
                         "0.5,fq,2.0,0.2,x\n")
    assert regenerate.same(expected, reordered)[1]            # columns by name, not place
    fewer = tmp_path / "d.csv"
    fewer.write_text("scheduler,time,git_commit\ndrfq,0.5,x\nfq,0.5,x\n")
    line, ok = regenerate.same(expected, fewer)
    assert not ok and line.startswith("COLUMNS") and "elapsed" in line
    assert regenerate.same(expected, tmp_path / "missing.csv") == ("MISSING", False)
