"""Shared test cases: random small instances for the comparisons with the literal transcriptions (drfbench.dcdrf.literal), the
seeds of the random-instance tests, the result fields those comparisons name (conftest's
assert_same), a task policy by slot count, and the families' part of a tiny pipeline config."""
import numpy as np
import pytest

from conftest import ROOT
from drfbench import drf

SAMPLE = 20   # random instances a test runs by default; the rest are marked slow


def seeds(count):
    """Seeds 0 .. count-1 as the parameters of a random-instance test: the first SAMPLE (a
    sample that still meets every case the seed picks by its residue) run by default, the
    others are marked slow (`pytest -m slow` runs them)."""
    return [seed if seed < SAMPLE else pytest.param(seed, marks=pytest.mark.slow)
            for seed in range(count)]


def random_instance(rng):
    """A small instance with zero entries, ties (values on a coarse grid), all-zero rows,
    identical rows and identical columns, often with weights; sometimes one tenant or
    one resource."""
    n, m = int(rng.integers(1, 10)), int(rng.integers(1, 8))
    if rng.random() < 0.1:
        n = 1
    elif rng.random() < 0.1:
        m = 1
    grid = rng.random() < 0.5
    values = rng.integers(1, 9, size=(n, m)) / 8 if grid else rng.random((n, m))
    D = np.where(rng.random((n, m)) < rng.uniform(0.2, 0.9), values, 0.0)
    if n > 1 and rng.random() < 0.3:
        D[rng.integers(n)] = D[rng.integers(n)]           # identical rows
    if m > 1 and rng.random() < 0.2:
        D[:, rng.integers(m)] = D[:, rng.integers(m)]     # identical columns: tied resources
    if rng.random() < 0.2:
        D[rng.integers(n)] = 0.0                          # an all-zero row
    weights = None if rng.random() < 0.5 else rng.integers(1, 4, size=n).astype(float)
    return D, weights


# the fields of a DC-DRF result that drfbench.dcdrf.literal's functions return, in order
DCDRF_FIELDS = ("allocation", "level", "rounds", "timed_out")
# the fields of a drfbench.sim result, each the same in the kernel's and the literal loop's
SIM_FIELDS = ("end", "events", "users", "resources", "samples", "completions", "jobs", "tasks",
              "unschedulable", "pending", "rows")


def task_policy(demands, machines, slots):
    """Online DRF for slots=0, else the slot scheduler with that many slots per machine."""
    return (drf.scheduler(demands, machines, "hadoop-slots", slots=slots) if slots else
            drf.scheduler(demands, machines))


# the figure notebooks' rules, one a family (notebooks/<family>_*.py): `--omit-from` them runs
# a pipeline up to every family's rows
NOTEBOOK_RULES = sorted({f"notebooks_{p.stem.split('_')[0]}" for p in (ROOT / "notebooks").glob("*.py")})


def few_instances(config):
    """A pipeline config (the smoke profile) with every family but DC-DRF's sweeps at a few
    instances, and DC-DRF's controller at 600 x 60: the tests' tiny pipeline runs."""
    config["dcdrf"]["controller"].update(tenants=600, resources=60)
    config["drf"]["instances"] = config["hdrf"]["instances"] = 3
    config["drfh"]["properties"]["instances"] = 2
    return config
