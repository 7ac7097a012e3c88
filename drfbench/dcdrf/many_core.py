"""The many-core reference set (reference/many-core/, issue 38): the `drfbench bench` runs a
configuration file lists, one tidy CSV each, so that any many-core machine reruns the set
REPRODUCTION rows 6-8, 10, 19 and 21 read:

    python -m drfbench.build_variants --skip-unsupported all && \\
    python -m drfbench.dcdrf many-core --config workflows/config/many-core.yaml \\
        --out reference/many-core/<machine>-<date>

The file's `runs` maps a CSV's name (`{isa}` in it: one file per kernel variant) to the
`drfbench bench` options that write it (OPTIONS); an option at the top level applies to
every run that does not set it. Each run is its own process with OMP_PROC_BIND=close and
OMP_PLACES=`places` (`cores`, or `threads` to put two threads on an SMT core), so OpenMP
places the threads as asked. A variant this CPU cannot run is skipped with a line saying so;
`lscpu`'s report goes to machine.txt beside the CSVs. --out is a new folder, in place only
once every run is done.
"""
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import _inputs, _isa
from .._command import flag, input_file
from ..api import ISA
from . import bench

# `drfbench bench`'s flags a run does not set: its input and output, its baseline, and the
# kernel variant (`isas`, below)
NOT_SET = ("help", "workload", "baseline", "csv", ISA.name)


def bench_options():
    """option -> (kind, the `drfbench bench` flag), for each flag of its parser a run sets,
    named as the flag is (--demand-profile: demand_profile), in the parser's order: a "flag"
    (true or false), a "list" (its values comma-separated, bench.comma_list) or a "value"."""
    options = {}
    for action in bench.parser()._actions:
        name = max(action.option_strings, key=len)
        key = name.lstrip("-").replace("-", "_")
        if key not in NOT_SET:
            options[key] = ("flag" if action.nargs == 0 else
                            "list" if getattr(action.type, "comma", False) else "value", name)
    return options


OPTIONS = bench_options()
# options of the run itself, not of `drfbench bench`
OWN = {"isas": "kernel variants, one run (and, with {isa} in the name, one file) each",
       "places": "OMP_PLACES: cores or threads"}


def plan(config, out):
    """[(csv path, environment additions, `drfbench bench` arguments)] for the runs of
    `config` (a dict, or a YAML/JSON file), writing under folder `out`; a ValueError naming
    the run and the option for anything the file gets wrong, a variant the CPU cannot run
    left out with a line on stderr."""
    return _inputs.built(config, "many-core configuration", lambda spec: _plan(spec, Path(out)))


def _plan(spec, out):
    if not isinstance(spec, dict) or not isinstance(spec.get("runs"), dict) or not spec["runs"]:
        raise ValueError("needs `runs`: a mapping of file names to `drfbench bench` options")
    shared = {k: v for k, v in spec.items() if k != "runs"}
    runs = []
    for name, own in spec["runs"].items():
        where = f"runs.{name}"
        if Path(str(name)).name != str(name) or str(name) in ("", ".", ".."):
            raise ValueError(f"{where}: a file's name, not a path")
        if not isinstance(own, dict):
            raise ValueError(f"{where}: a mapping of options, not {own!r}")
        options = {**shared, **own}
        unknown = sorted(set(options) - set(OPTIONS) - set(OWN))
        if unknown:
            raise ValueError(f"{where}: unknown option(s) {', '.join(unknown)} (options: "
                             f"{', '.join([*OPTIONS, *OWN])})")
        places = options.get("places", "cores")
        if places not in ("cores", "threads"):
            raise ValueError(f"{where}: places is cores or threads, not {places!r}")
        isas = options.get("isas", [None])
        isas = isas if isinstance(isas, list) else [isas]
        if not isas or not all(isinstance(isa, str) for isa in isas if isa is not None):
            raise ValueError(f"{where}: isas names kernel variants ({', '.join(_isa.VARIANTS)}), "
                             f"not {options['isas']!r}")
        if len(isas) > 1 and "{isa}" not in str(name):
            raise ValueError(f"{where}: {len(isas)} variants need {{isa}} in the file's name")
        for isa in isas:
            if isa is not None and isa in _isa.VARIANTS and _isa.missing_features(isa):
                print(f"many-core: {where} skips {isa}: this CPU lacks "
                      f"{', '.join(sorted(_isa.missing_features(isa)))}", file=sys.stderr)
                continue
            path = out / (str(name).replace("{isa}", str(isa)) + ".csv")
            argv = _arguments(options, where) + ([] if isa is None else [flag(ISA.name), isa])
            _check(argv, where)
            runs.append((path, {"OMP_PROC_BIND": "close", "OMP_PLACES": places},
                         argv + ["--csv", str(path)]))
    return runs


def _arguments(options, where):
    """The `drfbench bench` arguments for `options`."""
    argv = []
    for key, (kind, flag) in OPTIONS.items():
        if key not in options:
            continue
        value = options[key]
        if kind == "flag":
            if not isinstance(value, bool):
                raise ValueError(f"{where}: {key} is true or false, not {value!r}")
            argv += [flag] if value else []
        elif isinstance(value, dict) or (kind == "value" and isinstance(value, list)):
            raise ValueError(f"{where}: {key} is one value, not {value!r}")
        else:
            argv += [flag, ",".join(map(str, value)) if isinstance(value, list) else str(value)]
    return argv


def _check(argv, where):
    """Refuse what `drfbench bench` would refuse (its message, named by the run) before any
    run starts."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            bench.parse_args(argv)
    except SystemExit:
        message = said.getvalue().strip().partition("error: ")[2] or said.getvalue().strip()
        raise ValueError(f"{where}: {message}") from None


def step(args):
    """Run every run of --config, in order, into a new folder --out: written beside it under
    a temporary name and renamed once every run is done (a failed run leaves nothing)."""
    out = Path(args.out)
    if out.exists():
        raise ValueError(f"--out {out} exists: name a new folder (a set is never written over)")
    if not out.parent.is_dir():
        raise ValueError(f"--out {out}: its folder {out.parent} does not exist")
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        runs = plan(args.config, work)
        if shutil.which("lscpu"):
            machine = work / "machine.txt"
            machine.write_text(subprocess.run(
                ["lscpu"], capture_output=True, text=True, check=True).stdout)
        for path, env, argv in runs:
            print(f"many-core: {path.name}: drfbench bench {' '.join(argv[:-2])}",
                  file=sys.stderr)
            subprocess.run([sys.executable, "-m", "drfbench", "bench", *argv],
                           env={**os.environ, **env}, check=True)
        work.rename(out)
    except BaseException as exc:
        shutil.rmtree(work)
        if isinstance(exc, subprocess.CalledProcessError):
            print(f"many-core: the run of {Path(exc.cmd[-1]).name} failed (status "
                  f"{exc.returncode}); nothing written", file=sys.stderr)
            raise SystemExit(exc.returncode) from None
        raise
    return out


def arguments(p):
    p.add_argument("--config", type=input_file, required=True, help="the runs (YAML or JSON): "
                   "workflows/config/many-core.yaml")
    p.add_argument("--out", required=True, help="the new folder the CSVs go to")
