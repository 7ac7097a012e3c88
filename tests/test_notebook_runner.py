"""drfbench.notebooks: a family's figure notebooks run in one Jupyter kernel, each as it would
in a kernel of its own. Slow: it starts a kernel."""
import json

import nbformat
import papermill
import pytest

from drfbench import notebooks

pytestmark = pytest.mark.slow

HEADER = "# %% tags=[\"parameters\"]\n"

LEAKS = HEADER + """figures = "unset"

# %%
import warnings
import matplotlib
import matplotlib.pyplot as plt
leak = 1
matplotlib.rcParams["lines.linewidth"] = 7.0
warnings.simplefilter("ignore")
plt.figure()
"""

CHECKS = HEADER + """figures = "unset"
results = "unset"

# %%
import warnings
import matplotlib
import matplotlib.pyplot as plt
from pathlib import Path
assert "leak" not in globals(), "the namespace of the notebook before"
assert matplotlib.rcParams["lines.linewidth"] == matplotlib.rcParamsDefault["lines.linewidth"]
assert not any(f[:3] == ("ignore", None, Warning) for f in warnings.filters)
assert plt.get_fignums() == []
Path(figures).mkdir(exist_ok=True)
Path(figures, "given.txt").write_text(f"{results}")
"""

FAILS = HEADER + """figures = "unset"

# %%
raise ValueError("drawn wrong")
"""

NEVER = HEADER + """figures = "unset"

# %%
from pathlib import Path
Path(figures, "never.txt").write_text("ran")
"""


def write(folder, sources):
    paths = []
    for name, source in sources.items():
        paths.append(folder / f"{name}.py")
        paths[-1].write_text(source)
    return paths


def test_declared_names_the_parameters_cell_assignments(tmp_path):
    import jupytext
    path, = write(tmp_path, {"checks": CHECKS})
    assert notebooks.declared(jupytext.read(path)) == {"figures", "results"}
    assert notebooks.declared(nbformat.v4.new_notebook()) == set()


def test_notebooks_share_a_kernel_but_not_its_state_and_the_first_failure_stops(tmp_path):
    paths = write(tmp_path, {"leaks": LEAKS, "checks": CHECKS, "fails": FAILS, "never": NEVER})
    figures, executed = tmp_path / "figures", tmp_path / "executed"
    with pytest.raises(papermill.PapermillExecutionError, match="drawn wrong"):
        notebooks.run(paths, executed, {"figures": str(figures), "results": "r/smoke", "data": "d"})
    assert (figures / "given.txt").read_text() == "r/smoke"   # checks ran, every assert held
    assert not (figures / "never.txt").exists()
    cells = json.loads((executed / "checks.ipynb").read_text())["cells"]
    injected = next(c for c in cells if "injected-parameters" in c["metadata"].get("tags", []))
    assert "data" not in "".join(injected["source"]), "only the parameters the notebook has"
    counts = [c["execution_count"] for c in cells if c["cell_type"] == "code"]
    assert counts == list(range(1, len(counts) + 1)), "counted from 1, as in a kernel of its own"
