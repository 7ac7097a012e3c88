"""mkdocs hook (mkdocs.yml, `hooks:`): the committed reference figures in the site.

mkdocs builds only what lies under docs/, and the figures drawn from the committed
reference results lie in reference/default/figures/ (docs/figures.md, "Redrawing the
reference figures"). This hook adds each PNG there to the site as
reference-figures/<name>.png, without copying it into docs/, so a family's page shows one
as `![...](../reference-figures/<name>.png)`, with a `/// caption` block under it.

mkdocs does not check a link inside a caption block (the block renders its content
apart), so the hook checks these itself: a page showing a reference figure that is not
committed, or by a wrong relative path, fails the build.
"""
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

FIGURES = Path(__file__).resolve().parent / "reference" / "default" / "figures"
SITE_DIR = "reference-figures"
# an image link to a reference figure (a placeholder such as <name>.png is no name)
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]*" + SITE_DIR + r"/[\w.-]+\.png)\)")


def on_files(files, config):
    for png in sorted(FIGURES.glob("*.png")):
        files.append(File.generated(config, f"{SITE_DIR}/{png.name}", abs_src_path=str(png)))
    return files


def on_page_markdown(markdown, page, config, files):
    for link in _IMAGE.findall(markdown):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), link))
        if files.get_file_from_path(target) is None:
            raise PluginError(f"{page.file.src_uri} shows {link}, which is not "
                              f"{SITE_DIR}/<a PNG of reference/default/figures/>")
    return markdown
