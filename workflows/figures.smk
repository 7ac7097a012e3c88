# The figures: one jupytext notebook per figure family (notebooks/<notebook>.py), each
# registered in NOTEBOOKS by its family's rules file, run headless (jupytext to .ipynb,
# then papermill) with two parameters, `results` (the profile's results directory) and
# `figures` (where it writes PNG and PDF). Notebooks read only results files, so
# `--config figures_from=reference/default` redraws every figure from the committed
# reference results without running a sweep:
#   snakemake --cores all --configfile workflows/config/default.yaml \
#       --config figures_from=reference/default -- figures

RESULTS_FROM = config.get("figures_from", f"results/{NAME}")


for _notebook, _spec in NOTEBOOKS.items():

    rule:
        name:
            f"notebook_{_notebook}"
        localrule: True  # seconds of plotting: never worth a cluster job
        # notebooks run side by side, and a Jupyter kernel starting beside another can lose
        # the race for a TCP port and die before the first cell (snakemake issue #3689,
        # papermill #511): run it again; a notebook that really fails, fails every time
        retries: 2
        input:
            notebook=f"{workflow.basedir}/notebooks/{_notebook}.py",
            results=[f"{RESULTS_FROM}/{f}" for f in _spec["results"]],
            data=[f"{workflow.basedir}/data/{f}" for f in _spec.get("data", [])],
        output:
            executed=f"results/{{name}}/notebooks/{_notebook}.ipynb",
            figures=[report(f"results/{{name}}/figures/{f}", category="figures")
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
            data=f"-p data {workflow.basedir}/data" if _spec.get("data") else "",
        shell:
            "{params.python} -m jupytext --to ipynb --output - {input.notebook} 2> {log} | "
            "{params.python} -m papermill - {output.executed} --kernel python3 --log-output "
            "{params.results} -p figures results/{wildcards.name}/figures "
            "{params.data} >> {log} 2>&1"


rule figures:
    input:
        expand("results/{name}/figures/{figure}", name=NAME,
               figure=[f for spec in NOTEBOOKS.values() for f in spec["figures"]]),
