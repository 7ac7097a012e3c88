"""The claims table (reference/claims/, docs/claims.md): REPRODUCTION.md is its rendering over
the committed reference results, every verdict is the one its rule gives, a reference number
changed by hand is caught, every committed reference file carries a clean commit of this
repository; and the expression language, the verdict rules and the renderer on small
tables of their own."""
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from drfbench import api, claims, rows
from conftest import ROOT

TABLE = ROOT / "reference" / "claims"
REFERENCE = ROOT / "reference"


@pytest.fixture(scope="module")
def table():
    return claims.load(TABLE)


@pytest.fixture(scope="module")
def outcomes(table):
    return claims.evaluate_table(table, REFERENCE)


# --------------------------------------------------------------------------------------
# The committed table, results and REPRODUCTION.md
# --------------------------------------------------------------------------------------

def test_reproduction_md_is_the_rendering_of_the_table(table, outcomes):
    rendered = claims.render(table, outcomes, REFERENCE)
    assert (ROOT / "REPRODUCTION.md").read_text() == rendered, (
        "REPRODUCTION.md is not the rendering of reference/claims/: run "
        "`drfbench claims --out REPRODUCTION.md` and read the diff")


def test_every_verdict_is_the_one_its_rule_gives(outcomes):
    assert claims.disagreements(outcomes) == []


def test_every_paper_has_claims_with_verdicts_and_every_family_is_quoted(table, outcomes):
    for paper in table["papers"]:
        assert any(o.paper == paper["id"] and o.verdict for o in outcomes), paper["id"]
    read = {Path(f).parts[1] for f in claims.files(table)}   # <profile>/<family>/<file>
    assert set(api.families()) <= read, "every family's reference results are quoted"


def test_every_interval_is_over_five_seeds_or_more(outcomes):
    """A `ci` claim's interval is over at least 5 values (seeds): with 3 the t critical
    value, 4.3, makes every interval too wide to decide (issue 36, "too few seeds")."""
    few = {o.claim["id"]: int(np.size(claims.evaluate(o.claim["ci"], o.values)))
           for o in outcomes if "ci" in o.claim}
    assert few and {c: n for c, n in few.items() if n < 5} == {}


def perturbed_copy(source, file, tmp):
    """The reference tree under `tmp`, every file linked but `file`, whose numbers are
    changed as by hand: each numeric column's values in reverse row order, x 1.37 + 0.11
    (so that comparisons between rows and columns change too), booleans negated."""
    root = tmp / "reference"
    for path in source.rglob("*"):
        if path.is_file():
            target = root / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    frame = rows.read(source / file)
    for column in frame.columns:
        if column in rows.PROVENANCE_NAMES:
            continue
        if frame[column].dtype == bool:
            frame[column] = ~frame[column]
        elif pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].to_numpy()[::-1] * 1.37 + 0.11
    (root / file).unlink()
    frame.to_csv(root / file, index=False)
    return root


def caught(table, outcomes, file, root):
    """Whether the claims of the papers that read `file`, over the results under `root`,
    no longer show what they show in `outcomes` (the committed results') or disagree with a
    verdict they state (or cannot be evaluated at all)."""
    papers = {**table, "papers": [p for p in table["papers"]
                                  if file in claims.files({"papers": [p]})]}
    ids = {p["id"] for p in papers["papers"]}

    def shown(found):
        return [(o.measured, o.why, o.verdict) for o in found if o.paper in ids]
    try:
        changed = claims.evaluate_table(papers, root)
    except (claims.ClaimError, ValueError, TypeError, ZeroDivisionError):
        return True
    return shown(changed) != shown(outcomes) or bool(claims.disagreements(changed))


def test_a_number_changed_by_hand_is_caught(table, outcomes, tmp_path):
    file = "paper/packer/packer_summary.csv"
    assert caught(table, outcomes, file, perturbed_copy(REFERENCE, file, tmp_path))


@pytest.mark.slow
def test_a_number_changed_by_hand_in_any_file_the_table_reads_is_caught(table, outcomes, tmp_path):
    missed = [f for i, f in enumerate(sorted(set(claims.files(table))))
              if not caught(table, outcomes, f, perturbed_copy(REFERENCE, f, tmp_path / str(i)))]
    assert missed == []


@pytest.mark.slow
def test_every_rule_can_fail_and_none_raises(table):
    """claims.mutate over 24 perturbed copies of the reference results: every verdict moves
    in some copy, or its claim says why it cannot (`robust`); no rule raises."""
    fixed, raised = claims.mutate(table, REFERENCE, 24)
    assert raised == []
    assert fixed == [], "verdicts that never move: rules that cannot fail (docs/claims.md)"


def test_mutate_finds_a_rule_that_cannot_fail_and_one_that_raises(tmp_path):
    plain = CLAIM.replace("  ci: gain\n  paper_value: 0\n  tolerance: at least\n", "")
    directory, results = small_table(tmp_path, (
        CLAIM.replace("tolerance: at least", "tolerance: at most").replace("paper_value: 0", "paper_value: 100")
        + plain.replace("A1", "A2").replace("mean(gain) > 0", "mean(gain) > 0\n  robust: says why\n"
                                            "  moves: {gain: gain * 0 - 1}")
        + plain.replace("A1", "A5").replace("mean(gain) > 0", "mean(gain) > 0\n  robust: says why\n"
                                            "  moves: {gain: gain * 2}")
        + plain.replace("A1", "A3").replace("mean(gain) > 0", "one(late) > 0.2").replace(
            "of: mean(gain)}", "of: mean(gain)}\n    late: {file: r.csv, where: gain > 0.26, of: gain}")
        + plain.replace("A1", "A4").replace("mean(gain) > 0", "mean(gain) > 0.26").replace(
            "verdict: reproduced", "verdict: not reproduced\n  why: w")))
    table = claims.load(directory)
    fixed, raised = claims.mutate(table, results, 12)
    assert fixed == ["A1", "A5"]      # any gain's interval is at most 100: it never moves;
    #                                   nor does A5 by its `moves` (A2 does)
    assert [name for name, _ in raised] == ["A3"] and "one()" in raised[0][1]
    assert claims.mutate(table, results, 12) == (fixed, raised)     # seeded
    done = subprocess.run([sys.executable, "-m", "drfbench", "claims", "--table", str(directory),
                           "--results", str(results), "--mutate", "12"], capture_output=True, text=True)
    assert done.returncode == 1 and "claim A1: its verdict never moves" in done.stderr
    assert "claim A3: its rule raises" in done.stderr and "A2" not in done.stderr


def reference_csvs():
    return sorted(p.relative_to(REFERENCE).as_posix() for p in REFERENCE.rglob("*.csv"))


def history_reaches(commit):
    shallow = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True).stdout.strip()
    if shallow == "true":         # a shallow clone cannot tell; the stamp's form is checked
        return True
    return subprocess.run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", commit, "HEAD"],
                          capture_output=True).returncode == 0


@pytest.mark.parametrize("file", reference_csvs())
def test_reference_files_are_stamped_with_a_clean_commit_of_this_repository(file):
    stamps = rows.read(REFERENCE / file)["git_commit"]
    assert stamps.notna().all(), f"{file}: rows without a commit"
    for commit in set(stamps.astype(str)):
        assert not commit.endswith("-dirty"), f"{file}: made from a dirty tree ({commit})"
        assert len(commit) >= 7 and all(c in "0123456789abcdef" for c in commit), (
            f"{file}: {commit!r} is not a commit")
        assert history_reaches(commit), f"{file}: {commit} is not in this repository's history"
    assert rows.read(REFERENCE / file)["drfbench_version"].notna().all(), file


@pytest.mark.slow
def test_the_claims_command_passes_on_the_committed_files():
    """The whole table through the command (in-process: the rendering and the verdicts
    tests above; the command's own paths: the small table's test below)."""
    done = subprocess.run([sys.executable, "-m", "drfbench", "claims", "--table", str(TABLE),
                           "--results", str(REFERENCE), "--check",
                           "--out", str(ROOT / "REPRODUCTION.md")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_claims_command_checks_and_writes_only_when_asked(tmp_path):
    directory, results = small_table(tmp_path, CLAIM)
    command = [sys.executable, "-m", "drfbench", "claims", "--table", str(directory),
               "--results", str(results)]
    out = tmp_path / "REPRODUCTION.md"
    written = subprocess.run(command + ["--out", str(out)], capture_output=True, text=True)
    assert written.returncode == 0 and "| A1 |" in out.read_text(), written.stderr
    good = out.read_text()
    out.write_text(good.replace("reproduced", "reproduce"))
    stale = subprocess.run(command + ["--check", "--out", str(out)], capture_output=True, text=True)
    assert stale.returncode == 1 and "is not the rendering" in stale.stderr
    assert "reproduce " in out.read_text()              # --check writes nothing
    assert subprocess.run(command + ["--check", "--out", str(out)[:-3] + "x"],
                          capture_output=True, text=True).returncode == 2   # no such file


def test_the_docs_list_every_function():
    text = (ROOT / "docs" / "claims.md").read_text()
    assert [f for f in claims.FUNCTIONS if f"`{f}" not in text and f" `{f}`" not in text] == []


# --------------------------------------------------------------------------------------
# The expression language, verdicts and renderer on tables of their own
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("1 + 2 * 3", 7), ("max(1, 5, 3)", 5), ("min(x)", 1.0), ("count(x > 1)", 2),
    ("share(x > 1)", 2 / 3), ("one(y)", "a"), ("x.size", None),
    ("all((x > 0) and (x < 4))", True), ("count(x in [1.0, 3.0])", 2), ("'a' in y", True), ("0 in y", False),
    ("count(not (x > 1))", 1), ("sum(col('x'))", 6.0),
    ("argmax(k, x)", "c"), ("holds_from(k, x > 1)", "b"), ("tick(0, 5)", "✓"),
    ("tick(2, 5)", "✗ 2/5"),
])
def test_expressions(text, value):
    names = {"x": pd.Series([1.0, 2.0, 3.0]), "y": pd.Series(["a", "a", "a"]),
             "k": pd.Series(["a", "b", "c"])}
    if value is None:
        with pytest.raises(claims.ClaimError):
            claims.evaluate(text, names)
    else:
        assert claims.evaluate(text, names) == pytest.approx(value) if isinstance(value, float) \
            else claims.evaluate(text, names) == value


@pytest.mark.parametrize("text", [
    "__import__('os')", "x[0]", "x.sum()", "open('f')", "lambda: 1", "1 if x else 2", "nosuch",
    "x & x", "col('nosuch')",
    "one(z)", "ci95(w)",
])
def test_expressions_allow_nothing_else(text):
    names = {"x": pd.Series([1.0, 2.0]), "z": pd.Series([1, 2]), "w": pd.Series([1.0])}
    with pytest.raises(claims.ClaimError):
        claims.evaluate(text, names)


@pytest.mark.parametrize("value, spec, text", [
    (0.00531, ".1t", "5.3·10⁻³"), (1000.0, "t", "10³"), (-2.5, ".1f", "−2.5"),
    (pd.Series([1.0, 2.0]), ".0f", "1, 2"), (True, "", "True"), (12.34, "+.1f", "+12.3"),
])
def test_numbers_as_text(value, spec, text):
    assert claims.number(value, spec) == text


def test_a_nan_is_never_shown():
    with pytest.raises(claims.ClaimError, match="NaN"):
        claims.fill("{x}", {"x": float("nan")})


@pytest.mark.parametrize("extra, verdict", [
    ({}, "not testable"),
    ({"test": "mean(e) > 1"}, "reproduced"),
    ({"test": "mean(e) > 5", "direction": "mean(e) > 0"}, "direction only"),
    ({"test": "mean(e) > 5", "direction": "mean(e) < 0"}, "not reproduced"),
    ({"test": "within(e, 'about', 2.5)"}, "reproduced"),      # 2.5 / 1.5 <= e <= 2.5 * 1.5
    ({"test": "within(e, 'about', 3.5)"}, "not reproduced"),
    # with `ci`: e's interval is about 2.0 +- 0.25, d's -1.7 to +2.7
    ({"ci": "e", "paper_value": 2, "tolerance": "about"}, "reproduced"),
    ({"ci": "e", "paper_value": 2, "tolerance": "about", "test": "mean(e) > 5"}, "direction only"),
    ({"ci": "e", "paper_value": 10, "tolerance": "about"}, "direction only"),   # below, above 0
    ({"ci": "e", "paper_value": -2, "tolerance": "about"}, "not reproduced"),   # other sign
    ({"ci": "d", "paper_value": 10, "tolerance": "about"}, "not reproduced"),   # below, holds 0
    ({"ci": "d", "paper_value": 2, "tolerance": "about"}, "inconclusive"),      # overlaps
    ({"ci": "d", "paper_value": 0, "tolerance": "at least"}, "inconclusive"),
    ({"ci": "e", "paper_value": 0, "tolerance": "at least"}, "reproduced"),
    ({"ci": "e", "paper_value": 100, "tolerance": "order of magnitude"}, "direction only"),
])
def test_the_verdict_rules_in_their_order(extra, verdict):
    values = {"d": pd.Series([-1.0, 2.0, 0.5]), "e": pd.Series([2.0, 2.1, 1.9])}
    claim = {"id": "X", "claim": "c", "measured": "m", **extra}
    assert claims.verdict(claim, values) == verdict


@pytest.mark.parametrize("tolerance, value, band", [
    ("about", 30, (20, 45)), ("about", -30, (-45, -20)), ("at least", 0, (0, np.inf)),
    ("at most", 1, (-np.inf, 1)), ("substantially more", 0, (0.5, np.inf)),
    ("substantially less", 1.5, (-np.inf, 1)), ("order of magnitude", 100, (100 / 10 ** 0.5, 100 * 10 ** 0.5)),
])
def test_the_tolerances_bands(tolerance, value, band):
    assert claims.band(tolerance, value) == pytest.approx(band)
    with pytest.raises(claims.ClaimError, match="not one of"):
        claims.band("roughly", value)


def test_a_vector_test_must_be_reduced():
    with pytest.raises(claims.ClaimError, match="all\\(\\) or any\\(\\)"):
        claims.verdict({"id": "X", "test": "e > 1"}, {"e": pd.Series([2.0, 3.0])})


def small_table(tmp_path, claim_yaml, template="{{counts p}}\n{{claims s}}\n"):
    (tmp_path / "claims").mkdir(parents=True)
    (tmp_path / "claims" / "head.md").write_text("# head\n{{summary}}\n")
    (tmp_path / "claims" / "p.md").write_text(template)
    (tmp_path / "claims" / "p.yaml").write_text(
        "id: p\ntitle: P\norder: 1\ntemplate: p.md\nsections:\n  - id: s\n    claims:\n"
        + "".join(f"      {line}\n" for line in claim_yaml.strip().splitlines()))
    results = tmp_path / "results"
    results.mkdir()
    rows.write(rows.stamped([{"seed": s, "gain": g} for s, g in enumerate([0.2, 0.3, 0.25])],
                            isa="generic"), results / "r.csv")
    return tmp_path / "claims", results


CLAIM = """
- id: A1
  claim: the gain is positive
  paper: "+30%"
  values:
    gain: {file: r.csv, by: seed, of: mean(gain)}
  measured: "{100 * mean(gain):+.0f}% ({size(gain)} seeds)"
  test: mean(gain) > 0
  ci: gain
  paper_value: 0
  tolerance: at least
  verdict: reproduced
"""


def test_a_selection_of_nothing_by_several_keys_is_empty(tmp_path):
    """A `where` that selects nothing, grouped by two keys (a perturbed copy can flip every
    row out): an empty value under the keys' names, and so is a grouping of it, not an
    error (a rule answers for any data)."""
    _, results = small_table(tmp_path, CLAIM)
    got = claims.select({"file": "r.csv", "where": "gain > 1", "by": ["seed", {"twice": "2 * seed"}],
                         "of": "mean(gain)"}, claims.Results(results), {})
    assert got.empty and list(got.index.names) == ["seed", "twice"]
    assert claims.select({"from": "g", "by": "seed", "of": "slope(twice, g)"}, None, {"g": got}).empty
    assert np.isnan(claims.select({"from": "g", "of": "max(g)"}, None, {"g": got}))


def test_a_small_table_renders_its_rows_counts_and_summary(tmp_path):
    directory, results = small_table(tmp_path, CLAIM)
    table = claims.load(directory)
    outcomes = claims.evaluate_table(table, results)
    text = claims.render(table, outcomes)
    assert "| A1 | the gain is positive | +30% | +25% (3 seeds) | **reproduced** |" in text
    assert "| P | 1 | 1 | 0 | 0 | 0 | 0 |" in text and text.startswith("# head\n")
    assert claims.disagreements(outcomes) == []
    assert claims.files(table) == ["r.csv"]


def test_a_stated_verdict_the_rule_does_not_give_is_a_disagreement(tmp_path):
    directory, results = small_table(tmp_path, CLAIM.replace("mean(gain) > 0", "mean(gain) > 1")
                                     .replace("verdict: reproduced", "verdict: reproduced\n  why: x"))
    outcomes = claims.evaluate_table(claims.load(directory), results)
    assert outcomes[0].verdict == "direction only"
    [line] = claims.disagreements(outcomes)
    assert line.startswith("claim A1: the table says 'reproduced', its rule gives 'direction only'")


@pytest.mark.parametrize("change, message", [
    (("verdict: reproduced", "verdict: maybe"), "`verdict` must be one of"),
    (("verdict: reproduced", "verdict: not reproduced"), "says `why`"),
    (("  test: mean(gain) > 0\n  ci: gain\n", ""), "has a `test` or `ci` unless"),
    (("  tolerance: at least\n", ""), "comes with `paper_value`"),
    (("tolerance: at least", "tolerance: roughly"), "not one of"),
    (("verdict: reproduced", "robust: ''\n  verdict: reproduced"), "`robust` says in words"),
    (("verdict: reproduced", "robust: big\n  verdict: reproduced"), "`robust` comes with `moves`"),
    (("verdict: reproduced", "moves: {gain: 0}\n  verdict: reproduced"), "`robust` comes with `moves`"),
    (("  measured:", "  shown:"), "unknown field"),
])
def test_a_malformed_claim_is_refused_naming_it(tmp_path, change, message):
    directory, _ = small_table(tmp_path, CLAIM.replace(*change))
    with pytest.raises(claims.ClaimError, match=message):
        claims.load(directory)


def test_every_section_is_placed_once_and_markers_name_the_table(tmp_path):
    directory, results = small_table(tmp_path, CLAIM, template="{{claims s}}\n{{claims t}}\n")
    table = claims.load(directory)
    with pytest.raises(claims.ClaimError, match="names no claim"):
        claims.render(table, claims.evaluate_table(table, results))
    directory, results = small_table(tmp_path / "b", CLAIM, template="no marker\n")
    table = claims.load(directory)
    with pytest.raises(claims.ClaimError, match="placed once"):
        claims.render(table, claims.evaluate_table(table, results))


def test_a_missing_file_or_column_names_the_claim(tmp_path):
    directory, results = small_table(tmp_path, CLAIM.replace("r.csv", "s.csv"))
    with pytest.raises(claims.ClaimError, match="claim 'A1'.*s.csv does not exist"):
        claims.evaluate_table(claims.load(directory), results)
    directory, results = small_table(tmp_path / "b", CLAIM.replace("mean(gain)}", "mean(loss)}"))
    with pytest.raises(claims.ClaimError, match="claim 'A1'.*loss"):
        claims.evaluate_table(claims.load(directory), results)


def test_the_fingerprint_moves_with_a_rule_not_with_what_is_written_after_the_data(tmp_path):
    directory, _ = small_table(tmp_path, CLAIM)
    before = claims.fingerprint(claims.load(directory))
    assert len(before) == 16 and before == claims.fingerprint(claims.load(directory))
    paper = directory / "p.yaml"
    text = paper.read_text()
    paper.write_text(text.replace("verdict: reproduced", "verdict: reproduced\n        why: w")
                     .replace("seeds)", "runs)"))
    assert claims.fingerprint(claims.load(directory)) == before
    paper.write_text(text.replace("mean(gain) > 0", "mean(gain) > 0.1"))
    assert claims.fingerprint(claims.load(directory)) != before


def test_every_run_records_the_claims_tables_fingerprint_in_its_provenance(tmp_path):
    """Rules fixed before the data (issue 36, item 3): every row's stamp carries the
    fingerprint of the source tree's claims table, the one `claims.load` checks; a file
    written before the column reads with it empty, and gathers with files that have it."""
    assert rows.stamp(rows.NO_KERNEL)["claims_table"] == claims.fingerprint(claims.load(TABLE))
    assert "claims_table" in rows.PROVENANCE_NAMES
    new = rows.write(rows.stamped([{"x": 1}], isa=rows.NO_KERNEL), tmp_path / "new.csv")
    old = tmp_path / "old.csv"
    pd.read_csv(new).drop(columns="claims_table").to_csv(old, index=False)
    assert rows.read(old)["claims_table"].fillna("").tolist() == [""]
    assert rows.read(new)["claims_table"].tolist() == [claims.fingerprint(claims.load(TABLE))]
    both = rows.read(rows.gather([old, new], tmp_path / "both.csv"))
    assert both["claims_table"].fillna("").tolist() == ["", rows.claims_table()]


def test_the_stability_report_sets_each_verdict_beside_the_fresh_seeds_one(tmp_path):
    second = CLAIM.replace("A1", "A2").replace("r.csv", "s.csv")
    directory, results = small_table(tmp_path, CLAIM.replace("r.csv", "d/r.csv") + second.replace(
        "s.csv", "d/s.csv"), template="{{claims s}}\n")
    (directory / "head.md").write_text("{{summary}}\n{{stability stability.csv}}\n")
    for name in ("r.csv", "s.csv"):
        (results / "d").mkdir(exist_ok=True)
        shutil.copy(results / "r.csv", results / "d" / name)
    fresh = tmp_path / "fresh" / "d-seeds7"
    fresh.mkdir(parents=True)
    rows.write(rows.stamped([{"seed": s, "gain": g} for s, g in enumerate([-0.2, -0.25, -0.3])],
                            isa="generic"), fresh / "r.csv")
    table = claims.load(directory)
    report = list(claims.stability(table, results, tmp_path / "fresh", 7))
    assert [(r["claim"], r["reference"], r["fresh"], r["flipped"], r["missing"]) for r in report] == [
        ("A1", "reproduced", "not reproduced", True, ""),
        ("A2", "reproduced", claims.NOT_RERUN, False, "d/s.csv")]
    assert {r["claims_table"] for r in report} == {claims.fingerprint(table)}
    assert {r["seed_offset"] for r in report} == {7} and report[0]["git_commit"]
    outcomes = claims.evaluate_table(table, results)
    assert "No stability report: the results have no `stability.csv`" in claims.render(
        table, outcomes, results)
    rows.write(report, results / "stability.csv")
    text = claims.render(table, outcomes, results)
    assert "1 of 2 verdicts rerun, **1 flipped** (A1); 1 not rerun" in text and "`d/s.csv`" in text
    assert "| A1 | reproduced | not reproduced |" in text and ", as now)" in text
    paper = directory / "p.yaml"
    paper.write_text(paper.read_text().replace("mean(gain) > 0", "mean(gain) > 0.01"))
    assert "rules changed since" in claims.render(claims.load(directory), outcomes, results)
