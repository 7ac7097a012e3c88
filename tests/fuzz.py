"""The fuzz suite's harness (tests/**/test_fuzz_*.py): run an entry point on generated input in
a worker process, so that a hang fails that example instead of the whole test run.

    @fuzz.cases(weights=...)              # hypothesis.given, run twice: quick and long
    def test_allocate(weights):
        outcome = fuzz.call(drfbench.allocate, D, "edrf", weights=weights)
        if outcome.refused:               # a ValueError or TypeError: the clear error
            return
        ... outcome.value passes the family's invariants ...

Every entry point must either return or raise ValueError/TypeError; `call` fails the test
(with the input) for any other exception and for a call still running after HANG_SECONDS.
That limit detects a hang, not a slow run: it is far above what any generated input takes
(under a second) even on a loaded machine, and no test compares times against it.

The worker is a fresh interpreter (the "spawn" start method: a forked child of a process
that has run OpenMP kernels may deadlock in libgomp), kept across examples and replaced
after a hang. `python -m pytest -m slow -k fuzz` runs the long form (SLOW_EXAMPLES per
test; CI's second step).

With FUZZ_TALLY=FILE set, the run ends by writing FILE: a JSON list of [test, what,
count], what being "examples" (the examples hypothesis generated for the test) or an
entry point given to `call` (the calls made to it): the generated cases per entry point.
"""
import atexit
import collections
import functools
import concurrent.futures as futures
import json
import multiprocessing
import os
from dataclasses import dataclass

import hypothesis
import pytest

HANG_SECONDS = 60
EXAMPLES = 60           # per test in the default run
# per test in the long form (marked slow); FUZZ_EXAMPLES=N for a longer campaign
SLOW_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 600))

_pool = None
_tally = collections.Counter()      # (test, "examples" or entry point) -> count
OUTSIDE = "regression tests"         # calls outside a fuzz.cases test
_test = [OUTSIDE]                    # the fuzz.cases test now running, for the tally


@dataclass
class Outcome:
    value: object = None
    error: BaseException | None = None

    @property
    def refused(self):
        return self.error is not None


def _outcome(function, args, kwargs):
    try:
        return Outcome(function(*args, **kwargs))
    except (ValueError, TypeError) as exc:
        return Outcome(error=exc)


def _two_threads():
    os.environ.setdefault("OMP_NUM_THREADS", "2")


def _worker():
    global _pool
    if _pool is None:
        _pool = futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_two_threads)
    return _pool


def _discard():
    global _pool
    if _pool is not None:
        for process in list(_pool._processes.values()):
            process.kill()
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None


def call(function, *args, **kwargs):
    """function(*args, **kwargs) in the worker: an Outcome holding the value or the
    ValueError/TypeError it raised; any other exception fails the test, with the input,
    and so does a call that has not returned after HANG_SECONDS."""
    _tally[_test[0], _name(function)] += 1
    job = _worker().submit(_outcome, function, args, kwargs)
    try:
        return job.result(timeout=HANG_SECONDS)
    except futures.TimeoutError:
        _discard()
        pytest.fail(f"{_name(function)} hung (no answer in {HANG_SECONDS} s) on "
                    f"args={args!r:.400} kwargs={kwargs!r:.400}")
    except futures.process.BrokenProcessPool:
        _discard()
        pytest.fail(f"{_name(function)} crashed the worker on args={args!r:.400} "
                    f"kwargs={kwargs!r:.400}")
    except Exception as exc:
        pytest.fail(f"{_name(function)} raised {type(exc).__name__}: {exc} (not a ValueError "
                    f"or TypeError) on args={args!r:.400} kwargs={kwargs!r:.400}")


def refused(function, *args, match, **kwargs):
    """The ValueError/TypeError function(*args, **kwargs) raises in the worker, whose
    message must contain `match`; fails the test if the call returns."""
    outcome = call(function, *args, **kwargs)
    assert outcome.refused, f"accepted: {outcome.value!r:.200}"
    assert match in str(outcome.error), outcome.error
    return outcome.error


def _name(function):
    return f"{getattr(function, '__module__', '?')}.{getattr(function, '__qualname__', repr(function))}"


def _write_tally():
    path = os.environ.get("FUZZ_TALLY")
    if path and _tally:
        rows = [json.dumps([*key, n]) for key, n in sorted(_tally.items())]
        with open(path, "w") as out:
            out.write("[\n" + ",\n".join(rows) + "\n]\n")


atexit.register(_write_tally)


def cases(*args, **strategies):
    """Decorate a test as hypothesis.given(*args, **strategies) would, making two tests of
    it: [quick] with EXAMPLES examples (the default run) and [long] with SLOW_EXAMPLES
    (marked slow: CI's second step). Both derandomized (same examples every run) and
    without hypothesis's own deadline (`call`'s HANG_SECONDS is the limit)."""
    def decorate(test):
        def counted(*a, **k):
            _tally[_test[0], "examples"] += 1
            return test(*a, **k)

        def run(examples):
            _test[0] = f"{test.__module__}::{test.__name__}[{examples}]"
            try:
                hypothesis.settings(deadline=None, max_examples=examples, derandomize=True,
                                    database=None,
                                    suppress_health_check=list(hypothesis.HealthCheck))(
                    hypothesis.given(*args, **strategies)(functools.wraps(test)(counted)))()
            finally:
                _test[0] = OUTSIDE
        run.__name__, run.__qualname__ = test.__name__, test.__qualname__
        run.__module__, run.__doc__ = test.__module__, test.__doc__
        return pytest.mark.parametrize("examples", FORMS)(run)
    return decorate


FORMS = [pytest.param(EXAMPLES, id="quick"),
         pytest.param(SLOW_EXAMPLES, id="long", marks=pytest.mark.slow)]
