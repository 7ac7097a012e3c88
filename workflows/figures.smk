# The figures: one jupytext notebook per figure family (notebooks/<notebook>.py), each
# registered in NOTEBOOKS by its family's rules file, run headless (jupytext to .ipynb,
# then papermill) with two parameters, `results` (the profile's results directory) and
# `figures` (where it writes PNG and PDF). Notebooks read only results files, so
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

    rule:
        name:
            f"notebook_{_notebook}"
        localrule: True  # seconds of plotting: never worth a cluster job
        # notebooks run side by side, and a Jupyter kernel starting beside another can lose
        # the race for a TCP port and die before the first cell (snakemake issue #3689,
        # papermill #511): run it again; a notebook that really fails, fails every time
        retries: 2
        input:
            notebook=f"{CHECKOUT}/notebooks/{_notebook}.py",
            results=[f"{RESULTS_FROM}/{f}" for f in _spec["results"]],
            data=[f"{CHECKOUT}/data/{f}" for f in _spec.get("data", [])],
        output:
            executed=f"results/{{name}}/notebooks/{_notebook}.ipynb",
            figures=[report(f"results/{{name}}/figures/{f}",
                            caption=f"report/figures/{f.removesuffix('.png')}.rst",
                            category=FIGURE_FIELDS[f.removesuffix(".png")]["family"],
                            subcategory=FIGURE_FIELDS[f.removesuffix(".png")]["paper"])
                     if f.endswith(".png") else f"results/{{name}}/figures/{f}"
                     for f in _spec["figures"]],
        conda:
            CONDA_ENV
        log:
            f"results/{{name}}/logs/notebooks/{_notebook}.log",
        params:
            python=PYTHON,
            # the results directory: the inputs' paths less their relative part
            results=lambda w, input, files=_spec["results"]: (
                f"-p results {input.results[0].removesuffix(files[0])}" if files else ""),
            data=f"-p data {CHECKOUT}/data" if _spec.get("data") else "",
        shell:
            "{params.python} -m jupytext --to ipynb --output - {input.notebook} 2> {log} | "
            "{params.python} -m papermill - {output.executed} --kernel python3 --log-output "
            "{params.results} -p figures results/{wildcards.name}/figures "
            "{params.data} >> {log} 2>&1"


rule figures:
    input:
        expand("results/{name}/figures/{figure}", name=NAME,
               figure=[f for spec in NOTEBOOKS.values() for f in spec["figures"]]),
