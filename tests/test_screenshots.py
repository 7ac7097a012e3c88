"""scripts/screenshots.py's views (issue 39): what it refuses before starting a browser, and
that the places its views scroll to are still there (the browser itself, kaleido's, is
not a dependency: docs/building.md, Screenshots)."""
import importlib
import importlib.util
import re

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts/screenshots.py")
screenshots = importlib.util.module_from_spec(spec)
spec.loader.exec_module(screenshots)


def refusal(*args):
    with pytest.raises(SystemExit) as stop:
        screenshots.views(*args)
    return str(stop.value.code)


def test_a_folder_that_is_not_a_site_or_a_missing_report_is_refused(tmp_path):
    report = tmp_path / "report.html"
    report.write_text("<html></html>")
    assert "has no index.html" in refusal(tmp_path, report)
    (tmp_path / "index.html").write_text("<html></html>")
    assert "nope.html: no such file" in refusal(tmp_path, tmp_path / "nope.html")
    # a site without the family page a view photographs: the page is named
    assert "families/dcdrf/index.html: no such page" in refusal(tmp_path, report)


def test_a_whole_site_gives_every_view_its_url(tmp_path):
    report = tmp_path / "report.html"
    report.write_text("<html></html>")
    for _, page, _, _ in screenshots.VIEWS:
        if page != "REPORT":
            (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / page).write_text("<html></html>")
    views = screenshots.views(tmp_path, report)
    assert [v[0] for v in views] == [v[0] for v in screenshots.VIEWS]
    assert all(url.startswith("file://") for _, url, _ in views)
    assert views[-1][1] == report.resolve().as_uri()


def test_the_places_the_views_scroll_to_exist():
    for name, page, fragment, _ in screenshots.VIEWS:
        if not fragment:
            continue
        if page.startswith("api/"):         # an API entry's id is the object's path
            module, _, attribute = fragment.rpartition(".")
            assert hasattr(importlib.import_module(module), attribute), name
        else:                               # a heading's id is its text, slugged
            source = (ROOT / "docs" / page.replace("/index.html", ".md")).read_text()
            slugs = {re.sub(r"[^\w]+", "-", h.lower()).strip("-")
                     for h in re.findall(r"^#+ (.+)$", source, re.M)}
            assert fragment in slugs, name
