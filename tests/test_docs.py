"""The documentation site builds with `mkdocs build --strict` (as CI builds it): a broken
link or anchor, a missing page or a docstring mkdocstrings cannot render fails here; and
every relative link of README.md points at a file that exists."""
import importlib.util
import os
import re
import subprocess
import sys

from conftest import ROOT


def test_docs_build_strict(tmp_path):
    assert importlib.util.find_spec("mkdocs") is not None, \
        "mkdocs is not installed: pip install -e '.[test]' (or '.[docs]')"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                          "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    assert (tmp_path / "site" / "index.html").is_file()


def test_readme_links_resolve():
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+://|mailto:", t)]
    assert local, "README.md links into the docs"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
