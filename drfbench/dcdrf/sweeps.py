"""The DC-DRF paper's configuration sweeps as pipeline steps (workflows/rules/dcdrf_*.smk).

    python -m drfbench.dcdrf workload --workload G0-5000x500-s0 --out W.npz
    python -m drfbench.dcdrf baseline --workload-file W.npz --method edrf-event --out B.npz
    python -m drfbench.dcdrf run --sweep configs --run RUN_ID [RUN_ID ...] \\
        --workload-file W.npz [...] --baseline-file B.npz [...] --repeats 3 --out rows.csv --log run.log
    python -m drfbench.dcdrf extrapolate --scaling scaling.csv --demands demands.csv --out X.csv

A run is named by its run id, "key~value" pairs joined by "+" (Snakemake's Paramspace
style), so that a rule needs only the id: `grid(config)` expands the config's sweeps into
run ids per sweep, asking the registry which methods take epsilon and which is the
conventional baseline. Each measured repetition becomes one tidy row (drfbench.rows):
every parameter, the kernel's results, the metrics against the exact baseline, provenance.
A measuring job takes a batch of runs (`batches`: the config's `runs_per_job`, one by
default so that a cluster spreads them over its nodes; the smoke profile runs a sweep in
one job, whose start costs more than its runs).
"""
import csv
import itertools
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .. import _isa
from .. import rows as tidy
from .._command import COUNT, input_file, output, run_step, steps
from .._io import replacing
from .._machine import cpu_info, omp_environment, openmp_loaded
from ..api import ISA, THREADS, method_info
from . import metrics, workloads
from .catalog import DEADLINE, EPSILON
from .demands import allocate
from .methods import allocation_from_levels

SWEEPS = ("configs", "demands", "deadlines", "scaling")
# Run parameters in id order, with their types; absent ones take DEFAULTS. The declared
# options among them by their declarations' names ("none": no deadline; "default": the
# variant drfbench.allocate picks).
PARAMS = {"demand_profile": str, "tenants": int, "resources": int, "seed": int, "method": str,
          EPSILON.name: float, DEADLINE.name: str, "dtype": str, ISA.name: str, "cores": str,
          "tpc": int}
DEFAULTS = {EPSILON.name: EPSILON.default, DEADLINE.name: "none", "dtype": "float32",
            ISA.name: "default", "cores": "all", "tpc": 1}


def workload_name(demand_profile, tenants, resources, seed):
    return f"{demand_profile}-{tenants}x{resources}-s{seed}"


def parse_workload_name(name):
    """A workload's name, PROFILE-TENANTSxRESOURCES-sSEED (workload_name's), read back.

    Parameters
    ----------
    name : str

    Returns
    -------
    profile : str
    tenants, resources, seed : int

    Raises
    ------
    ValueError
        Naming the expected form.
    """
    try:
        demand_profile, scale, seed = name.split("-")
        tenants, resources = scale.split("x")
        if not seed.startswith("s"):
            raise ValueError
        return demand_profile, int(tenants), int(resources), int(seed[1:])
    except ValueError:
        raise ValueError(f"workload name {name!r} is not PROFILE-TENANTSxRESOURCES-sSEED "
                         "(e.g. G0-1000x100-s0)") from None


def run_id(params):
    """'key~value' pairs joined by '+' in PARAMS order (values never contain '+' or '~'; a comma
    would break Snakemake's SLURM executor, which passes wildcards as w=v,w=v).

    Parameters
    ----------
    params : dict

    Returns
    -------
    str
    """
    full = {**DEFAULTS, **params}
    return "+".join(f"{k}~{full[k]}" for k in PARAMS)


def parse_run_id(text):
    pairs = dict(part.split("~", 1) for part in text.split("+"))
    if set(pairs) != set(PARAMS):
        raise ValueError(f"run id {text!r} does not name exactly the parameters {', '.join(PARAMS)}")
    return {k: PARAMS[k](v) for k, v in pairs.items()}


def _epsilons(method, epsilons, methods):
    """The epsilons a sweep runs `method` at: its entry of the config's {method: [epsilon,
    ...]} mapping, else just 0 (exact)."""
    for named in epsilons:
        if named not in methods or not method_info(named).takes_option(EPSILON.name):
            raise ValueError(f"epsilons given for {named!r}, which the sweep does not run or "
                             "which takes no epsilon")
    return epsilons.get(method, [0.0])


def grid(config):
    """Every sweep's run ids in the config.

    Every kernel variant named is in the grid: a variant the executing CPU cannot run is
    skipped by its job, which says so in its row, so the machine that reads the workflow
    decides nothing.

    Parameters
    ----------
    config : dict
        Its `dcdrf` key; `seed` is the config's.

    Returns
    -------
    dict
        `{sweep: [run id, ...]}`.
    """
    dcdrf, seed, runs = config["dcdrf"], config["seed"], {}
    eps, deadline, variant = EPSILON.name, DEADLINE.name, ISA.name     # run ids' keys
    c = dcdrf.get("configs")
    if c:
        runs["configs"] = [
            run_id(dict(demand_profile=c["demand_profile"], tenants=c["tenants"],
                        resources=c["resources"], seed=seed, method=c["method"],
                        dtype=dtype, cores=cores, tpc=tpc, **{eps: c[eps], variant: isa}))
            for dtype, isa, cores, tpc in itertools.product(
                c["dtypes"], c["isas"], c["cores"], c["threads_per_core"])]
    p = dcdrf.get("demands")
    if p:
        runs["demands"] = [
            run_id(dict(demand_profile=prof, tenants=p["tenants"], resources=p["resources"],
                        seed=seed, method=method, **{eps: e, deadline: p["budget"] if
                                                     method_info(method).conventional else "none"}))
            for prof in p["demand_profiles"] for method in p["methods"]
            for e in _epsilons(method, p["epsilons"], p["methods"])]
    d = dcdrf.get("deadlines")
    if d:
        runs["deadlines"] = [
            run_id(dict(demand_profile=d["demand_profile"], tenants=d["tenants"],
                        resources=d["resources"], seed=seed, method=method,
                        **{eps: e, deadline: seconds}))
            for method in d["methods"] for seconds in d["deadlines"]
            for e in _epsilons(method, d["epsilons"], d["methods"])]
    s = dcdrf.get("scaling")
    if s:
        runs["scaling"] = [
            run_id(dict(demand_profile=s["demand_profile"], tenants=ratio * resources,
                        resources=resources, seed=seed, method=s["method"],
                        **{deadline: s["budget"]}))
            for ratio in s["ratios"] for resources in s["resources"]]
    return runs


def workload_of_run(run):
    """The workload name a run id needs.

    Parameters
    ----------
    run : str

    Returns
    -------
    str
    """
    p = parse_run_id(run)
    return workload_name(p["demand_profile"], p["tenants"], p["resources"], p["seed"])


def variant_marker(name, run):
    """The file marking that the kernel variant a run id names is built (the pipeline's rule
    kernel_variant), or none for the default variant.

    Parameters
    ----------
    name : str
        The profile.
    run : str

    Returns
    -------
    list of str
        The one file, or none.
    """
    variant = parse_run_id(run)[ISA.name]
    return [] if variant == "default" else [f"results/{name}/dcdrf/variants/{variant}.built"]


def batches(runs, size):
    """A sweep's run ids as the measuring jobs' batches: consecutive runs, so that the gathered
    rows keep the grid's order.

    Parameters
    ----------
    runs : list of str
        In grid order.
    size : int or "all"
        Runs per batch ("all": one batch).

    Returns
    -------
    dict
        `{the batch's first run id: its runs}`.
    """
    size = len(runs) if size == "all" else size
    return {runs[i]: runs[i:i + size] for i in range(0, len(runs), size)}


def batch_inputs(name, runs):
    """What the measuring job of a batch reads, in the results of profile `name`, each file
    once.

    Parameters
    ----------
    name : str
    runs : list of str

    Returns
    -------
    dict
        `{"workload": files, "baseline": files, "variant": the built variants' markers}`.
    """
    names = list(dict.fromkeys(map(workload_of_run, runs)))
    return {"workload": [f"results/{name}/dcdrf/workloads/{w}.npz" for w in names],
            "baseline": [f"results/{name}/dcdrf/baselines/{w}.npz" for w in names],
            "variant": list(dict.fromkeys(m for r in runs for m in variant_marker(name, r)))}


def cmd_workload(args):
    demand_profile, tenants, resources, seed = parse_workload_name(args.workload)
    workloads.save(workloads.generate(demand_profile, tenants, resources, seed=seed), args.out)


def cmd_baseline(args):
    wl = workloads.load(args.workload_file)
    res = allocate(wl.demands, args.method, weights=wl.weights, dtype=np.float64)
    with replacing(args.out, suffix=".npz") as tmp:
        np.savez(tmp, level=res.level, rounds=res.rounds, elapsed=res.elapsed,
                 method=np.array(args.method))


def _progress(line, log):
    print(line, file=sys.stderr, flush=True)
    print(line, file=log, flush=True)


def cmd_run(args):
    """Measure a batch of configurations (the run ids `args.run`), one row per repetition
    each, in the batch's order. OpenMP reads its environment once, when the kernels load
    it: a batch whose runs share one environment (their cores and threads per core) is
    measured in this process, which sets it first; a batch of several environments by a
    child process per environment, whose rows are put back in the batch's order."""
    sources = {workload: (_file_of(args.workload_file, args.run, workload, "--workload-file"),
                          _file_of(args.baseline_file, args.run, workload, "--baseline-file"))
               for workload in dict.fromkeys(map(workload_of_run, args.run))}
    smt = bool(cpu_info()[2])
    by_environment = {}
    for run in args.run:
        params = parse_run_id(run)
        env = omp_environment(params["cores"], params["tpc"], smt)
        by_environment.setdefault(tuple(sorted(env.items())), []).append(run)
    if len(by_environment) == 1:
        rows = _measure(args, dict(next(iter(by_environment))), smt, sources)
    else:
        rows = _measure_apart(args, list(by_environment.values()))
    tidy.write(rows, args.out)


def _file_of(files, runs, workload, flag):
    """Which of `files` (a flag's values) holds `workload`, a workload of `runs`: the one
    file given where the runs name one workload, else the file named after it
    (<workload>.npz, as the pipeline names them)."""
    if len(files) == 1 and {workload_of_run(r) for r in runs} == {workload}:
        return files[0]
    named = [f for f in files if Path(f).name == f"{workload}.npz"]
    if not named:
        raise ValueError(f"{flag}: none of the {len(files)} file(s) given is {workload}.npz, "
                         f"the workload of run(s) {', '.join(r for r in runs if workload_of_run(r) == workload)}")
    return named[0]


def run_options(params, threads):
    """The declared options a run id's parameters (`params`) give drfbench.allocate, by
    name: its epsilon, its deadline ("none": None), its variant (the kernels' `name`) and
    `threads` for a method that runs threads (else 1).

    Returns
    -------
    dict
    """
    deadline = params[DEADLINE.name]
    return {EPSILON.name: params[EPSILON.name],
            DEADLINE.name: None if deadline == "none" else float(deadline),
            THREADS.name: threads if method_info(params["method"]).takes_option(THREADS.name)
            else 1,
            ISA.name: _isa.kernels(None if params[ISA.name] == "default" else
                                   params[ISA.name]).name}


def _measure(args, env, smt, sources):
    """The rows of the runs `args.run`, all of OpenMP environment `env`, measured here: set
    `env`, then load the kernels; each workload and its baseline (`sources`: {workload:
    (its file, its baseline's file)}) read once."""
    if openmp_loaded():
        raise RuntimeError("the OpenMP runtime was loaded before the run could set its "
                           "environment; nothing may load the kernels before cmd_run")
    os.environ.update(env)
    threads = int(env["OMP_NUM_THREADS"])
    inputs = {}

    def read(workload):
        if workload not in inputs:
            wl = workloads.load(sources[workload][0])
            base = np.load(sources[workload][1])
            inputs[workload] = wl, base, SimpleNamespace(
                rounds=int(base["rounds"]),
                allocation=allocation_from_levels(wl.demands, wl.weights, base["level"]))
        return inputs[workload]

    rows = []
    with open(args.log, "a") if args.log else open(os.devnull, "w") as log:
        for run in args.run:
            params = parse_run_id(run)
            head = {"sweep": args.sweep, "run": run}
            try:
                options = run_options(params, threads)
            except _isa.UnsupportedVariantError as exc:
                _progress(f"[{args.sweep}] {run}: skipped: {exc}", log)
                rows.append({**head, "repeat": "", **params, "skipped": str(exc),
                             **tidy.stamp(), "isa_variant": params[ISA.name], "isa_flags": ""})
                continue
            wl, base, baseline = read(workload_of_run(run))
            stamp = tidy.stamp(options[ISA.name])
            for repeat in range(args.repeats):
                res = allocate(wl.demands, params["method"], weights=wl.weights,
                               dtype=params["dtype"], **options)
                _progress(f"[{args.sweep}] {run} repeat {repeat + 1}/{args.repeats}: "
                          f"{res.elapsed:.4f} s, {res.rounds} rounds"
                          f"{' (timed out)' if res.timed_out else ''}", log)
                rows.append({**head, "repeat": repeat, **params, "skipped": "",
                             THREADS.name: res.threads,
                             "threads_run": threads, "oversubscribed": params["tpc"] == 2 and not smt,
                             "nnz": wl.nnz, "elapsed": res.elapsed, "timed_out": res.timed_out,
                             "baseline_method": str(base["method"]),
                             "baseline_rounds": int(base["rounds"]),
                             **metrics.compare(res, baseline), **stamp})
    return rows


def _measure_apart(args, groups):
    """The rows of the runs `args.run`, measured by one child process per group of runs
    (`groups`: run ids of one OpenMP environment each), in the batch's order; a child's
    failure (its message on stderr) ends this step with its status."""
    by_run = {}
    with tempfile.TemporaryDirectory() as folder:
        for i, runs in enumerate(groups):
            out = Path(folder, f"{i}.csv")
            command = [sys.executable, "-m", "drfbench.dcdrf", "run", "--sweep", args.sweep,
                       "--run", *runs, "--workload-file", *args.workload_file,
                       "--baseline-file", *args.baseline_file, "--repeats", str(args.repeats),
                       "--out", str(out), *(["--log", args.log] if args.log else [])]
            status = subprocess.run(command).returncode
            if status:
                raise SystemExit(status)
            with open(out, newline="") as f:    # each row's columns in the order written
                for row in csv.DictReader(f):
                    by_run.setdefault(row["run"], []).append(row)
    return [row for run in args.run for row in by_run[run]]


def cmd_extrapolate(args):
    """Fit the conventional method's time (Algorithm 1) as a power of (rounds x non-zeros),
    its work per round times rounds, over the finished scaling runs; predict every run of
    it that hit its budget."""
    done = [r for r in tidy.read_rows(args.scaling) if r["timed_out"] == "False"]
    x = np.log([int(r["baseline_rounds"]) * int(r["nnz"]) for r in done])
    y = np.log([float(r["elapsed"]) for r in done])
    if len(set(x)) < 2:
        raise SystemExit("fewer than two finished scaling points; raise scaling.budget")
    slope, intercept = np.polyfit(x, y, 1)
    pending = [r for path in (args.demands, args.scaling) for r in tidy.read_rows(path)
               if not r.get("skipped") and method_info(r["method"]).conventional
               and r["timed_out"] == "True" and r["repeat"] == "0"]
    fit = f"elapsed = exp({intercept:.4f}) * (rounds*nnz)^{slope:.4f}"
    keys = ("sweep", "run", "demand_profile", "tenants", "resources", "seed", "method", "nnz",
            "baseline_rounds")
    stamp = tidy.stamp()
    rows = [{**{k: r[k] for k in keys},
             "elapsed": math.exp(intercept + slope * math.log(int(r["baseline_rounds"]) * int(r["nnz"]))),
             "extrapolated": True, "fit": fit, "fit_points": len(done), **stamp} for r in pending]
    # no run to extrapolate: one row with the fit alone, under the full header
    tidy.write(rows or [{**dict.fromkeys(keys + ("elapsed",), ""), "extrapolated": True,
                         "fit": fit, "fit_points": len(done), **stamp}], args.out)


STEPS = {"workload": "generate one workload file",
         "baseline": "exact allocation levels of a workload",
         "run": "measure configurations, one row per repetition each",
         "extrapolate": "Algorithm 1 time at scales past the budget"}
BODIES = {"workload": cmd_workload, "baseline": cmd_baseline, "run": cmd_run,
          "extrapolate": cmd_extrapolate}


def arguments(sub):
    """The steps' flags, added to their parsers (`sub`: step -> its parser)."""
    a = sub["workload"]
    a.add_argument("--workload", required=True, help="PROFILE-TENANTSxRESOURCES-sSEED")
    a.add_argument("--out", type=output, required=True)
    a = sub["baseline"]
    a.add_argument("--workload-file", type=input_file, required=True)
    a.add_argument("--method", required=True)
    a.add_argument("--out", type=output, required=True)
    a = sub["run"]
    a.add_argument("--sweep", required=True, choices=SWEEPS)
    a.add_argument("--run", required=True, nargs="+", help="run ids (see run_id), measured in order")
    a.add_argument("--workload-file", type=input_file, required=True, nargs="+",
                   help="the runs' workloads: one file, or each named <workload>.npz")
    a.add_argument("--baseline-file", type=input_file, required=True, nargs="+",
                   help="their exact baselines: one file, or each named <workload>.npz")
    a.add_argument("--repeats", type=COUNT, default=3)
    a.add_argument("--out", type=output, required=True)
    a.add_argument("--log", type=output, help="progress lines, appended (kept if the run fails)")
    a = sub["extrapolate"]
    a.add_argument("--scaling", type=input_file, required=True)
    a.add_argument("--demands", type=input_file, required=True,
                   help="the demand-profile sweep's rows")
    a.add_argument("--out", type=output, required=True)


def main(argv=None):
    """The sweeps' steps on their own (python -m drfbench.dcdrf has them beside the others)."""
    p, sub = steps("dcdrf", __doc__.split("\n\n")[0], STEPS, flags=())
    arguments(sub)
    run_step(p, lambda args: BODIES[args.command](args), argv)
