"""Every figure notebook runs as it is (as JupyterLab would run it, from notebooks/ with its
default parameters) on the committed reference results, and draws its figures. Slow: a
notebook takes 5 to 15 seconds."""
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_from_its_folder_on_reference_results(notebook, tmp_path):
    text = notebook.read_text()
    assert 'results = "../reference/default"' in text, "default parameter: the reference results"
    ipynb = tmp_path / f"{notebook.stem}.ipynb"
    subprocess.run([sys.executable, "-m", "jupytext", "--to", "ipynb", "--output", str(ipynb),
                    str(notebook)], check=True, capture_output=True)
    figures = tmp_path / "figures"
    run = subprocess.run([sys.executable, "-m", "papermill", str(ipynb), str(tmp_path / "out.ipynb"),
                          "--kernel", "python3", "--cwd", str(ROOT / "notebooks"),
                          "-p", "figures", str(figures)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    drawn = sorted(p.name for p in figures.glob("*.png"))
    assert drawn and all((figures / f"{Path(p).stem}.pdf").stat().st_size > 1000 for p in drawn)
