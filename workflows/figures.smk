# The figures: one jupytext notebook per figure family (notebooks/<notebook>.py), run
# headless (jupytext to .ipynb, then papermill) with two parameters, `results` (the
# profile's results directory) and `figures` (where it writes PNG and PDF). Notebooks read
# only results files, so `--config figures_from=reference/default` redraws every figure
# from the committed reference results without running a sweep:
#   snakemake --cores all --configfile workflows/config/default.yaml \
#       --config figures_from=reference/default -- figures

FIGURES_FROM = config.get("figures_from")  # None: the pipeline's own results/<name>
CONTROLLER_METHODS = config["controller"]["methods"]

# notebook: (results files it reads, relative to the results directory; files it writes
# under results/<name>/figures/; data files it reads under data/)
NOTEBOOKS = {
    "fig02_azure_activity": dict(
        results=[], figures=["fig02_azure_activity.png", "fig02_azure_activity.pdf"],
        data=["azure/azure_v1_vm_cpu_max_5min_100vms.csv.gz",
              "azure/azure_v1_vm_cpu_avg_5min_100vms.csv.gz"]),
    "fig03_edrf_runtime": dict(
        results=["profiles.csv", "scaling.csv", "edrf_extrapolated.csv"],
        figures=["fig03_edrf_runtime.png", "fig03_edrf_runtime.pdf"]),
    "fig05_06_configurations": dict(
        results=["configs.csv"],
        figures=["fig05_thread_scaling.png", "fig05_thread_scaling.pdf",
                 "fig06_configurations.png", "fig06_configurations.pdf"]),
    "fig07_profiles": dict(
        results=["profiles.csv"], figures=["fig07_profiles.png", "fig07_profiles.pdf"]),
    "fig08_09_deadlines": dict(
        results=["deadlines.csv"],
        figures=["fig08_utilization.png", "fig08_utilization.pdf",
                 "fig09_fairness.png", "fig09_fairness.pdf"]),
    "fig10_11_controller": dict(
        results=[f"controller/epsilon_vs_deadline_{m}{s}.csv"
                 for m in CONTROLLER_METHODS for s in ("", "_summary")]
        + ["controller/adaptation.csv", "controller/adaptation_summary.csv"],
        figures=["fig10_epsilon.png", "fig10_epsilon.pdf",
                 "fig11_adaptation.png", "fig11_adaptation.pdf"]),
    "event_vs_dcdrf": dict(
        results=["profiles.csv"], figures=["event_vs_dcdrf.png", "event_vs_dcdrf.pdf"]),
    "drf_properties": dict(
        results=["drf/drf_properties.csv", "drf/drf_examples.csv"],
        figures=["drf_properties.png", "drf_properties.pdf", "drf_properties.md"]),
    "drf_vs_slots": dict(
        results=["drf/drf_vs_slots.csv"], figures=["drf_vs_slots.png", "drf_vs_slots.pdf"]),
}
# A config without some sweep family (e.g. no `scaling`) draws only the figures it has data for.
PRODUCED = set(RUNS) | {"controller", "drf"} | (
    {"edrf_extrapolated"} if {"scaling", "profiles"} <= set(RUNS) else set())
NOTEBOOKS = {nb: spec for nb, spec in NOTEBOOKS.items()
             if all(f.split("/")[0].removesuffix(".csv") in PRODUCED for f in spec["results"])}
FIGURES = [f for spec in NOTEBOOKS.values() for f in spec["figures"]]


def results_source(name):
    return FIGURES_FROM or f"results/{name}"


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
            results=lambda w, files=_spec["results"]: [
                f"{results_source(w.name)}/{f}" for f in files],
            data=[f"{workflow.basedir}/data/{f}" for f in _spec.get("data", [])],
        output:
            executed=f"results/{{name}}/notebooks/{_notebook}.ipynb",
            figures=[report(f"results/{{name}}/figures/{f}", category="figures")
                     for f in _spec["figures"]],
        log:
            f"results/{{name}}/logs/notebooks/{_notebook}.log",
        params:
            python=PYTHON,
            results=lambda w: results_source(w.name),
            data=f"-p data {workflow.basedir}/data" if _spec.get("data") else "",
        shell:
            "{params.python} -m jupytext --to ipynb --output - {input.notebook} 2> {log} | "
            "{params.python} -m papermill - {output.executed} --kernel python3 --log-output "
            "-p results {params.results} -p figures results/{wildcards.name}/figures "
            "{params.data} >> {log} 2>&1"


rule figures:
    input:
        expand("results/{name}/figures/{figure}", name=NAME, figure=FIGURES),
