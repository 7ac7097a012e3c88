"""mkdocs hook (mkdocs.yml, `hooks:`): the site's navigation, its generated pages, and the
committed reference figures.

Navigation. mkdocs.yml has no `nav:`: this hook builds it from the files under docs/, in
the order a reader needs them (`SECTIONS`): home, getting started, the user guide, the
families, the API reference, the developer notes. Every family is in the Families section
by the file name of its overview, docs/families/<family>.md (what the paper does, the key
figure, the verdicts, how to run it, the API reference); a family whose text outgrows one
page puts the rest in docs/families/<family>/choices.md (the model, the choices where the
paper is silent, the knobs, the tests, the evaluation's details), and the section groups a
family's pages under its overview's title (`family_nav`). So adding an allocator family
adds only its pages; a new page at the top of docs/ must be placed in `SECTIONS` (the
build fails, naming it, until it is).

Generated pages. The API reference is a page per public module of drfbench (`api/<name>.md`,
one `::: drfbench.<name>` per module, a package's modules on its page), found in the source
tree, so a new family's package gets its page too. REPRODUCTION.md, at the repository
root, is on the site as reproduction.md, its links into the repository made paths.

Math. The pages' formulas are LaTeX, `$...$` inline and `$$...$$` as a block, which
pymdownx.arithmatex (generic mode) marks in the HTML; this hook turns each into MathML with
latex2mathml, so the browser renders it with no script and no network. A formula
latex2mathml cannot read fails the build, naming its page.

Verdicts. A family page's marker `<!-- verdicts: <paper> [<section> ...] -->` becomes a
box with the rows of that paper's claims table (reference/claims/<paper>.yaml, its
sections named or all) by verdict, linked to the paper's part of REPRODUCTION.md: the
page opens with what was reproduced, read from the table itself.

Families. docs/index.md's marker `<!-- families -->` becomes a row of its pages table per
family overview of docs/families/, by file name: the page's title and its family's
registered methods, so that adding a family edits no shared page.

Figure gallery. gallery.md shows every reference figure with its caption: the one the
pipeline's report gives it (workflows/report/figures/<name>.rst: what the paper's figure
shows, what ours shows, the family, the paper's figure and the claim rows reading it), so a
figure without a caption fails the build, naming it.

Reference figures. mkdocs builds only what lies under docs/, and the figures drawn from
the committed reference results lie in reference/default/figures/ (docs/figures.md,
"Redrawing the reference figures"). Each PNG there is on the site as
reference-figures/<name>.png, without a copy in docs/, so a family's page shows one as
`![...](../reference-figures/<name>.png)`, with a `/// caption` block under it. mkdocs
does not check a link inside a caption block (the block renders its content apart), so
this hook does: a page showing a reference figure that is not committed, or by a wrong
relative path, fails the build.
"""
import html
import posixpath
import re
from pathlib import Path

import yaml
from markdown.extensions.toc import slugify
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

try:
    from latex2mathml.converter import convert as latex_to_mathml
except ImportError as error:  # the docs and test extras install it
    raise PluginError("the site's math needs latex2mathml: pip install -e '.[docs]'") from error

ROOT = Path(__file__).resolve().parent
FIGURES = ROOT / "reference" / "default" / "figures"
SITE_DIR = "reference-figures"
# an image link to a reference figure (a placeholder such as <name>.png is no name)
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]*" + SITE_DIR + r"/[\w.-]+\.png)\)")

_VERDICTS = re.compile(r"<!-- verdicts: ([\w-]+)((?: [\w-]+)*) -->")
# a formula as pymdownx.arithmatex's generic mode marks it: inline \(...\), block \[...\]
_MATH = re.compile(r'<(span|div) class="arithmatex">\\[(\[](.*?)\\[)\]]</\1>', re.S)

# The navigation: (section title, its pages under docs/ in reading order, or a folder whose
# pages it holds sorted by name). A title with one page is a page of the top level.
SECTIONS = (
    ("Home", ["index.md"]),
    ("Getting started", ["getting-started.md"]),
    ("User guide", ["accepts.md", "cli.md", "pipeline.md", "traces.md", "simulator.md",
                    "rows.md", "figures.md", "gallery.md", "claims.md", "reproduction.md",
                    "slurm.md"]),
    ("Families", "families/"),
    ("API reference", "api/"),
    ("Developer notes", ["architecture.md", "adding-a-family.md", "building.md",
                         "performance.md", "edrf-event-history.md"]),
)
REPRODUCTION = "reproduction.md"
GALLERY = "gallery.md"
CAPTIONS = ROOT / "workflows" / "report" / "figures"
# REPRODUCTION.md's links into the repository: a docs page becomes the site's page, any
# other path (a results folder) a code span, as the site holds no such file
_FAMILIES = "<!-- families -->"
_REPO_LINK = re.compile(r"\[([^\]]+)\]\(((?!https?:)[^)\s]+)\)")


def api_modules():
    """The API reference's pages: {page name: [module, ...]}, drfbench.api first, then every
    public module and package of drfbench by name (a package with its public modules)."""
    pages = {}
    for path in sorted((ROOT / "drfbench").iterdir()):
        name = path.stem
        if name.startswith("_") or name == "build_variants":
            continue
        if path.is_dir() and (path / "__init__.py").is_file():
            subs = sorted(p.stem for p in path.glob("*.py") if not p.stem.startswith("_"))
            pages[name] = [f"drfbench.{name}"] + [f"drfbench.{name}.{s}" for s in subs]
        elif path.suffix == ".py":
            pages[name] = [f"drfbench.{name}"]
    return {"api": pages.pop("api"), **pages}


def _api_page(name, modules):
    blocks = "\n\n".join(f"::: {m}\n    options:\n      heading_level: 2" for m in modules)
    return f"# `drfbench.{name}`\n\n{blocks}\n"


def on_config(config):
    docs = Path(config.docs_dir)
    placed = {p for _, pages in SECTIONS if isinstance(pages, list) for p in pages}
    loose = sorted(p.name for p in docs.glob("*.md") if p.name not in placed)
    if loose:
        raise PluginError(f"docs/{loose[0]} is in no section of the navigation: add it to "
                          f"SECTIONS in docs_hooks.py")
    nav = []
    for title, pages in SECTIONS:
        if pages == "api/":
            pages = [f"api/{name}.md" for name in api_modules()]
        elif pages == "families/":
            pages = family_nav(docs)
        elif isinstance(pages, str):
            pages = sorted(p.relative_to(docs).as_posix() for p in (docs / pages).glob("*.md"))
        pages = [{"REPRODUCTION.md": p} if p == REPRODUCTION else p for p in pages]
        nav.append({title: pages[0]} if len(pages) == 1 else {title: pages})
    config.nav = nav
    return config


def family_nav(docs):
    """The Families section: a family's overview, docs/families/<family>.md, by file name;
    with its further pages (docs/families/<family>/*.md, by name) a group of them under the
    overview's title, the overview first."""
    nav = []
    for path in sorted((docs / "families").glob("*.md")):
        page = f"families/{path.name}"
        more = sorted(p.relative_to(docs).as_posix()
                      for p in (docs / "families" / path.stem).glob("*.md"))
        if more:
            title = path.read_text(encoding="utf-8").partition("\n")[0].removeprefix("# ")
            page = {title: [{"Overview": page}, *more]}
        nav.append(page)
    return nav


def on_files(files, config):
    for png in sorted(FIGURES.glob("*.png")):
        files.append(File.generated(config, f"{SITE_DIR}/{png.name}", abs_src_path=str(png)))
    for name, modules in api_modules().items():
        files.append(File.generated(config, f"api/{name}.md", content=_api_page(name, modules)))
    files.append(File.generated(config, GALLERY, content=gallery()))
    files.append(File.generated(config, REPRODUCTION,
                                content=(ROOT / "REPRODUCTION.md").read_text(encoding="utf-8")))
    return files


def caption(name):
    """A reference figure's report caption: (its fields, its text as Markdown)."""
    path = CAPTIONS / f"{name}.rst"
    if not path.is_file():
        raise PluginError(f"reference figure {name}.png has no caption: write "
                          f"workflows/report/figures/{name}.rst (docs/figures.md)")
    text = path.read_text(encoding="utf-8")
    fields = dict(re.findall(r"^:(\w+): (.*)$", text, re.M))
    body = re.sub(r"^:\w+: .*\n?", "", text, flags=re.M).strip().replace("``", "`")
    return fields, body


def gallery():
    """gallery.md: every reference figure by family, each with its caption and claim rows."""
    pngs = sorted(p.stem for p in FIGURES.glob("*.png"))
    by_family = {}
    for name in pngs:
        fields, body = caption(name)
        by_family.setdefault(fields.get("family", "?"), []).append((name, fields, body))
    out = ["# Figure gallery", "",
           "Every figure drawn from the committed reference results "
           "(`reference/default/figures/`, the default profile on the 2-core development "
           "machine: [Figures](figures.md#redrawing-the-reference-figures)), with the caption "
           "the pipeline's report gives it and the rows of [REPRODUCTION.md](reproduction.md) "
           "that read it. Click a figure to open it full size.", ""]
    for family, figures in by_family.items():
        out += [f"## {family}", ""]
        for name, fields, body in figures:
            claims = fields.get("claims", "none")
            rows = ("no row of REPRODUCTION.md names it" if claims == "none" else
                    f"[REPRODUCTION.md](reproduction.md) rows {claims}")
            out += [f"### {fields.get('paper', name)}: `{name}`", "",
                    f"[![{name}]({SITE_DIR}/{name}.png)]({SITE_DIR}/{name}.png)", "",
                    body, "", f"Claims: {rows}.", ""]
    return "\n".join(out)


def verdicts(match):
    """The box a `<!-- verdicts: ... -->` marker stands for (module docstring)."""
    paper, sections = match.group(1), match.group(2).split()
    path = ROOT / "reference" / "claims" / f"{paper}.yaml"
    if not path.is_file():
        raise PluginError(f"verdicts marker names {paper}, which is not reference/claims/<paper>.yaml")
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    known = [s["id"] for s in table["sections"]]
    if set(sections) - set(known):
        raise PluginError(f"verdicts marker names sections {sorted(set(sections) - set(known))} "
                          f"of {path.name}, which has {known}")
    rows = {}
    for section in table["sections"]:
        if not sections or section["id"] in sections:
            for claim in section["claims"]:
                rows.setdefault(claim.get("verdict") or "measured, no verdict", []).append(
                    str(claim["id"]))
    anchor = slugify(table["title"], "-")
    lines = [f'!!! abstract "Verdicts: {sum(map(len, rows.values()))} claims, as '
             f'[REPRODUCTION.md](../{REPRODUCTION}#{anchor}) states them"', ""]
    lines += [f"    - **{verdict}**: {len(ids)} (rows {', '.join(ids)})"
              for verdict, ids in rows.items()]
    return "\n".join(lines) + "\n"


def _site_link(match):
    text, target = match.groups()
    if target.startswith("docs/"):
        return f"[{text}]({target[len('docs/'):]})"
    return text if text.startswith("`") else f"`{text}`"


def families(docs):
    """The pages table's rows of the families (module docstring): one per overview,
    `docs`/families/<family>.md, its title and its family's methods."""
    from drfbench import api
    rows = []
    for path in sorted((Path(docs) / "families").glob("*.md")):
        title = path.read_text(encoding="utf-8").partition("\n")[0].removeprefix("# ")
        methods = ", ".join(f"`{m}`" for m in api.methods(family=path.stem))
        rows.append(f"| [{title}](families/{path.name}) | methods {methods}; API reference |")
    return "\n".join(rows)


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == "index.md":
        markdown = markdown.replace(_FAMILIES, families(config.docs_dir))
    if page.file.src_uri == REPRODUCTION:
        markdown = _REPO_LINK.sub(_site_link, markdown)
    markdown = _VERDICTS.sub(verdicts, markdown)
    for link in _IMAGE.findall(markdown):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), link))
        if files.get_file_from_path(target) is None:
            raise PluginError(f"{page.file.src_uri} shows {link}, which is not "
                              f"{SITE_DIR}/<a PNG of reference/default/figures/>")
    return markdown


def on_page_content(content, page, config, files):
    def mathml(match):
        tag, latex = match.groups()
        try:
            math = latex_to_mathml(html.unescape(latex),
                                   display="block" if tag == "div" else "inline")
        except Exception as error:  # latex2mathml raises its own classes and IndexError
            raise PluginError(f"{page.file.src_uri}: formula {latex!r} is not LaTeX that "
                              f"latex2mathml reads: {error}") from error
        return f'<{tag} class="arithmatex">{math}</{tag}>'
    return _MATH.sub(mathml, content)
