# The figures: one jupytext notebook per figure family (notebooks/<notebook>.py), each
# registered in NOTEBOOKS by its family's rules file, run headless (drfbench.notebooks: a
# family's notebooks in one job and one kernel, each given by papermill the parameters it
# has: `results`, the profile's results directory, `figures`, where it writes PNG and PDF,
# and `data`, the repository's data folder). Notebooks read only results files, so
# `--config figures_from=reference/default` redraws every figure from the committed
# reference results without running a sweep:
#   snakemake --cores all --configfile workflows/config/default.yaml \
#       --config figures_from=reference/default -- figures

import re

from snakemake.exceptions import WorkflowError

RESULTS_FROM = config.get("figures_from", f"results/{NAME}")
# The report (snakemake --report) shows each PNG, not its PDF or a notebook's tables, with
# its caption, workflows/report/figures/<figure>.rst, whose fields (at its end: a field list
# first would be read as the document's metadata and not shown) name the family (the
# report's category) and the paper's figure (its subcategory).
CAPTIONS = Path(workflow.basedir, "workflows/report/figures")
FIGURE_FIELDS = {path.stem: dict(re.findall(r"^:(\w+): (.*)$", path.read_text(), re.M))
                 for path in CAPTIONS.glob("*.rst")}


for _notebook, _spec in NOTEBOOKS.items():
    _uncaptioned = [f for f in _spec["figures"]
                    if f.endswith(".png") and f.removesuffix(".png") not in FIGURE_FIELDS]
    if _uncaptioned:
        raise WorkflowError(f"figure {_uncaptioned[0]} of notebook {_notebook} has no caption: "
                            f"write {CAPTIONS.relative_to(workflow.basedir)}/"
                            f"{_uncaptioned[0].removesuffix('.png')}.rst")

# A family's notebooks (notebooks/<family>_*.py, <family>.py) run in one job, in one Jupyter
# kernel (drfbench.notebooks): a kernel's start and the notebooks' imports took most of a
# notebook's CPU time when each had its own
FAMILY_NOTEBOOKS = {}
for _notebook in sorted(NOTEBOOKS):
    FAMILY_NOTEBOOKS.setdefault(_notebook.split("_")[0], []).append(_notebook)


for _family, _notebooks in FAMILY_NOTEBOOKS.items():
    _specs = [NOTEBOOKS[n] for n in _notebooks]

    rule:
        name:
            f"notebooks_{_family}"
        localrule: True  # seconds of plotting: never worth a cluster job
        # notebooks run side by side, and a Jupyter kernel starting beside another can lose
        # the race for a TCP port and die before the first cell (snakemake issue #3689,
        # papermill #511): run it again; a notebook that really fails, fails every time
        retries: 2
        input:
            # normpath: no "./" in front when run from the checkout (Snakemake warns of each)
            notebooks=[os.path.normpath(f"{CHECKOUT}/notebooks/{n}.py") for n in _notebooks],
            results=[f"{RESULTS_FROM}/{f}" for spec in _specs for f in spec["results"]],
            data=[os.path.normpath(f"{CHECKOUT}/data/{f}") for spec in _specs for f in spec.get("data", [])],
        output:
            executed=[f"results/{{name}}/notebooks/{n}.ipynb" for n in _notebooks],
            figures=[report(f"results/{{name}}/figures/{f}",
                            caption=f"report/figures/{f.removesuffix('.png')}.rst",
                            category=FIGURE_FIELDS[f.removesuffix(".png")]["family"],
                            subcategory=FIGURE_FIELDS[f.removesuffix(".png")]["paper"])
                     if f.endswith(".png") else f"results/{{name}}/figures/{f}"
                     for spec in _specs for f in spec["figures"]],
        conda:
            CONDA_ENV
        log:
            f"results/{{name}}/logs/notebooks/{_family}.log",
        params:
            python=PYTHON,
            results=f"-p results {RESULTS_FROM}",
            data=(f"-p data {os.path.normpath(f'{CHECKOUT}/data')}"
                  if any(spec.get("data") for spec in _specs) else ""),
        shell:
            "{params.python} -m drfbench.notebooks --executed results/{wildcards.name}/notebooks "
            "{params.results} -p figures results/{wildcards.name}/figures {params.data} "
            "{input.notebooks} > {log} 2>&1"


rule figures:
    input:
        expand("results/{name}/figures/{figure}", name=NAME,
               figure=[f for spec in NOTEBOOKS.values() for f in spec["figures"]]),
