"""Regenerate committed reference results and compare them value for value (issue 35:
"reference results regenerate bit for bit"; docs/rows.md for a row that moved).

    python scripts/regenerate_reference.py regenerate --commit HEAD --work /tmp/regen \\
        drf/drf_examples.csv drfq ...
    python scripts/regenerate_reference.py compare EXPECTED_DIR ACTUAL_DIR [--any-order]

`regenerate` makes a clean checkout of `--commit` under `--work` (git clone of this
repository, the kernels built there in place, `setup.py build_ext --inplace`, from this
checkout's build/ cache: setup.py reuses a kernel built from the same source), runs the
default profile's rules for each named reference file (a family's name: every CSV under
reference/default/<family>/) with Snakemake (`--cores`, default 2), then compares each
file it made, results/default/<path>, with reference/default/<path> of the checkout.
`compare` compares every CSV under EXPECTED_DIR with the one at the same path under
ACTUAL_DIR (two pipeline runs, say).

Two files are the same when they have the same value columns (the provenance stamp,
drfbench.rows.PROVENANCE, aside: commit, machine, time) holding the same text, row by row
(`--any-order`: as multisets of rows, for a file whose row order is not part of its
meaning; `--ignore COLUMN...`: those columns aside too, wall-clock times). Prints a line
per file, `same`, `MOVED` (the columns that differ and how many rows), `MISSING` or
`COLUMNS` (column sets differ); exit status 1 if any file is not the same. docs/rows.md
("Regenerating the reference rows") has the last run's results.
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from drfbench.rows import PROVENANCE_NAMES  # noqa: E402


def table(path, ignore=()):
    """(value columns, rows as tuples of their text) of a results CSV, the columns `ignore`
    names left out too."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        keep = [i for i, c in enumerate(header) if c not in (*PROVENANCE_NAMES, *ignore)]
        return [header[i] for i in keep], [tuple(row[i] for i in keep) for row in reader]


def same(expected, actual, any_order=False, ignore=()):
    """One line saying whether CSV `actual` holds `expected`'s values (see the docstring),
    the columns `ignore` names aside; and whether it does."""
    if not actual.exists():
        return "MISSING", False
    (columns, want), (theirs, got) = table(expected, ignore), table(actual, ignore)
    if sorted(columns) != sorted(theirs):
        return (f"COLUMNS: only expected {sorted(set(columns) - set(theirs))}, only actual "
                f"{sorted(set(theirs) - set(columns))}"), False
    order = [theirs.index(c) for c in columns]
    got = [tuple(row[i] for i in order) for row in got]
    if len(want) != len(got):
        return f"MOVED: {len(want)} rows expected, {len(got)} made", False
    if any_order:
        extra, lacking = Counter(got) - Counter(want), Counter(want) - Counter(got)
        if not extra:
            return f"same ({len(want)} rows, any order)", True
        moved = {c for a, b in zip(sorted(lacking.elements()), sorted(extra.elements()))
                 for c, x, y in zip(columns, a, b) if x != y}
        return f"MOVED: {sum(extra.values())} rows, columns {sorted(moved)}", False
    moved = Counter(c for a, b in zip(want, got) for c, x, y in zip(columns, a, b) if x != y)
    if not moved:
        return f"same ({len(want)} rows)", True
    rows = sum(a != b for a, b in zip(want, got))
    return f"MOVED: {rows} of {len(want)} rows, by column {dict(moved)}", False


def compare(expected_dir, actual_dir, paths, any_order=False, ignore=()):
    """Print a line per path (relative to both folders); whether every file is the same."""
    ok = True
    for path in paths:
        line, good = same(Path(expected_dir, path), Path(actual_dir, path), any_order, ignore)
        print(f"{path}: {line}")
        ok &= good
    return ok


def reference_files(checkout, names):
    """The reference files `names` stand for (paths under reference/default/: a file, or a
    family's name for each CSV under its folder), relative to reference/default/."""
    base = Path(checkout, "reference/default")
    files = []
    for name in names:
        found = [name] if name.endswith(".csv") else sorted(
            p.relative_to(base).as_posix() for p in (base / name).rglob("*.csv"))
        if not found or not all((base / f).is_file() for f in found):
            raise SystemExit(f"no reference file {name!r} under {base}")
        files += found
    return files


def regenerate(commit, work, names, cores, any_order, ignore):
    """See the module's docstring; whether every file is the same."""
    work = Path(work)
    checkout = work / "checkout"
    if not checkout.exists():
        subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(checkout)],
                       check=True)
    subprocess.run(["git", "-C", str(checkout), "checkout", "--quiet", "--detach", commit],
                   check=True)
    if subprocess.run(["git", "-C", str(checkout), "status", "--porcelain",
                       "--untracked-files=no"], capture_output=True, text=True,
                      check=True).stdout:
        raise SystemExit(f"{checkout} has changes: not a clean commit")
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    if (ROOT / "build").is_dir() and not (checkout / "build").exists():
        shutil.copytree(ROOT / "build", checkout / "build")    # setup.py's cache, by content
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=checkout,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    files = reference_files(checkout, names)
    targets = [f"results/default/{f}" for f in files]
    snakemake = Path(sys.executable).with_name("snakemake")
    subprocess.run([str(snakemake), "--snakefile", str(checkout / "Snakefile"), "--directory",
                    str(work / "run"), "--cores", str(cores), "--configfile",
                    str(checkout / "workflows/config/default.yaml"), "--", *targets],
                   env=env, check=True)
    return compare(checkout / "reference/default", work / "run/results/default", files,
                   any_order, ignore)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("regenerate", help="a clean commit's reference files, made again")
    r.add_argument("names", nargs="+", help="reference files under reference/default/, or families")
    r.add_argument("--commit", default="HEAD")
    r.add_argument("--work", required=True, help="a folder for the checkout and the run")
    r.add_argument("--cores", type=int, default=2)
    c = sub.add_parser("compare", help="every CSV of one folder against another's")
    c.add_argument("expected")
    c.add_argument("actual")
    for a in (r, c):
        a.add_argument("--any-order", action="store_true",
                       help="rows compared as multisets (a file whose row order moved)")
        a.add_argument("--ignore", nargs="+", default=(), metavar="COLUMN",
                       help="columns left out too (wall-clock times: elapsed)")
    args = p.parse_args(argv)
    if args.command == "regenerate":
        ok = regenerate(args.commit, args.work, args.names, args.cores, args.any_order,
                        args.ignore)
    else:
        paths = sorted(p.relative_to(args.expected).as_posix()
                       for p in Path(args.expected).rglob("*.csv"))
        ok = compare(args.expected, args.actual, paths, args.any_order, args.ignore)
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
