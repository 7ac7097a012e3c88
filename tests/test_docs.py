"""The documentation site builds with `mkdocs build --strict` (as CI builds it): a broken
link or anchor, a missing page or a docstring mkdocstrings cannot render fails here; every
relative link of README.md points at a file that exists; and the built pages read as
written (issue 39): no number turned bold by `**` (`2**62`), no quote block made by a line
starting with `>=`, every formula rendered as MathML by the site itself; every reference
figure in the gallery, and every figure of the pipeline's report with its caption."""
import html
import importlib.util
import os
import re
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT

FIGURES = sorted(p.stem for p in (ROOT / "reference/default/figures").glob("*.png"))
CAPTIONS = ROOT / "workflows/report/figures"
# The families whose pages write the papers' formulas as math (docs/families/<family>.md
# and its further pages, docs/families/<family>/*.md)
FORMULAS = ("dcdrf", "drfh", "drfq", "hdrf", "packer", "production")
FAMILIES = sorted(p.stem for p in (ROOT / "docs/families").glob("*.md"))
# The most words a family's overview runs to (issue 39: pages sized for reading); the model,
# the choices, the knobs and the tests go to docs/families/<family>/choices.md
OVERVIEW_WORDS = 1500
# What a page's reader sees wrongly: (what, a pattern in its text outside code and math)
MISREAD = (
    ("a number turned bold by ** (write it as a code span: `2**62`)", r"\d<strong>|</strong>\d"),
    ("a quote block made by a line starting with >= (write `>= 0`)", r"<blockquote>\s*<p>\s*="),
    ("math left as LaTeX", r"\$\$|\$\\|\\\(|\\\["),
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    assert importlib.util.find_spec("mkdocs") is not None, \
        "mkdocs is not installed: pip install -e '.[test]' (or '.[docs]')"
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                          "--site-dir", str(out)],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    return out


def article(page):
    """A built page's content as a reader sees it: its article, less code, math, scripts."""
    html = page.read_text(encoding="utf-8")
    body = html[html.find("<article"):html.find("</article>")]
    return re.sub(r"<(pre|code|script|style|math)\b.*?</\1>", " ", body, flags=re.S)


def misread(pages, site):
    return [f"{page.relative_to(site)}: {what}: ...{text[max(0, m.start() - 40):m.end() + 20]!r}"
            for page in pages for text in [article(page)] for what, pattern in MISREAD
            for m in re.finditer(pattern, text)]


def test_docs_build_strict(site):
    assert (site / "index.html").is_file()
    assert (site / "getting-started" / "index.html").is_file()
    assert (site / "reproduction" / "index.html").is_file()


def test_pages_written_under_docs_read_as_written(site):
    pages = [p for p in site.rglob("index.html") if p.relative_to(site).parts[0] != "api"]
    assert len(pages) > 20
    assert misread(pages, site) == []


def test_api_pages_read_as_written(site):
    pages = sorted((site / "api").rglob("index.html"))
    assert len(pages) > 10
    assert misread(pages, site) == []


@pytest.mark.parametrize("family", FORMULAS)
def test_formulas_render_as_mathml(site, family):
    """Every formula is MathML in the family's pages (the browser draws it: no script, no
    network)."""
    html = "".join(p.read_text(encoding="utf-8")
                   for p in (site / "families" / family).rglob("index.html"))
    marked = re.findall(r'<(?:span|div) class="arithmatex">(.*?)</(?:span|div)>', html, re.S)
    assert len(marked) >= 3
    assert [m for m in marked if not m.startswith("<math")] == []
    assert "<mi>&</mi>" not in html, "an environment latex2mathml does not read (use array)"
    assert re.search(r'<math [^>]*display="block"', html)


def test_api_signatures_are_wrapped(site):
    """black (the docs extra) wraps each signature to mkdocs.yml's line_length: none runs
    off the page's right edge."""
    lines = []
    for page in (site / "api").rglob("index.html"):
        for block in re.findall(r'<div class="doc-signature highlight">(.*?)</div>',
                                page.read_text(encoding="utf-8"), re.S):
            lines += html.unescape(re.sub(r"<[^>]+>", "", block)).split("\n")
    assert len(lines) > 100
    assert [line for line in lines if len(line) > 88] == []


def test_code_blocks_fit_the_page():
    """Code a reader copies (python, bash, yaml) fits the page, 90 columns; a program's
    output (console, text), which cannot be wrapped, may be wider."""
    wide = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        for indent, lang, code in re.findall(r"^( *)```(\w*)[^\n]*\n(.*?)^\1```",
                                             path.read_text(), re.S | re.M):
            if lang not in ("console", "text"):
                wide += [f"{path.relative_to(ROOT)}: {line.strip()[:60]}"
                         for line in code.split("\n") if len(line) - len(indent) > 90]
    assert wide == []


def test_pages_load_nothing_from_the_network(site):
    """A page opened offline renders whole: no math script, no web font, no remote asset."""
    remote = [f"{p.relative_to(site)}: {m}" for p in site.rglob("*.html")
              for m in re.findall(r'<(?:link|script|img)\b[^>]*(?:href|src)="(?:https?:)?//[^"]*"',
                                  p.read_text(encoding="utf-8"))]
    assert remote == []
    assert not [p for p in site.rglob("*.html")
                if re.search(r"mathjax|katex", p.read_text(encoding="utf-8"), re.I)]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_overview_is_sized_for_reading(family):
    """A family's overview, docs/families/<family>.md, stays short and links each of its
    further pages (docs/families/<family>/*.md), which the site's navigation groups under
    it (docs_hooks.py)."""
    overview = (ROOT / f"docs/families/{family}.md").read_text(encoding="utf-8")
    assert len(overview.split()) <= OVERVIEW_WORDS, (family, len(overview.split()))
    more = sorted(p.name for p in (ROOT / f"docs/families/{family}").glob("*.md"))
    assert [m for m in more if f"]({family}/{m}" not in overview] == []


def test_every_family_folder_has_its_overview():
    folders = [p.name for p in (ROOT / "docs/families").iterdir() if p.is_dir()]
    assert [f for f in folders if f not in FAMILIES] == []


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_page_opens_with_its_verdicts(site, family):
    """The box of its claims' verdicts comes before the page's first section."""
    body = article(site / "families" / family / "index.html")
    box = body.find('<div class="admonition abstract">')
    assert 0 < box < body.find("<h2"), family
    assert re.search(r"Verdicts: \d+ claims", body[box:]), family


def test_gallery_shows_every_reference_figure(site):
    html = (site / "gallery" / "index.html").read_text(encoding="utf-8")
    assert len(FIGURES) > 30
    shown = set(re.findall(r'<a href="\.\./reference-figures/([\w-]+)\.png"><img ', html))
    assert [f for f in FIGURES if f not in shown] == []
    assert (site / "reference-figures" / f"{FIGURES[0]}.png").is_file()


def claim_rows():
    """{figure: "<claims id> <row>, <row>"} from the claims table's `figure` keys."""
    rows = {}
    for path in sorted((ROOT / "reference/claims").glob("*.yaml")):
        table = yaml.safe_load(path.read_text())
        for section in table["sections"]:
            for claim in section["claims"]:
                for figure in str(claim.get("figure", "")).split():
                    rows.setdefault(figure, (table["id"], []))[1].append(str(claim["id"]))
    return {figure: f"{paper} {', '.join(ids)}" for figure, (paper, ids) in rows.items()}


def test_every_report_figure_has_its_caption():
    """Each figure the notebooks draw (the PNGs, every one of them committed as a reference
    figure) has its caption for `snakemake --report`, workflows/report/figures/<name>.rst
    (workflows/figures.smk refuses to parse without it): what the paper's figure shows,
    what ours shows, then its fields: the family (the category of the family's results in
    the report), the paper's figure, the claim rows that read it, the profile."""
    assert sorted(p.stem for p in CAPTIONS.glob("*.rst")) == FIGURES
    categories = set(re.findall(r'category="([^"]+)"',
                                "".join(p.read_text() for p in (ROOT / "workflows/rules").glob("*.smk"))))
    rows = claim_rows()
    for name in FIGURES:
        text = (CAPTIONS / f"{name}.rst").read_text()
        fields = dict(re.findall(r"^:(\w+): (.*)$", text, re.M))
        body = re.sub(r"^:\w+: .*\n?", "", text, flags=re.M).split("\n\n")
        assert list(fields) == ["family", "paper", "claims", "profile"], name
        assert fields["family"] in categories, (name, fields["family"])
        assert fields["claims"] == rows.get(name, "none"), name
        assert fields["profile"].startswith('{{ snakemake.config["name"] }}'), name
        assert [p for p in body if p.strip()][1].startswith("Ours:"), name
        assert not re.search(r"(^|\s)/\w", text), f"{name}: a local path"


def test_readme_links_resolve():
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+://|mailto:", t)]
    assert local, "README.md links into the docs"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
