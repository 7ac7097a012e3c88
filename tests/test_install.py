"""A core install, `pip install .` from this checkout with no extras (not editable, into a
new virtual environment), imports every public module and runs every family's command
line (each step's --help) and every loader of the data shipped with it; the figure and
workflow packages stay out of it."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow      # it builds the kernels into a new environment
PACKAGE = ROOT / "drfbench"
# files under drfbench/ that are not package data: sources and build products
NOT_DATA = (".py", ".pyx", ".pxd", ".c", ".h", ".so", ".pyc")
NOT_CORE = ("matplotlib", "seaborn", "snakemake", "jupytext", "papermill")
# the new environment's Python sees only what is installed in it
ISOLATED = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def public_modules():
    """Every drfbench module and package no part of whose name starts with `_`."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if not any(part.startswith("_") for part in parts):
            names.add(".".join(parts))
    return sorted(names)


def command_lines():
    """The packages run as `python -m drfbench.<name>`."""
    return sorted(".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__main__.py"))


def package_data():
    """Every data file under drfbench/ (the vendored traces the loaders read), relative to
    drfbench/."""
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*")
                  if p.is_file() and p.suffix not in NOT_DATA and "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def core_python(tmp_path_factory):
    """The Python of a new virtual environment with drfbench installed from the checkout,
    no extras. pip may fetch the core dependencies from the package index."""
    venv = tmp_path_factory.mktemp("core") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin/python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(ROOT)],
                             capture_output=True, text=True, env=ISOLATED)
    assert install.returncode == 0, f"pip install . failed:\n{install.stdout[-3000:]}{install.stderr[-3000:]}"
    return python


def run(python, tmp_path, *args):
    """Run in an empty folder, so that the installed drfbench is imported, not the checkout's."""
    return subprocess.run([str(python), *args], cwd=tmp_path, capture_output=True, text=True,
                          env=ISOLATED)


def test_every_public_module_imports(core_python, tmp_path):
    modules = public_modules()
    assert "drfbench.properties" in modules and "drfbench.drfh" in modules
    code = ("import importlib, importlib.util, sys\n"
            f"failed = {{}}\nfor name in {modules!r}:\n"
            "    try:\n        importlib.import_module(name)\n"
            "    except Exception as exc:\n        failed[name] = repr(exc)\n"
            "assert importlib.import_module('drfbench').__file__.startswith(sys.prefix)\n"
            f"present = [m for m in {NOT_CORE!r} if importlib.util.find_spec(m)]\n"
            "print(failed, present)\n")
    done = run(core_python, tmp_path, "-c", code)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "{} []", f"(modules that failed to import, packages not in the core): {done.stdout}"


@pytest.mark.parametrize("name", command_lines())
def test_every_command_line_answers_help(core_python, tmp_path, name):
    done = run(core_python, tmp_path, "-m", name, "--help")
    assert done.returncode == 0 and "usage:" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


def test_a_variant_that_was_not_built_names_the_command_that_builds_it(core_python, tmp_path):
    """The default build has no scalar variant: asking for it names the command, and that
    command, in an install that is not a checkout, says how to get it instead."""
    done = run(core_python, tmp_path, "-c", "import drfbench; drfbench.allocate([[0.5]], isa='scalar')")
    assert "'scalar' (isa argument) was not built here; build it with: " \
           "python -m drfbench.build_variants scalar" in done.stderr, done.stderr[-2000:]
    done = run(core_python, tmp_path, "-m", "drfbench.build_variants", "scalar")
    assert done.returncode == 2 and "not from a source checkout" in done.stderr
    assert "DRFBENCH_VARIANTS=scalar pip install CHECKOUT" in done.stderr, done.stderr


@pytest.mark.parametrize("name", command_lines())
def test_every_step_answers_help(core_python, tmp_path, name):
    """Each step of each `python -m drfbench.<name>` (the choices its usage lists) answers
    --help from the install."""
    usage = run(core_python, tmp_path, "-m", name, "--help").stdout
    steps = re.search(r"\{([\w,-]+)\}", usage)
    for step in steps.group(1).split(",") if steps else ():
        done = run(core_python, tmp_path, "-m", name, step, "--help")
        assert done.returncode == 0 and "usage:" in done.stdout, \
            f"{name} {step} --help:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"


def test_the_package_data_is_installed_and_its_loaders_read_it(core_python, tmp_path):
    """Every data file of the checkout's package is in the install, and each loader that
    reads it (DRFH's trace converters, through the API and the command) works there."""
    files = package_data()
    assert "drfh/data/google2011_machine_configs.csv" in files
    code = ("import pathlib, drfbench\n"
            "root = pathlib.Path(drfbench.__file__).parent\n"
            f"print([f for f in {files!r} if not (root / f).is_file()])\n"
            "from drfbench import drfh\n"
            "print(len(drfh.google_servers(3)), len(drfh.alibaba_tasks(fraction=0.01)) > 0)\n")
    done = run(core_python, tmp_path, "-c", code)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[:2] == ["[]", "3 True"], f"(data files missing, loaders): {done.stdout}"
    for source, options in (("google", ["--servers", "3"]), ("alibaba", ["--fraction", "0.01"])):
        out = tmp_path / f"{source}.csv"
        done = run(core_python, tmp_path, "-m", "drfbench.drfh", "convert", source, *options,
                   "--out", str(out))
        assert done.returncode == 0 and out.stat().st_size > 0, done.stderr[-3000:]
