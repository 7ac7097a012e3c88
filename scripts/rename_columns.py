"""Rename columns of committed results files, values unchanged (docs/rows.md, "Renamed
columns and files"): only the header line is rewritten, every other byte stays as it was.

    python scripts/rename_columns.py --rename policy=method reference/default/hdrf/*.csv

A file without an old name is left alone; one that already has a new name is refused,
naming the file and the column.
"""
import argparse
import csv
import io
import os
import sys


def rename_header(path, renames):
    """Rewrite `path`'s header with `renames` ({old: new}), atomically; True if it changed."""
    with open(path, newline="") as f:
        header, rest = f.readline(), f.read()
    names = next(csv.reader([header]))
    clash = [renames[n] for n in names if n in renames and renames[n] in names]
    if clash:
        raise SystemExit(f"{path}: already has column {clash[0]!r}")
    if not any(n in renames for n in names):
        return False
    out = io.StringIO()
    csv.writer(out, lineterminator=header[len(header.rstrip("\r\n")):] or "\n").writerow(
        [renames.get(n, n) for n in names])
    tmp = f"{path}.tmp"
    with open(tmp, "w", newline="") as f:
        f.write(out.getvalue() + rest)
    os.replace(tmp, path)
    return True


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rename", action="append", required=True, metavar="OLD=NEW")
    p.add_argument("files", nargs="+")
    args = p.parse_args(argv)
    bad = [r for r in args.rename if r.count("=") != 1 or "" in r.split("=")]
    if bad:
        p.error(f"--rename {bad[0]!r}: expected OLD=NEW")
    renames = dict(r.split("=") for r in args.rename)
    for path in args.files:
        if rename_header(path, renames):
            print(f"renamed {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
