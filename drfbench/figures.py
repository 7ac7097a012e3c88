"""What every figure notebook (notebooks/*.py) shares: its preamble (start), reading a
profile's results, the caption naming the machine that produced them, a mean's confidence
interval over seeds, a grid of small multiples, writing a figure as PNG and PDF, and a table as Markdown.

A notebook takes two parameters, `results` (a profile's results directory: the pipeline's
`results/<name>`, or the committed `reference/<name>`) and `figures` (where it writes), so
the same notebook runs headless from the pipeline (papermill) and as it is in JupyterLab.
"""
import io
import math
from pathlib import Path

import pandas as pd

from . import rows
from ._io import replacing


def start(results, *names):
    """A figure notebook's first step: matplotlib set to draw off screen (its Agg backend:
    a notebook runs alike headless from the pipeline and in JupyterLab, and writes its
    figures with `save`), then the results tables read.

    Parameters
    ----------
    results : str or Path
        A profile's results directory (see `read`).
    *names : str
        The tables to read, as `read` names them.

    Returns
    -------
    DataFrame or list of DataFrame
        The table for one name, a list of them for several.
    """
    import matplotlib   # the figures' extra (pip install -e '.[notebooks]'), not the core's
    matplotlib.use("Agg")
    tables = [read(results, name) for name in names]
    return tables[0] if len(tables) == 1 else tables


def read(results, name):
    """A results table of a results directory, read through drfbench.rows (which checks
    its provenance columns).

    Parameters
    ----------
    results : str or Path
        A profile's results directory: the pipeline's `results/<name>`, or the committed
        `reference/<name>`.
    name : str
        The table, its path under `results` less `.csv` (e.g. "dcdrf/demands").

    Returns
    -------
    DataFrame
        Its rows, less those of runs the machine skipped (a kernel variant its CPU cannot
        run); their reasons are in `table.attrs["skipped"]`.

    Raises
    ------
    FileNotFoundError
        The table is not there; the message says which pipeline command makes it.
    """
    path = Path(results) / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} does not exist: run the pipeline for this profile first "
            f"(snakemake --cores all [--configfile workflows/config/<profile>.yaml]), "
            f"or point `results` at reference/default")
    table = rows.read(path)
    if "skipped" not in table:
        return table
    skipped = table["skipped"].notna() & (table["skipped"].astype(str) != "")
    measured = table[~skipped].reset_index(drop=True)
    measured.attrs["skipped"] = sorted(set(table.loc[skipped, "skipped"].astype(str)))
    return measured


def machine(table):
    """One line naming the machine and code that produced a results table.

    Parameters
    ----------
    table : DataFrame
        A results table with the provenance columns (drfbench.rows.PROVENANCE).

    Returns
    -------
    str
        `Measured on <CPU>, <CPUs>, <threads>, <SMT>, <host>; drfbench <version> @ <commit>`,
        each part there only if recorded.
    """
    row = table.iloc[0]
    get = lambda key: row[key] if key in row and pd.notna(row[key]) and row[key] != "" else None
    parts = [str(get("cpu_model") or "unknown CPU")]
    cpus = get("cpu_count")
    if cpus is not None:
        parts.append(f"{int(cpus)} logical CPUs")
    threads = [c for c in ("threads_run", "threads") if c in table]
    if threads:
        parts.append(f"up to {int(table[threads[0]].max())} threads")
    smt = get("smt_present")
    if smt is not None:
        parts.append("SMT" if str(smt) == "True" else "no SMT")
    host = get("host")
    if host is not None:
        parts.append(f"host {host}")
    version, commit = get("drfbench_version"), get("git_commit")
    code = (f"drfbench {version}" if version else "drfbench (version not recorded)") + (
        f" @ {str(commit)[:7]}" if commit else "")
    return f"Measured on {', '.join(parts)}; {code}"


def interval(values, level=0.95):
    """The mean of `values` and the half-width of its confidence interval (Student's t).

    Parameters
    ----------
    values : array_like
        The values (NaN left out).
    level : float
        The interval's confidence level.

    Returns
    -------
    Series
        `mean` and `half` (NaN for fewer than two values).
    """
    from scipy import stats
    x = pd.Series(values, dtype=float).dropna()
    half = (stats.t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
            if len(x) > 1 else math.nan)
    return pd.Series({"mean": x.mean(), "half": half})


def caption(fig, text):
    """Put `text` under the figure, leaving room for as many lines as it wraps to (about
    0.056 inch per character at 7 pt).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    text : str
        The caption: usually `machine(...)` plus what the data are.
    """
    fig.text(0.01, 0.005, text, fontsize=7, ha="left", va="bottom", wrap=True)
    width, height = fig.get_size_inches()
    lines = math.ceil(len(text) * 0.056 / (0.97 * width))
    fig.tight_layout(rect=(0, min(0.4, (0.13 * lines + 0.06) / height), 1, 1))


def panels(n, x, y, cols=3, height=3.4):
    """A grid of `n` small multiples sharing their axes, `cols` to a row: the x label on the
    bottom row, the y label on the left column, the panels past `n` switched off.

    Parameters
    ----------
    n : int
        The panels drawn on (at least 1).
    x, y : str
        The axes' labels.
    cols : int
        Panels per row.
    height : float
        Inches per row (5 per column across).

    Returns
    -------
    (Figure, ndarray of Axes)
        The figure and its panels, two-dimensional (`axes.flat` in reading order).
    """
    import matplotlib.pyplot as plt
    rows_ = -(-n // cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(5.0 * cols, height * rows_), sharex=True,
                             sharey=True, squeeze=False)
    for ax in axes[-1]:
        ax.set_xlabel(x)
    for ax in axes[:, 0]:
        ax.set_ylabel(y)
    for ax in axes.flat[n:]:
        ax.axis("off")
    return fig, axes


DPI = 150                # the PNG's resolution (and the PDF's, for anything rasterized)
PNG_PIXELS = 3_000_000   # a figure bigger than this at DPI gets the PNG dpi that fits it
PNG_COLOURS = 256        # the PNG is a palette image of this many colours


def save(fig, figures, stem):
    """Write `fig` as PNG and PDF, each atomically (no half-written file).

    The PNG is kept small, so that the reference figures can be committed and shown in
    the documentation: drawn at DPI, or at the lower dpi that keeps it within PNG_PIXELS
    pixels (only the largest figures, grids of heat maps), then reduced to a palette of
    PNG_COLOURS colours (Pillow's median cut; lines, text and flat fills are unchanged,
    a colour bar's gradient shows steps), about a third of the size of matplotlib's RGBA.
    The PDF is the vector figure.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    figures : str or Path
        The folder to write in.
    stem : str
        The files' name, less its extension.

    Returns
    -------
    list of Path
        `figures/<stem>.png` and `figures/<stem>.pdf`.
    """
    paths = []
    for ext in ("png", "pdf"):
        path = Path(figures) / f"{stem}.{ext}"
        with replacing(path, suffix=f".{ext}") as tmp:
            if ext == "png":
                _png(fig, tmp)
            else:
                fig.savefig(tmp, dpi=DPI)
        paths.append(path)
    return paths


def _png(fig, path):
    """`fig` as a small PNG (see save)."""
    from PIL import Image  # matplotlib's own dependency
    width, height = fig.get_size_inches()
    dpi = min(DPI, math.sqrt(PNG_PIXELS / (width * height)))
    in_memory = io.BytesIO()
    fig.savefig(in_memory, format="png", dpi=dpi)
    in_memory.seek(0)
    with Image.open(in_memory) as image:
        palette = image.convert("RGB").quantize(PNG_COLOURS)  # median cut, no dithering
    palette.save(path, format="png", optimize=True, dpi=(dpi, dpi))


def markdown(frame, digits=None):
    """A DataFrame as a Markdown table.

    Parameters
    ----------
    frame : DataFrame
        The table; its index becomes the first column, named by the index's name.
    digits : int, optional
        Round the numbers to this many digits.

    Returns
    -------
    str
        The Markdown table, one line per row after the header.
    """
    if digits is not None:
        frame = frame.round(digits)
    head = [frame.index.name or ""] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join([str(i)] + [str(v) for v in row]) + " |"
              for i, row in zip(frame.index, frame.itertuples(index=False))]
    return "\n".join(lines)
