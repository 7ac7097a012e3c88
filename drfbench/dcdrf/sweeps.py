"""The DC-DRF paper's configuration sweeps as pipeline steps (workflows/rules/dcdrf_*.smk).

    python -m drfbench.dcdrf workload --workload G0-5000x500-s0 --out W.npz
    python -m drfbench.dcdrf baseline --workload-file W.npz --method edrf-event --out B.npz
    python -m drfbench.dcdrf run --sweep configs --run RUN_ID --workload-file W.npz \\
        --baseline-file B.npz --repeats 3 --out rows.csv --log run.log
    python -m drfbench.dcdrf extrapolate --scaling scaling.csv --demands demands.csv --out X.csv

A run is named by its run id, "key~value" pairs joined by "+" (Snakemake's Paramspace
style), so that a rule needs only the id: `grid(config)` expands the config's sweeps into
run ids per sweep, asking the registry which methods take epsilon and which is the
conventional baseline. Each measured repetition becomes one tidy row (drfbench.rows):
every parameter, the kernel's results, the metrics against the exact baseline, provenance.
"""
import itertools
import math
import os
import sys
from types import SimpleNamespace

import numpy as np

from .. import _isa
from .. import rows as tidy
from .._command import COUNT, input_file, output, run_step, steps
from .._io import replacing
from .._machine import cpu_info, omp_environment, openmp_loaded
from ..api import method_info
from . import metrics, workloads
from .demands import allocate
from .methods import allocation_from_levels

SWEEPS = ("configs", "demands", "deadlines", "scaling")
# Run parameters in id order, with their types; absent ones take DEFAULTS.
PARAMS = {"demand_profile": str, "tenants": int, "resources": int, "seed": int, "method": str,
          "epsilon": float, "deadline": str, "dtype": str, "isa": str, "cores": str,
          "tpc": int}
DEFAULTS = {"epsilon": 0.0, "deadline": "none", "dtype": "float32", "isa": "default",
            "cores": "all", "tpc": 1}


def workload_name(demand_profile, tenants, resources, seed):
    return f"{demand_profile}-{tenants}x{resources}-s{seed}"


def parse_workload_name(name):
    """PROFILE-TENANTSxRESOURCES-sSEED (workload_name's) as (profile, tenants, resources,
    seed); a ValueError naming the expected form otherwise."""
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
    """'key~value' pairs joined by '+' in PARAMS order (values never contain '+' or '~'; a
    comma would break Snakemake's SLURM executor, which passes wildcards as w=v,w=v)."""
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
        if named not in methods or not method_info(named).takes_option("epsilon"):
            raise ValueError(f"epsilons given for {named!r}, which the sweep does not run or "
                             "which takes no epsilon")
    return epsilons.get(method, [0.0])


def grid(config):
    """{sweep: [run id, ...]} for every sweep in the config (its `dcdrf` key; `seed` is the
    config's). Every kernel variant named is in the grid: a variant the executing CPU
    cannot run is skipped by its job, which says so in its row, so the machine that reads
    the workflow decides nothing."""
    dcdrf, seed, runs = config["dcdrf"], config["seed"], {}
    c = dcdrf.get("configs")
    if c:
        runs["configs"] = [
            run_id(dict(demand_profile=c["demand_profile"], tenants=c["tenants"],
                        resources=c["resources"], seed=seed, method=c["method"],
                        epsilon=c["epsilon"], dtype=dtype, isa=isa, cores=cores, tpc=tpc))
            for dtype, isa, cores, tpc in itertools.product(
                c["dtypes"], c["isas"], c["cores"], c["threads_per_core"])]
    p = dcdrf.get("demands")
    if p:
        runs["demands"] = [
            run_id(dict(demand_profile=prof, tenants=p["tenants"], resources=p["resources"],
                        seed=seed, method=method, epsilon=eps,
                        deadline=p["budget"] if method_info(method).conventional else "none"))
            for prof in p["demand_profiles"] for method in p["methods"]
            for eps in _epsilons(method, p["epsilons"], p["methods"])]
    d = dcdrf.get("deadlines")
    if d:
        runs["deadlines"] = [
            run_id(dict(demand_profile=d["demand_profile"], tenants=d["tenants"],
                        resources=d["resources"], seed=seed, method=method, epsilon=eps,
                        deadline=deadline))
            for method in d["methods"] for deadline in d["deadlines"]
            for eps in _epsilons(method, d["epsilons"], d["methods"])]
    s = dcdrf.get("scaling")
    if s:
        runs["scaling"] = [
            run_id(dict(demand_profile=s["demand_profile"], tenants=ratio * resources,
                        resources=resources, seed=seed, method=s["method"],
                        deadline=s["budget"]))
            for ratio in s["ratios"] for resources in s["resources"]]
    return runs


def workload_of_run(run):
    """The workload name a run id needs."""
    p = parse_run_id(run)
    return workload_name(p["demand_profile"], p["tenants"], p["resources"], p["seed"])


def variant_marker(name, run):
    """The file marking that the kernel variant a run id names is built (the pipeline's
    rule kernel_variant), or none for the default variant."""
    isa = parse_run_id(run)["isa"]
    return [] if isa == "default" else [f"results/{name}/dcdrf/variants/{isa}.built"]


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
    """Measure one configuration: set OpenMP's environment from the run's cores and threads
    per core, then load the kernels (OpenMP reads its environment once, when it starts),
    and time `repeats` runs, one row each."""
    params = parse_run_id(args.run)
    if openmp_loaded():
        raise RuntimeError("the OpenMP runtime was loaded before the run could set its "
                           "environment; nothing may load the kernels before cmd_run")
    smt = bool(cpu_info()[2])
    env = omp_environment(params["cores"], params["tpc"], smt)
    os.environ.update(env)
    threads = int(env["OMP_NUM_THREADS"])
    head = {"sweep": args.sweep, "run": args.run}
    with open(args.log, "a") if args.log else open(os.devnull, "w") as log:
        try:
            kernels = _isa.kernels(None if params["isa"] == "default" else params["isa"])
        except _isa.UnsupportedVariantError as exc:
            _progress(f"[{args.sweep}] {args.run}: skipped: {exc}", log)
            tidy.write([{**head, "repeat": "", **params, "skipped": str(exc),
                         **tidy.stamp(), "isa_variant": params["isa"], "isa_flags": ""}],
                       args.out)
            return
        wl = workloads.load(args.workload_file)
        base = np.load(args.baseline_file)
        baseline = SimpleNamespace(rounds=int(base["rounds"]),
                                   allocation=allocation_from_levels(wl.demands, wl.weights,
                                                                     base["level"]))
        deadline = None if params["deadline"] == "none" else float(params["deadline"])
        method = method_info(params["method"])
        stamp = tidy.stamp(isa=kernels.name)
        rows = []
        for repeat in range(args.repeats):
            res = allocate(wl.demands, method.name, weights=wl.weights, epsilon=params["epsilon"],
                           deadline=deadline, threads=threads if method.takes_option("threads") else 1,
                           dtype=params["dtype"], isa=kernels.name)
            _progress(f"[{args.sweep}] {args.run} repeat {repeat + 1}/{args.repeats}: "
                      f"{res.elapsed:.4f} s, {res.rounds} rounds"
                      f"{' (timed out)' if res.timed_out else ''}", log)
            rows.append({**head, "repeat": repeat, **params, "skipped": "", "threads": res.threads,
                         "threads_run": threads, "oversubscribed": params["tpc"] == 2 and not smt,
                         "nnz": wl.nnz, "elapsed": res.elapsed, "timed_out": res.timed_out,
                         "baseline_method": str(base["method"]),
                         "baseline_rounds": int(base["rounds"]),
                         **metrics.compare(res, baseline), **stamp})
    tidy.write(rows, args.out)


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
         "run": "measure one configuration, one row per repetition",
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
    a.add_argument("--run", required=True, help="run id (see run_id)")
    a.add_argument("--workload-file", type=input_file, required=True)
    a.add_argument("--baseline-file", type=input_file, required=True)
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
