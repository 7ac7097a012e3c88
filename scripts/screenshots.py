"""PNG screenshots of the built site and of the Snakemake report, from a headless Chromium
(issue 39): the site's home, a family page, a page of the papers' formulas, an API page,
the figure gallery, the report's landing and one of its figures with its caption.

    /path/to/python scripts/screenshots.py SITE REPORT [--out docs/screenshots]

SITE is a folder `mkdocs build -d SITE` wrote; REPORT is the HTML file
`snakemake --report` wrote (CI's smoke run: results/smoke/report.html). The browser is
the headless Chromium that the `kaleido` package (0.2.1, Plotly's image exporter; not a
dependency of drfbench: install it into the Python that runs this script) ships, so that
nothing is downloaded. Its executable runs the page scripts/screenshots.js, which opens
each view in an iframe, clicks through the report, and draws the frame into a canvas (the
page's DOM inside an SVG <foreignObject>). That Chromium is version 88: it lays MathML
out only with its experimental web-platform features, which the script turns on, and
less fully than today's browsers.
"""
import argparse
import base64
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (file name, page under SITE or "REPORT", #fragment, what to click there in turn)
VIEWS = [
    ("home", "index.html", "", []),
    ("family", "families/dcdrf/index.html", "", []),
    ("math", "families/dcdrf/index.html", "the-rounds-as-the-paper-writes-them", []),
    ("api", "api/dcdrf/index.html", "drfbench.dcdrf.allocate", []),
    ("gallery", "gallery/index.html", "", []),
    ("report-landing", "REPORT", "", []),
    ("report-figure", "REPORT", "", ["text=DC-DRF", "text=Figure 7",
                                      "a[iconname=information-circle]", "a[iconname=eye]"]),
]


def browser(folder):
    """A copy of kaleido's executable folder in `folder` whose page is
    scripts/screenshots.js (the executable runs js/kaleido_scopes.js beside it); the large
    parts are links, not copies."""
    try:
        import kaleido
    except ImportError:
        sys.exit("screenshots: the kaleido package is not installed in this Python "
                 f"({sys.executable}): pip install kaleido==0.2.1")
    source = Path(kaleido.__file__).parent / "executable"
    if not (source / "kaleido").is_file():
        sys.exit(f"screenshots: {source} has no kaleido executable (kaleido 0.2.1 ships it)")
    for item in source.iterdir():
        if item.name != "js":
            (folder / item.name).symlink_to(item)
    (folder / "kaleido").unlink()
    shutil.copy2(source / "kaleido", folder / "kaleido")  # it runs from its own folder
    (folder / "js").mkdir()
    shutil.copy2(HERE / "screenshots.js", folder / "js" / "kaleido_scopes.js")
    return folder / "kaleido"


def views(site, report):
    """(file name, URL, clicks) of every view, refusing a SITE or REPORT that is not one."""
    if not (site / "index.html").is_file():
        sys.exit(f"screenshots: {site} has no index.html: give the folder "
                 "`mkdocs build -d` wrote")
    if not report.is_file():
        sys.exit(f"screenshots: {report}: no such file")
    out = []
    for name, page, fragment, clicks in VIEWS:
        path = report if page == "REPORT" else site / page
        if not path.is_file():
            sys.exit(f"screenshots: {path}: no such page (is {site} the whole site?)")
        out.append((name, path.resolve().as_uri() + (f"#{fragment}" if fragment else ""),
                    clicks))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("site", type=Path, help="the built site's folder")
    p.add_argument("report", type=Path, help="the Snakemake report's HTML file")
    p.add_argument("--out", type=Path, default=HERE.parent / "docs" / "screenshots")
    p.add_argument("--width", type=int, default=1280, help="CSS pixels (default 1280)")
    p.add_argument("--height", type=int, default=800, help="CSS pixels (default 800)")
    p.add_argument("--settle-ms", type=int, default=2500,
                   help="wait after the page loads and after each click (default 2500)")
    a = p.parse_args()
    todo = views(a.site, a.report)
    with tempfile.TemporaryDirectory() as tmp:
        exe = browser(Path(tmp))
        a.out.mkdir(parents=True, exist_ok=True)
        for name, url, clicks in todo:
            request = {"format": "png", "width": a.width, "height": a.height, "scale": 1,
                       "data": {"url": url, "settle_ms": a.settle_ms, "clicks": clicks}}
            png = a.out / f"{name}.png"
            part = png.with_name(png.name + ".part")
            part.write_bytes(photograph(exe, request))
            part.replace(png)
            print(f"{png}  {png.stat().st_size // 1024} KB  {url}")


def photograph(exe, request):
    """The PNG kaleido's browser `exe` answers `request` with. One browser a request: the
    executable evaluates each request in the page's newest script context, which after the
    first is the removed iframe's."""
    # --allow-file-access-from-files and --disable-web-security: the page reads the
    # iframe's DOM and the files it links, all file: URLs
    done = subprocess.run(
        [str(exe), "plotly", "--no-sandbox", "--disable-gpu",
         "--allow-file-access-from-files", "--disable-web-security",
         "--enable-experimental-web-platform-features"],
        input=json.dumps(request) + "\n", capture_output=True, text=True, timeout=300)
    lines = done.stdout.splitlines()
    answer = json.loads(lines[-1]) if len(lines) == 2 else {"code": -1}
    if answer.get("code") != 0:
        why = answer.get("message") or (done.stderr.strip().splitlines() or ["no answer"])[-1]
        sys.exit(f"screenshots: {request['data']['url']}: {why}")
    return base64.b64decode(answer["result"])


if __name__ == "__main__":
    main()
