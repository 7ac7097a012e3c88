"""The pipeline's report (`snakemake --report`, docs/pipeline.md) as a reader gets it: every
figure with its caption, in its family's category and its paper figure's subcategory, PNG
only, and no local path. CI checks the smoke run's report (DRFBENCH_REPORT names it);
otherwise the test builds one from the figures drawn on the committed reference results."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow
CAPTIONS = ROOT / "workflows/report/figures"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """(the report's HTML, the folder it was built in)."""
    if os.environ.get("DRFBENCH_REPORT"):
        path = os.path.abspath(os.environ["DRFBENCH_REPORT"])
        return open(path, encoding="utf-8").read(), os.path.dirname(path)
    workdir = tmp_path_factory.mktemp("report")
    snakemake = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
                 "--cores", "2", "--directory", str(workdir), "--config",
                 f"figures_from={os.path.relpath(ROOT / 'reference/default', workdir)}"]
    for extra in ([], ["--report", "report.html"]):
        proc = subprocess.run(snakemake + extra + ["--", "figures"], capture_output=True, text=True)
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return (workdir / "report.html").read_text(encoding="utf-8"), str(workdir)


def embedded(html, name):
    """The JSON the report's page embeds as <script id="name"> var name = {...}."""
    start = html.index(f"var {name} = ", html.index(f'<script id="{name}">'))
    return json.JSONDecoder().raw_decode(html, start + len(f"var {name} = "))[0]


def test_every_figure_has_its_caption_category_and_subcategory(report):
    html, _ = report
    results = embedded(html, "results")
    figures = {path: r for path, r in results.items() if r["mime_type"] == "image/png"}
    assert sorted(r["filename"].removesuffix(".png") for r in figures.values()) == \
        sorted(p.stem for p in CAPTIONS.glob("*.rst"))
    for path, r in figures.items():
        text = re.sub(r"<[^>]+>", " ", r["caption"])
        assert "The paper's" in text or "Ours:" in text, f"{path}: no caption"
        assert re.search(r"profile:\s+\w", text), f"{path}: no profile in its caption"
    placed = {path: (category, subcategory)
              for category, subcategories in embedded(html, "categories").items()
              for subcategory, paths in subcategories.items() for path in paths}
    for path in figures:
        category, subcategory = placed[path]
        assert category != "Other" and subcategory != "Other", path


def test_figures_are_png_only(report):
    html, _ = report
    mimes = {r["mime_type"] for r in embedded(html, "results").values()}
    assert "application/pdf" not in mimes and "image/png" in mimes


def test_no_local_path(report):
    """No absolute path in the report: parameters, rules' files and all (a path up from the
    folder it was built in, to the checkout, is relative: a clone runs from its root)."""
    html, workdir = report
    for local in (os.path.dirname(sys.executable), workdir, str(ROOT)):
        found = [m.start() for m in re.finditer(re.escape(local), html)
                 if html[m.start() - 2:m.start()] != ".."]
        assert found == [], f"{local} in the report: {html[found[0] - 100:found[0] + 100]}"
    params = [r["job_properties"]["params"] for r in embedded(html, "results").values()]
    assert params and not [p for p in params if re.search(r"(^|[ =])/", p)]
