# Public traces (drfbench.traces, docs/traces.md): each run of the config's `traces.runs`
# converted from its publisher's files to a servers and a tasks file (drfbench convert),
# then run by a registered trace scheduler (drfbench run). None by default.
#
# Config (key `traces`): method, sample (every run's), runs (a list: id, format, inputs,
# machines, jobs, server and count for azure-vm).
import shlex

TRACE_RUNS = {run["id"]: run for run in config["traces"]["runs"]}
TARGETS += expand("results/{name}/traces/{run}/rows.csv", name=NAME, run=list(TRACE_RUNS))


# drfbench convert's arguments for each run, but the outputs
TRACE_ARGUMENTS = {
    id: shlex.join([
        run["format"], *run["inputs"],
        *(["--machines", *run["machines"]] if run.get("machines") else []),
        *(["--jobs", *run["jobs"]] if run.get("jobs") else []),
        *(["--server", ",".join(f"{r}={c}" for r, c in run["server"].items())]
          if run.get("server") else []),
        *(["--count", str(run["count"])] if run.get("count") else [])])
    for id, run in TRACE_RUNS.items()}


rule traces_convert:
    input:
        lambda w: [*TRACE_RUNS[w.run]["inputs"], *TRACE_RUNS[w.run].get("machines", []),
                   *TRACE_RUNS[w.run].get("jobs", [])],
    output:
        servers="results/{name}/traces/{run}/servers.csv",
        tasks="results/{name}/traces/{run}/tasks.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/traces/{run}_convert.log",
    params:
        python=PYTHON,
        arguments=lambda w: TRACE_ARGUMENTS[w.run],
    shell:
        "{params.python} -m drfbench convert {params.arguments} --out-servers {output.servers} "
        "--out-tasks {output.tasks} > {log} 2>&1"


rule traces_run:
    input:
        servers="results/{name}/traces/{run}/servers.csv",
        tasks="results/{name}/traces/{run}/tasks.csv",
    output:
        "results/{name}/traces/{run}/rows.csv",
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/traces/{run}_run.log",
    params:
        python=PYTHON,
        method=config["traces"]["method"],
        sample=config["traces"]["sample"],
    shell:
        "{params.python} -m drfbench run {params.method} {input.servers} {input.tasks} "
        "--sample {params.sample} --out {output} > {log} 2>&1"
