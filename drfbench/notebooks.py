"""Run figure notebooks headless, several in one Jupyter kernel: the pipeline's figure step
(workflows/figures.smk runs a family's notebooks in one job).

    python -m drfbench.notebooks --executed DIR [-p NAME VALUE]... NOTEBOOK.py...

Each notebook (jupytext's percent format, `notebooks/<name>.py`) is read as a notebook, given
those of the parameters that its parameters cell assigns (papermill injects them after
it), run, and written executed to `DIR/<name>.ipynb`. The notebooks share one kernel, so the
kernel's start and the imports every figure notebook makes (pandas, matplotlib, seaborn,
which imports scipy.stats) are paid once, not once a notebook: they were most of a figure
notebook's 5 s of CPU. Before each notebook the kernel is set back (`reset_kernel`), so that
a notebook sees what it would in a kernel of its own but for the modules already imported.
The first notebook that fails stops the run with papermill's error, naming the cell.
"""
import ast
import logging
import sys
from pathlib import Path

from . import _command
from ._command import Parser, input_file

_baseline = None     # in the kernel: what reset_kernel sets back (matplotlib's settings, warnings)


def reset_kernel():
    """In the kernel, before a notebook: the first call records matplotlib's settings and
    the warnings filters; every later one empties the namespace (IPython's %reset), closes
    every figure, puts those settings and filters back and sets the execution count to 1."""
    global _baseline
    import warnings

    import matplotlib
    from IPython import get_ipython
    from matplotlib.style.core import STYLE_BLACKLIST   # the backend and the like: not a style
    settings = {k: v for k, v in matplotlib.rcParams.items() if k not in STYLE_BLACKLIST}
    if _baseline is None:
        _baseline = settings, list(warnings.filters)
        return
    shell = get_ipython()
    shell.reset(new_session=False)
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
    matplotlib.rcParams.update(_baseline[0])
    warnings.filters[:] = _baseline[1]
    warnings._filters_mutated()     # the warnings module's own cache of the filters
    shell.execution_count = 1


def declared(notebook):
    """The names a notebook's parameters cell (the one tagged `parameters`) assigns."""
    for cell in notebook.cells:
        if "parameters" in cell.metadata.get("tags", []):
            return {target.id for node in ast.parse(cell.source).body
                    if isinstance(node, ast.Assign) for target in node.targets
                    if isinstance(target, ast.Name)}
    return set()


def run(notebooks, executed, parameters):
    """Run `notebooks` (paths of jupytext notebooks), in order, in one kernel.

    Parameters
    ----------
    notebooks : list of str or Path
        The notebooks.
    executed : str or Path
        The folder each executed notebook is written to, as `<stem>.ipynb` (made if need be).
    parameters : dict
        {name: value}: a notebook gets those its parameters cell assigns.

    Raises
    ------
    papermill.PapermillExecutionError
        A notebook's cell raised; the notebooks after it are not run.
    """
    import jupytext
    import papermill
    from jupyter_client.manager import KernelManager

    Path(executed).mkdir(parents=True, exist_ok=True)
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel()
    try:
        for path in map(Path, notebooks):
            _reset(manager, path)
            notebook = jupytext.read(path)
            given = {k: v for k, v in parameters.items() if k in declared(notebook)}
            print(f"drfbench.notebooks: {path} -> {Path(executed, path.stem + '.ipynb')}",
                  file=sys.stderr, flush=True)
            papermill.execute_notebook(notebook, Path(executed, f"{path.stem}.ipynb"),
                                       parameters=given, kernel_name="python3", language="python",
                                       log_output=True, progress_bar=False, km=manager)
    finally:
        manager.shutdown_kernel(now=True)


def _reset(manager, path):
    """Run reset_kernel in `manager`'s kernel (through a client of its own, as papermill's
    is one a notebook)."""
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        reply = client.execute_interactive("__import__('drfbench.notebooks').notebooks.reset_kernel()",
                                           silent=True, store_history=False, timeout=60,
                                           output_hook=lambda msg: None)
    finally:
        client.stop_channels()
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"resetting the kernel before {path} failed: "
                           f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}")


def main(argv=None):
    """The command line (the module's docstring), through drfbench._command's boundary: a
    missing notebook is one line on stderr, status 2."""
    parser = Parser(prog="python -m drfbench.notebooks",
                    description="Run figure notebooks in one kernel.")
    parser.add_argument("--executed", required=True, help="folder for the executed notebooks")
    parser.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                        metavar=("NAME", "VALUE"), help="a parameter, given to the notebooks that have it")
    parser.add_argument("notebooks", nargs="+", type=input_file,
                        help="jupytext notebooks (notebooks/<name>.py)")

    def body(args):
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        run(args.notebooks, args.executed, dict(args.parameter))

    _command.run(parser, body, argv, command=None)


if __name__ == "__main__":
    main()
