"""What every test folder shares: the checkout's root and the comparison of a result with
its expected twin (a kernel's with its literal transcription's, one run's with another's).

Tests are laid out by owner: tests/<family>/ holds a family's (its fuzz tests included),
tests/ itself the house's. pytest puts tests/ on the path (pyproject's `pythonpath`), so
that a test in any folder imports this module (`from conftest import ROOT, assert_same`),
the fuzz harness (`import fuzz`) and the shared cases (`from cases import ...`).
"""
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]

# Under pytest-xdist (the README's `-n auto`) the workers share the cores: an idle OpenMP
# thread of GCC's runtime sleeps at once instead of spinning on a core another worker needs
# (read when the runtime first loads, which importing drfbench does not do). Not
# OMP_WAIT_POLICY: the rows record that one, and a test reads it.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "0")


def assert_same(result, expected, fields, rtol=0.0):
    """Each of `fields` of `result` equals the same of `expected` (an object with those
    attributes, or a tuple of their values in that order: what a literal transcription
    returns): bit for bit when rtol is 0, else floats within rtol (and 1e-12 absolute). A field
    may be a scalar, an array, a sparse matrix, or a dict or sequence of them."""
    values = expected if type(expected) is tuple else [getattr(expected, f) for f in fields]
    assert len(values) == len(fields), f"{len(fields)} fields, {len(values)} expected values"
    for name, value in zip(fields, values):
        _assert_same_value(getattr(result, name), value, rtol, name)


def _assert_same_value(x, y, rtol, where):
    if isinstance(x, dict):
        assert x.keys() == y.keys(), where
        for key in x:
            _assert_same_value(x[key], y[key], rtol, f"{where}[{key!r}]")
    elif isinstance(x, Sequence) and not isinstance(x, str):    # a list, a tuple, Rows
        assert len(x) == len(y), f"{where}: {len(x)} items, expected {len(y)}"
        for i, (a, b) in enumerate(zip(x, y)):
            _assert_same_value(a, b, rtol, f"{where}[{i}]")
    else:
        x, y = (v.toarray() if sp.issparse(v) else v for v in (x, y))
        if rtol and np.asarray(x).dtype.kind == "f":        # counts and flags stay exact
            np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-12, err_msg=where)
        else:
            np.testing.assert_array_equal(x, y, err_msg=where)
