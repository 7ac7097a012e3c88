"""literal=True, one way for every method: each registered method with a transcription of
its paper (Method.literal) runs it through drfbench.run and decides as its kernel does on a
tiny instance of its kind; every other method refuses literal=True, naming those that take
it. (Each family's tests hold its kernel to its transcription on many random instances.)"""
import numpy as np
import pandas as pd
import pytest

import drfbench
from drfbench import api
from conftest import assert_same

US = 1e-6
_rng = np.random.default_rng(4)
_D = _rng.choice([0.1, 0.3, 0.5], size=(30, 2))
# A tiny instance of each kind whose methods have a transcription, its options, and the
# fields of the result that the kernel and the transcription must give alike.
TINY = {
    "flows": (([[1 * US, 6 * US], [7 * US, 1 * US]],),          # the lecture's two flows
              dict(duration=2e-3, interval=3e-4, source="tcp", rtt=5e-5, decisions=True),
              ("served", "dispatched", "arrived", "dropped", "work", "busy_seconds",
               "blocked_seconds", "series", "decisions", "bottleneck")),
    "trace": ((pd.DataFrame({"r0": [1.0, 1.0, 0.5], "r1": [1.0, 0.5, 1.0]}),
               pd.DataFrame({"user": _rng.integers(0, 3, 30), "job": np.arange(30),
                             "arrival": np.sort(_rng.uniform(0, 50, 30)),
                             "duration": _rng.uniform(5, 30, 30), "r0": _D[:, 0],
                             "r1": _D[:, 1]})),
              dict(sample=5.0), ("utilization", "shares", "jobs", "completion")),
    "tree": (({"resources": ["cpu", "mem", "gpu"],
               "children": {"research": {"weight": 2, "children": {
                   "train": {"demand": [4, 16, 1], "tasks": 40},
                   "eval": {"weight": 3, "demand": [1, 2, 0]}}},
                   "web": {"weight": 1, "demand": [2, 4, 0], "tasks": 200}}},
              [[16, 64, 2]] * 4),
             {}, ("tasks", "order", "shares", "free", "decisions")),
}


def _same(result, expected, fields):
    """assert_same, DataFrames compared whole (pandas' own equality)."""
    frames = [f for f in fields if isinstance(getattr(result, f), pd.DataFrame)]
    for f in frames:
        pd.testing.assert_frame_equal(getattr(result, f), getattr(expected, f), check_exact=True)
    assert_same(result, expected, [f for f in fields if f not in frames])


@pytest.mark.parametrize("method", drfbench.methods())
def test_literal_runs_the_transcription_or_is_refused(method):
    spec = api.method_info(method)
    if not spec.literal:
        assert "literal" not in spec.options
        with pytest.raises(ValueError, match=f"method '{method}' has no literal transcription; "
                                             "methods with one: .*drfq"):
            drfbench.run(method, *[None] * len(api.KINDS[spec.takes].inputs), literal=True)
        return
    assert spec.options["literal"] is api.LITERAL and spec.defaults()["literal"] is False
    inputs, options, fields = TINY[spec.takes]
    options = {k: v for k, v in options.items() if spec.takes_option(k)}
    kernel = drfbench.run(method, *inputs, **options)
    literal = drfbench.run(method, *inputs, literal=True, **options)
    assert kernel.decisions if hasattr(kernel, "decisions") else len(kernel.jobs)
    _same(literal, kernel, fields)


def test_methods_lists_those_with_a_transcription():
    with_one = drfbench.methods(literal=True)
    assert set(with_one) >= set(drfbench.methods(family="drfq")) | set(drfbench.methods(family="hdrf"))
    assert set(with_one) == {m for m in drfbench.methods() if api.method_info(m).literal}
    assert "edrf" not in with_one
