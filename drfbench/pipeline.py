"""The steps the Snakemake pipeline runs (workflows/*.smk), as one command-line tool.

    python -m drfbench.pipeline workload --workload G0-5000x500-s0 --out W.npz
    python -m drfbench.pipeline baseline --workload-file W.npz --method edrf --out B.npz
    python -m drfbench.pipeline run --family configs --run RUN_ID --workload-file W.npz \\
        --baseline-file B.npz --repeats 3 --out rows.csv --log run.log
    python -m drfbench.pipeline gather --out family.csv rows1.csv rows2.csv ...
    python -m drfbench.pipeline extrapolate --scaling scaling.csv --profiles profiles.csv --out X.csv

A run is named by its run id, "key~value" pairs joined by "_" (Snakemake's Paramspace
style), so that a rule needs only the id: `grid(config)` expands the config's sweeps into
run ids per experiment family. Each measured repetition becomes one tidy row: every
parameter, the kernel's results, the metrics against the exact baseline, and provenance.
Outputs are written to a temporary file and renamed, so nothing half-written is left.
"""
import argparse
import csv
import datetime
import itertools
import math
import os
import platform
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

FAMILIES = ("configs", "profiles", "deadlines", "scaling")
# Run parameters in id order, with their types; absent ones take DEFAULTS.
PARAMS = {"profile": str, "tenants": int, "resources": int, "seed": int, "method": str,
          "epsilon": float, "deadline": str, "dtype": str, "isa": str, "cores": str,
          "tpc": int}
REEXEC_MARK = "DRFBENCH_RUN_ENV"   # set in the re-started process of `run`
DEFAULTS = {"epsilon": 0.0, "deadline": "none", "dtype": "float32", "isa": "default",
            "cores": "all", "tpc": 1}


def workload_name(profile, tenants, resources, seed):
    return f"{profile}-{tenants}x{resources}-s{seed}"


def parse_workload_name(name):
    profile, scale, seed = name.split("-")
    tenants, resources = scale.split("x")
    return profile, int(tenants), int(resources), int(seed[1:])


def run_id(params):
    """'key~value' pairs joined by '_' in PARAMS order (values never contain '_' or '~')."""
    full = {**DEFAULTS, **params}
    return "_".join(f"{k}~{full[k]}" for k in PARAMS)


def parse_run_id(text):
    pairs = dict(part.split("~", 1) for part in text.split("_"))
    if set(pairs) != set(PARAMS):
        raise ValueError(f"run id {text!r} does not name exactly the parameters {', '.join(PARAMS)}")
    return {k: PARAMS[k](v) for k, v in pairs.items()}


def grid(config, runnable_isas):
    """{family: [run id, ...]} for every sweep in the config; ISA variants this CPU cannot
    run are left out (and reported by `skipped_isas`)."""
    seed, runs = config["seed"], {}
    c = config.get("configs")
    if c:
        runs["configs"] = [
            run_id(dict(profile=c["profile"], tenants=c["tenants"], resources=c["resources"],
                        seed=seed, method=c["method"], epsilon=c["epsilon"], dtype=dtype,
                        isa=isa, cores=cores, tpc=tpc))
            for dtype, isa, cores, tpc in itertools.product(
                c["dtypes"], [i for i in c["isas"] if i in runnable_isas], c["cores"],
                c["threads_per_core"])]
    p = config.get("profiles")
    if p:
        runs["profiles"] = [
            run_id(dict(profile=prof, tenants=p["tenants"], resources=p["resources"], seed=seed,
                        method=method, epsilon=eps,
                        deadline=p["budget"] if method == "edrf" else "none"))
            for prof in p["profiles"] for method in p["methods"]
            for eps in (p["epsilons"] if method == "dcdrf" else [0.0])]
    d = config.get("deadlines")
    if d:
        runs["deadlines"] = [
            run_id(dict(profile=d["profile"], tenants=d["tenants"], resources=d["resources"],
                        seed=seed, method=method, epsilon=eps, deadline=deadline))
            for method in d["methods"] for deadline in d["deadlines"]
            for eps in (d["epsilons"] if method in ("dcdrf", "sdcdrf") else [0.0])]
    s = config.get("scaling")
    if s:
        runs["scaling"] = [
            run_id(dict(profile=s["profile"], tenants=ratio * resources, resources=resources,
                        seed=seed, method="edrf", deadline=s["budget"]))
            for ratio in s["ratios"] for resources in s["resources"]]
    return runs


def skipped_isas(config, runnable_isas):
    return [i for i in config.get("configs", {}).get("isas", []) if i not in runnable_isas]


def workload_of_run(run):
    """The workload name a run id needs."""
    p = parse_run_id(run)
    return workload_name(p["profile"], p["tenants"], p["resources"], p["seed"])


def omp_environment(cores, tpc, smt):
    """OMP_* settings for `cores` cores ('all' or a count) at `tpc` threads per core.
    Without SMT, 2 threads per core oversubscribes the cores (the paper's hyperthreading
    axis run anyway, labelled as such)."""
    logical = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    physical = logical // 2 if smt else logical
    n_cores = physical if cores == "all" else min(int(cores), physical)
    # n places (cores, or hardware threads with SMT at 2 per core), so that cores=1 at 2
    # threads per core runs both threads on one core
    places = f"threads({n_cores * tpc})" if (smt and tpc == 2) else f"cores({n_cores})"
    return {"OMP_NUM_THREADS": str(n_cores * tpc), "OMP_PLACES": places,
            "OMP_PROC_BIND": "close"}


def git_commit():
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def provenance(kernels, threads):
    from . import config
    info = config()
    return {"git_commit": git_commit(), "drfbench_version": info["drfbench"],
            "cpu_model": info["cpu_model"], "cpu_count": os.cpu_count(), "isa_variant": kernels.name,
            "isa_flags": kernels.compile_flags, "smt_present": info["smt"],
            "threads_run": threads, "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
            "omp_places": os.environ.get("OMP_PLACES", ""),
            "omp_proc_bind": os.environ.get("OMP_PROC_BIND", ""), "host": platform.node(),
            "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""),
            "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def write_csv(rows, out):
    """Write rows (dicts with the same keys) to `out` atomically."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "w", newline="") as f:
            if rows:
                writer = csv.DictWriter(f, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def save_npz(out, **arrays):
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}.npz")
    try:
        np.savez(tmp, **arrays)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def exact_allocation(demands, weights, level):
    """Rebuild A_ir = rho_i * d_ir * z_i (Algorithm 2 line 23) from a baseline's levels."""
    from ._validation import csr_from_arrays
    D = demands.astype(np.float64)
    rows = np.repeat(np.arange(D.shape[0]), np.diff(D.indptr))
    peak = np.zeros(D.shape[0])
    np.maximum.at(peak, rows, D.data)
    w = np.ones(D.shape[0]) if weights is None else weights
    factor = np.divide(w * level, peak, out=np.zeros_like(peak), where=peak > 0)
    return csr_from_arrays(D.data * factor[rows], D.indices, D.indptr, D.shape)


def cmd_workload(args):
    from . import workloads
    profile, tenants, resources, seed = parse_workload_name(args.workload)
    wl = workloads.generate(profile, tenants, resources, seed=seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    workloads.save(wl, args.out)


def cmd_baseline(args):
    from . import allocate, workloads
    wl = workloads.load(args.workload_file)
    res = allocate(wl.demands, args.method, weights=wl.weights, dtype=np.float64)
    save_npz(args.out, level=res.level, rounds=res.rounds, elapsed=res.elapsed,
             method=np.array(args.method))


def cmd_run(args):
    params = parse_run_id(args.run)
    from . import _isa, config
    if os.environ.get(REEXEC_MARK) != args.run:
        # OpenMP reads its environment once, when the kernels load: start again with it set.
        # Decided here, before OMP_PROC_BIND pins this process to one place.
        env = omp_environment(params["cores"], params["tpc"], bool(config()["smt"]))
        os.execve(sys.executable, [sys.executable, "-m", "drfbench.pipeline"] + sys.argv[1:],
                  {**os.environ, **env, REEXEC_MARK: args.run})
    env = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND")}
    from . import allocate, metrics, workloads
    kernels = _isa.kernels(None if params["isa"] == "default" else params["isa"])
    wl = workloads.load(args.workload_file)
    base = np.load(args.baseline_file)
    baseline = SimpleNamespace(rounds=int(base["rounds"]),
                               allocation=exact_allocation(wl.demands, wl.weights, base["level"]))
    threads = int(env["OMP_NUM_THREADS"])
    deadline = None if params["deadline"] == "none" else float(params["deadline"])
    stamp = provenance(kernels, threads)
    stamp["oversubscribed"] = params["tpc"] == 2 and not stamp["smt_present"]
    rows = []
    with open(args.log, "a") if args.log else open(os.devnull, "w") as log:
        for repeat in range(args.repeats):
            res = allocate(wl.demands, params["method"], weights=wl.weights,
                           epsilon=params["epsilon"], deadline=deadline,
                           threads=threads if allocate_threads(params["method"]) else None,
                           dtype=params["dtype"], isa=kernels.name)
            line = (f"[{args.family}] {args.run} repeat {repeat + 1}/{args.repeats}: "
                    f"{res.elapsed:.4f} s, {res.rounds} rounds{' (timed out)' if res.timed_out else ''}")
            print(line, file=sys.stderr, flush=True)
            print(line, file=log, flush=True)
            rows.append({"family": args.family, "run": args.run, "repeat": repeat, **params,
                         "threads": res.threads, "nnz": wl.nnz, "elapsed": res.elapsed,
                         "timed_out": res.timed_out, "baseline_method": str(base["method"]),
                         "baseline_rounds": int(base["rounds"]),
                         **metrics.compare(res, baseline), **stamp})
    write_csv(rows, args.out)


def allocate_threads(method):
    from .api import method_info
    return method_info(method).multithreaded


def cmd_gather(args):
    rows = []
    for path in args.inputs:
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(f))
    write_csv(rows, args.out)


def cmd_extrapolate(args):
    """Fit Algorithm 1's time as a power of (rounds x non-zeros), its work per round times
    rounds, over the finished scaling runs; predict every `edrf` run that hit its budget."""
    def read(path):
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    done = [r for r in read(args.scaling) if r["timed_out"] == "False"]
    x = np.log([int(r["baseline_rounds"]) * int(r["nnz"]) for r in done])
    y = np.log([float(r["elapsed"]) for r in done])
    if len(set(x)) < 2:
        raise SystemExit("extrapolate: fewer than two finished scaling points; raise scaling.budget")
    slope, intercept = np.polyfit(x, y, 1)
    pending = [r for path in (args.profiles, args.scaling) for r in read(path)
               if r["method"] == "edrf" and r["timed_out"] == "True" and r["repeat"] == "0"]
    fit = f"elapsed = exp({intercept:.4f}) * (rounds*nnz)^{slope:.4f}"
    keys = ("family", "run", "profile", "tenants", "resources", "seed", "method", "nnz",
            "baseline_rounds")
    rows = [{**{k: r[k] for k in keys},
             "elapsed": math.exp(intercept + slope * math.log(int(r["baseline_rounds"]) * int(r["nnz"]))),
             "extrapolated": True, "fit": fit, "fit_points": len(done)} for r in pending]
    # no run to extrapolate: one row with the fit alone, under the full header
    write_csv(rows or [{**dict.fromkeys(keys + ("elapsed",), ""), "extrapolated": True,
                        "fit": fit, "fit_points": len(done)}], args.out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m drfbench.pipeline", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("workload", help="generate one workload file")
    a.add_argument("--workload", required=True, help="PROFILE-TENANTSxRESOURCES-sSEED")
    a.add_argument("--out", required=True)
    a = sub.add_parser("baseline", help="exact allocation levels of a workload")
    a.add_argument("--workload-file", required=True)
    a.add_argument("--method", required=True)
    a.add_argument("--out", required=True)
    a = sub.add_parser("run", help="measure one configuration, one row per repetition")
    a.add_argument("--family", required=True, choices=FAMILIES)
    a.add_argument("--run", required=True, help="run id (see run_id)")
    a.add_argument("--workload-file", required=True)
    a.add_argument("--baseline-file", required=True)
    a.add_argument("--repeats", type=int, default=3)
    a.add_argument("--out", required=True)
    a.add_argument("--log")
    a = sub.add_parser("gather", help="concatenate row files")
    a.add_argument("--out", required=True)
    a.add_argument("inputs", nargs="*")
    a = sub.add_parser("extrapolate", help="Algorithm 1 time at scales past the budget")
    a.add_argument("--scaling", required=True)
    a.add_argument("--profiles", required=True)
    a.add_argument("--out", required=True)
    args = p.parse_args(argv)
    # SLURM's scancel and Snakemake send SIGTERM: exit through Python, so that the
    # temporary files of an unfinished write are removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    {"workload": cmd_workload, "baseline": cmd_baseline, "run": cmd_run, "gather": cmd_gather,
     "extrapolate": cmd_extrapolate}[args.command](args)


if __name__ == "__main__":
    main()
